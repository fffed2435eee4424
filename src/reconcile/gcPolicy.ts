// Pure: which of runpod's dead containers and volumes `runpod gc` removes, after the kubelet's container
// garbage collection (kuberuntime_gc.go): dead containers older than MinAge are grouped into evict units by
// pod uid and container name; a unit of a pod that no longer exists goes whole; otherwise each unit keeps its
// newest MaxPerPodContainer; then, while more than MaxContainers remain, each unit is cut to an equal share
// (at least one), and then the oldest go first. Sandboxes (infra containers) that are no longer active and
// volumes of pods that no longer exist go too. A running container is never a candidate.

export interface GcContainer {
  id: string;
  dockerName: string;
  namespace: string;
  pod: string;
  podUid: string;
  /** The container's name in the pod; "POD" for infra. */
  container: string;
  infra: boolean;
  attempt: number;
  /** created | running | paused | restarting | removing | exited | dead */
  state: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
}

export interface GcVolume {
  name: string;
  podUid?: string;
  namespace?: string;
  pod?: string;
  /** Milliseconds since the epoch, when the engine says. */
  createdAt?: number;
}

export interface GcPolicy {
  /** A dead container younger than this (by creation, as the kubelet) is left alone. */
  minAgeMs: number;
  /** Dead instances kept per evict unit (pod uid + container name); -1: no limit. */
  maxPerContainer: number;
  /** Dead containers kept in all; -1: no limit. */
  maxContainers: number;
}

export interface GcRemoval<T> {
  item: T;
  reason: string;
}

export interface GcPlan {
  containers: GcRemoval<GcContainer>[];
  volumes: GcRemoval<GcVolume>[];
}

/** Dead: the engine will not run it again by itself. created is left alone too: a runpod may be starting it. */
const deadStates = new Set(['exited', 'dead']);

/** Within one unit the attempt number orders instances (creation time breaks ties). */
const newestFirst = (a: GcContainer, b: GcContainer): number => b.attempt - a.attempt || b.createdAt - a.createdAt;
/** Across units only creation time compares, as the kubelet sorts them. */
const newestCreatedFirst = (a: GcContainer, b: GcContainer): number => b.createdAt - a.createdAt;

export function planGc(containers: GcContainer[], volumes: GcVolume[], policy: GcPolicy, now: number): GcPlan {
  const removals: GcRemoval<GcContainer>[] = [];
  const removed = new Set<string>();
  const remove = (c: GcContainer, reason: string): void => {
    if (removed.has(c.id)) return;
    removed.add(c.id);
    removals.push({ item: c, reason });
  };
  const oldEnough = (createdAt: number | undefined): boolean => createdAt === undefined || now - createdAt >= policy.minAgeMs;
  const where = (c: GcContainer): string => `pod ${c.namespace}/${c.pod}`;

  // A pod exists while it has a sandbox the engine keeps: an infra container that is not dead.
  const livePods = new Set(containers.filter((c) => c.infra && !deadStates.has(c.state)).map((c) => c.podUid));

  // 1. Evict units of dead app containers old enough to collect.
  const units = new Map<string, GcContainer[]>();
  for (const c of containers) {
    if (c.infra || !deadStates.has(c.state) || !oldEnough(c.createdAt)) continue;
    const key = `${c.podUid}\u0000${c.container}`;
    units.set(key, [...(units.get(key) ?? []), c]);
  }
  for (const list of units.values()) list.sort(newestFirst);

  // 2. Units of pods that no longer exist go whole.
  for (const [key, list] of units) {
    if (livePods.has(list[0]!.podUid)) continue;
    for (const c of [...list].reverse()) remove(c, `${where(c)} no longer exists (no live infra container)`);
    units.delete(key);
  }

  // 3. Each unit keeps its newest maxPerContainer; the oldest go first.
  if (policy.maxPerContainer >= 0) {
    for (const list of units.values()) {
      for (const c of list.slice(policy.maxPerContainer).reverse()) {
        remove(c, `more than ${policy.maxPerContainer} dead instance${policy.maxPerContainer === 1 ? '' : 's'} of container ${c.container} in ${where(c)}; the newest are kept`);
      }
      list.splice(Math.max(0, policy.maxPerContainer));
    }
  }

  // 4. More than maxContainers in all: an equal share per unit (at least one), then the oldest overall.
  if (policy.maxContainers >= 0) {
    const remaining = (): GcContainer[] => [...units.values()].flat();
    if (remaining().length > policy.maxContainers) {
      const nonEmpty = [...units.values()].filter((l) => l.length > 0);
      const share = Math.max(1, Math.floor(policy.maxContainers / Math.max(1, nonEmpty.length)));
      for (const list of nonEmpty) {
        for (const c of list.slice(share).reverse()) remove(c, `more than ${policy.maxContainers} dead containers in all; each container keeps its newest ${share}`);
        list.splice(share);
      }
      const all = remaining().sort(newestCreatedFirst);
      for (const c of all.slice(policy.maxContainers).reverse()) remove(c, `more than ${policy.maxContainers} dead containers in all; the oldest go first`);
    }
  }

  // 5. Sandboxes no longer active: every dead infra container of a pod that no longer exists, once nothing of
  // that pod is left beside it; and, of a live pod, dead infra instances older than its live one.
  const leftOf = (uid: string): GcContainer[] => containers.filter((c) => c.podUid === uid && !c.infra && !removed.has(c.id));
  for (const c of containers
    .filter((x) => x.infra && deadStates.has(x.state) && oldEnough(x.createdAt))
    .sort(newestCreatedFirst)
    .reverse()) {
    if (livePods.has(c.podUid)) remove(c, `an older infra container of ${where(c)}, which has a live one`);
    else if (leftOf(c.podUid).length === 0) remove(c, `${where(c)} no longer exists (its infra container is ${c.state})`);
  }

  // 6. Volumes of pods that no longer exist, once no container of the pod is left to use them.
  const volumeRemovals: GcRemoval<GcVolume>[] = [];
  for (const v of volumes) {
    if (!v.podUid || livePods.has(v.podUid) || !oldEnough(v.createdAt)) continue;
    if (containers.some((c) => c.podUid === v.podUid && !removed.has(c.id))) continue;
    volumeRemovals.push({ item: v, reason: `pod ${v.namespace ?? '?'}/${v.pod ?? '?'} (uid ${v.podUid}) no longer exists` });
  }
  return { containers: removals, volumes: volumeRemovals };
}
