// The wait modes on a real engine, through the built CLI: --wait completed for a job that exits 0 or 3, a
// container that crashes once and then recovers, and --timeout with its account.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uniqueName } from './harness.js';
import { busybox, checkNothingLeftBehind, cleanupFile, cleanupPod, podFile, runpod, show } from './run-helpers.js';

checkNothingLeftBehind();

test('--wait completed: exit 0 for a job that exits 0', async (t) => {
  const name = uniqueName('wait-job-ok');
  cleanupPod(t, name);
  const file = podFile({ name, restartPolicy: 'Never', containers: [{ name: 'job', image: busybox, command: ['sh', '-c', 'sleep 1; echo migrated'] }] });
  cleanupFile(t, file);
  const r = await runpod(['--wait', 'completed', '-o', 'json', file]);
  assert.equal(r.code, 0, show(r));
  const doc = JSON.parse(r.stdout) as { pods: { reason: string; phase: string; containers: { state: string; exitCode: number }[] }[] };
  assert.equal(doc.pods[0]!.reason, 'every container completed');
  assert.equal(doc.pods[0]!.phase, 'Succeeded');
  assert.equal(doc.pods[0]!.containers[0]!.exitCode, 0);
});

test('--wait completed: exit 1 with the exit code and the logs for a job that exits 3', async (t) => {
  const name = uniqueName('wait-job-bad');
  cleanupPod(t, name);
  const file = podFile({
    name,
    restartPolicy: 'Never',
    containers: [{ name: 'job', image: busybox, command: ['sh', '-c', 'sleep 1; echo step one; echo "no such table" >&2; exit 3'] }],
  });
  cleanupFile(t, file);
  const r = await runpod(['--wait', 'completed', file]);
  assert.equal(r.code, 1, show(r));
  assert.match(r.stderr, /job: exited with code 3 and restartPolicy Never will not restart it/);
  assert.match(r.stderr, /exit code 3/);
  assert.match(r.stderr, /\| step one/);
  assert.match(r.stderr, /\| no such table/);
});

test('a container that crashes once and then recovers ends in exit 0', async (t) => {
  const name = uniqueName('wait-recover');
  cleanupPod(t, name);
  const file = podFile({
    name,
    containers: [{ name: 'flaky', image: busybox, command: ['sh', '-c', 'if [ -f /crashed ]; then exec sleep 3600; fi; touch /crashed; echo first boot fails; exit 1'] }],
  });
  cleanupFile(t, file);
  const r = await runpod(['-o', 'json', file]);
  assert.equal(r.code, 0, show(r));
  const doc = JSON.parse(r.stdout) as { pods: { containers: { state: string; restartCount: number }[] }[] };
  assert.equal(doc.pods[0]!.containers[0]!.state, 'running');
  assert.equal(doc.pods[0]!.containers[0]!.restartCount, 1);
});

test('--timeout ends in 124 with an account of where each container stood', async (t) => {
  const name = uniqueName('wait-timeout');
  cleanupPod(t, name);
  const file = podFile({
    name,
    containers: [
      { name: 'never-ready', image: busybox, command: ['sleep', '3600'], readinessProbe: { tcpSocket: { port: 7000 }, periodSeconds: 1 } },
      { name: 'fine', image: busybox, command: ['sleep', '3600'] },
    ],
  });
  cleanupFile(t, file);
  const started = Date.now();
  const r = await runpod(['--wait', 'ready', '--timeout', '8s', file]);
  assert.equal(r.code, 124, show(r));
  assert.ok(Date.now() - started < 25_000);
  assert.match(r.stderr, /--timeout passed before default\/wait-timeout-[0-9a-f]+ was ready/);
  assert.match(r.stderr, /never-ready: not ready: readiness probe \(tcpSocket <pod>:7000\) failed: dial tcp [0-9.]+:7000 \(pod IP [0-9.]+\): ECONNREFUSED/);
  assert.doesNotMatch(r.stderr, /container fine /);
});
