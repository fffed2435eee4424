// A Job, as the Job controller runs it (pkg/controller/job): up to `parallelism` pods at once until `completions`
// pods have succeeded (each index once, when Indexed); a failed pod is replaced by a new one after a back-off
// (10 s, doubling, at most 6 min) until more than `backoffLimit` have failed (BackoffLimitExceeded), or the Job has
// been active `activeDeadlineSeconds` (DeadlineExceeded). The engine work is passed in.
import type { PodOutcome } from '../wait/runOnce.js';
import type { JobTerms, PodFailureRule, WorkloadPlan } from './expand.js';
import type { WorkloadOutcome } from './runWorkload.js';

/** What an attempt at a slot left on the engine. */
export type AttemptState = 'succeeded' | 'failed' | 'active' | 'absent';

export interface JobDeps {
  /** The state of each attempt of a slot found on the engine (attempts 0, 1, … until one is absent). */
  attempts(slot: number): Promise<AttemptState[]>;
  /** Make attempt `attempt` of a slot (or adopt it) and wait until it has succeeded or failed. */
  run(slot: number, attempt: number, deadline: number | undefined): Promise<PodOutcome>;
  /** The names of a slot's attempts, for removal. */
  podName(slot: number, attempt: number): string;
  remove(names: string[]): Promise<void>;
  sleep(ms: number): Promise<boolean>;
  now(): number;
  info(message: string): void;
}

/**
 * The podFailurePolicy rule that decides a failed pod's fate: the first whose onExitCodes requirement holds for the
 * pod's containers (or the one it names) that exited non-zero (containers that exited 0 are left out); In holds
 * when some exit code is among the values, NotIn when some is not. None: the default, Count.
 */
export function failureAction(rules: readonly PodFailureRule[], exits: readonly { container: string; exitCode: number }[]): { action: PodFailureRule['action']; rule?: number; exit?: { container: string; exitCode: number } } {
  for (const [i, rule] of rules.entries()) {
    const hit = exits.find((e) => e.exitCode !== 0 && (rule.containerName === undefined || e.container === rule.containerName) && rule.values.includes(e.exitCode) === (rule.operator === 'In'));
    if (hit) return { action: rule.action, rule: i, exit: hit };
  }
  return { action: 'Count' };
}

/** The exit codes a finished pod's containers (init and app, their newest instances) left. */
function exitsOf(outcome: PodOutcome): { container: string; exitCode: number }[] {
  const observed = outcome.observed;
  if (!observed) return [];
  return [...observed.initContainers, ...observed.containers].flatMap(([container, list]) => {
    const newest = list[0];
    return newest && (newest.state === 'exited' || newest.state === 'dead') ? [{ container, exitCode: newest.exitCode }] : [];
  });
}

/** The Job controller's pod back-off: 10 s after the first failure, doubling, at most 6 minutes. */
export function jobBackoffMs(failures: number): number {
  return failures <= 0 ? 0 : Math.min(360_000, 10_000 * 2 ** (failures - 1));
}

export async function runJob(plan: WorkloadPlan & { job: JobTerms }, deps: JobDeps): Promise<WorkloadOutcome> {
  const { job } = plan;
  const outcomes = new Map<string, PodOutcome>();
  const removed: string[] = [];
  const started = deps.now();
  const deadline = job.activeDeadlineSeconds !== undefined ? started + job.activeDeadlineSeconds * 1000 : undefined;
  const slots = [...Array(job.completions).keys()];
  // What earlier runs left: a slot done, its failures counted, a pod still active (adopted and awaited again).
  const history = await Promise.all(slots.map((s) => deps.attempts(s)));
  const done = new Set(slots.filter((s) => history[s]!.includes('succeeded')));
  const next = new Map(slots.map((s) => [s, Math.max(0, history[s]!.length - (history[s]!.at(-1) === 'active' ? 1 : 0))]));
  let failures = history.flat().filter((a) => a === 'failed').length;
  let lastFailure: PodOutcome | undefined;
  const active = new Map<number, Promise<{ slot: number; outcome: PodOutcome }>>();
  const result = (status: WorkloadOutcome['status'], reason: string): WorkloadOutcome => ({ plan, status, reason, outcomes, removed, leftAlone: [] });
  const stopActive = async (why: string): Promise<void> => {
    const names = [...active.keys()].map((s) => deps.podName(s, next.get(s)!));
    if (names.length === 0) return;
    deps.info(`${plan.ref}: removing ${names.join(', ')}: ${why}`);
    await deps.remove(names);
    removed.push(...names);
  };
  const start = (slot: number): void => {
    const attempt = next.get(slot)!;
    const delay = failures > 0 && attempt > 0 ? jobBackoffMs(failures) : 0;
    deps.info(`${plan.ref}: ${deps.podName(slot, attempt)}: ${attempt === 0 ? 'starting' : `retrying after ${failures} failure${failures === 1 ? '' : 's'}${delay > 0 ? `, in ${delay / 1000}s` : ''}`}${job.indexed ? ` (index ${slot})` : ''}`);
    active.set(
      slot,
      (async () => {
        if (delay > 0) await deps.sleep(deadline !== undefined ? Math.min(delay, Math.max(0, deadline - deps.now())) : delay);
        return { slot, outcome: await deps.run(slot, attempt, deadline) };
      })(),
    );
  };

  for (;;) {
    if (done.size >= job.completions) {
      if (job.removeWhenFinished) await removeAll(plan, deps, next, removed, 'ttlSecondsAfterFinished 0');
      return result('succeeded', `${plan.ref}: completed (${done.size} of ${job.completions} succeeded${failures > 0 ? `, after ${failures} failed` : ''})`);
    }
    if (failures > job.backoffLimit) {
      await stopActive('the Job failed');
      if (job.removeWhenFinished) await removeAll(plan, deps, next, removed, 'ttlSecondsAfterFinished 0');
      return result('failed', `${plan.ref} failed: BackoffLimitExceeded (${failures} pod${failures === 1 ? '' : 's'} failed, backoffLimit ${job.backoffLimit})${lastFailure ? `; last: ${lastFailure.plan.key}: ${lastFailure.reason}` : ''}`);
    }
    if (deadline !== undefined && deps.now() >= deadline) {
      await stopActive('activeDeadlineSeconds passed');
      return result('failed', `${plan.ref} failed: DeadlineExceeded (active longer than activeDeadlineSeconds ${job.activeDeadlineSeconds})`);
    }
    // Up to parallelism pods at once, no more than the completions still needed (the lowest indexes first).
    for (const slot of slots) {
      if (active.size >= Math.min(job.parallelism, job.completions - done.size)) break;
      if (!done.has(slot) && !active.has(slot)) start(slot);
    }
    if (active.size === 0) return result('failed', `${plan.ref}: parallelism 0: the Job runs no pods`);
    const { slot, outcome } = await Promise.race(active.values());
    active.delete(slot);
    outcomes.set(outcome.plan.name, outcome);
    if (outcome.status === 'succeeded') {
      done.add(slot);
    } else if (outcome.status === 'failed') {
      // podFailurePolicy: the first rule on exit codes that matches decides; otherwise the failure counts.
      const decided = failureAction(job.failureRules, exitsOf(outcome));
      const why = decided.exit ? `container ${decided.exit.container} exited with ${decided.exit.exitCode}, podFailurePolicy rule ${decided.rule}: ${decided.action}` : '';
      if (decided.action === 'FailJob') {
        await stopActive('the Job failed (podFailurePolicy FailJob)');
        if (job.removeWhenFinished) await removeAll(plan, deps, next, removed, 'ttlSecondsAfterFinished 0');
        return result('failed', `${plan.ref} failed: PodFailurePolicy (${outcome.plan.key}: ${why}); ${outcome.reason}`);
      }
      if (decided.action === 'Ignore') deps.info(`${plan.ref}: ${outcome.plan.key} failed and is not counted (${why})`);
      else failures += 1;
      lastFailure = outcome;
      next.set(slot, next.get(slot)! + 1);
    } else if (outcome.status === 'timeout' && deadline !== undefined && deps.now() >= deadline) {
      // The Job's own deadline cut the pod short: the next turn fails the Job with DeadlineExceeded.
    } else {
      // --timeout, a signal or a lost engine ends the Job's run as it ends a pod's.
      await stopActive(outcome.status === 'interrupted' ? 'interrupted' : 'the run ended');
      return result(outcome.status, `${plan.ref}: pod ${outcome.plan.key}: ${outcome.reason}`);
    }
  }
}

/** ttlSecondsAfterFinished 0: every pod the Job made goes as soon as it has finished. */
async function removeAll(plan: WorkloadPlan & { job: JobTerms }, deps: JobDeps, next: Map<number, number>, removed: string[], why: string): Promise<void> {
  const names = [...next].flatMap(([slot, n]) => [...Array(n + 1).keys()].map((a) => deps.podName(slot, a)));
  deps.info(`${plan.ref}: removing its pods: ${why}`);
  await deps.remove(names);
  removed.push(...names);
}
