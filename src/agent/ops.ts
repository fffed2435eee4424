// What the node agent asks of the pod operations the commands share (`runpod down`'s removal, the finding of pods
// by runpod's labels, --prune's): declared here, passed in by `runpod run` (commands/run.ts), so a run removes and
// finds pods exactly as those commands do without this floor importing theirs.
import type { Engine } from '../engine/engine.js';
import type { PodSummary } from '../reconcile/podSummary.js';
import type { PodPlan } from '../plan/types.js';
import type { PrunedPod } from '../report/result.js';

export interface PodRef {
  namespace: string;
  name: string;
}

/** A workload's pod as its containers' list entries tell: its ordinal, when it was last made, whether it runs. */
export interface OwnedPod {
  name: string;
  ordinal?: number;
  /** Its newest container's creation (seconds since the epoch). */
  created: number;
  /** An app or init container of it is running. */
  running: boolean;
}

/** --prune's scope: pods from the run's own sources, or every runpod pod. */
export type PruneScope = 'source' | 'all';

export interface PodOps {
  /** Take a pod down as `runpod down` does: preStop hooks, its grace period, its own volumes. */
  removePod(engine: Engine, ref: PodRef): Promise<{ removed: number; seconds: number }>;
  /** A workload's pods on the engine, by its owner label. */
  ownedPods(engine: Engine, namespace: string, ref: string): Promise<OwnedPod[]>;
  /** The named pods as the engine has them (missing ones left out). */
  findPods(engine: Engine, refs: PodRef[]): Promise<PodSummary[]>;
  /** A Job's attempt that says how it stands: one running, else the newest. */
  currentAttempt(attempts: readonly OwnedPod[]): OwnedPod | undefined;
  /** --prune: the runpod pods this run does not name, in its scope. */
  findPrunable(engine: Engine, plans: PodPlan[], scope: PruneScope): Promise<PrunedPod[]>;
  prunePods(engine: Engine, pods: PrunedPod[], onRemoved?: (p: PrunedPod) => void): Promise<PrunedPod[]>;
}
