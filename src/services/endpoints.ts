// A Service's endpoints, as the EndpointSlice controller finds them (pure): the pods of its namespace whose labels
// its selector matches, ready ones only unless publishNotReadyAddresses, each port's targetPort resolved against
// the pod's own container ports. https://kubernetes.io/docs/concepts/services-networking/service/#services-without-selectors
import type { ServiceObject, ServicePortSpec } from '../manifest/types.js';
import { type EndpointPort, resolveTargetPort, serviceSelects } from '../plan/serviceEnv.js';

/** What the endpoints step needs to know of one pod on the engine. */
export interface EndpointPod {
  uid: string;
  namespace: string;
  name: string;
  labels: Readonly<Record<string, string>>;
  /** The pod's address on its namespace network; undefined while it has none (not running). */
  ip?: string;
  ready: boolean;
  /** Its container ports in FindPort's order (plan/serviceEnv.ts endpointPorts). */
  ports: readonly EndpointPort[];
}

export interface Backend {
  pod: string;
  uid: string;
  ip: string;
  port: number;
}

export interface PortEndpoints {
  port: ServicePortSpec;
  backends: Backend[];
}

/** Each port's backends, pods in a stable order (by name) so rules written twice from one state are the same. */
export function serviceEndpoints(service: ServiceObject, pods: readonly EndpointPod[]): PortEndpoints[] {
  const members = pods
    .filter((p) => p.ip !== undefined && serviceSelects(service, p.namespace, p.labels) && (p.ready || service.publishNotReadyAddresses))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return service.ports.map((port) => ({
    port,
    backends: members.flatMap((p) => {
      const target = resolveTargetPort(port, p.ports);
      return target === undefined ? [] : [{ pod: p.name, uid: p.uid, ip: p.ip!, port: target }];
    }),
  }));
}
