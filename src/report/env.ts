// The pods' addresses as environment variables (pure): what a scoped command (`runpod run … -- cmd`) gets in
// its environment and what `-o env` prints as POSIX `export` lines for `eval "$(runpod … -o env)"`.
import { projectEnvVar } from '../kube/project.js';
import type { ServiceResult } from '../services/result.js';
import type { PodResult } from './result.js';

export type EnvPod = Pick<PodResult, 'namespace' | 'name' | 'ip' | 'source' | 'ports'>;

export interface EnvSet {
  /** Name and value, in a stable order: pods as given, then their ports as declared. */
  vars: [string, string][];
  /** Names left out because two pods or ports would have given them different values. */
  warnings: string[];
}

/** One name part: upper-cased, every character other than A-Z, 0-9 and _ turned into _. */
export function envPart(s: string): string {
  return s.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
}

/**
 * POSIX single quotes take every character literally except the quote itself, which is written as '\''
 * (close, an escaped quote, reopen). Always quoting keeps the rule simple enough to trust under eval.
 */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Words as a POSIX shell reads them back, for a command line a user copies: quoted only where they must be. */
export function shellLine(words: readonly string[]): string {
  return words.map((w) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : shellQuote(w))).join(' ');
}

/** The variables of one pod, each name after the given prefix (RUNPOD_<POD>_ or, short, RUNPOD_). */
function podVars(prefix: string, p: EnvPod): [string, string][] {
  const out: [string, string][] = [];
  if (p.ip) out.push([`${prefix}IP`, p.ip]);
  if (p.source !== undefined) out.push([`${prefix}SOURCE`, p.source]);
  for (const port of p.ports ?? []) {
    // TCP is the default and takes no suffix; UDP and SCTP ports of the same number stay apart.
    const proto = port.protocol === 'TCP' ? '' : `_${port.protocol}`;
    out.push([`${prefix}PORT_${port.containerPort}${proto}`, String(port.containerPort)]);
    if (port.name) out.push([`${prefix}${envPart(port.name)}_PORT`, String(port.containerPort)]);
    if (port.hostPort !== undefined) out.push([`${prefix}HOST_PORT_${port.containerPort}${proto}`, String(port.hostPort)]);
  }
  return out;
}

/** A Service's address, its ports, and the host ports it is published on (NodePort, LoadBalancer, --publish-all). */
function serviceVars(prefix: string, s: ServiceResult): [string, string][] {
  const out: [string, string][] = [];
  if (s.ip) out.push([`${prefix}IP`, s.ip]);
  for (const port of s.ports) {
    const proto = port.protocol === 'TCP' ? '' : `_${port.protocol}`;
    out.push([`${prefix}PORT_${port.port}${proto}`, String(port.port)]);
    if (port.name) out.push([`${prefix}${envPart(port.name)}_PORT`, String(port.port)]);
    if (port.hostPort !== undefined) out.push([`${prefix}HOST_PORT_${port.port}${proto}`, String(port.hostPort)]);
  }
  return out;
}

/**
 * RUNPOD_<POD>_IP, RUNPOD_<POD>_SOURCE, RUNPOD_<POD>_PORT_<N>, RUNPOD_<POD>_<PORTNAME>_PORT and
 * RUNPOD_<POD>_HOST_PORT_<N>; with one pod also the short forms without <POD>_. <POD> is the pod's name, or
 * <NAMESPACE>_<NAME> for pods whose names alone would meet (same name in two namespaces, web-1 and web.1).
 * Under an isolation key, RUNPOD_PROJECT comes first, so runpod commands run with these variables (status, logs,
 * exec, down) follow the key.
 */
export function podEnvironment(pods: EnvPod[], project?: string, services: readonly ServiceResult[] = []): EnvSet {
  const byPart = new Map<string, number>();
  for (const p of pods) byPart.set(envPart(p.name), (byPart.get(envPart(p.name)) ?? 0) + 1);
  const long: [string, string][] = pods.flatMap((p) => {
    const part = (byPart.get(envPart(p.name)) ?? 0) > 1 ? `${envPart(p.namespace)}_${envPart(p.name)}` : envPart(p.name);
    return podVars(`RUNPOD_${part}_`, p);
  });
  // Services after the pods, under RUNPOD_SVC_<SVC>_ (<NAMESPACE>_<SVC> when two namespaces have one of a name).
  const bySvc = new Map<string, number>();
  for (const s of services) bySvc.set(envPart(s.name), (bySvc.get(envPart(s.name)) ?? 0) + 1);
  for (const s of services) {
    const part = (bySvc.get(envPart(s.name)) ?? 0) > 1 ? `${envPart(s.namespace)}_${envPart(s.name)}` : envPart(s.name);
    long.push(...serviceVars(`RUNPOD_SVC_${part}_`, s));
  }
  const values = new Map<string, string>();
  const clashed = new Set<string>();
  for (const [k, v] of long) {
    const seen = values.get(k);
    if (seen !== undefined && seen !== v) clashed.add(k);
    values.set(k, v);
  }
  const warnings = [...clashed].map((k) => `${k} left out: two pods or ports give it different values`);
  const vars: [string, string][] = project !== undefined ? [[projectEnvVar, project]] : [];
  const emitted = new Set<string>(vars.map(([k]) => k));
  for (const [k, v] of long) {
    if (clashed.has(k) || emitted.has(k)) continue;
    emitted.add(k);
    vars.push([k, v]);
  }
  // The short forms never displace a long name (a pod called "host" has RUNPOD_HOST_PORT_80 of its own).
  if (pods.length === 1) {
    for (const [k, v] of podVars('RUNPOD_', pods[0]!)) {
      if (clashed.has(k) || values.has(k) || emitted.has(k)) continue;
      emitted.add(k);
      vars.push([k, v]);
    }
  }
  return { vars, warnings };
}

/** `export NAME='value'` lines, safe for eval whatever the values; warnings as comments. */
export function exportLines(env: EnvSet): string {
  const comments = env.warnings.map((w) => `# runpod: ${w.replace(/[\r\n]/g, ' ')}\n`);
  return [...comments, ...env.vars.map(([k, v]) => `export ${k}=${shellQuote(v)}\n`)].join('');
}
