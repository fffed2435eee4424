// Every ending a script can trust (issue 23), on the real engine through the CLI: a scoped run cancelled as a CI
// runner cancels (SIGINT, then SIGTERM 3 s later, then SIGKILL 10 s after the first) or by two Ctrl-C leaves nothing
// of its key; a crash loop nothing mends fails with the loop named, one that mends itself comes up; a taken
// nodePort is exit 1 with the down line (or nothing left, scoped); a missing engine is said at once.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { alive, busybox, docker, heldPort, keyedWorkspace, leftUnder, runpod, show } from './harness.js';
import { eventually, sleep } from './run-helpers.js';

/** What is left under the key: containers, networks and volumes carrying it. */

// A Service, two replicas whose process ignores SIGTERM (sleep as PID 1: the default grace period of 30 s runs out in
// full), and a claim they mount: what a CI job's stack holds.
const stack = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: ${busybox}
          command: [sleep, "3600"]
          volumeMounts: [{name: data, mountPath: /data}]
      volumes:
        - name: data
          persistentVolumeClaim: {claimName: data}
`;

for (const [second, delayMs, exit] of [
  ['SIGTERM', 3_000, 130],
  ['SIGINT', 2_000, 130],
] as const) {
  test(`a scoped run cancelled by SIGINT, then ${second} ${delayMs / 1000} s later (and SIGKILL 10 s after the first, as CI): nothing of its key is left`, async (t) => {
    const w = keyedWorkspace(t, 'cancel', { 'stack.yaml': stack });
    const marker = path.join(w.dir, 'command-started');
    let pid = 0;
    const run = runpod(['--project', w.key, w.dir, '--', 'sh', '-c', `touch '${marker}'; sleep 300`], { onSpawn: (p) => (pid = p), timeoutMs: 240_000 });
    await eventually('the command started', () => (fs.existsSync(marker) ? true : undefined), 180_000);
    assert.ok(
      leftUnder(w.key).some((x) => x.startsWith('container k8s_web_')),
      'the pods are up while the command runs',
    );
    process.kill(pid, 'SIGINT');
    await sleep(delayMs);
    if (alive(pid)) process.kill(pid, second);
    // A CI runner's last word: SIGKILL about 10 s after the first signal, if runpod is still there.
    const killer = setTimeout(() => {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }, 10_000 - delayMs);
    const r = await run;
    clearTimeout(killer);
    assert.deepEqual(leftUnder(w.key), [], `left under ${w.key}\n${show(r)}`);
    assert.equal(r.signal, null, `runpod ended by itself before SIGKILL\n${show(r)}`);
    assert.equal(r.code, exit, show(r));
    assert.match(
      r.stderr,
      new RegExp(
        `a second ${second}: fast takedown, killing default/web-\\S+, default/web-\\S+ now without their grace period; if runpod is stopped before it ends, remove what is left with: runpod down --project ${w.key} --delete-claims `,
      ),
      show(r),
    );
    assert.match(r.stderr, /fast takedown done in [\d.]+s: nothing of this run is left/, show(r));
  });
}

test('a single SIGINT: the takedown says which pods it waits for and how much grace is left, and removes everything', async (t) => {
  const w = keyedWorkspace(t, 'grace', { 'stack.yaml': stack.replace('containers:\n', 'terminationGracePeriodSeconds: 8\n      containers:\n') });
  const marker = path.join(w.dir, 'command-started');
  let pid = 0;
  const run = runpod(['--project', w.key, w.dir, '--', 'sh', '-c', `touch '${marker}'; sleep 300`], { onSpawn: (p) => (pid = p), timeoutMs: 240_000 });
  await eventually('the command started', () => (fs.existsSync(marker) ? true : undefined), 180_000);
  process.kill(pid, 'SIGINT');
  const r = await run;
  assert.equal(r.code, 130, show(r));
  assert.match(r.stderr, /taking down default\/web-\S+, default\/web-\S+ \(within each pod's grace period; a second Ctrl-C or SIGTERM kills them at once\)/, show(r));
  assert.match(
    r.stderr,
    /taking down: waiting for default\/web-\S+(, default\/web-\S+)? to stop \((\d+s of the grace period left|grace period over, being killed and removed)/,
    show(r),
  );
  assert.deepEqual(leftUnder(w.key), [], show(r));
});

/** A port in the nodePort range nothing listens on, held by this test until it ends. */
const heldNodePort = (t: TestContext): Promise<number> => heldPort(t, 30000, 2768);

const nodePortStack = (port: number): string => `apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  type: NodePort
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080, nodePort: ${port}}]
---
apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  containers:
    - {name: web, image: ${busybox}, command: [sleep, "3600"]}
`;

test("a Service's nodePort held by another process: exit 1 (not the engine's 3), naming the port, with the down line that removes what is left", async (t) => {
  const port = await heldNodePort(t);
  const w = keyedWorkspace(t, 'nodeport', { 'svc.yaml': nodePortStack(port) });
  const r = await w.run(w.file('svc.yaml'));
  assert.equal(r.code, 1, show(r));
  assert.match(r.stderr, new RegExp(`runpod: service default/web: its nodePort ${port} is taken on the engine host by another container or process`), show(r));
  const line = new RegExp(`remove it with: (runpod down --project ${w.key} \\S+)`).exec(r.stderr)?.[1];
  assert.ok(line !== undefined, `no down line\n${show(r)}`);
  const down = await runpod(line.split(' ').slice(1));
  assert.equal(down.code, 0, show(down));
  assert.deepEqual(leftUnder(w.key), [], show(down));
});

test("a scoped run whose Service's nodePort is held: exit 1, and nothing of its key is left", async (t) => {
  const port = await heldNodePort(t);
  const w = keyedWorkspace(t, 'nodeport', { 'svc.yaml': nodePortStack(port) });
  const marker = path.join(w.dir, 'ran');
  const r = await w.run(w.file('svc.yaml'), '--', 'touch', marker);
  assert.equal(r.code, 1, show(r));
  assert.equal(fs.existsSync(marker), false, 'the command must not run');
  assert.match(r.stderr, /what this run made was taken down/, show(r));
  assert.deepEqual(leftUnder(w.key), [], show(r));
});

test('a Deployment whose container exits at once fails with the crash loop named (--crash-loop-limit), not the deadline', async (t) => {
  const w = keyedWorkspace(t, 'crash', {
    'crash.yaml': `apiVersion: apps/v1
kind: Deployment
metadata: {name: crash}
spec:
  selector: {matchLabels: {app: crash}}
  template:
    metadata: {labels: {app: crash}}
    spec:
      terminationGracePeriodSeconds: 0
      containers:
        - {name: app, image: ${busybox}, command: [sh, -c, "echo no database; exit 3"]}
`,
  });
  const r = await w.run('--timeout', '40s', w.file('crash.yaml'));
  assert.equal(r.code, 1, show(r));
  assert.match(
    r.stderr,
    /runpod: deployment\/crash failed: pod default\/crash-\S+: app: crash loop: restarted [7-9] times in a row without coming up, last exit code 3 \(--crash-loop-limit 7\)/,
    show(r),
  );
  assert.match(r.stderr, /no database/, `the last log lines are shown\n${show(r)}`);
});

test('a container that crashes until another pod is ready (a file it writes after ~5 s) comes up: exit 0', async (t) => {
  const w = keyedWorkspace(t, 'mends', {
    'stack.yaml': `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: shared}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: database}
spec:
  terminationGracePeriodSeconds: 0
  containers:
    - name: db
      image: ${busybox}
      command: [sh, -c, "sleep 5; touch /shared/ready; exec sleep 3600"]
      volumeMounts: [{name: shared, mountPath: /shared}]
  volumes: [{name: shared, persistentVolumeClaim: {claimName: shared}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      terminationGracePeriodSeconds: 0
      containers:
        - name: api
          image: ${busybox}
          command: [sh, -c, "sleep 2; test -f /shared/ready || exit 3; exec sleep 3600"]
          readinessProbe:
            exec: {command: [test, -f, /shared/ready]}
            periodSeconds: 1
          volumeMounts: [{name: shared, mountPath: /shared}]
      volumes: [{name: shared, persistentVolumeClaim: {claimName: shared}}]
`,
  });
  // Ready, not merely running: the api is up for two seconds before it looks for the file.
  const r = await w.run('--wait', 'ready', '--timeout', '2m', w.dir);
  assert.equal(r.code, 0, show(r));
  const api = docker(['ps', '-q', '--filter', `label=io.runpod.project=${w.key}`, '--filter', 'label=io.kubernetes.container.name=api']);
  const restarts = Number(docker(['inspect', '-f', '{{.RestartCount}}', api]));
  assert.ok(restarts >= 1, `the api crashed before it came up (restarts ${restarts})\n${show(r)}`);
});

test('a missing engine is said at once, with its address and why, and --timeout ends the wait (124)', async () => {
  const r = await runpod(['--host', 'unix:///nonexistent.sock', '--timeout', '3s', '-'], {
    input: `apiVersion: v1
kind: Pod
metadata: {name: nowhere}
spec:
  containers: [{name: c, image: ${busybox}}]
`,
  });
  assert.equal(r.code, 124, show(r));
  const first = r.stderr.split('\n')[0] ?? '';
  assert.match(
    first,
    /waiting for the Docker engine at unix:\/\/\/nonexistent\.sock: ping: ENOENT .*\(no socket at that path: is dockerd running, and is the path right\?\); trying again until --timeout, 3s from now/,
    show(r),
  );
  assert.match(r.stderr, /runpod: --timeout passed while waiting for the Docker engine at unix:\/\/\/nonexistent\.sock/, show(r));
});
