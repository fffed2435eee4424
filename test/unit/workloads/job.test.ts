// A Job run to completion (workloads/runJob.ts), driven by a stand-in for the engine: parallelism bounds the pods
// at once, completions counts successes, failed pods are retried after the controller's back-off until more than
// backoffLimit have failed; Indexed pods see their index; a re-run finds what an earlier run left.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expandWorkload, jobPodName, type JobTerms, type WorkloadPlan } from '../../../src/workloads/expand.js';
import { type AttemptState, failureAction, jobBackoffMs, runJob } from '../../../src/workloads/runJob.js';
import type { PodOutcome } from '../../../src/wait/runOnce.js';

const jobOf = (spec: Record<string, unknown>) =>
  expandWorkload('Job', { metadata: { name: 'pi' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl:5.34.0' }] } }, ...spec } }, 'default') as WorkloadPlan & { job: JobTerms };

/** Each attempt's fate by pod name (default: succeeds), and what the runner did. */
class Stage {
  active = 0;
  maxActive = 0;
  readonly ran: string[] = [];
  readonly sleeps: number[] = [];
  readonly removed: string[] = [];
  constructor(
    private readonly plan: WorkloadPlan & { job: JobTerms },
    private readonly fails: (slot: number, attempt: number) => boolean = () => false,
    private readonly before: Map<number, AttemptState[]> = new Map(),
    private readonly exitCode: (slot: number, attempt: number) => number = () => 1,
  ) {}
  run() {
    const name = (s: number, a: number) => jobPodName('pi', this.plan.job, s, a);
    return runJob(this.plan, {
      attempts: async (slot) => this.before.get(slot) ?? [],
      run: async (slot, attempt) => {
        this.active++;
        this.maxActive = Math.max(this.maxActive, this.active);
        await new Promise((r) => setTimeout(r, 2));
        this.active--;
        this.ran.push(name(slot, attempt));
        const failed = this.fails(slot, attempt);
        const code = failed ? this.exitCode(slot, attempt) : 0;
        const observed = { infra: [], initContainers: new Map(), containers: new Map([['pi', [{ state: 'exited', exitCode: code }]]]) };
        return { status: failed ? 'failed' : 'succeeded', reason: failed ? `pi: exited with code ${code}` : 'completed', observed, plan: { key: `default/${name(slot, attempt)}`, name: name(slot, attempt) } } as unknown as PodOutcome;
      },
      podName: name,
      remove: async (names) => void this.removed.push(...names),
      sleep: async (ms) => {
        this.sleeps.push(ms);
        return true;
      },
      now: () => 0,
      info: () => undefined,
    });
  }
}

describe('Job: completions, parallelism, backoffLimit', () => {
  it('the pi Job: one pod, completed', async () => {
    const stage = new Stage(jobOf({ backoffLimit: 4 }));
    const out = await stage.run();
    assert.equal(out.status, 'succeeded', out.reason);
    assert.equal(stage.ran.length, 1);
    assert.match(stage.ran[0]!, /^pi-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.match(out.reason, /completed \(1 of 1 succeeded\)/);
  });
  it('completions 3, parallelism 2: never more than 2 at once, 3 successes', async () => {
    const stage = new Stage(jobOf({ completions: 3, parallelism: 2 }));
    const out = await stage.run();
    assert.equal(out.status, 'succeeded');
    assert.equal(stage.ran.length, 3);
    assert.equal(stage.maxActive, 2);
  });
  it('a failing pod is retried after the back-off, until more than backoffLimit have failed', async () => {
    const stage = new Stage(jobOf({ backoffLimit: 2 }), () => true);
    const out = await stage.run();
    assert.equal(out.status, 'failed');
    assert.match(out.reason, /^job\/pi failed: BackoffLimitExceeded \(3 pods failed, backoffLimit 2\); last: default\/pi-\S+: pi: exited with code 1$/);
    assert.equal(stage.ran.length, 3, 'the first pod and two retries');
    assert.deepEqual(stage.sleeps, [10_000, 20_000], "the Job controller's back-off");
    assert.equal(new Set(stage.ran).size, 3, 'each attempt is a pod of its own');
  });
  it('one failure then success completes the Job', async () => {
    const stage = new Stage(jobOf({ backoffLimit: 1 }), (_s, a) => a === 0);
    const out = await stage.run();
    assert.equal(out.status, 'succeeded');
    assert.match(out.reason, /after 1 failed/);
  });
  it('Indexed: each index succeeds once; its pods carry the index in the environment, labels and hostname', async () => {
    const plan = jobOf({ completions: 3, parallelism: 3, completionMode: 'Indexed' });
    const pod = plan.pods[2]!.value as { metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string> }; spec: { hostname: string; containers: { env: { name: string; value: string }[] }[] } };
    assert.match(pod.metadata.name, /^pi-2-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.equal(pod.metadata.labels['batch.kubernetes.io/job-completion-index'], '2');
    assert.equal(pod.metadata.labels['batch.kubernetes.io/job-name'], 'pi');
    assert.equal(pod.metadata.labels['job-name'], 'pi');
    assert.equal(pod.metadata.annotations['batch.kubernetes.io/job-completion-index'], '2');
    assert.equal(pod.spec.hostname, 'pi-2');
    assert.deepEqual(pod.spec.containers[0]!.env, [{ name: 'JOB_COMPLETION_INDEX', value: '2' }]);
    const stage = new Stage(plan, (s, a) => s === 1 && a === 0);
    const out = await stage.run();
    assert.equal(out.status, 'succeeded');
    assert.equal(stage.ran.filter((n) => n.startsWith('pi-1-')).length, 2, 'index 1 ran again after its failure');
  });
  it('a re-run finds what an earlier run left: done slots stay done, failures count, an active pod is awaited again', async () => {
    const stage = new Stage(jobOf({ completions: 2, backoffLimit: 1 }), () => false, new Map([[0, ['succeeded']], [1, ['failed', 'active']]]));
    const out = await stage.run();
    assert.equal(out.status, 'succeeded');
    assert.deepEqual(stage.ran, [jobPodName('pi', { indexed: false, completions: 2 }, 1, 1)], 'only the active attempt, adopted');
  });
  it('ttlSecondsAfterFinished 0 removes the pods once the Job has finished', async () => {
    const stage = new Stage(jobOf({ ttlSecondsAfterFinished: 0 }));
    await stage.run();
    assert.deepEqual(stage.removed.slice(0, 1), stage.ran);
  });
  it('podFailurePolicy: the first rule on exit codes that matches decides; exit code 0 never matches', () => {
    const rules = [
      { action: 'FailJob' as const, containerName: 'main', operator: 'In' as const, values: [42] },
      { action: 'Ignore' as const, operator: 'In' as const, values: [137, 143] },
      { action: 'Count' as const, operator: 'NotIn' as const, values: [1] },
    ];
    assert.equal(failureAction(rules, [{ container: 'main', exitCode: 42 }]).action, 'FailJob');
    assert.equal(failureAction(rules, [{ container: 'side', exitCode: 42 }]).action, 'Count', 'FailJob names main; NotIn [1] holds for 42');
    assert.equal(failureAction(rules, [{ container: 'side', exitCode: 137 }]).action, 'Ignore');
    assert.deepEqual(failureAction(rules, [{ container: 'main', exitCode: 1 }]), { action: 'Count' }, 'no rule: the default');
    assert.deepEqual(failureAction([{ action: 'Ignore', operator: 'NotIn', values: [1] }], [{ container: 'a', exitCode: 0 }]), { action: 'Count' }, 'a container that exited 0 is left out');
  });
  it('FailJob fails the Job at its first matching failure; Ignore retries without counting', async () => {
    const failJob = jobOf({ backoffLimit: 6, podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } }] } });
    const stage = new Stage(failJob, () => true, new Map(), () => 42);
    const out = await stage.run();
    assert.equal(out.status, 'failed');
    assert.match(out.reason, /^job\/pi failed: PodFailurePolicy \(default\/pi-\S+: container pi exited with 42, podFailurePolicy rule 0: FailJob\)/);
    assert.equal(stage.ran.length, 1, 'no retry');
    const ignore = jobOf({ backoffLimit: 0, podFailurePolicy: { rules: [{ action: 'Ignore', onExitCodes: { operator: 'In', values: [137] } }] } });
    const flaky = new Stage(ignore, (_s, a) => a < 2, new Map(), () => 137);
    const ok = await flaky.run();
    assert.equal(ok.status, 'succeeded', 'two ignored failures do not exhaust backoffLimit 0');
    assert.equal(flaky.ran.length, 3);
    assert.deepEqual(flaky.sleeps, [], 'an ignored failure is retried without the back-off');
  });
  it('the back-off doubles from 10 s and stops at 6 minutes', () => {
    assert.deepEqual([1, 2, 3, 6, 7, 20].map(jobBackoffMs), [10_000, 20_000, 40_000, 320_000, 360_000, 360_000]);
  });
});
