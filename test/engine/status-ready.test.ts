// READY as kubectl counts it, through the built CLI on the real engine: `runpod status` (a process of its own,
// given only the pod's name) runs each running container's readiness probe once, from the probe its container
// carries in a label, and counts the containers that pass; -o json says which is not ready and why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keyedWorkspace, uniqueName } from './harness.js';
import { busybox, checkNothingLeftBehind, cleanupFile, cleanupPod, docker, must, podContainers, podFile, runpod, show, sleeper } from './run-helpers.js';

checkNothingLeftBehind();

interface Readiness {
  ok: boolean;
  message: string;
}

interface ContainerDoc {
  name: string;
  state: string;
  ready: boolean;
  readiness?: Readiness;
}

interface StatusDoc {
  kind: string;
  pods: { name: string; phase: string; ready: string; containers: ContainerDoc[]; sidecars?: ContainerDoc[] }[];
}

async function statusDoc(name: string): Promise<StatusDoc['pods'][number]> {
  const r = await runpod(['status', '-o', 'json', name]);
  assert.equal(r.code, 0, show(r));
  const doc = JSON.parse(r.stdout) as StatusDoc;
  assert.equal(doc.kind, 'PodStatusList');
  return must(doc.pods[0], 'pod');
}

async function readyColumn(name: string): Promise<string> {
  const r = await runpod(['status', name]);
  assert.equal(r.code, 0, show(r));
  const row = must(r.stdout.trimEnd().split('\n')[1], 'row');
  return must(/^\S+\s+\S+\s+(\d+\/\d+)\s/.exec(row)?.[1], `READY in ${row}`);
}

test('status: READY counts containers whose exec readiness probe passes, run once by status itself', async (t) => {
  const name = uniqueName('ready');
  cleanupPod(t, name);
  const file = podFile({
    name,
    containers: [
      sleeper('web'),
      // A timeout a loaded machine does not reach (an exec through the engine took over 2 s there): the failure
      // status must name is cat's exit code, not the clock.
      sleeper('gate', { readinessProbe: { exec: { command: ['cat', '/tmp/ready'] }, periodSeconds: 1, timeoutSeconds: 30 } }),
    ],
  });
  cleanupFile(t, file);
  const r = await runpod(['--wait', 'running', '--timeout', '60s', file]);
  assert.equal(r.code, 0, show(r));

  // The probe is on the container, as planned: status needs no manifest.
  const gate = must(podContainers(name).get('gate'), 'gate');
  assert.match(must(gate.Config.Labels['io.runpod.probe.readiness'], 'probe label'), /"command":\["cat","\/tmp\/ready"\]/);
  assert.equal(podContainers(name).get('web')!.Config.Labels['io.runpod.probe.readiness'], undefined);

  assert.equal(await readyColumn(name), '1/2');
  const before = await statusDoc(name);
  assert.equal(before.phase, 'Running');
  assert.equal(before.ready, '1/2');
  const notReady = must(
    before.containers.find((c) => c.name === 'gate'),
    'gate',
  );
  assert.equal(notReady.state, 'running');
  assert.equal(notReady.ready, false);
  assert.equal(notReady.readiness?.ok, false);
  assert.match(notReady.readiness!.message, /^not ready: readiness probe \(exec \[cat \/tmp\/ready\]\) failed: command exited with code 1: .*\/tmp\/ready/);
  const web = must(
    before.containers.find((c) => c.name === 'web'),
    'web',
  );
  assert.equal(web.ready, true);
  assert.equal(web.readiness, undefined, 'a container without probes is not probed');
  const wide = await runpod(['status', '-o', 'wide', name]);
  assert.equal(wide.code, 0, show(wide));
  assert.match(wide.stdout, /NOT READY\n/, show(wide));
  assert.match(wide.stdout, /gate: not ready: readiness probe \(exec \[cat \/tmp\/ready\]\) failed/, show(wide));

  const ex = await runpod(['exec', name, '-c', 'gate', '--', 'touch', '/tmp/ready']);
  assert.equal(ex.code, 0, show(ex));
  assert.equal(await readyColumn(name), '2/2');
  const after = await statusDoc(name);
  assert.equal(after.ready, '2/2');
  assert.deepEqual(
    after.containers.map((c) => [c.name, c.ready, c.readiness?.ok]),
    [
      ['gate', true, true],
      ['web', true, undefined],
    ],
  );

  // And back: the probe runs again at each status.
  docker(['exec', gate.Id, 'rm', '/tmp/ready']);
  assert.equal(await readyColumn(name), '1/2');
});

test('status: tcpSocket probes from the host; a sidecar counts in READY, its startup probe run within its budget', async (t) => {
  const name = uniqueName('ready-tcp');
  cleanupPod(t, name);
  // A listener that keeps its socket (busybox nc -ll): a loop of one-shot `nc -l` refuses a probe that comes
  // between two of them, and status runs each probe once.
  const listen = (port: number): string[] => ['nc', '-ll', '-p', String(port), '-e', 'true'];
  const file = podFile({
    name,
    initContainers: [
      // runpod allows sidecars a startupProbe only; its budget (300 s) is not spent, so status runs it.
      { name: 'proxy', image: busybox, restartPolicy: 'Always', command: listen(7001), startupProbe: { tcpSocket: { port: 7001 }, periodSeconds: 1, failureThreshold: 300 } },
    ],
    // Nothing listens on 7000 yet.
    containers: [sleeper('db', { readinessProbe: { tcpSocket: { port: 7000 }, periodSeconds: 1 } })],
  });
  cleanupFile(t, file);
  const r = await runpod(['--wait', 'running', '--timeout', '60s', file]);
  assert.equal(r.code, 0, show(r));

  const doc = await statusDoc(name);
  assert.equal(doc.ready, '1/2');
  const proxy = must(
    doc.sidecars?.find((c) => c.name === 'proxy'),
    'the sidecar in status',
  );
  assert.equal(proxy.ready, true, JSON.stringify(proxy));
  assert.match(proxy.readiness!.message, /^startup probe \(tcpSocket <pod>:7001\) passed: connected to /);
  const db = must(
    doc.containers.find((c) => c.name === 'db'),
    'db',
  );
  assert.equal(db.ready, false);
  assert.match(db.readiness!.message, /^not ready: readiness probe \(tcpSocket <pod>:7000\) failed: dial tcp .*:7000 .*ECONNREFUSED/);

  // Start a listener: both ready.
  docker(['exec', '-d', podContainers(name).get('db')!.Id, ...listen(7000)]);
  const deadline = Date.now() + 10_000;
  let ready = await readyColumn(name);
  while (ready !== '2/2' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    ready = await readyColumn(name);
  }
  assert.equal(ready, '2/2');
});

test('status lists a headless Service (text and -o json), with or without the manifest; down removes it', async (t) => {
  const w = keyedWorkspace(t, 'status-headless', {
    'stack.yaml': `apiVersion: v1
kind: Service
metadata: {name: db}
spec:
  clusterIP: None
  selector: {app: db}
  ports: [{port: 5432}]
---
apiVersion: v1
kind: Pod
metadata: {name: db, labels: {app: db}}
spec:
  terminationGracePeriodSeconds: 0
  containers: [{name: main, image: ${busybox}, command: [sleep, '3600']}]
`,
  });
  const up = await w.run(w.file('stack.yaml'));
  assert.equal(up.code, 0, show(up));
  for (const args of [['status'], ['status', w.file('stack.yaml')]]) {
    const text = await w.run(...args);
    assert.equal(text.code, 0, show(text));
    assert.match(text.stdout, /^default\s+db\s+ClusterIP\s+None\s+5432\/TCP\s*$/m, show(text));
    const json = await w.run(...args, '-o', 'json');
    const services = (JSON.parse(json.stdout) as { services?: { name: string; type: string; ip?: string }[] }).services;
    assert.deepEqual(
      services?.map((s) => [s.name, s.type, s.ip]),
      [['db', 'headless', undefined]],
      show(json),
    );
  }
  const down = await w.run('down', w.file('stack.yaml'));
  assert.equal(down.code, 0, show(down));
  assert.match(down.stdout, /^service default\/db: removed$/m, show(down));
  const after = await w.run('status', '-o', 'json');
  assert.equal((JSON.parse(after.stdout) as { services?: unknown[] }).services, undefined, show(after));
});
