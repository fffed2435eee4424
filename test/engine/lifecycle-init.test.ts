// Init containers on the real engine, through the built CLI: order, failure under Never, retry under Always,
// no second run on a re-run, sidecars beside the app containers, and termination messages in the failure report.
// Containers of one pod share the infra container's IPC namespace and so its /dev/shm: the init containers
// leave their marks there for the next container to read (no volume needed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type CliResult, uniqueName } from './harness.js';
import { podUid } from '../../src/kube/names.js';
import {
  busybox,
  checkNothingLeftBehind,
  cleanupFile,
  cleanupPod,
  docker,
  dockerTry,
  eventually,
  inspect,
  logsOf,
  podContainerIds,
  podFile,
  runpod,
  show,
  sleeper,
  type InspectedFull,
} from './run-helpers.js';
import { podVolumes } from './volumes-helpers.js';

checkNothingLeftBehind();

/** Every instance of a pod's containers, by container name, oldest attempt first. */
function instances(name: string): Map<string, (InspectedFull & { State: { FinishedAt: string } })[]> {
  const out = new Map<string, (InspectedFull & { State: { FinishedAt: string } })[]>();
  for (const c of inspect(podContainerIds(name)) as (InspectedFull & { State: { FinishedAt: string } })[]) {
    const key = c.Config.Labels['io.kubernetes.container.name']!;
    out.set(
      key,
      [...(out.get(key) ?? []), c].sort(
        (a, b) => Number(a.Config.Labels['io.kubernetes.container.restartCount']) - Number(b.Config.Labels['io.kubernetes.container.restartCount']),
      ),
    );
  }
  return out;
}

const sh = (name: string, script: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ name, image: busybox, command: ['sh', '-c', script], ...extra });

test('init containers run one at a time, in order, each to exit 0, before the app container', async (t) => {
  const name = uniqueName('init-order');
  cleanupPod(t, name);
  const file = podFile({
    name,
    initContainers: [sh('first', 'echo first >> /dev/shm/order; sleep 1'), sh('second', 'echo second >> /dev/shm/order')],
    containers: [sh('app', 'cat /dev/shm/order; exec sleep 3600')],
  });
  cleanupFile(t, file);
  const r = await runpod(['--timeout', '90s', file]);
  assert.equal(r.code, 0, show(r));
  const all = instances(name);
  const first = all.get('first')?.[0];
  const second = all.get('second')?.[0];
  const app = all.get('app')?.[0];
  assert.ok(first && second && app, `every container exists: ${[...all.keys()].join(', ')}`);
  // Each init container ran once, exited 0, and is kept (restart policy "no") as the record that it ran.
  for (const c of [first, second]) {
    assert.equal(c.State.Status, 'exited');
    assert.equal(c.State.ExitCode, 0);
    assert.equal(c.HostConfig.RestartPolicy.Name, 'no');
    assert.equal(c.Config.Labels['io.runpod.container.type'], 'init');
  }
  // Order on the engine's own clock: first finished before second started, second before app started.
  assert.ok(Date.parse(first.State.FinishedAt) <= Date.parse(second.State.StartedAt), 'first finished before second started');
  assert.ok(Date.parse(second.State.FinishedAt) <= Date.parse(app.State.StartedAt), 'second finished before app started');
  // And as the containers saw it.
  await eventually('the app read both marks in order', () => (logsOf(app.Id).includes('first\nsecond') ? true : undefined));
});

test('an init container failing under restartPolicy Never fails the pod: exit 1 with its exit code and logs', async (t) => {
  const name = uniqueName('init-never');
  cleanupPod(t, name);
  const file = podFile({
    name,
    restartPolicy: 'Never',
    initContainers: [sh('setup', 'echo cannot reach the database >&2; exit 3')],
    containers: [sleeper('app')],
  });
  cleanupFile(t, file);
  const r = await runpod(['--timeout', '90s', file]);
  assert.equal(r.code, 1, show(r));
  assert.match(r.stderr, /init container setup exited with code 3 and restartPolicy Never will not restart it/, show(r));
  assert.match(r.stderr, /\| cannot reach the database/, show(r));
  const all = instances(name);
  assert.equal(all.get('setup')?.length, 1, 'not retried');
  assert.equal(all.has('app'), false, 'the app container never started');
});

test('an init container failing under restartPolicy Always is run again (a new instance) until it succeeds', async (t) => {
  const name = uniqueName('init-retry');
  cleanupPod(t, name);
  // The first instance leaves a mark in the pod's /dev/shm and fails; the next one finds it and succeeds.
  const file = podFile({
    name,
    initContainers: [sh('flaky', 'if [ -f /dev/shm/tried ]; then echo second try; exit 0; fi; touch /dev/shm/tried; echo first try fails; exit 1')],
    containers: [sleeper('app')],
  });
  cleanupFile(t, file);
  const r = await runpod(['-o', 'json', '--timeout', '90s', file]);
  assert.equal(r.code, 0, show(r));
  const flaky = instances(name).get('flaky') ?? [];
  assert.deepEqual(
    flaky.map((c) => [c.Config.Labels['io.kubernetes.container.restartCount'], c.State.ExitCode, c.HostConfig.RestartPolicy.Name]),
    [
      ['0', 1, 'no'],
      ['1', 0, 'no'],
    ],
  );
  assert.match(logsOf(flaky[0]!.Id), /first try fails/);
  const result = JSON.parse(r.stdout) as { pods: { actions: { action: string; container: string; reason: string }[] }[] };
  assert.ok(
    result.pods[0]!.actions.some((a) => a.container === 'flaky' && /exited with code 1; restartPolicy Always runs it again/.test(a.reason)),
    show(r),
  );
});

test('a re-run of a pod whose init containers succeeded does not run them again', async (t) => {
  const name = uniqueName('init-rerun');
  cleanupPod(t, name);
  const file = podFile({ name, initContainers: [sh('once', 'echo ran')], containers: [sleeper('app')] });
  cleanupFile(t, file);
  const first = await runpod(['--timeout', '90s', file]);
  assert.equal(first.code, 0, show(first));
  const before = podContainerIds(name);
  const again = await runpod(['-o', 'json', '--timeout', '90s', file]);
  assert.equal(again.code, 0, show(again));
  assert.deepEqual(podContainerIds(name), before, 'the same containers, no new init instance');
  const result = JSON.parse(again.stdout) as { pods: { changed: boolean }[] };
  assert.equal(result.pods[0]!.changed, false, show(again));
});

test('a sidecar init container starts before the next init container and keeps running with the app', async (t) => {
  const name = uniqueName('init-sidecar');
  cleanupPod(t, name);
  const file = podFile({
    name,
    initContainers: [
      sh('proxy', 'touch /dev/shm/proxy-up; exec sleep 3600', { restartPolicy: 'Always' }),
      // Started means running: the sidecar's first command has had its moment, so wait a little for its mark.
      sh('check', 'for i in $(seq 50); do [ -f /dev/shm/proxy-up ] && echo proxy is up && exit 0; sleep 0.2; done; exit 1'),
    ],
    containers: [sleeper('app')],
  });
  cleanupFile(t, file);
  const r = await runpod(['--timeout', '90s', file]);
  assert.equal(r.code, 0, show(r));
  const all = instances(name);
  const proxy = all.get('proxy')?.[0];
  const check = all.get('check')?.[0];
  const app = all.get('app')?.[0];
  assert.ok(proxy && check && app, show(r));
  assert.equal(proxy.State.Status, 'running', 'the sidecar keeps running beside the app');
  assert.equal(proxy.HostConfig.RestartPolicy.Name, 'always');
  assert.equal(proxy.Config.Labels['io.runpod.container.type'], 'sidecar');
  assert.equal(check.State.ExitCode, 0, logsOf(check.Id));
  assert.ok(Date.parse(proxy.State.StartedAt) <= Date.parse(check.State.StartedAt), 'the sidecar started first');
  assert.equal(app.State.Status, 'running');
});

test('terminationMessagePath and FallbackToLogsOnError feed the failure report', async (t) => {
  // One pod each: with restartPolicy Never the first failed container ends the run, so two failing containers in
  // one pod would race for the report.
  const pods = [
    { name: uniqueName('term-msg'), container: sh('writer', 'echo "config key db.url is missing" > /tmp/why; exit 2', { terminationMessagePath: '/tmp/why' }) },
    { name: uniqueName('term-logs'), container: sh('logger', 'echo noise; echo "panic: out of cheese"; exit 4', { terminationMessagePolicy: 'FallbackToLogsOnError' }) },
  ];
  const runs = await Promise.all(
    pods.map(async ({ name, container }) => {
      cleanupPod(t, name);
      const file = podFile({ name, restartPolicy: 'Never', containers: [container] });
      cleanupFile(t, file);
      return runpod(['--wait', 'completed', '--timeout', '90s', file]);
    }),
  );
  const [writer, logger] = runs as [CliResult, CliResult];
  assert.equal(writer.code, 1, show(writer));
  assert.match(writer.stderr, /termination message: config key db\.url is missing/, show(writer));
  assert.equal(logger.code, 1, show(logger));
  assert.match(logger.stderr, /termination message:\n(.*\n)*\s+> panic: out of cheese/, show(logger));
});

test('the default /dev/termination-log outlives the container (a file bound there per instance), for app and init containers, non-root and read-only too; down removes its volume', async (t) => {
  // One pod each (restartPolicy Never: the first failed container ends the run). No terminationMessagePath set:
  // the default, under /dev, a tmpfs on Docker.
  const pods = [
    { name: uniqueName('term-default'), message: 'db is down', spec: { containers: [sh('app', 'echo "db is down" > /dev/termination-log; exit 3')] } },
    {
      name: uniqueName('term-nonroot'),
      message: 'cannot write as 1000',
      spec: {
        containers: [sh('app', 'echo "cannot write as $(id -u)" > /dev/termination-log; exit 3', { securityContext: { runAsUser: 1000, readOnlyRootFilesystem: true } })],
      },
    },
    {
      name: uniqueName('term-init'),
      message: 'schema too new',
      spec: { initContainers: [sh('migrate', 'echo "schema too new" > /dev/termination-log; exit 5')], containers: [sleeper('app')] },
    },
  ];
  const runs = await Promise.all(
    pods.map(async ({ name, spec }) => {
      cleanupPod(t, name);
      const file = podFile({ name, restartPolicy: 'Never', ...spec });
      cleanupFile(t, file);
      return { file, r: await runpod(['--wait', 'completed', '--timeout', '90s', file]) };
    }),
  );
  for (const [i, { name, message }] of pods.entries()) {
    const { file, r } = runs[i]!;
    assert.equal(r.code, 1, show(r));
    assert.ok(r.stderr.includes(`termination message: ${message}`), show(r));
    assert.deepEqual(podVolumes(name), [`runpod_${podUid('default', name)}_termination-log`], `the pod's one volume: its termination-log\n${show(r)}`);
    const down = await runpod(['down', file]);
    assert.equal(down.code, 0, show(down));
    assert.deepEqual(podVolumes(name), [], 'down leaves no volume of the pod');
  }
});

test("down removes a volume helper container a cut-short run left holding the pod's volume, then the volume", async (t) => {
  const name = uniqueName('term-helper');
  cleanupPod(t, name);
  const file = podFile({ name, containers: [sleeper('app')] });
  cleanupFile(t, file);
  const up = await runpod(['--timeout', '90s', file]);
  assert.equal(up.code, 0, show(up));
  const volume = `runpod_${podUid('default', name)}_termination-log`;
  // What a run that a deadline or a second signal ended mid-fill leaves: a created helper mounting the volume.
  const helper = docker([
    'create',
    '--label',
    'app.kubernetes.io/managed-by=runpod',
    '--label',
    'io.runpod.helper=volumes',
    '--label',
    `io.runpod.helper.pod=default/${name}`,
    '--mount',
    `type=volume,source=${volume},target=/v/0`,
    busybox,
    'true',
  ]).trim();
  t.after(() => dockerTry(['rm', '-f', helper]));
  const down = await runpod(['down', file]);
  assert.equal(down.code, 0, show(down));
  assert.notEqual(dockerTry(['inspect', helper]).status, 0, 'the helper is gone');
  assert.deepEqual(podVolumes(name), [], 'and so is the volume it held');
});

test('a kubectl export (terminationMessagePath /dev/termination-log, policy File on every container) passes validation', async (t) => {
  const exported = { terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' };
  const file = podFile([
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'exported' },
      spec: { initContainers: [{ ...sh('setup', 'true'), ...exported }], containers: [{ ...sleeper('app'), ...exported }] },
    },
  ]);
  cleanupFile(t, file);
  const r = await runpod(['validate', file]);
  assert.equal(r.code, 0, show(r));
});
