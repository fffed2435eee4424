// `runpod run` when things go wrong, on a real engine: crash loops, containers that exit under Never, a
// missing image, an invalid manifest, an unreachable engine, --timeout; and a container that crashes once
// and then stays up, which is not a failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { uniqueName } from './harness.js';
import { busybox, checkNothingLeftBehind, cleanupFile, cleanupPod, podContainerIds, podContainers, podFile, runpod, show, sleeper, writeManifest, must } from './run-helpers.js';

checkNothingLeftBehind();

interface FailDoc {
  exitCode: number;
  pods: { status: string; containers: { name: string; state: string; ok: boolean; exitCode?: number; logs?: string[] }[] }[];
}

test('a container that keeps crashing under restartPolicy Always fails the pod with its exit code and logs', async (t) => {
  const name = uniqueName('fail-crash');
  cleanupPod(t, name);
  const marker = `boom-${randomBytes(5).toString('hex')}`;
  const file = podFile({
    name,
    containers: [sleeper('steady'), { name: 'crasher', image: busybox, command: ['sh', '-c', `echo ${marker}; exit 3`] }],
  });
  cleanupFile(t, file);
  const r = await runpod([file, '--retries', '2', '--retry-delay', '200ms']);
  assert.equal(r.code, 1, show(r));
  // The one line that says what failed, then per failing container its exit code and last log lines.
  assert.match(r.stderr, new RegExp(`runpod: .*${name}.*failed`), show(r));
  assert.match(r.stderr, /^\s+container crasher \(/m, show(r));
  assert.match(r.stderr, new RegExp(`\\| ${marker}`), show(r));
  // Its exit code, whatever phase of the crash loop the last check happened to see it in.
  await t.test('the failure names exit code 3', () => assert.match(r.stderr, /^\s+container crasher \(.*\bexit code 3\b/m, show(r)));
  // The healthy container is not blamed.
  assert.doesNotMatch(r.stderr, /^\s+container steady \(/m, show(r));
  // What runpod made is left for inspection, with the command that removes it.
  assert.match(r.stderr, /runpod down /);
  assert.equal(podContainerIds(name).length, 3);
});

test('restartPolicy Never: a container that exits 0 while another keeps running is success', async (t) => {
  const name = uniqueName('fail-never-ok');
  cleanupPod(t, name);
  const file = podFile({
    name,
    restartPolicy: 'Never',
    containers: [sleeper('server'), { name: 'job', image: busybox, command: ['sh', '-c', 'echo done'] }],
  });
  cleanupFile(t, file);
  const r = await runpod([file, '--retries', '5', '--retry-delay', '300ms']);
  assert.equal(r.code, 0, show(r));
  const pod = podContainers(name);
  assert.equal(must(pod.get('job'), 'job').State.Status, 'exited');
  assert.equal(must(pod.get('job'), 'job').State.ExitCode, 0);
  assert.equal(must(pod.get('server'), 'server').State.Running, true);
});

test('restartPolicy Never: a container that exits non-zero fails the pod at once, naming its exit code', async (t) => {
  const name = uniqueName('fail-never');
  cleanupPod(t, name);
  const marker = `bye-${randomBytes(5).toString('hex')}`;
  const file = podFile({
    name,
    restartPolicy: 'Never',
    containers: [sleeper('server'), { name: 'job', image: busybox, command: ['sh', '-c', `echo ${marker}; exit 4`] }],
  });
  cleanupFile(t, file);
  // Default retries (10 from 1s, about 3 minutes of budget): a final failure must not wait for them, so a
  // run that spends its retries ends at the 20s deadline with 124 instead of 1.
  const r = await runpod([file, '--timeout', '20s', '-o', 'json']);
  assert.equal(r.code, 1, show(r));
  assert.match(r.stderr, /^\s+container job \(.*\bexit code 4\b/m, show(r));
  assert.match(r.stderr, new RegExp(marker), show(r));
  const doc = JSON.parse(r.stdout) as FailDoc;
  assert.equal(doc.exitCode, 1);
  const p = must(doc.pods[0], 'pod result');
  assert.equal(p.status, 'failed');
  const job = must(
    p.containers.find((c) => c.name === 'job'),
    'job result',
  );
  assert.equal(job.state, 'exited');
  assert.equal(job.ok, false);
  assert.equal(job.exitCode, 4);
  assert.deepEqual(job.logs, [marker]);
  // Never means never: the engine did not restart it, runpod did not replace it.
  const pod = podContainers(name);
  assert.equal(must(pod.get('job'), 'job').RestartCount, 0);
  assert.equal(podContainerIds(name).length, 3);
});

test('a missing image under --pull never fails with the image named', async (t) => {
  const name = uniqueName('fail-image');
  cleanupPod(t, name);
  const image = `runpod-test/absent-${randomBytes(4).toString('hex')}:1`;
  const file = podFile({ name, containers: [{ name: 'app', image, command: ['sleep', '3600'] }] });
  cleanupFile(t, file);
  const r = await runpod([file, '--pull', 'never', '--retries', '1', '--retry-delay', '100ms']);
  assert.equal(r.code, 1, show(r));
  assert.match(r.stderr, /^runpod: .*failed/m, show(r));
  assert.ok(r.stderr.includes(image), show(r));
  assert.match(r.stderr, /not present/, show(r));
  assert.match(r.stderr, /Never/, show(r));
});

test('an invalid manifest exits 2 with file:line field: message for every problem, and creates nothing', async (t) => {
  const name = uniqueName('fail-invalid');
  cleanupPod(t, name);
  const file = writeManifest(
    [
      'apiVersion: v1',
      'kind: Pod',
      'metadata:',
      `  name: ${name}`,
      'spec:',
      '  containers:',
      '  - name: noimage', // line 7
      '    command: [sleep, "3600"]',
      '  - name: extra',
      `    image: ${busybox}`,
      '    bogusField: 1', // line 11
      '',
    ].join('\n'),
  );
  cleanupFile(t, file);
  const r = await runpod([file]);
  assert.equal(r.code, 2, show(r));
  const esc = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  assert.match(r.stderr, new RegExp(`${esc}:\\d+ spec\\.containers\\[0\\]\\.image: \\S`), show(r));
  assert.match(r.stderr, new RegExp(`${esc}:11 spec\\.containers\\[1\\]\\.bogusField: \\S`), show(r));
  assert.equal(r.stdout, '');
  assert.deepEqual(podContainerIds(name), []);
});

test('an unreachable engine exits 3 naming the address, from --host and from DOCKER_HOST', async (t) => {
  const name = uniqueName('fail-engine');
  cleanupPod(t, name);
  const file = podFile({ name, containers: [sleeper('app')] });
  cleanupFile(t, file);
  const dead = `unix:///tmp/runpod-no-engine-${randomBytes(4).toString('hex')}.sock`;

  const viaFlag = await runpod([file, '--host', dead, '--retries', '1', '--retry-delay', '100ms']);
  assert.equal(viaFlag.code, 3, show(viaFlag));
  assert.match(viaFlag.stderr, /^runpod: /m);
  assert.ok(viaFlag.stderr.includes(dead), show(viaFlag));

  const viaEnv = await runpod([file, '--retries', '1', '--retry-delay', '100ms'], { env: { DOCKER_HOST: dead } });
  assert.equal(viaEnv.code, 3, show(viaEnv));
  assert.ok(viaEnv.stderr.includes(dead), show(viaEnv));

  // Nothing reached the real engine.
  assert.deepEqual(podContainerIds(name), []);
});

test('--timeout ends a run that would otherwise keep retrying with exit 124', async (t) => {
  const name = uniqueName('fail-timeout');
  cleanupPod(t, name);
  // It crashes only after 2 s and must run 10 s to count (--settle), so --timeout always ends the wait first, with
  // no crash yet: a container that crashed twice by then is reported as the crash loop it is instead (exit 1,
  // wait/crashLoop.ts), and how many times one that exits at once has crashed within 1 s depends on how fast the
  // engine starts it.
  const file = podFile({ name, containers: [{ name: 'crasher', image: busybox, command: ['sh', '-c', 'sleep 2; exit 3'] }] });
  cleanupFile(t, file);
  const r = await runpod([file, '--timeout', '1s', '--settle', '10s', '--retries', '10', '--retry-delay', '10s'], { timeoutMs: 30_000 });
  assert.equal(r.code, 124, show(r));
  assert.match(r.stderr, /^runpod: .*--timeout/m, show(r));
  assert.match(r.stderr, new RegExp(name));
});

test('a container that crashes once and then stays up counts as running', async (t) => {
  const name = uniqueName('fail-once');
  cleanupPod(t, name);
  const file = podFile({
    name,
    containers: [
      // /tmp survives the engine's restart of the same container, so only the first start fails.
      { name: 'flaky', image: busybox, command: ['sh', '-c', 'if [ ! -f /tmp/once ]; then touch /tmp/once; echo first; exit 1; fi; exec sleep 3600'] },
    ],
  });
  cleanupFile(t, file);
  const r = await runpod([file, '--retries', '6', '--retry-delay', '500ms']);
  assert.equal(r.code, 0, show(r));
  const flaky = must(podContainers(name).get('flaky'), 'flaky');
  assert.equal(flaky.State.Running, true);
  // It really did crash once (restarted by the engine, or replaced by runpod with attempt 1).
  const restarted = flaky.RestartCount >= 1 || flaky.Config.Labels['io.kubernetes.container.restartCount'] !== '0';
  assert.ok(restarted, `expected a restart: ${JSON.stringify({ rc: flaky.RestartCount, name: flaky.Name })}`);
});
