// A workload's rollout, carried out: ask rollout.ts for the next step, do it (the run-once loop brings each pod
// up and waits until it is ready; removals are `runpod down`'s), and ask again until nothing is left to do. The
// engine work is passed in, so the order of steps can be driven by a test's stand-in as well as by the engine.
import type { PodOutcome } from '../wait/runOnce.js';
import { Deadline } from '../wait/deadline.js';
import type { WorkloadPlan } from '../workloads/expand.js';
import { type ExistingPod, type Step, recreateStep, rollingStep, statefulOrder } from '../workloads/rollout.js';

export interface WorkloadRunDeps {
  /** The workload's pods on the engine now (by its owner label), each with whether its template is outdated. */
  existing(): Promise<ExistingPod[]>;
  /** Bring these pods up to the template and wait until each is ready (in parallel); their outcomes, in order. */
  sync(names: string[], deadline: Deadline): Promise<PodOutcome[]>;
  /** Take these pods down, as `runpod down` does. */
  remove(names: string[]): Promise<void>;
  /** Wait this long (minReadySeconds); false when interrupted. */
  sleep(ms: number): Promise<boolean>;
  now(): number;
  info(message: string): void;
}

export interface WorkloadOutcome {
  plan: WorkloadPlan;
  status: 'succeeded' | 'failed' | 'timeout' | 'engine' | 'interrupted';
  reason: string;
  /** Each pod's last outcome in this run. */
  outcomes: Map<string, PodOutcome>;
  removed: string[];
  /** Outdated pods left as they are (OnDelete, or below a StatefulSet's partition). */
  leftAlone: string[];
  /** A suspended Job: nothing was run (the run succeeds, with a warning saying so). */
  suspended?: boolean;
  /** A Job that finished in an earlier run: its verdict stands, nothing was run (--replace runs it anew). */
  finishedBefore?: boolean;
}

export async function runWorkload(plan: WorkloadPlan, deps: WorkloadRunDeps): Promise<WorkloadOutcome> {
  const outcomes = new Map<string, PodOutcome>();
  const removed: string[] = [];
  const ready = new Set<string>();
  const result = (status: WorkloadOutcome['status'], reason: string, leftAlone: string[] = []): WorkloadOutcome => ({ plan, status, reason, outcomes, removed, leftAlone });

  /** Bring pods up; with minReadySeconds, they must still be ready that long after (available, as rollout status counts). */
  const bringUp = async (names: string[], why: string): Promise<WorkloadOutcome | undefined> => {
    if (names.length === 0) return undefined;
    deps.info(`${plan.ref}: ${names.join(', ')}: ${why}`);
    // A Deployment step that makes no progress within progressDeadlineSeconds fails the rollout.
    const stepDeadline = Deadline.after(deps.now(), plan.progressDeadlineSeconds !== undefined ? plan.progressDeadlineSeconds * 1000 : undefined, `${plan.ref}'s deadline`);
    for (let pass = 0; pass < (plan.minReadySeconds > 0 ? 2 : 1); pass++) {
      if (pass === 1 && !(await deps.sleep(plan.minReadySeconds * 1000))) return result('interrupted', 'interrupted');
      const got = await deps.sync(names, stepDeadline);
      got.forEach((o, i) => outcomes.set(names[i]!, o));
      const bad = got.find((o) => o.status !== 'succeeded');
      if (bad) {
        if (bad.status === 'timeout' && stepDeadline.passed(deps.now())) {
          // Not --timeout: the Deployment's own deadline, a failure of the rollout (kubectl rollout status exits 1).
          const reason = `${plan.ref} exceeded its progress deadline (${plan.progressDeadlineSeconds}s, ProgressDeadlineExceeded) before ${bad.plan.key} was ready`;
          outcomes.set(bad.plan.name, { ...bad, status: 'failed', reason });
          return result('failed', reason);
        }
        return result(bad.status, `${plan.ref}: pod ${bad.plan.key}: ${bad.reason}`);
      }
    }
    for (const n of names) ready.add(n);
    return undefined;
  };
  const takeDown = async (names: string[], why: string): Promise<void> => {
    if (names.length === 0) return;
    deps.info(`${plan.ref}: removing ${names.join(', ')}: ${why}`);
    await deps.remove(names);
    removed.push(...names);
  };
  try {
    return await rollOutSteps();
  } catch (err) {
    // An engine that fails a removal ends this workload's rollout; the run's other pods still report.
    return result('engine', `${plan.ref}: ${err instanceof Error ? err.message : String(err)}`);
  }

  async function rollOutSteps(): Promise<WorkloadOutcome> {
    if (plan.kind === 'StatefulSet') return statefulSteps(plan, await deps.existing(), bringUp, takeDown, result);

    const desired = plan.pods.map((p) => p.name);
    const existing = await deps.existing();
    if (plan.update.type === 'OnDelete') {
      // A DaemonSet under OnDelete: an older pod stays until it is deleted; only then does the new one come.
      const older = existing.filter((e) => !desired.includes(e.name)).map((e) => e.name);
      if (older.length > 0) return result('succeeded', `${plan.ref}: OnDelete: ${older.join(', ')} keep the older template until deleted`, older);
      const failed = await bringUp(desired, 'OnDelete: no pod yet');
      return failed ?? result('succeeded', readyReason(plan, []));
    }
    if (plan.update.type === 'InPlace') {
      const failed = await bringUp(desired, `${plan.replicas} replicas`);
      if (failed) return failed;
      await takeDown(
        existing.filter((e) => !desired.includes(e.name)).map((e) => e.name),
        `beyond ${plan.replicas} replicas`,
      );
      return result('succeeded', readyReason(plan, []));
    }
    let old = existing.filter((e) => !desired.includes(e.name)).map((e) => e.name);
    const present = new Set(existing.filter((e) => desired.includes(e.name)).map((e) => e.name));
    const outdated = new Set(existing.filter((e) => e.outdated && desired.includes(e.name)).map((e) => e.name));
    // Pods that exist and are up to date still get one pass of the loop: it waits for them to be ready.
    for (let guard = 0; guard < 4 * (desired.length + old.length) + 4; guard++) {
      const state = { desired, old, ready, present, outdated };
      const step: Step =
        plan.update.type === 'Recreate'
          ? recreateStep(state)
          : plan.update.type === 'RollingUpdate'
            ? rollingStep(plan.replicas, plan.update.maxSurge, plan.update.maxUnavailable, state)
            : { done: true, leftAlone: [] };
      if ('done' in step) return result('succeeded', readyReason(plan, step.leftAlone), step.leftAlone);
      if ('sync' in step) {
        const failed = await bringUp(step.sync, step.reason);
        if (failed) return failed;
      } else {
        await takeDown(step.remove, step.reason);
        old = old.filter((n) => !step.remove.includes(n));
      }
    }
    return result('failed', `${plan.ref}: the rollout made no progress (a step repeated); this is a bug in runpod`);
  }
}

/** A StatefulSet's steps (pkg/controller/statefulset): up in ordinal order (or together), updates highest first. */
async function statefulSteps(
  plan: WorkloadPlan,
  existing: ExistingPod[],
  bringUp: (names: string[], why: string) => Promise<WorkloadOutcome | undefined>,
  takeDown: (names: string[], why: string) => Promise<void>,
  result: (status: WorkloadOutcome['status'], reason: string, leftAlone?: string[]) => WorkloadOutcome,
): Promise<WorkloadOutcome> {
  const order = statefulOrder(plan, existing);
  const ordered = plan.podManagement === 'OrderedReady';
  // On the way up, OrderedReady starts pod N+1 once pod N is ready; Parallel starts them together.
  if (ordered) {
    for (const n of order.bringUp) {
      const failed = await bringUp([n], 'OrderedReady: in ordinal order');
      if (failed) return failed;
    }
  } else {
    const failed = await bringUp(order.bringUp, 'Parallel');
    if (failed) return failed;
  }
  for (const n of order.update) {
    const failed = await bringUp([n], 'RollingUpdate: one at a time, highest ordinal first');
    if (failed) return failed;
  }
  if (ordered) for (const n of order.remove) await takeDown([n], `beyond ${plan.replicas} replicas, highest ordinal first`);
  else await takeDown(order.remove, `beyond ${plan.replicas} replicas`);
  return result('succeeded', readyReason(plan, order.leftAlone), order.leftAlone);
}

function readyReason(plan: WorkloadPlan, leftAlone: string[]): string {
  const n = plan.replicas;
  return `${plan.ref}: ${n} of ${n} replica${n === 1 ? '' : 's'} updated and available${leftAlone.length > 0 ? `; ${leftAlone.join(', ')} left on the older template` : ''}`;
}
