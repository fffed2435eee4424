// Pure: what `runpod status` (and logs, exec, stats) know about the pods on the engine, from inspect documents
// of the containers carrying runpod's labels. No plan is needed: everything comes from the labels and states.
import type { ContainerInspect } from '../engine/engine.js';
import { Label, infraContainerName, podLabelsOf } from '../plan/labels.js';
import { groupPod, type ObservedContainer, toObservedContainer } from './observe.js';

export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

export interface ContainerInstance extends ObservedContainer {
  /** Milliseconds since the epoch. */
  createdAt: number;
}

export interface ContainerSummary {
  name: string;
  /** The newest instance, the one the pod runs. */
  current: ContainerInstance;
  /** Older instances, newest first: dead ones kept for `logs --previous` until `gc`. */
  previous: ContainerInstance[];
  ready: boolean;
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
  /** The pod's metadata.labels, from its infra container (what -l selects on). */
  labels: Record<string, string>;
  infra?: ContainerInstance;
  /** App containers by name, sorted by name. */
  containers: ContainerSummary[];
  readyCount: number;
  restarts: number;
}

function parseTime(s: string | undefined): number {
  const t = s ? Date.parse(s) : NaN;
  return Number.isNaN(t) ? 0 : t;
}

function instance(info: ContainerInspect): ContainerInstance {
  return { ...toObservedContainer(info), createdAt: parseTime(info.Created) };
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

/** Group inspect documents into pods by namespace/name; the pod's current uid is its newest infra's. */
export function summarizePods(inspected: ContainerInspect[]): PodSummary[] {
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
    const containers: ContainerSummary[] = [];
    for (const [cname, list] of [...grouped.containers].sort(([a], [b]) => a.localeCompare(b))) {
      const mine = (list as ContainerInstance[]).filter((c) => c.podUid === uid);
      const current = mine[0];
      if (!current) continue;
      containers.push({
        name: cname,
        current,
        previous: mine.slice(1),
        ready: current.state === 'running',
        restarts: current.attempt + current.restartCount,
        status: containerStatus(current),
      });
    }
    const source = infraInfo?.Config.Labels?.[Label.source];
    pods.push({
      namespace,
      name,
      uid,
      phase: podPhase(infra, containers.map((c) => c.current)),
      ...(infra ? { createdAt: infra.createdAt, infra } : {}),
      ...(infra?.ip ? { ip: infra.ip } : {}),
      ports: publishedPorts(infraInfo),
      ...(source ? { source } : {}),
      labels: podLabelsOf(infraInfo?.Config.Labels ?? {}),
      containers,
      readyCount: containers.filter((c) => c.ready).length,
      restarts: containers.reduce((n, c) => n + c.restarts, 0),
    });
  }
  return pods.sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
}

export const isInfra = (c: { name: string }): boolean => c.name === infraContainerName;
