// The claims' engine volumes, seen from the engine: which there are (only volumes carrying runpod's claim labels:
// nothing else is ever listed or removed), which containers still use one, and their removal. A claim is used by a
// volume mount of it, and by a subPath mount, which runpod makes as a bind of a directory inside the volume (Docker
// before 26 has no volume subpath): the engine lists that as a bind and does not count it as a use, so it would
// remove the volume under a running pod. Both are looked for here.
import type { ContainerReader } from '../engine/ports/containers.js';
import type { VolumePort } from '../engine/ports/volumes.js';
import { Label, managedByValue, managedSelector, podSelector } from '../kube/labels.js';
import { VolumeLabel } from '../plan/volumes.js';
import type { PodRef } from './pods.js';
import { helperLabel } from './volumes.js';

/** The labels every claim volume runpod makes carries (plan/volumes.ts claimVolume). */
export const claimVolumeSelector = [managedSelector, `${VolumeLabel.type}=persistentVolumeClaim`];

export interface ClaimVolume {
  /** The engine volume: pvc_<namespace>[.<key>]_<claim>. */
  name: string;
  namespace: string;
  /** The claim's name (a StatefulSet's: <template>-<set>-<ordinal>). */
  claim: string;
  /** The isolation key it was made under, if any. */
  project?: string;
  /** Its directory on the engine host: a subPath mount binds a directory below it. */
  mountpoint: string;
  /** Milliseconds since the epoch, when the engine says. */
  createdAt?: number;
}

/** A container's mount, as the engine reports it (GET /containers/{id}/json: Mounts). */
export interface MountSeen {
  Type?: string;
  Name?: string;
  Source?: string;
}

/** Does this mount use the volume: a volume mount of it by name, or a bind of its directory or one below it? */
export function mountUses(m: MountSeen, v: Pick<ClaimVolume, 'name' | 'mountpoint'>): boolean {
  if (m.Type === 'volume') return m.Name === v.name;
  if (m.Type !== 'bind' || m.Source === undefined || v.mountpoint === '') return false;
  const root = v.mountpoint.replace(/\/+$/, '');
  return m.Source === root || m.Source.startsWith(`${root}/`);
}

/** Is this a claim volume runpod made (its labels say so)? Nothing else is ever removed as a claim. */
export function isClaimVolume(labels: Readonly<Record<string, string>>): boolean {
  return labels[Label.managedBy] === managedByValue && labels[VolumeLabel.type] === 'persistentVolumeClaim' && labels[VolumeLabel.claim] !== undefined;
}

/** Every claim volume the engine (under its key) holds, with its directory. */
export async function listClaimVolumes(engine: VolumePort): Promise<ClaimVolume[]> {
  const list = (await engine.listVolumes(claimVolumeSelector)).filter((v) => isClaimVolume(v.labels));
  const out = await Promise.all(
    list.map(async (v): Promise<ClaimVolume | undefined> => {
      const info = await engine.inspectVolume(v.name);
      if (info === undefined) return undefined; // removed meanwhile
      const created = v.createdAt !== undefined ? Date.parse(v.createdAt) : NaN;
      const project = v.labels[Label.project];
      return {
        name: v.name,
        namespace: v.labels[Label.podNamespace] ?? '',
        claim: v.labels[VolumeLabel.claim] ?? '',
        ...(project !== undefined ? { project } : {}),
        mountpoint: info.mountpoint,
        ...(Number.isNaN(created) ? {} : { createdAt: created }),
      };
    }),
  );
  return out.filter((v): v is ClaimVolume => v !== undefined).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Who uses each volume: the pods (namespace/name) whose containers, in any state, mount it, and the volume helpers a
 * run is filling or preparing it with (a subPath made before its container). Only runpod's containers are looked at;
 * a volume mount by any other container still makes the engine refuse the removal.
 */
export async function claimUsers(engine: ContainerReader, volumes: readonly ClaimVolume[]): Promise<Map<string, string[]>> {
  const users = new Map<string, Set<string>>();
  if (volumes.length === 0) return new Map();
  const containers = await engine.listContainers([managedSelector]);
  const inspected = await Promise.all(containers.map((c) => engine.inspectContainer(c.id)));
  inspected.forEach((info, i) => {
    if (info === undefined) return;
    const labels = containers[i]!.labels;
    const pod = labels[Label.podName] !== undefined ? `${labels[Label.podNamespace] ?? ''}/${labels[Label.podName]}` : (labels[`${helperLabel}.pod`] ?? containers[i]!.name);
    for (const m of (info.Mounts ?? []) as MountSeen[]) {
      for (const v of volumes) {
        if (!mountUses(m, v)) continue;
        const set = users.get(v.name) ?? new Set<string>();
        set.add(pod);
        users.set(v.name, set);
      }
    }
  });
  return new Map([...users].map(([k, set]) => [k, [...set].sort()]));
}

export interface ClaimRemoval {
  volume: string;
  removed: boolean;
  /** Why it stays: the pods that still use it, or the engine's answer. */
  error?: string;
}

/**
 * Remove these claim volumes, each only when no container uses it any more (looked at now, after the pods that
 * used it went): one still used stays, with the pods that use it.
 */
export async function removeClaimVolumes(engine: ContainerReader & VolumePort, volumes: readonly ClaimVolume[]): Promise<ClaimRemoval[]> {
  const users = await claimUsers(engine, volumes);
  return Promise.all(
    volumes.map(async (v): Promise<ClaimRemoval> => {
      const by = users.get(v.name);
      if (by !== undefined) return { volume: v.name, removed: false, error: `still mounted by ${by.length === 1 ? 'pod' : 'pods'} ${by.join(', ')}` };
      try {
        await engine.removeVolume(v.name);
        return { volume: v.name, removed: true };
      } catch (err) {
        // A container runpod does not manage mounts it: the engine says so, and it stays.
        return { volume: v.name, removed: false, error: err instanceof Error ? err.message : String(err) };
      }
    }),
  );
}

/** A StatefulSet's claims by its templates, every ordinal (scale-downs keep theirs): <template>-<set>-<ordinal>. */
export function ofStatefulSet(claim: string, set: string, templates: readonly string[]): boolean {
  return templates.some((t) => claim.startsWith(`${t}-${set}-`) && /^\d+$/.test(claim.slice(`${t}-${set}-`.length)));
}

/** A claim volume `gc --claims` may remove, and why. */
export interface UnusedClaim {
  volume: ClaimVolume;
  reason: string;
}

/**
 * gc --claims (pure): the claim volumes no pod uses any more (users: claimUsers), created at least minAgeMs ago, in
 * no key and namespace where runpod made a container within minAgeMs (busy: `<key>/<namespace>`, '' for no key): a
 * run there may be setting up the pod that mounts it. A volume whose age the engine does not say stays.
 */
export function unusedClaims(
  volumes: readonly ClaimVolume[],
  users: ReadonlyMap<string, readonly string[]>,
  busy: ReadonlySet<string>,
  now: number,
  minAgeMs: number,
): UnusedClaim[] {
  return volumes.flatMap((v) => {
    if (users.has(v.name) || v.createdAt === undefined || now - v.createdAt < minAgeMs) return [];
    if (busy.has(`${v.project ?? ''}/${v.namespace}`)) return [];
    return [{ volume: v, reason: `no pod${v.project !== undefined ? ` of isolation key ${v.project}` : ''} uses claim ${v.namespace}/${v.claim} any more` }];
  });
}

/** What a `down`'s manifests and names say of claims: the workloads taken down, and the claims named. */
export interface ClaimTargets {
  /** Workloads (kind/name); a StatefulSet's claim templates, and whether its claims go with it (whenDeleted: Delete). */
  owners: ReadonlyArray<{ namespace: string; ref: string; claimTemplates?: string[]; claimsGoWithOwner?: boolean }>;
  /** Claims the manifests name (PersistentVolumeClaims, and the pods' and templates' claim volumes). */
  claims: readonly PodRef[];
}

/**
 * The claim volumes `down` removes, read before the pods go: with --delete-claims, those the pods' containers mount
 * (a subPath's bind included), those the manifests name (PersistentVolumeClaims, pods' and templates' claim volumes,
 * a StatefulSet's claims of every ordinal), and under --all every claim of the key; without it, only the claims of
 * a StatefulSet taken down whose retention policy says whenDeleted: Delete. Only volumes with runpod's claim labels.
 */
export async function claimsToRemove(
  engine: ContainerReader & VolumePort,
  refs: readonly PodRef[],
  targets: ClaimTargets | undefined,
  o: { deleteClaims: boolean; all: boolean },
): Promise<ClaimVolume[]> {
  const owners = targets?.owners ?? [];
  const goWithOwner = new Set(owners.map((w) => `${w.namespace}/${w.ref}`));
  // Without --delete-claims and no workload named, no claim can go: nothing to list.
  if (!o.deleteClaims && owners.length === 0) return [];
  const volumes = await listClaimVolumes(engine);
  if (volumes.length === 0) return [];
  if (o.deleteClaims && o.all) return volumes;
  const wanted = new Set<string>();
  // Mounted by the pods taken down: all of them with --delete-claims; else those a StatefulSet with whenDeleted:
  // Delete made (their containers carry the policy).
  for (const r of refs) {
    for (const c of await engine.listContainers(podSelector(r.namespace, r.name))) {
      if (!o.deleteClaims && !(c.labels[Label.claimsWithOwner] === 'delete' && goWithOwner.has(`${c.labels[Label.podNamespace]}/${c.labels[Label.owner]}`))) continue;
      const mounts = ((await engine.inspectContainer(c.id))?.Mounts ?? []) as MountSeen[];
      for (const v of volumes) if (mounts.some((m) => mountUses(m, v))) wanted.add(v.name);
    }
  }
  // Named by the manifests, whether or not a pod of them is still there.
  const named = o.deleteClaims ? new Set((targets?.claims ?? []).map((c) => `${c.namespace}/${c.name}`)) : new Set<string>();
  for (const v of volumes) {
    if (named.has(`${v.namespace}/${v.claim}`)) wanted.add(v.name);
    for (const w of owners) {
      if (w.namespace !== v.namespace || w.claimTemplates === undefined || !w.ref.startsWith('statefulset/')) continue;
      if ((o.deleteClaims || w.claimsGoWithOwner === true) && ofStatefulSet(v.claim, w.ref.slice('statefulset/'.length), w.claimTemplates)) wanted.add(v.name);
    }
  }
  return volumes.filter((v) => wanted.has(v.name));
}
