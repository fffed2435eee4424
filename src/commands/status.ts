// runpod status (alias ps): the pods runpod manages, or those of the given manifests or names, as the engine
// has them now. A named pod that does not exist is exit 1, after the others are shown.
import yaml from 'js-yaml';
import { ExitCode, NotFoundError, UsageError } from '../errors.js';
import { formatSelector, type Selector } from '../kube/selector.js';
import { serviceTable, statusDocument, statusTable, workloadRows } from '../report/tables.js';
import type { ContainerReader } from '../engine/ports/containers.js';
import { describeServices } from '../services/cluster.js';
import { listServiceContainers } from '../services/serviceContainers.js';
import { type PodRef, reportSkipped, resolveTargets } from './down.js';
import { targetPods } from '../agent/down.js';
import type { CommandContext } from './context.js';
import { connectEngine, openEngine } from './engineSession.js';
import { findPods } from '../reconcile/pods.js';
import { probeReadiness } from '../wait/probes/readinessOnce.js';
import type { ServiceResult } from '../services/result.js';

export type StatusFormat = 'text' | 'wide' | 'json' | 'yaml';

export interface StatusOptions {
  /** Manifests, or pod names; none: every pod runpod manages, in every namespace. */
  targets: string[];
  namespace: string;
  output: StatusFormat;
  /** -l: only the pods whose labels match (instead of targets). */
  selector?: Selector;
  host?: string;
  /** The isolation key (kube/project.ts): only pods made under it are seen. */
  project?: string;
}

export async function statusCommand(o: StatusOptions, ctx: CommandContext): Promise<number> {
  if (o.selector && o.targets.length > 0) throw new UsageError('give manifests or pod names, or -l <selector>, not both (as kubectl: a name cannot be given with a selector)');
  const targets = o.targets.length > 0 ? await resolveTargets(o.targets, o.namespace, ctx) : undefined;
  if (targets) reportSkipped(targets.problems, ctx);
  const engine = await openEngine(o.host, ctx.env, o.project);
  await connectEngine(engine, ctx);
  const refs = targets ? await targetPods(engine, targets) : undefined;
  // READY counts ready containers, as kubectl: the readiness probes run once, now (wait/probes/readinessOnce.ts).
  const pods = await findPods(engine, refs, { ...(o.selector ? { selector: o.selector } : {}), probe: (found) => probeReadiness(engine, found, ctx.now()) });
  const now = ctx.now();
  // Services: every one runpod made (under the key) without targets, else those the manifests hold.
  const services = o.selector ? [] : await findServices(engine, targets?.services, o.project);
  // The workloads the manifests name: READY reads against their replicas, and a suspended Job shows as such.
  const wants = targets?.owners ?? [];
  if (o.output === 'json' || o.output === 'yaml') {
    const workloads = workloadRows(pods, wants);
    const doc = {
      apiVersion: 'runpod/v1',
      kind: 'PodStatusList',
      pods: pods.map((p) => statusDocument(p, now)),
      ...(workloads.length > 0 ? { workloads } : {}),
      ...(services.length > 0 ? { services } : {}),
    };
    ctx.stdout.write(o.output === 'json' ? `${JSON.stringify(doc, null, 2)}\n` : yaml.dump(doc, { noRefs: true, lineWidth: -1 }));
  } else if (pods.length > 0 || wants.length > 0 || services.length > 0) {
    if (pods.length > 0 || wants.length > 0) ctx.stdout.write(statusTable(pods, now, o.output === 'wide', wants));
    if (services.length > 0) ctx.stdout.write(`${pods.length > 0 || wants.length > 0 ? '\n' : ''}${serviceTable(services)}`);
  } else if (o.selector) {
    ctx.stderr.write(`no pods match -l ${formatSelector(o.selector)}\n`);
  } else if (!refs) {
    ctx.stderr.write('no pods: runpod manages none on this engine\n');
  }
  const missing = (refs ?? []).filter((r) => !pods.some((p) => p.namespace === r.namespace && p.name === r.name));
  if (missing.length > 0) {
    const names = missing.map((r) => `${r.namespace}/${r.name}`).join(', ');
    throw new NotFoundError(`${missing.length === 1 ? 'pod' : 'pods'} ${names} not found`);
  }
  return ExitCode.ok;
}

/** The Services on the engine (under the key): all, or the named ones that are there. */
async function findServices(engine: ContainerReader, named: readonly PodRef[] | undefined, project: string | undefined): Promise<ServiceResult[]> {
  const stored = (await listServiceContainers(engine)).flatMap(({ service: s }) =>
    s !== undefined && (named === undefined || named.some((r) => r.namespace === s.namespace && r.name === s.name)) ? [s] : [],
  );
  stored.sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
  return describeServices(engine, stored, project);
}
