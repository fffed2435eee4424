// Jobs through the CLI, the fields issue 12 still lacked: restartPolicy OnFailure (restarts in place counted against
// backoffLimit), suspend, ttlSecondsAfterFinished > 0 on a re-run, backoffLimitPerIndex with FailIndex (the
// documentation's example, with busybox standing in for python), the documentation's podFailurePolicy example
// (onExitCodes and onPodConditions), and a re-run that judges earlier attempts by the exit codes the engine kept.
// Every test runs under an isolation key of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { busybox, docker, keyedWorkspace, show } from './harness.js';

/** A Job's containers under the key: "pod container state" per line, sorted. */
function containersOf(key: string, job: string): string[] {
  const out = docker([
    'ps',
    '-a',
    '--filter',
    `label=io.runpod.project=${key}`,
    '--filter',
    `label=io.runpod.owner=job/${job}`,
    '--format',
    '{{.Label "io.kubernetes.pod.name"}} {{.Label "io.kubernetes.container.name"}} {{.State}}',
  ]);
  return out ? out.split('\n').sort() : [];
}
/** Each attempt's main container as the engine kept it: started, finished, exit code, output (an assertion's message). */
function attemptsSaid(key: string, pods: string[]): string {
  return pods
    .map((pod) => {
      const id = docker([
        'ps',
        '-aq',
        '--filter',
        `label=io.runpod.project=${key}`,
        '--filter',
        `label=io.kubernetes.pod.name=${pod}`,
        '--filter',
        'label=io.kubernetes.container.name=main',
      ]);
      if (!id) return `${pod}: no main container`;
      const state = docker(['inspect', '-f', '{{.State.StartedAt}} {{.State.FinishedAt}} exit {{.State.ExitCode}}', ...id.split('\n')]);
      return `${pod}: ${state} ${docker(['logs', id.split('\n')[0]!]).replace(/\n/g, ' ')}`;
    })
    .join('\n');
}
const podNames = (key: string, job: string): string[] => [...new Set(containersOf(key, job).map((l) => l.split(' ')[0]!))].sort();

const job = (name: string, spec: string, command: string, restartPolicy = 'Never', volumes = '') => `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
spec:
${spec}  template:
    spec:
      terminationGracePeriodSeconds: 0
      restartPolicy: ${restartPolicy}
      containers:
      - name: main
        image: ${busybox}
        command: ["sh", "-c", ${JSON.stringify(command)}]
${volumes}`;

test('restartPolicy OnFailure: the container restarts in place until it succeeds; restarts past backoffLimit fail the Job, the pod kept, and a re-run fails at once', async (t) => {
  // The count survives restarts in an emptyDir, as it would in the pod's volume on a cluster.
  const counting = 'n=$(cat /data/n 2>/dev/null || echo 0); n=$((n+1)); echo $n > /data/n; echo "run $n"; [ $n -ge 3 ]';
  const mount = '        volumeMounts: [{name: data, mountPath: /data}]\n      volumes: [{name: data, emptyDir: {}}]\n';
  const w = keyedWorkspace(t, 'job', {
    'flaky.yaml': job('flaky', '  backoffLimit: 3\n', counting, 'OnFailure', mount),
    'broken.yaml': job('broken', '  backoffLimit: 2\n', 'echo "cannot connect"; exit 3', 'OnFailure'),
  });
  const ok = await w.run(w.file('flaky.yaml'));
  assert.equal(ok.code, 0, show(ok));
  assert.match(ok.stderr, /job\/flaky: completed \(1 of 1 succeeded\)/, show(ok));
  assert.equal(podNames(w.key, 'flaky').length, 1, 'one pod: its container restarted in place');
  const st = await w.run('status', '-o', 'json', 'job/flaky');
  assert.equal(st.code, 0, show(st));
  const pod = (JSON.parse(st.stdout) as { pods: { phase: string; restarts: number }[] }).pods[0]!;
  assert.deepEqual([pod.phase, pod.restarts], ['Succeeded', 2]);

  const bad = await w.run(w.file('broken.yaml'));
  assert.equal(bad.code, 1, show(bad));
  assert.match(bad.stderr, /job\/broken failed: BackoffLimitExceeded \(its containers restarted 2 times under restartPolicy OnFailure, backoffLimit 2\)/, show(bad));
  assert.match(bad.stderr, /\| cannot connect/, "the failing pod's logs");
  assert.match(bad.stderr, /stopped broken-\S+ \(kept for runpod logs\)/);
  const left = containersOf(w.key, 'broken').filter((l) => !l.includes(' POD '));
  assert.deepEqual(
    left.map((l) => l.split(' ').slice(1).join(' ')),
    ['main exited'],
    'stopped for good, not restarting',
  );
  assert.match((await w.run('logs', 'job/broken')).stdout, /cannot connect/);
  const again = await w.run(w.file('broken.yaml'));
  assert.equal(again.code, 1, show(again));
  assert.match(again.stderr, /BackoffLimitExceeded \(its containers restarted 2 times/, 'the failed Job stays failed');
  assert.doesNotMatch(again.stderr, /starting|creating container/, 'nothing runs again');
});

test('suspend: true creates no pods and exits 0 with a warning; suspend false runs it', async (t) => {
  const text = job('later', '  suspend: true\n', 'echo ran');
  const w = keyedWorkspace(t, 'job', { 'job.yaml': text });
  const r = await w.run(w.file('job.yaml'), '-o', 'json');
  assert.equal(r.code, 0, show(r));
  assert.match(r.stderr, /warning: job\/later: suspended \(spec\.suspend: true\): no pods are created/, show(r));
  const doc = JSON.parse(r.stdout) as { workloads: { ref: string; status: string; suspended?: boolean }[] };
  assert.deepEqual(
    doc.workloads.map((x) => [x.ref, x.status, x.suspended]),
    [['job/later', 'succeeded', true]],
  );
  assert.deepEqual(containersOf(w.key, 'later'), []);
  // status of the manifest lists the Job, with no pods, as suspended.
  const st = await w.run('status', w.file('job.yaml'));
  assert.equal(st.code, 0, show(st));
  assert.match(st.stdout, /default\/job\/later\s+0\/1 \(suspended\)\s+-/, show(st));
  fs.writeFileSync(w.file('job.yaml'), text.replace('suspend: true', 'suspend: false'));
  const run = await w.run(w.file('job.yaml'));
  assert.equal(run.code, 0, show(run));
  assert.match(run.stderr, /job\/later: completed \(1 of 1 succeeded\)/);
  const done = await w.run('status', '-o', 'json', w.file('job.yaml'));
  const workloads = (JSON.parse(done.stdout) as { workloads: { ref: string; ready: number; of: number; suspended?: boolean }[] }).workloads;
  assert.deepEqual(
    workloads.map((x) => [x.ref, x.ready, x.of, x.suspended]),
    [['job/later', 1, 1, undefined]],
    'READY: succeeded pods of completions',
  );
});

test('ttlSecondsAfterFinished 15: the pods stay after the run; a re-run before the ttl runs nothing, one after it removes them and runs the Job anew', async (t) => {
  const w = keyedWorkspace(t, 'job', { 'job.yaml': job('short', '  ttlSecondsAfterFinished: 15\n', 'cat /proc/sys/kernel/random/uuid') });
  const first = await w.run(w.file('job.yaml'));
  assert.equal(first.code, 0, show(first));
  assert.match(first.stderr, /its pods stay until ttlSecondsAfterFinished 15 has passed; then runpod gc, or running it again, removes them/, show(first));
  const pods = podNames(w.key, 'short');
  assert.equal(pods.length, 1);
  const label = docker([
    'ps',
    '-a',
    '--filter',
    `label=io.runpod.project=${w.key}`,
    '--filter',
    'label=io.kubernetes.container.name=main',
    '--format',
    '{{.Label "io.runpod.job.ttl-seconds-after-finished"}}',
  ]);
  assert.equal(label, '15', 'the ttl is on the pod for runpod gc');
  const soon = await w.run(w.file('job.yaml'));
  assert.equal(soon.code, 0, show(soon));
  assert.doesNotMatch(soon.stderr, /removing/);
  const before = (await w.run('logs', 'job/short')).stdout;
  // Past the ttl, counted from the container's finish as the engine recorded it.
  const main = docker(['ps', '-aq', '--filter', `label=io.runpod.project=${w.key}`, '--filter', 'label=io.kubernetes.container.name=main']);
  const finished = Date.parse(docker(['inspect', '--format', '{{.State.FinishedAt}}', main]));
  await new Promise((r) => setTimeout(r, Math.max(0, finished + 15_500 - Date.now())));
  const later = await w.run(w.file('job.yaml'));
  assert.equal(later.code, 0, show(later));
  assert.match(later.stderr, /job\/short: finished \d+s ago, past ttlSecondsAfterFinished 15: removing its pods .* and running it anew/, show(later));
  assert.match(later.stderr, /job\/short: completed \(1 of 1 succeeded\)/);
  assert.notEqual((await w.run('logs', 'job/short')).stdout, before, 'the Job ran again');
});

test("--replace runs a completed Job again, and a failed one; a failed Job's plain re-run runs nothing and names --replace", async (t) => {
  const w = keyedWorkspace(t, 'job', {
    'done.yaml': job('done', '', 'cat /proc/sys/kernel/random/uuid'),
    'fails.yaml': job('fails', '  backoffLimit: 0\n', 'echo attempt; exit 3'),
  });
  const first = await w.run(w.file('done.yaml'));
  assert.equal(first.code, 0, show(first));
  const before = (await w.run('logs', 'job/done')).stdout;
  const plain = await w.run(w.file('done.yaml'));
  assert.equal(plain.code, 0, show(plain));
  assert.match(plain.stderr, /job\/done: completed \(1 of 1 succeeded\), in an earlier run; nothing runs again \(--replace runs it anew\)/, show(plain));
  assert.equal((await w.run('logs', 'job/done')).stdout, before, 'a plain re-run runs nothing');
  // --dry-run says the same of each, as a run decides it.
  const dryPlain = await w.run('--dry-run', w.file('done.yaml'));
  assert.match(dryPlain.stdout, /actions: none \(job\/done completed in an earlier run: it runs nothing\)/, show(dryPlain));
  const dryReplace = await w.run('--dry-run', '--replace', w.file('done.yaml'));
  assert.match(dryReplace.stdout, /default\/job\/done: --replace: taking down its pods \(done-\S+\), then would run it anew/, show(dryReplace));
  assert.match(
    dryReplace.stdout,
    /would take the pod down first \(its Job runs anew\), then:\n\s+would createInfra POD: the pod does not exist\n\s+would create main: the pod does not exist/,
    show(dryReplace),
  );
  const replaced = await w.run('--replace', w.file('done.yaml'));
  assert.equal(replaced.code, 0, show(replaced));
  assert.match(replaced.stderr, /job\/done: --replace: taking down its pods \(done-\S+\) and running it anew/, show(replaced));
  assert.match(replaced.stderr, /job\/done: completed \(1 of 1 succeeded\)\n/, show(replaced));
  assert.notEqual((await w.run('logs', 'job/done')).stdout, before, 'the Job ran again');
  assert.equal(podNames(w.key, 'done').length, 1);

  const failed = await w.run(w.file('fails.yaml'));
  assert.equal(failed.code, 1, show(failed));
  const again = await w.run(w.file('fails.yaml'));
  assert.equal(again.code, 1, show(again));
  assert.match(
    again.stderr,
    new RegExp(
      `job/fails failed in an earlier run and does not run again; its pods are kept for runpod logs --project ${w.key} job/fails; to run it again: runpod --replace --project ${w.key} \\S+fails\\.yaml`,
    ),
    show(again),
  );
  assert.doesNotMatch(again.stderr, /nothing was created/, show(again));
  assert.doesNotMatch(again.stderr, /starting|creating container/, 'nothing runs again');
  const stillFailing = await w.run('--replace', w.file('fails.yaml'));
  assert.equal(stillFailing.code, 1, show(stillFailing));
  assert.match(stillFailing.stderr, /job\/fails: --replace: taking down its pods/, show(stillFailing));
  assert.match(stillFailing.stderr, /creating container main/, 'it ran again');
  fs.writeFileSync(w.file('fails.yaml'), job('fails', '  backoffLimit: 0\n', 'echo attempt; exit 0'));
  const mended = await w.run('--replace', w.file('fails.yaml'));
  assert.equal(mended.code, 0, show(mended));
  assert.match(mended.stderr, /job\/fails: completed \(1 of 1 succeeded\)/, show(mended));
  assert.equal(podNames(w.key, 'fails').length, 1, 'the failed attempt went with --replace');
});

test("backoffLimitPerIndex with FailIndex: the documentation's example fails indexes 0 (after one retry) and 1 (exit 42, no retry), runs 2 and 3, and ends FailedIndexes", async (t) => {
  // kubernetes.io examples/controllers/job-backoff-limit-per-index-failindex.yaml, its python script said in sh.
  const w = keyedWorkspace(t, 'job', {
    'job.yaml': `apiVersion: batch/v1
kind: Job
metadata:
  name: job-backoff-limit-per-index-failindex
spec:
  completions: 4
  parallelism: 2
  completionMode: Indexed
  backoffLimitPerIndex: 1
  template:
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 0
      containers:
      - name: main
        image: ${busybox}
        command:
        - sh
        - -c
        - |
          if [ "$JOB_COMPLETION_INDEX" = 0 ]; then exit 1; elif [ "$JOB_COMPLETION_INDEX" = 1 ]; then exit 42; else exit 0; fi
  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: FailIndex
      onExitCodes:
        containerName: main
        operator: In
        values: [42]
`,
  });
  const r = await w.run(w.file('job.yaml'));
  assert.equal(r.code, 1, show(r));
  assert.match(r.stderr, /job\/job-backoff-limit-per-index-failindex failed: FailedIndexes \(indexes 0, 1 failed, .*; 2 of 4 succeeded\)/, show(r));
  assert.match(r.stderr, /index 1 failed \(container main exited with 42, podFailurePolicy rule 0: FailIndex\); it is not retried/);
  assert.match(r.stderr, /retrying after 1 failure, in 10s \(index 0\)/, "index 0's own back-off");
  const pods = podNames(w.key, 'job-backoff-limit-per-index-failindex');
  const perIndex = [0, 1, 2, 3].map((i) => pods.filter((p) => p.startsWith(`job-backoff-limit-per-index-failindex-${i}-`)).length);
  assert.deepEqual(perIndex, [2, 1, 1, 1]);
});

test("the documentation's podFailurePolicy example (FailJob on exit code 42, Ignore on DisruptionTarget) runs: FailJob ends it at the first exit 42", async (t) => {
  // kubernetes.io examples/controllers/job-pod-failure-policy-example.yaml, with busybox for bash and 1 s for 5.
  const w = keyedWorkspace(t, 'job', {
    'job.yaml': `apiVersion: batch/v1
kind: Job
metadata:
  name: job-pod-failure-policy-example
spec:
  completions: 12
  parallelism: 3
  template:
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 0
      containers:
      - name: main
        image: ${busybox}
        command: ["sh"]
        args:
        - -c
        - echo "Hello world!" && sleep 1 && exit 42
  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes:
        containerName: main
        operator: In
        values: [42]
    - action: Ignore
      onPodConditions:
      - type: DisruptionTarget
`,
  });
  const r = await w.run(w.file('job.yaml'));
  assert.equal(r.code, 1, show(r));
  assert.match(r.stderr, /failed: PodFailurePolicy \(default\/job-pod-failure-policy-example-\S+: container main exited with 42, podFailurePolicy rule 0: FailJob\)/, show(r));
  assert.doesNotMatch(r.stderr, /retrying/);
});

test('a re-run judges the attempts an earlier run left by their exit codes: Ignored failures stay uncounted', async (t) => {
  // Exit 137 the first two times (Ignored), then 0; backoffLimit 0, so one counted failure would fail the Job. The
  // attempts count themselves in a claim they share, one mark each, named by the attempt's pod (its hostname):
  // busybox's date has no %N, so a mark named by the time was one per second: two attempts within one second (an
  // Ignored failure is retried at once, with no back-off) left one mark between them, and a fourth attempt ran.
  const counting = 'n=$(ls /marks | wc -l); touch /marks/$(hostname); echo "attempt $(hostname): $n marks before it"; [ $n -ge 2 ] || exit 137';
  const spec = '  backoffLimit: 0\n  podFailurePolicy:\n    rules:\n    - action: Ignore\n      onExitCodes: {operator: In, values: [137]}\n';
  const mount = '        volumeMounts: [{name: marks, mountPath: /marks}]\n      volumes: [{name: marks, persistentVolumeClaim: {claimName: marks}}]\n';
  const claim = 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: marks}\nspec:\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Mi}}\n---\n';
  const w = keyedWorkspace(t, 'job', { 'job.yaml': claim + job('retry', spec, counting, 'Never', mount) });
  // --wait none starts the first attempt and leaves it; it fails with 137 after runpod has gone.
  const started = await w.run(w.file('job.yaml'), '--wait', 'none');
  assert.equal(started.code, 0, show(started));
  for (let i = 0; i < 50 && !containersOf(w.key, 'retry').some((l) => l.endsWith('main exited')); i++) await new Promise((r) => setTimeout(r, 100));
  const rerun = await w.run(w.file('job.yaml'));
  assert.equal(rerun.code, 0, show(rerun));
  assert.match(rerun.stderr, /job\/retry: completed \(1 of 1 succeeded\)/, 'the earlier failure is judged by its exit code again, not counted');
  const attempts = podNames(w.key, 'retry');
  assert.equal(attempts.length, 3, `the first attempt (from the earlier run), then two in this one\n${show(rerun)}\n${attemptsSaid(w.key, attempts)}`);
});
