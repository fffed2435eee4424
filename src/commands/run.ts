// runpod run: load -> plan -> connect -> (per pod, in parallel) sync and wait -> report. Reads top to bottom
// like the kubelet's run-once: every layer below does the work, this only wires them.
import yaml from 'js-yaml';
import { defaultAuthIO, resolveRegistryAuth } from '../engine/auth.js';
import type { Engine } from '../engine/engine.js';
import { ensureInfraImage } from '../engine/infraImage.js';
import { pauseImageRef } from '../engine/pauseImage.js';
import { DeadlineError, EngineUnreachableError, ExitCode, InterruptedError, PodFailedError, RunpodError, UsageError } from '../errors.js';
import { loadManifests } from '../manifest/load.js';
import type { LoadedPod } from '../manifest/types.js';
import { type PodPlan, type PullOverride, translatePod } from '../plan/translate.js';
import { decidePodActions } from '../reconcile/decide.js';
import { ImagePuller } from '../reconcile/images.js';
import { observePod } from '../reconcile/observe.js';
import { failureDetail, type OutputFormat, writeResult } from '../report/output.js';
import { createReporter, type Reporter } from '../report/reporter.js';
import { type PodResult, type RunResult, podResult } from '../report/result.js';
import { Backoff } from '../wait/backoff.js';
import type { WaitMode } from '../wait/check.js';
import { type PodOutcome, type PodOutcomeStatus, runPod } from '../wait/runOnce.js';
import { type CommandContext, readAll } from './context.js';
import { connectEngine, openEngine } from './engineSession.js';

export interface RunOptions {
  manifests: string[];
  wait: WaitMode;
  timeoutMs?: number;
  retries: number;
  retryDelayMs: number;
  backoff: number;
  maxDelayMs: number;
  settleMs: number;
  pull?: PullOverride;
  infraImage?: string;
  namespace: string;
  dryRun: boolean;
  output: OutputFormat;
  quiet: boolean;
  verbose: boolean;
  host?: string;
}

/** Log lines shown per failing container (design.md). */
const failureLogLines = 20;

export async function runCommand(o: RunOptions, ctx: CommandContext): Promise<number> {
  const startedAt = ctx.now();
  const deadline = o.timeoutMs !== undefined ? startedAt + o.timeoutMs : undefined;
  const reporter = await createReporter({ stream: ctx.stderr, env: ctx.env, quiet: o.quiet, verbose: o.verbose, now: () => new Date(ctx.now()) });
  try {
    // 1. Load and validate every manifest; nothing touches the engine before this passes.
    const { pods, warnings } = await loadManifests(o.manifests, { defaultNamespace: o.namespace }, () => readAll(ctx.stdin));
    for (const w of warnings) reporter.warn(`${w.line !== undefined ? `${w.file}:${w.line}` : w.file} ${w.path}: ${w.message}`);
    refuseImpossibleWaits(pods, o.wait);

    // 2. Connect, within the retry budget and deadline.
    const engine = await openEngine(o.host, ctx.env);
    const budget = new Backoff({ retries: o.retries, retryDelayMs: o.retryDelayMs, factor: o.backoff, maxDelayMs: o.maxDelayMs });
    if (o.dryRun) return await dryRun(pods, o, engine, ctx);
    const info = await connectEngine(engine, ctx, {
      backoff: budget,
      ...(deadline !== undefined ? { deadline } : {}),
      onRetry: (err, delay) => reporter.info(`waiting for the Docker engine at ${engine.address} (${err.reason}); retrying in ${delay}ms`),
    });
    reporter.verbose(`engine ${info.version} (API ${info.apiVersion}, ${info.os}/${info.arch}) at ${engine.address}`);

    // 3. The infra image: runpod's own, imported once per engine, or the one the user named.
    const images = new ImagePuller(engine, (image) => resolveRegistryAuth(image, ctx.env, defaultAuthIO), (image, p) =>
      reporter.pullProgress(image, p.status),
    );
    const infraImage = o.infraImage ?? (await ensureInfraImage(engine, info.arch));
    const plans = pods.map((p) => translatePod(p, { infraImage, ...(o.pull ? { pull: o.pull } : {}) }));

    // 4. Sync and wait for every pod in parallel, each with its own result.
    const outcomes = await Promise.all(
      plans.map((plan) => {
        reporter.podStarted(plan.key);
        return runPod(plan, {
          engine,
          images,
          mode: o.wait,
          backoff: budget.fork(),
          settleMs: o.settleMs,
          ...(deadline !== undefined ? { deadline } : {}),
          signal: ctx.signal,
          now: ctx.now,
          onAction: (p, a) => reporter.podAction(p.key, a),
          onCheck: (p, c) => reporter.podCheck(p.key, c),
        });
      }),
    );

    // 5. Report: per pod, and the exit code of the whole run.
    const results = await Promise.all(outcomes.map((out) => resultWithLogs(engine, out)));
    for (const r of results) reporter.podFinished(r);
    reporter.close();
    const exitCode = runExitCode(outcomes.map((x) => x.status), ctx.interruptedBy());
    // A person at a terminal has just read each pod's line on stderr; stdout repeats it only for a pipe or file.
    const shownAlready = o.output === 'text' && !o.quiet && ctx.stdout.isTTY === true;
    if (!shownAlready) writeResult(ctx.stdout, { apiVersion: 'runpod/v1', kind: 'RunResult', exitCode, pods: results } satisfies RunResult, o.output);
    if (exitCode !== ExitCode.ok) throw runError(exitCode, outcomes, results, o, ctx);
    return exitCode;
  } finally {
    reporter.close();
  }
}

/** --wait completed can never hold for restartPolicy Always: refused before touching the engine (design.md). */
function refuseImpossibleWaits(pods: LoadedPod[], wait: WaitMode): void {
  if (wait !== 'completed') return;
  const never = pods.filter((p) => (p.pod.spec.restartPolicy ?? 'Always') === 'Always');
  if (never.length > 0) {
    throw new UsageError(
      `--wait completed cannot be met by ${never.map((p) => `${p.pod.metadata.namespace}/${p.pod.metadata.name}`).join(', ')}: restartPolicy Always restarts containers forever; use restartPolicy Never or OnFailure, or --wait running`,
    );
  }
}

async function resultWithLogs(engine: Engine, outcome: PodOutcome): Promise<PodResult> {
  const logs = new Map<string, string[]>();
  if (outcome.status !== 'succeeded' && outcome.status !== 'engine') {
    await Promise.all(
      (outcome.check?.containers ?? [])
        .filter((v) => !v.ok && v.instance)
        .map(async (v) => {
          const text = await engine.logs(v.instance!.id, { tail: failureLogLines }).catch(() => '');
          const lines = text.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);
          logs.set(v.name, lines.slice(-failureLogLines));
        }),
    );
  }
  return podResult(outcome, logs);
}

/** Several pods: the first that applies of 130/143, 3, 124, 1 (design.md). */
export function runExitCode(statuses: PodOutcomeStatus[], signal: 'SIGINT' | 'SIGTERM' | undefined): number {
  if (statuses.includes('interrupted') || signal) return signal === 'SIGTERM' ? ExitCode.sigterm : ExitCode.sigint;
  if (statuses.includes('engine')) return ExitCode.engine;
  if (statuses.includes('timeout')) return ExitCode.timeout;
  if (statuses.includes('failed')) return ExitCode.podFailed;
  return ExitCode.ok;
}

/** The one line that says what failed, then the detail and how to clean up. */
function runError(exitCode: number, outcomes: PodOutcome[], results: PodResult[], o: RunOptions, ctx: CommandContext): RunpodError {
  const bad = results.filter((r) => r.status !== 'succeeded');
  const names = bad.map((r) => `${r.namespace}/${r.name}`).join(', ');
  // The error's own line names a single failing pod; with several, each gets a headline of its own.
  const detail = bad.flatMap((r) => failureDetail(r, bad.length > 1));
  const manifests = o.manifests.map((m) => (/[\s'"$`\\]/.test(m) ? `'${m.replace(/'/g, `'\\''`)}'` : m)).join(' ');
  if (!o.manifests.includes('-')) detail.push(`what runpod made is left for inspection (runpod status, runpod logs); remove it with: runpod down ${manifests}`);
  const lost = outcomes.find((x) => x.engineError)?.engineError;
  let err: RunpodError;
  if (exitCode === ExitCode.sigint || exitCode === ExitCode.sigterm) err = new InterruptedError(ctx.interruptedBy() ?? 'SIGINT');
  else if (exitCode === ExitCode.engine && lost) err = lost;
  else if (exitCode === ExitCode.timeout) err = new DeadlineError(`--timeout passed before ${names} ${bad.length === 1 ? 'was' : 'were'} ${o.wait}`);
  else err = new PodFailedError(`${bad.length === 1 ? 'pod' : 'pods'} ${names} failed: ${bad.map((r) => r.reason).join('; ')}`);
  return err.withDetail(detail);
}

/** --dry-run: the plan, and what a run would do to the engine as it is now (when it answers). */
async function dryRun(pods: LoadedPod[], o: RunOptions, engine: Engine, ctx: CommandContext): Promise<number> {
  const info = await engine.ping().catch((err: unknown) => (err instanceof EngineUnreachableError ? undefined : Promise.reject(err)));
  const infraImage = o.infraImage ?? pauseImageRef(info?.arch ?? process.arch);
  const plans = pods.map((p) => translatePod(p, { infraImage, ...(o.pull ? { pull: o.pull } : {}) }));
  const doc = await Promise.all(
    plans.map(async (plan) => {
      const actions = info ? decidePodActions(plan, await observePod(engine, plan.namespace, plan.name)).actions : undefined;
      return { plan: planDocument(plan), ...(actions ? { actions } : { actions: `unknown: the engine at ${engine.address} does not answer` }) };
    }),
  );
  if (o.output === 'json') ctx.stdout.write(`${JSON.stringify({ apiVersion: 'runpod/v1', kind: 'Plan', pods: doc }, null, 2)}\n`);
  else if (o.output === 'yaml') ctx.stdout.write(yaml.dump({ apiVersion: 'runpod/v1', kind: 'Plan', pods: doc }, { noRefs: true, lineWidth: -1 }));
  else {
    for (const d of doc) {
      ctx.stdout.write(`${d.plan.pod} (uid ${d.plan.uid}, pod hash ${d.plan.hash})\n`);
      ctx.stdout.write(`  infra ${d.plan.infra.image}\n`);
      for (const c of d.plan.containers) ctx.stdout.write(`  container ${c.name}: ${c.image} (pull ${c.pullPolicy}, hash ${c.hash})\n`);
      if (typeof d.actions === 'string') ctx.stdout.write(`  actions: ${d.actions}\n`);
      else if (d.actions.length === 0) ctx.stdout.write('  actions: none, the pod is up to date\n');
      else for (const a of d.actions) ctx.stdout.write(`  would ${a.kind} ${'container' in a ? a.container : 'POD'}: ${a.reason}\n`);
    }
  }
  return ExitCode.ok;
}

function planDocument(plan: PodPlan): {
  pod: string; uid: string; hash: string; restartPolicy: string; infra: { image: string; create: unknown };
  containers: { name: string; image: string; pullPolicy: string; hash: string; create: unknown }[];
} {
  return {
    pod: plan.key,
    uid: plan.uid,
    hash: plan.hash,
    restartPolicy: plan.restartPolicy,
    infra: { image: plan.infra.image, create: plan.infra.create },
    containers: plan.containers.map((c) => ({ name: c.name, image: c.image, pullPolicy: c.pullPolicy, hash: c.hash, create: c.create })),
  };
}
