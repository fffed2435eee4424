// What a run (and `down`) does about Services, between the manifests and the engine: the networks and Service
// containers before any pod is made, the endpoints kept up to date while pods come and go.
import type { ContainerPort, ContainerReader } from '../engine/ports/containers.js';
import type { NetworkPort } from '../engine/ports/networks.js';
import type { LogPort } from '../engine/ports/streams.js';
import type { LoadedPod, ServiceObject } from '../manifest/types.js';
import { type ClusterLookAhead, findServiceContainer, type ServiceFound, setUpCluster } from './cluster.js';
import { listServiceContainers, networkAddress, type ServiceContainer } from './serviceContainers.js';
import { EndpointsController } from './endpointsController.js';
import { lookUpNetwork } from './network.js';
import type { ClusterPlan } from '../plan/types.js';

export interface PreparedCluster {
  plan: ClusterPlan;
  endpoints: EndpointsController;
  namespaces: Set<string>;
}

/** The namespaces whose pods join a network (hostNetwork pods do not), and those of the Services. */
export function clusterNamespaces(pods: readonly LoadedPod[], services: readonly ServiceObject[]): Set<string> {
  const out = new Set<string>();
  for (const p of pods) if (p.pod.spec.hostNetwork !== true) out.add(p.pod.metadata.namespace);
  for (const s of services) out.add(s.namespace);
  return out;
}

/**
 * The reads prepareCluster begins with, sent at once and earlier (beside the engine's facts, issue 28): each
 * namespace's network as first looked up, and, when the input has no Service (so the run makes none), runpod's
 * Service containers. Reads only: nothing is made before the engine's support is checked. An answer that is stale
 * by the time it is used is no worse than before: a network removed since is made again when a container meets
 * its 404 (network.ts withNetworkRepair).
 */
export function lookAhead(engine: ContainerReader & NetworkPort, o: Pick<ClusterInput, 'pods' | 'services' | 'project'>): ClusterLookAhead {
  const networks = new Map([...clusterNamespaces(o.pods, o.services)].map((ns) => [ns, lookUpNetwork(engine, ns, o.project)] as const));
  const services = o.services.length === 0 ? listServiceContainers(engine) : undefined;
  // Held until used: a run that stops before then (an unsupported field) leaves no unhandled rejection.
  for (const p of [...networks.values(), ...(services !== undefined ? [services] : [])]) p.catch(() => undefined);
  return { networks, ...(services !== undefined ? { services } : {}) };
}

/**
 * Networks, Service containers and each Service's first rules (which also proves the engine host can forward),
 * before any pod is made. The Services that earlier runs made in these namespaces count too: their variables go
 * into the pods, and the pods of this run become their endpoints.
 */
export async function prepareCluster(engine: ContainerPort & LogPort & NetworkPort, o: ClusterInput): Promise<PreparedCluster> {
  const namespaces = clusterNamespaces(o.pods, o.services);
  const { running, all } = await setUpCluster(engine, {
    namespaces,
    services: o.services,
    project: o.project,
    image: o.image,
    publishAll: o.publishAll,
    ...(o.release !== undefined ? { release: o.release } : {}),
    ...(o.ahead !== undefined ? { ahead: o.ahead } : {}),
  });
  const hosts = new Map<string, string>();
  for (const [k, r] of running) hosts.set(k, r.ip);
  const endpoints = new EndpointsController(engine, o.project, o.image);
  // Only where a Service is: a namespace without one has no endpoints to write.
  const served = new Set(all.filter((c) => c.running).map((c) => c.namespace));
  await Promise.all([...namespaces].filter((ns) => served.has(ns)).map((ns) => endpoints.refresh(ns)));
  if (endpoints.error !== undefined) throw endpoints.error;
  return { plan: await clusterPlan(engine, o, namespaces, hosts, all), endpoints, namespaces };
}

export interface ClusterInput {
  pods: readonly LoadedPod[];
  services: readonly ServiceObject[];
  project: string | undefined;
  /** The image of the Services' containers. */
  image: string;
  publishAll: boolean;
  /** Takes each network lock's removal under way; the caller awaits them before it ends. */
  release?: (removal: Promise<void>) => void;
  /** Reads asked earlier (lookAhead). */
  ahead?: ClusterLookAhead;
}

/**
 * --dry-run: the ClusterPlan a run would plan its pods with, read from the engine and changing nothing: the
 * input's Services at the addresses their containers have (one a run would make, or make again, has none yet: its
 * placeholder says so, and a pod that reads it would be replaced), and those earlier runs made in these namespaces.
 * Also, for each of the input's Services with an address, what a run would do about its container.
 */
export async function observeCluster(engine: ContainerReader, o: ClusterInput): Promise<{ plan: ClusterPlan; found: Map<string, ServiceFound> }> {
  const namespaces = clusterNamespaces(o.pods, o.services);
  const found = new Map<string, ServiceFound>();
  const hosts = new Map<string, string>();
  await Promise.all(
    o.services
      .filter((s) => !s.headless)
      .map(async (s) => {
        const key = `${s.namespace}/${s.name}`;
        const f = await findServiceContainer(engine, s, o.project, o.image, o.publishAll);
        found.set(key, f);
        hosts.set(key, f.state === 'up' ? f.ip : `<the address of service ${key}, once made>`);
      }),
  );
  return { plan: await clusterPlan(engine, o, namespaces, hosts, await listServiceContainers(engine)), found };
}

/**
 * The Services a run's pods are planned with (their variables are part of each container's hash): the input's, at
 * the addresses given, and the running ones earlier runs made in these namespaces, at theirs. One place, so a run
 * and --dry-run plan the pods alike.
 */
async function clusterPlan(
  engine: ContainerReader,
  o: ClusterInput,
  namespaces: ReadonlySet<string>,
  inputHosts: ReadonlyMap<string, string>,
  all: readonly ServiceContainer[],
): Promise<ClusterPlan> {
  const hosts = new Map(inputHosts);
  const known = new Map(o.services.map((s) => [`${s.namespace}/${s.name}`, s]));
  await Promise.all(
    all.map(async (c) => {
      const s = c.service;
      if (s === undefined || !namespaces.has(s.namespace) || known.has(`${s.namespace}/${s.name}`) || !c.running) return;
      const ip = networkAddress(await engine.inspectContainer(c.id), s.namespace, o.project);
      known.set(`${s.namespace}/${s.name}`, s);
      if (ip !== undefined) hosts.set(`${s.namespace}/${s.name}`, ip);
    }),
  );
  return { services: [...known.values()], hosts };
}
