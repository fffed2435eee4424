// --dry-run: the plan, and what a run would do to the engine as it is now, decided by the same steps a run takes;
// nothing is created. Its text is the node agent's too: what it would do, said once, here.
import yaml from 'js-yaml';
import type { Engine } from '../engine/ports/engine.js';
import { withNodeResolvConf } from './nodeResolvConf.js';
import { pauseImageRef } from '../reconcile/pauseImage.js';
import { EngineUnreachableError, ExitCode } from '../errors.js';
import { namespaceNetwork, serviceContainerName } from '../kube/serviceNames.js';
import type { LoadResult } from '../manifest/types.js';
import { admitPods, declaresRequests } from '../plan/admission.js';
import { engineDependentFields } from '../plan/engineSupport.js';
import { type PrintableVolume, printableCreate, printableVolumes } from '../plan/redact.js';
import { translatePod } from '../plan/translate.js';
import type { PodPlan } from '../plan/types.js';
import { claimVolume } from '../plan/volumes.js';
import { allActions, decidePodActions } from '../reconcile/decide.js';
import { groupPod, observePod } from '../reconcile/observe.js';
import { observeAdmission } from '../reconcile/requests.js';
import type { Reporter } from '../report/reporter.js';
import type { PrunedPod } from '../report/result.js';
import type { WaitStrategy } from '../wait/strategies/index.js';
import type { JobTerms, WorkloadPlan } from '../workloads/expand.js';
import { observeCluster } from '../services/clusterSetup.js';
import { checkEngineSupport, planOptions } from './input.js';
import { findPrunable } from '../reconcile/prune.js';
import type { RunOptions } from './options.js';
import { type JobPodPreview, previewJob } from './workloads.js';

/** A claim in the plan: its engine volume, or the PersistentVolume of the input it binds and that volume's path. */
type ClaimDoc = { namespace: string; name: string; engineVolume: string } | { namespace: string; name: string; persistentVolume: string; hostPath?: string; local?: string };

export interface DryRunContext {
  project: string | undefined;
  engine: Engine;
  host: Engine;
  wait: WaitStrategy;
  seccompProfiles: ReadonlyMap<string, string>;
  reporter: Reporter;
  ctx: { now(): number; stdout: NodeJS.WritableStream };
}

type PodDocument = Awaited<ReturnType<typeof podDocuments>>[number];

interface PlanText {
  doc: PodDocument[];
  pruneDoc: object;
  jobDoc: { namespace: string; ref: string; plan: string; remove?: string[] }[];
  serviceDoc: { namespace: string; name: string; type: string; network: string; container?: string; ports: string[]; ip?: string; wouldMake?: string }[];
  claimDoc: ClaimDoc[];
  skipped: LoadResult['skipped'];
  prune: PrunedPod[] | string | undefined;
}

/**
 * --dry-run: the plan, and what a run would do to the engine as it is now (when it answers), read from the same
 * inputs a run plans with (the Services' addresses, what earlier runs left of each Job) and decided by the same
 * steps (translatePod, openJob, decidePodActions); nothing is created.
 */
export async function dryRun(input: Pick<LoadResult, 'pods' | 'skipped' | 'claims' | 'services' | 'workloads'>, o: RunOptions, d: DryRunContext): Promise<number> {
  const { project, engine, host, ctx, seccompProfiles, reporter, wait } = d;
  const { pods, skipped, claims, services, workloads } = input;
  const info = await engine.ping().catch((err: unknown) => (err instanceof EngineUnreachableError ? undefined : Promise.reject(err)));
  // Without an engine, this machine's architecture, in the engine's (Go's) terms: Node says x64 for amd64.
  const infraImage = o.infraImage ?? pauseImageRef(info?.arch ?? (process.arch === 'x64' ? 'amd64' : process.arch));
  // The engine's facts decide the engine-dependent fields as a run would; with no engine they are planned as asked.
  const facts = info ? await withNodeResolvConf(await engine.facts(), pods, engine) : undefined;
  if (facts) checkEngineSupport(pods, facts, reporter);
  else
    for (const n of pods.flatMap(engineDependentFields))
      reporter.note(`${n.line !== undefined ? `${n.file}:${n.line}` : n.file} ${n.path}: not checked (the engine at ${engine.address} does not answer); it ${n.message}`);
  // The Services' addresses as a run would plan with them (those there now; one a run makes has none yet). Without
  // an engine there is none to show, and the pods' Service variables are left out.
  const serviceImage = info ? pauseImageRef(info.arch) : infraImage;
  const cluster = info ? await observeCluster(engine, { pods, services, project, image: serviceImage, publishAll: o.publishAll === true }) : undefined;
  const plans = pods.map((p) =>
    translatePod(p, planOptions(o, infraImage, project, { ...(facts ? { facts } : {}), seccompProfiles }, cluster?.plan ?? { services, hosts: new Map() })),
  );
  // Each Job as a run would open it (what earlier runs left of it, --replace, its ttl): which of its pods run.
  const jobs =
    info && !wait.endsAfterSync
      ? await Promise.all(
          workloads
            .filter((w): w is WorkloadPlan & { job: JobTerms } => w.job !== undefined)
            .map(async (w) => ({ w, preview: await previewJob(engine, w, ctx.now(), o.replace === true) })),
        )
      : [];
  const jobPod = new Map<string, JobPodPreview>(jobs.flatMap(({ w, preview }) => [...preview.pods].map(([name, p]): [string, JobPodPreview] => [`${w.namespace}/${name}`, p])));
  // --dry-run --prune: what a run would take down, as the engine is now.
  const prune = o.prune ? (info ? await findPrunable(engine, plans, o.prune) : `unknown: the engine at ${engine.address} does not answer`) : undefined;
  const claimDoc = claims.map((c) =>
    c.boundTo !== undefined
      ? {
          namespace: c.namespace,
          name: c.name,
          persistentVolume: c.boundTo.volume,
          ...(c.boundTo.source.type === 'hostPath' ? { hostPath: c.boundTo.source.path } : { local: c.boundTo.source.path }),
        }
      : { namespace: c.namespace, name: c.name, engineVolume: claimVolume(c.namespace, c.name, project).engineName },
  );
  const serviceDoc = services.map((s) => {
    const found = cluster?.found.get(`${s.namespace}/${s.name}`);
    return {
      namespace: s.namespace,
      name: s.name,
      type: s.headless ? 'headless' : s.type,
      network: namespaceNetwork(s.namespace, project),
      ...(s.headless ? {} : { container: serviceContainerName(s.namespace, s.name, project) }),
      ports: s.ports.map((p) => `${p.port}/${p.protocol}→${p.targetPort}${p.nodePort !== undefined ? ` (host ${p.nodePort})` : ''}`),
      ...(found === undefined ? {} : found.state === 'up' ? { ip: found.ip } : { wouldMake: found.why }),
    };
  });
  const jobDoc = jobs.flatMap(({ w, preview }) =>
    preview.line !== undefined ? [{ namespace: w.namespace, ref: w.ref, plan: preview.line, ...(preview.remove.length > 0 ? { remove: preview.remove } : {}) }] : [],
  );
  const pruneDoc = {
    ...(jobDoc.length > 0 ? { jobs: jobDoc } : {}),
    ...(serviceDoc.length > 0 ? { services: serviceDoc } : {}),
    ...(claimDoc.length > 0 ? { claims: claimDoc } : {}),
    ...(prune !== undefined ? { prune } : {}),
    ...(skipped.length > 0 ? { skipped } : {}),
  };
  // Admission as a run would decide it now: a refused pod would fail with nothing created.
  const refused = info && pods.some(declaresRequests) ? admitPods(plans, await observeAdmission(host)) : new Map<string, string>();
  const doc = await podDocuments(plans, { engine, refused, jobPod, observe: info !== undefined, replace: o.replace === true });
  writePlan({ doc, pruneDoc, jobDoc, serviceDoc, claimDoc, skipped, prune }, o, ctx.stdout);
  return ExitCode.ok;
}

/** Each pod's plan and the actions a run would take for it, as the engine is now (unknown without one). */
async function podDocuments(
  plans: readonly PodPlan[],
  d: { engine: Engine; refused: ReadonlyMap<string, string>; jobPod: ReadonlyMap<string, JobPodPreview>; observe: boolean; replace: boolean },
) {
  const { engine, refused, jobPod } = d;
  return Promise.all(
    plans.map(async (plan) => {
      const refusal = refused.get(plan.key);
      const job = jobPod.get(plan.key);
      // A Job's pod that does not run (its Job finished, or is suspended) or whose slot runs a later attempt.
      if (job?.kind === 'none') return { plan: planDocument(plan), actions: [], job: `${job.why}: it runs nothing` };
      if (job?.kind === 'attempt')
        return {
          plan: planDocument(plan),
          actions: [],
          job: job.active ? `its attempt ${job.attempt}, ${job.name}, is running and would be awaited` : `its slot would run attempt ${job.attempt} as a new pod ${job.name}`,
        };
      const observed = d.observe && refusal === undefined ? await observePod(engine, plan.namespace, plan.name) : undefined;
      // --replace (or a Job run anew): what exists goes first, so the actions are those for a pod not there yet.
      const exists = observed !== undefined && observed.infra.length + observed.containers.size + observed.initContainers.size > 0;
      const replaces = exists && (job?.kind === 'fresh' || (d.replace && job === undefined));
      const actions = observed ? allActions(decidePodActions(plan, replaces ? groupPod([]) : observed)) : undefined;
      const taken = replaces ? (job?.kind === 'fresh' ? { anew: true } : { replace: true }) : {};
      const known =
        refusal !== undefined ? { admission: refusal, actions: [] } : actions ? { actions, ...taken } : { actions: `unknown: the engine at ${engine.address} does not answer` };
      return { plan: planDocument(plan), ...known };
    }),
  );
}

/** The plan as --output asks: JSON, YAML, or lines for a person. */
function writePlan(p: PlanText, o: RunOptions, stdout: NodeJS.WritableStream): void {
  const { doc, pruneDoc, jobDoc, serviceDoc, claimDoc, skipped, prune } = p;
  if (o.output === 'json') stdout.write(`${JSON.stringify({ apiVersion: 'runpod/v1', kind: 'Plan', pods: doc, ...pruneDoc }, null, 2)}\n`);
  else if (o.output === 'yaml') stdout.write(yaml.dump({ apiVersion: 'runpod/v1', kind: 'Plan', pods: doc, ...pruneDoc }, { noRefs: true, lineWidth: -1 }));
  else {
    for (const d of doc) {
      stdout.write(`${d.plan.pod} (uid ${d.plan.uid}, pod hash ${d.plan.hash})\n`);
      stdout.write(`  infra ${d.plan.infra.image}\n`);
      for (const c of d.plan.containers) stdout.write(`  container ${c.name}: ${c.image} (pull ${c.pullPolicy}, hash ${c.hash})\n`);
      for (const v of d.plan.volumes ?? [])
        if (v.persistentVolume !== undefined)
          stdout.write(
            `  volume ${v.name}: claim ${v.claimName ?? ''} bound to PersistentVolume ${v.persistentVolume}, host path ${v.hostPath ?? ''}${v.hostPathType ? ` (${v.hostPathType})` : ''}\n`,
          );
      if (d.plan.project !== undefined) stdout.write(`  isolation key ${d.plan.project}${o.scoped && o.project === undefined ? " (the scoped run's own, new each run)" : ''}\n`);
      if ('replace' in d) stdout.write('  would take the pod down first (--replace), then:\n');
      if ('anew' in d) stdout.write('  would take the pod down first (its Job runs anew), then:\n');
      if ('job' in d) stdout.write(`  actions: none (${d.job})\n`);
      else if ('admission' in d) stdout.write(`  would refuse the pod, creating nothing: ${d.admission}\n`);
      else if (typeof d.actions === 'string') stdout.write(`  actions: ${d.actions}\n`);
      else if (d.actions.length === 0) stdout.write('  actions: none, the pod is up to date\n');
      else for (const a of d.actions) stdout.write(`  would ${a.kind} ${'container' in a ? a.container : 'POD'}: ${a.reason}\n`);
    }
    for (const j of jobDoc) stdout.write(`${j.namespace}/${j.plan}\n`);
    for (const v of serviceDoc) {
      const state = 'ip' in v ? `, at ${v.ip}` : 'wouldMake' in v ? ` (would be made: ${v.wouldMake})` : '';
      stdout.write(
        `service ${v.namespace}/${v.name} (${v.type}) on network ${v.network}${v.container !== undefined ? `, container ${v.container}` : ''}${state}: ${v.ports.join(', ') || 'no ports'}\n`,
      );
    }
    for (const c of claimDoc) {
      if ('persistentVolume' in c) {
        const source = c.hostPath !== undefined ? `hostPath ${c.hostPath}` : `local ${c.local ?? ''}`;
        stdout.write(`claim ${c.namespace}/${c.name}: bound to PersistentVolume ${c.persistentVolume}, ${source} (the host's; never removed by runpod)\n`);
      } else stdout.write(`claim ${c.namespace}/${c.name}: engine volume ${c.engineVolume} (made if missing)\n`);
    }
    for (const k of skipped) stdout.write(`skipped ${k.kind}${k.name !== undefined ? ` ${k.name}` : ''} (${k.file}:${k.line}): ${k.why}\n`);
    if (typeof prune === 'string') stdout.write(`prune: ${prune}\n`);
    else if (prune && prune.length === 0) stdout.write('prune: nothing to remove\n');
    else for (const p of prune ?? []) stdout.write(`would prune ${p.namespace}/${p.name}${p.source !== undefined ? ` (source ${p.source})` : ''}\n`);
    if (o.scoped)
      stdout.write(`then would run: ${o.scoped.command.join(' ')}${o.scoped.keep ? '' : `, and take the pods down${o.scoped.keepClaims ? '' : ' with their claims'}`}\n`);
  }
}

function planDocument(plan: PodPlan): {
  pod: string;
  project?: string;
  uid: string;
  hash: string;
  restartPolicy: string;
  infra: { image: string; create: unknown };
  containers: { name: string; image: string; pullPolicy: string; hash: string; create: unknown }[];
  volumes?: PrintableVolume[];
  terminationLog?: { engineVolume: string; paths: Record<string, string> };
} {
  return {
    pod: plan.key,
    ...(plan.project !== undefined ? { project: plan.project } : {}),
    uid: plan.uid,
    hash: plan.hash,
    restartPolicy: plan.restartPolicy,
    infra: { image: plan.infra.image, create: plan.infra.create },
    // Secrets are never printed: env values, arguments and files that hold Secret data are masked (redact.ts).
    containers: plan.containers.map((c) => ({ name: c.name, image: c.image, pullPolicy: c.pullPolicy, hash: c.hash, create: printableCreate(c) })),
    ...(plan.volumes.length > 0 ? { volumes: printableVolumes(plan.volumes) } : {}),
    ...terminationLogDocument(plan),
  };
}

/**
 * runpod's termination-log volume and, by container, the path each instance's file is bound at: the binds are
 * per instance (instanceCreateOptions), so no printed `create` shows them.
 */
function terminationLogDocument(plan: PodPlan): { terminationLog?: { engineVolume: string; paths: Record<string, string> } } {
  const paths: Record<string, string> = {};
  for (const c of [...plan.initContainers, ...plan.containers]) if (c.terminationMessage?.bound) paths[c.name] = c.terminationMessage.path;
  return Object.keys(paths).length > 0 ? { terminationLog: { engineVolume: plan.terminationLog.engineName, paths } } : {};
}
