// A Service changed or added replaces no pod (issue 23, a reboot is not a redeploy): the kubelet's container hash
// covers the container's spec, not the Service variables it sets at each start, so a Service's new address or port
// never restarts a pod. Simulated without restarting the shared engine: the Service changes between two runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { busybox, docker, keyedWorkspace, show } from './harness.js';

const service = (name: string, port: number): string => `apiVersion: v1
kind: Service
metadata: {name: ${name}}
spec:
  selector: {app: ${name}}
  ports: [{port: ${port}, targetPort: ${port}}]
`;

const pods = `apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: db}}
spec:
  containers:
    - {name: web, image: ${busybox}, command: [sleep, "3600"], env: [{name: DB_URL, value: "tcp://$(DB_SERVICE_HOST):$(DB_SERVICE_PORT)"}]}
---
apiVersion: v1
kind: Pod
metadata: {name: once}
spec:
  restartPolicy: Never
  containers:
    - {name: once, image: ${busybox}, command: [sh, -c, 'echo "$DB_SERVICE_PORT" > /dev/termination-log']}
`;

interface Doc {
  pods: { name: string; actions: unknown[] | string }[];
}

test('a Service given another port, and a second Service added: a running and a completed pod stay unchanged, and --dry-run agrees', async (t) => {
  const w = keyedWorkspace(t, 'svchash', { 'db.yaml': service('db', 5432), 'pods.yaml': pods });
  const up = await w.run('--timeout', '2m', w.dir);
  assert.equal(up.code, 0, show(up));
  const ids = (): string =>
    docker(['ps', '-aq', '--no-trunc', '--filter', `label=io.runpod.project=${w.key}`, '--filter', 'label=io.kubernetes.docker.type=container'])
      .split('\n')
      .sort()
      .join(' ');
  const before = ids();
  const env = docker(['inspect', '--format', '{{json .Config.Env}}', ...before.split(' ')]);
  assert.match(env, /DB_SERVICE_PORT=5432/, env);

  fs.writeFileSync(w.file('db.yaml'), `${service('db', 6543)}---\n${service('cache', 6379)}`);
  const dry = await w.run('--dry-run', '-o', 'json', w.dir);
  assert.equal(dry.code, 0, show(dry));
  for (const p of (JSON.parse(dry.stdout) as Doc).pods) assert.deepEqual(p.actions, [], `--dry-run would change ${p.name}\n${dry.stdout}`);
  const again = await w.run('-o', 'json', '--timeout', '2m', w.dir);
  assert.equal(again.code, 0, show(again));
  for (const p of (JSON.parse(again.stdout) as Doc).pods) assert.deepEqual(p.actions, [], `the run changed ${p.name}\n${show(again)}`);
  assert.equal(ids(), before, 'the same containers: none was made again');
  const text = await w.run('--timeout', '2m', w.dir);
  assert.equal(text.code, 0, show(text));
  assert.match(text.stderr, /default\/web: .*unchanged/, show(text));
  assert.match(text.stderr, /default\/once: .*unchanged/, show(text));
});
