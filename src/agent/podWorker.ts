// One pod's worker, as the kubelet's pod worker: admission's verdict first, --replace's takedown once, then the
// run-once loop under the pod's wait and the run's deadline merged with its workload's, the pod reported as an
// endpoint of its Services while it is ready, and its line said when its loop ends (not with the others at the end:
// a pod ready at 4 s says so at 4 s, and the heartbeat names only what still is).
import type { Engine } from '../engine/ports/engine.js';
import type { PodPlan } from '../plan/types.js';
import { actionHeadline } from '../reconcile/action.js';
import type { ImagePuller } from '../reconcile/images.js';
import type { Reporter } from '../report/reporter.js';
import { podResult } from '../report/result.js';
import type { EndpointsController } from '../services/endpointsController.js';
import type { Backoff } from '../wait/backoff.js';
import type { Deadline } from '../wait/deadline.js';
import { type PodOutcome, runPod } from '../wait/runOnce.js';
import { eitherSignal } from '../wait/waker.js';
import { removePod } from '../reconcile/removePod.js';
import type { RunOptions } from './options.js';
import { endpoint, type PodWaits } from './waits.js';

export interface PodWorkerContext {
  engine: Engine;
  images: ImagePuller;
  waits: PodWaits;
  /** The run's own bound (--timeout). */
  deadline: Deadline;
  /** The run's retry budget; each pod spends a fork of it. */
  budget: Backoff;
  endpoints: EndpointsController;
  /** Pods admission refused, by namespace/name, with why. */
  refused: ReadonlyMap<string, string>;
  options: Pick<RunOptions, 'replace' | 'settleMs' | 'crashLoopLimit'>;
  reporter: Reporter;
  signal: AbortSignal;
  now: () => number;
  /** When the process started: a pod's time counts from there, as the user's wall clock does (issue 28). */
  processStartedAt?: number;
}

/** `stop`: the pod's own end, besides the run's signal (a Job that failed stops its other active pods' loops). */
export type PodWorker = (plan: PodPlan, workloadDeadline?: Deadline, restartsBounded?: (restarts: number) => string | undefined, stop?: AbortSignal) => Promise<PodOutcome>;

export function podWorker(c: PodWorkerContext): PodWorker {
  // --replace takes each pod down once: a rollout brings a pod up more than once (minReadySeconds checks again).
  const replaced = new Set<string>();
  const wait = async (
    plan: PodPlan,
    workloadDeadline: Deadline | undefined,
    restartsBounded?: (restarts: number) => string | undefined,
    stop?: AbortSignal,
  ): Promise<PodOutcome> => {
    c.reporter.podStarted(plan.key);
    const refusal = c.refused.get(plan.key);
    if (refusal !== undefined) return refusedOutcome(plan, refusal, c.now());
    if (c.options.replace && !replaced.has(plan.key)) {
      replaced.add(plan.key);
      await replacePod(c, plan);
    }
    const mode = c.waits.of(plan);
    if (endpoint.watched(mode)) c.endpoints.watch(plan.uid);
    const linked = stop ? eitherSignal(c.signal, stop) : undefined;
    try {
      return await runPod(plan, {
        engine: c.engine,
        images: c.images,
        mode: mode.mode,
        backoff: c.budget.fork(),
        settleMs: c.options.settleMs,
        ...(c.options.crashLoopLimit !== undefined ? { crashLoopLimit: c.options.crashLoopLimit } : {}),
        // A workload's own deadline (a Job's activeDeadlineSeconds, a Deployment's progressDeadlineSeconds) holds when
        // it comes before --timeout, and the pod's reason names it.
        deadline: workloadDeadline ? c.deadline.within(workloadDeadline) : c.deadline,
        signal: linked?.signal ?? c.signal,
        now: c.now,
        onAction: (p, a) => c.reporter.podAction(p.key, a),
        onCheck: (p, check) => {
          c.reporter.podCheck(p.key, check);
          c.endpoints.noteReady(p.uid, p.namespace, endpoint.ready(mode, check), check.containers.map((v) => v.instance?.id ?? '').join(','));
        },
        onWarning: (p, message) => c.reporter.warn(`${p.key}: ${message}`),
        onResult: (p, r) => c.reporter.verbose(`${p.key}: ${actionHeadline(r.action)}: ${r.ok ? (r.outcome ?? 'done') : `failed: ${r.error ?? 'no answer'}`}`),
        ...(restartsBounded ? { restartsBounded } : {}),
      });
    } finally {
      linked?.release();
    }
  };
  return async (plan, workloadDeadline, restartsBounded, stop) => {
    const waited = await wait(plan, workloadDeadline, restartsBounded, stop);
    const started = c.processStartedAt;
    const outcome = started !== undefined && started < waited.startedAt ? { ...waited, startedAt: started } : waited;
    c.reporter.podFinished(podResult(outcome, new Map(), new Map()));
    return outcome;
  };
}

/** A pod admission refused: failed at once, nothing created (the kubelet's pod phase Failed, reason OutOfcpu …). */
function refusedOutcome(plan: PodPlan, reason: string, now: number): PodOutcome {
  return {
    plan,
    status: 'failed',
    reason,
    admission: reason,
    actions: [],
    results: [],
    warnings: [],
    lastExitCodes: new Map(),
    checks: 0,
    retriesUsed: 0,
    startedAt: now,
    endedAt: now,
  };
}

/** --replace: the pod as it is goes (its preStop hooks and grace period, as `runpod down`), so the run makes it anew. */
async function replacePod(c: PodWorkerContext, plan: PodPlan): Promise<void> {
  const down = await removePod(c.engine, { namespace: plan.namespace, name: plan.name });
  if (down.removed > 0) c.reporter.info(`${plan.key}: --replace: taken down (${down.removed} container${down.removed === 1 ? '' : 's'}, ${down.seconds}s), running it afresh`);
}
