// runpod down: stop a pod's containers within its grace period, then its infra container, and remove them
// all — only containers carrying runpod's labels. A pod that does not exist is not an error (safe to repeat).
import fs from 'node:fs/promises';
import type { Engine } from '../engine/engine.js';
import { ExitCode, UsageError } from '../errors.js';
import { loadManifests } from '../manifest/load.js';
import { Label, infraContainerName, managedSelector, podSelector } from '../plan/labels.js';
import { LifecycleLabel } from '../plan/lifecycle.js';
import { stopGracefully } from '../reconcile/hooks.js';
import { removePodHelpers, removePodVolumes } from '../reconcile/volumes.js';
import { type CommandContext, readAll } from './context.js';
import { connectEngine, openEngine } from './engineSession.js';

export interface DownOptions {
  targets: string[];
  namespace: string;
  /** Overrides each pod's terminationGracePeriodSeconds. */
  graceSeconds?: number;
  quiet: boolean;
  host?: string;
  /** Every pod runpod manages on the engine, in every namespace (instead of targets). */
  all?: boolean;
}

export interface PodRef {
  namespace: string;
  name: string;
}

/** A target is a manifest when it is "-" or an existing path; otherwise a pod name or namespace/name. */
export async function resolveTargets(targets: string[], namespace: string, ctx: CommandContext): Promise<PodRef[]> {
  const manifests: string[] = [];
  const refs: PodRef[] = [];
  for (const t of targets) {
    if (t === '-' || (await fs.stat(t).then(() => true, () => false))) {
      manifests.push(t);
      continue;
    }
    const parts = t.split('/');
    if (parts.length > 2 || parts.some((p) => !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(p))) {
      throw new UsageError(`"${t}" is neither a manifest file or directory nor a pod name (name or namespace/name)`);
    }
    refs.push(parts.length === 2 ? { namespace: parts[0]!, name: parts[1]! } : { namespace, name: parts[0]! });
  }
  if (manifests.length > 0) {
    // Removing a pod must not depend on its ConfigMaps and Secrets being in the input too.
    const { pods } = await loadManifests(manifests, { defaultNamespace: namespace, checkReferences: false }, () => readAll(ctx.stdin));
    for (const p of pods) refs.push({ namespace: p.pod.metadata.namespace, name: p.pod.metadata.name });
  }
  return refs;
}

export async function downCommand(o: DownOptions, ctx: CommandContext): Promise<number> {
  if (o.all && o.targets.length > 0) throw new UsageError('--all removes every pod runpod manages: give either --all or targets, not both');
  if (!o.all && o.targets.length === 0) throw new UsageError('nothing to remove: give manifests or pod names, or --all');
  const named = o.all ? [] : await resolveTargets(o.targets, o.namespace, ctx);
  const engine = await openEngine(o.host, ctx.env);
  await connectEngine(engine, ctx);
  const refs = o.all ? await managedPodRefs(engine) : named;
  const removed = await Promise.all(refs.map((r) => removePod(engine, r, o.graceSeconds)));
  if (!o.quiet) {
    refs.forEach((r, i) => {
      const n = removed[i]!;
      ctx.stdout.write(n > 0 ? `${r.namespace}/${r.name}: removed (${n} container${n === 1 ? '' : 's'})\n` : `${r.namespace}/${r.name}: not found, nothing to remove\n`);
    });
  }
  return ExitCode.ok;
}

/**
 * The kubelet's KillPod order: app containers stop in parallel within the grace period, then the sandbox;
 * then everything is removed. Returns how many containers were removed.
 */
export async function removePod(engine: Engine, ref: PodRef, graceOverride?: number): Promise<number> {
  const containers = await engine.listContainers(podSelector(ref.namespace, ref.name));
  const grace = (labels: Record<string, string>): number => graceOverride ?? (Number(labels[Label.gracePeriod] ?? 30) || 0);
  const isInfra = (labels: Record<string, string>): boolean => labels[Label.containerName] === infraContainerName;
  // Each stop runs the container's preStop hook first, within the grace period (reconcile/hooks.ts).
  const stopAll = async (list: typeof containers): Promise<void> => {
    await Promise.all(list.filter((c) => c.state === 'running' || c.state === 'restarting' || c.state === 'paused').map((c) => stopGracefully(engine, c.id, grace(c.labels))));
  };
  // Sidecars stop after the app containers, the last started first (Kubernetes sidecar termination order).
  const isSidecar = (labels: Record<string, string>): boolean => labels[LifecycleLabel.containerType] === 'sidecar';
  await stopAll(containers.filter((c) => !isInfra(c.labels) && !isSidecar(c.labels)));
  for (const c of containers.filter((x) => isSidecar(x.labels)).sort((a, b) => b.created - a.created)) await stopAll([c]);
  await stopAll(containers.filter((c) => isInfra(c.labels)));
  await Promise.all(containers.map((c) => engine.removeContainer(c.id, { force: true })));
  // Then the pod's own volumes (emptyDir, rendered configMap/secret/downwardAPI/projected), as the kubelet removes
  // a deleted pod's volumes; a persistentVolumeClaim's volume outlives the pod and stays (reconcile/volumes.ts).
  await removePodHelpers(engine, ref.namespace, ref.name);
  await removePodVolumes(engine, ref.namespace, ref.name);
  return containers.length;
}

/** Every namespace/name that has a container carrying runpod's labels. */
async function managedPodRefs(engine: Engine): Promise<PodRef[]> {
  const keys = new Set<string>();
  for (const c of await engine.listContainers([managedSelector])) {
    const ns = c.labels[Label.podNamespace];
    const name = c.labels[Label.podName];
    if (ns !== undefined && name !== undefined) keys.add(`${ns}/${name}`);
  }
  return [...keys].sort().map((k) => ({ namespace: k.slice(0, k.indexOf('/')), name: k.slice(k.indexOf('/') + 1) }));
}
