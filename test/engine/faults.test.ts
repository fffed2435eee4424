// Faults (issue 6): the engine restarts while runpod waits and after the pod is up, the engine stops or freezes,
// the infra container is killed, signals during a run, and a volume that cannot be prepared.
//
// Anything that stops, restarts or freezes dockerd runs against a SECOND engine of this test's own (engine2.ts),
// never the shared one at /var/run/docker.sock, where other tests' pods live. Killing one infra container and
// volume errors use the shared engine: they touch only this file's pods.
//
// Two concurrent, then eight concurrent runs of one manifest: run-inputs.test.ts ("two, then eight, concurrent
// runs of one manifest leave exactly one pod", "eight concurrent runs on a fresh pod …").
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Engine2, startEngine2 } from './engine2.js';
import { type CliResult, type Inspected, alive, removePod, runpodBin, uniqueName } from './harness.js';
import {
  busybox,
  checkNothingLeftBehind,
  cleanupFile,
  cleanupPod,
  docker,
  dockerTry,
  eventually,
  inspect,
  must,
  podContainerIds,
  podContainers,
  podFile,
  runpod,
  show,
  sleep,
  sleeper,
  type Obj,
} from './run-helpers.js';

checkNothingLeftBehind();

/** A busybox httpd answering "hello <name>" on a port, and a client that fetches from it: the pod's shared network. */
function web(port: number, body: string): Obj {
  return { name: 'web', image: busybox, command: ['sh', '-c', `mkdir -p /www && echo ${body} > /www/index.html && exec httpd -f -p ${port} -h /www`] };
}

/** Fetch http://localhost:<port>/ from inside a container (docker exec via run): the body, or the error. */
function fetchInside(run: (args: string[]) => { status: number | null; stdout: string; stderr: string }, id: string, port: number): string {
  // (busybox-static's wget crashes with -T here: no timeout option; a refused connection fails at once.)
  const r = run(['exec', id, 'wget', '-q', '-O', '-', `http://localhost:${port}/`]);
  return r.status === 0 ? r.stdout.trim() : `wget failed (${r.status}): ${r.stderr.trim()}`;
}

describe('on an engine of its own that restarts, stops and freezes', () => {
  let engine: Engine2;
  before(async () => {
    engine = await startEngine2();
  });
  after(async () => {
    const pid = engine?.pid();
    if (pid !== undefined && alive(pid)) process.kill(pid, 'SIGCONT');
    await engine?.stop();
  });

  const host = (): string[] => ['--host', engine.socket];

  /** The docker CLI against the second engine, never throwing. */
  const docker2 = (args: string[]): { status: number | null; stdout: string; stderr: string } => {
    const r = spawnSync('docker', ['-H', engine.socket, ...args], { encoding: 'utf8', env: { ...process.env, DOCKER_HOST: '', DOCKER_CONTEXT: '' } });
    return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
  };

  const ids2 = (pod: string): string[] => {
    const out = engine.docker(['ps', '-aq', '--no-trunc', '--filter', 'label=app.kubernetes.io/managed-by=runpod', '--filter', `label=io.kubernetes.pod.name=${pod}`]);
    return out ? out.split('\n').sort() : [];
  };

  /**
   * The pod's containers on the second engine by io.kubernetes.container.name: the latest instance of each (highest
   * restartCount). An earlier instance may remain, exited, as the kubelet keeps one for `logs --previous` (a
   * container the engine could not bring back is replaced by runpod); two running instances of one are a failure.
   */
  const pod2 = (pod: string): Map<string, Inspected> => {
    const ids = ids2(pod);
    const byName = new Map<string, Inspected>();
    if (ids.length === 0) return byName;
    const restarts = (c: Inspected): number => Number(c.Config.Labels['io.kubernetes.container.restartCount'] ?? '0');
    for (const c of JSON.parse(engine.docker(['inspect', ...ids])) as Inspected[]) {
      const key = c.Config.Labels['io.kubernetes.container.name']!;
      const other = byName.get(key);
      if (other !== undefined) {
        assert.ok(!(other.State.Running && c.State.Running), `two running instances of ${key} in pod ${pod}`);
        assert.notEqual(restarts(other), restarts(c), `two instances of ${key} with one restartCount in pod ${pod}`);
        if (restarts(other) > restarts(c)) continue;
      }
      byName.set(key, c);
    }
    return byName;
  };

  /** Registered before a test touches the engine: its pod goes, and a stopped or frozen engine comes back. */
  const cleanup2 = (t: TestContext, pod: string): void => {
    t.after(async () => {
      const pid = engine.pid();
      if (pid !== undefined && alive(pid)) process.kill(pid, 'SIGCONT');
      if (pid === undefined || !alive(pid) || docker2(['version']).status !== 0) await engine.restart();
      const ids = ids2(pod);
      if (ids.length > 0) engine.docker(['rm', '-f', '-v', ...ids]);
    });
  };

  /** SIGTERM the second dockerd and wait until it has exited (it stops its containers first). Its state is kept. */
  const stopEngine = async (): Promise<void> => {
    const pid = must(engine.pid(), "the second engine's pid");
    process.kill(pid, 'SIGTERM');
    await eventually('the second dockerd exited', () => (alive(pid) ? undefined : true), 60_000);
  };

  test('the engine restarts while runpod waits (a container crashes once, then runs): runpod reconnects, exit 0', async (t) => {
    const name = uniqueName('f-restart-wait');
    cleanup2(t, name);
    const file = podFile({
      name,
      containers: [
        // The first run crashes after a moment; the engine restarts it (restartPolicy Always), and it stays up.
        { name: 'flaky', image: busybox, command: ['sh', '-c', 'if [ -e /ran-once ]; then exec sleep 3600; fi; touch /ran-once; sleep 2; exit 1'] },
        sleeper('steady'),
      ],
    });
    cleanupFile(t, file);
    let finished = false;
    // A long settle time keeps runpod waiting through the restart, however loaded the machine is.
    const run = runpod([...host(), '--settle', '8s', '--timeout', '240s', file], { timeoutMs: 300_000 }).then((r) => {
      finished = true;
      return r;
    });
    await eventually('runpod created the pod on the second engine', () => (ids2(name).length >= 3 ? true : undefined), 120_000);
    await sleep(1000);
    assert.equal(finished, false, 'runpod was still waiting when the engine restarted');
    await engine.restart();
    const r = await run;
    assert.equal(r.code, 0, show(r));
    assert.match(r.stderr, /every container is running/, show(r));
    // The same pod: one instance of each container, all running, still joined to the infra container.
    const pod = pod2(name);
    assert.deepEqual([...pod.keys()].sort(), ['POD', 'flaky', 'steady']);
    const infra = must(pod.get('POD'), 'infra');
    for (const c of pod.values()) assert.equal(c.State.Running, true, `${c.Name} is ${c.State.Status}`);
    for (const c of ['flaky', 'steady']) assert.equal(must(pod.get(c), c).HostConfig.NetworkMode, `container:${infra.Id}`);
  });

  test('the engine stops while runpod waits and stays down: exit 124 at --timeout, no hang', async (t) => {
    const name = uniqueName('f-down-timeout');
    cleanup2(t, name);
    const file = podFile({ name, containers: [sleeper('main')] });
    cleanupFile(t, file);
    let finished = false;
    // A settle time longer than the timeout: only the deadline can end this run.
    const run = runpod([...host(), '--settle', '10m', '--timeout', '20s', file], { timeoutMs: 180_000 }).then((r) => {
      finished = true;
      return r;
    });
    await eventually('runpod created the pod on the second engine', () => (ids2(name).length >= 2 ? true : undefined), 60_000);
    assert.equal(finished, false, 'runpod was still waiting when the engine stopped');
    await stopEngine();
    const r = await run;
    assert.equal(r.signal, null, `runpod hung past --timeout and was killed\n${show(r)}`);
    assert.equal(r.code, 124, show(r));
    assert.match(r.stderr, /--timeout passed/, show(r));
  });

  test('the engine stops while runpod waits and the retries run out first: exit 3 naming the engine', async (t) => {
    const name = uniqueName('f-down-budget');
    cleanup2(t, name);
    const file = podFile({ name, containers: [sleeper('main')] });
    cleanupFile(t, file);
    // About 20 s of retries (1+2+4+4+4+4 s) and no --timeout: the budget ends the run.
    const run = runpod([...host(), '--settle', '10m', '--retries', '6', '--retry-delay', '1s', '--max-delay', '4s', file], { timeoutMs: 180_000 });
    await eventually('runpod created the pod on the second engine', () => (ids2(name).length >= 2 ? true : undefined), 60_000);
    await stopEngine();
    const r = await run;
    assert.equal(r.code, 3, show(r));
    assert.match(r.stderr, new RegExp(`cannot reach the Docker engine at ${engine.socket.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), show(r));
  });

  test('the engine stops while runpod waits and comes back within the budget: exit 0', async (t) => {
    const name = uniqueName('f-down-back');
    cleanup2(t, name);
    const file = podFile({ name, containers: [sleeper('main')] });
    cleanupFile(t, file);
    const run = runpod([...host(), '--settle', '6s', '--timeout', '240s', file], { timeoutMs: 300_000 });
    await eventually('runpod created the pod on the second engine', () => (ids2(name).length >= 2 ? true : undefined), 60_000);
    await stopEngine();
    await sleep(4000); // down for a while: several checks fail to reach it
    await engine.restart();
    const r = await run;
    assert.equal(r.code, 0, show(r));
    const pod = pod2(name);
    assert.deepEqual([...pod.keys()].sort(), ['POD', 'main']);
    for (const c of pod.values()) assert.equal(c.State.Running, true, `${c.Name} is ${c.State.Status}`);
  });

  const port = 8080;

  /** A web server and a client in one pod on the second engine, up, the client reaching the server on localhost. */
  const webPodUp = async (t: TestContext, prefix: string): Promise<{ name: string; file: string; before: Map<string, Inspected>; infraId: string; clientId: string }> => {
    const name = uniqueName(prefix);
    cleanup2(t, name);
    const file = podFile({ name, containers: [web(port, `hello-${name}`), sleeper('client')] });
    cleanupFile(t, file);
    const up = await runpod([...host(), '--timeout', '120s', file], { timeoutMs: 180_000 });
    assert.equal(up.code, 0, show(up));
    const before = pod2(name);
    const infraId = must(before.get('POD'), 'infra').Id;
    const clientId = must(before.get('client'), 'client').Id;
    assert.equal(fetchInside(docker2, clientId, port), `hello-${name}`, 'the client reaches the web server on localhost');
    return { name, file, before, infraId, clientId };
  };

  test('the engine restarts after the pod is up, then runpod runs again (a boot step): the whole pod runs, sharing the infra network', async (t) => {
    const { name, file, infraId } = await webPodUp(t, 'f-restart-rerun');
    await engine.restart();
    // Whatever the engine brought back by itself, the re-run makes the pod whole.
    const again = await runpod([...host(), '--timeout', '120s', file], { timeoutMs: 180_000 });
    assert.equal(again.code, 0, show(again));
    const after = pod2(name);
    assert.deepEqual([...after.keys()].sort(), ['POD', 'client', 'web']);
    assert.equal(must(after.get('POD'), 'infra').Id, infraId, 'the same infra container: the pod keeps its network namespace');
    for (const c of after.values()) assert.equal(c.State.Running, true, `${c.Name} is ${c.State.Status}`);
    for (const c of ['web', 'client']) assert.equal(must(after.get(c), c).HostConfig.NetworkMode, `container:${infraId}`, `${c} joins the infra container`);
    const clientNow = must(after.get('client'), 'client').Id;
    assert.equal(
      await eventually(
        'localhost reaches the web server from the client',
        () => {
          const body = fetchInside(docker2, clientNow, port);
          return body === `hello-${name}` ? body : undefined;
        },
        30_000,
      ),
      `hello-${name}`,
    );
  });

  test('the engine restarts after the pod is up: the pod comes back by itself, infra first, sharing its network as before', {
    // Seen in 2 of 6 runs: dockerd restores restart-policy containers in parallel (moby/moby#11777, #50326), and one that joins the
    // infra container's network (container:<id>) may start first: "cannot join network of a non running
    // container", and the engine leaves it exited for good. A `runpod run` repairs it.
    todo: 'engine limitation: dockerd 20.10 does not start the infra container before the containers that join it on daemon restart; the pod comes back only partly until runpod runs again',
  }, async (t) => {
    const { name, file, before, infraId, clientId } = await webPodUp(t, 'f-restart-up');

    for (let round = 1; round <= 2; round++) {
      const restartedAt = Date.now();
      await engine.restart();
      // Nothing but the engine's restart policies brings the pod back: runpod is not running.
      const after = await eventually(
        `round ${round}: every container of the pod runs again`,
        () => {
          const p = pod2(name);
          return [...p.values()].every((c) => c.State.Running && Date.parse(c.State.StartedAt) >= restartedAt - 1000) && p.size === 3 ? p : undefined;
        },
        60_000,
      ).catch((err: unknown) => {
        const states = [...pod2(name).values()].map(
          (c) => `${c.Name}: ${c.State.Status} started ${c.State.StartedAt} exit ${c.State.ExitCode} ${(c.State as { Error?: string }).Error ?? ''}`,
        );
        const log = fs.readFileSync(path.join(engine.dir, 'dockerd.log'), 'utf8').split('\n').slice(-15);
        throw new Error(`${String(err)} (restarted at ${new Date(restartedAt).toISOString()})\n${states.join('\n')}\n--- dockerd.log\n${log.join('\n')}`);
      });
      const infra = must(after.get('POD'), 'infra');
      assert.equal(infra.Id, infraId, 'the same infra container');
      assert.deepEqual([...after.values()].map((c) => c.Id).sort(), [...before.values()].map((c) => c.Id).sort(), 'the same containers, none replaced');
      for (const c of ['web', 'client']) {
        const x = must(after.get(c), c);
        assert.equal(x.HostConfig.NetworkMode, `container:${infraId}`, `${c} still joins the infra container`);
        assert.ok(Date.parse(x.State.StartedAt) >= Date.parse(infra.State.StartedAt), `${c} started after the infra container (${x.State.StartedAt} < ${infra.State.StartedAt})`);
      }
      assert.equal(
        await eventually(
          `round ${round}: localhost reaches the web server from the client`,
          () => {
            const body = fetchInside(docker2, clientId, port);
            return body === `hello-${name}` ? body : undefined;
          },
          30_000,
        ),
        `hello-${name}`,
      );
    }
    // runpod agrees: the pod is as the manifest says, nothing to do.
    const again = await runpod([...host(), '--timeout', '120s', file], { timeoutMs: 180_000 });
    assert.equal(again.code, 0, show(again));
    assert.deepEqual(ids2(name), [...before.values()].map((c) => c.Id).sort(), 'a re-run changed an up-to-date pod');
  });

  // The wait loop races each engine request against the deadline (src/wait/runOnce.ts bounded()); the report after
  // it is bounded too (src/commands/run.ts), and runpod exits even with a request still open (bin/runpod).
  test('the engine freezes (accepts connections, never answers) while runpod waits: exit 124 at --timeout, no hang', async (t) => {
    const name = uniqueName('f-frozen');
    cleanup2(t, name);
    // A dockerd that was stopped for a while is restarted afterwards: later tests get a fresh daemon.
    t.after(() => engine.restart());
    const file = podFile({ name, containers: [sleeper('main')] });
    cleanupFile(t, file);
    const run = runpod([...host(), '--settle', '10m', '--timeout', '15s', file], { timeoutMs: 75_000 });
    await eventually('runpod created the pod on the second engine', () => (ids2(name).length >= 2 ? true : undefined), 60_000);
    const pid = must(engine.pid(), "the second engine's pid");
    process.kill(pid, 'SIGSTOP');
    let r: Awaited<typeof run>;
    try {
      r = await run;
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    assert.equal(r.signal, null, `runpod hung past --timeout on a frozen engine and was killed\n${show(r)}`);
    assert.equal(r.code, 124, show(r));
  });
});

describe('on the shared engine', () => {
  test('the infra container is killed: a re-run repairs the pod, and localhost works between its containers again', async (t) => {
    const name = uniqueName('f-infra-killed');
    cleanupPod(t, name);
    const port = 8080;
    const file = podFile({ name, containers: [web(port, `hello-${name}`), sleeper('client')] });
    cleanupFile(t, file);
    const up = await runpod(['--timeout', '120s', file], { timeoutMs: 180_000 });
    assert.equal(up.code, 0, show(up));
    const first = podContainers(name);
    const oldInfra = must(first.get('POD'), 'infra').Id;
    docker(['kill', oldInfra]);
    // The pod's namespaces are gone with it: nothing restarts a container killed by hand.
    await eventually('the infra container is down', () => (inspect([oldInfra])[0]?.State.Running === false ? true : undefined), 30_000);

    const r = await runpod(['--timeout', '120s', file], { timeoutMs: 180_000 });
    assert.equal(r.code, 0, show(r));
    assert.match(r.stderr, /infra container is exited/, show(r));
    const live = inspect(podContainerIds(name)).filter((c) => c.State.Running);
    const infra = live.filter((c) => c.Config.Labels['io.kubernetes.container.name'] === 'POD');
    assert.equal(infra.length, 1, 'one running infra container');
    const newInfra = infra[0]!.Id;
    assert.notEqual(newInfra, oldInfra);
    const apps = live.filter((c) => c.Config.Labels['io.kubernetes.container.name'] !== 'POD');
    assert.deepEqual(apps.map((c) => c.Config.Labels['io.kubernetes.container.name']).sort(), ['client', 'web'], 'one running instance of each container');
    for (const c of apps) assert.equal(c.HostConfig.NetworkMode, `container:${newInfra}`, `${c.Name} joins the new infra container`);
    const client = must(
      apps.find((c) => c.Config.Labels['io.kubernetes.container.name'] === 'client'),
      'client',
    );
    const body = await eventually(
      'localhost reaches the web server from the client',
      () => {
        const b = fetchInside(dockerTry, client.Id, port);
        return b === `hello-${name}` ? b : undefined;
      },
      30_000,
    );
    assert.equal(body, `hello-${name}`);
  });

  /** Every container or volume on the engine whose name mentions the pod, with the labels runpod puts on it. */
  function leftovers(name: string): { containers: { name: string; labelled: boolean }[]; volumes: { name: string; labelled: boolean }[] } {
    const cs = docker([
      'ps',
      '-a',
      '--no-trunc',
      '--filter',
      `name=${name}`,
      '--format',
      '{{.Names}}\t{{.Label "app.kubernetes.io/managed-by"}}\t{{.Label "io.kubernetes.pod.name"}}',
    ]);
    const helpers = docker(['ps', '-a', '--filter', 'label=io.runpod.helper', '--format', '{{.Names}}\t{{.Label "io.runpod.helper.pod"}}']);
    const vs = docker(['volume', 'ls', '--filter', `name=${name}`, '--format', '{{.Name}}\t{{.Label "app.kubernetes.io/managed-by"}}']);
    return {
      containers: [
        ...(cs ? cs.split('\n') : []).map((l) => l.split('\t')).map(([n, by, pod]) => ({ name: n!, labelled: by === 'runpod' && pod === name })),
        // Volume helpers are runpod's own and short-lived: one left behind for this pod is a leftover.
        ...(helpers ? helpers.split('\n') : [])
          .map((l) => l.split('\t'))
          .filter(([, pod]) => pod?.endsWith(`/${name}`))
          .map(([n]) => ({ name: `${n!} (volume helper)`, labelled: false })),
      ],
      volumes: (vs ? vs.split('\n') : []).map((l) => l.split('\t')).map(([n, by]) => ({ name: n!, labelled: by === 'runpod' })),
    };
  }

  /** bin/runpod as a child whose stderr can be watched while it runs. */
  function startRunpod(args: string[]): { pid: number; stderr: () => string; done: Promise<CliResult> } {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...process.env, CI: 'true', NO_COLOR: '1' })) if (v !== undefined) env[k] = v;
    const child = spawn(process.execPath, [runpodBin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    const done = new Promise<CliResult>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, sig) => {
        clearTimeout(timer);
        resolve({ code, signal: sig, stdout, stderr });
      });
    });
    return { pid: must(child.pid, 'pid'), stderr: () => stderr, done };
  }

  // lifecycle.test.ts sends each signal while a crash-looping pod is waited for, and takes the pod down. Here the
  // signal comes at each stage of a run (connected, syncing, creating the infra container, creating containers,
  // waiting), and a plain re-run must converge to one healthy pod.
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    test(`${signal} at each stage of a run: exit ${code}, nothing without runpod's labels, a re-run converges to one healthy pod`, async (t) => {
      const name = uniqueName(`f-${signal.toLowerCase()}`);
      cleanupPod(t, name);
      const file = podFile({
        name,
        containers: [{ ...sleeper('a'), volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }] }, sleeper('b')],
      });
      cleanupFile(t, file);
      // An emptyDir makes a run create a volume too (the pod's own, labelled).
      const text = fs.readFileSync(file, 'utf8').replace(/^(\s*)containers:/m, '$1volumes:\n$1  - name: scratch\n$1    emptyDir: {}\n$1containers:');
      fs.writeFileSync(file, text);
      t.after(() => {
        for (const v of leftovers(name).volumes) dockerTry(['volume', 'rm', '-f', v.name]);
      });
      const stages: [string, RegExp][] = [
        ['connected', /engine .* at /],
        ['syncing', /: syncing/],
        ['creating the infra container', /creating infra container/],
        ['creating containers', /creating container a/],
        ['waiting', /creating container b/],
      ];
      for (const [stage, seen] of stages) {
        // Each stage from nothing: the pod's containers and volume go first, so the run has everything to make.
        removePod(name);
        for (const v of leftovers(name).volumes) dockerTry(['volume', 'rm', '-f', v.name]);
        // --settle 10m: the pod never counts as running, so the signal always finds runpod at work.
        const run = startRunpod(['-v', '--settle', '10m', '--timeout', '300s', file]);
        const early = async (why: string): Promise<never> => {
          try {
            process.kill(run.pid, 'SIGKILL');
          } catch {
            // gone already
          }
          throw new Error(`${why}\n${show(await run.done)}`);
        };
        await eventually(`runpod reached "${stage}"`, () => (seen.test(run.stderr()) ? true : undefined), 60_000).catch((err: unknown) => early(String(err)));
        if (stage === 'waiting') {
          await eventually('the pod exists', () => (podContainerIds(name).length >= 3 ? true : undefined), 60_000);
          await sleep(500);
        }
        try {
          process.kill(run.pid, signal);
        } catch {
          await early(`runpod ended before the signal at "${stage}"`);
        }
        const r = await run.done;
        assert.equal(r.code, code, `signal at "${stage}"\n${show(r)}`);
        assert.match(r.stderr, new RegExp(`interrupted by ${signal}`), show(r));
        const left = leftovers(name);
        assert.deepEqual(
          left.containers.filter((c) => !c.labelled),
          [],
          `a container without runpod's labels was left (signal at "${stage}")`,
        );
        assert.deepEqual(
          left.volumes.filter((v) => !v.labelled),
          [],
          `a volume without runpod's labels was left (signal at "${stage}")`,
        );

        // A plain re-run from whatever the signal left converges to one healthy pod: one running instance of each
        // container, all joined to the one running infra container.
        const again = await runpod(['--timeout', '180s', file], { timeoutMs: 240_000 });
        assert.equal(again.code, 0, `re-run after a signal at "${stage}"\n${show(again)}`);
        const live = inspect(podContainerIds(name)).filter((c) => c.State.Running);
        assert.deepEqual(live.map((c) => c.Config.Labels['io.kubernetes.container.name']).sort(), ['POD', 'a', 'b'], live.map((c) => c.Name).join(' '));
        const infra = must(
          live.find((c) => c.Config.Labels['io.kubernetes.container.name'] === 'POD'),
          'infra',
        );
        for (const c of live) if (c.Id !== infra.Id) assert.equal(c.HostConfig.NetworkMode, `container:${infra.Id}`);
      }
      const third = await runpod(['--timeout', '180s', file], { timeoutMs: 240_000 });
      assert.equal(third.code, 0, show(third));
      assert.match(third.stderr, /every container is running \(2 containers, unchanged/, show(third));
      const down = await runpod(['down', file]);
      assert.equal(down.code, 0, show(down));
      assert.deepEqual(podContainerIds(name), []);
      assert.deepEqual(leftovers(name), { containers: [], volumes: [] }, 'down left something of the pod');
    });
  }

  /**
   * A tmpfs mounted in a fresh directory for the test; after it, whatever happens: made mutable, unmounted, and
   * the directory removed (one hook, in that order).
   */
  function mountTmpfs(t: TestContext, options: string): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-fault-'));
    const mnt = path.join(dir, 'mnt');
    fs.mkdirSync(mnt);
    t.after(() => {
      spawnSync('chattr', ['-i', mnt]);
      spawnSync('umount', ['-l', mnt]);
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const m = spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', mnt], { encoding: 'utf8' });
    assert.equal(m.status, 0, `mount -t tmpfs -o ${options}: ${m.stderr}`);
    return mnt;
  }

  /** A pod whose container mounts a hostPath volume of the given type. */
  function hostPathPod(name: string, hostPath: string, type: string): string {
    const file = podFile({ name, containers: [{ ...sleeper('main'), volumeMounts: [{ name: 'data', mountPath: '/data' }] }] });
    const text = fs
      .readFileSync(file, 'utf8')
      .replace(/^(\s*)containers:/m, `$1volumes:\n$1  - name: data\n$1    hostPath: {path: ${JSON.stringify(hostPath)}, type: ${type}}\n$1containers:`);
    fs.writeFileSync(file, text);
    return file;
  }

  /** After a failed volume: no container of the pod other than (at most) its infra, and no volume of the pod. */
  function assertNothingHalfMade(name: string): void {
    const made = inspect(podContainerIds(name)).map((c) => c.Config.Labels['io.kubernetes.container.name']);
    assert.deepEqual(
      made.filter((n) => n !== 'POD'),
      [],
      'a container was created although its volume could not be prepared',
    );
    const helpers = docker(['ps', '-a', '--filter', 'label=io.runpod.helper', '--format', '{{.Label "io.runpod.helper.pod"}}']);
    assert.ok(!helpers.split('\n').some((p) => p.endsWith(`/${name}`)), 'a volume helper container was left');
    // The pod's sandbox may stay, as the infra container does: its termination-message volume is made beside it.
    const vols = docker(['volume', 'ls', '--filter', `label=io.kubernetes.pod.name=${name}`, '--format', '{{.Name}} {{.Label "io.runpod.volume.type"}}'])
      .split('\n')
      .filter((l) => l !== '' && !l.endsWith(' terminationLog'));
    assert.deepEqual(vols, [], 'a volume of the pod was left');
  }

  // Node's recursive mkdir reports ENOENT for EROFS and ENOSPC: the reason must name the real cause
  // (src/reconcile/volumes.ts mkdirCause).
  const volumeFailureCases: { what: string; options: string; prepare: (mnt: string) => void; reason: RegExp }[] = [
    {
      what: 'a read-only filesystem (permission)',
      options: 'ro,size=64k',
      prepare: () => {},
      reason: /read-only file system|EROFS/i,
    },
    {
      what: 'a full filesystem (disk full)',
      options: 'size=64k,nr_inodes=64',
      prepare: (mnt) => {
        // Fill the blocks, then the inodes: a directory needs an inode, a file's data the blocks.
        try {
          fs.writeFileSync(path.join(mnt, 'blocks'), Buffer.alloc(1 << 20));
        } catch {
          // ENOSPC: full
        }
        for (let i = 0; i < 1000; i++) {
          try {
            fs.mkdirSync(path.join(mnt, `fill-${i}`));
          } catch {
            break;
          }
        }
      },
      reason: /no space left on device|ENOSPC/i,
    },
    {
      what: 'an immutable parent directory (chattr +i: permission)',
      options: 'size=64k',
      prepare: (mnt) => {
        const c = spawnSync('chattr', ['+i', mnt], { encoding: 'utf8' });
        assert.equal(c.status, 0, `chattr +i: ${c.stderr}`);
      },
      reason: /operation not permitted|EPERM/i,
    },
  ];

  for (const c of volumeFailureCases) {
    test(`a hostPath DirectoryOrCreate under ${c.what}: exit 1 with the reason, nothing half made`, async (t) => {
      const name = uniqueName('f-vol');
      cleanupPod(t, name);
      const mnt = mountTmpfs(t, c.options);
      c.prepare(mnt);
      const target = path.join(mnt, 'made-by-runpod', 'deeper');
      const file = hostPathPod(name, target, 'DirectoryOrCreate');
      cleanupFile(t, file);
      const r = await runpod(['--retries', '1', '--retry-delay', '200ms', '--timeout', '120s', file], { timeoutMs: 180_000 });
      assert.equal(r.code, 1, show(r));
      assert.match(r.stderr, /^runpod: pod default\/.* failed/m, show(r));
      assert.match(r.stderr, new RegExp(`${target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} could not be created`), show(r));
      assert.match(r.stderr, c.reason, show(r));
      assertNothingHalfMade(name);
      assert.equal(fs.existsSync(path.join(mnt, 'made-by-runpod')), false, 'a part of the hostPath was made');
    });
  }

  test('a hostPath FileOrCreate on a full filesystem: exit 1 with the reason, nothing half made', async (t) => {
    const name = uniqueName('f-volfile');
    cleanupPod(t, name);
    const mnt = mountTmpfs(t, 'size=64k,nr_inodes=16');
    for (let i = 0; i < 100; i++) {
      try {
        fs.writeFileSync(path.join(mnt, `fill-${i}`), '');
      } catch {
        break;
      }
    }
    const target = path.join(mnt, 'config.txt');
    const file = hostPathPod(name, target, 'FileOrCreate');
    cleanupFile(t, file);
    const r = await runpod(['--retries', '1', '--retry-delay', '200ms', '--timeout', '120s', file], { timeoutMs: 180_000 });
    assert.equal(r.code, 1, show(r));
    assert.match(r.stderr, /could not be created/, show(r));
    assert.match(r.stderr, /no space left on device|ENOSPC/i, show(r));
    assertNothingHalfMade(name);
    assert.equal(fs.existsSync(target), false);
  });
});
