// From a Pod's probe fields to ProbeSpecs (pure): Kubernetes' defaults (pkg/apis/core/v1/defaults.go
// SetDefaults_Probe, SetDefaults_HTTPGetAction) and named ports resolved as the kubelet's FindPort does (against
// the container's own ports). Validation has already refused what Kubernetes refuses.
import { httpGetHandler, resolvePort } from '../kube/handlers.js';
import type { Container, Probe } from 'kubernetes-types/core/v1.js';
import type { ContainerProbes, ProbeHandler, ProbeKind, ProbeSpec } from '../kube/probes.js';

/** SetDefaults_Probe: 0 or unset means the default. */
const defaults = { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 };

function handlerOf(c: Container, p: Probe): ProbeHandler | undefined {
  if (p.exec) return { type: 'exec', command: p.exec.command ?? [] };
  if (p.httpGet) return httpGetHandler(c, p.httpGet);
  if (p.tcpSocket) {
    const port = resolvePort(c, p.tcpSocket.port);
    return port === undefined ? undefined : { type: 'tcpSocket', host: p.tcpSocket.host ?? '', port };
  }
  if (p.grpc) return { type: 'grpc', port: p.grpc.port, service: p.grpc.service ?? '' };
  return undefined;
}

const orDefault = (v: number | undefined, d: number): number => (v === undefined || v === 0 ? d : v);

export function probeSpec(kind: ProbeKind, c: Container, p: Probe, podGraceSeconds: number): ProbeSpec | undefined {
  const handler = handlerOf(c, p);
  if (!handler) return undefined;
  return {
    kind,
    handler,
    initialDelayMs: (p.initialDelaySeconds ?? 0) * 1000,
    periodMs: orDefault(p.periodSeconds, defaults.periodSeconds) * 1000,
    timeoutMs: orDefault(p.timeoutSeconds, defaults.timeoutSeconds) * 1000,
    successThreshold: orDefault(p.successThreshold, defaults.successThreshold),
    failureThreshold: orDefault(p.failureThreshold, defaults.failureThreshold),
    // Probe-level terminationGracePeriodSeconds overrides the pod's for the kill after a liveness or startup
    // failure (KEP-2238, GA in 1.28).
    gracePeriodSeconds: p.terminationGracePeriodSeconds ?? podGraceSeconds,
  };
}

export function containerProbes(c: Container, podGraceSeconds: number): ContainerProbes | undefined {
  const out: ContainerProbes = {};
  const startup = c.startupProbe ? probeSpec('startup', c, c.startupProbe, podGraceSeconds) : undefined;
  const readiness = c.readinessProbe ? probeSpec('readiness', c, c.readinessProbe, podGraceSeconds) : undefined;
  const liveness = c.livenessProbe ? probeSpec('liveness', c, c.livenessProbe, podGraceSeconds) : undefined;
  if (startup) out.startup = startup;
  if (readiness) out.readiness = readiness;
  if (liveness) out.liveness = liveness;
  return startup || readiness || liveness ? out : undefined;
}

/** Docker's HealthConfig (durations in nanoseconds). */
export interface EngineHealthcheck {
  Test: string[];
  Interval: number;
  Timeout: number;
  Retries: number;
  StartPeriod: number;
}

/**
 * An exec livenessProbe as the container's engine health check, so `docker ps` shows health after runpod has
 * exited. The engine only reports health (it restarts nothing); the probe's timing carries over: period ->
 * interval, timeout, failureThreshold -> retries, initialDelaySeconds -> start period. It is part of the create
 * options, so it is part of the container's hash: changing an exec liveness probe replaces the container.
 */
export function engineHealthcheck(c: Container): EngineHealthcheck | undefined {
  const p = c.livenessProbe;
  if (!p?.exec?.command || p.exec.command.length === 0) return undefined;
  const s = 1_000_000_000;
  return {
    Test: ['CMD', ...p.exec.command],
    Interval: orDefault(p.periodSeconds, defaults.periodSeconds) * s,
    Timeout: orDefault(p.timeoutSeconds, defaults.timeoutSeconds) * s,
    Retries: orDefault(p.failureThreshold, defaults.failureThreshold),
    StartPeriod: (p.initialDelaySeconds ?? 0) * s,
  };
}
