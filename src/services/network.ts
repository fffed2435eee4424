// The network of a namespace's pods (engine side): made when a run first needs it, shared by every run under the
// same key, removed when nothing of the namespace is left on it. Only networks carrying runpod's labels are ever
// used or removed; one of that name that is not runpod's stops the run.
import { setTimeout as delay } from 'node:timers/promises';
import type { Engine } from '../engine/ports/engine.js';
import type { ContainerLifecycle, ContainerReader } from '../engine/ports/containers.js';
import { EngineRequestError, NameConflictError } from '../engine/ports/errors.js';
import type { NetworkInfo, NetworkPort } from '../engine/ports/networks.js';
import { withOverrides } from '../engine/ports/overrides.js';
import { ServiceSetupError } from '../errors.js';
import { Label, managedByValue } from '../kube/labels.js';
import { inProject, projectLabels } from '../kube/project.js';
import { Role, ServiceLabel, namespaceNetwork, networkLabels } from '../kube/serviceNames.js';

function ours(n: NetworkInfo, namespace: string, project: string | undefined): boolean {
  return n.labels[Label.managedBy] === managedByValue && n.labels[ServiceLabel.networkNamespace] === namespace && inProject(n.labels, project);
}

/** How long a creation lock may stand unchanged before it counts as left by a runpod that was killed holding it. */
const lockStaleMs = 15_000;
const lockPollMs = 50;

export interface LockTiming {
  staleMs: number;
  pollMs: number;
}

/**
 * The namespace's network, made if missing. Docker does not make creating a network by name atomic (20.10 checks
 * for a duplicate, then creates: two runs at once make two, and the name is then ambiguous to every later call),
 * so the creation is serialized through what the engine does make atomic, a container's name: the run that
 * creates the never-started lock container runpod_netlock_<network> makes the network and removes the lock; the
 * others wait for the network (or for the lock to go, when its holder failed). lockImage is any image present
 * on the engine (a container cannot be created without one; it never runs).
 */
export async function ensureNetwork(
  engine: ContainerLifecycle & ContainerReader & NetworkPort,
  namespace: string,
  project: string | undefined,
  lockImage: string,
  timing: LockTiming = { staleMs: lockStaleMs, pollMs: lockPollMs },
  o: NetworkSetUp = {},
): Promise<NetworkInfo> {
  const name = namespaceNetwork(namespace, project);
  const existing = await (o.found ?? inspectByName(engine, name));
  if (existing !== undefined && existing !== 'ambiguous') return checked(existing, namespace, project);
  const lockName = `runpod_netlock_${name}`;
  let seen: { id: string; since: number } | undefined;
  // Whether another run held the lock since the look-up above (it may have made the network meanwhile).
  let waited = false;
  for (;;) {
    let lockId: string;
    try {
      lockId = await engine.createContainer(lockName, {
        Image: lockImage,
        Labels: { [ServiceLabel.role]: Role.networkLock, [ServiceLabel.networkName]: name, ...projectLabels(project) },
        HostConfig: { NetworkMode: 'none' },
      });
    } catch (err) {
      if (!(err instanceof NameConflictError)) throw err;
      waited = true;
      // Another run holds the lock: its network, once made (or once its duplicates are gone), is the one.
      const made = await inspectByName(engine, name);
      if (made !== undefined && made !== 'ambiguous') return checked(made, namespace, project);
      const lock = await engine.inspectContainer(lockName);
      if (lock === undefined) continue;
      if (lock.Config.Labels?.[ServiceLabel.role] !== Role.networkLock) {
        throw new ServiceSetupError(`a container named ${lockName} exists and is not runpod's lock for network ${name}; runpod never touches it: remove or rename it`);
      }
      const now = Date.now();
      if (seen?.id !== lock.Id) seen = { id: lock.Id, since: now };
      else if (now - seen.since >= timing.staleMs) {
        // Unchanged this long: its holder was killed between taking and releasing it. By id, so a lock taken
        // again since is left alone.
        await engine.removeContainer(lock.Id, { force: true }).catch(() => undefined);
        continue;
      }
      await delay(timing.pollMs);
      continue;
    }
    try {
      // Taken at the first try, right after the look-up found no network: made now, in one request whose answer is
      // the network (issue 28). With the lock held no other runpod makes one, so the engine's own duplicate check
      // (CheckDuplicate) covers the moment since the look-up; a conflict is a network made by a run that released
      // the lock in that moment, or by one that takes none. After waiting for another holder, look first.
      const labels = networkLabels(namespace, project);
      const again = waited ? await inspectByName(engine, name) : undefined;
      if (again === 'ambiguous') return await deduplicated(engine, namespace, project);
      if (again !== undefined) return checked(again, namespace, project);
      try {
        return { id: await engine.createNetwork(name, { labels }), name, labels, containers: {} };
      } catch (err) {
        if (!(err instanceof NameConflictError)) throw err;
      }
      const made = await inspectByName(engine, name);
      if (made === 'ambiguous') return await deduplicated(engine, namespace, project);
      if (made === undefined) throw ServiceSetupError.engineFault(`network ${name} for namespace ${namespace} was made and is gone again; run again`);
      return checked(made, namespace, project);
    } finally {
      const removal = engine.removeContainer(lockId, { force: true }).then(
        () => undefined,
        () => undefined,
      );
      // Nothing that follows needs the lock gone (the network is made, and a waiting run looks for the network
      // first), so a caller that awaits the removal before it ends may go on at once; else it is awaited here.
      if (o.release !== undefined) o.release(removal);
      else await removal;
    }
  }
}

/** What a run may hand ensureNetwork: the network looked up already, and where the lock's removal goes. */
export interface NetworkSetUp {
  /** The answer of lookUpNetwork, asked earlier beside other reads (issue 28). */
  found?: Promise<NetworkInfo | undefined | 'ambiguous'>;
  /** Takes the lock's removal under way; the caller awaits it before it ends, so no lock is left behind. */
  release?: (removal: Promise<void>) => void;
}

/** The namespace's network by name as ensureNetwork first looks it up: a read, so it may go out early. */
export function lookUpNetwork(engine: NetworkPort, namespace: string, project: string | undefined): Promise<NetworkInfo | undefined | 'ambiguous'> {
  return inspectByName(engine, namespaceNetwork(namespace, project));
}

/** A network by name, or 'ambiguous' when several carry it (the engine then refuses the name to everyone). */
async function inspectByName(engine: NetworkPort, name: string): Promise<NetworkInfo | undefined | 'ambiguous'> {
  try {
    return await engine.inspectNetwork(name);
  } catch (err) {
    if (err instanceof EngineRequestError && /is ambiguous/.test(err.message)) return 'ambiguous';
    throw err;
  }
}

/**
 * Several runpod networks of the name, made by something that took no lock (an older runpod, a script): with
 * the lock held, the one containers are on (else the oldest) stays and the empty others go. Nothing can join
 * one while the name is ambiguous, so an empty one stays empty. Two in use, or one that is not runpod's, stop
 * the run with the fix.
 */
async function deduplicated(engine: NetworkPort, namespace: string, project: string | undefined): Promise<NetworkInfo> {
  const name = namespaceNetwork(namespace, project);
  const same = (await engine.listNetworks([`${ServiceLabel.networkNamespace}=${namespace}`])).filter((n) => n.name === name && ours(n, namespace, project));
  same.sort((a, b) => (a.created ?? '').localeCompare(b.created ?? '') || a.id.localeCompare(b.id));
  const used = same.filter((n) => Object.keys(n.containers).length > 0);
  const keep = used.length <= 1 ? (used[0] ?? same[0]) : undefined;
  if (keep !== undefined) for (const n of same) if (n.id !== keep.id && Object.keys(n.containers).length === 0) await engine.removeNetwork(n.id);
  const found = await inspectByName(engine, name);
  if (found === undefined || found === 'ambiguous') {
    throw new ServiceSetupError(
      `more than one network is named ${name} on the engine, so the name means none of them${used.length > 1 ? ` (containers are on ${used.length} of them)` : ''}: list them with \`docker network ls --filter name=^${name}$\` and remove all but one (\`docker network rm <id>\`), then run again`,
    );
  }
  return checked(found, namespace, project);
}

function checked(n: NetworkInfo, namespace: string, project: string | undefined): NetworkInfo {
  if (!ours(n, namespace, project)) {
    throw new ServiceSetupError(
      `a network named ${n.name} exists on the engine and is not runpod's (it lacks the labels ${Label.managedBy}=${managedByValue} and ${ServiceLabel.networkNamespace}=${namespace}); runpod never uses or removes it: remove or rename it, or run under another --project`,
    );
  }
  return n;
}

/**
 * Remove the namespace's network when nothing of the namespace is left on it: no pod and no Service of its own.
 * Other namespaces' Service containers joined it only to be reachable from here, so they are detached first.
 * Returns whether it was removed.
 */
export async function removeNetworkIfUnused(engine: ContainerReader & NetworkPort, namespace: string, project: string | undefined): Promise<boolean> {
  // The pods being set up are asked beside the network, not after it: two look-ups in the time of one (issue 28).
  const settingUp = networksBeingSetUp(engine, namespace);
  settingUp.catch(() => undefined);
  const n = await engine.inspectNetwork(namespaceNetwork(namespace, project));
  if (n === undefined || !ours(n, namespace, project)) return false;
  const guests: string[] = [];
  for (const id of Object.keys(n.containers)) {
    const c = await engine.inspectContainer(id);
    // A container gone between the two answers is no reason to keep the network.
    if (c === undefined) continue;
    const labels = c.Config.Labels ?? {};
    const guest = labels[ServiceLabel.role] === 'service' && labels[ServiceLabel.namespace] !== namespace && inProject(labels, project);
    if (!guest) return false;
    guests.push(id);
  }
  if ((await settingUp).has(n.name)) return false;
  for (const id of guests) await engine.disconnectNetwork(n.id, id);
  try {
    await engine.removeNetwork(n.id);
  } catch {
    // A pod of a concurrent run joined in the meantime: the network is in use again, which is right.
    return false;
  }
  return true;
}

/**
 * The engine, with a create and a start that survive the namespace's network going away between the run making
 * it and a container joining it (a concurrent `down` or `gc` removed it while it was empty; Docker checks the
 * network at create and again at start, answering 404 "network … not found"): the network is made again and the
 * call tried once more. Only for runpod's own network names under this key.
 *
 * A container whose start failed once (a hostPort taken, say) keeps the id of the network it was to join, and a
 * later start looks the network up by that id: when the network was removed and made again meanwhile, that start
 * answers "network <id> not found" for ever (seen on Docker 20.10). Its endpoint is then attached again by the
 * network's name (a forced disconnect, a connect with the same aliases), which records the current id.
 */
export function withNetworkRepair(engine: Engine, project: string | undefined): Engine {
  // The namespace of one of runpod's network names under this key, or undefined.
  const namespaceOf = (network: string | undefined): string | undefined => {
    const namespace = network?.startsWith('runpod_') ? network.slice('runpod_'.length).split('.')[0] : undefined;
    return namespace !== undefined && network === namespaceNetwork(namespace, project) ? namespace : undefined;
  };
  const missingNamespace = (err: unknown): string | undefined =>
    namespaceOf(err instanceof EngineRequestError ? /network (runpod_[a-z0-9-]+(?:\.[a-z0-9-]+)?) not found/.exec(err.message)?.[1] : undefined);
  const staleNetworkId = (err: unknown): boolean => err instanceof EngineRequestError && /network [0-9a-f]{12,64} not found/.test(err.message);
  const repaired = async <T>(call: () => Promise<T>, lockImage: () => Promise<string | undefined>): Promise<T> => {
    try {
      return await call();
    } catch (err) {
      const namespace = missingNamespace(err);
      const image = namespace !== undefined ? await lockImage() : undefined;
      if (namespace === undefined || image === undefined) throw err;
      await ensureNetwork(engine, namespace, project, image);
      return call();
    }
  };
  const start = async (id: string): Promise<void> => {
    try {
      await repaired(
        () => engine.startContainer(id),
        async () => (await engine.inspectContainer(id))?.Config.Image,
      );
    } catch (err) {
      if (!staleNetworkId(err)) throw err;
      const info = await engine.inspectContainer(id);
      const network = info?.HostConfig.NetworkMode;
      const namespace = namespaceOf(network);
      if (info === undefined || network === undefined || namespace === undefined) throw err;
      await ensureNetwork(engine, namespace, project, info.Config.Image);
      const aliases = info.NetworkSettings?.Networks?.[network]?.Aliases ?? [];
      await engine.disconnectNetwork(network, id);
      await engine.connectNetwork(network, id, aliases);
      await engine.startContainer(id);
    }
  };
  return withOverrides(engine, {
    // The lock container needs an image the engine has: the one of the container being made or started.
    createContainer: (name, options) =>
      repaired(
        () => engine.createContainer(name, options),
        async () => options.Image,
      ),
    startContainer: start,
  });
}

/**
 * The namespace networks (of one namespace, or all) that a pod container is created on and not started yet. Such a
 * container is not on the network's list, yet it joins the network when it starts: a pod being set up by a
 * concurrent run (or one whose start failed and is retried). Removing the network under it would fail that start.
 */
async function networksBeingSetUp(engine: ContainerReader, namespace?: string): Promise<Set<string>> {
  const created = (
    await engine.listContainers([`${Label.managedBy}=${managedByValue}`, namespace === undefined ? Label.podNamespace : `${Label.podNamespace}=${namespace}`])
  ).filter((c) => c.state === 'created');
  return new Set(created.map((c) => namespaceNetwork(c.labels[Label.podNamespace] ?? '', c.labels[Label.project])));
}

/** runpod's networks (under any key) that no container is attached to, nor being set up on: what `gc` removes. */
export async function emptyNetworks(engine: ContainerReader & NetworkPort): Promise<NetworkInfo[]> {
  const [list, settingUp] = await Promise.all([engine.listNetworks([`${Label.managedBy}=${managedByValue}`, ServiceLabel.networkNamespace]), networksBeingSetUp(engine)]);
  return list.filter((n) => Object.keys(n.containers).length === 0 && !settingUp.has(n.name));
}

/** Remove a network `emptyNetworks` found; one a container joined since is refused by the engine and stays. */
export async function removeEmptyNetwork(engine: NetworkPort, n: NetworkInfo): Promise<void> {
  await engine.removeNetwork(n.id);
}

/** The namespaces runpod has a network for (under the key). */
export async function networkNamespaces(engine: NetworkPort): Promise<string[]> {
  return (await engine.listNetworks([ServiceLabel.networkNamespace])).flatMap((n) => {
    const ns = n.labels[ServiceLabel.networkNamespace];
    return ns !== undefined ? [ns] : [];
  });
}
