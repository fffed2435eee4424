// A second engine started by the test: TLS on a loopback TCP port (verification on, certificates made here),
// and commands that act on every runpod pod (gc, down --all), which must never run against the shared engine
// where other tests' pods live.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runpod, uniqueName, writeManifest } from './harness.js';
import { type Engine2, startEngine2 } from './engine2.js';
import { busybox, podFile, show, sleeper } from './run-helpers.js';

let engine: Engine2;

before(async () => {
  engine = await startEngine2({ tls: true });
});
after(async () => {
  await engine?.stop();
});

/** Labelled containers of one pod on the second engine: "name attempt state" per line, sorted. */
function podInstances(pod: string): string[] {
  const out = engine.docker([
    'ps',
    '-a',
    '--filter',
    `label=io.kubernetes.pod.name=${pod}`,
    '--format',
    '{{.Label "io.kubernetes.container.name"}} {{.Label "io.kubernetes.container.restartCount"}} {{.State}}',
  ]);
  return out ? out.split('\n').sort() : [];
}

function containerId(pod: string, container: string): string {
  return engine.docker(['ps', '-q', '--filter', `label=io.kubernetes.pod.name=${pod}`, '--filter', `label=io.kubernetes.container.name=${container}`]);
}

describe('TLS engine on a loopback port', () => {
  test('a pod runs there with verification on; status, logs and exec go over TLS too', async () => {
    const name = uniqueName('tls');
    const file = podFile({ name, containers: [{ name: 'main', image: busybox, command: ['sh', '-c', 'echo over-tls; exec sleep 3600'] }] });
    const env = engine.env();
    const r = await runpod(['--timeout', '60s', file], { env });
    assert.equal(r.code, 0, show(r));
    assert.match(r.stderr, /every container is running/, show(r));
    // It is on the second engine, not the shared one.
    assert.deepEqual(podInstances(name), ['POD 0 running', 'main 0 running']);
    const st = await runpod(['status', '-o', 'json', name], { env });
    assert.equal(st.code, 0, show(st));
    assert.equal((JSON.parse(st.stdout) as { pods: { phase: string }[] }).pods[0]?.phase, 'Running');
    const logs = await runpod(['logs', name], { env });
    assert.equal(logs.stdout, 'over-tls\n', show(logs));
    // exec hijacks the HTTP connection: over TLS as over the socket.
    const ex = await runpod(['exec', name, '--', 'sh', '-c', 'echo in-tls; exit 4'], { env });
    assert.equal(ex.code, 4, show(ex));
    assert.equal(ex.stdout, 'in-tls\n');
  });

  test('without a client certificate the engine refuses: exit 3 with the reason', async () => {
    const file = podFile({ name: uniqueName('tls-refused'), containers: [sleeper('main')] });
    const env = { ...engine.env(), DOCKER_CERT_PATH: engine.caOnlyDir! };
    const r = await runpod(['--retries', '0', file], { env });
    assert.equal(r.code, 3, show(r));
    assert.match(r.stderr, new RegExp(`cannot reach the Docker engine at ${engine.tcpAddress!.replace(/\./g, '\\.')}`), show(r));
    assert.match(r.stderr, /client certificate/, show(r));
    const st = await runpod(['status'], { env });
    assert.equal(st.code, 3, show(st));
  });

  test('verification on but no ca.pem to verify with: exit 3 naming the file', async () => {
    const env = { ...engine.env(), DOCKER_CERT_PATH: '/nonexistent-runpod-certs' };
    const r = await runpod(['status'], { env });
    assert.equal(r.code, 3, show(r));
    assert.match(r.stderr, /ca\.pem cannot be read/, show(r));
  });

  test('plain HTTP to the TLS port: exit 3', async () => {
    const r = await runpod(['status'], { env: { DOCKER_HOST: engine.tcpAddress!, DOCKER_TLS_VERIFY: '', DOCKER_CERT_PATH: '' } });
    assert.equal(r.code, 3, show(r));
  });
});

describe('gc and down --all on an engine of their own', () => {
  const host = (): string[] => ['--host', engine.socket];

  /** Stop a container by hand, then run again: runpod replaces it and keeps the dead instance. */
  async function restartByHand(file: string, pod: string, container: string): Promise<void> {
    engine.docker(['stop', '-t', '0', containerId(pod, container)]);
    const r = await runpod([...host(), '--timeout', '60s', file]);
    assert.equal(r.code, 0, show(r));
  }

  test('gc keeps the newest dead instance, never a running one, and removes what is left of gone pods', async () => {
    const keep = uniqueName('gc-keep');
    const keepFile = podFile({ name: keep, containers: [sleeper('main')] });
    const gone = uniqueName('gc-gone');
    const goneFile = podFile({ name: gone, containers: [sleeper('main')] });
    for (const f of [keepFile, goneFile]) {
      const r = await runpod([...host(), '--timeout', '60s', f]);
      assert.equal(r.code, 0, show(r));
    }
    await restartByHand(keepFile, keep, 'main');
    await restartByHand(keepFile, keep, 'main');
    assert.deepEqual(podInstances(keep), ['POD 0 running', 'main 0 exited', 'main 1 exited', 'main 2 running']);
    // A pod whose sandbox is gone no longer exists; its volume goes with it. Volumes without a pod's uid, or
    // without runpod's label, are not gc's.
    const goneUid = engine.docker(['inspect', '--format', '{{index .Config.Labels "io.kubernetes.pod.uid"}}', containerId(gone, 'POD')]);
    engine.docker(['stop', '-t', '0', containerId(gone, 'main'), containerId(gone, 'POD')]);
    const managed = ['--label', 'app.kubernetes.io/managed-by=runpod'];
    engine.docker([
      'volume',
      'create',
      ...managed,
      '--label',
      `io.kubernetes.pod.uid=${goneUid}`,
      '--label',
      `io.kubernetes.pod.name=${gone}`,
      '--label',
      'io.kubernetes.pod.namespace=default',
      `${gone}-data`,
    ]);
    engine.docker(['volume', 'create', ...managed, `${gone}-claim`]);
    engine.docker(['volume', 'create', '--label', `io.kubernetes.pod.uid=${goneUid}`, `${gone}-foreign`]);

    // Everything is younger than the default --min-age 1m: nothing goes.
    const young = await runpod(['gc', ...host()]);
    assert.equal(young.code, 0, show(young));
    assert.match(young.stderr, /nothing to remove/, show(young));

    const dry = await runpod(['gc', ...host(), '--min-age', '0s', '--dry-run']);
    assert.equal(dry.code, 0, show(dry));
    assert.match(dry.stdout, new RegExp(`would remove container k8s_main_${keep}_default_[0-9a-f-]+_0 `), show(dry));
    assert.equal(podInstances(keep).length, 4, 'a dry run removes nothing');

    const r = await runpod(['gc', ...host(), '--min-age', '0s']);
    assert.equal(r.code, 0, show(r));
    // The oldest dead instance went; the newest dead one (for logs --previous) and the running one stay.
    assert.deepEqual(podInstances(keep), ['POD 0 running', 'main 1 exited', 'main 2 running']);
    assert.deepEqual(podInstances(gone), []);
    assert.match(r.stdout, new RegExp(`removed container k8s_main_${keep}_default_[0-9a-f-]+_0 .*more than 1 dead instance`), show(r));
    assert.match(r.stdout, new RegExp(`removed container k8s_POD_${gone}_default_.*no longer exists`), show(r));
    assert.match(r.stdout, new RegExp(`removed volume ${gone}-data`), show(r));
    const volumes = engine.docker(['volume', 'ls', '-q']).split('\n');
    assert.ok(!volumes.includes(`${gone}-data`), "the gone pod's volume was removed");
    assert.ok(volumes.includes(`${gone}-claim`) && volumes.includes(`${gone}-foreign`), 'other volumes stay');

    // No dead instance kept at all: still never the running one.
    const none = await runpod(['gc', ...host(), '--min-age', '0s', '--max-per-container', '0']);
    assert.equal(none.code, 0, show(none));
    assert.deepEqual(podInstances(keep), ['POD 0 running', 'main 2 running']);
    const prev = await runpod([...host(), 'logs', keep, '--previous']);
    assert.equal(prev.code, 1, show(prev));

    engine.docker(['volume', 'rm', `${gone}-claim`, `${gone}-foreign`]);
  });

  test('gc removes a rules writer or network lock that a killed runpod left, never a running one or another role', async () => {
    const u = uniqueName('gc-helper');
    const lock = engine.docker(['create', '--label', 'io.runpod.role=network-lock', '--name', `runpod_netlock_${u}`, busybox, 'true']);
    const writer = engine.docker(['create', '--label', 'io.runpod.role=service-rules', '--name', `${u}-rules`, busybox, 'true']);
    const live = engine.docker(['run', '-d', '--label', 'io.runpod.role=service-rules', '--name', `${u}-live`, busybox, 'sleep', '600']);
    const other = engine.docker(['create', '--label', 'io.runpod.role=something-else', '--name', `${u}-other`, busybox, 'true']);
    const present = (): string[] =>
      engine
        .docker(['ps', '-aq', '--no-trunc', '--filter', `name=${u}`])
        .split('\n')
        .filter((x) => x !== '')
        .sort();

    const young = await runpod(['gc', ...host()]);
    assert.equal(young.code, 0, show(young));
    assert.deepEqual(present(), [lock, writer, live, other].sort(), 'younger than --min-age: all stay');

    const r = await runpod(['gc', ...host(), '--min-age', '0s']);
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, new RegExp(`removed container runpod_netlock_${u} \\(created, .*a network-lock helper left by a runpod`), show(r));
    assert.match(r.stdout, new RegExp(`removed container ${u}-rules \\(created, .*a service-rules helper`), show(r));
    assert.deepEqual(present(), [live, other].sort(), show(r));
    engine.docker(['rm', '-f', live, other]);
  });

  test('gc removes the pods of a Job once its ttlSecondsAfterFinished has passed since it finished, not before', async () => {
    const name = uniqueName('ttl');
    const file = writeManifest(
      `apiVersion: batch/v1
kind: Job
metadata: {name: ${name}}
spec:
  ttlSecondsAfterFinished: 10
  template:
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 0
      containers: [{name: main, image: ${busybox}, command: [sh, -c, 'echo done']}]
`,
      'job.yaml',
    );
    const r = await runpod([...host(), '--timeout', '60s', file]);
    assert.equal(r.code, 0, show(r));
    const pods = (): string[] =>
      engine
        .docker(['ps', '-a', '--filter', `label=io.runpod.owner=job/${name}`, '--format', '{{.Label "io.kubernetes.pod.name"}}'])
        .split('\n')
        .filter(Boolean);
    assert.equal(new Set(pods()).size, 1);
    // A --min-age no dead container reaches: only the ttl can remove anything.
    const early = await runpod(['gc', ...host(), '--min-age', '1000h']);
    assert.equal(early.code, 0, show(early));
    assert.doesNotMatch(early.stdout, new RegExp(`job/${name}`), show(early));
    assert.equal(new Set(pods()).size, 1, 'not yet: the ttl has not passed');
    // Past the ttl, counted from the container's finish as the engine recorded it.
    const main = engine.docker(['ps', '-aq', '--filter', `label=io.runpod.owner=job/${name}`, '--filter', 'label=io.kubernetes.container.name=main']);
    const finished = Date.parse(engine.docker(['inspect', '--format', '{{.State.FinishedAt}}', main]));
    await new Promise((res) => setTimeout(res, Math.max(0, finished + 10_500 - Date.now())));
    const dry = await runpod(['gc', ...host(), '--min-age', '1000h', '--dry-run']);
    assert.match(dry.stdout, new RegExp(`would remove job/${name} in default, pods ${name}-\\S+: finished \\d+s ago, past its ttlSecondsAfterFinished 10`), show(dry));
    assert.equal(new Set(pods()).size, 1, 'a dry run removes nothing');
    const late = await runpod(['gc', ...host(), '--min-age', '1000h']);
    assert.equal(late.code, 0, show(late));
    assert.match(late.stdout, new RegExp(`removed job/${name} in default, pods ${name}-\\S+: finished \\d+s ago, past its ttlSecondsAfterFinished 10`), show(late));
    assert.deepEqual(pods(), []);
  });

  test("gc --claims removes the claims no pod uses any more, older than --min-age, and --dry-run says so; a claim a pod mounts (even by a subPath) and a volume not runpod's stay", async () => {
    const u = uniqueName('gc-claims');
    const claim = (name: string): string =>
      `apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: ${name}}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Mi}}}\n`;
    const file = writeManifest(
      `${claim(`${u}-free`)}---\n${claim(`${u}-used`)}---
apiVersion: v1
kind: Pod
metadata: {name: ${u}}
spec:
  terminationGracePeriodSeconds: 0
  containers:
    - name: main
      image: ${busybox}
      command: [sh, -c, 'echo in-use > /data/file; exec sleep 3600']
      volumeMounts: [{name: data, mountPath: /data, subPath: sub}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: ${u}-used}}]
`,
      'claims.yaml',
    );
    const r = await runpod([...host(), '--timeout', '60s', file]);
    assert.equal(r.code, 0, show(r));
    const foreign = `pvc_default_${u}-foreign`;
    engine.docker(['volume', 'create', '--label', 'io.runpod.volume.type=persistentVolumeClaim', '--label', `io.runpod.pvc.name=${u}-foreign`, foreign]);
    const volumes = (): string[] =>
      engine
        .docker(['volume', 'ls', '-q'])
        .split('\n')
        .filter((v) => v.includes(u))
        .sort();
    const all = [`pvc_default_${u}-free`, `pvc_default_${u}-used`, foreign].sort();
    assert.deepEqual(volumes(), all);

    // Younger than the default --min-age 1m: nothing is said of them.
    const young = await runpod(['gc', ...host(), '--claims', '--dry-run']);
    assert.equal(young.code, 0, show(young));
    assert.doesNotMatch(`${young.stdout}${young.stderr}`, new RegExp(`${u}-free`), show(young));
    // Without --claims: kept, and said so.
    const plain = await runpod(['gc', ...host(), '--min-age', '0s', '--dry-run']);
    assert.equal(plain.code, 0, show(plain));
    assert.match(
      plain.stderr,
      new RegExp(`gc: kept 1 claim volume no pod uses any more \\(pvc_default_${u}-free\\): their data stays unless asked; runpod gc --claims removes them`),
      show(plain),
    );
    const dry = await runpod(['gc', ...host(), '--claims', '--min-age', '0s', '--dry-run']);
    assert.equal(dry.code, 0, show(dry));
    assert.match(dry.stdout, new RegExp(`would remove claim volume pvc_default_${u}-free \\(created .* ago\\): no pod uses claim default/${u}-free any more`), show(dry));
    assert.doesNotMatch(dry.stdout, new RegExp(`${u}-used|${u}-foreign`), show(dry));
    assert.deepEqual(volumes(), all, 'a dry run removes nothing');

    const gc = await runpod(['gc', ...host(), '--claims', '--min-age', '0s']);
    assert.equal(gc.code, 0, show(gc));
    assert.match(gc.stdout, new RegExp(`removed claim volume pvc_default_${u}-free `), show(gc));
    assert.deepEqual(volumes(), [`pvc_default_${u}-used`, foreign].sort(), 'the claim mounted by a subPath (a bind, to the engine) stays');
    assert.equal(engine.docker(['exec', containerId(u, 'main'), 'cat', '/data/file']), 'in-use');

    // Once its pod is gone, it is no pod's any more.
    const down = await runpod(['down', ...host(), file]);
    assert.equal(down.code, 0, show(down));
    const after = await runpod(['gc', ...host(), '--claims', '--min-age', '0s']);
    assert.equal(after.code, 0, show(after));
    assert.match(after.stdout, new RegExp(`removed claim volume pvc_default_${u}-used `), show(after));
    assert.deepEqual(volumes(), [foreign], "a volume without runpod's labels is never gc's");
    engine.docker(['volume', 'rm', foreign]);
  });

  test('down --all removes every runpod pod in every namespace, and nothing else', async () => {
    const a = uniqueName('all-a');
    const b = uniqueName('all-b');
    for (const [name, ns] of [
      [a, 'default'],
      [b, 'other'],
    ] as const) {
      const r = await runpod([...host(), '-n', ns, '--timeout', '60s', podFile({ name, containers: [sleeper('main')] })]);
      assert.equal(r.code, 0, show(r));
    }
    const foreign = engine.docker(['run', '-d', '--network', 'none', busybox, 'sleep', '3600']);
    try {
      const both = await runpod(['down', ...host(), '--all', a]);
      assert.equal(both.code, 2, show(both));
      const r = await runpod(['down', ...host(), '--all']);
      assert.equal(r.code, 0, show(r));
      assert.match(r.stdout, new RegExp(`default/${a}: removed`), show(r));
      assert.match(r.stdout, new RegExp(`other/${b}: removed`), show(r));
      assert.equal(engine.docker(['ps', '-aq', '--filter', 'label=app.kubernetes.io/managed-by=runpod']), '');
      assert.equal(engine.docker(['inspect', '--format', '{{.State.Running}}', foreign]), 'true', 'a container runpod did not make is left alone');
    } finally {
      engine.docker(['rm', '-f', foreign]);
    }
  });
});
