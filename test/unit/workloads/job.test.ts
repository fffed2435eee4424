// A Job run to completion (agent/runJob.ts), driven by a stand-in for the engine: parallelism bounds the pods
// at once, completions counts successes, failed pods are retried after the controller's back-off until more than
// backoffLimit have failed; Indexed pods see their index; a re-run finds what an earlier run left.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expandWorkload, jobPodName, type JobTerms, type WorkloadPlan } from '../../../src/workloads/expand.js';
import { type Attempt, type AttemptState, failureAction, jobBackoffMs, openJob, type RestartWatch, runJob } from '../../../src/agent/runJob.js';
import { tallyHistory } from '../../../src/workloads/jobTally.js';
import type { PodOutcome } from '../../../src/wait/runOnce.js';

const jobOf = (spec: Record<string, unknown>, restartPolicy = 'Never') =>
  expandWorkload(
    'Job',
    { metadata: { name: 'pi' }, spec: { template: { spec: { restartPolicy, containers: [{ name: 'pi', image: 'perl:5.34.0' }] } }, ...spec } },
    'default',
  ) as WorkloadPlan & { job: JobTerms };

/** An attempt an earlier run left: a state alone, or with the exit code its container left. */
const left = (state: AttemptState, exitCode?: number, more: Partial<Attempt> = {}): Attempt => ({
  state,
  exits: exitCode !== undefined ? [{ container: 'pi', exitCode }] : [],
  restarts: 0,
  ...more,
});

/** Each attempt's fate by pod name (default: succeeds), and what the runner did. */
class Stage {
  active = 0;
  maxActive = 0;
  readonly ran: string[] = [];
  readonly sleeps: number[] = [];
  readonly removed: string[] = [];
  constructor(
    readonly plan: WorkloadPlan & { job: JobTerms },
    private readonly fails: (slot: number, attempt: number) => boolean = () => false,
    private readonly before: Map<number, (AttemptState | Attempt)[]> = new Map(),
    private readonly exitCode: (slot: number, attempt: number) => number = () => 1,
    /** OnFailure: the restarts a pod's containers go through before its fate (each reported to the watch). */
    private readonly restartsOf: (slot: number, attempt: number) => number = () => 0,
    private readonly clock: () => number = () => 0,
  ) {}
  readonly halted: string[] = [];
  readonly messages: string[] = [];
  /** The pods run with a bound on their restarts (the loop then spends no retries on them). */
  readonly watched: string[] = [];
  run(options: { replace?: boolean } = {}) {
    const name = (s: number, a: number) => jobPodName('pi', this.plan.job, s, a);
    return runJob(
      this.plan,
      {
        attempts: async (slot) => (this.before.get(slot) ?? []).map((a) => (typeof a === 'string' ? left(a) : a)),
        run: async (slot, attempt, _deadline, watch?: RestartWatch) => {
          this.active++;
          this.maxActive = Math.max(this.maxActive, this.active);
          await new Promise((r) => setTimeout(r, 2));
          this.ran.push(name(slot, attempt));
          if (watch) this.watched.push(name(slot, attempt));
          for (let n = 1; n <= this.restartsOf(slot, attempt); n++) {
            const stop = watch?.(n);
            await new Promise((r) => setTimeout(r, 1));
            if (stop !== undefined) {
              this.active--;
              const observed = { infra: [], initContainers: new Map(), containers: new Map([['pi', [{ state: 'restarting', exitCode: 1 }]]]) };
              return { status: 'failed', reason: stop, observed, plan: { key: `default/${name(slot, attempt)}`, name: name(slot, attempt) } } as unknown as PodOutcome;
            }
          }
          this.active--;
          const failed = this.fails(slot, attempt);
          const code = failed ? this.exitCode(slot, attempt) : 0;
          const observed = { infra: [], initContainers: new Map(), containers: new Map([['pi', [{ state: 'exited', exitCode: code }]]]) };
          return {
            status: failed ? 'failed' : 'succeeded',
            reason: failed ? `pi: exited with code ${code}` : 'completed',
            observed,
            plan: { key: `default/${name(slot, attempt)}`, name: name(slot, attempt) },
          } as unknown as PodOutcome;
        },
        podName: name,
        remove: async (names) => void this.removed.push(...names),
        halt: async (names) => void this.halted.push(...names),
        sleep: async (ms) => {
          this.sleeps.push(ms);
          return true;
        },
        now: this.clock,
        info: (m) => void this.messages.push(m),
      },
      options,
    );
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
    const pod = plan.pods[2]!.value as {
      metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string> };
      spec: { hostname: string; containers: { env: { name: string; value: string }[] }[] };
    };
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
    const stage = new Stage(
      jobOf({ completions: 2, backoffLimit: 1 }),
      () => false,
      new Map([
        [0, ['succeeded']],
        [1, ['failed', 'active']],
      ]),
    );
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
      { action: 'FailJob' as const, on: 'exitCodes' as const, containerName: 'main', operator: 'In' as const, values: [42] },
      { action: 'Ignore' as const, on: 'exitCodes' as const, operator: 'In' as const, values: [137, 143] },
      { action: 'Count' as const, on: 'exitCodes' as const, operator: 'NotIn' as const, values: [1] },
    ];
    assert.equal(failureAction(rules, [{ container: 'main', exitCode: 42 }]).action, 'FailJob');
    assert.equal(failureAction(rules, [{ container: 'side', exitCode: 42 }]).action, 'Count', 'FailJob names main; NotIn [1] holds for 42');
    assert.equal(failureAction(rules, [{ container: 'side', exitCode: 137 }]).action, 'Ignore');
    assert.deepEqual(failureAction(rules, [{ container: 'main', exitCode: 1 }]), { action: 'Count' }, 'no rule: the default');
    assert.deepEqual(
      failureAction([{ action: 'Ignore', on: 'exitCodes', operator: 'NotIn', values: [1] }], [{ container: 'a', exitCode: 0 }]),
      { action: 'Count' },
      'a container that exited 0 is left out',
    );
    // A rule on pod conditions never matches on one host (nothing sets DisruptionTarget); the next rule decides.
    assert.deepEqual(failureAction([{ action: 'Ignore', on: 'podConditions', types: ['DisruptionTarget'] }, rules[0]!], [{ container: 'main', exitCode: 42 }]), {
      action: 'FailJob',
      rule: 1,
      exit: { container: 'main', exitCode: 42 },
    });
  });
  it('FailJob fails the Job at its first matching failure; Ignore retries without counting', async () => {
    const failJob = jobOf({ backoffLimit: 6, podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } }] } });
    const stage = new Stage(
      failJob,
      () => true,
      new Map(),
      () => 42,
    );
    const out = await stage.run();
    assert.equal(out.status, 'failed');
    assert.match(out.reason, /^job\/pi failed: PodFailurePolicy \(default\/pi-\S+: container pi exited with 42, podFailurePolicy rule 0: FailJob\)/);
    assert.equal(stage.ran.length, 1, 'no retry');
    const ignore = jobOf({ backoffLimit: 0, podFailurePolicy: { rules: [{ action: 'Ignore', onExitCodes: { operator: 'In', values: [137] } }] } });
    const flaky = new Stage(
      ignore,
      (_s, a) => a < 2,
      new Map(),
      () => 137,
    );
    const ok = await flaky.run();
    assert.equal(ok.status, 'succeeded', 'two ignored failures do not exhaust backoffLimit 0');
    assert.equal(flaky.ran.length, 3);
    assert.deepEqual(flaky.sleeps, [], 'an ignored failure is retried without the back-off');
  });
  it('the back-off doubles from 10 s and stops at 6 minutes', () => {
    assert.deepEqual([1, 2, 3, 6, 7, 20].map(jobBackoffMs), [10_000, 20_000, 40_000, 320_000, 360_000, 360_000]);
  });
});

describe('Job: restartPolicy OnFailure (pastBackoffLimitOnFailure)', () => {
  it('restarts in place count: the Job fails once they reach backoffLimit, the pod kept (halted) for runpod logs', async () => {
    const stage = new Stage(
      jobOf({ backoffLimit: 2 }, 'OnFailure'),
      () => true,
      new Map(),
      () => 1,
      () => 5,
    );
    const out = await stage.run();
    assert.equal(out.status, 'failed');
    assert.match(out.reason, /^job\/pi failed: BackoffLimitExceeded \(its containers restarted 2 times under restartPolicy OnFailure, backoffLimit 2\)/);
    assert.equal(stage.ran.length, 1, 'no new pod: the containers restart in place');
    assert.deepEqual(stage.halted, stage.ran, 'the pod that reached the limit is stopped and kept');
    assert.deepEqual(stage.removed, []);
  });
  it('backoffLimit 0: the first restart is too many', async () => {
    const out = await new Stage(
      jobOf({ backoffLimit: 0 }, 'OnFailure'),
      () => true,
      new Map(),
      () => 1,
      () => 3,
    ).run();
    assert.match(out.reason, /restarted 1 time under restartPolicy OnFailure, backoffLimit 0/);
  });
  it('fewer restarts than the limit, then success: completed', async () => {
    const stage = new Stage(
      jobOf({ backoffLimit: 3 }, 'OnFailure'),
      () => false,
      new Map(),
      () => 1,
      () => 2,
    );
    const out = await stage.run();
    assert.equal(out.status, 'succeeded', out.reason);
    assert.deepEqual(stage.halted, []);
  });
  it('restarts of pods running at once add up; a succeeded pod no longer counts', async () => {
    // Two pods at once, 2 restarts each: 4 reach backoffLimit 4 before either finishes.
    const both = await new Stage(
      jobOf({ completions: 2, parallelism: 2, backoffLimit: 4 }, 'OnFailure'),
      () => false,
      new Map(),
      () => 1,
      () => 2,
    ).run();
    assert.equal(both.status, 'failed', both.reason);
    // One after the other, the first one's restarts stop counting when it succeeds.
    const serial = await new Stage(
      jobOf({ completions: 2, parallelism: 1, backoffLimit: 4 }, 'OnFailure'),
      () => false,
      new Map(),
      () => 1,
      () => 2,
    ).run();
    assert.equal(serial.status, 'succeeded', serial.reason);
  });
  it('a re-run counts the restarts of the pod runpod halted: the failed Job stays failed', async () => {
    const stage = new Stage(jobOf({ backoffLimit: 2 }, 'OnFailure'), () => false, new Map([[0, [left('failed', 1, { restarts: 2 })]]]));
    const out = await stage.run();
    assert.equal(out.status, 'failed');
    assert.deepEqual(stage.ran, [], 'nothing runs again');
  });
});

/** A Job whose container sets its own restartPolicy (and rules): Kubernetes 1.34, ContainerRestartRules. */
const jobWith = (spec: Record<string, unknown>, restartPolicy: string, container: Record<string, unknown>) =>
  expandWorkload(
    'Job',
    { metadata: { name: 'pi' }, spec: { template: { spec: { restartPolicy, containers: [{ name: 'pi', image: 'perl:5.34.0', ...container }] } }, ...spec } },
    'default',
  ) as WorkloadPlan & { job: JobTerms };
const rule42 = { restartPolicy: 'Never', restartPolicyRules: [{ action: 'Restart', exitCodes: { operator: 'In', values: [42] } }] };

describe("Job: a container's own restartPolicy and restartPolicyRules (Kubernetes 1.34)", () => {
  it("the terms: under the pod's Never, a container that restarts in place makes restarts that count toward nothing", () => {
    assert.equal(jobWith({}, 'Never', { restartPolicy: 'OnFailure' }).job.restartsUncounted, true);
    assert.equal(jobWith({}, 'Never', rule42).job.restartsUncounted, true);
    assert.equal(jobWith({}, 'Never', { restartPolicy: 'Never' }).job.restartsUncounted, false);
    assert.equal(jobOf({}).job.restartsUncounted, false);
    assert.equal(jobWith({}, 'OnFailure', { restartPolicy: 'Always' }).job.restartsUncounted, false, 'under OnFailure every restart counts (pastBackoffLimitOnFailure)');
    assert.deepEqual(jobWith({}, 'Never', rule42).job.containerRestarts, { pi: { policy: 'Never', rules: [{ operator: 'In', values: [42] }] } });
  });
  it('the Kubernetes e2e case: pod Never, container OnFailure, podFailurePolicy FailJob on exit 1: restarts in place neither count nor fail the Job', async () => {
    // test/e2e/apps/job.go "containers restarted by container restart policy should not trigger PodFailurePolicy":
    // backoffLimit 1, the container fails once and is restarted in place, the Job completes.
    const plan = jobWith({ backoffLimit: 1, podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { containerName: 'pi', operator: 'In', values: [1] } }] } }, 'Never', {
      restartPolicy: 'OnFailure',
    });
    const stage = new Stage(
      plan,
      () => false,
      new Map(),
      () => 1,
      () => 5,
    );
    const out = await stage.run();
    assert.equal(out.status, 'succeeded', out.reason);
    assert.equal(stage.ran.length, 1, 'one pod: its container restarted in place');
    assert.deepEqual(stage.watched, stage.ran, "the loop is told its restarts are the Job's to judge (and spends no retries on them)");
    assert.deepEqual(stage.halted, []);
  });
  it('the pod that fails in the end (an exit no rule restarts) counts toward backoffLimit and is judged by podFailurePolicy', async () => {
    const counted = await new Stage(
      jobWith({ backoffLimit: 1 }, 'Never', rule42),
      () => true,
      new Map(),
      () => 3,
      () => 4,
    ).run();
    assert.equal(counted.status, 'failed');
    assert.match(counted.reason, /BackoffLimitExceeded \(2 pods failed, backoffLimit 1\)/);
    const failJob = await new Stage(
      jobWith({ backoffLimit: 6, podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [3] } }] } }, 'Never', rule42),
      () => true,
      new Map(),
      () => 3,
      () => 4,
    ).run();
    assert.match(failJob.reason, /PodFailurePolicy .*exited with 3/);
  });
  it("under the pod's OnFailure, a container whose own restartPolicy is Never fails its pod: a failed pod, replaced, counted as one", async () => {
    const stage = new Stage(
      jobWith({ backoffLimit: 1 }, 'OnFailure', { restartPolicy: 'Never' }),
      (_s, a) => a === 0,
      new Map(),
      () => 1,
    );
    const out = await stage.run();
    assert.equal(out.status, 'succeeded', out.reason);
    assert.equal(stage.ran.length, 2, 'the failed pod was replaced by a new one');
  });
  it('a re-run: under OnFailure, a pod an earlier run left failed by a container its own restartPolicy did not restart counts as a failed pod, not as restarts', async () => {
    // backoffLimit 1: one failed pod is within it, so the Job runs its next attempt (were its 2 restarts counted
    // as a halted pod's, 2 >= 1 would fail the Job).
    const stage = new Stage(jobWith({ backoffLimit: 1 }, 'OnFailure', { restartPolicy: 'Never' }), () => false, new Map([[0, [left('failed', 1, { restarts: 2 })]]]));
    const out = await stage.run();
    assert.equal(out.status, 'succeeded', out.reason);
    assert.equal(stage.ran.length, 1, 'the next attempt ran');
  });
});

describe('Job: suspend', () => {
  it('a suspended Job makes no pods and succeeds, saying so; its active pods are removed', async () => {
    const stage = new Stage(jobOf({ suspend: true, completions: 2 }), () => false, new Map([[0, ['active']]]));
    const out = await stage.run();
    assert.equal(out.status, 'succeeded');
    assert.equal(out.suspended, true);
    assert.match(out.reason, /^job\/pi: suspended \(spec\.suspend: true\): no pods are created \(0 of 2 completed so far\)/);
    assert.deepEqual(stage.ran, []);
    assert.deepEqual(stage.removed, [jobPodName('pi', { indexed: false, completions: 2 }, 0, 0)]);
  });
  it('a Job that finished stays finished when suspended', async () => {
    const out = await new Stage(jobOf({ suspend: true }), () => false, new Map([[0, ['succeeded']]])).run();
    assert.equal(out.suspended, undefined);
    assert.match(out.reason, /completed \(1 of 1 succeeded\)/);
  });
});

describe('Job: ttlSecondsAfterFinished > 0', () => {
  const finishedAt = 1_000_000;
  it('before the ttl has passed, a finished Job runs nothing again and its pods stay', async () => {
    const stage = new Stage(
      jobOf({ ttlSecondsAfterFinished: 60 }),
      () => false,
      new Map([[0, [left('succeeded', 0, { finishedAt })]]]),
      () => 1,
      () => 0,
      () => finishedAt + 59_000,
    );
    const out = await stage.run();
    assert.equal(out.status, 'succeeded');
    assert.deepEqual([stage.ran, stage.removed], [[], []]);
  });
  it('once it has passed, its pods go and the Job runs anew (a cluster would have deleted it)', async () => {
    const stage = new Stage(
      jobOf({ ttlSecondsAfterFinished: 60, backoffLimit: 0 }),
      () => false,
      new Map([[0, [left('failed', 1, { finishedAt })]]]),
      () => 1,
      () => 0,
      () => finishedAt + 60_000,
    );
    const out = await stage.run();
    assert.equal(out.status, 'succeeded', 'the failed Job was deleted, so it runs again');
    const first = jobPodName('pi', { indexed: false, completions: 1 }, 0, 0);
    assert.deepEqual(stage.removed, [first]);
    assert.deepEqual(stage.ran, [first], 'the new Job names its pods afresh');
    assert.ok(stage.messages.some((m) => /past ttlSecondsAfterFinished 60: removing its pods/.test(m)));
  });
  it('a Job that has not finished is never expired', async () => {
    const stage = new Stage(
      jobOf({ ttlSecondsAfterFinished: 1, completions: 2 }),
      () => false,
      new Map([[0, [left('succeeded', 0, { finishedAt })]]]),
      () => 1,
      () => 0,
      () => finishedAt + 600_000,
    );
    await stage.run();
    assert.deepEqual(stage.removed, []);
    assert.equal(stage.ran.length, 1, 'only the slot still open');
  });
});

describe('Job: backoffLimitPerIndex, maxFailedIndexes, FailIndex', () => {
  const perIndex = (spec: Record<string, unknown>) => jobOf({ completionMode: 'Indexed', ...spec });
  it("the documentation's FailIndex example: index 0 retried once then failed, index 1 failed at once by exit 42, the rest succeed: FailedIndexes", async () => {
    const plan = perIndex({
      completions: 4,
      parallelism: 2,
      backoffLimitPerIndex: 1,
      backoffLimit: 6,
      podFailurePolicy: { rules: [{ action: 'FailIndex', onExitCodes: { containerName: 'pi', operator: 'In', values: [42] } }] },
    });
    const stage = new Stage(
      plan,
      (s) => s === 0 || s === 1,
      new Map(),
      (s) => (s === 1 ? 42 : 1),
    );
    const out = await stage.run();
    assert.equal(out.status, 'failed');
    assert.match(out.reason, /^job\/pi failed: FailedIndexes \(indexes 0, 1 failed, .*; 2 of 4 succeeded\)$/);
    assert.equal(stage.ran.filter((n) => n.startsWith('pi-0-')).length, 2, 'index 0: its first failure is retried');
    assert.equal(stage.ran.filter((n) => n.startsWith('pi-1-')).length, 1, 'index 1: FailIndex, no retry');
    assert.equal(stage.ran.length, 5, 'every other index still runs');
    assert.deepEqual(stage.sleeps, [10_000], "the back-off counts the index's own failures");
  });
  it('more failed indexes than maxFailedIndexes fail the Job at once (MaxFailedIndexesExceeded)', async () => {
    const stage = new Stage(perIndex({ completions: 6, parallelism: 1, backoffLimitPerIndex: 0, maxFailedIndexes: 1 }), (s) => s < 2);
    const out = await stage.run();
    assert.equal(out.status, 'failed');
    assert.match(out.reason, /^job\/pi failed: MaxFailedIndexesExceeded \(indexes 0, 1 failed, maxFailedIndexes 1\)/);
    assert.equal(stage.ran.length, 2, 'no index after the second failed one');
  });
  it('the documentation example with maxFailedIndexes 5: all ten indexes run, the even ones fail, the Job fails (FailedIndexes)', async () => {
    const stage = new Stage(perIndex({ completions: 10, parallelism: 3, backoffLimitPerIndex: 1, maxFailedIndexes: 5 }), (s) => s % 2 === 0);
    const out = await stage.run();
    assert.match(out.reason, /FailedIndexes \(indexes 0, 2, 4, 6, 8 failed/);
    assert.equal(stage.ran.length, 15, 'each even index twice, each odd once');
  });
  it('without backoffLimit, backoffLimitPerIndex alone governs (backoffLimit defaults to the largest int32)', () => {
    assert.equal(perIndex({ completions: 2, backoffLimitPerIndex: 1 }).job.backoffLimit, 2_147_483_647);
    assert.equal(jobOf({}).job.backoffLimit, 6);
  });
});

describe('Job: a re-run judges what an earlier run left by its exit codes', () => {
  const policy = {
    podFailurePolicy: {
      rules: [
        { action: 'Ignore', onExitCodes: { operator: 'In', values: [137] } },
        { action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } },
      ],
    },
  };
  it('failures an earlier run ignored stay ignored', async () => {
    const stage = new Stage(jobOf({ backoffLimit: 0, ...policy }), () => false, new Map([[0, [left('failed', 137), left('failed', 137)]]]));
    const out = await stage.run();
    assert.equal(out.status, 'succeeded', out.reason);
    assert.deepEqual(stage.ran, [jobPodName('pi', { indexed: false, completions: 1 }, 0, 2)], 'the third attempt runs');
  });
  it('a failure FailJob named fails the re-run at once', async () => {
    const stage = new Stage(jobOf({ backoffLimit: 6, ...policy }), () => false, new Map([[0, [left('failed', 42)]]]));
    const out = await stage.run();
    assert.match(
      out.reason,
      /^job\/pi failed: PodFailurePolicy \(pi-\S+: container pi exited with 42, podFailurePolicy rule 1: FailJob \(in an earlier run of job\/pi\)\), in an earlier run$/,
    );
    assert.deepEqual(stage.ran, []);
  });
  it('an attempt whose exit codes are unknown counts, as before', async () => {
    const out = await new Stage(jobOf({ backoffLimit: 0, ...policy }), () => false, new Map([[0, ['failed']]])).run();
    assert.equal(out.status, 'failed');
  });
});

describe('Job: --replace runs it anew; a finished Job otherwise runs nothing', () => {
  const name = (s: number, a: number) => jobPodName('pi', { indexed: false, completions: 1 }, s, a);
  it('a completed Job is taken down whole and runs again', async () => {
    const stage = new Stage(jobOf({}), () => false, new Map([[0, ['succeeded']]]));
    const out = await stage.run({ replace: true });
    assert.equal(out.status, 'succeeded', out.reason);
    assert.deepEqual(stage.removed, [name(0, 0)]);
    assert.deepEqual(stage.ran, [name(0, 0)], 'attempt 0 runs again, as a new Job would');
    assert.equal(out.finishedBefore, undefined);
    assert.ok(
      stage.messages.some((m) => m.startsWith(`job/pi: --replace: taking down its pods (${name(0, 0)}) and running it anew`)),
      stage.messages.join('\n'),
    );
  });
  it('a failed Job: every attempt goes, its failures no longer count, and it runs again', async () => {
    const stage = new Stage(jobOf({ backoffLimit: 1 }), () => false, new Map([[0, [left('failed', 3), left('failed', 3)]]]));
    const out = await stage.run({ replace: true });
    assert.equal(out.status, 'succeeded', out.reason);
    assert.deepEqual(stage.removed, [name(0, 0), name(0, 1)]);
    assert.deepEqual(stage.ran, [name(0, 0)]);
  });
  it('without --replace a failed Job runs nothing and says it failed before', async () => {
    const stage = new Stage(jobOf({ backoffLimit: 0 }), () => false, new Map([[0, [left('failed', 3)]]]));
    const out = await stage.run();
    assert.equal(out.status, 'failed');
    assert.equal(out.finishedBefore, true);
    assert.match(out.reason, /^job\/pi failed: BackoffLimitExceeded \(1 pod failed, backoffLimit 0\), in an earlier run$/);
    assert.deepEqual(stage.ran, []);
    assert.deepEqual(stage.removed, []);
  });
  it('without --replace a completed Job runs nothing and says how to run it again', async () => {
    const stage = new Stage(jobOf({}), () => false, new Map([[0, ['succeeded']]]));
    const out = await stage.run();
    assert.equal(out.status, 'succeeded');
    assert.equal(out.reason, 'job/pi: completed (1 of 1 succeeded), in an earlier run; nothing runs again (--replace runs it anew)');
    assert.deepEqual(stage.ran, []);
  });
  it('--replace of a Job never run before runs it as a first run', async () => {
    const stage = new Stage(jobOf({}));
    const out = await stage.run({ replace: true });
    assert.equal(out.status, 'succeeded');
    assert.deepEqual(stage.removed, []);
    assert.deepEqual(stage.ran, [name(0, 0)]);
  });
});

describe('openJob: how a run opens a Job (a run and --dry-run alike)', () => {
  const name = (s: number, a: number) => jobPodName('pi', { indexed: false, completions: 1 }, s, a);
  const done = left('succeeded', 0, { finishedAt: 1_000 });
  const cases: { what: string; spec: Record<string, unknown>; history: Attempt[]; now?: number; replace?: boolean; want: object }[] = [
    { what: 'never run: it runs', spec: {}, history: [], want: {} },
    { what: 'completed: finished, nothing runs', spec: {}, history: [done], want: { finished: { status: 'succeeded', reason: 'job/pi: completed (1 of 1 succeeded)' } } },
    { what: 'completed, --replace: anew', spec: {}, history: [done], replace: true, want: { anew: { pods: [name(0, 0)], why: '--replace: taking down its pods' } } },
    { what: 'active: it runs on (adopted)', spec: {}, history: [left('active')], want: {} },
    { what: 'suspended and active: its active pod goes', spec: { suspend: true }, history: [left('failed', 1), left('active')], want: { suspended: { remove: [name(0, 1)] } } },
    {
      what: 'suspended and finished: stays finished',
      spec: { suspend: true },
      history: [done],
      want: { finished: { status: 'succeeded', reason: 'job/pi: completed (1 of 1 succeeded)' } },
    },
    {
      what: 'ttl passed: anew',
      spec: { ttlSecondsAfterFinished: 5 },
      history: [done],
      now: 6_000,
      want: { anew: { pods: [name(0, 0)], why: 'finished 5s ago, past ttlSecondsAfterFinished 5: removing its pods' } },
    },
    {
      what: 'ttl not yet passed: finished',
      spec: { ttlSecondsAfterFinished: 5 },
      history: [done],
      now: 5_999,
      want: { finished: { status: 'succeeded', reason: 'job/pi: completed (1 of 1 succeeded)' } },
    },
    {
      what: 'ttl 0 and pods a cut-short run left: anew',
      spec: { ttlSecondsAfterFinished: 0 },
      history: [done],
      now: 1_000,
      want: { anew: { pods: [name(0, 0)], why: 'finished 0s ago, past ttlSecondsAfterFinished 0: removing its pods' } },
    },
  ];
  for (const c of cases) {
    it(c.what, () => {
      assert.deepEqual(openJob(jobOf(c.spec), [c.history], name, c.now ?? 0, c.replace), c.want);
    });
  }
});

describe('Job: parallelism and no completions (the work-queue pattern)', () => {
  it('starts parallelism pods; complete once one has succeeded and all have ended', async () => {
    const plan = jobOf({ parallelism: 2 });
    assert.equal(plan.job.workQueue, true);
    assert.equal(plan.pods.length, 2, 'a first pod for each of the parallelism slots');
    const stage = new Stage(plan);
    const out = await stage.run();
    assert.equal(out.status, 'succeeded', out.reason);
    assert.equal(stage.ran.length, 2);
    assert.equal(stage.maxActive, 2);
    assert.match(out.reason, /^job\/pi: completed \(2 of 2 pods succeeded; no completions set/);
  });
  it('a pod that fails once another has succeeded is not replaced (wantActive is the active pods)', async () => {
    // Slot 0 runs longer (its restarts take time) and fails after slot 1 succeeded.
    const stage = new Stage(
      jobOf({ parallelism: 2 }),
      (s) => s === 0,
      new Map(),
      () => 1,
      (s) => (s === 0 ? 8 : 0),
    );
    const out = await stage.run();
    assert.equal(out.status, 'succeeded', out.reason);
    assert.equal(stage.ran.length, 2, 'no replacement after the success');
    assert.match(out.reason, /1 of 2 pods succeeded, after 1 failed/);
  });
  it('a pod that fails before any success is replaced after the back-off', async () => {
    const stage = new Stage(
      jobOf({ parallelism: 2 }),
      (s, a) => s === 0 && a === 0,
      new Map(),
      () => 1,
      (s, a) => (s === 1 && a === 0 ? 8 : 0),
    );
    const out = await stage.run();
    assert.equal(out.status, 'succeeded', out.reason);
    assert.ok(stage.ran.includes(jobPodName('pi', stage.plan.job, 0, 1)), `the failed slot ran again: ${stage.ran.join(' ')}`);
    assert.deepEqual(stage.sleeps, [10_000]);
  });
  it('a success with a pod still active is not complete yet (tally)', () => {
    const job = jobOf({ parallelism: 3 }).job;
    const tally = tallyHistory(job, 'job/pi', [[left('succeeded')], [left('active')], []], (s, a) => `pi-${s}-${a}`);
    assert.equal(tally.verdict('job/pi', 1), undefined);
    assert.equal(tally.open(2), false, 'no new pod once one has succeeded');
    assert.equal(tally.verdict('job/pi', 0)?.status, 'succeeded');
  });
  it('parallelism 1 or completions given: the counted rule (not a work queue)', () => {
    assert.equal(jobOf({}).job.workQueue, false);
    assert.equal(jobOf({ parallelism: 1 }).job.workQueue, false);
    assert.equal(jobOf({ parallelism: 3, completions: 1 }).job.workQueue, false);
    assert.equal(jobOf({ parallelism: 3, completions: 1 }).pods.length, 1);
  });
});

describe('Job: a failed Job stops its other pods before removing them', () => {
  // The fresh-machine run caught it: removing the other active pods while their loops still ran let a loop make
  // a removed pod's infra container again (and the pod's volume removal then met it in use).
  it("each active pod's loop has ended before remove is called, and none is left running", async () => {
    const plan = jobOf({ completions: 3, parallelism: 3, backoffLimit: 0 });
    const name = (s: number, a: number) => jobPodName('pi', plan.job, s, a);
    const running = new Set<string>();
    const runningAtRemove: string[][] = [];
    const out = await runJob(plan, {
      attempts: async () => [],
      run: async (slot, attempt, _deadline, _watch, stop) => {
        const pod = name(slot, attempt);
        const outcome = (status: string, code: number) =>
          ({
            status,
            reason: `pi: ${status}`,
            observed: { infra: [], initContainers: new Map(), containers: new Map([['pi', [{ state: 'exited', exitCode: code }]]]) },
            plan: { key: `default/${pod}`, name: pod },
          }) as unknown as PodOutcome;
        if (slot === 0) {
          await new Promise((r) => setTimeout(r, 5));
          return outcome('failed', 1);
        }
        // The others run until their stop comes, as a pod's loop runs until its signal.
        running.add(pod);
        await new Promise<void>((resolve) => {
          if (stop?.aborted) resolve();
          stop?.addEventListener('abort', () => resolve(), { once: true });
        });
        running.delete(pod);
        return outcome('interrupted', 137);
      },
      podName: name,
      remove: async () => void runningAtRemove.push([...running]),
      halt: async () => undefined,
      sleep: async () => true,
      now: () => 0,
      info: () => undefined,
    });
    assert.equal(out.status, 'failed', out.reason);
    assert.match(out.reason, /BackoffLimitExceeded/);
    assert.deepEqual(runningAtRemove, [[]], 'remove was called once, with no pod loop still running');
    assert.equal(running.size, 0);
  });
});
