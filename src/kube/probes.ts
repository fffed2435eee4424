// Probe data shared by the scheduler, the handlers and the manager. Plain data: a plan carries ProbeSpecs, a
// handler turns one into a ProbeOutcome.
import { type HttpGetHandler, describeHttpGet } from './handlers.js';

/** Kubernetes' three probe kinds (pkg/kubelet/prober: startup, readiness, liveness). */
export type ProbeKind = 'startup' | 'readiness' | 'liveness';

export interface ExecHandler {
  type: 'exec';
  command: string[];
}

export type { HttpGetHandler };

export interface TcpSocketHandler {
  type: 'tcpSocket';
  host: string;
  port: number;
}

export interface GrpcHandler {
  type: 'grpc';
  port: number;
  /** The service name sent in grpc.health.v1.HealthCheckRequest; empty asks about the server as a whole. */
  service: string;
}

export type ProbeHandler = ExecHandler | HttpGetHandler | TcpSocketHandler | GrpcHandler;

/** A probe with Kubernetes' defaults applied (SetDefaults_Probe), times in milliseconds. */
export interface ProbeSpec {
  kind: ProbeKind;
  handler: ProbeHandler;
  initialDelayMs: number;
  periodMs: number;
  timeoutMs: number;
  successThreshold: number;
  failureThreshold: number;
  /** For liveness and startup: the grace period of the kill that follows a failure (probe's own, else the pod's). */
  gracePeriodSeconds: number;
}

export interface ContainerProbes {
  startup?: ProbeSpec;
  readiness?: ProbeSpec;
  liveness?: ProbeSpec;
}

/** One probe's result and what it said (the kubelet keeps the output for events; runpod shows it on failure). */
export interface ProbeOutcome {
  ok: boolean;
  output: string;
}

/** Where a probe from the host connects: the pod's address, or a published port on the engine's host. */
export interface ProbeAddress {
  host: string;
  port: number;
  /** For messages: "pod IP 172.17.0.3" or "published port 127.0.0.1:8080". */
  via: string;
}

/** One host binding of a published port, as the Engine API spells it. */
export interface PortBinding {
  HostIp?: string;
  HostPort?: string;
}

/** The kubelet reads at most 10 KiB of a probe's output (prober's maxRespBodyLength / exec's maxReadLength). */
export const maxProbeOutput = 10 * 1024;

/** The User-Agent the kubelet sends (kube-probe/<major>.<minor>); runpod says who it is instead. */
export const probeUserAgent = 'kube-probe/runpod';

export function describeHandler(h: ProbeHandler): string {
  switch (h.type) {
    case 'exec':
      return `exec [${h.command.join(' ')}]`;
    case 'httpGet':
      return describeHttpGet(h, '<pod>');
    case 'tcpSocket':
      return `tcpSocket ${h.host || '<pod>'}:${h.port}`;
    case 'grpc':
      return `grpc ${h.port}${h.service ? ` service ${h.service}` : ''}`;
  }
}
