// Engine and DNS names of what runpod makes so that pods find each other as on a cluster (pure): one bridge
// network per namespace (per isolation key), whose embedded DNS (127.0.0.11) serves as the cluster DNS, and one
// container per Service with a cluster IP, whose address stands for that IP.
// https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/
import { Label, managedByValue } from './labels.js';
import { projectLabels } from './project.js';

/** The cluster domain a kubelet on a default (kubeadm) cluster is configured with. */
export const clusterDomain = 'cluster.local';

/** Labels on runpod's networks and Service containers (pods keep theirs, kube/labels.ts). */
export const ServiceLabel = {
  /** On a Service container: the Service's name and namespace. */
  name: 'io.runpod.service.name',
  namespace: 'io.runpod.service.namespace',
  /** The hash of the Service container's create request: a changed Service replaces it. */
  hash: 'io.runpod.service.hash',
  /** What a runpod container that is not a pod's does: "service" (holds a Service's address), "service-rules" or "network-lock". */
  role: 'io.runpod.role',
  /** On a network's creation lock (a container that never runs): the network's name. */
  networkName: 'io.runpod.network.name',
  /** On a network: the namespace whose pods it joins. */
  networkNamespace: 'io.runpod.network.namespace',
} as const;

/** The values of ServiceLabel.role. */
export const Role = {
  /** Holds a Service's address. */
  service: 'service',
  /** Writes a Service's forwarding rules, then is removed. */
  rules: 'service-rules',
  /** Never runs: while it exists, one run is making a network (services/network.ts). */
  networkLock: 'network-lock',
} as const;

/**
 * The network of a namespace's pods: runpod_<ns>, or runpod_<ns>.<key> under an isolation key (both parts are
 * DNS labels, so the name reads back unambiguously and is a valid Docker network name).
 */
export function namespaceNetwork(namespace: string, project: string | undefined): string {
  return `runpod_${namespace}${project !== undefined ? `.${project}` : ''}`;
}

/** The container that holds a Service's address: runpod_svc_<name>_<ns>[.<key>]. */
export function serviceContainerName(namespace: string, name: string, project: string | undefined): string {
  return `runpod_svc_${name}_${namespace}${project !== undefined ? `.${project}` : ''}`;
}

/** Labels of a namespace's network. */
export function networkLabels(namespace: string, project: string | undefined): Record<string, string> {
  return { [Label.managedBy]: managedByValue, [ServiceLabel.networkNamespace]: namespace, ...projectLabels(project) };
}

/**
 * The names a Service answers to (https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/#services):
 * <svc>.<ns>.svc.<domain> from anywhere, and the shorter forms a pod's search list completes. On the network of
 * its own namespace the bare <svc> too; on another namespace's network only the qualified ones, so a bare name
 * never reaches across namespaces (a pod there resolves <svc> within its own namespace, as on a cluster).
 */
export function serviceDnsNames(name: string, namespace: string, sameNamespace: boolean): string[] {
  const qualified = [`${name}.${namespace}`, `${name}.${namespace}.svc`, `${name}.${namespace}.svc.${clusterDomain}`];
  return sameNamespace ? [name, ...qualified] : qualified;
}

/**
 * A pod with hostname and subdomain, selected by the headless Service named like the subdomain, answers at
 * <hostname>.<subdomain>.<ns>.svc.<domain> (dns-pod-service/#pod-hostname-and-subdomain-field).
 */
export function podDnsNames(hostname: string, subdomain: string, namespace: string): string[] {
  return serviceDnsNames(`${hostname}.${subdomain}`, namespace, true);
}

/**
 * dnsPolicy ClusterFirst's resolv.conf: the kubelet's search list for the pod's namespace and ndots:5
 * (pkg/kubelet/network/dns). The nameserver is the engine's embedded DNS, which the network gives.
 */
export function clusterFirstDns(namespace: string): { search: string[]; options: string[] } {
  return { search: [`${namespace}.svc.${clusterDomain}`, `svc.${clusterDomain}`, clusterDomain], options: ['ndots:5'] };
}
