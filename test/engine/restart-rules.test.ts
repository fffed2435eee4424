// A container's own restartPolicy and restartPolicyRules (Kubernetes 1.34, KEP-5307) on a real engine: an exit a
// rule matches is restarted by runpod (a new attempt) and the pod reaches running; an exit no rule matches under
// Never fails the pod, naming why. In a Job's template: restarts in place under the pod's Never count toward
// nothing and never meet podFailurePolicy; on an init container, a rule runs it again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { docker, keyedWorkspace, show as showRun, uniqueName } from './harness.js';
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
    containers: [
      {
        name: 'worker',
        image: busybox,
        command: ['sh', '-c', 'if [ -f /data/ran ]; then exec sleep 3600; fi; touch /data/ran; exit 42'],
        restartPolicy: 'Never',
        restartPolicyRules: rule42,
        volumeMounts: [{ name: 'data', mountPath: '/data' }],
      },
    ],
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

/** The containers of a key's pods named so, newest attempt first: [attempt, state, exit code, engine restarts]. */
function instances(key: string, container: string): Array<[string, string, number, number]> {
  const ids = docker(['ps', '-aq', '--filter', `label=io.runpod.project=${key}`, '--filter', `label=io.kubernetes.container.name=${container}`]);
  if (!ids) return [];
  return inspect(ids.split('\n'))
    .map((c): [string, string, number, number] => [
      c.Config.Labels['io.kubernetes.container.restartCount'] ?? '',
      c.State.Status,
      c.State.ExitCode,
      Number((c as unknown as { RestartCount?: number }).RestartCount ?? 0),
    ])
    .sort((a, b) => b[0].localeCompare(a[0]));
}

// test/e2e/apps/job.go, "containers restarted by container restart policy should not trigger PodFailurePolicy": a
// Job under restartPolicy Never whose container says OnFailure, with a FailJob rule on exit 1 and backoffLimit 1;
// the container fails once, is restarted in place, and the Job completes.
test("a Job: a container restarted in place by its own restartPolicy (the pod's Never) neither counts nor meets podFailurePolicy", async (t) => {
  const w = keyedWorkspace(t, 'rr', {
    'job.yaml': `apiVersion: batch/v1
kind: Job
metadata:
  name: fail-once
spec:
  backoffLimit: 1
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes: {containerName: work, operator: In, values: [1]}
  template:
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 0
      volumes: [{name: data, emptyDir: {}}]
      containers:
      - name: work
        image: ${busybox}
        restartPolicy: OnFailure
        command: ["sh", "-c", "if [ -f /data/ran ]; then echo second; exit 0; fi; touch /data/ran; echo first; exit 1"]
        volumeMounts: [{name: data, mountPath: /data}]
`,
  });
  const r = await w.run(w.file('job.yaml'), '--retries', '3', '--retry-delay', '200ms');
  assert.equal(r.code, 0, showRun(r));
  assert.match(r.stderr, /job\/fail-once: completed \(1 of 1 succeeded\)/, showRun(r));
  const work = instances(w.key, 'work');
  assert.equal(work.length, 1, `one pod, its container restarted in place: ${JSON.stringify(work)}`);
  assert.deepEqual(work[0]!.slice(1, 3), ['exited', 0]);
  assert.ok(work[0]![3] >= 1, `the engine restarted it (on-failure): ${JSON.stringify(work)}`);
});

test("a Job: an init container with restartPolicy Never and a rule on 42 is run again on 42 (the pod's Never), then the Job completes", async (t) => {
  const w = keyedWorkspace(t, 'rr', {
    'job.yaml': `apiVersion: batch/v1
kind: Job
metadata:
  name: init-rule
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 0
      volumes: [{name: data, emptyDir: {}}]
      initContainers:
      - name: setup
        image: ${busybox}
        restartPolicy: Never
        restartPolicyRules:
        - action: Restart
          exitCodes: {operator: In, values: [42]}
        command: ["sh", "-c", "if [ -f /data/ran ]; then exit 0; fi; touch /data/ran; exit 42"]
        volumeMounts: [{name: data, mountPath: /data}]
      containers:
      - name: work
        image: ${busybox}
        command: ["sh", "-c", "echo done"]
`,
  });
  const r = await w.run(w.file('job.yaml'), '--retries', '6', '--retry-delay', '200ms');
  assert.equal(r.code, 0, showRun(r));
  assert.deepEqual(
    instances(w.key, 'setup').map((c) => c.slice(0, 3)),
    [
      ['1', 'exited', 0],
      ['0', 'exited', 42],
    ],
  );
});
