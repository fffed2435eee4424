// runpod down: stop a pod's containers within its grace period, then its infra container, and remove them
// all — only containers carrying runpod's labels. A pod that does not exist is not an error (safe to repeat).
import fs from 'node:fs/promises';
import type { Engine } from '../engine/engine.js';
import { ExitCode, UsageError } from '../errors.js';
import { loadManifests } from '../manifest/load.js';
import { Label, infraContainerName, podSelector } from '../plan/labels.js';
import { type CommandContext, readAll } from './context.js';
import { connectEngine, openEngine } from './engineSession.js';

export interface DownOptions {
  targets: string[];
  namespace: string;
  /** Overrides each pod's terminationGracePeriodSeconds. */
  graceSeconds?: number;
  quiet: boolean;
  host?: string;
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
    const { pods } = await loadManifests(manifests, { defaultNamespace: namespace }, () => readAll(ctx.stdin));
    for (const p of pods) refs.push({ namespace: p.pod.metadata.namespace, name: p.pod.metadata.name });
  }
  return refs;
}

export async function downCommand(o: DownOptions, ctx: CommandContext): Promise<number> {
  const refs = await resolveTargets(o.targets, o.namespace, ctx);
  const engine = await openEngine(o.host, ctx.env);
  await connectEngine(engine, ctx);
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
  const stopAll = (list: typeof containers): Promise<void[]> =>
    Promise.all(list.filter((c) => c.state === 'running' || c.state === 'restarting' || c.state === 'paused').map((c) => engine.stopContainer(c.id, grace(c.labels))));
  await stopAll(containers.filter((c) => !isInfra(c.labels)));
  await stopAll(containers.filter((c) => isInfra(c.labels)));
  await Promise.all(containers.map((c) => engine.removeContainer(c.id, { force: true })));
  return containers.length;
}
