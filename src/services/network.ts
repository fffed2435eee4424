// The network of a namespace's pods (engine side): made when a run first needs it, shared by every run under the
// same key, removed when nothing of the namespace is left on it. Only networks carrying runpod's labels are ever
// used or removed; one of that name that is not runpod's stops the run.
import type { Engine, NetworkInfo } from '../engine/engine.js';
import { EngineRequestError, NameConflictError } from '../engine/engine.js';
import { ServiceSetupError } from '../errors.js';
import { Label, managedByValue } from '../plan/labels.js';
import { inProject } from '../plan/project.js';
import { ServiceLabel, namespaceNetwork, networkLabels } from './names.js';

function ours(n: NetworkInfo, namespace: string, project: string | undefined): boolean {
  return n.labels[Label.managedBy] === managedByValue && n.labels[ServiceLabel.networkNamespace] === namespace && inProject(n.labels, project);
}

/**
 * The namespace's network, made if missing. Two runs may create it at once and older engines do not serialize
 * CheckDuplicate, so after making one the oldest network of the name wins (the lowest id on a tie) and a
 * duplicate this run made is removed at once, before any container joins it.
 */
export async function ensureNetwork(engine: Engine, namespace: string, project: string | undefined): Promise<NetworkInfo> {
  const name = namespaceNetwork(namespace, project);
  let existing: NetworkInfo | undefined;
  try {
    existing = await engine.inspectNetwork(name);
  } catch (err) {
    // Two of that name (a concurrent run made one too): the engine calls the name ambiguous until one goes.
    if (!isAmbiguous(err)) throw err;
    return deduplicated(engine, namespace, project);
  }
  if (existing !== undefined) return checked(existing, namespace, project);
  try {
    await engine.createNetwork(name, { labels: networkLabels(namespace, project) });
  } catch (err) {
    if (!(err instanceof NameConflictError)) throw err;
  }
  return deduplicated(engine, namespace, project);
}

function isAmbiguous(err: unknown): boolean {
  return err instanceof EngineRequestError && /is ambiguous/.test(err.message);
}

/**
 * The one network of the name that every run agrees on, the oldest (the lowest id on a tie); the others are
 * removed while nothing is on them, which is as long as two exist: the engine refuses an ambiguous name to a
 * container, so none can have joined one.
 */
async function deduplicated(engine: Engine, namespace: string, project: string | undefined): Promise<NetworkInfo> {
  const name = namespaceNetwork(namespace, project);
  const same = (await engine.listNetworks([`${ServiceLabel.networkNamespace}=${namespace}`])).filter((n) => n.name === name && ours(n, namespace, project));
  same.sort((a, b) => (a.created ?? '').localeCompare(b.created ?? '') || a.id.localeCompare(b.id));
  const [winner, ...losers] = same;
  await Promise.all(losers.filter((n) => Object.keys(n.containers).length === 0).map((n) => engine.removeNetwork(n.id).catch(() => undefined)));
  const found = winner ?? (await engine.inspectNetwork(name));
  if (found === undefined) throw new ServiceSetupError(`network ${name} for namespace ${namespace} was made and is gone again; run again`);
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
export async function removeNetworkIfUnused(engine: Engine, namespace: string, project: string | undefined): Promise<boolean> {
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
 * The engine, with a start that survives its namespace's network going away between the run making it and a
 * container joining it (a concurrent `down` or `gc` removed it while it was empty; Docker checks the network at
 * start, answering 404 "network … not found"), or being made twice by two runs at once ("ambiguous"): the network
 * is made again (or its duplicate removed) and the start tried once more. Only for runpod's own network names
 * under this key.
 */
export function withNetworkRepair(engine: Engine, project: string | undefined): Engine {
  return new Proxy(engine, {
    get(target, prop, receiver) {
      if (prop !== 'startContainer') {
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      }
      return async (id: string) => {
        try {
          await target.startContainer(id);
        } catch (err) {
          // Gone (404 "not found"), or two of the name while a concurrent run's duplicate is removed ("ambiguous").
          const missing = err instanceof EngineRequestError ? /network (runpod_[a-z0-9-]+(?:\.[a-z0-9-]+)?) (?:not found|is ambiguous)/.exec(err.message)?.[1] : undefined;
          const namespace = missing?.slice('runpod_'.length).split('.')[0];
          if (missing === undefined || namespace === undefined || missing !== namespaceNetwork(namespace, project)) throw err;
          await ensureNetwork(target, namespace, project);
          await target.startContainer(id);
        }
      };
    },
  });
}

/** runpod's networks (under any key) that no container is attached to: what `gc` removes. */
export async function emptyNetworks(engine: Engine): Promise<NetworkInfo[]> {
  const list = await engine.listNetworks([`${Label.managedBy}=${managedByValue}`, ServiceLabel.networkNamespace]);
  return list.filter((n) => Object.keys(n.containers).length === 0);
}
