// What a workload's rollout (runWorkload.ts) or a Job's run (runJob.ts) asks of the engine, for `runpod run`: its pods found by their
// owner label, each one brought up by the run-once loop, removed as `runpod down` removes a pod.
import type { Engine } from '../engine/ports/engine.js';
import type { ContainerLifecycle, ContainerReader } from '../engine/ports/containers.js';
import { claimVolumeName } from '../plan/volumes.js';
import { observePod } from '../reconcile/observe.js';
import type { Reporter } from '../report/reporter.js';
import type { PodOutcome } from '../wait/runOnce.js';
import { Waker, eitherSignal } from '../wait/waker.js';
import { type JobTerms, jobPodName, type WorkloadPlan } from '../workloads/expand.js';
import { type Attempt, finishedEarlier, type JobDeps, openJob, type RestartWatch, runJob } from './runJob.js';
import { tallyHistory } from '../workloads/jobTally.js';
import { Label, infraContainerName, podSelector } from '../kube/labels.js';
import type { PodSummary } from '../reconcile/podSummary.js';
import type { LoadedPod } from '../manifest/types.js';
import { claimName } from '../workloads/names.js';
import { templateOutdated } from '../reconcile/outdated.js';
import type { ExistingPod } from '../workloads/rollout.js';
import { runWorkload, type WorkloadOutcome, type WorkloadRunDeps } from './runWorkload.js';
import { removePod } from '../reconcile/removePod.js';
import { findPods, ownedPods } from '../reconcile/pods.js';
import type { Deadline } from '../wait/deadline.js';
import type { PodPlan } from '../plan/types.js';

export interface WorkloadContext {
  engine: Engine;
  /** Every pod plan of the run, by namespace/name. */
  plans: ReadonlyMap<string, PodPlan>;
  /** Every loaded pod of the run, by namespace/name (a Job's next attempt is made from its slot's first). */
  loaded: ReadonlyMap<string, LoadedPod>;
  /** The plan of a pod made during the run (translatePod with the run's options). */
  translate(loaded: LoadedPod): PodPlan;
  /**
   * Bring one pod up and wait for it (to ready; a Job's, to completion), within the step's deadline too. watch: a Job
   * under OnFailure bounds its pods' restarts (the loop spends no retries on them and stops when it says so).
   */
  runPod(plan: PodPlan, workloadDeadline: Deadline | undefined, watch?: RestartWatch, stop?: AbortSignal): Promise<PodOutcome>;
  project: string | undefined;
  /** --replace: a Job's pods are taken down first and it runs anew (a finished Job runs again). */
  replace?: boolean;
  /** Pods of the namespace were taken down (a rollout's old ones): the Services there are brought up to date. */
  onRemoved?(namespace: string): void;
  signal: AbortSignal;
  now(): number;
  reporter: Reporter;
}

/** A workload's rollout, or a Job's run to completion; under --wait none a Job's first pods are only started. */
export function rollOut(w: WorkloadPlan, startOnly: boolean, c: WorkloadContext): Promise<WorkloadOutcome> {
  if (!w.job) return runWorkload(w, workloadDeps(w, c));
  return startOnly ? startJob({ ...w, job: w.job }, c) : runJob({ ...w, job: w.job }, jobDeps({ ...w, job: w.job }, c), { replace: c.replace === true });
}

/** --wait none: the Job's first `parallelism` pods are started (each slot's first attempt), and nothing is awaited. */
async function startJob(w: WorkloadPlan & { job: JobTerms }, c: WorkloadContext): Promise<WorkloadOutcome> {
  if (w.job.suspended)
    return {
      plan: w,
      status: 'succeeded',
      suspended: true,
      reason: `${w.ref}: suspended (spec.suspend: true): no pods are created`,
      outcomes: new Map(),
      removed: [],
      leftAlone: [],
    };
  const first = w.pods.slice(0, Math.min(w.job.parallelism, w.job.completions));
  const outcomes = await Promise.all(first.map((p) => c.runPod(c.plans.get(`${w.namespace}/${p.name}`)!, undefined)));
  const bad = outcomes.find((o) => o.status !== 'succeeded');
  return {
    plan: w,
    status: bad ? bad.status : 'succeeded',
    reason: bad ? `${w.ref}: pod ${bad.plan.key}: ${bad.reason}` : `${w.ref}: started ${first.length} pod${first.length === 1 ? '' : 's'} (--wait none: not awaited; no retries)`,
    outcomes: new Map(outcomes.map((o) => [o.plan.name, o])),
    removed: [],
    leftAlone: [],
  };
}

/**
 * What earlier runs left of a Job, read from the engine and changing nothing: each slot's attempts (0, 1, … until one
 * is absent), with their phase, exit codes and restarts. What runJob starts from, and what --dry-run decides with.
 */
export async function jobHistory(engine: ContainerReader, w: WorkloadPlan & { job: JobTerms }): Promise<Attempt[][]> {
  const owned = await ownedPods(engine, w.namespace, w.ref);
  const known = new Map(
    (
      await findPods(
        engine,
        owned.map((p) => ({ namespace: w.namespace, name: p.name })),
      )
    ).map((p) => [p.name, p]),
  );
  return [...Array(w.job.completions).keys()].map((slot) => {
    const list: Attempt[] = [];
    for (let a = 0; known.has(jobPodName(w.name, w.job, slot, a)); a++) list.push(attemptOf(known.get(jobPodName(w.name, w.job, slot, a))!));
    return list;
  });
}

function jobDeps(w: WorkloadPlan & { job: JobTerms }, c: WorkloadContext): JobDeps {
  const name = (slot: number, attempt: number): string => jobPodName(w.name, w.job, slot, attempt);
  // Asked once: every slot's attempts together.
  let history: Promise<Attempt[][]> | undefined;
  return {
    attempts: async (slot) => (await (history ??= jobHistory(c.engine, w)))[slot] ?? [],
    run: (slot, attempt, deadline, watch, stop) => {
      const first = c.loaded.get(`${w.namespace}/${name(slot, 0)}`)!;
      const plan = attempt === 0 ? c.plans.get(`${w.namespace}/${name(slot, 0)}`)! : c.translate(renamed(first, name(slot, attempt)));
      return c.runPod(plan, deadline, watch, stop);
    },
    halt: (names) => haltAll(c.engine, w.namespace, names),
    podName: name,
    remove: (names) => removeAll(c, w.namespace, names),
    sleep: async (ms, stop) => {
      if (!stop) return sleepFor(ms, c.signal);
      const linked = eitherSignal(c.signal, stop);
      return sleepFor(ms, linked.signal).finally(linked.release);
    },
    now: c.now,
    info: (m) => c.reporter.info(m),
  };
}

/**
 * An attempt as an earlier run left it: its phase, the exit codes its app containers' newest instances left (the
 * engine keeps them, so a re-run judges them by podFailurePolicy again), their restarts and when they finished.
 */
function attemptOf(p: PodSummary): Attempt {
  const exits = p.containers.flatMap((c) => (c.current.state === 'exited' || c.current.state === 'dead' ? [{ container: c.name, exitCode: c.current.exitCode }] : []));
  const times = p.containers.flatMap((c) => (c.current.finishedAt !== undefined && c.current.state !== 'running' ? [c.current.finishedAt] : []));
  return {
    state: p.phase === 'Succeeded' ? 'succeeded' : p.phase === 'Failed' ? 'failed' : 'active',
    exits,
    restarts: p.restarts,
    ...(times.length > 0 ? { finishedAt: Math.max(...times) } : {}),
  };
}

/**
 * Stop these pods' containers for good, keeping them: the engine's restart policy first set to no (so it does not
 * start them again), then a stop within the pod's grace period. The infra container stays, as for a finished pod.
 */
async function haltAll(engine: ContainerLifecycle & ContainerReader, namespace: string, names: readonly string[]): Promise<void> {
  await Promise.all(
    names.map(async (name) => {
      const containers = (await engine.listContainers(podSelector(namespace, name))).filter((x) => x.labels[Label.containerName] !== infraContainerName);
      await Promise.all(
        containers.map(async (x) => {
          await engine.updateRestartPolicy(x.id, 'no');
          if (x.state === 'running' || x.state === 'restarting') await engine.stopContainer(x.id, Number(x.labels[Label.gracePeriod] ?? 30) || 0);
        }),
      );
    }),
  );
}

/** Take these pods of a namespace down, as `runpod down` does, together; then they are no Service's endpoints. */
async function removeAll(c: WorkloadContext, namespace: string, names: readonly string[]): Promise<void> {
  await Promise.all(names.map((name) => removePod(c.engine, { namespace, name })));
  c.onRemoved?.(namespace);
}

/** The same pod under another name (a Job's next attempt at a slot). */
function renamed(loaded: LoadedPod, name: string): LoadedPod {
  return { ...loaded, pod: { ...loaded.pod, metadata: { ...loaded.pod.metadata, name } } };
}

async function sleepFor(ms: number, signal: AbortSignal): Promise<boolean> {
  await new Waker().sleep(ms, signal);
  return !signal.aborted;
}

export function workloadDeps(w: WorkloadPlan, c: WorkloadContext): WorkloadRunDeps {
  const planOf = (name: string): PodPlan | undefined => c.plans.get(`${w.namespace}/${name}`);
  return {
    existing: async (): Promise<ExistingPod[]> =>
      Promise.all(
        (await ownedPods(c.engine, w.namespace, w.ref)).map(async (p) => {
          const plan = planOf(p.name);
          return { ...p, outdated: plan ? templateOutdated(plan, await observePod(c.engine, w.namespace, p.name)) : false };
        }),
      ),
    sync: (names, stepDeadline) => Promise.all(names.map((n) => c.runPod(planOf(n)!, stepDeadline))),
    remove: async (names) => {
      await removeAll(c, w.namespace, names);
      // persistentVolumeClaimRetentionPolicy.whenScaled: Delete: a removed ordinal's claims go with it.
      if (w.claims?.deleteWhenScaled) {
        const ordinals = names.map((n) => Number(/-(\d+)$/.exec(n)?.[1])).filter((n) => Number.isInteger(n));
        await Promise.all(ordinals.flatMap((o) => w.claims!.templates.map((t) => c.engine.removeVolume(claimVolumeName(w.namespace, claimName(t, w.name, o), c.project)))));
      }
    },
    sleep: (ms) => sleepFor(ms, c.signal),
    now: c.now,
    info: (m) => c.reporter.info(m),
  };
}

/** What a run would do for one pod of a Job's first attempts, as --dry-run shows it. */
export type JobPodPreview =
  /** The Job runs nothing for it (finished before, suspended): no action. */
  | { kind: 'none'; why: string }
  /** It is taken down first (--replace, ttlSecondsAfterFinished), then made anew: decided against nothing. */
  | { kind: 'fresh' }
  /** Run as it stands: decided against what the engine has (an attempt 0 not made yet, or active). */
  | { kind: 'decide' }
  /** Its slot is past attempt 0: a new pod of that name runs next (or the active one is awaited). */
  | { kind: 'attempt'; name: string; attempt: number; active: boolean };

export interface JobPreview {
  /** What the run would do with the Job as a whole, for a line of its own (undefined: it simply runs). */
  line?: string;
  /** Pods taken down first. */
  remove: string[];
  /** By the name of each slot's first attempt (the plans the input holds). */
  pods: Map<string, JobPodPreview>;
}

/**
 * --dry-run: how a run would open a Job (openJob, on what earlier runs left), changing nothing, and so which of its
 * pods would run and how.
 */
export async function previewJob(engine: ContainerReader, w: WorkloadPlan & { job: JobTerms }, now: number, replace: boolean): Promise<JobPreview> {
  const name = (slot: number, attempt: number): string => jobPodName(w.name, w.job, slot, attempt);
  const history = await jobHistory(engine, w);
  const opening = openJob(w, history, name, now, replace);
  const first = (slot: number): string => name(slot, 0);
  const slots = [...Array(w.job.completions).keys()];
  const all = (p: JobPodPreview): Map<string, JobPodPreview> => new Map(slots.map((s) => [first(s), p]));
  if (opening.suspended && !opening.anew) {
    const r = opening.suspended.remove;
    return {
      line: `${w.ref}: suspended (spec.suspend: true): would create no pods${r.length > 0 ? `, and remove its active pods ${r.join(', ')}` : ''}`,
      remove: r,
      pods: all({ kind: 'none', why: 'suspended' }),
    };
  }
  if (opening.finished) {
    const v = opening.finished;
    return { line: finishedEarlier(v, true), remove: [], pods: all({ kind: 'none', why: `${w.ref} ${v.status === 'succeeded' ? 'completed' : 'failed'} in an earlier run` }) };
  }
  if (opening.anew) {
    const line = `${w.ref}: ${opening.anew.why} (${opening.anew.pods.join(', ')}), then would run it anew${opening.suspended ? ' (suspended: no pods are created)' : ''}`;
    return { line, remove: opening.anew.pods, pods: all(opening.suspended ? { kind: 'none', why: 'suspended' } : { kind: 'fresh' }) };
  }
  // It runs: each slot not done yet goes on from its last attempt (an active one is awaited, a failed one followed
  // by the next); a slot done already runs nothing.
  const tally = tallyHistory(w.job, w.ref, history, name);
  const pods = new Map<string, JobPodPreview>();
  for (const slot of slots) {
    const attempts = history[slot]!;
    const active = attempts.at(-1)?.state === 'active';
    const next = active ? attempts.length - 1 : attempts.length;
    if (!tally.open(slot)) pods.set(first(slot), { kind: 'none', why: tally.done.has(slot) ? 'its slot has completed' : 'its index has failed' });
    else if (next === 0) pods.set(first(slot), { kind: 'decide' });
    else pods.set(first(slot), { kind: 'attempt', name: name(slot, next), attempt: next, active });
  }
  return { remove: [], pods };
}
