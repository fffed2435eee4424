// What runpod's Service containers on the engine say (engine side): which there are, with the Service each keeps
// in its label, and where one answers on a namespace's network.
import type { ContainerInspect, ContainerReader } from '../engine/ports/containers.js';
import type { ServiceObject } from '../manifest/types.js';
import { Role, ServiceLabel, namespaceNetwork } from '../kube/serviceNames.js';
import { storedService } from './serviceSpec.js';

/** A Service container on the engine, with the Service its label keeps (undefined: unreadable, still runpod's). */
export interface ServiceContainer {
  id: string;
  running: boolean;
  namespace: string;
  name: string;
  service: ServiceObject | undefined;
}

/** runpod's Service containers (under the engine's key), in one namespace or in all. */
export async function listServiceContainers(engine: ContainerReader, namespace?: string): Promise<ServiceContainer[]> {
  const list = await engine.listContainers([`${ServiceLabel.role}=${Role.service}`, ...(namespace !== undefined ? [`${ServiceLabel.namespace}=${namespace}`] : [])]);
  return list.flatMap((c) => {
    const ns = c.labels[ServiceLabel.namespace];
    const name = c.labels[ServiceLabel.name];
    return ns !== undefined && name !== undefined ? [{ id: c.id, running: c.state === 'running', namespace: ns, name, service: storedService(c.labels) }] : [];
  });
}

/** A container's address on a namespace's network, as the engine reports it; undefined when it has none. */
export function networkAddress(info: ContainerInspect | undefined, namespace: string, project: string | undefined): string | undefined {
  const ip = info?.NetworkSettings?.Networks?.[namespaceNetwork(namespace, project)]?.IPAddress;
  return ip !== undefined && ip !== '' ? ip : undefined;
}

/** Every Service runpod made (under the key). */
export async function managedServiceRefs(engine: ContainerReader): Promise<Array<{ namespace: string; name: string }>> {
  return (await listServiceContainers(engine)).map((c) => ({ namespace: c.namespace, name: c.name }));
}
