// Setting up what pods need to find each other (engine side): each namespace's network, each Service container on
// it, and every Service container joined to the other namespaces' networks under its qualified names, so
// <svc>.<ns> resolves from anywhere. Idempotent: a second run finds everything in place and changes nothing.
import type { ContainerLifecycle, ContainerPort, ContainerReader, CreateOptions } from '../engine/ports/containers.js';
import type { NetworkInfo, NetworkPort } from '../engine/ports/networks.js';
import { EngineRequestError, NameConflictError, takenHostPort } from '../engine/ports/errors.js';
import type { LogPort } from '../engine/ports/streams.js';
import { ServiceSetupError } from '../errors.js';
import type { ServiceObject } from '../manifest/types.js';
import { inProject } from '../kube/project.js';
import { Role, ServiceLabel, namespaceNetwork, serviceContainerName, serviceDnsNames } from '../kube/serviceNames.js';
import { EndpointsController } from './endpointsController.js';
import { ensureNetwork, removeNetworkIfUnused } from './network.js';
import { headlessRecordSpec, serviceContainerSpec } from './serviceSpec.js';
import { type ServiceContainer, listServiceContainers, networkAddress } from './serviceContainers.js';
import type { ServiceResult } from './result.js';

export interface RunningService {
  service: ServiceObject;
  containerId: string;
  /** The Service container's address on its namespace's network: what the Service's cluster IP is on one host. */
  ip: string;
}

/**
 * The namespaces' networks, then the Services' containers, then the joins across namespaces. Returns the Services
 * made here and every Service container there is now (read once, for the caller's further use).
 */
export async function setUpCluster(engine: ContainerPort & LogPort & NetworkPort, o: ClusterSetUp): Promise<{ running: Map<string, RunningService>; all: ServiceContainer[] }> {
  const namespaces = new Set(o.namespaces);
  for (const s of o.services) namespaces.add(s.namespace);
  // With no Service of the input, none is made here: the list of those there are goes out beside the networks
  // (it reads nothing a network changes) instead of after them (issue 28).
  const listed = o.services.length === 0 ? (o.ahead?.services ?? listServiceContainers(engine)) : undefined;
  listed?.catch(() => undefined);
  await Promise.all(
    [...namespaces].map((ns) => {
      const found = o.ahead?.networks.get(ns);
      return ensureNetwork(engine, ns, o.project, o.image, undefined, { ...(found !== undefined ? { found } : {}), ...(o.release !== undefined ? { release: o.release } : {}) });
    }),
  );
  const running = new Map<string, RunningService>();
  await Promise.all(
    o.services.map(async (s) => {
      if (s.headless) await placeService(engine, s, o.project, headlessRecordSpec(s, o.image));
      else running.set(`${s.namespace}/${s.name}`, await ensureServiceContainer(engine, s, o.project, o.image, o.publishAll ?? false));
    }),
  );
  const all = await (listed ?? listServiceContainers(engine));
  await joinAcrossNamespaces(engine, all);
  return { running, all };
}

/** What setUpCluster is given: the namespaces and Services, and what a run hands it (services/network.ts). */
export interface ClusterSetUp {
  namespaces: Iterable<string>;
  services: readonly ServiceObject[];
  project: string | undefined;
  image: string;
  publishAll?: boolean;
  /** Takes each network lock's removal under way: the caller awaits them before it ends (NetworkSetUp.release). */
  release?: (removal: Promise<void>) => void;
  /** Reads asked earlier, beside the engine's facts (clusterSetup.ts lookAhead). */
  ahead?: ClusterLookAhead;
}

/** The namespaces' networks as first looked up, and, when the input has no Service, runpod's Service containers. */
export interface ClusterLookAhead {
  networks: Map<string, Promise<NetworkInfo | undefined | 'ambiguous'>>;
  services?: Promise<ServiceContainer[]>;
}

/** The Service's container as the Service now says, made (or made again, when the Service changed) and running. */
export async function ensureServiceContainer(
  engine: ContainerLifecycle & ContainerReader,
  service: ServiceObject,
  project: string | undefined,
  image: string,
  publishAll: boolean,
): Promise<RunningService> {
  const spec = serviceContainerSpec(service, namespaceNetwork(service.namespace, project), image, publishAll);
  const placed = await placeService(engine, service, project, spec);
  if (!placed.running) await startService(engine, placed.id, service);
  return { service, containerId: placed.id, ip: await addressOf(engine, placed.id, service, project) };
}

/**
 * The Service's container as spec says, found (made as the same spec: its hash label) or made; one made as another
 * spec (changed ports, type or names, or a Service that became headless or stopped being so) is made again, as a
 * Service container holds no state but its rules. Returns its id and whether it runs.
 */
async function placeService(
  engine: ContainerLifecycle & ContainerReader,
  service: ServiceObject,
  project: string | undefined,
  spec: CreateOptions,
): Promise<{ id: string; running: boolean }> {
  const name = serviceContainerName(service.namespace, service.name, project);
  const wanted = spec.Labels?.[ServiceLabel.hash];
  for (let attempt = 0; attempt < 3; attempt++) {
    const found = await engine.inspectContainer(name);
    if (found !== undefined) {
      const labels = found.Config.Labels ?? {};
      if (
        labels[ServiceLabel.role] !== Role.service ||
        labels[ServiceLabel.name] !== service.name ||
        labels[ServiceLabel.namespace] !== service.namespace ||
        !inProject(labels, project)
      ) {
        throw new ServiceSetupError(
          `a container named ${name} exists and is not runpod's container of service ${service.namespace}/${service.name}; runpod never touches it: remove or rename it`,
        );
      }
      if (labels[ServiceLabel.hash] === wanted) return { id: found.Id, running: found.State.Running };
      await engine.removeContainer(found.Id, { force: true });
      continue;
    }
    try {
      return { id: await engine.createContainer(name, spec), running: false };
    } catch (err) {
      if (err instanceof NameConflictError) continue; // a concurrent run made it: look again
      throw err;
    }
  }
  throw ServiceSetupError.engineFault(
    `the container of service ${service.namespace}/${service.name} kept changing while runpod made it (another run with a different Service of that name?); run again`,
  );
}

/** What a run would find of a Service's container, read only (--dry-run): its address if it stays as it is. */
export type ServiceFound =
  | { state: 'up'; ip: string }
  /** Missing, stopped, changed or not runpod's: a run makes (or starts) it, and its address is known only then. */
  | { state: 'made'; why: string };

/**
 * The Service's container as ensureServiceContainer would find it, changing nothing: one that is runpod's, as the
 * Service says and running, keeps its address; any other is made (again) or started by a run (a stopped container
 * has no address), or, when it is not runpod's, refused.
 */
export async function findServiceContainer(
  engine: ContainerReader,
  service: ServiceObject,
  project: string | undefined,
  image: string,
  publishAll: boolean,
): Promise<ServiceFound> {
  const name = serviceContainerName(service.namespace, service.name, project);
  const found = await engine.inspectContainer(name);
  if (found === undefined) return { state: 'made', why: 'its container does not exist' };
  const labels = found.Config.Labels ?? {};
  if (
    labels[ServiceLabel.role] !== Role.service ||
    labels[ServiceLabel.name] !== service.name ||
    labels[ServiceLabel.namespace] !== service.namespace ||
    !inProject(labels, project)
  ) {
    return { state: 'made', why: `a container named ${name} exists and is not runpod's: a run stops there` };
  }
  const wanted = serviceContainerSpec(service, namespaceNetwork(service.namespace, project), image, publishAll).Labels?.[ServiceLabel.hash];
  if (labels[ServiceLabel.hash] !== wanted) return { state: 'made', why: 'the Service changed: its container is made again' };
  const ip = found.State.Running ? networkAddress(found, service.namespace, project) : undefined;
  return ip !== undefined ? { state: 'up', ip } : { state: 'made', why: 'its container is stopped: a run starts it' };
}

/** A Service container's start; a host port it publishes that something else holds is said as the Service's. */
async function startService(engine: ContainerLifecycle, id: string, service: ServiceObject): Promise<void> {
  try {
    await engine.startContainer(id);
  } catch (err) {
    const port = err instanceof EngineRequestError ? takenHostPort(err.message) : undefined;
    if (port === undefined) throw err;
    const what = service.ports.some((p) => p.nodePort === port) ? `nodePort ${port}` : `host port ${port}`;
    throw new ServiceSetupError(
      `service ${service.namespace}/${service.name}: its ${what} is taken on the engine host by another container or process: free it, or give the Service another nodePort (${err instanceof Error ? err.message : String(err)})`,
    );
  }
}

async function addressOf(engine: ContainerReader, id: string, service: ServiceObject, project: string | undefined): Promise<string> {
  const ip = networkAddress(await engine.inspectContainer(id), service.namespace, project);
  if (ip === undefined)
    throw ServiceSetupError.engineFault(
      `the container of service ${service.namespace}/${service.name} has no address on network ${namespaceNetwork(service.namespace, project)}; run again, or check the engine's networks`,
    );
  return ip;
}

/**
 * Every Service container (under this engine's key) on every other namespace's network too, answering there to its
 * qualified names only (kube/serviceNames.ts), so a bare name never reaches across namespaces.
 */
async function joinAcrossNamespaces(engine: NetworkPort, services: readonly ServiceContainer[]): Promise<void> {
  const live = services.filter((c) => c.running && c.service !== undefined);
  if (live.length === 0) return;
  const networks = await engine.listNetworks([ServiceLabel.networkNamespace]);
  const joins: Promise<void>[] = [];
  for (const c of live) {
    const s = c.service;
    if (s === undefined) continue;
    for (const n of networks) {
      const ns = n.labels[ServiceLabel.networkNamespace];
      if (ns === undefined || ns === s.namespace || n.containers[c.id] !== undefined) continue;
      joins.push(engine.connectNetwork(n.id, c.id, serviceDnsNames(s.name, s.namespace, false)));
    }
  }
  await Promise.all(joins);
}

/** Where each Service answers and on which host ports, as the engine says now (for the run's result). */
export async function describeServices(engine: ContainerReader, services: readonly ServiceObject[], project: string | undefined): Promise<ServiceResult[]> {
  return Promise.all(
    services.map(async (s) => {
      const info = s.headless ? undefined : await engine.inspectContainer(serviceContainerName(s.namespace, s.name, project));
      const ip = networkAddress(info, s.namespace, project);
      const published = (info?.NetworkSettings?.Ports ?? {}) as Record<string, Array<{ HostPort?: string }> | null>;
      return {
        namespace: s.namespace,
        name: s.name,
        type: s.headless ? 'headless' : s.type,
        ...(ip ? { ip } : {}),
        dnsNames: serviceDnsNames(s.name, s.namespace, true),
        ports: s.ports.map((p) => {
          const host = published[`${p.port}/${p.protocol.toLowerCase()}`]?.[0]?.HostPort;
          return { ...(p.name !== undefined ? { name: p.name } : {}), port: p.port, protocol: p.protocol, targetPort: p.targetPort, ...(host ? { hostPort: Number(host) } : {}) };
        }),
      } satisfies ServiceResult;
    }),
  );
}

/** Remove a Service's container (under this key); one that is not there is not an error. Returns whether it was. */
export async function removeServiceContainer(engine: ContainerLifecycle & ContainerReader, namespace: string, name: string, project: string | undefined): Promise<boolean> {
  const found = await engine.inspectContainer(serviceContainerName(namespace, name, project));
  if (found === undefined) return false;
  const labels = found.Config.Labels ?? {};
  if (labels[ServiceLabel.role] !== Role.service || labels[ServiceLabel.namespace] !== namespace || labels[ServiceLabel.name] !== name || !inProject(labels, project)) return false;
  await engine.removeContainer(found.Id, { force: true });
  return true;
}

export interface ClusterTeardown {
  services: Array<{ namespace: string; name: string; removed: boolean }>;
  /** The networks removed: nothing of their namespace was left on them. */
  networks: string[];
}

/**
 * After pods went: remove the named Services, bring the others' endpoints up to date in the namespaces touched,
 * and remove each of those namespaces' networks that nothing of the namespace is left on.
 */
export async function tearDownCluster(
  engine: ContainerPort & LogPort & NetworkPort,
  o: { namespaces: Iterable<string>; services: ReadonlyArray<{ namespace: string; name: string }>; project: string | undefined; image: string },
): Promise<ClusterTeardown> {
  const services = await Promise.all(o.services.map(async (s) => ({ ...s, removed: await removeServiceContainer(engine, s.namespace, s.name, o.project) })));
  const namespaces = new Set(o.namespaces);
  for (const s of o.services) namespaces.add(s.namespace);
  const endpoints = new EndpointsController(engine, o.project, o.image);
  // The endpoints and the networks at once, every namespace beside the others: a network goes only when no Service
  // of its own namespace is on it (so none whose endpoints are written here), and rewriting a Service's rules
  // changes no network's members (issue 28). An endpoints failure is still the teardown's error.
  const sorted = [...namespaces].sort();
  const [, gone] = await Promise.all([Promise.all(sorted.map((ns) => endpoints.refresh(ns))), Promise.all(sorted.map((ns) => removeNetworkIfUnused(engine, ns, o.project)))]);
  if (endpoints.error !== undefined) throw endpoints.error;
  const networks = sorted.filter((_, i) => gone[i]).map((ns) => namespaceNetwork(ns, o.project));
  return { services, networks };
}
