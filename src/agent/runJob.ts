// A Job, as the Job controller runs it (pkg/controller/job): up to `parallelism` pods at once until `completions`
// pods have succeeded (each index once, when Indexed); a failed pod is replaced by a new one after a back-off
// (10 s, doubling, at most 6 min) until the Job fails (jobTally.ts: BackoffLimitExceeded, PodFailurePolicy,
// MaxFailedIndexes, FailedIndexes) or has been active `activeDeadlineSeconds` (DeadlineExceeded). Under
// restartPolicy OnFailure a failed container restarts in place and each restart counts. A suspended Job makes no
// pods. The engine work is passed in.
import type { PodOutcome } from '../wait/runOnce.js';
import { Deadline } from '../wait/deadline.js';
import type { JobTerms, WorkloadPlan } from '../workloads/expand.js';
import { type Attempt, type ContainerExit, failureAction, finishedAt, jobBackoffMs, type JobTally, tallyHistory, type Verdict } from '../workloads/jobTally.js';
import type { WorkloadOutcome } from './runWorkload.js';

export { type Attempt, type AttemptState, failureAction, jobBackoffMs } from '../workloads/jobTally.js';

/**
 * Under OnFailure: told a running pod's container restarts each time the run looks at it; answers why the pod must
 * stop now (the Job has failed on its restarts), or undefined to go on.
 */
export type RestartWatch = (restarts: number) => string | undefined;

export interface JobDeps {
  /** Each attempt of a slot found on the engine (attempts 0, 1, … until one is absent). */
  attempts(slot: number): Promise<Attempt[]>;
  /** Make attempt `attempt` of a slot (or adopt it) and wait until it has succeeded or failed. */
  run(slot: number, attempt: number, deadline: Deadline, watch?: RestartWatch, stop?: AbortSignal): Promise<PodOutcome>;
  /** The names of a slot's attempts, for removal. */
  podName(slot: number, attempt: number): string;
  remove(names: string[]): Promise<void>;
  /** Stop these pods' containers for good but keep them (for runpod logs): a pod under OnFailure the Job gave up on. */
  halt(names: string[]): Promise<void>;
  /** Sleep; false when the run's signal (or `stop`) ended it early. */
  sleep(ms: number, stop?: AbortSignal): Promise<boolean>;
  now(): number;
  info(message: string): void;
}

/** The exit codes a finished pod's containers (init and app, their newest instances) left. */
function exitsOf(outcome: PodOutcome): ContainerExit[] {
  const observed = outcome.observed;
  if (!observed) return [];
  return [...observed.initContainers, ...observed.containers].flatMap(([container, list]) => {
    const newest = list[0];
    return newest && (newest.state === 'exited' || newest.state === 'dead') ? [{ container, exitCode: newest.exitCode }] : [];
  });
}

/**
 * How a run opens a Job, from what earlier runs left (pure): a run and --dry-run decide it alike.
 * - anew: every pod of the Job goes first and it runs from nothing: --replace asks it (as `kubectl replace --force`
 *   deletes the Job and makes it again), or ttlSecondsAfterFinished has passed since it finished (on a cluster the TTL
 *   controller has deleted it; applying the manifest again makes it anew);
 * - suspended: no pod is made, and its active pods go (the controller deletes a suspended Job's active pods); a
 *   finished Job stays finished;
 * - finished: it finished in an earlier run; that verdict stands and nothing runs again.
 */
export interface JobOpening {
  /** why: what a user reads before the pods' names (runJob says it, and --dry-run). */
  anew?: { pods: string[]; why: string };
  suspended?: { remove: string[] };
  finished?: Verdict;
}

export function openJob(
  plan: WorkloadPlan & { job: JobTerms },
  history: readonly (readonly Attempt[])[],
  podName: (slot: number, attempt: number) => string,
  now: number,
  replace = false,
): JobOpening {
  const { job } = plan;
  const tally = tallyHistory(job, plan.ref, history, podName);
  const active = history.flatMap((attempts, slot) => (attempts.at(-1)?.state === 'active' ? [podName(slot, attempts.length - 1)] : []));
  const verdict = tally.verdict(plan.ref, active.length);
  const finishedBefore = verdict !== undefined && active.length === 0;
  const pods = everyAttempt(history, podName);
  const ended = finishedAt(history);
  // ttlSecondsAfterFinished 0 removes the pods as the Job finishes; ones still there (a run cut short) are past it.
  const ttl = job.removeWhenFinished ? 0 : job.ttlSecondsAfterFinished;
  let anew: JobOpening['anew'];
  if (replace && pods.length > 0) anew = { pods, why: '--replace: taking down its pods' };
  else if (finishedBefore && ttl !== undefined && ended !== undefined && now >= ended + ttl * 1000) {
    anew = { pods, why: `finished ${Math.round((now - ended) / 1000)}s ago, past ttlSecondsAfterFinished ${ttl}: removing its pods` };
  }
  if (anew) return { anew, ...(job.suspended ? { suspended: { remove: [] } } : {}) };
  if (finishedBefore) return { finished: verdict };
  if (job.suspended) return { suspended: { remove: active } };
  return {};
}

/** A Job that finished in an earlier run, as a line says it; with how to run it again. */
export function finishedEarlier(v: Verdict, howTo: boolean): string {
  return `${v.reason}, in an earlier run${howTo ? '; nothing runs again (--replace runs it anew)' : ''}`;
}

export async function runJob(plan: WorkloadPlan & { job: JobTerms }, deps: JobDeps, options: { replace?: boolean } = {}): Promise<WorkloadOutcome> {
  const { job } = plan;
  const outcomes = new Map<string, PodOutcome>();
  const removed: string[] = [];
  const slots = [...Array(job.completions).keys()];
  const result = (status: WorkloadOutcome['status'], reason: string, extra: Partial<WorkloadOutcome> = {}): WorkloadOutcome => ({
    plan,
    status,
    reason,
    outcomes,
    removed,
    leftAlone: [],
    ...extra,
  });

  const opened = await openRun(plan, deps, options, removed, result);
  if ('done' in opened) return opened.done;
  const { history, tally } = opened;

  const deadline = Deadline.after(deps.now(), job.activeDeadlineSeconds !== undefined ? job.activeDeadlineSeconds * 1000 : undefined, `${plan.ref}'s deadline`);
  const next = new Map(slots.map((s) => [s, Math.max(0, history[s]!.length - (history[s]!.at(-1)?.state === 'active' ? 1 : 0))]));
  let lastFailure: PodOutcome | undefined;
  const active = new Map<number, Promise<{ slot: number; outcome: PodOutcome }>>();
  /** Each running attempt's own stop: its pod's loop must end before the pod is removed, or it makes it again. */
  const stops = new Map<number, AbortController>();
  /** Slots whose pod was stopped because the Job failed on its restarts (OnFailure): kept, not removed. */
  const stoppedOnRestarts = new Set<number>();
  const stopActive = (why: string): Promise<void> => stopAttempts({ plan, deps, active, stops, next, removed }, why);
  // OnFailure: each look at a running pod updates its restarts; reaching the limit stops it (the Job has failed).
  // Never, with containers that restart in place by their own restartPolicy or restartPolicyRules: the controller
  // counts those restarts nowhere (pastBackoffLimitOnFailure is for the template's OnFailure only), so nothing bounds
  // them but activeDeadlineSeconds (and --timeout); the loop spends no retries on them either.
  const watch = (slot: number): RestartWatch | undefined => restartWatch(job, tally, slot, stoppedOnRestarts);
  const start = (slot: number): void => {
    const attempt = next.get(slot)!;
    const counted = tally.backoffFailures(slot);
    const delay = counted > 0 && attempt > 0 ? jobBackoffMs(counted) : 0;
    deps.info(
      `${plan.ref}: ${deps.podName(slot, attempt)}: ${attempt === 0 ? 'starting' : `retrying after ${counted} failure${counted === 1 ? '' : 's'}${delay > 0 ? `, in ${delay / 1000}s` : ''}`}${job.indexed ? ` (index ${slot})` : ''}`,
    );
    const stop = new AbortController();
    stops.set(slot, stop);
    active.set(
      slot,
      (async () => {
        try {
          if (delay > 0) await deps.sleep(deadline.cap(delay, deps.now()), stop.signal);
          return { slot, outcome: await deps.run(slot, attempt, deadline, watch(slot), stop.signal) };
        } finally {
          if (stops.get(slot) === stop) stops.delete(slot);
        }
      })(),
    );
  };
  const finish = (verdict: JobVerdict): Promise<WorkloadOutcome> => finishJob(verdict, { plan, deps, next, removed, stoppedOnRestarts, active, stopActive, lastFailure, result });

  for (;;) {
    const verdict = tally.verdict(plan.ref, active.size);
    if (verdict) return finish(verdict);
    if (deadline.passed(deps.now())) {
      await stopActive('activeDeadlineSeconds passed');
      return result('failed', `${plan.ref} failed: DeadlineExceeded (active longer than activeDeadlineSeconds ${job.activeDeadlineSeconds})`);
    }
    // Up to parallelism pods at once, no more than the indexes still open (the lowest first).
    const open = slots.filter((s) => tally.open(s));
    for (const slot of open) {
      if (active.size >= Math.min(job.parallelism, open.length)) break;
      if (!active.has(slot)) start(slot);
    }
    if (active.size === 0) return result('failed', `${plan.ref}: parallelism 0: the Job runs no pods`);
    const { slot, outcome } = await Promise.race(active.values());
    active.delete(slot);
    outcomes.set(outcome.plan.name, outcome);
    if (stoppedOnRestarts.has(slot)) {
      // Stopped because the Job failed on its restarts: the next turn says so.
      active.set(slot, new Promise(() => undefined));
      lastFailure = outcome;
      continue;
    }
    if (outcome.status === 'succeeded') {
      tally.done.add(slot);
      // A succeeded pod's restarts no longer count (the controller counts its Running and Pending pods').
      tally.restarts.delete(slot);
    } else if (outcome.status === 'failed') {
      podFailed(plan, deps, tally, slot, outcome);
      lastFailure = outcome;
      next.set(slot, next.get(slot)! + 1);
    } else if (outcome.status === 'timeout' && deadline.passed(deps.now())) {
      // The Job's own deadline cut the pod short: the next turn fails the Job with DeadlineExceeded.
    } else {
      // --timeout, a signal or a lost engine ends the Job's run as it ends a pod's.
      await stopActive(outcome.status === 'interrupted' ? 'interrupted' : 'the run ended');
      return result(outcome.status, `${plan.ref}: pod ${outcome.plan.key}: ${outcome.reason}`);
    }
  }
}

/**
 * Take a Job's active pods down, as the controller deletes them and their kubelet stops them: each attempt's loop
 * ends first (a sync under way finishes), or it would make a removed pod again; then the pods go.
 */
async function stopAttempts(
  j: {
    plan: WorkloadPlan;
    deps: JobDeps;
    active: ReadonlyMap<number, Promise<unknown>>;
    stops: ReadonlyMap<number, AbortController>;
    next: ReadonlyMap<number, number>;
    removed: string[];
  },
  why: string,
): Promise<void> {
  const names = [...j.active.keys()].map((s) => j.deps.podName(s, j.next.get(s)!));
  if (names.length === 0) return;
  j.deps.info(`${j.plan.ref}: removing ${names.join(', ')}: ${why}`);
  const running = [...j.active.entries()].filter(([s]) => j.stops.has(s));
  for (const [s] of running) j.stops.get(s)?.abort();
  await Promise.all(running.map(([, p]) => p.catch(() => undefined)));
  await j.deps.remove(names);
  j.removed.push(...names);
}

type JobVerdict = NonNullable<ReturnType<JobTally['verdict']>>;

/** What a Job's run holds when its verdict comes (runJob's state, read by finishJob). */
interface JobEnd {
  plan: WorkloadPlan & { job: JobTerms };
  deps: JobDeps;
  next: Map<number, number>;
  removed: string[];
  stoppedOnRestarts: Set<number>;
  active: Map<number, unknown>;
  stopActive: (why: string) => Promise<void>;
  lastFailure: PodOutcome | undefined;
  result: (status: WorkloadOutcome['status'], reason: string) => WorkloadOutcome;
}

/** The Job has its verdict: a failed Job's active pods go (those stopped on their restarts stay), then its ttl. */
async function finishJob(verdict: JobVerdict, e: JobEnd): Promise<WorkloadOutcome> {
  const { plan, deps, next, stoppedOnRestarts, lastFailure } = e;
  const { job } = plan;
  if (verdict.status === 'failed') {
    // A pod stopped on its restarts stays (stopped) for runpod logs; the other active pods go, as the controller
    // deletes a failed Job's active pods.
    const kept = [...stoppedOnRestarts].map((s) => deps.podName(s, next.get(s)!));
    for (const s of stoppedOnRestarts) e.active.delete(s);
    await e.stopActive(`the Job failed (${verdict.why})`);
    if (kept.length > 0) {
      await deps.halt(kept);
      deps.info(`${plan.ref}: stopped ${kept.join(', ')} (kept for runpod logs): the Job failed on its restarts`);
    }
  }
  if (job.removeWhenFinished) await removeAll(plan, deps, next, e.removed, 'ttlSecondsAfterFinished 0');
  else if (job.ttlSecondsAfterFinished !== undefined)
    deps.info(`${plan.ref}: its pods stay until ttlSecondsAfterFinished ${job.ttlSecondsAfterFinished} has passed; then runpod gc, or running it again, removes them`);
  const last =
    verdict.status !== 'failed' || !lastFailure
      ? ''
      : verdict.why === 'BackoffLimitExceeded' && stoppedOnRestarts.size === 0
        ? `; last: ${lastFailure.plan.key}: ${lastFailure.reason}`
        : verdict.why === 'PodFailurePolicy'
          ? `; ${lastFailure.reason}`
          : '';
  return e.result(verdict.status, `${verdict.reason}${last}`);
}

/**
 * What earlier runs left: a slot done, its failures judged again, a pod still active (adopted and awaited again);
 * taken down first when the Job runs anew. A suspended Job, or one that finished before, is done here.
 */
async function openRun(
  plan: WorkloadPlan & { job: JobTerms },
  deps: JobDeps,
  options: { replace?: boolean },
  removed: string[],
  result: (status: WorkloadOutcome['status'], reason: string, extra?: Partial<WorkloadOutcome>) => WorkloadOutcome,
): Promise<{ done: WorkloadOutcome } | { history: Attempt[][]; tally: JobTally }> {
  const { job } = plan;
  const slots = [...Array(job.completions).keys()];
  let history = await Promise.all(slots.map((s) => deps.attempts(s)));
  const opening = openJob(plan, history, deps.podName, deps.now(), options.replace);
  if (opening.anew) {
    deps.info(`${plan.ref}: ${opening.anew.why} (${opening.anew.pods.join(', ')}) and running it anew${options.replace ? '' : ', as a cluster would have deleted it'}`);
    await deps.remove(opening.anew.pods);
    removed.push(...opening.anew.pods);
    history = slots.map(() => []);
  }
  const tally = tallyHistory(job, plan.ref, history, deps.podName);

  if (opening.suspended) {
    const active = opening.suspended.remove;
    if (active.length > 0) {
      deps.info(`${plan.ref}: suspended: removing its active pods ${active.join(', ')}`);
      await deps.remove(active);
      removed.push(...active);
    }
    return {
      done: result(
        'succeeded',
        `${plan.ref}: suspended (spec.suspend: true): no pods are created (${tally.done.size} of ${job.completions} completed so far); run it again with suspend: false to start it`,
        { suspended: true },
      ),
    };
  }
  // Finished in an earlier run: nothing runs again. Said so, with how to run it again.
  if (opening.finished) {
    const v = opening.finished;
    // A failure's how-to is the run's detail line (verdict.ts runFailure); a success has none, so it is said here.
    return { done: result(v.status, finishedEarlier(v, v.status === 'succeeded'), { finishedBefore: true }) };
  }

  return { history, tally };
}

/** The RestartWatch of a slot's pod (see runJob), when the Job's restarts are counted or left unbounded. */
function restartWatch(job: JobTerms, tally: JobTally, slot: number, stoppedOnRestarts: Set<number>): RestartWatch | undefined {
  return job.restartsInPlace
    ? (restarts) => {
        if (!tally.noteRestarts(slot, restarts)) return undefined;
        stoppedOnRestarts.add(slot);
        const n = tally.failedOnRestarts!;
        return `the Job failed: its containers restarted ${n} time${n === 1 ? '' : 's'}, backoffLimit ${job.backoffLimit} (BackoffLimitExceeded)`;
      }
    : job.restartsUncounted
      ? () => undefined
      : undefined;
}

/** A pod of a slot failed: judged by podFailurePolicy, counted (or not) against the Job's limits. */
function podFailed(plan: WorkloadPlan & { job: JobTerms }, deps: JobDeps, tally: JobTally, slot: number, outcome: PodOutcome): void {
  const { job } = plan;
  tally.restarts.delete(slot);
  const judged = failureAction(job.failureRules, exitsOf(outcome));
  const why = judged.exit ? `container ${judged.exit.container} exited with ${judged.exit.exitCode}, podFailurePolicy rule ${judged.rule}: ${judged.action}` : '';
  tally.podFailed(slot, judged, `${outcome.plan.key}: ${why}`);
  if (judged.action === 'Ignore') deps.info(`${plan.ref}: ${outcome.plan.key} failed and is not counted (${why})`);
  else if (tally.failedIndexes.has(slot))
    deps.info(
      `${plan.ref}: index ${slot} failed (${judged.action === 'FailIndex' ? why : `${tally.indexFailures.get(slot)} failures, backoffLimitPerIndex ${job.backoffLimitPerIndex}`}); it is not retried`,
    );
}

/** Every attempt of every slot a history holds, by name. */
function everyAttempt(history: readonly (readonly Attempt[])[], podName: (slot: number, attempt: number) => string): string[] {
  return history.flatMap((attempts, slot) => attempts.map((_a, i) => podName(slot, i)));
}

/** ttlSecondsAfterFinished 0: every pod the Job made goes as soon as it has finished. */
async function removeAll(plan: WorkloadPlan & { job: JobTerms }, deps: JobDeps, next: Map<number, number>, removed: string[], why: string): Promise<void> {
  const names = [...next].flatMap(([slot, n]) => [...Array(n + 1).keys()].map((a) => deps.podName(slot, a)));
  deps.info(`${plan.ref}: removing its pods: ${why}`);
  await deps.remove(names);
  removed.push(...names);
}
