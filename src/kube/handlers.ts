// The httpGet action shared by probes and lifecycle hooks, with Kubernetes' defaults applied (pure).
import type { Container, HTTPGetAction } from 'kubernetes-types/core/v1.js';

export interface HttpGetHandler {
  type: 'httpGet';
  scheme: 'HTTP' | 'HTTPS';
  /** Empty: the pod's address (Kubernetes: "Host name to connect to, defaults to the pod IP"). */
  host: string;
  path: string;
  /** The container port, a named port already resolved against the container's ports. */
  port: number;
  headers: { name: string; value: string }[];
}

/** The kubelet's port resolution: a number as is, a numeric string as a number, a name among the container's ports. */
export function resolvePort(c: Container, port: number | string | undefined): number | undefined {
  if (typeof port === 'number') return port;
  if (typeof port === 'string') {
    if (/^[0-9]+$/.test(port)) return Number(port);
    return c.ports?.find((p) => p.name === port)?.containerPort;
  }
  return undefined;
}

/** undefined when a named port is not among the container's ports (validation refuses that first). */
export function httpGetHandler(c: Container, action: HTTPGetAction): HttpGetHandler | undefined {
  const port = resolvePort(c, action.port);
  if (port === undefined) return undefined;
  // SetDefaults_HTTPGetAction: path "/" and scheme HTTP.
  const raw = action.path ?? '';
  return {
    type: 'httpGet',
    scheme: action.scheme === 'HTTPS' ? 'HTTPS' : 'HTTP',
    host: action.host ?? '',
    path: raw === '' ? '/' : raw.startsWith('/') ? raw : `/${raw}`,
    port,
    headers: (action.httpHeaders ?? []).map((h) => ({ name: h.name, value: h.value })),
  };
}

/** An httpGet action as reports name it: its URL, with `pod` standing for the pod's address when host is empty. */
export function describeHttpGet(h: HttpGetHandler, pod: string): string {
  return `httpGet ${h.scheme.toLowerCase()}://${h.host || pod}:${h.port}${h.path}`;
}
