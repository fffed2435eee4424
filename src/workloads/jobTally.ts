// Where a Job stands, as the Job controller counts it (pkg/controller/job), pure: its completed and failed indexes,
// its failed pods as podFailurePolicy judges them, its containers' restarts under restartPolicy OnFailure, and the
// verdict those give (finished: succeeded or failed with the controller's reason; or not yet).
import { restartsAfterExit } from '../kube/restart.js';
import type { JobTerms, PodFailureAction, PodFailureRule } from './expand.js';

/** What one attempt at a slot left on the engine. */
export type AttemptState = 'succeeded' | 'failed' | 'active';

export interface ContainerExit {
  container: string;
  exitCode: number;
}

/** One attempt found on the engine by a re-run (or made by this run). */
export interface Attempt {
  state: AttemptState;
  /** The exit codes its containers' newest instances left (the engine keeps them on exited containers). */
  exits: ContainerExit[];
  /** Its containers' restarts (replaced instances plus the engine's restarts in place). */
  restarts: number;
  /** When its last container finished, ms since the epoch. */
  finishedAt?: number;
}

export interface Judgement {
  action: PodFailureAction;
  rule?: number;
  exit?: ContainerExit;
}

/**
 * The podFailurePolicy rule that decides a failed pod's fate: the first that matches, in order. On exit codes: the
 * pod's containers (or the one it names) that exited non-zero (containers that exited 0 are left out); In holds when
 * some exit code is among the values, NotIn when some is not. On pod conditions: never here; the conditions such a
 * rule names (DisruptionTarget, ConfigIssue …) are set by evictions, preemption and node loss, which one host never
 * does to a pod. None matching: the default, Count.
 */
export function failureAction(rules: readonly PodFailureRule[], exits: readonly ContainerExit[]): Judgement {
  for (const [i, rule] of rules.entries()) {
    if (rule.on !== 'exitCodes') continue;
    const hit = exits.find(
      (e) => e.exitCode !== 0 && (rule.containerName === undefined || e.container === rule.containerName) && rule.values.includes(e.exitCode) === (rule.operator === 'In'),
    );
    if (hit) return { action: rule.action, rule: i, exit: hit };
  }
  return { action: 'Count' };
}

/** The Job controller's pod back-off: 10 s after the first failure, doubling, at most 6 minutes. */
export function jobBackoffMs(failures: number): number {
  return failures <= 0 ? 0 : Math.min(360_000, 10_000 * 2 ** (failures - 1));
}

export type Verdict =
  | { status: 'succeeded'; reason: string }
  | { status: 'failed'; reason: string; why: 'PodFailurePolicy' | 'BackoffLimitExceeded' | 'MaxFailedIndexesExceeded' | 'FailedIndexes' };

/** A Job's counts, kept as its pods finish. */
export class JobTally {
  readonly done = new Set<number>();
  /** Indexes that failed for good (backoffLimitPerIndex exceeded, or a FailIndex rule). */
  readonly failedIndexes = new Set<number>();
  /** Counted failures per index (backoffLimitPerIndex). */
  readonly indexFailures = new Map<number, number>();
  /** Counted pod failures, all indexes (backoffLimit). */
  failures = 0;
  /** Restarts of the pods running now, by slot (OnFailure). */
  readonly restarts = new Map<number, number>();
  /** Restarts of pods runpod halted when an earlier run's Job failed on its restarts (they stay counted). */
  haltedRestarts = 0;
  /** The FailJob rule that fired, said as the Job's reason. */
  failedByPolicy: string | undefined;
  /** The restarts that failed the Job (OnFailure): once reached, the Job has failed, whatever its pods do next. */
  failedOnRestarts: number | undefined;

  constructor(private readonly job: JobTerms) {}

  /** Whether backoffLimitPerIndex governs (an Indexed Job that sets it). */
  get perIndex(): boolean {
    return this.job.indexed && this.job.backoffLimitPerIndex !== undefined;
  }

  /**
   * A slot still to run: neither done nor failed for good. A work queue (no completions) starts no pod once any has
   * succeeded (the controller's wantActive becomes the active pods); those still active are awaited.
   */
  open(slot: number): boolean {
    if (this.job.workQueue && this.done.size > 0) return false;
    return !this.done.has(slot) && !this.failedIndexes.has(slot);
  }

  /** The failures the back-off before a slot's next attempt counts: its own with a limit per index, else the Job's. */
  backoffFailures(slot: number): number {
    return this.perIndex ? (this.indexFailures.get(slot) ?? 0) : this.failures;
  }

  /**
   * A failed pod of a slot, judged by podFailurePolicy: FailJob fails the Job; FailIndex fails the index (only with
   * backoffLimitPerIndex, which validation requires of it); Ignore counts nothing; Count (the default) counts one
   * failure of the Job and of the index, and the index fails once its own exceed backoffLimitPerIndex.
   */
  podFailed(slot: number, judged: Judgement, said: string): void {
    if (judged.action === 'Ignore') return;
    if (judged.action === 'FailJob') {
      this.failedByPolicy = said;
      return;
    }
    this.failures += 1;
    const own = (this.indexFailures.get(slot) ?? 0) + 1;
    this.indexFailures.set(slot, own);
    if (judged.action === 'FailIndex' || (this.perIndex && own > this.job.backoffLimitPerIndex!)) this.failedIndexes.add(slot);
  }

  /** Total restarts that count (pastBackoffLimitOnFailure: the restarts of the Job's Running and Pending pods). */
  restartTotal(): number {
    return this.haltedRestarts + [...this.restarts.values()].reduce((a, b) => a + b, 0);
  }

  /** pastBackoffLimitOnFailure: with backoffLimit 0 a single restart is too many; otherwise reaching the limit is. */
  restartsExceeded(): boolean {
    if (!this.job.restartsInPlace) return false;
    const n = this.restartTotal();
    return this.job.backoffLimit === 0 ? n > 0 : n >= this.job.backoffLimit;
  }

  /** A running pod's restarts, as last seen; true when they fail the Job (it stays failed). */
  noteRestarts(slot: number, restarts: number): boolean {
    this.restarts.set(slot, restarts);
    if (this.failedOnRestarts === undefined && this.restartsExceeded()) this.failedOnRestarts = this.restartTotal();
    return this.failedOnRestarts !== undefined;
  }

  /**
   * Finished, and how; undefined while the Job is still running. In the order the Job controller checks them.
   * active: the Job's pods still running (a work queue is complete only once none is).
   */
  verdict(ref: string, active: number): Verdict | undefined {
    const { job } = this;
    if (this.failedByPolicy !== undefined) return { status: 'failed', why: 'PodFailurePolicy', reason: `${ref} failed: PodFailurePolicy (${this.failedByPolicy})` };
    if (this.failures > job.backoffLimit) {
      return {
        status: 'failed',
        why: 'BackoffLimitExceeded',
        reason: `${ref} failed: BackoffLimitExceeded (${this.failures} pod${this.failures === 1 ? '' : 's'} failed, backoffLimit ${job.backoffLimit})`,
      };
    }
    if (this.failedOnRestarts !== undefined || this.restartsExceeded()) {
      const n = this.failedOnRestarts ?? this.restartTotal();
      return {
        status: 'failed',
        why: 'BackoffLimitExceeded',
        reason: `${ref} failed: BackoffLimitExceeded (its containers restarted ${n} time${n === 1 ? '' : 's'} under restartPolicy OnFailure, backoffLimit ${job.backoffLimit})`,
      };
    }
    const failedIdx = [...this.failedIndexes].sort((a, b) => a - b);
    if (job.maxFailedIndexes !== undefined && failedIdx.length > job.maxFailedIndexes) {
      return {
        status: 'failed',
        why: 'MaxFailedIndexesExceeded',
        reason: `${ref} failed: MaxFailedIndexesExceeded (indexes ${failedIdx.join(', ')} failed, maxFailedIndexes ${job.maxFailedIndexes})`,
      };
    }
    if (job.workQueue) {
      // completions nil: complete once some pod has succeeded and every pod has ended.
      if (this.done.size > 0 && active === 0) {
        return {
          status: 'succeeded',
          reason: `${ref}: completed (${this.done.size} of ${job.completions} pod${job.completions === 1 ? '' : 's'} succeeded${this.failures > 0 ? `, after ${this.failures} failed` : ''}; no completions set: the first success completes the Job once every pod has ended)`,
        };
      }
      return undefined;
    }
    if (this.done.size >= job.completions) {
      return { status: 'succeeded', reason: `${ref}: completed (${this.done.size} of ${job.completions} succeeded${this.failures > 0 ? `, after ${this.failures} failed` : ''})` };
    }
    // Every index has run out, some failed: the Job finishes as failed (FailedIndexes).
    if (failedIdx.length > 0 && this.done.size + failedIdx.length >= job.completions) {
      return {
        status: 'failed',
        why: 'FailedIndexes',
        reason: `${ref} failed: FailedIndexes (indexes ${failedIdx.join(', ')} failed, each past backoffLimitPerIndex ${job.backoffLimitPerIndex ?? 0} or by a FailIndex rule; ${this.done.size} of ${job.completions} succeeded)`,
      };
    }
    return undefined;
  }
}

/**
 * What earlier runs left, counted again by the same rules: succeeded slots are done; each failed attempt is judged
 * by podFailurePolicy from the exit codes its containers left (an Ignored failure stays uncounted); under OnFailure,
 * the restarts of the attempts that did not succeed count (a pod still running is adopted and counted as it runs).
 */
export function tallyHistory(job: JobTerms, ref: string, history: readonly (readonly Attempt[])[], podName: (slot: number, attempt: number) => string): JobTally {
  const tally = new JobTally(job);
  history.forEach((attempts, slot) => {
    attempts.forEach((a, i) => {
      if (a.state === 'succeeded') tally.done.add(slot);
      else if (a.state === 'failed') {
        const judged = failureAction(job.failureRules, a.exits);
        const said = judged.exit
          ? `${podName(slot, i)}: container ${judged.exit.container} exited with ${judged.exit.exitCode}, podFailurePolicy rule ${judged.rule}: ${judged.action}`
          : `${podName(slot, i)} failed`;
        // Under OnFailure a failed pod is one runpod halted when the Job failed on its restarts (those count), unless
        // a container of it exited with a code its own restartPolicy and rules (Kubernetes 1.34) do not restart: that
        // pod failed by itself, and counts as a failed pod (its restarts no longer count, as the controller counts
        // only those of Running and Pending pods).
        if (job.restartsInPlace && !failedByItself(job, a.exits)) tally.haltedRestarts += a.restarts;
        else tally.podFailed(slot, judged, `${said} (in an earlier run of ${ref})`);
      }
    });
  });
  return tally;
}

/**
 * Under OnFailure, did a failed pod fail by itself: did one of its containers exit non-zero with a code its restart
 * (its own restartPolicy and restartPolicyRules over the pod's OnFailure) does not restart? A pod runpod halted has
 * only exits the pod's OnFailure restarts (its containers were stopped, and would be restarted).
 */
export function failedByItself(job: Pick<JobTerms, 'containerRestarts'>, exits: readonly ContainerExit[]): boolean {
  return exits.some((e) => {
    const r = job.containerRestarts[e.container];
    return e.exitCode !== 0 && r !== undefined && !restartsAfterExit(r, e.exitCode);
  });
}

/** When the Job finished: its pods' last container finish. */
export function finishedAt(history: readonly (readonly Attempt[])[]): number | undefined {
  const times = history.flat().flatMap((a) => (a.finishedAt !== undefined ? [a.finishedAt] : []));
  return times.length > 0 ? Math.max(...times) : undefined;
}
