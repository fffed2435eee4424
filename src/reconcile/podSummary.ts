// Pure: what `runpod status` (and logs, exec, stats) know about the pods on the engine, from inspect documents
// of the containers carrying runpod's labels. No plan is needed: everything comes from the labels and states.
// Readiness needs one thing more, what the containers' readiness probes say now: `status` runs them (from the
// labels, probeLabels.ts) and passes the results in; no other command probes.
import type { ContainerInspect } from '../engine/ports/containers.js';
import { Label, infraContainerName, podLabelsOf } from '../kube/labels.js';
import { type LabelledProbes, probesFromLabels } from '../plan/probeLabels.js';
import { type PortBinding, type ProbeOutcome, type ProbeSpec, describeHandler } from '../kube/probes.js';
import { groupPod, type ObservedContainer, toObservedContainer } from './observe.js';

export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

export interface ContainerInstance extends ObservedContainer {
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** The readiness and startup probes the instance was created with (its labels); none on older containers. */
  probes: LabelledProbes;
}

/** Whether a running container's probes say it is ready, and what they said (`status` -o json: readiness). */
export interface ReadinessCheck {
  ok: boolean;
  message: string;
}

/** What `status` found by running the probes just now, by container instance id. */
export type ReadinessResults = ReadonlyMap<string, ReadinessCheck>;

export interface ContainerSummary {
  name: string;
  /** The newest instance, the one the pod runs. */
  current: ContainerInstance;
  /** Older instances, newest first: dead ones kept for `logs --previous` until `gc`. */
  previous: ContainerInstance[];
  /**
   * Kubernetes' ContainerStatus.ready, as kubectl's READY counts it: running, and, when the instance has a
   * readiness or startup probe, the probes' result (readiness) passed. Without a result for such a container
   * (every command but status, which alone probes) it is not ready: unknown is not ready, as for the kubelet.
   */
  ready: boolean;
  /** What the probes said, when the container has a readiness or startup probe and was running when looked at. */
  readiness?: ReadinessCheck;
  /** Restarts as the kubelet counts them: replaced instances (attempt) plus the engine's own restarts. */
  restarts: number;
  /** running, restarting, waiting (created), exited (code), OOMKilled … */
  status: string;
}

export interface PodSummary {
  namespace: string;
  name: string;
  uid: string;
  phase: PodPhase;
  /** The infra container's creation: the pod's age. */
  createdAt?: number;
  ip?: string;
  /** Published ports, docker's way: 127.0.0.1:8080->80/tcp. */
  ports: string[];
  /** The manifest the pod came from (io.runpod.source on the infra container); absent for stdin. */
  source?: string;
  /** The workload whose pod this is (deployment/web), from its owner label. */
  owner?: string;
  /** The pod's metadata.labels, from its infra container (what -l selects on). */
  labels: Record<string, string>;
  infra?: ContainerInstance;
  /** App containers by name, sorted by name. */
  containers: ContainerSummary[];
  /** Sidecars (init containers with restartPolicy Always) by name: READY counts them, as kubectl does. */
  sidecars: ContainerSummary[];
  /**
   * Every init container, sidecars included, in the order they ran (by their first instance's creation: init
   * containers start one at a time, in the spec's order), for `logs -c` and `logs --all-containers`.
   */
  initContainers: ContainerSummary[];
  /** The infra container's port bindings by container port ("80/tcp"): where a probe reaches an unrouted pod. */
  portBindings: Record<string, PortBinding[]>;
  /** Ready app containers and sidecars (kubectl's READY: regular init containers do not count). */
  readyCount: number;
  /** What READY counts over: app containers and sidecars. */
  readyTotal: number;
  restarts: number;
}

function parseTime(s: string | undefined): number {
  const t = s ? Date.parse(s) : NaN;
  return Number.isNaN(t) ? 0 : t;
}

function instance(info: ContainerInspect): ContainerInstance {
  return { ...toObservedContainer(info), createdAt: parseTime(info.Created), probes: probesFromLabels(info.Config.Labels ?? {}) };
}

const hasProbes = (c: ContainerInstance): boolean => c.probes.readiness !== undefined || c.probes.startup !== undefined;

/** ContainerStatus.ready from the state and, for a container with probes, what status's probes said. */
function isReady(c: ContainerInstance, result: ReadinessCheck | undefined): boolean {
  if (c.state !== 'running') return false;
  return !hasProbes(c) || result?.ok === true;
}

/** How long a startupProbe may fail before the kubelet kills the container: its initial delay, then failureThreshold periods. */
export function startupBudgetMs(spec: ProbeSpec): number {
  return spec.initialDelayMs + spec.failureThreshold * spec.periodMs;
}

/** What `status` does for one container: nothing, a verdict without probing, or these probes, in order. */
export type ReadinessWork = { verdict: ReadinessCheck } | { run: ProbeSpec[] };

/**
 * What to run now to know whether a running container is ready; undefined for one that is not running or has no
 * readiness or startup probe (its state alone decides). One look, where the kubelet probes all along:
 * - startupProbe: the container is started when the probe passes now, or when it has been up longer than the
 *   probe's budget (startupBudgetMs). Past the budget the kubelet would have killed a container whose startup
 *   probe never passed, and it stops running a startup probe once it has passed; so one still up past it is
 *   taken as started, and its startup probe is not run again (it may well fail now, e.g. a one-time init marker).
 *   Before its initialDelaySeconds the probe has not run: not started.
 * - readinessProbe: run once, only for a started container (the kubelet runs none before); before its
 *   initialDelaySeconds (from the container's start, as the kubelet counts it) it is not ready. Its passes count as
 *   the run counts them (wait/probes/readinessOnce.ts: successThreshold passes in a row, looked at back to back).
 */
export function readinessWork(c: ContainerInstance, now: number): ReadinessWork | undefined {
  if (c.state !== 'running' || !hasProbes(c)) return undefined;
  const up = Math.max(0, now - (c.startedAt ?? now));
  const { startup, readiness } = c.probes;
  const run: ProbeSpec[] = [];
  if (startup && up < startupBudgetMs(startup)) {
    if (up < startup.initialDelayMs)
      return { verdict: { ok: false, message: `not started: ${probeName(startup)} waits its initialDelaySeconds (${startup.initialDelayMs / 1000}s)` } };
    run.push(startup);
  }
  if (readiness) {
    if (up < readiness.initialDelayMs)
      return { verdict: { ok: false, message: `not ready: ${probeName(readiness)} waits its initialDelaySeconds (${readiness.initialDelayMs / 1000}s)` } };
    run.push(readiness);
  }
  if (run.length === 0) return { verdict: { ok: true, message: `started: up for ${Math.floor(up / 1000)}s, past its startup probe's budget` } };
  return { run };
}

const probeName = (spec: ProbeSpec): string => `${spec.kind} probe (${describeHandler(spec.handler)})`;

/** The verdict of the probes readinessWork asked for, from their outcomes in the same order (the first failure ends it). */
export function readinessVerdict(run: readonly ProbeSpec[], outcomes: readonly ProbeOutcome[]): ReadinessCheck {
  for (const [i, spec] of run.entries()) {
    const o = outcomes[i];
    if (!o) return { ok: false, message: `${spec.kind === 'startup' ? 'not started' : 'not ready'}: ${probeName(spec)} did not run` };
    if (!o.ok) return { ok: false, message: `${spec.kind === 'startup' ? 'not started' : 'not ready'}: ${probeName(spec)} failed: ${o.output}` };
  }
  const last = run[run.length - 1]!;
  const said = outcomes[run.length - 1]?.output ?? '';
  return { ok: true, message: `${probeName(last)} passed${said ? `: ${said}` : ''}` };
}

/** The engine keeps this exited container going by itself (its restart policy says so). */
function engineRestarts(c: ObservedContainer): boolean {
  if (c.state === 'restarting') return true;
  if (c.engineRestartPolicy === 'always' || c.engineRestartPolicy === 'unless-stopped') return c.state === 'exited';
  return c.engineRestartPolicy === 'on-failure' && c.state === 'exited' && c.exitCode !== 0;
}

function containerStatus(c: ObservedContainer): string {
  if (c.state === 'created') return 'waiting';
  if (c.state === 'exited' || c.state === 'dead') return c.oomKilled ? `OOMKilled (exit ${c.exitCode})` : `exited (${c.exitCode})`;
  return c.state;
}

/**
 * Kubernetes pod phases: Succeeded when every container terminated with 0 and none will restart; Failed when
 * all terminated, none will restart and one failed; Running when the sandbox is up and a container runs (or is
 * being restarted); otherwise Pending.
 */
export function podPhase(infra: ObservedContainer | undefined, containers: ObservedContainer[]): PodPhase {
  if (containers.length > 0 && containers.every((c) => (c.state === 'exited' || c.state === 'dead') && !engineRestarts(c))) {
    return containers.every((c) => c.exitCode === 0) ? 'Succeeded' : 'Failed';
  }
  const sandboxUp = infra !== undefined && (infra.state === 'running' || infra.state === 'paused');
  if (sandboxUp && containers.length > 0 && containers.every((c) => c.state !== 'created') && containers.some((c) => c.state === 'running' || engineRestarts(c))) {
    return 'Running';
  }
  return 'Pending';
}

/** Published ports from the infra container's bindings: hostIP:hostPort->containerPort/protocol. */
function publishedPorts(info: ContainerInspect | undefined): string[] {
  const bindings = info?.HostConfig.PortBindings as Record<string, { HostIp?: string; HostPort?: string }[] | null> | undefined;
  const out: string[] = [];
  for (const [port, list] of Object.entries(bindings ?? {}).sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))) {
    for (const b of list ?? []) out.push(`${b.HostIp || '0.0.0.0'}:${b.HostPort ?? ''}->${port}`);
  }
  return out;
}

/**
 * The infra container's port bindings: the engine's actual ones (a port it chose for --publish-all), else the
 * requested ones.
 */
function portBindingsOf(info: ContainerInspect | undefined): Record<string, PortBinding[]> {
  const actual = info?.NetworkSettings?.Ports as Record<string, PortBinding[] | null> | undefined;
  const requested = info?.HostConfig.PortBindings as Record<string, PortBinding[] | null> | undefined;
  const out: Record<string, PortBinding[]> = {};
  for (const [port, list] of Object.entries(requested ?? {})) if (list?.length) out[port] = list;
  for (const [port, list] of Object.entries(actual ?? {})) if (list?.length) out[port] = list;
  return out;
}

/** A pod's owner, from any of its containers (each carries the label). */
function ownerOf(infos: readonly ContainerInspect[]): string | undefined {
  return infos.map((i) => i.Config.Labels?.[Label.owner]).find((o) => o !== undefined);
}

/**
 * Group inspect documents into pods by namespace/name; the pod's current uid is its newest infra's. readiness:
 * what `status` found by probing (by instance id); without it a container with probes is not ready.
 */
export function summarizePods(inspected: ContainerInspect[], readiness: ReadinessResults = new Map()): PodSummary[] {
  const byPod = new Map<string, ContainerInspect[]>();
  for (const info of inspected) {
    const labels = info.Config.Labels ?? {};
    const ns = labels[Label.podNamespace];
    const name = labels[Label.podName];
    if (ns === undefined || name === undefined) continue;
    const key = `${ns}/${name}`;
    byPod.set(key, [...(byPod.get(key) ?? []), info]);
  }
  const pods: PodSummary[] = [];
  for (const [key, infos] of byPod) {
    const [namespace, name] = [key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1)];
    const instances = infos.map(instance);
    const grouped = groupPod(instances);
    const infra = grouped.infra[0] as ContainerInstance | undefined;
    const uid = infra?.podUid ?? instances[0]?.podUid ?? '';
    const infraInfo = infra ? infos.find((i) => i.Id === infra.id) : undefined;
    const summaries = (byName: Map<string, ObservedContainer[]>, only?: (c: ContainerInstance) => boolean): ContainerSummary[] => {
      const out: ContainerSummary[] = [];
      for (const [cname, list] of [...byName].sort(([a], [b]) => a.localeCompare(b))) {
        const mine = (list as ContainerInstance[]).filter((c) => c.podUid === uid);
        const current = mine[0];
        if (!current || (only && !only(current))) continue;
        const result = current.state === 'running' && hasProbes(current) ? readiness.get(current.id) : undefined;
        out.push({
          name: cname,
          current,
          previous: mine.slice(1),
          ready: isReady(current, result),
          ...(result ? { readiness: result } : {}),
          restarts: current.attempt + current.restartCount,
          status: containerStatus(current),
        });
      }
      return out;
    };
    const containers = summaries(grouped.containers);
    const sidecars = summaries(grouped.initContainers, (c) => c.initKind === 'sidecar');
    const firstCreated = (c: ContainerSummary): number => Math.min(c.current.createdAt, ...c.previous.map((p) => p.createdAt));
    const initContainers = summaries(grouped.initContainers).sort((a, b) => firstCreated(a) - firstCreated(b) || a.name.localeCompare(b.name));
    const counted = [...containers, ...sidecars];
    const source = infraInfo?.Config.Labels?.[Label.source];
    const owner = ownerOf(infos);
    pods.push({
      namespace,
      name,
      uid,
      phase: podPhase(
        infra,
        containers.map((c) => c.current),
      ),
      ...(infra ? { createdAt: infra.createdAt, infra } : {}),
      ...(infra?.ip ? { ip: infra.ip } : {}),
      ports: publishedPorts(infraInfo),
      ...(source ? { source } : {}),
      ...(owner !== undefined ? { owner } : {}),
      labels: podLabelsOf(infraInfo?.Config.Labels ?? {}),
      containers,
      sidecars,
      initContainers,
      portBindings: portBindingsOf(infraInfo),
      readyCount: counted.filter((c) => c.ready).length,
      readyTotal: counted.length,
      restarts: containers.reduce((n, c) => n + c.restarts, 0),
    });
  }
  return pods.sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
}

export const isInfra = (c: { name: string }): boolean => c.name === infraContainerName;
