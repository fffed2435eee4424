// A container's own restartPolicy and restartPolicyRules (Kubernetes 1.34, KEP-5307) on a real engine: an exit a
// rule matches is restarted by runpod (a new attempt) and the pod reaches running; an exit no rule matches under
// Never fails the pod, naming why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uniqueName } from './harness.js';
import { type Obj, busybox, checkNothingLeftBehind, cleanupFile, cleanupPod, inspect, must, podContainerIds, podFile, podObject, runpod, show } from './run-helpers.js';

checkNothingLeftBehind();

const rule42 = [{ action: 'Restart', exitCodes: { operator: 'In', values: [42] } }];

test('an exit a restartPolicyRules entry matches (42 under Never) is restarted and the pod reaches running', async (t) => {
  const name = uniqueName('rules-match');
  cleanupPod(t, name);
  // The first attempt exits 42; the next finds the mark in the pod's emptyDir and stays up.
  const pod = podObject({
    name,
    restartPolicy: 'Never',
    containers: [{
      name: 'worker',
      image: busybox,
      command: ['sh', '-c', 'if [ -f /data/ran ]; then exec sleep 3600; fi; touch /data/ran; exit 42'],
      restartPolicy: 'Never',
      restartPolicyRules: rule42,
      volumeMounts: [{ name: 'data', mountPath: '/data' }],
    }],
  });
  (pod.spec as Obj).volumes = [{ name: 'data', emptyDir: {} }];
  const file = podFile([pod]);
  cleanupFile(t, file);
  const r = await runpod([file, '--retries', '6', '--retry-delay', '300ms', '-o', 'json']);
  assert.equal(r.code, 0, show(r));
  // The attempt that exited 42 is kept (for logs --previous); attempt 1 runs, under the engine policy "no" (the
  // container's restartPolicy Never, not a policy the rule could be expressed in).
  const workers = inspect(podContainerIds(name)).filter((c) => c.Config.Labels['io.kubernetes.container.name'] === 'worker');
  const byAttempt = new Map(workers.map((c) => [c.Config.Labels['io.kubernetes.container.restartCount'], c]));
  assert.deepEqual([...byAttempt.keys()].sort(), ['0', '1']);
  const first = must(byAttempt.get('0'), 'attempt 0');
  const second = must(byAttempt.get('1'), 'attempt 1');
  assert.equal(first.State.Status, 'exited');
  assert.equal(first.State.ExitCode, 42);
  assert.equal(second.State.Status, 'running');
  assert.equal(second.HostConfig.RestartPolicy.Name, 'no');
  assert.match(r.stdout, /restartPolicyRules \(exit code in \[42\]\)/, show(r));
});

test('an exit no restartPolicyRules entry matches under Never fails the pod, saying why', async (t) => {
  const name = uniqueName('rules-miss');
  cleanupPod(t, name);
  const file = podFile({
    name,
    containers: [{ name: 'worker', image: busybox, command: ['sh', '-c', 'exit 1'], restartPolicy: 'Never', restartPolicyRules: rule42 }],
  });
  cleanupFile(t, file);
  const r = await runpod([file, '--retries', '6', '--retry-delay', '300ms']);
  assert.equal(r.code, 1, show(r));
  assert.match(r.stderr, /exited with code 1 and restartPolicy Never and no restartPolicyRules entry matches exit code 1 will not restart it/, show(r));
  assert.equal(podContainerIds(name).length, 2, 'the infra container and the one attempt: nothing restarted it');
});
