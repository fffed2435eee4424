// Which wait each pod gets, and when a pod it waits for is a Service's endpoint. A bare pod waits as --wait says; a
// workload's pods wait by its kind, whatever --wait says beyond none: a Deployment's, StatefulSet's and DaemonSet's
// until ready (as `kubectl rollout status`: every replica updated and available), a Job's until each has completed.
import { UsageError } from '../errors.js';
import { containerRestart, type RestartPolicy } from '../kube/restart.js';
import type { LoadedPod } from '../manifest/types.js';
import type { PodPlan } from '../plan/types.js';
import type { WorkloadPlan } from '../workloads/expand.js';
import type { PodCheck } from '../wait/podCheck.js';
import { type WaitStrategy, waitCompleted, waitReady } from '../wait/strategies/index.js';

export class PodWaits {
  private readonly jobs: Set<string>;

  constructor(
    /** The run's --wait. */
    readonly run: WaitStrategy,
    workloads: readonly WorkloadPlan[],
  ) {
    this.jobs = new Set(workloads.filter((w) => w.job).map((w) => `${w.namespace}/${w.ref}`));
  }

  /** --wait none: a workload's first pods are started and nothing is awaited (a Job's, no retries either). */
  get startOnly(): boolean {
    return this.run.endsAfterSync;
  }

  /** The wait of one pod of the run. */
  of(plan: PodPlan): WaitStrategy {
    if (plan.owner === undefined || this.run.endsAfterSync) return this.run;
    return this.jobs.has(`${plan.namespace}/${plan.owner}`) ? waitCompleted : waitReady;
  }
}

/**
 * While runpod watches a pod, it is an endpoint of its Services only when ready (endpointsController.ts): its check
 * holds and nothing failed; a pod that holds by having completed serves nothing. A pod not watched (--wait none) is
 * left to the Services' own refresh.
 */
export const endpoint = {
  watched: (wait: WaitStrategy): boolean => !wait.endsAfterSync,
  ready: (wait: WaitStrategy, check: PodCheck): boolean => check.ok && !check.failed && !wait.runsToCompletion,
};

/**
 * A wait that can never hold for a pod (--wait completed under restartPolicy Always): refused before touching the
 * engine (design.md). Only bare pods: a workload's pods wait by its kind (a Deployment's for its rollout).
 */
export function refuseImpossibleWaits(pods: readonly LoadedPod[], wait: WaitStrategy): void {
  const refused = pods
    .filter((p) => p.owner === undefined)
    .flatMap((p) => {
      const pod = (p.pod.spec.restartPolicy ?? 'Always') as RestartPolicy;
      const why = wait.impossibleFor(pod, new Map(p.pod.spec.containers.map((c) => [c.name, containerRestart(c, pod).policy])));
      return why === undefined ? [] : [{ pod: `${p.pod.metadata.namespace}/${p.pod.metadata.name}`, why }];
    });
  if (refused.length > 0) {
    throw new UsageError(`--wait ${wait.mode} cannot be met by ${refused.map((r) => r.pod).join(', ')}: ${refused[0]!.why}`);
  }
}
