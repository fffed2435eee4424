// What a workload's rollout (workloads/runWorkload.ts) asks of the engine, for `runpod run`: its pods found by their
// owner label, each one brought up by the run-once loop, removed as `runpod down` removes a pod.
import type { Engine } from '../engine/engine.js';
import type { PodPlan } from '../plan/translate.js';
import { claimVolumeName } from '../plan/volumes.js';
import { observePod } from '../reconcile/observe.js';
import type { Reporter } from '../report/reporter.js';
import type { PodOutcome } from '../wait/runOnce.js';
import { Waker } from '../wait/waker.js';
import type { WorkloadPlan } from '../workloads/expand.js';
import { claimName } from '../workloads/names.js';
import { templateOutdated } from '../workloads/outdated.js';
import type { ExistingPod } from '../workloads/rollout.js';
import type { WorkloadRunDeps } from '../workloads/runWorkload.js';
import { removePod } from './down.js';
import { ownedPods } from './pods.js';

export interface WorkloadContext {
  engine: Engine;
  /** Every pod plan of the run, by namespace/name. */
  plans: ReadonlyMap<string, PodPlan>;
  /** Bring one pod up and wait for it, within the step's deadline too (run.ts's run of a bare pod). */
  runPod(plan: PodPlan, stepDeadline: number | undefined): Promise<PodOutcome>;
  project: string | undefined;
  signal: AbortSignal;
  now(): number;
  reporter: Reporter;
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
      await Promise.all(names.map((name) => removePod(c.engine, { namespace: w.namespace, name })));
      // persistentVolumeClaimRetentionPolicy.whenScaled: Delete: a removed ordinal's claims go with it.
      if (w.claims?.deleteWhenScaled) {
        const ordinals = names.map((n) => Number(/-(\d+)$/.exec(n)?.[1])).filter((n) => Number.isInteger(n));
        await Promise.all(ordinals.flatMap((o) => w.claims!.templates.map((t) => c.engine.removeVolume(claimVolumeName(w.namespace, claimName(t, w.name, o), c.project)))));
      }
    },
    sleep: async (ms) => {
      await new Waker().sleep(ms, c.signal);
      return !c.signal.aborted;
    },
    now: c.now,
    info: (m) => c.reporter.info(m),
  };
}
