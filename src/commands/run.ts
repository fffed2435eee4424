// runpod run: load -> plan -> connect -> (per pod, in parallel) sync and wait -> report. Reads top to bottom
// like the kubelet's run-once: every layer below does the work, this only wires them.
import { randomBytes } from 'node:crypto';
import yaml from 'js-yaml';
import { defaultAuthIO, resolveRegistryAuth } from '../engine/ports/auth.js';
import type { ContainerFiles, ContainerLifecycle, ContainerReader } from '../engine/ports/containers.js';
import type { HostPort } from '../engine/ports/host.js';
import type { ExecPort, LogPort } from '../engine/ports/streams.js';
import type { VolumePort } from '../engine/ports/volumes.js';
import { ensureInfraImage } from '../reconcile/infraImage.js';
import { pauseImageRef } from '../reconcile/pauseImage.js';
import { DeadlineError, EngineUnreachableError, ExitCode, InterruptedError, ManifestError, PodFailedError, type RunpodError, UsageError } from '../errors.js';
import type { EngineFacts } from '../engine/ports/facts.js';
import { loadManifests } from '../manifest/load.js';
import { unmatchedSkipKinds } from '../manifest/validate.js';
import { sortByFileAndLine } from '../manifest/parse.js';
import { defaultSeccompProfileRoot, readProfileFile, readSeccompProfiles } from '../manifest/seccompProfiles.js';
import { engineDependentFields, engineSupport } from '../plan/engineSupport.js';
import type { LoadedPod, LoadResult } from '../manifest/types.js';
import { namespaceNetwork, serviceContainerName } from '../kube/serviceNames.js';
import { claimVolume } from '../plan/volumes.js';
import { containerRestart, type RestartPolicy } from '../kube/restart.js';
import { translatePod } from '../plan/translate.js';
import { observeCluster, prepareCluster } from '../services/clusterSetup.js';
import { StopWaiting, bounded } from '../wait/bounded.js';
import { describeServices } from '../services/cluster.js';
import { withNetworkRepair } from '../services/network.js';
import { type PrintableVolume, printableCreate, printableVolumes } from '../plan/redact.js';
import { allActions, decidePodActions } from '../reconcile/decide.js';
import { admitPods, declaresRequests } from '../plan/admission.js';
import { observeAdmission } from '../reconcile/requests.js';
import { ImagePuller } from '../reconcile/images.js';
import { groupPod, observePod } from '../reconcile/observe.js';
import { terminationMessage } from '../reconcile/termination.js';
import { failureDetail, failureHeadline, type OutputFormat, workloadName, writeResult } from '../report/output.js';
import { shellLine } from '../report/env.js';
import { createReporter, type Reporter } from '../report/reporter.js';
import { type PodResult, type PrunedPod, type RunResult, type WorkloadResult, podResult } from '../report/result.js';
import { Backoff } from '../wait/backoff.js';
import { type WaitMode, waitStrategy } from '../wait/strategies/index.js';
import { type PodOutcome, type PodOutcomeStatus, runPod } from '../wait/runOnce.js';
import { type CommandContext, readAll } from './context.js';
import { connectEngine, openHostEngine } from './engineSession.js';
import { projectEngine } from '../engine/ports/project.js';
import { withPorts } from '../report/endpoints.js';
import { findPrunable, type PruneScope, prunePods } from '../reconcile/prune.js';
import { runScoped, type ScopedOptions } from './scoped.js';
import { sourcesRunningElsewhere } from '../reconcile/otherKeys.js';
import { removePod } from '../reconcile/removePod.js';
import { afterFailedRun, type RunMade } from './takedown.js';
import { type JobPodPreview, previewJob, rollOut } from './workloadRun.js';
import type { JobTerms, WorkloadPlan } from '../workloads/expand.js';
import type { WorkloadOutcome } from '../agent/runWorkload.js';
import { checkExitCodeFromWait, resolveExitCodeFrom, terminatedExitCode, withContainerCode } from './exitCodeFrom.js';
import type { ServiceResult } from '../services/result.js';
import type { PullOverride, PodPlan, ClusterPlan, PlanOptions } from '../plan/types.js';
import { actionHeadline } from '../reconcile/action.js';

export interface RunOptions {
  manifests: string[];
  wait: WaitMode;
  timeoutMs?: number;
  retries: number;
  retryDelayMs: number;
  backoff: number;
  maxDelayMs: number;
  settleMs: number;
  /** --crash-loop-limit: restarts in a row without coming up that fail a pod; 0 never (wait/crashLoop.ts). */
  crashLoopLimit?: number;
  pull?: PullOverride;
  infraImage?: string;
  namespace: string;
  dryRun: boolean;
  output: OutputFormat;
  quiet: boolean;
  verbose: boolean;
  host?: string;
  /** The isolation key (kube/project.ts): only pods made under it are seen. */
  project?: string;
  /** --publish-all: every container port on a host port the engine chooses. */
  publishAll?: boolean;
  /** --prune (same source) / --prune-all: take down the runpod pods this run does not name. */
  prune?: PruneScope;
  /** run … -- <command>: run it against the pods, then take them down (scoped.ts). */
  scoped?: ScopedOptions;
  /** --replace: take each pod down first, so it runs afresh (a finished one-shot pod runs again). */
  replace?: boolean;
  /** --exit-code-from [pod/]container: exit with that container's own code once it has terminated (exitCodeFrom.ts). */
  exitCodeFrom?: string;
  /** --skip-kind: kinds to skip on purpose (manifest/kinds.ts). */
  skipKinds?: string[];
  /** --from-cronjob: CronJobs whose job template runs once. */
  fromCronJobs?: string[];
  /** --seccomp-profile-root: where Localhost seccomp profiles are read (default the kubelet's). */
  seccompProfileRoot?: string;
}

/** Log lines shown per failing container (design.md). */
const failureLogLines = 20;

export async function runCommand(o: RunOptions, ctx: CommandContext): Promise<number> {
  const startedAt = ctx.now();
  const deadline = o.timeoutMs !== undefined ? startedAt + o.timeoutMs : undefined;
  const reporter = await createReporter({ stream: ctx.stderr, env: ctx.env, quiet: o.quiet, verbose: o.verbose, now: () => new Date(ctx.now()) });
  // What the run may have made, once it may have: taken down (a scoped run) or named (any other) if it fails by an error.
  let made: RunMade | undefined;
  // A scoped run holds signals: a second one hurries its takedown instead of ending runpod at once (takedown.ts).
  const releaseSignals = o.scoped ? ctx.onSignal?.(() => undefined) : undefined;
  try {
    // 1. Load and validate every manifest; nothing touches the engine before this passes.
    const { pods, warnings, skipped, workloads, claims, services, notes } = await loadManifests(o.manifests, { defaultNamespace: o.namespace, ...(o.skipKinds ? { skipKinds: o.skipKinds } : {}), ...(o.fromCronJobs ? { fromCronJobs: o.fromCronJobs } : {}) }, () => readAll(ctx.stdin));
    for (const n of notes ?? []) reporter.note(n);
    for (const w of warnings) reporter.note(`${w.line !== undefined ? `${w.file}:${w.line}` : w.file} ${w.path}: ${w.message}`);
    for (const n of unmatchedSkipKinds(o.skipKinds ?? [], skipped)) reporter.note(n);
    refuseImpossibleWaits(pods.filter((p) => p.owner === undefined), o.wait);
    const exitFrom = o.exitCodeFrom !== undefined ? resolveExitCodeFrom(o.exitCodeFrom, pods) : undefined;
    if (exitFrom) checkExitCodeFromWait(o.exitCodeFrom!, exitFrom, o.wait, o.scoped !== undefined);
    // Localhost seccomp profiles are read here, on the client, as the kubelet reads them on its node.
    const seccomp = await readSeccompProfiles(pods, o.seccompProfileRoot ?? defaultSeccompProfileRoot, readProfileFile);
    if (seccomp.problems.length > 0) throw new ManifestError(seccomp.problems);

    // 2. Connect, within the retry budget and deadline. A scoped run is isolated by default: under a key of its
    // own, unless one was given, so parallel CI jobs running the same manifests never share pods (kube/project.ts).
    const project = o.project ?? (o.scoped ? scopedProjectKey() : undefined);
    const host = await openHostEngine(o.host, ctx.env);
    // A namespace's network removed under the run (by a concurrent down or gc) is made again (services/network.ts).
    const engine = withNetworkRepair(projectEngine(host, project), project);
    // The loop bounds its own requests; every one before and after it ends at --timeout or a signal too, so an
    // engine that accepts connections and never answers cannot hold the run (wait/bounded.ts).
    const stopped = (err: unknown): never => {
      if (!(err instanceof StopWaiting)) throw err;
      if (err.by === 'signal') throw new InterruptedError(ctx.interruptedBy() ?? 'SIGINT');
      throw new DeadlineError(`--timeout passed while the Docker engine at ${engine.address} had not answered; it accepts connections but does not reply (is dockerd frozen or overloaded?)`);
    };
    const step = <T>(work: Promise<T>): Promise<T> => bounded(work, { until: deadline, now: ctx.now, signal: ctx.signal }).catch(stopped);
    const waitPhase = <T>(work: Promise<T>): Promise<T> => bounded(work, { until: deadline === undefined ? undefined : deadline + waitPhaseGraceMs, now: ctx.now, ...(ctx.hurried ? { signal: ctx.hurried } : {}) }).catch(stopped);
    const budget = new Backoff({ retries: o.retries, retryDelayMs: o.retryDelayMs, factor: o.backoff, maxDelayMs: o.maxDelayMs });
    if (o.dryRun) return await step(dryRun({ pods, skipped, claims, services, workloads }, o, project, engine, host, ctx, seccomp.profiles, reporter));
    const info = await connectEngine(engine, ctx, {
      backoff: budget,
      ...(deadline !== undefined ? { deadline } : {}),
      onWaiting: (line, first) => (first ? reporter.warn(line) : reporter.info(line)),
    });
    reporter.verbose(`engine ${info.version} (API ${info.apiVersion}, ${info.os}/${info.arch}) at ${engine.address}`);
    // The same manifests already running under another key: this run makes a second copy, which a user who meant
    // the first should know (a scoped run's own key is new each time on purpose: nothing to say then). Asked now,
    // beside the engine's facts and the infra image (a list, it changes nothing); said where it was said before.
    const elsewhere = o.scoped && o.project === undefined ? undefined : sourcesRunningElsewhere(host, new Set(pods.flatMap((p) => (p.source.origin !== undefined ? [p.source.origin] : []))), project);
    elsewhere?.catch(() => undefined);
    // What the engine can do, asked once: a field it cannot honour stops the run here, before anything is made.
    const facts = await step(engine.facts());
    checkEngineSupport(pods, facts, reporter);
    const plan = { facts, seccompProfiles: seccomp.profiles };

    // 3. The infra image: runpod's own, imported once per engine, or the one the user named.
    const images = new ImagePuller(engine, (image) => resolveRegistryAuth(image, ctx.env, defaultAuthIO), {
      onProgress: (image, p) => reporter.pullProgress(image, p.status),
      // --pull always asks for the pull itself: no image but the registry's will do then.
      ...(o.pull !== 'always'
        ? { onOfflineFallback: (image: string, why: string) => reporter.warn(`image ${image}: the registry is out of reach (${why.replace(/^cannot pull image \S+: /, '')}); running the image the engine has, without the pull imagePullPolicy Always asks for (--pull always would fail instead)`) }
        : {}),
    });
    // Admission needs the engine's capacity and what runs there: asked now, beside the infra image, when any pod
    // requests resources (a rejection is awaited in step 4, so it is held here).
    // What every key's pods request counts: they share the host.
    const admission = pods.some(declaresRequests) ? observeAdmission(host) : undefined;
    admission?.catch(() => undefined);
    const infraImage = o.infraImage ?? (await step(ensureInfraImage(engine, info.arch)));
    if (elsewhere !== undefined) for (const w of await step(elsewhere)) reporter.warn(w);
    // Networks and Services before any pod: a pod's names, DNS and Service variables are part of what it is.
    const serviceImage = o.infraImage !== undefined ? await step(ensureInfraImage(engine, info.arch)) : infraImage;
    // From here on the run makes things: one that fails by an error (not a pod's failure, which the account below
    // says) takes them down if scoped, or names them with the down line (takedown.ts).
    made = { engine, project, ownKey: o.scoped !== undefined && o.project === undefined, pods: pods.map((p) => ({ namespace: p.pod.metadata.namespace!, name: p.pod.metadata.name! })), services, claimVolumes: claims.map((c) => claimVolume(c.namespace, c.name, project).engineName), keepClaims: o.scoped?.keepClaims === true, serviceImage, manifestWords: o.manifests.includes('-') ? undefined : shellLine(o.manifests) };
    const cluster = await step(prepareCluster(engine, { pods, services, project, image: serviceImage, publishAll: o.publishAll === true }));
    for (const s of services) reporter.verbose(`service ${s.namespace}/${s.name}: ${s.headless ? 'headless' : `${s.type} at ${cluster.plan.hosts.get(`${s.namespace}/${s.name}`) ?? '?'}`}`);
    const plans = pods.map((p) => translatePod(p, planOptions(o, infraImage, project, plan, cluster.plan)));
    made.claimVolumes = [...new Set([...made.claimVolumes, ...plans.flatMap((p) => p.volumes.filter((v) => v.type === 'persistentVolumeClaim').map((v) => v.engineName))])];
    // The input's PersistentVolumeClaims, as `kubectl apply` makes them: each its named engine volume (kept if there).
    await step(Promise.all(
      claims.map(async (c) => {
        const v = claimVolume(c.namespace, c.name, project);
        await engine.createVolume(v.engineName, { labels: v.labels });
        reporter.verbose(`persistentvolumeclaim ${c.namespace}/${c.name}: engine volume ${v.engineName}`);
      }),
    ));

    // 4. Admission (the kubelet's, before anything is created): a pod whose requests the engine host cannot hold
    // beside those already there fails now, with nothing made. Then sync and wait for every admitted pod in
    // parallel, each with its own result.
    const refused = admission ? admitPods(plans, await step(admission)) : new Map<string, string>();
    // --replace takes each pod down once: a rollout brings a pod up more than once (minReadySeconds checks again).
    const replaced = new Set<string>();
    // Each pod's line when its loop ends, not with the others at the end: a pod ready at 4 s says so at 4 s, and is
    // awaited no more (the heartbeat names only what still is). The run's account repeats none of them.
    const runOne = async (plan: PodPlan, mode: WaitMode, stepDeadline?: number, restartsBounded?: (restarts: number) => string | undefined): Promise<PodOutcome> => {
      const waited = await runOneWait(plan, mode, stepDeadline, restartsBounded);
      // A pod's time counts from the process's start, as the user's wall clock does (issue 28): node's start, the
      // manifests and the engine's set-up included, not only the pod's own loop.
      const outcome = ctx.processStartedAt !== undefined && ctx.processStartedAt < waited.startedAt ? { ...waited, startedAt: ctx.processStartedAt } : waited;
      reporter.podFinished(podResult(outcome, new Map(), new Map()));
      return outcome;
    };
    const runOneWait = async (plan: PodPlan, mode: WaitMode, stepDeadline?: number, restartsBounded?: (restarts: number) => string | undefined): Promise<PodOutcome> => {
      reporter.podStarted(plan.key);
      const refusal = refused.get(plan.key);
      if (refusal !== undefined) return refusedOutcome(plan, refusal, ctx.now());
      if (o.replace && !replaced.has(plan.key)) {
        replaced.add(plan.key);
        await replacePod(engine, plan, reporter);
      }
      const until = stepDeadline === undefined ? deadline : Math.min(stepDeadline, deadline ?? stepDeadline);
      // A step deadline is a workload's own (a Job's activeDeadlineSeconds, a Deployment's progressDeadlineSeconds),
      // which its line names; the pod's says which of the two ended it.
      const byWorkload = stepDeadline !== undefined && (deadline === undefined || stepDeadline < deadline);
      // While runpod watches a pod, it is an endpoint of its Services only when ready (endpointsController.ts).
      if (mode !== 'none') cluster.endpoints.watch(plan.uid);
      return runPod(plan, {
        engine,
        images,
        mode,
        backoff: budget.fork(),
        settleMs: o.settleMs,
        ...(o.crashLoopLimit !== undefined ? { crashLoopLimit: o.crashLoopLimit } : {}),
        ...(until !== undefined ? { deadline: until } : {}),
        ...(byWorkload ? { deadlineBy: `${plan.owner ?? 'its workload'}'s deadline` } : {}),
        signal: ctx.signal,
        now: ctx.now,
        onAction: (p, a) => reporter.podAction(p.key, a),
        onCheck: (p, c) => {
          reporter.podCheck(p.key, c);
          cluster.endpoints.noteReady(p.uid, p.namespace, c.ok && !c.failed && mode !== 'completed', c.containers.map((v) => v.instance?.id ?? '').join(','));
        },
        onWarning: (p, message) => reporter.warn(`${p.key}: ${message}`),
        onResult: (p, r) => reporter.verbose(`${p.key}: ${actionHeadline(r.action)}: ${r.ok ? (r.outcome ?? 'done') : `failed: ${r.error ?? 'no answer'}`}`),
        ...(restartsBounded ? { restartsBounded } : {}),
      });
    };
    // A workload's pods wait by its kind: as kubectl rollout status does (every replica updated and available),
    // a Job's until each has completed.
    const workloadMode: WaitMode = o.wait === 'none' ? 'none' : 'ready';
    const byKey = new Map(plans.map((p) => [p.key, p]));
    const loadedByKey = new Map(pods.map((p) => [`${p.pod.metadata.namespace}/${p.pod.metadata.name}`, p]));
    const jobOwners = new Set(workloads.filter((w) => w.job).map((w) => `${w.namespace}/${w.ref}`));
    // Each pod's loop ends itself at the deadline with its own report (after one last look); a rollout's own
    // requests (listing, scaling down) are not inside a loop, so the whole is bounded a little after it.
    const [bare, rollouts] = await waitPhase(Promise.all([
      Promise.all(plans.filter((p) => p.owner === undefined).map((plan) => runOne(plan, o.wait))),
      Promise.all(
        workloads.map((w) =>
          rollOut(w, o.wait === 'none', {
            engine,
            plans: byKey,
            loaded: loadedByKey,
            translate: (loaded) => translatePod(loaded, planOptions(o, infraImage, project, plan, cluster.plan)),
            runPod: (plan, d, watch) => runOne(plan, o.wait === 'none' ? 'none' : jobOwners.has(`${plan.namespace}/${plan.owner}`) ? 'completed' : workloadMode, d, watch),
            project,
            ...(o.replace ? { replace: true } : {}),
            onRemoved: (ns) => void cluster.endpoints.refresh(ns),
            signal: ctx.signal,
            now: ctx.now,
            reporter,
          }),
        ),
      ),
    ]));
    const outcomes = [...bare, ...rollouts.flatMap((r) => [...r.outcomes.values()])];
    // The Services' endpoints as the run leaves the pods (a pod replaced in a rollout is gone, say), before the
    // result: a script that goes on after runpod reaches the pods through them. A run that failed, timed out or
    // lost the engine keeps its own exit code and reason: this is then done as far as the engine lets it.
    const succeeding = runExitCode([...bare.map((x) => x.status), ...rollouts.map((r) => r.status)], ctx.interruptedBy()) === ExitCode.ok;
    const settled = Promise.all([...cluster.namespaces].map((ns) => cluster.endpoints.refresh(ns))).then(() => cluster.endpoints.settle());
    if (succeeding) await step(settled);
    else await within(settled, ctx.now() + reportAllowanceMs, ctx.now, undefined);
    if (succeeding && cluster.endpoints.error !== undefined) throw cluster.endpoints.error;
    const serviceResults = services.length > 0 ? await within(describeServices(engine, services, project), ctx.now() + reportAllowanceMs, ctx.now, []) : [];

    // 5. Report: per pod, and the exit code of the whole run.
    // Logs, termination messages and ports are detail: an engine that stopped answering must not hold the exit.
    const reportBy = ctx.now() + reportAllowanceMs;
    const results = await Promise.all(
      outcomes.map(async (out) => {
        const result = await resultWithLogs(engine, out, reportBy, ctx.now);
        return within(withPorts(engine, out, result), reportBy, ctx.now, result);
      }),
    );
    for (const r of results) reporter.podFinished(r);
    for (const v of serviceResults) reporter.info(serviceLine(v));
    // A workload's own status stands for its pods: a Job that succeeded after a failed attempt has succeeded.
    const exitCode = runExitCode([...bare.map((x) => x.status), ...rollouts.map((r) => r.status)], ctx.interruptedBy());
    for (const r of rollouts) {
      // A suspended Job ran nothing: a success of the run, said as a warning so it is not taken for a completion.
      if (r.status === 'succeeded' && !r.suspended) reporter.info(r.reason);
      // A failed workload is the headline of the run's failure (runError): said there, once.
      else if (!(r.status === 'failed' && exitCode === ExitCode.podFailed)) reporter.warn(r.reason);
    }
    const pruned = o.prune ? await pruneAfterRun(engine, plans, o.prune, exitCode, reporter) : undefined;
    if (pruned !== undefined && pruned.length > 0) {
      // Pruned pods are no endpoints any more.
      await Promise.all([...new Set(pruned.map((p) => p.namespace))].map((ns) => cluster.endpoints.refresh(ns)));
      if (cluster.endpoints.error !== undefined) throw cluster.endpoints.error;
    }

    // 6. With a command: run it against the pods and take them down after; its exit code is the run's.
    if (o.scoped) {
      const scopedMade = made;
      made = undefined;
      return await runScoped(
        o.scoped,
        { engine, project, made: scopedMade, serviceResults, plans, results, exitCode, reporter, failure: (takenDown) => runError(exitCode, outcomes, results, o, ctx, !takenDown, project, rollouts), ...(exitFrom ? { exitFrom } : {}) },
        ctx,
      );
    }
    // --exit-code-from: the container's own code in place of the run's 0 or 1 (exitCodeFrom.ts).
    const failure = exitCode !== ExitCode.ok ? runError(exitCode, outcomes, results, o, ctx, true, project, rollouts) : undefined;
    made = undefined; // the account above says what is left
    const error = exitFrom ? withContainerCode(await terminatedExitCode(engine, exitFrom, (m) => reporter.warn(m)), exitFrom, failure) : failure;
    reporter.close();
    // A person at a terminal has just read each pod's line on stderr; stdout repeats it only for a pipe or file.
    const shownAlready = o.output === 'text' && !o.quiet && ctx.stdout.isTTY === true;
    const finalCode = error?.exitCode ?? ExitCode.ok;
    const result: RunResult = {
      apiVersion: 'runpod/v1',
      kind: 'RunResult',
      exitCode: finalCode,
      ...(project !== undefined ? { project } : {}),
      pods: results,
      ...(rollouts.length > 0 ? { workloads: rollouts.map(workloadResult) } : {}),
      ...(pruned ? { pruned } : {}),
      ...(serviceResults.length > 0 ? { services: serviceResults } : {}),
    };
    if (!shownAlready) writeResult(ctx.stdout, result, o.output);
    if (error) throw error;
    return finalCode;
  } catch (err) {
    if (made !== undefined) await afterFailedRun(err, made, o.scoped !== undefined && !o.scoped.keep, { reporter, now: ctx.now, ...(ctx.hurried ? { hurried: ctx.hurried } : {}), ...(ctx.hurriedBy ? { hurriedBy: ctx.hurriedBy } : {}) });
    throw err;
  } finally {
    releaseSignals?.();
    reporter.close();
  }
}

/**
 * 5. --prune / --prune-all, after the wait whatever its outcome: pods that failed to come up are no reason to
 * prune less. Not when --timeout or a signal ended the run (the user wants it to stop), nor without an engine.
 */
async function pruneAfterRun(engine: ContainerLifecycle & ContainerReader & ExecPort & VolumePort, plans: PodPlan[], scope: PruneScope, exitCode: number, reporter: Reporter): Promise<PrunedPod[] | undefined> {
  if (exitCode === ExitCode.timeout || exitCode === ExitCode.sigint || exitCode === ExitCode.sigterm || exitCode === ExitCode.engine) {
    reporter.info(`not pruning: ${exitCode === ExitCode.timeout ? '--timeout passed' : exitCode === ExitCode.engine ? 'the engine failed' : 'interrupted'}`);
    return undefined;
  }
  if (scope === 'source' && plans.every((p) => p.source === undefined)) reporter.info('nothing to prune: pods from stdin have no source');
  const candidates = await findPrunable(engine, plans, scope);
  return prunePods(engine, candidates, (p) =>
    reporter.info(`${p.namespace}/${p.name}: pruned${p.source !== undefined ? ` (source ${p.source})` : ''}, ${p.removedContainers} container${p.removedContainers === 1 ? '' : 's'} removed`),
  );
}

/**
 * A wait that can never hold for a pod (--wait completed under restartPolicy Always): refused before touching the
 * engine (design.md). Only bare pods: a workload's pods wait by its kind (a Deployment's for its rollout).
 */
function refuseImpossibleWaits(pods: LoadedPod[], wait: WaitMode): void {
  const strategy = waitStrategy(wait);
  const refused = pods.flatMap((p) => {
    const pod = (p.pod.spec.restartPolicy ?? 'Always') as RestartPolicy;
    const why = strategy.impossibleFor(pod, new Map(p.pod.spec.containers.map((c) => [c.name, containerRestart(c, pod).policy])));
    return why === undefined ? [] : [{ pod: `${p.pod.metadata.namespace}/${p.pod.metadata.name}`, why }];
  });
  if (refused.length > 0) {
    throw new UsageError(`--wait ${wait} cannot be met by ${refused.map((r) => r.pod).join(', ')}: ${refused[0]!.why}`);
  }
}

/** service default/db: ClusterIP 172.20.0.2, 5432/TCP → pg, host port 32768 */
function serviceLine(v: ServiceResult): string {
  const ports = v.ports.map((p) => `${p.port}/${p.protocol} → ${p.targetPort}${p.hostPort !== undefined ? `, host port ${p.hostPort}` : ''}`);
  return `service ${v.namespace}/${v.name}: ${v.type}${v.ip !== undefined ? ` ${v.ip}` : ''}${ports.length > 0 ? `, ${ports.join('; ')}` : ''}`;
}

/** How long the report may spend asking the engine for detail (logs, termination messages, ports). */
const reportAllowanceMs = 3_000;

/** After --timeout, how long the pods' loops have to end with their own reports (one last look each) before the run ends anyway. */
const waitPhaseGraceMs = 5_000;

/** work, or the fallback when it has not settled by `by` (ms since the epoch); a failure gives the fallback too. */
function within<T>(work: Promise<T>, by: number, now: () => number, fallback: T): Promise<T> {
  return new Promise<T>((resolve) => {
    const timer = setTimeout(() => resolve(fallback), Math.max(0, by - now()));
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      () => {
        clearTimeout(timer);
        resolve(fallback);
      },
    );
  });
}

async function resultWithLogs(engine: ContainerFiles & LogPort, outcome: PodOutcome, by: number, now: () => number): Promise<PodResult> {
  const logs = new Map<string, string[]>();
  // Termination messages of the failing containers (reconcile/termination.ts), as Kubernetes reports them.
  const messages = new Map<string, string>();
  if (outcome.status !== 'succeeded' && outcome.status !== 'engine') {
    await Promise.all(
      (outcome.check?.containers ?? [])
        .filter((v) => !v.ok && v.instance)
        .map(async (v) => {
          const text = await within(engine.logs(v.instance!.id, { tail: failureLogLines }), by, now, '');
          const lines = text.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);
          logs.set(v.name, lines.slice(-failureLogLines));
          const p = [...outcome.plan.initContainers, ...outcome.plan.containers].find((x) => x.name === v.name);
          const m = p ? await within(terminationMessage(engine, p, v.instance!), by, now, undefined) : undefined;
          if (m) messages.set(v.name, m.message);
        }),
    );
  }
  return podResult(outcome, logs, messages);
}

/** A pod admission refused: failed at once, nothing created (the kubelet's pod phase Failed, reason OutOfcpu …). */
function refusedOutcome(plan: PodPlan, reason: string, now: number): PodOutcome {
  return { plan, status: 'failed', reason, admission: reason, actions: [], results: [], warnings: [], lastExitCodes: new Map(), checks: 0, retriesUsed: 0, startedAt: now, endedAt: now };
}

/** Several pods: the first that applies of 130/143, 3, 124, 1 (design.md). */
export function runExitCode(statuses: PodOutcomeStatus[], signal: 'SIGINT' | 'SIGTERM' | undefined): number {
  if (statuses.includes('interrupted') || signal) return signal === 'SIGTERM' ? ExitCode.sigterm : ExitCode.sigint;
  if (statuses.includes('engine')) return ExitCode.engine;
  if (statuses.includes('timeout')) return ExitCode.timeout;
  if (statuses.includes('failed')) return ExitCode.podFailed;
  return ExitCode.ok;
}

/** --replace: the pod as it is goes (its preStop hooks and grace period, as `runpod down`), so the run makes it anew. */
async function replacePod(engine: ContainerLifecycle & ContainerReader & ExecPort & VolumePort, plan: PodPlan, reporter: Reporter): Promise<void> {
  const down = await removePod(engine, { namespace: plan.namespace, name: plan.name });
  if (down.removed > 0) reporter.info(`${plan.key}: --replace: taken down (${down.removed} container${down.removed === 1 ? '' : 's'}, ${down.seconds}s), running it afresh`);
}

/** A workload's line in the result: how its rollout ended, and what it removed or left alone. */
function workloadResult(r: WorkloadOutcome): WorkloadResult {
  return {
    namespace: r.plan.namespace,
    name: r.plan.name,
    kind: r.plan.kind,
    ref: r.plan.ref,
    status: r.status,
    ...(r.suspended ? { suspended: true } : {}),
    reason: r.reason,
    replicas: r.plan.replicas,
    pods: r.plan.pods.map((p) => p.name),
    ...(r.removed.length > 0 ? { removed: r.removed } : {}),
    ...(r.leftAlone.length > 0 ? { leftAlone: r.leftAlone } : {}),
  };
}

/** A scoped run's own isolation key when none was given: random, so two jobs' keys never meet. */
function scopedProjectKey(): string {
  return `run-${randomBytes(4).toString('hex')}`;
}

function planOptions(o: RunOptions, infraImage: string, project: string | undefined, engine: { facts?: EngineFacts; seccompProfiles: ReadonlyMap<string, string> }, cluster: ClusterPlan): PlanOptions {
  return {
    infraImage,
    ...(o.pull ? { pull: o.pull } : {}),
    ...(o.publishAll ? { publishAll: true } : {}),
    ...(project !== undefined ? { project } : {}),
    ...(engine.facts ? { engine: engine.facts } : {}),
    seccompProfiles: engine.seccompProfiles,
    cluster,
  };
}

/**
 * The fields that depend on the engine (plan/engineSupport.ts), against its facts: one it cannot honour is a
 * manifest problem (exit 2) with nothing made; one it honours in a lesser way is a warning.
 */
function checkEngineSupport(pods: readonly LoadedPod[], facts: EngineFacts, reporter: Reporter): void {
  const checked = pods.map((p) => engineSupport(p, facts));
  // A workload's replicas share a template: a problem of it is said once.
  const once = <T extends { file: string; line?: number; path: string; message: string }>(items: T[]): T[] =>
    items.filter((x, i) => items.findIndex((y) => y.file === x.file && y.line === x.line && y.path === x.path && y.message === x.message) === i);
  const files = pods.map((p) => p.source.file);
  const problems = sortByFileAndLine(once(checked.flatMap((c) => c.problems)), files);
  if (problems.length > 0) throw new ManifestError(problems);
  for (const n of sortByFileAndLine(once(checked.flatMap((c) => c.notes)), files)) reporter.note(`${n.line !== undefined ? `${n.file}:${n.line}` : n.file} ${n.path}: ${n.message}`);
}

/** The one line that says what failed, then the detail and how to clean up. */
function runError(exitCode: number, outcomes: PodOutcome[], results: PodResult[], o: RunOptions, ctx: CommandContext, leftInPlace: boolean, project: string | undefined, rollouts: WorkloadOutcome[]): RunpodError {
  // A pod of a workload that succeeded (a Job's failed attempt, retried) is no failure of the run.
  const fine = new Set(rollouts.filter((r) => r.status === 'succeeded').map((r) => `${r.plan.namespace}/${r.plan.ref}`));
  const bad = results.filter((r) => r.status !== 'succeeded' && !(r.owner !== undefined && fine.has(`${r.namespace}/${r.owner}`)));
  // A rollout can fail with no pod of its own failing (its progress deadline passed): then it is named itself.
  const rolloutOnly = rollouts.filter((r) => r.status !== 'succeeded' && !bad.some((b) => b.namespace === r.plan.namespace && r.outcomes.has(b.name)));
  const names = [...bad.map((r) => `${r.namespace}/${r.name}`), ...rolloutOnly.map((r) => workloadName(r.plan))].join(', ');
  // The error's own line names a single failing pod; with several, each gets a headline of its own.
  const detail = bad.flatMap((r) => failureDetail(r, bad.length > 1));
  const manifests = shellLine(o.manifests);
  const key = project !== undefined ? ` --project ${project}` : '';
  // A Job that failed in an earlier run ran nothing now: its pods are there to read, and --replace runs it again.
  const before = rolloutOnly.filter((r) => r.finishedBefore === true);
  for (const r of before) {
    const ns = r.plan.namespace === 'default' ? '' : ` -n ${r.plan.namespace}`;
    detail.push(`${r.plan.ref} failed in an earlier run and does not run again; its pods are kept for runpod logs${key}${ns} ${r.plan.ref}; to run it again: runpod --replace${key} ${manifests}`);
  }
  if (before.length > 0 && before.length === rolloutOnly.length && bad.length === 0) {
    // Nothing was made now: the lines above say what is there and what to run.
  } else if (outcomes.length > 0 && outcomes.every((x) => x.status === 'succeeded' || x.admission !== undefined)) {
    // Pods admission refused have nothing on the engine to inspect or take down.
    detail.push(`nothing was created for ${names}`);
  } else if (!leftInPlace) {
    detail.push('the pods were taken down (--keep leaves them for inspection)');
  } else if (!o.manifests.includes('-')) {
    detail.push(`what runpod made is left for inspection (runpod status${key}, runpod logs${key}); remove it with: runpod down${key} ${manifests}`);
  }
  const lost = outcomes.find((x) => x.engineError)?.engineError;
  let err: RunpodError;
  if (exitCode === ExitCode.sigint || exitCode === ExitCode.sigterm) err = new InterruptedError(ctx.interruptedBy() ?? 'SIGINT');
  else if (exitCode === ExitCode.engine && lost) err = lost;
  else if (exitCode === ExitCode.timeout) err = new DeadlineError(`--timeout passed before ${names} ${bad.length === 1 ? 'was' : 'were'} ${o.wait}`);
  else {
    // A failed workload speaks for the pods that failed on its way; the others (bare pods) for themselves.
    const failedWorkloads = rollouts.filter((r) => r.status !== 'succeeded');
    const ofFailed = (r: PodResult): boolean => r.owner !== undefined && failedWorkloads.some((w) => w.plan.namespace === r.namespace && w.plan.ref === r.owner);
    err = new PodFailedError(failureHeadline(bad.filter((r) => !ofFailed(r)), failedWorkloads.map((r) => ({ namespace: r.plan.namespace, ref: r.plan.ref, reason: r.reason }))));
  }
  return err.withDetail(detail);
}

/**
 * --dry-run: the plan, and what a run would do to the engine as it is now (when it answers), read from the same
 * inputs a run plans with (the Services' addresses, what earlier runs left of each Job) and decided by the same
 * steps (translatePod, openJob, decidePodActions); nothing is created.
 */
async function dryRun(input: Pick<LoadResult, 'pods' | 'skipped' | 'claims' | 'services' | 'workloads'>, o: RunOptions, project: string | undefined, engine: ContainerReader & HostPort, host: ContainerReader & HostPort, ctx: CommandContext, seccompProfiles: ReadonlyMap<string, string>, reporter: Reporter): Promise<number> {
  const { pods, skipped, claims, services, workloads } = input;
  const info = await engine.ping().catch((err: unknown) => (err instanceof EngineUnreachableError ? undefined : Promise.reject(err)));
  // Without an engine, this machine's architecture, in the engine's (Go's) terms: Node says x64 for amd64.
  const infraImage = o.infraImage ?? pauseImageRef(info?.arch ?? (process.arch === 'x64' ? 'amd64' : process.arch));
  // The engine's facts decide the engine-dependent fields as a run would; with no engine they are planned as asked.
  const facts = info ? await engine.facts() : undefined;
  if (facts) checkEngineSupport(pods, facts, reporter);
  else for (const n of pods.flatMap(engineDependentFields)) reporter.note(`${n.line !== undefined ? `${n.file}:${n.line}` : n.file} ${n.path}: not checked (the engine at ${engine.address} does not answer); it ${n.message}`);
  // The Services' addresses as a run would plan with them (those there now; one a run makes has none yet). Without
  // an engine there is none to show, and the pods' Service variables are left out.
  const serviceImage = info ? pauseImageRef(info.arch) : infraImage;
  const cluster = info ? await observeCluster(engine, { pods, services, project, image: serviceImage, publishAll: o.publishAll === true }) : undefined;
  const plans = pods.map((p) => translatePod(p, planOptions(o, infraImage, project, { ...(facts ? { facts } : {}), seccompProfiles }, cluster?.plan ?? { services, hosts: new Map() })));
  // Each Job as a run would open it (what earlier runs left of it, --replace, its ttl): which of its pods run.
  const jobs = info && o.wait !== 'none' ? await Promise.all(workloads.filter((w): w is WorkloadPlan & { job: JobTerms } => w.job !== undefined).map(async (w) => ({ w, preview: await previewJob(engine, w, ctx.now(), o.replace === true) }))) : [];
  const jobPod = new Map<string, JobPodPreview>(jobs.flatMap(({ w, preview }) => [...preview.pods].map(([name, p]): [string, JobPodPreview] => [`${w.namespace}/${name}`, p])));
  // --dry-run --prune: what a run would take down, as the engine is now.
  const prune = o.prune ? (info ? await findPrunable(engine, plans, o.prune) : `unknown: the engine at ${engine.address} does not answer`) : undefined;
  const claimDoc = claims.map((c) => ({ namespace: c.namespace, name: c.name, engineVolume: claimVolume(c.namespace, c.name, project).engineName }));
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
  const jobDoc = jobs.flatMap(({ w, preview }) => (preview.line !== undefined ? [{ namespace: w.namespace, ref: w.ref, plan: preview.line, ...(preview.remove.length > 0 ? { remove: preview.remove } : {}) }] : []));
  const pruneDoc = { ...(jobDoc.length > 0 ? { jobs: jobDoc } : {}), ...(serviceDoc.length > 0 ? { services: serviceDoc } : {}), ...(claimDoc.length > 0 ? { claims: claimDoc } : {}), ...(prune !== undefined ? { prune } : {}), ...(skipped.length > 0 ? { skipped } : {}) };
  // Admission as a run would decide it now: a refused pod would fail with nothing created.
  const refused = info && pods.some(declaresRequests) ? admitPods(plans, await observeAdmission(host)) : new Map<string, string>();
  const doc = await Promise.all(
    plans.map(async (plan) => {
      const refusal = refused.get(plan.key);
      const job = jobPod.get(plan.key);
      // A Job's pod that does not run (its Job finished, or is suspended) or whose slot runs a later attempt.
      if (job?.kind === 'none') return { plan: planDocument(plan), actions: [], job: `${job.why}: it runs nothing` };
      if (job?.kind === 'attempt') return { plan: planDocument(plan), actions: [], job: job.active ? `its attempt ${job.attempt}, ${job.name}, is running and would be awaited` : `its slot would run attempt ${job.attempt} as a new pod ${job.name}` };
      const observed = info && refusal === undefined ? await observePod(engine, plan.namespace, plan.name) : undefined;
      // --replace (or a Job run anew): what exists goes first, so the actions are those for a pod not there yet.
      const exists = observed !== undefined && observed.infra.length + observed.containers.size + observed.initContainers.size > 0;
      const replaces = exists && (job?.kind === 'fresh' || (o.replace === true && job === undefined));
      const actions = observed ? allActions(decidePodActions(plan, replaces ? groupPod([]) : observed)) : undefined;
      const taken = replaces ? (job?.kind === 'fresh' ? { anew: true } : { replace: true }) : {};
      const known = refusal !== undefined ? { admission: refusal, actions: [] } : actions ? { actions, ...taken } : { actions: `unknown: the engine at ${engine.address} does not answer` };
      return { plan: planDocument(plan), ...known };
    }),
  );
  if (o.output === 'json') ctx.stdout.write(`${JSON.stringify({ apiVersion: 'runpod/v1', kind: 'Plan', pods: doc, ...pruneDoc }, null, 2)}\n`);
  else if (o.output === 'yaml') ctx.stdout.write(yaml.dump({ apiVersion: 'runpod/v1', kind: 'Plan', pods: doc, ...pruneDoc }, { noRefs: true, lineWidth: -1 }));
  else {
    for (const d of doc) {
      ctx.stdout.write(`${d.plan.pod} (uid ${d.plan.uid}, pod hash ${d.plan.hash})\n`);
      ctx.stdout.write(`  infra ${d.plan.infra.image}\n`);
      for (const c of d.plan.containers) ctx.stdout.write(`  container ${c.name}: ${c.image} (pull ${c.pullPolicy}, hash ${c.hash})\n`);
      if (d.plan.project !== undefined) ctx.stdout.write(`  isolation key ${d.plan.project}${o.scoped && o.project === undefined ? " (the scoped run's own, new each run)" : ''}\n`);
      if ('replace' in d) ctx.stdout.write('  would take the pod down first (--replace), then:\n');
      if ('anew' in d) ctx.stdout.write('  would take the pod down first (its Job runs anew), then:\n');
      if ('job' in d) ctx.stdout.write(`  actions: none (${d.job})\n`);
      else if ('admission' in d) ctx.stdout.write(`  would refuse the pod, creating nothing: ${d.admission}\n`);
      else if (typeof d.actions === 'string') ctx.stdout.write(`  actions: ${d.actions}\n`);
      else if (d.actions.length === 0) ctx.stdout.write('  actions: none, the pod is up to date\n');
      else for (const a of d.actions) ctx.stdout.write(`  would ${a.kind} ${'container' in a ? a.container : 'POD'}: ${a.reason}\n`);
    }
    for (const j of jobDoc) ctx.stdout.write(`${j.namespace}/${j.plan}\n`);
    for (const v of serviceDoc) {
      const state = 'ip' in v ? `, at ${v.ip}` : 'wouldMake' in v ? ` (would be made: ${v.wouldMake})` : '';
      ctx.stdout.write(`service ${v.namespace}/${v.name} (${v.type}) on network ${v.network}${v.container !== undefined ? `, container ${v.container}` : ''}${state}: ${v.ports.join(', ') || 'no ports'}\n`);
    }
    for (const c of claimDoc) ctx.stdout.write(`claim ${c.namespace}/${c.name}: engine volume ${c.engineVolume} (made if missing)\n`);
    for (const k of skipped) ctx.stdout.write(`skipped ${k.kind}${k.name !== undefined ? ` ${k.name}` : ''} (${k.file}:${k.line}): ${k.why}\n`);
    if (typeof prune === 'string') ctx.stdout.write(`prune: ${prune}\n`);
    else if (prune && prune.length === 0) ctx.stdout.write('prune: nothing to remove\n');
    else for (const p of prune ?? []) ctx.stdout.write(`would prune ${p.namespace}/${p.name}${p.source !== undefined ? ` (source ${p.source})` : ''}\n`);
    if (o.scoped) ctx.stdout.write(`then would run: ${o.scoped.command.join(' ')}${o.scoped.keep ? '' : `, and take the pods down${o.scoped.keepClaims ? '' : ' with their claims'}`}\n`);
  }
  return ExitCode.ok;
}

function planDocument(plan: PodPlan): {
  pod: string; project?: string; uid: string; hash: string; restartPolicy: string; infra: { image: string; create: unknown };
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
