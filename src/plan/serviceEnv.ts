// What a Service means for the pods beside it, as pure functions: the environment variables the kubelet sets for
// the Services of a pod's namespace (pkg/kubelet/envvars FromServices, kubelet_pods.go getServiceEnvVarMap), which
// pods a Service selects (the endpoints controllers), and the container port a named targetPort stands for
// (pkg/api/v1/pod FindPort, as kube-proxy and the EndpointSlice controller resolve it). No I/O, no clock.

import type { PodSpec } from 'kubernetes-types/core/v1.js';
import type { ServiceObject, ServicePortSpec } from '../manifest/types.js';

export interface ServiceEnvVar {
  name: string;
  value: string;
}

/** envvars makeEnvVariableName: the Service's (or port's) name upper-cased, '-' as '_' (my-svc → MY_SVC). */
export function serviceEnvName(name: string): string {
  return name.toUpperCase().replace(/-/g, '_');
}

/**
 * The Service variables of a pod in `namespace`, as the kubelet sets them when enableServiceLinks is true (the
 * caller leaves them out when it is false). Only Services of that namespace that have an address: a headless one
 * (clusterIP None) has none, and the kubelet skips it (IsServiceIPSet); `hostOf` gives the address runpod gives a
 * Service, and a Service it gives none is skipped the same way.
 *
 * For each Service, in the kubelet's order (FromServices):
 *   <SVC>_SERVICE_HOST=<host>, <SVC>_SERVICE_PORT=<first port>, <SVC>_SERVICE_PORT_<PORTNAME>=<port> for each named
 *   port, then the Docker-link variables (makeLinkVariables): <SVC>_PORT=<proto>://<host>:<first port>, and for
 *   each port <SVC>_PORT_<port>_<PROTO>=<proto>://<host>:<port>, then its _PROTO, _PORT and _ADDR.
 *
 * The kubelet builds a map, so the order between Services is not defined there; here Services are ordered by
 * name, so the same input gives the same environment (and the same container hash) whatever the file order.
 *
 * The kubelet also sets, in every namespace and even with enableServiceLinks false, the variables of the master
 * Service (kubernetes in default: KUBERNETES_SERVICE_HOST, …), which points at the API server. On one host there
 * is no API server, so runpod sets none: a Service the input itself names kubernetes is a Service like any other.
 */
export function serviceLinkEnv(services: readonly ServiceObject[], namespace: string, hostOf: (s: ServiceObject) => string | undefined): ServiceEnvVar[] {
  const out: ServiceEnvVar[] = [];
  const mine = services.filter((s) => s.namespace === namespace && !s.headless).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const service of mine) {
    const host = hostOf(service);
    const first = service.ports[0];
    // Validation gives every Service with an address at least one port; one without a port has nothing to link.
    if (host === undefined || host === '' || first === undefined) continue;
    const prefix = serviceEnvName(service.name);
    out.push({ name: `${prefix}_SERVICE_HOST`, value: host });
    out.push({ name: `${prefix}_SERVICE_PORT`, value: String(first.port) });
    for (const p of service.ports) {
      if (p.name !== undefined && p.name !== '') out.push({ name: `${prefix}_SERVICE_PORT_${serviceEnvName(p.name)}`, value: String(p.port) });
    }
    // Docker-link compatible variables; the first port also gets the bare <SVC>_PORT.
    const url = (p: ServicePortSpec): string => `${p.protocol.toLowerCase()}://${host}:${p.port}`;
    out.push({ name: `${prefix}_PORT`, value: url(first) });
    for (const p of service.ports) {
      const portPrefix = `${prefix}_PORT_${p.port}_${p.protocol.toUpperCase()}`;
      out.push({ name: portPrefix, value: url(p) });
      out.push({ name: `${portPrefix}_PROTO`, value: p.protocol.toLowerCase() });
      out.push({ name: `${portPrefix}_PORT`, value: String(p.port) });
      out.push({ name: `${portPrefix}_ADDR`, value: host });
    }
  }
  return out;
}

/**
 * Whether a Service selects a pod: same namespace, and every selector label present on the pod with that value
 * (labels.SelectorFromSet). A Service without a selector selects nothing: its endpoints are written by hand
 * (Endpoints, EndpointSlices), which runpod does not read.
 */
export function serviceSelects(service: ServiceObject, podNamespace: string, podLabels: Readonly<Record<string, string>> | undefined): boolean {
  const selector = service.selector;
  if (selector === undefined || Object.keys(selector).length === 0) return false;
  if (service.namespace !== podNamespace) return false;
  const labels = podLabels ?? {};
  return Object.entries(selector).every(([k, v]) => Object.hasOwn(labels, k) && labels[k] === v);
}

/** A container port as a pod declares it (protocol defaults to TCP, SetDefaults_ContainerPort). */
export interface EndpointPort {
  name?: string;
  containerPort: number;
  protocol?: string;
}

/**
 * The port a Service port forwards to on one pod: a number as it is; a name resolved against the pod's container
 * ports of the same protocol (FindPort), the first that matches; undefined when the pod has no such port (the pod
 * is then no endpoint of that port, as kube-proxy and the EndpointSlice controller leave it out). Pass the ports in
 * FindPort's order: endpointPorts gives them so.
 */
export function resolveTargetPort(port: ServicePortSpec, containerPorts: readonly EndpointPort[]): number | undefined {
  if (typeof port.targetPort === 'number') return port.targetPort;
  const found = containerPorts.find((c) => c.name === port.targetPort && (c.protocol ?? 'TCP') === port.protocol);
  return found?.containerPort;
}

/**
 * The container ports a named targetPort may name, in FindPort's order: the containers' ports, then those of
 * sidecars (init containers with restartPolicy Always), which serve beside the containers; other init containers
 * have exited before the pod serves, so their ports are not looked at.
 */
export function endpointPorts(spec: Pick<PodSpec, 'containers' | 'initContainers'>): EndpointPort[] {
  const out: EndpointPort[] = [];
  const add = (ports: NonNullable<PodSpec['containers'][number]['ports']> | undefined): void => {
    for (const p of ports ?? [])
      out.push({ ...(p.name !== undefined ? { name: p.name } : {}), containerPort: p.containerPort, ...(p.protocol !== undefined ? { protocol: p.protocol } : {}) });
  };
  for (const c of spec.containers) add(c.ports);
  for (const c of spec.initContainers ?? []) if (c.restartPolicy === 'Always') add(c.ports);
  return out;
}
