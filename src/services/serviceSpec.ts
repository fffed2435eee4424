// The container that holds a Service's address (pure): runpod's pause program in a network namespace of its own
// on the namespace's network, answering to the Service's DNS names, forwarding its ports to the endpoints
// (rules.ts), and publishing them on the host for NodePort and LoadBalancer Services.
import type { CreateOptions } from '../engine/ports/containers.js';
import type { ServiceObject } from '../manifest/types.js';
import { specHash } from '../kube/names.js';
import { ServiceLabel, serviceDnsNames } from '../kube/serviceNames.js';

/** The Service itself, as the container keeps it: a later run or `down` finds its selector and ports there. */
export const serviceSpecLabel = 'io.runpod.service.spec';

export function serviceContainerSpec(service: ServiceObject, network: string, image: string, publishAll = false): CreateOptions {
  const exposed: Record<string, Record<string, never>> = {};
  const bindings: Record<string, Array<{ HostIp: string; HostPort: string }>> = {};
  for (const p of service.ports) {
    const key = `${p.port}/${p.protocol.toLowerCase()}`;
    exposed[key] = {};
    // NodePort and LoadBalancer: reachable on the host at nodePort, or at a port the engine chooses (one host is
    // the node and its load balancer both). --publish-all: a ClusterIP Service's ports too, at ports the engine
    // chooses, as it does for pods (so tests on the host reach it, and parallel jobs never collide).
    if (service.type !== 'ClusterIP' || publishAll) bindings[key] = [{ HostIp: '', HostPort: p.nodePort !== undefined ? String(p.nodePort) : '' }];
  }
  const create: CreateOptions = {
    Image: image,
    ExposedPorts: exposed,
    HostConfig: {
      NetworkMode: network,
      PortBindings: bindings,
      // It forwards what reaches it to the endpoints (rules.ts).
      Sysctls: { 'net.ipv4.ip_forward': '1' },
      RestartPolicy: { Name: 'unless-stopped' },
    },
    NetworkingConfig: { EndpointsConfig: { [network]: { Aliases: serviceDnsNames(service.name, service.namespace, true) } } },
  };
  return {
    ...create,
    Labels: serviceLabels(service, create),
    // The pause program ends at SIGTERM at once.
    StopTimeout: 1,
  };
}

/**
 * A headless Service has no address and so no container that runs: its names are the pods' own (translate.ts).
 * What keeps it on the engine, for `status` and `down` to find as they find the others, is a container of the same
 * name and labels that is created and never started (no network, no restart policy: it never runs).
 */
export function headlessRecordSpec(service: ServiceObject, image: string): CreateOptions {
  const create: CreateOptions = { Image: image, HostConfig: { NetworkMode: 'none', RestartPolicy: { Name: 'no' } } };
  return { ...create, Labels: serviceLabels(service, create) };
}

/** The labels of a Service's container: the Service itself (its spec), and the hash of what it was made as. */
function serviceLabels(service: ServiceObject, create: CreateOptions): Record<string, string> {
  const stored = JSON.stringify({ ...service, file: undefined, line: undefined });
  return {
    // No managed-by label: that one marks a pod's containers, and every pod lookup would have to skip these.
    [ServiceLabel.role]: 'service',
    [ServiceLabel.name]: service.name,
    [ServiceLabel.namespace]: service.namespace,
    [ServiceLabel.hash]: specHash({ create, stored }),
    [serviceSpecLabel]: stored,
  };
}

/** The Service a container keeps in its label; undefined when absent or unreadable (not runpod's then). */
export function storedService(labels: Readonly<Record<string, string>>): ServiceObject | undefined {
  const raw = labels[serviceSpecLabel];
  if (raw === undefined) return undefined;
  try {
    const v = JSON.parse(raw) as ServiceObject;
    return typeof v.name === 'string' && typeof v.namespace === 'string' && Array.isArray(v.ports) ? { ...v, file: '', line: 0 } : undefined;
  } catch {
    return undefined;
  }
}
