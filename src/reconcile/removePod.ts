// Removing one pod as the kubelet does when it is deleted: its containers stopped within one grace period in the
// kubelet's KillPod order (podStop.ts), each after its preStop hook (hooks.ts), then removed with the pod's own
// volumes. `down`, --replace, --prune, gc and a scoped run's takedown all remove pods so.
import type { ContainerLifecycle, ContainerReader } from '../engine/ports/containers.js';
import type { ExecPort } from '../engine/ports/streams.js';
import type { VolumePort } from '../engine/ports/volumes.js';
import { Label, infraContainerName, managedSelector, podSelector } from '../kube/labels.js';
import { LifecycleLabel } from '../plan/lifecycle.js';
import { stopGracefully } from './hooks.js';
import { liveStates } from './history.js';
import { type StopKind, stopInKillPodOrder } from './podStop.js';
import type { PodRef } from './pods.js';
import { VolumeLabel } from '../plan/volumes.js';
import { removePodHelpers, removePodVolumes } from './volumes.js';

/** How one container of a pod was stopped: the seconds it was given from the pod's budget, and what it took. */
export interface ContainerStopReport {
  container: string;
  id: string;
  graceSeconds: number;
  seconds: number;
  preStop?: { handler: string; ok: boolean; message: string };
  error?: string;
}

export interface PodDown {
  namespace: string;
  name: string;
  /** Containers removed (0: the pod did not exist). */
  removed: number;
  /** The pod's grace period: its terminationGracePeriodSeconds, or --grace. */
  graceSeconds: number;
  /** The containers that were running, in the order they were stopped. */
  stops: ContainerStopReport[];
  seconds: number;
}

/**
 * Stop the pod within one grace period, in the kubelet's KillPod order (reconcile/podStop.ts), then remove
 * everything, then the pod's own volumes.
 */
export async function removePod(
  engine: ContainerLifecycle & ContainerReader & ExecPort & VolumePort,
  ref: PodRef,
  graceOverride?: number,
  now: () => number = Date.now,
): Promise<PodDown> {
  return (await removePodContainers(engine, ref, graceOverride, now)).rest;
}

/**
 * removePod in two steps: resolves once the pod's containers are gone, with the rest (its helpers, then its own
 * volumes) under way in `rest`, which ends with the pod's account. A caller with other work that needs only the
 * containers gone (down: the namespace's network, its Services) does it beside the rest.
 */
export async function removePodContainers(
  engine: ContainerLifecycle & ContainerReader & ExecPort & VolumePort,
  ref: PodRef,
  graceOverride?: number,
  now: () => number = Date.now,
  o: { removeKills?: boolean } = {},
): Promise<{ rest: Promise<PodDown> }> {
  const startedAt = now();
  const containers = await engine.listContainers(podSelector(ref.namespace, ref.name));
  const label = containers.find((c) => c.labels[Label.gracePeriod] !== undefined)?.labels[Label.gracePeriod];
  const grace = graceOverride ?? (label !== undefined ? Number(label) || 0 : 30);
  const kindOf = (labels: Record<string, string>): StopKind =>
    labels[Label.containerName] === infraContainerName ? 'infra' : labels[LifecycleLabel.containerType] === 'sidecar' ? 'sidecar' : 'app';
  const live = containers.filter((c) => liveStates.has(c.state)).map((c) => ({ ...c, kind: kindOf(c.labels) }));
  const stops: ContainerStopReport[] = [];
  // Removed as soon as stopped, each container on its own: no remove waits for another container's stop.
  const removed = new Set<string>();
  // Each stop runs the container's preStop hook first, within the seconds it is given (reconcile/hooks.ts).
  await stopInKillPodOrder(
    live,
    grace,
    async (c, seconds) => {
      const began = now();
      const report: ContainerStopReport = { container: c.labels[Label.containerName] ?? '', id: c.id, graceSeconds: seconds, seconds: 0 };
      try {
        // At grace 0 the kubelet runs no preStop and kills at once; a forced remove is that kill and the removal
        // in one request (Docker's rm -f sends SIGKILL itself, as `docker kill` would), so no stop goes first.
        // Asked by `down` (issue 28); the other removals keep their own stop request (a scoped run's takedown is
        // bounded, and tested, on it: test/engine/frozen-setup).
        if (seconds <= 0 && o.removeKills === true) {
          await engine.removeContainer(c.id, { force: true });
          removed.add(c.id);
          return;
        }
        const done = await stopGracefully(engine, c.id, seconds, c.labels);
        if (done.preStop) report.preStop = { handler: done.preStop.handler, ok: done.preStop.ok, message: done.preStop.message };
      } catch (err) {
        report.error = err instanceof Error ? err.message : String(err);
        throw err;
      } finally {
        report.seconds = Math.round(now() - began) / 1000;
        stops.push(report);
      }
      await engine.removeContainer(c.id, { force: true });
      removed.add(c.id);
    },
    now,
  );
  await Promise.all(containers.filter((c) => !removed.has(c.id)).map((c) => engine.removeContainer(c.id, { force: true })));
  // Then the pod's own volumes (emptyDir, rendered configMap/secret/downwardAPI/projected), as the kubelet removes
  // a deleted pod's volumes; a persistentVolumeClaim's volume outlives the pod and stays (reconcile/volumes.ts).
  const rest = (async (): Promise<PodDown> => {
    await removePodHelpers(engine, ref.namespace, ref.name);
    await removePodVolumes(engine, ref.namespace, ref.name);
    return { namespace: ref.namespace, name: ref.name, removed: containers.length, graceSeconds: grace, stops, seconds: Math.round(now() - startedAt) / 1000 };
  })();
  // Held until the caller awaits it: a failure then is the caller's, never an unhandled rejection meanwhile.
  rest.catch(() => undefined);
  return { rest };
}

/**
 * Every namespace/name that has a container carrying runpod's labels, or a pod volume of its own (a run that failed
 * before its first container, on a name held by something else, leaves only its volumes): `down --all` takes each.
 */
export async function managedPodRefs(engine: ContainerReader & VolumePort): Promise<PodRef[]> {
  const keys = new Set<string>();
  const [containers, volumes] = await Promise.all([engine.listContainers([managedSelector]), engine.listVolumes([managedSelector])]);
  for (const { labels } of [...containers, ...volumes.filter((v) => v.labels[VolumeLabel.type] !== 'persistentVolumeClaim')]) {
    const ns = labels[Label.podNamespace];
    const name = labels[Label.podName];
    if (ns !== undefined && name !== undefined) keys.add(`${ns}/${name}`);
  }
  return [...keys].sort().map((k) => ({ namespace: k.slice(0, k.indexOf('/')), name: k.slice(k.indexOf('/') + 1) }));
}

/**
 * Kill and remove every container of the pods at once (`docker rm -f` sends SIGKILL: no preStop, no grace), then
 * their helpers and own volumes: a hurried takedown's pass. A pass after the first (`again`) that finds no container
 * leaves the rest be. How many containers there were.
 */
export async function killPodsNow(engine: ContainerLifecycle & ContainerReader & VolumePort, pods: readonly PodRef[], again = false): Promise<number> {
  const containers = (await Promise.all(pods.map((p) => engine.listContainers(podSelector(p.namespace, p.name))))).flat();
  if (containers.length === 0 && again) return 0;
  await Promise.all(containers.map((c) => engine.removeContainer(c.id, { force: true }).catch(() => undefined)));
  await Promise.all(
    pods.map(async (p) => {
      await removePodHelpers(engine, p.namespace, p.name);
      await removePodVolumes(engine, p.namespace, p.name);
    }),
  );
  return containers.length;
}

/** The longest grace period of the pods as their containers carry it (30 s when none says), in milliseconds. */
export async function longestGraceMs(engine: ContainerReader, pods: readonly PodRef[]): Promise<number> {
  const graces = await Promise.all(
    pods.map(async (p) => {
      const listed = await engine.listContainers(podSelector(p.namespace, p.name)).catch(() => []);
      const label = listed.find((c) => c.labels[Label.gracePeriod] !== undefined)?.labels[Label.gracePeriod];
      return label !== undefined ? Number(label) || 0 : listed.length > 0 ? 30 : 0;
    }),
  );
  return Math.max(0, ...graces) * 1000;
}
