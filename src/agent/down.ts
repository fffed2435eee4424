// What `runpod down` removes and how: the pods named (by manifests, names, kind/name), selected (-l) or all of the
// key's (--all), each within its grace period (reconcile/removePod.ts); the claims that go with them (asked for, or
// a StatefulSet's whenDeleted: Delete); then the Services named, the others' endpoints and the networks left empty.
// The command reads its options and reports; this is the taking down, as the kubelet and controllers delete.
import { unique } from '../manifest/podNames.js';
import type { ContainerReader } from '../engine/ports/containers.js';
import type { Engine } from '../engine/ports/engine.js';
import type { Selector } from '../kube/selector.js';
import { type ClaimRemoval, type ClaimTargets, claimsToRemove, removeClaimVolumes } from '../reconcile/claims.js';
import { ensureInfraImage } from '../reconcile/infraImage.js';
import { findPods, ownedPods, type PodRef } from '../reconcile/pods.js';
import { managedPodRefs, type PodDown, removePodContainers } from '../reconcile/removePod.js';
import { type ClusterTeardown, tearDownCluster } from '../services/cluster.js';
import { networkNamespaces } from '../services/network.js';
import { managedServiceRefs } from '../services/serviceContainers.js';

/** The pods the targets name, the workloads whose pods they are, and the Services and claims they name. */
export interface DownTargets extends ClaimTargets {
  refs: PodRef[];
  /**
   * Workloads by namespace and kind/name (deployment/web): their pods are found on the engine (ownedPods). A
   * StatefulSet's claim templates, and whether its claims go with it (whenDeleted: Delete), when a manifest says.
   */
  owners: { namespace: string; ref: string; desired?: number; suspended?: boolean; claimTemplates?: string[]; claimsGoWithOwner?: boolean }[];
  /** Services the manifests hold: their containers go too. */
  services: PodRef[];
  /** Claims the manifests name (PersistentVolumeClaims, and the pods' and templates' claim volumes). */
  claims: PodRef[];
}

/** What to take down: exactly one of all, selector or targets says which pods. */
export interface DownRequest {
  all: boolean;
  selector?: Selector;
  targets?: DownTargets;
  /** Overrides each pod's terminationGracePeriodSeconds. */
  graceSeconds?: number;
  /** --delete-claims: also the claims the removed pods mounted and the manifests name. */
  deleteClaims: boolean;
  project: string | undefined;
  /** The engine's architecture: the infra image the Services' endpoints are written with is this one's. */
  arch: string;
  /** Told of the claims once they were tried, before the Services go (a claim that stays is said even if they fail). */
  claimsTried?: (claims: readonly ClaimRemoval[]) => void;
}

/** What went: each pod (removed 0: it did not exist), each claim volume tried, the Services and networks. */
export interface DownDone {
  pods: PodDown[];
  claims: ClaimRemoval[];
  cluster: ClusterTeardown;
}

export async function takeDown(engine: Engine, r: DownRequest): Promise<DownDone> {
  // The infra image (what the Services' endpoints are written with) asked now, beside the pods' look-ups and stops.
  const infraImage = ensureInfraImage(engine, r.arch);
  infraImage.catch(() => undefined);
  const named = r.targets ? await targetPods(engine, r.targets) : [];
  const refs = r.all
    ? await managedPodRefs(engine)
    : r.selector
      ? (await findPods(engine, undefined, r.selector ? { selector: r.selector } : {})).map((p) => ({ namespace: p.namespace, name: p.name }))
      : named;
  // Claims outlive their pods, as on a cluster; only asked for (--delete-claims), the pods' and the manifests' claims
  // go too, after the pods. A StatefulSet taken down (by manifest or kind/name) whose retention policy says
  // whenDeleted: Delete takes its claims along. Which they are is read before the pods go (their mounts).
  const claimVolumes = await claimsToRemove(engine, refs, r.targets, { deleteClaims: r.deleteClaims, all: r.all });
  const removing = await Promise.all(refs.map((ref) => removePodContainers(engine, ref, r.graceSeconds, Date.now, { removeKills: true })));
  // The pods' containers are gone. Their helpers and own volumes go beside what follows: no Service and no network
  // holds them (a helper is never started, so it is on no network, and carries no pod label) (issue 28). Claims are
  // the exception: a helper may mount one, so they wait for the pods to be gone entirely, as before.
  const podsGone = Promise.all(removing.map((x) => x.rest));
  podsGone.catch(() => undefined);
  const claims = claimVolumes.length > 0 ? await podsGone.then(() => removeClaimVolumes(engine, claimVolumes)) : [];
  r.claimsTried?.(claims);
  // Then the Services named (all of them with --all), the others' endpoints, and the networks left empty; the two
  // lists --all reads are asked at once.
  const [services, networked] = await Promise.all([r.all ? managedServiceRefs(engine) : (r.targets?.services ?? []), r.all ? networkNamespaces(engine) : []]);
  const namespaces = new Set([...refs.map((x) => x.namespace), ...services.map((v) => v.namespace), ...networked]);
  const tornDown: Promise<ClusterTeardown> =
    namespaces.size > 0
      ? infraImage.then((image) => tearDownCluster(engine, { namespaces, services, project: r.project, image }))
      : Promise.resolve({ services: [], networks: [] });
  const [pods, cluster] = await Promise.all([podsGone, tornDown]);
  return { pods, claims, cluster };
}

/** The named pods, and those of the named workloads as they are on the engine now. */
export async function targetPods(engine: ContainerReader, targets: Pick<DownTargets, 'refs' | 'owners'>): Promise<PodRef[]> {
  const owned = await Promise.all(targets.owners.map(async (w) => (await ownedPods(engine, w.namespace, w.ref)).map((p) => ({ namespace: w.namespace, name: p.name }))));
  return uniqueRefs([...targets.refs, ...owned.flat()]);
}

/** A pod given both by name and in a manifest is acted on once. */
export function uniqueRefs(refs: readonly PodRef[]): PodRef[] {
  return unique(refs);
}
