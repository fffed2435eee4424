// A container's readiness and startup probes on the engine (pure): each app container and sidecar carries them,
// as planned (ProbeSpec, Kubernetes' defaults applied, named ports resolved), as JSON in labels, so `runpod
// status`, which may have no manifest, can run them once to tell a ready container from a running one (kubectl's
// READY), as lifecycle.ts keeps a preStop hook for `down`.
//
// Labels only: no hash covers them (probes are outside the container hash, translate.ts probesOf), so a container
// made before these labels existed is not replaced for the lack of them; it has none and counts as ready when
// running. For the same reason a probe changed in the manifest does not replace a running container: the labels
// keep the probes the instance was created with until something else replaces it.
//
// No Secret data can land here: a probe is spec text only (exec command, port, path, httpHeaders, host, gRPC
// service). Kubernetes' httpHeaders are literal name/value pairs (no valueFrom), and runpod does not expand
// $(VAR) in a probe's command.
import type { ContainerProbes, ProbeHandler, ProbeSpec } from '../kube/probes.js';

export const ProbeLabel = {
  readiness: 'io.runpod.probe.readiness',
  startup: 'io.runpod.probe.startup',
} as const;

/** The probes `status` needs: readiness, and startup, which gates it. */
export type LabelledProbes = Pick<ContainerProbes, 'readiness' | 'startup'>;

/** The labels a container's probes add; none without a readiness or startup probe. */
export function probeLabels(probes: ContainerProbes | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (probes?.readiness) out[ProbeLabel.readiness] = JSON.stringify(probes.readiness);
  if (probes?.startup) out[ProbeLabel.startup] = JSON.stringify(probes.startup);
  return out;
}

/** Read the probes back; a label that is absent, or not one runpod wrote (edited by hand), is no probe. */
export function probesFromLabels(labels: Record<string, string>): LabelledProbes {
  const readiness = parseSpec(labels[ProbeLabel.readiness], 'readiness');
  const startup = parseSpec(labels[ProbeLabel.startup], 'startup');
  return { ...(readiness ? { readiness } : {}), ...(startup ? { startup } : {}) };
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const count = (v: unknown, min: number): v is number => typeof v === 'number' && Number.isFinite(v) && v >= min;
const isString = (v: unknown): v is string => typeof v === 'string';
const port = (v: unknown): v is number => Number.isInteger(v) && count(v, 1) && v <= 65535;

function parseSpec(raw: string | undefined, kind: 'readiness' | 'startup'): ProbeSpec | undefined {
  if (raw === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isObj(v) || v.kind !== kind) return undefined;
  const handler = parseHandler(v.handler);
  if (!handler) return undefined;
  const { initialDelayMs, periodMs, timeoutMs, successThreshold, failureThreshold, gracePeriodSeconds } = v;
  if (!count(initialDelayMs, 0) || !count(periodMs, 1) || !count(timeoutMs, 1) || !count(successThreshold, 1) || !count(failureThreshold, 1)) return undefined;
  if (!count(gracePeriodSeconds, 0)) return undefined;
  return { kind, handler, initialDelayMs, periodMs, timeoutMs, successThreshold, failureThreshold, gracePeriodSeconds };
}

function parseHandler(h: unknown): ProbeHandler | undefined {
  if (!isObj(h)) return undefined;
  switch (h.type) {
    case 'exec':
      return Array.isArray(h.command) && h.command.every(isString) ? { type: 'exec', command: h.command } : undefined;
    case 'tcpSocket':
      return port(h.port) && isString(h.host) ? { type: 'tcpSocket', host: h.host, port: h.port } : undefined;
    case 'grpc':
      return port(h.port) && isString(h.service) ? { type: 'grpc', port: h.port, service: h.service } : undefined;
    case 'httpGet': {
      if (!port(h.port) || !isString(h.path) || !isString(h.host) || (h.scheme !== 'HTTP' && h.scheme !== 'HTTPS')) return undefined;
      const headers = Array.isArray(h.headers) ? h.headers : [];
      if (!headers.every((x) => isObj(x) && isString(x.name) && isString(x.value))) return undefined;
      return {
        type: 'httpGet',
        scheme: h.scheme,
        host: h.host,
        path: h.path,
        port: h.port,
        headers: (headers as { name: string; value: string }[]).map(({ name, value }) => ({ name, value })),
      };
    }
    default:
      return undefined;
  }
}
