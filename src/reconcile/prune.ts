// --prune / --prune-all: a directory (or file) of manifests is the desired state, as the kubelet's manifest
// directory was (its SyncPods killed every pod no manifest claimed). After a run, every other runpod pod
// started from the same source is taken down with `down`'s own removal, so whatever that learns to remove
// (volumes) a prune removes too.
import type { ContainerLifecycle, ContainerReader, ContainerSummary } from '../engine/ports/containers.js';
import type { ExecPort } from '../engine/ports/streams.js';
import type { VolumePort } from '../engine/ports/volumes.js';
import { Label, infraContainerName, managedSelector } from '../kube/labels.js';
import type { PodPlan } from '../plan/types.js';
import { removePod } from './removePod.js';

/** A pod a prune takes down (or, under --dry-run, would). */
export interface PrunedPod {
  namespace: string;
  name: string;
  /** The io.runpod.source its infra container records; absent for a pod from stdin. */
  source?: string;
  /** Containers removed; absent under --dry-run. */
  removedContainers?: number;
}

/** source: pods whose infra container records one of this run's sources; all: every runpod pod. */
export type PruneScope = 'source' | 'all';

/**
 * Pure: the pods to take down, from the engine's runpod containers. A pod is its namespace/name; `keep`
 * holds this run's pods. A pod is attributed to a source by its infra container's io.runpod.source label
 * (any attempt); one with no infra container left, or from stdin, has none and goes only under "all". keepOwners:
 * the namespace/kind/name of this run's workloads, whose pods are theirs to keep or remove.
 */
export function selectPrunable(
  containers: ContainerSummary[],
  keep: ReadonlySet<string>,
  scope: PruneScope,
  sources: ReadonlySet<string>,
  keepOwners: ReadonlySet<string> = new Set(),
): PrunedPod[] {
  const pods = new Map<string, { namespace: string; name: string; sources: Set<string> }>();
  for (const c of containers) {
    const namespace = c.labels[Label.podNamespace];
    const name = c.labels[Label.podName];
    if (c.labels[Label.managedBy] === undefined || namespace === undefined || name === undefined) continue;
    const key = `${namespace}/${name}`;
    // A workload of this run owns its pods, those it left on an older template too: its controller decides.
    const owner = c.labels[Label.owner];
    if (keep.has(key) || (owner !== undefined && keepOwners.has(`${namespace}/${owner}`))) continue;
    let pod = pods.get(key);
    if (!pod) pods.set(key, (pod = { namespace, name, sources: new Set() }));
    const source = c.labels[Label.source];
    if (c.labels[Label.containerName] === infraContainerName && source !== undefined) pod.sources.add(source);
  }
  const out: PrunedPod[] = [];
  for (const [, p] of [...pods].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const matched = [...p.sources].find((s) => sources.has(s));
    if (scope === 'source' && matched === undefined) continue;
    const source = matched ?? [...p.sources][0];
    out.push({ namespace: p.namespace, name: p.name, ...(source !== undefined ? { source } : {}) });
  }
  return out;
}

/** This run's pods and sources; stdin pods have no source, so a run from stdin alone prunes nothing by source. */
export async function findPrunable(engine: ContainerReader, plans: PodPlan[], scope: PruneScope): Promise<PrunedPod[]> {
  const sources = new Set(plans.flatMap((p) => (p.source !== undefined ? [p.source] : [])));
  if (scope === 'source' && sources.size === 0) return [];
  const containers = await engine.listContainers([managedSelector]);
  const owners = new Set(plans.flatMap((p) => (p.owner !== undefined ? [`${p.namespace}/${p.owner}`] : [])));
  return selectPrunable(containers, new Set(plans.map((p) => p.key)), scope, sources, owners);
}

/** Take the pods down (preStop, grace period, remove), in parallel, as `runpod down` does. */
export async function prunePods(engine: ContainerLifecycle & ContainerReader & ExecPort & VolumePort, pods: PrunedPod[], onRemoved?: (p: PrunedPod) => void): Promise<PrunedPod[]> {
  return Promise.all(
    pods.map(async (p) => {
      const removedContainers = (await removePod(engine, { namespace: p.namespace, name: p.name })).removed;
      const done = { ...p, removedContainers };
      onRemoved?.(done);
      return done;
    }),
  );
}
