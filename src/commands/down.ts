// runpod down: stop a pod's containers within its grace period, then its infra container, and remove them
// all — only containers carrying runpod's labels. A pod that does not exist is not an error (safe to repeat).
import fs from 'node:fs/promises';
import yaml from 'js-yaml';
import type { ContainerReader } from '../engine/ports/containers.js';
import type { VolumePort } from '../engine/ports/volumes.js';
import { ExitCode, UsageError } from '../errors.js';
import { type NameProblem, readPodNames } from '../manifest/podNames.js';
import { kustomizeDirOf } from '../input/kustomize/input.js';
import { Label, podSelector } from '../kube/labels.js';
import { managedPodRefs, removePod } from '../reconcile/removePod.js';
import { type ClaimVolume, listClaimVolumes, type MountSeen, mountUses, ofStatefulSet, removeClaimVolumes } from '../reconcile/claims.js';
import { type CommandContext, readAll } from './context.js';
import { connectEngine, openEngine } from './engineSession.js';
import { findPods, ownedPods, type PodArg, parsePodArg } from '../reconcile/pods.js';
import type { Selector } from '../kube/selector.js';
import { ensureInfraImage } from '../reconcile/infraImage.js';
import { tearDownCluster } from '../services/cluster.js';
import { managedServiceRefs } from '../services/serviceContainers.js';
import { networkNamespaces } from '../services/network.js';

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

export interface PodRef {
  namespace: string;
  name: string;
}

/** The pods the targets name, the workloads whose pods they are, and what of the manifests could not be read. */
export interface Targets {
  refs: PodRef[];
  /**
   * Workloads by namespace and kind/name (deployment/web): their pods are found on the engine (ownedPods). A
   * StatefulSet's claim templates, and whether its claims go with it (whenDeleted: Delete), when a manifest says.
   */
  owners: { namespace: string; ref: string; desired?: number; suspended?: boolean; claimTemplates?: string[]; claimsGoWithOwner?: boolean }[];
  /** Services the manifests hold: their containers go too. */
  services: PodRef[];
  /** Claims the manifests name (PersistentVolumeClaims, and the pods' and templates' claim volumes). */
  claims: PodRef[];
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

/** The named pods, and those of the named workloads as they are on the engine now. */
export async function targetPods(engine: ContainerReader, targets: Targets): Promise<PodRef[]> {
  const owned = await Promise.all(targets.owners.map(async (w) => (await ownedPods(engine, w.namespace, w.ref)).map((p) => ({ namespace: w.namespace, name: p.name }))));
  return uniqueRefs([...targets.refs, ...owned.flat()]);
}

/** A pod given both by name and in a manifest is acted on once. */
function uniqueRefs(refs: readonly PodRef[]): PodRef[] {
  const seen = new Set<string>();
  return refs.filter((r) => {
    const key = `${r.namespace}/${r.name}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
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
  // The infra image (what the Services' endpoints are written with) asked now, beside the pods' look-ups and stops.
  const infraImage = ensureInfraImage(engine, info.arch);
  infraImage.catch(() => undefined);
  const named = targets ? await targetPods(engine, targets) : [];
  const refs = o.all
    ? await managedPodRefs(engine)
    : o.selector
      ? (await findPods(engine, undefined, o.selector ? { selector: o.selector } : {})).map((p) => ({ namespace: p.namespace, name: p.name }))
      : named;
  // Claims outlive their pods, as on a cluster; only asked for (--delete-claims), the pods' and the manifests' claims
  // go too, after the pods. A StatefulSet taken down (by manifest or kind/name) whose retention policy says
  // whenDeleted: Delete takes its claims along. Which they are is read before the pods go (their mounts).
  const claimVolumes = await claimsToRemove(engine, refs, targets, { deleteClaims: o.deleteClaims === true, all: o.all === true });
  const pods = await Promise.all(refs.map((r) => removePod(engine, r, o.graceSeconds)));
  const claims = claimVolumes.length > 0 ? await removeClaimVolumes(engine, claimVolumes) : [];
  for (const c of claims) if (!c.removed) ctx.stderr.write(`runpod: claim volume ${c.volume} stays: ${c.error ?? ''}\n`);
  // Then the Services named (all of them with --all), the others' endpoints, and the networks left empty.
  const services = o.all ? await managedServiceRefs(engine) : (targets?.services ?? []);
  const namespaces = new Set([...refs.map((r) => r.namespace), ...services.map((v) => v.namespace), ...(o.all ? await networkNamespaces(engine) : [])]);
  const cluster = namespaces.size > 0 ? await tearDownCluster(engine, { namespaces, services, project: o.project, image: await infraImage }) : { services: [], networks: [] };
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

/**
 * The claim volumes `down` removes, read before the pods go: with --delete-claims, those the pods' containers mount
 * (a subPath's bind included), those the manifests name (PersistentVolumeClaims, pods' and templates' claim volumes,
 * a StatefulSet's claims of every ordinal), and under --all every claim of the key; without it, only the claims of
 * a StatefulSet taken down whose retention policy says whenDeleted: Delete. Only volumes with runpod's claim labels.
 */
async function claimsToRemove(
  engine: ContainerReader & VolumePort,
  refs: readonly PodRef[],
  targets: Targets | undefined,
  o: { deleteClaims: boolean; all: boolean },
): Promise<ClaimVolume[]> {
  const owners = targets?.owners ?? [];
  const goWithOwner = new Set(owners.map((w) => `${w.namespace}/${w.ref}`));
  // Without --delete-claims and no workload named, no claim can go: nothing to list.
  if (!o.deleteClaims && owners.length === 0) return [];
  const volumes = await listClaimVolumes(engine);
  if (volumes.length === 0) return [];
  if (o.deleteClaims && o.all) return volumes;
  const wanted = new Set<string>();
  // Mounted by the pods taken down: all of them with --delete-claims; else those a StatefulSet with whenDeleted:
  // Delete made (their containers carry the policy).
  for (const r of refs) {
    for (const c of await engine.listContainers(podSelector(r.namespace, r.name))) {
      if (!o.deleteClaims && !(c.labels[Label.claimsWithOwner] === 'delete' && goWithOwner.has(`${c.labels[Label.podNamespace]}/${c.labels[Label.owner]}`))) continue;
      const mounts = ((await engine.inspectContainer(c.id))?.Mounts ?? []) as MountSeen[];
      for (const v of volumes) if (mounts.some((m) => mountUses(m, v))) wanted.add(v.name);
    }
  }
  // Named by the manifests, whether or not a pod of them is still there.
  const named = o.deleteClaims ? new Set((targets?.claims ?? []).map((c) => `${c.namespace}/${c.name}`)) : new Set<string>();
  for (const v of volumes) {
    if (named.has(`${v.namespace}/${v.claim}`)) wanted.add(v.name);
    for (const w of owners) {
      if (w.namespace !== v.namespace || w.claimTemplates === undefined || !w.ref.startsWith('statefulset/')) continue;
      if ((o.deleteClaims || w.claimsGoWithOwner === true) && ofStatefulSet(v.claim, w.ref.slice('statefulset/'.length), w.claimTemplates)) wanted.add(v.name);
    }
  }
  return volumes.filter((v) => wanted.has(v.name));
}
