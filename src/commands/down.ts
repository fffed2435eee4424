// runpod down: stop a pod's containers within its grace period, then its infra container, and remove them
// all — only containers carrying runpod's labels. A pod that does not exist is not an error (safe to repeat).
// This reads which pods are meant and says what went; the taking down is the agent's (agent/down.ts).
import fs from 'node:fs/promises';
import yaml from 'js-yaml';
import { ExitCode, UsageError } from '../errors.js';
import { type NameProblem, readPodNames } from '../manifest/podNames.js';
import { kustomizeDirOf } from '../input/kustomize/input.js';
import { type CommandContext, readAll } from './context.js';
import { connectEngine, openEngine } from './engineSession.js';
import { type PodArg, type PodRef, parsePodArg } from '../reconcile/pods.js';
import type { Selector } from '../kube/selector.js';
import { type DownTargets, takeDown, uniqueRefs } from '../agent/down.js';

export interface DownOptions {
  targets: string[];
  namespace: string;
  /** Overrides each pod's terminationGracePeriodSeconds. */
  graceSeconds?: number;
  quiet: boolean;
  /** Per pod, the seconds each container was given and took. */
  verbose?: boolean;
  /** text (default), or one DownResult document. */
  output?: 'text' | 'json' | 'yaml';
  host?: string;
  /** The isolation key (kube/project.ts): only pods made under it are seen. */
  project?: string;
  /** Every pod runpod manages on the engine, in every namespace (instead of targets). */
  all?: boolean;
  /** -l: every pod whose labels match (instead of targets). */
  selector?: Selector;
  /** --delete-claims: also remove the claims (persistentVolumeClaim volumes) the removed pods mounted. */
  deleteClaims?: boolean;
}

export type { PodRef } from '../reconcile/pods.js';

/** What the targets name (agent/down.ts), and what of the manifests could not be read. */
export interface Targets extends DownTargets {
  problems: NameProblem[];
}

/**
 * A target is a manifest when it is "-" or an existing path; otherwise a pod name or namespace/name. Manifests are
 * read only for their pods' names (manifest/podNames.ts): a file `run` refuses must not keep its pods from being
 * taken down or shown. Only when nothing at all is named because of such problems is it a usage error.
 */
export async function resolveTargets(targets: string[], namespace: string, ctx: CommandContext): Promise<Targets> {
  const manifests: string[] = [];
  const refs: PodRef[] = [];
  const owners: Targets['owners'] = [];
  for (const t of targets) {
    if (
      t === '-' ||
      kustomizeDirOf(t) !== undefined ||
      (await fs.stat(t).then(
        () => true,
        () => false,
      ))
    ) {
      manifests.push(t);
      continue;
    }
    // kubectl's kind/name (deploy/web, sts/db; pod/web is a pod) before a pod's namespace/name, as the other
    // commands read a <pod> (pods.ts parsePodArg); what is no file and no such name says both.
    let arg: PodArg;
    try {
      arg = parsePodArg(t, namespace);
    } catch (err) {
      if (/^(po|pods?)\//.test(t)) throw err;
      throw new UsageError(`"${t}" is neither a manifest file or directory nor a pod name (name or namespace/name)`);
    }
    if ('owner' in arg) owners.push({ namespace: arg.namespace, ref: arg.owner });
    else refs.push(arg);
  }
  if (manifests.length === 0) return { refs: uniqueRefs(refs), owners, services: [], claims: [], problems: [] };
  const read = await readPodNames(manifests, namespace, () => readAll(ctx.stdin));
  if (read.pods.length + read.owners.length + read.services.length === 0 && refs.length + owners.length === 0 && read.problems.length > 0) {
    throw new UsageError(`no pod could be named from ${manifests.join(', ')}`).withDetail(read.problems.map(formatNameProblem));
  }
  for (const p of read.pods) refs.push({ namespace: p.namespace, name: p.name });
  for (const w of read.owners) {
    if (owners.some((x) => x.namespace === w.namespace && x.ref === w.ref)) continue;
    owners.push({
      namespace: w.namespace,
      ref: w.ref,
      ...(w.desired !== undefined ? { desired: w.desired } : {}),
      ...(w.suspended ? { suspended: true } : {}),
      ...(w.claimTemplates ? { claimTemplates: w.claimTemplates } : {}),
      ...(w.claimsGoWithOwner ? { claimsGoWithOwner: true } : {}),
    });
  }
  const services = uniqueRefs(read.services.map((v) => ({ namespace: v.namespace, name: v.name })));
  return { refs: uniqueRefs(refs), owners, services, claims: read.claims.map((c) => ({ namespace: c.namespace, name: c.name })), problems: read.problems };
}

function formatNameProblem(p: NameProblem): string {
  return `${p.line !== undefined ? `${p.file}:${p.line}` : p.file}: ${p.message}`;
}

/** Each skipped part of the manifests, one line on stderr (stdout stays a clean -o json|yaml document). */
export function reportSkipped(problems: readonly NameProblem[], ctx: CommandContext): void {
  for (const p of problems) ctx.stderr.write(`runpod: ${formatNameProblem(p)}; skipped\n`);
}

export async function downCommand(o: DownOptions, ctx: CommandContext): Promise<number> {
  const ways = [o.all === true, o.targets.length > 0, o.selector !== undefined].filter(Boolean).length;
  if (ways > 1) throw new UsageError('give one of: manifests or pod names, -l <selector>, or --all');
  if (ways === 0) throw new UsageError('nothing to remove: give manifests or pod names, -l <selector>, or --all');
  const targets = o.targets.length > 0 ? await resolveTargets(o.targets, o.namespace, ctx) : undefined;
  if (targets) reportSkipped(targets.problems, ctx);
  const engine = await openEngine(o.host, ctx.env, o.project);
  const info = await connectEngine(engine, ctx);
  const { pods, claims, cluster } = await takeDown(engine, {
    all: o.all === true,
    ...(o.selector ? { selector: o.selector } : {}),
    ...(targets ? { targets } : {}),
    ...(o.graceSeconds !== undefined ? { graceSeconds: o.graceSeconds } : {}),
    deleteClaims: o.deleteClaims === true,
    project: o.project,
    arch: info.arch,
    claimsTried: (tried) => {
      for (const c of tried) if (!c.removed) ctx.stderr.write(`runpod: claim volume ${c.volume} stays: ${c.error ?? ''}\n`);
    },
  });
  if (o.output === 'json' || o.output === 'yaml') {
    const doc = {
      apiVersion: 'runpod/v1',
      kind: 'DownResult',
      pods,
      ...(o.deleteClaims ? { claims } : {}),
      ...(cluster.services.length > 0 ? { services: cluster.services } : {}),
      ...(cluster.networks.length > 0 ? { networks: cluster.networks } : {}),
    };
    ctx.stdout.write(o.output === 'json' ? `${JSON.stringify(doc, null, 2)}\n` : yaml.dump(doc, { noRefs: true, lineWidth: -1 }));
    return ExitCode.ok;
  }
  if (o.quiet) return ExitCode.ok;
  for (const p of pods) {
    const n = p.removed;
    ctx.stdout.write(
      n > 0 ? `${p.namespace}/${p.name}: removed (${n} container${n === 1 ? '' : 's'}, ${p.seconds}s)\n` : `${p.namespace}/${p.name}: not found, nothing to remove\n`,
    );
    // -v: how the pod's one grace period was spent, container by container, in the order they stopped.
    if (o.verbose)
      for (const c of p.stops)
        ctx.stdout.write(
          `  stopped ${c.container} in ${c.seconds}s of ${c.graceSeconds}s${c.preStop ? ` (preStop ${c.preStop.handler}: ${c.preStop.ok ? 'ok' : c.preStop.message})` : ''}${c.error ? `: ${c.error}` : ''}\n`,
        );
  }
  for (const c of claims) if (c.removed) ctx.stdout.write(`claim volume ${c.volume}: removed\n`);
  for (const v of cluster.services)
    ctx.stdout.write(v.removed ? `service ${v.namespace}/${v.name}: removed\n` : `service ${v.namespace}/${v.name}: not found, nothing to remove\n`);
  for (const n of cluster.networks) ctx.stdout.write(`network ${n}: removed\n`);
  return ExitCode.ok;
}
