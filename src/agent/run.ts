// The node agent's run of one input, once its manifests are read and the engine answers: set up what the pods need
// (the engine's facts, the infra image, networks, Services, claims), plan every pod, admit them, run each pod's
// worker and each workload's driver in parallel, then settle the Services' endpoints and account for the run. As the
// kubelet and its controllers do for one node; `runpod run` (commands/run.ts) only wires this.
import type { Writable } from 'node:stream';
import { defaultAuthIO, resolveRegistryAuth } from '../engine/ports/auth.js';
import type { Engine } from '../engine/ports/engine.js';
import type { EngineInfo } from '../engine/ports/host.js';
import { ensureInfraImage, infraImagePresent } from '../reconcile/infraImage.js';
import { DeadlineError, InterruptedError } from '../errors.js';
import { admitPods, declaresRequests } from '../plan/admission.js';
import { translatePod } from '../plan/translate.js';
import type { PodPlan } from '../plan/types.js';
import { claimVolume } from '../plan/volumes.js';
import { ImagePuller } from '../reconcile/images.js';
import { observeAdmission } from '../reconcile/requests.js';
import { shellLine } from '../report/env.js';
import { writeResult } from '../report/output.js';
import type { Reporter } from '../report/reporter.js';
import type { PodResult, PrunedPod, RunResult } from '../report/result.js';
import { describeServices } from '../services/cluster.js';
import type { ServiceResult } from '../services/result.js';
import type { Backoff } from '../wait/backoff.js';
import { StopWaiting } from '../wait/bounded.js';
import type { Deadline } from '../wait/deadline.js';
import type { PodOutcome } from '../wait/runOnce.js';
import type { WaitStrategy } from '../wait/strategies/index.js';
import { lookAhead, type PreparedCluster, prepareCluster } from '../services/clusterSetup.js';
import { terminatedExitCode } from './exitCodeFrom.js';
import { checkEngineSupport, planOptions, type RunInput } from './input.js';
import { withNodeResolvConf } from './nodeResolvConf.js';
import type { RunMade } from './made.js';
import { findPrunable, prunePods, type PruneScope } from '../reconcile/prune.js';
import type { RunOptions } from './options.js';
import { sourcesRunningElsewhere } from '../reconcile/otherKeys.js';
import { podWorker } from './podWorker.js';
import { podResults, reportAllowanceMs, serviceLine, within, workloadResult } from './report.js';
import type { WorkloadOutcome } from './runWorkload.js';
import { runEnding, runFailure, type RunEnding, type Signal, finalCode, withContainer } from './verdict.js';
import { PodWaits } from './waits.js';
import { rollOut } from './workloads.js';

/** What the agent is given of the process: its clock, its signals, its output. */
export interface RunContext {
  stdout: Writable & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  interruptedBy(): Signal | undefined;
  /** Aborted at a second signal: the wait's own bound still lets each loop end with its report. */
  hurried?: AbortSignal;
  now(): number;
  processStartedAt?: number;
}

/** After --timeout, how long the pods' loops have to end with their own reports (one last look each) before the run ends anyway. */
const waitPhaseGraceMs = 5_000;

/**
 * The run's bounds on the engine: every request before and after the wait ends at --timeout or a signal, so an engine
 * that accepts connections and never answers cannot hold the run (wait/bounded.ts); the wait itself is bounded a
 * little after --timeout (each pod's loop ends itself at the deadline) and by a second signal only.
 */
export class RunBounds {
  constructor(
    readonly deadline: Deadline,
    private readonly address: string,
    private readonly ctx: RunContext,
  ) {}

  step<T>(work: Promise<T>): Promise<T> {
    return this.deadline.bound(work, this.ctx.now, this.ctx.signal).catch((err: unknown) => this.stopped(err));
  }

  waitPhase<T>(work: Promise<T>): Promise<T> {
    return this.deadline
      .plus(waitPhaseGraceMs)
      .bound(work, this.ctx.now, this.ctx.hurried)
      .catch((err: unknown) => this.stopped(err));
  }

  private stopped(err: unknown): never {
    if (!(err instanceof StopWaiting)) throw err;
    if (err.by === 'signal') throw new InterruptedError(this.ctx.interruptedBy() ?? 'SIGINT');
    throw new DeadlineError(
      `--timeout passed while the Docker engine at ${this.address} had not answered; it accepts connections but does not reply (is dockerd frozen or overloaded?)`,
    );
  }
}

export interface RunSession {
  o: RunOptions;
  wait: WaitStrategy;
  input: RunInput;
  project: string | undefined;
  /** The engine under the run's key, and the whole host (admission and other keys' pods count there). */
  engine: Engine;
  host: Engine;
  info: EngineInfo;
  /** The run's retry budget, after the engine wait spent from it; each pod's loop spends a fork of it. */
  budget: Backoff;
  bounds: RunBounds;
  reporter: Reporter;
  ctx: RunContext;
  /** What the run has made, once it may have: set here, taken by the command for its takedown. */
  made: { current?: RunMade };
}

interface SetUp {
  images: ImagePuller;
  cluster: PreparedCluster;
  plans: PodPlan[];
  translate: (loaded: RunInput['pods'][number]) => PodPlan;
  admission: Promise<Map<string, string>> | undefined;
}

/** What the run came to, before its ending is said (plainly, or after a scoped command). */
export interface RunSettled {
  ending: RunEnding;
  outcomes: PodOutcome[];
  rollouts: WorkloadOutcome[];
  results: PodResult[];
  plans: PodPlan[];
  serviceResults: ServiceResult[];
  pruned?: PrunedPod[];
}

/** Steps 2 to 5: set up, wait for every pod, settle the endpoints, report each pod. */
export async function runSession(s: RunSession): Promise<RunSettled> {
  // Removals set up leaves under way (the network locks, services/network.ts): awaited before the run ends, in its
  // bound, whichever way it ends, so none is left behind.
  const pending: Promise<void>[] = [];
  try {
    const setUp = await setUpRun(s, (removal) => pending.push(removal));
    const { bare, rollouts } = await waitForPods(s, setUp);
    return await settleRun(s, setUp, bare, rollouts);
  } finally {
    // A removal never rejects (one that failed leaves a lock the next run takes as stale); only the bound can stop
    // this wait, and then the run's own ending stands (an interrupted run still reports as one), as a set-up cut
    // short by the same bound left its lock before.
    await s.bounds.step(Promise.all(pending)).catch(() => undefined);
  }
}

/** Step 3: the engine's facts, the infra image, networks and Services, the pods' plans and the claims' volumes. */
async function setUpRun(s: RunSession, release: (removal: Promise<void>) => void): Promise<SetUp> {
  const { o, input, engine, host, project, reporter, bounds, ctx } = s;
  const { pods, services, claims } = input;
  // The same manifests already running under another key: this run makes a second copy, which a user who meant
  // the first should know (a scoped run's own key is new each time on purpose: nothing to say then). Asked now,
  // beside the engine's facts and the infra image (a list, it changes nothing); said where it was said before.
  const elsewhere =
    o.scoped && o.project === undefined
      ? undefined
      : sourcesRunningElsewhere(host, new Set(pods.flatMap((p) => (p.source.origin !== undefined ? [p.source.origin] : []))), project);
  elsewhere?.catch(() => undefined);
  // Whether the infra image is there, asked beside the engine's facts (a read; an import waits for the check).
  const infraPresent = infraImagePresent(engine, s.info.arch);
  infraPresent.catch(() => undefined);
  // And the first reads of the networks' set-up (no answer of them depends on another): the same round.
  const ahead = lookAhead(engine, { pods, services, project });
  // What the engine can do, asked once: a field it cannot honour stops the run here, before anything is made.
  // (With the engine host's resolv.conf when a pod's dnsPolicy Default needs it: agent/nodeResolvConf.ts.)
  const facts = await bounds.step(engine.facts().then((f) => withNodeResolvConf(f, pods, engine)));
  checkEngineSupport(pods, facts, reporter);
  const images = new ImagePuller(engine, (image) => resolveRegistryAuth(image, ctx.env, defaultAuthIO), {
    onProgress: (image, p) => reporter.pullProgress(image, p.status),
    // --pull always asks for the pull itself: no image but the registry's will do then.
    ...(o.pull !== 'always'
      ? {
          onOfflineFallback: (image: string, why: string) =>
            reporter.warn(
              `image ${image}: the registry is out of reach (${why.replace(/^cannot pull image \S+: /, '')}); running the image the engine has, without the pull imagePullPolicy Always asks for (--pull always would fail instead)`,
            ),
        }
      : {}),
  });
  // Admission needs the engine's capacity and what every key's pods request (they share the host): asked now,
  // beside the infra image, when any pod requests resources (a rejection is awaited in step 4, so it is held here).
  const observed = pods.some(declaresRequests) ? observeAdmission(host) : undefined;
  observed?.catch(() => undefined);
  // The infra image: runpod's own, imported once per engine, or the one the user named.
  const infraImage = o.infraImage ?? (await bounds.step(ensureInfraImage(engine, s.info.arch, infraPresent)));
  if (elsewhere !== undefined) for (const w of await bounds.step(elsewhere)) reporter.warn(w);
  // Networks and Services before any pod: a pod's names, DNS and Service variables are part of what it is.
  const serviceImage = o.infraImage !== undefined ? await bounds.step(ensureInfraImage(engine, s.info.arch, infraPresent)) : infraImage;
  // From here on the run makes things: one that fails by an error (not a pod's failure, which the account says)
  // takes them down if scoped, or names them with the down line (agent/takedown.ts).
  const made: RunMade = {
    engine,
    project,
    ...(o.host !== undefined ? { hostWords: ` --host ${shellLine([o.host])}` } : {}),
    ownKey: o.scoped !== undefined && o.project === undefined,
    pods: pods.map((p) => ({ namespace: p.pod.metadata.namespace!, name: p.pod.metadata.name! })),
    services,
    claimVolumes: claims.filter((c) => c.boundTo === undefined).map((c) => claimVolume(c.namespace, c.name, project).engineName),
    keepClaims: o.scoped?.keepClaims === true,
    serviceImage,
    manifestWords: o.manifests.includes('-') ? undefined : shellLine(o.manifests),
  };
  s.made.current = made;
  const cluster = await bounds.step(prepareCluster(engine, { pods, services, project, image: serviceImage, publishAll: o.publishAll === true, release, ahead }));
  for (const v of services)
    reporter.verbose(`service ${v.namespace}/${v.name}: ${v.headless ? 'headless' : `${v.type} at ${cluster.plan.hosts.get(`${v.namespace}/${v.name}`) ?? '?'}`}`);
  const translate = (loaded: RunInput['pods'][number]): PodPlan =>
    translatePod(loaded, planOptions(o, infraImage, project, { facts, seccompProfiles: input.seccompProfiles }, cluster.plan));
  const plans = pods.map(translate);
  made.claimVolumes = [...new Set([...made.claimVolumes, ...plans.flatMap((p) => p.volumes.filter((v) => v.type === 'persistentVolumeClaim').map((v) => v.engineName))])];
  // The input's PersistentVolumeClaims, as `kubectl apply` makes them: each its named engine volume (kept if there).
  await bounds.step(
    Promise.all(
      claims.map(async (c) => {
        // A claim bound to a PersistentVolume of the input has no engine volume: its pods mount the volume's host path.
        if (c.boundTo !== undefined)
          return reporter.verbose(
            `persistentvolumeclaim ${c.namespace}/${c.name}: bound to persistentvolume ${c.boundTo.volume} (${c.boundTo.source.type} ${c.boundTo.source.path})`,
          );
        const v = claimVolume(c.namespace, c.name, project);
        await engine.createVolume(v.engineName, { labels: v.labels });
        reporter.verbose(`persistentvolumeclaim ${c.namespace}/${c.name}: engine volume ${v.engineName}`);
      }),
    ),
  );
  const admission = observed?.then((state) => admitPods(plans, state));
  admission?.catch(() => undefined);
  return { images, cluster, plans, translate, admission };
}

/**
 * Step 4: admission (the kubelet's, before anything is created): a pod whose requests the engine host cannot hold
 * beside those already there fails now, with nothing made. Then every admitted pod's worker and every workload's
 * driver, in parallel, each with its own result.
 */
async function waitForPods(s: RunSession, u: SetUp): Promise<{ bare: PodOutcome[]; rollouts: WorkloadOutcome[] }> {
  const { o, input, engine, project, reporter, bounds, ctx } = s;
  const refused = u.admission ? await bounds.step(u.admission) : new Map<string, string>();
  const waits = new PodWaits(s.wait, input.workloads);
  const worker = podWorker({
    engine,
    images: u.images,
    waits,
    deadline: bounds.deadline,
    budget: s.budget,
    endpoints: u.cluster.endpoints,
    refused,
    options: o,
    reporter,
    signal: ctx.signal,
    now: ctx.now,
    ...(ctx.processStartedAt !== undefined ? { processStartedAt: ctx.processStartedAt } : {}),
  });
  const byKey = new Map(u.plans.map((p) => [p.key, p]));
  const loadedByKey = new Map(input.pods.map((p) => [`${p.pod.metadata.namespace}/${p.pod.metadata.name}`, p]));
  // Each pod's loop ends itself at the deadline with its own report (after one last look); a rollout's own
  // requests (listing, scaling down) are not inside a loop, so the whole is bounded a little after it.
  const [bare, rollouts] = await bounds.waitPhase(
    Promise.all([
      Promise.all(u.plans.filter((p) => p.owner === undefined).map((plan) => worker(plan))),
      Promise.all(
        input.workloads.map((w) =>
          rollOut(w, waits.startOnly, {
            engine,
            plans: byKey,
            loaded: loadedByKey,
            translate: u.translate,
            runPod: worker,
            project,
            ...(o.replace ? { replace: true } : {}),
            onRemoved: (ns) => void u.cluster.endpoints.refresh(ns),
            signal: ctx.signal,
            now: ctx.now,
            reporter,
          }),
        ),
      ),
    ]),
  );
  return { bare, rollouts };
}

/** Step 5: the endpoints as the run leaves the pods, each pod's result, the workloads' lines, --prune. */
async function settleRun(s: RunSession, u: SetUp, bare: PodOutcome[], rollouts: WorkloadOutcome[]): Promise<RunSettled> {
  const { o, engine, input, project, reporter, bounds, ctx } = s;
  const { cluster } = u;
  const outcomes = [...bare, ...rollouts.flatMap((r) => [...r.outcomes.values()])];
  // A workload's own status stands for its pods: a Job that succeeded after a failed attempt has succeeded.
  const ending = () => runEnding([...bare.map((x) => x.status), ...rollouts.map((r) => r.status)], ctx.interruptedBy());
  // The Services' endpoints as the run leaves the pods (a pod replaced in a rollout is gone, say), before the
  // result: a script that goes on after runpod reaches the pods through them. A run that failed, timed out or
  // lost the engine keeps its own exit code and reason: this is then done as far as the engine lets it.
  const succeeding = ending() === 'ok';
  const settled = Promise.all([...cluster.namespaces].map((ns) => cluster.endpoints.refresh(ns))).then(() => cluster.endpoints.settle());
  if (succeeding) await bounds.step(settled);
  else await within(settled, ctx.now() + reportAllowanceMs, ctx.now, undefined);
  if (succeeding && cluster.endpoints.error !== undefined) throw cluster.endpoints.error;
  const serviceResults = input.services.length > 0 ? await within(describeServices(engine, input.services, project), ctx.now() + reportAllowanceMs, ctx.now, []) : [];
  // Logs, termination messages and ports are detail: an engine that stopped answering must not hold the exit.
  const results = await podResults(engine, outcomes, ctx.now() + reportAllowanceMs, ctx.now);
  for (const r of results) reporter.podFinished(r);
  for (const v of serviceResults) reporter.info(serviceLine(v));
  const end = ending();
  for (const r of rollouts) {
    // A suspended Job ran nothing: a success of the run, said as a warning so it is not taken for a completion.
    if (r.status === 'succeeded' && !r.suspended) reporter.info(r.reason);
    // A failed workload is the headline of the run's failure (verdict.ts): said there, once.
    else if (!(r.status === 'failed' && end === 'failed')) reporter.warn(r.reason);
  }
  const pruned = o.prune ? await pruneAfterRun(s, u.plans, o.prune, end) : undefined;
  if (pruned !== undefined && pruned.length > 0) {
    // Pruned pods are no endpoints any more.
    await Promise.all([...new Set(pruned.map((p) => p.namespace))].map((ns) => cluster.endpoints.refresh(ns)));
    if (cluster.endpoints.error !== undefined) throw cluster.endpoints.error;
  }
  return { ending: end, outcomes, rollouts, results, plans: u.plans, serviceResults, ...(pruned ? { pruned } : {}) };
}

/**
 * --prune / --prune-all, after the wait whatever its outcome: pods that failed to come up are no reason to prune
 * less. Not when --timeout or a signal ended the run (the user wants it to stop), nor without an engine.
 */
async function pruneAfterRun(s: RunSession, plans: PodPlan[], scope: PruneScope, ending: RunEnding): Promise<PrunedPod[] | undefined> {
  const { engine, reporter } = s;
  if (ending === 'timeout' || ending === 'interrupted' || ending === 'engine') {
    reporter.info(`not pruning: ${ending === 'timeout' ? '--timeout passed' : ending === 'engine' ? 'the engine failed' : 'interrupted'}`);
    return undefined;
  }
  if (scope === 'source' && plans.every((p) => p.source === undefined)) reporter.info('nothing to prune: pods from stdin have no source');
  const candidates = await findPrunable(engine, plans, scope);
  return prunePods(engine, candidates, (p) =>
    reporter.info(
      `${p.namespace}/${p.name}: pruned${p.source !== undefined ? ` (source ${p.source})` : ''}, ${p.removedContainers} container${p.removedContainers === 1 ? '' : 's'} removed`,
    ),
  );
}

/** The run's failure, told whether what it made is still in place; undefined when it ended ok. */
export function failureOf(s: RunSession, r: RunSettled, leftInPlace: boolean) {
  return runFailure({
    ending: r.ending,
    outcomes: r.outcomes,
    results: r.results,
    rollouts: r.rollouts,
    signal: s.ctx.interruptedBy(),
    waitedFor: s.wait.mode,
    manifests: shellLine(s.o.manifests),
    fromStdin: s.o.manifests.includes('-'),
    project: s.project,
    ...(s.o.host !== undefined ? { hostWords: ` --host ${shellLine([s.o.host])}` } : {}),
    leftInPlace,
  });
}

/** --exit-code-from's container code, read off the engine once it has terminated. */
export function containerCode(s: RunSession): (() => Promise<number | undefined>) | undefined {
  const from = s.input.exitFrom;
  return from ? () => terminatedExitCode(s.engine, from, (m) => s.reporter.warn(m)) : undefined;
}

/** Step 6 of a plain run: the result on stdout (unless a person has read it already), and its exit code. */
export async function finishRun(s: RunSession, r: RunSettled): Promise<number> {
  const { o, reporter, ctx } = s;
  const code = containerCode(s);
  const error = withContainer(failureOf(s, r, true), s.input.exitFrom, code ? await code() : undefined);
  reporter.close();
  // A person at a terminal has just read each pod's line on stderr; stdout repeats it only for a pipe or file.
  const shownAlready = o.output === 'text' && !o.quiet && ctx.stdout.isTTY === true;
  const exitCode = finalCode(error);
  const result: RunResult = {
    apiVersion: 'runpod/v1',
    kind: 'RunResult',
    exitCode,
    ...(s.project !== undefined ? { project: s.project } : {}),
    pods: r.results,
    ...(r.rollouts.length > 0 ? { workloads: r.rollouts.map(workloadResult) } : {}),
    ...(r.pruned ? { pruned: r.pruned } : {}),
    ...(r.serviceResults.length > 0 ? { services: r.serviceResults } : {}),
  };
  if (!shownAlready) writeResult(ctx.stdout, result, o.output);
  if (error) throw error;
  return exitCode;
}
