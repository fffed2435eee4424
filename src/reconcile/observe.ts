// observe: what the engine has for one pod, mapped to plain data the pure decide step reads.
import type { ContainerInspect, ContainerReader } from '../engine/ports/containers.js';
import { Label, infraContainerName, podSelector } from '../kube/labels.js';
import { type InitKind, LifecycleLabel } from '../plan/lifecycle.js';
import { type EngineResources, engineResources } from '../plan/resize.js';

export interface ObservedContainer {
  id: string;
  /** The engine's name: k8s_<container>_<pod>_<namespace>_<uid>_<attempt>. */
  dockerName: string;
  /** The container's name in the pod ("POD" for infra). */
  name: string;
  attempt: number;
  hash: string;
  podUid: string;
  /** created | running | paused | restarting | removing | exited | dead */
  state: string;
  exitCode: number;
  oomKilled: boolean;
  /** The engine's error for the last start, if any. */
  error: string;
  /** Milliseconds since the epoch; undefined when never started. */
  startedAt?: number;
  finishedAt?: number;
  /** The engine's restart count for this instance (its restart policy's restarts). */
  restartCount: number;
  /** The engine's restart policy: no | always | on-failure | unless-stopped (Docker reads an empty name as no). */
  engineRestartPolicy: string;
  image: string;
  imageId: string;
  ip?: string;
  /** init | sidecar for an init container's instance (its type label); undefined for app containers. */
  initKind?: InitKind;
  /** The cgroup settings the engine has applied (HostConfig): what an in-place resize compares (resize.ts); absent: unknown. */
  resources?: EngineResources;
  /** The environment the instance was created with (Config.Env): engine-time values as they were resolved. */
  env?: readonly string[];
}

export interface ObservedPod {
  /** Infra instances, newest attempt first. */
  infra: ObservedContainer[];
  /** Instances of each app container by name, newest attempt first. */
  containers: Map<string, ObservedContainer[]>;
  /** Instances of each init container (sidecars included) by name, newest attempt first. */
  initContainers: Map<string, ObservedContainer[]>;
}

/** Docker reports "0001-01-01T00:00:00Z" for never; fractional seconds beyond milliseconds are dropped. */
function parseTime(s: string | undefined): number | undefined {
  if (!s || s.startsWith('0001-')) return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : t;
}

/** Pure: one inspect document to an ObservedContainer. */
export function toObservedContainer(info: ContainerInspect): ObservedContainer {
  const labels = info.Config.Labels ?? {};
  const startedAt = parseTime(info.State.StartedAt);
  const finishedAt = parseTime(info.State.FinishedAt);
  const ip = Object.values(info.NetworkSettings?.Networks ?? {}).find((n) => n.IPAddress)?.IPAddress;
  return {
    id: info.Id,
    dockerName: info.Name.replace(/^\//, ''),
    name: labels[Label.containerName] ?? '',
    attempt: Number(labels[Label.restartCount] ?? 0) || 0,
    hash: labels[Label.containerHash] ?? '',
    podUid: labels[Label.podUid] ?? '',
    state: info.State.Status,
    exitCode: info.State.ExitCode,
    oomKilled: info.State.OOMKilled,
    error: info.State.Error ?? '',
    ...(startedAt !== undefined ? { startedAt } : {}),
    ...(finishedAt !== undefined ? { finishedAt } : {}),
    restartCount: info.RestartCount,
    // Docker treats an empty policy name as "no"; one spelling here, so no reader has to know both.
    engineRestartPolicy: info.HostConfig.RestartPolicy?.Name || 'no',
    image: info.Config.Image,
    imageId: info.Image,
    ...(ip ? { ip } : {}),
    ...initKindOfLabels(labels),
    resources: engineResources(info.HostConfig),
    ...(info.Config.Env ? { env: info.Config.Env } : {}),
  };
}

function initKindOfLabels(labels: Record<string, string>): { initKind?: InitKind } {
  const t = labels[LifecycleLabel.containerType];
  return t === 'init' || t === 'sidecar' ? { initKind: t } : {};
}

/** Pure: group a pod's containers into infra and app instances, newest attempt first. */
export function groupPod(containers: ObservedContainer[]): ObservedPod {
  const byAttempt = (a: ObservedContainer, b: ObservedContainer): number => b.attempt - a.attempt || (b.startedAt ?? 0) - (a.startedAt ?? 0);
  const infra = containers.filter((c) => c.name === infraContainerName).sort(byAttempt);
  const apps = new Map<string, ObservedContainer[]>();
  const inits = new Map<string, ObservedContainer[]>();
  for (const c of containers) {
    if (c.name === infraContainerName) continue;
    // The type label tells an init container's instances from an app container's (names are unique across both
    // in a pod, but an init container and a later app container of the same name must not be mixed up).
    const into = c.initKind !== undefined ? inits : apps;
    const list = into.get(c.name) ?? [];
    list.push(c);
    into.set(c.name, list);
  }
  for (const list of apps.values()) list.sort(byAttempt);
  for (const list of inits.values()) list.sort(byAttempt);
  return { infra, containers: apps, initContainers: inits };
}

/** Every container runpod made for this pod (by its labels only), inspected. */
export async function observePod(engine: ContainerReader, namespace: string, name: string): Promise<ObservedPod> {
  const summaries = await engine.listContainers(podSelector(namespace, name));
  const inspected = await Promise.all(summaries.map((s) => engine.inspectContainer(s.id)));
  return groupPod(inspected.filter((i): i is ContainerInspect => i !== undefined).map(toObservedContainer));
}
