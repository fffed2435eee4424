// A wait mode is a strategy object (one per file, as testcontainers' wait strategies): what `--wait X` asks of a
// settled, running container, and how the run-once loop treats a pod that has not got there yet.

import type { RestartPolicy } from '../../kube/restart.js';
import type { ContainerPlan } from '../../plan/types.js';

export type WaitMode = 'running' | 'ready' | 'completed' | 'none';

export interface WaitStrategy {
  readonly mode: WaitMode;
  /** What the pod is when the wait holds, for "every container is …" and "not … after N retries". */
  readonly goal: string;
  /** Probes run from the host while waiting (liveness kills, readiness for --wait ready). */
  readonly runsProbes: boolean;
  /** Readiness decides (Kubernetes' ContainerStatus.ready), not only liveness and startup. */
  readonly needsReadiness: boolean;
  /** The loop ends after its first sync without watching the result (--wait none). */
  readonly endsAfterSync: boolean;
  /** The reason a pod that has reached the wait ends with ("every container is ready"). */
  readonly reached: string;
  /**
   * What a pass with no sync action left ends with: the reached reason when the check holds; under --wait none the
   * pass ends the wait whatever the check says; undefined: look again.
   */
  settled(checkHolds: boolean): string | undefined;
  /**
   * The wait holds only once every container has terminated (--wait completed): a pod that passes it has finished,
   * so it is no Service's endpoint, and a container that must end before runpod does (--exit-code-from) will have.
   */
  readonly runsToCompletion: boolean;
  /** The verdict for a container that runs, has settled, and that no probe fails. */
  running(p: ContainerPlan): { ok: boolean; reason: string };
  /**
   * A check in which nothing is wrong but the wait does not hold yet spends no retry: a job that runs normally
   * under --wait completed is bounded by --timeout only (design.md).
   */
  readonly patient: boolean;
  /**
   * Why this wait can never hold for a pod of that restartPolicy whose app containers restart as given (each one's
   * own restartPolicy, else the pod's: kube/restart.ts), refused before the engine is touched, if so.
   */
  impossibleFor(pod: RestartPolicy, containers: ReadonlyMap<string, RestartPolicy>): string | undefined;
}
