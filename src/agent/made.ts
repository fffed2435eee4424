// What a run has made on the engine, once it may have: what its takedown (takedown.ts) removes after a
// scoped run or a failure, and what the down line names.
import type { Engine } from '../engine/ports/engine.js';
import type { PodRef } from '../reconcile/pods.js';

/** What a run made, as its takedown needs it. */
export interface RunMade {
  engine: Engine;
  /** The isolation key the run's objects carry, if any. */
  project: string | undefined;
  /** ` --host <address>` when the run was given --host: a down line must reach the same engine. */
  hostWords?: string;
  /** The key is the run's own (made up for it): everything under it is the run's, found by listing the key. */
  ownKey: boolean;
  /** The run's pods (its bare pods and its workloads' pods as planned). */
  pods: readonly PodRef[];
  /** The run's Services. */
  services: ReadonlyArray<{ namespace: string; name: string }>;
  /** The engine volumes of the run's claims (its PersistentVolumeClaims and the claims its pods mount). */
  claimVolumes: readonly string[];
  /** Keep the claims (--keep-claims): the pods and Services go, the claims stay for the next run under the key. */
  keepClaims: boolean;
  /** The image Service rules are loaded with (services/forwarding.ts). */
  serviceImage: string;
  /** The manifests, shell-quoted, for the down line; undefined when one was stdin (the line names the pods then). */
  manifestWords: string | undefined;
}

/** The exact line that removes what the run made, when runpod could not (or was stopped before it could). */
export function downLine(m: Pick<RunMade, 'project' | 'hostWords' | 'ownKey' | 'pods' | 'keepClaims' | 'claimVolumes' | 'manifestWords'>): string {
  const key = `${m.hostWords ?? ''}${m.project !== undefined ? ` --project ${m.project}` : ''}`;
  const claims = !m.keepClaims && m.claimVolumes.length > 0 ? ' --delete-claims' : '';
  // Under the run's own key everything there is the run's; else the manifests name it (pods, workloads, Services,
  // claims), and without them (stdin) the pods by name.
  if (m.ownKey && m.project !== undefined) return `runpod down${key}${m.keepClaims ? '' : ' --delete-claims'} --all`;
  if (m.manifestWords !== undefined) return `runpod down${key}${claims} ${m.manifestWords}`;
  return `runpod down${key}${claims} ${m.pods.map((p) => `${p.namespace}/${p.name}`).join(' ')}`;
}
