// What a check of one pod reads and what it concludes (check.ts decides, initCheck.ts judges init containers,
// the run loop and the reporter read the result). Types only.

import type { PodPlan } from '../plan/types.js';
import type { ObservedContainer, ObservedPod } from '../reconcile/observe.js';
import type { WaitMode } from './strategies/index.js';
import type { ContainerProbeStatus } from './probes/manager.js';

export interface ContainerVerdict {
  name: string;
  ok: boolean;
  /** It will not run again and did not succeed: the pod has failed, whatever the remaining budget. */
  terminal: boolean;
  /** Running normally (for --wait completed: such a wait uses no retries). */
  healthyRunning: boolean;
  reason: string;
  instance?: ObservedContainer;
}

export interface PodCheck {
  ok: boolean;
  failed: boolean;
  containers: ContainerVerdict[];
  /**
   * When every container that is up but not yet settled will be settled (ms since the epoch): the loop's next look.
   * The latest, not the first: the pod is not running before the last of them, and a look at each one's time would
   * cost an observation apiece (issue 28). A crash meanwhile is not missed: its die event wakes the loop at once,
   * and a later look sees the exit or the raised restart count.
   */
  settleAt?: number;
}

/** Restart counts seen at the previous check, by instance id. */
export type RestartCounts = Map<string, number>;

export interface CheckInput {
  plan: PodPlan;
  observed: ObservedPod;
  mode: WaitMode;
  previous: RestartCounts;
  /** Instances created by this run: their restart count starts from 0. */
  createdThisRun: ReadonlySet<string>;
  syncErrors: ReadonlyMap<string, string>;
  /** Last non-zero exit code per instance id, from die events and earlier observations. */
  lastExitCodes: ReadonlyMap<string, number>;
  now: number;
  settleMs: number;
  /** What each container's probes say now, by container name (absent: the pod has no probes). */
  probes?: ReadonlyMap<string, ContainerProbeStatus>;
  /** Instances runpod killed after a failed liveness or startup probe, with what the probe said. */
  probeKilled?: ReadonlyMap<string, string>;
}
