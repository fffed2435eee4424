// runpod run <manifest...> -- <command...>: the pods around one command. Bring them up (done by run.ts),
// run the command on the host with the pods' addresses in its environment, take the pods down when it ends
// however it ends, and exit with the command's own code. Replaces the CI wrapper script with its traps.
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { kill } from 'node:process';
import type { Readable, Writable } from 'node:stream';
import type { Engine } from '../engine/engine.js';
import { ExitCode, ForwardedExitError, InterruptedError, type RunpodError } from '../errors.js';
import { podEnvironment } from '../report/env.js';
import type { Reporter } from '../report/reporter.js';
import type { PodResult } from '../report/result.js';
import type { CommandContext } from './context.js';
import { removePod } from './down.js';
import { tearDownCluster } from '../services/cluster.js';
import { listClaimVolumes, removeClaimVolumes } from '../reconcile/claims.js';
import { type ExitCodeSource, terminatedExitCode, withContainerCode } from './exitCodeFrom.js';
import { StopWaiting, bounded } from '../wait/bounded.js';
import type { ServiceResult } from '../services/result.js';
import type { PodPlan } from '../plan/types.js';

/**
 * How long the takedown may take beyond the pods' longest grace period: room for the removes on a busy engine (20
 * pods' down took 4 s on the bench). An engine that accepts connections and never answers (a frozen dockerd) must
 * not hold runpod for ever after the command, or after the signal CI sends it.
 */
export const takeDownMarginMs = 30_000;

export interface ScopedOptions {
  /** The command and its arguments, exactly as given after "--". */
  command: string[];
  /** --keep: leave the pods up afterwards. */
  keep: boolean;
  /** --keep-claims: take the pods down but keep their claims (their data) for the next run under the same key. */
  keepClaims?: boolean;
}

/** What the run left for the scoped part: the pods as they came up, and the run's own verdict. */
export interface ScopedRun {
  engine: Engine;
  /** The isolation key the pods run under: the one given, else the run's own (run.ts). */
  project: string | undefined;
  /** The engine volumes of the input's PersistentVolumeClaims (made by the run, mounted or not). */
  claimVolumes: string[];
  /** The manifests as a runpod down line names them (shell-quoted), for the claims --keep-claims keeps. */
  manifestWords: string;
  /** The run's Services (namespace and name), taken down with its pods. */
  services: ReadonlyArray<{ namespace: string; name: string }>;
  /** Where the run's Services answer, for the command's environment. */
  serviceResults: readonly ServiceResult[];
  /** The image Service rules are loaded with (services/forwarding.ts). */
  serviceImage: string;
  plans: PodPlan[];
  results: PodResult[];
  exitCode: number;
  /** The run's failure for a run that did not come up; takenDown says whether the pods were removed. */
  failure: (takenDown: boolean) => RunpodError;
  reporter: Reporter;
  /** --exit-code-from: the container whose code, once it has terminated, replaces the command's (exitCodeFrom.ts). */
  exitFrom?: ExitCodeSource;
}

type Sig = 'SIGINT' | 'SIGTERM';

export async function runScoped(s: ScopedOptions, run: ScopedRun, ctx: CommandContext): Promise<number> {
  const { reporter } = run;
  const takeDown = async (): Promise<boolean> => {
    const keys = run.plans.map((p) => p.key).join(', ');
    const key = run.project !== undefined ? ` --project ${run.project}` : '';
    // What removes the pods by hand, when they are left up (--keep) or the takedown could not finish.
    const downLine = `runpod down${key} ${run.plans.map((p) => p.key).join(' ')}`;
    if (s.keep) {
      reporter.info(`--keep: leaving ${keys} up${key ? ` under isolation key ${run.project}` : ''}; remove with: ${downLine}`);
      return false;
    }
    reporter.info(`taking down ${keys}`);
    const work = async (): Promise<void> => {
      await Promise.all(run.plans.map((p) => removePod(run.engine, { namespace: p.namespace, name: p.name })));
      // The run's Services go with its pods, and the networks nothing is left on.
      await tearDownCluster(run.engine, { namespaces: run.plans.map((p) => p.namespace), services: run.services, project: run.project, image: run.serviceImage });
      // The claims go too, unless asked to keep them: a run with a command is one CI job's, and the next job under
      // the same key must not find this one's database.
      const mounted = run.plans.flatMap((p) => p.volumes.filter((v) => v.type === 'persistentVolumeClaim').map((v) => v.engineName));
      const claims = new Set([...mounted, ...run.claimVolumes]);
      if (claims.size === 0) return;
      const volumes = (await listClaimVolumes(run.engine)).filter((v) => claims.has(v.name));
      if (s.keepClaims) {
        if (volumes.length > 0) reporter.info(`--keep-claims: keeping ${volumes.map((v) => v.name).join(', ')}; remove with: runpod down --delete-claims${key} ${run.manifestWords}`);
        return;
      }
      const removed = await removeClaimVolumes(run.engine, volumes);
      const gone = removed.filter((c) => c.removed).map((c) => c.volume);
      if (gone.length > 0) reporter.info(`removed claim volume${gone.length === 1 ? '' : 's'} ${gone.join(', ')} (--keep-claims keeps them for the next run under the key)`);
      for (const c of removed) if (!c.removed) reporter.warn(`claim volume ${c.volume} stays: ${c.error ?? ''}`);
    };
    const limitMs = Math.max(0, ...run.plans.map((p) => p.gracePeriodSeconds)) * 1000 + takeDownMarginMs;
    try {
      await bounded(work(), { until: ctx.now() + limitMs, now: ctx.now });
      return true;
    } catch (err) {
      const why = err instanceof StopWaiting
        ? `the Docker engine at ${run.engine.address} did not finish within ${Math.round(limitMs / 1000)}s (the pods' grace period and ${takeDownMarginMs / 1000}s more; is dockerd frozen or overloaded?); remove what is left with: ${downLine}`
        : err instanceof Error ? err.message : String(err);
      reporter.warn(`could not take down ${keys}: ${why}`);
      return false;
    }
  };

  // The pods did not come up (or a signal came first): the command never runs; the run's own account and code.
  // Each container code is read off its instance on the engine, so before the pods go.
  const containerCode = async (): Promise<number | undefined> => (run.exitFrom ? terminatedExitCode(run.engine, run.exitFrom, (m) => reporter.warn(m)) : undefined);
  const withCode = (code: number | undefined, err: RunpodError | undefined): RunpodError | undefined => (run.exitFrom ? withContainerCode(code, run.exitFrom, err) : err);
  if (run.exitCode !== ExitCode.ok || ctx.signal.aborted) {
    const code = run.exitCode === ExitCode.ok ? undefined : await containerCode();
    const takenDown = await takeDown();
    if (run.exitCode === ExitCode.ok) throw new InterruptedError(ctx.interruptedBy() ?? 'SIGINT');
    throw withCode(code, run.failure(takenDown))!;
  }

  const env = podEnvironment(run.results, run.project, run.serviceResults);
  for (const w of env.warnings) reporter.warn(w);
  reporter.close(); // the spinner must not draw over the command's output

  const [file, ...args] = s.command;
  const exit = await runChild(file!, args, { ...ctx.env, ...Object.fromEntries(env.vars) }, ctx);
  const code = await containerCode();
  const takenDown = await takeDown();
  const final = withCode(code, commandError(file!, exit, takenDown, ctx));
  if (final) throw final;
  return ExitCode.ok;
}

/** The command's own account: undefined when it exited 0. */
function commandError(file: string, exit: ChildExit, takenDown: boolean, ctx: CommandContext): RunpodError | undefined {
  const signal = ctx.interruptedBy();
  if (signal) return new InterruptedError(signal).withDetail([`the command ${describeExit(exit)}`, ...(takenDown ? ['the pods were taken down'] : [])]);
  if ('error' in exit) {
    // As a shell says it: 127 for a command that does not exist, 126 for one that cannot be executed.
    const code = exit.error.code === 'ENOENT' ? 127 : 126;
    return new ForwardedExitError(`cannot run ${file}: ${exit.error.code === 'ENOENT' ? 'command not found' : exit.error.message}`, code);
  }
  if (exit.signal) {
    // A shell's convention for a command killed by signal N: 128+N.
    const n = constants.signals[exit.signal] ?? 0;
    return new ForwardedExitError(`the command ${describeExit(exit)}`, 128 + n);
  }
  if (exit.code !== 0) return new ForwardedExitError(`the command ${describeExit(exit)}`, exit.code ?? 1);
  return undefined;
}

type ChildExit = { code: number | null; signal: NodeJS.Signals | null } | { error: NodeJS.ErrnoException };

function describeExit(exit: ChildExit): string {
  if ('error' in exit) return `could not be started: ${exit.error.message}`;
  return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
}

/** A stream's file descriptor, so the command gets the very same stdin/stdout/stderr (a TTY stays a TTY). */
function fdOf(stream: Readable | Writable): number | undefined {
  const fd = (stream as { fd?: unknown }).fd;
  return typeof fd === 'number' ? fd : undefined;
}

function runChild(file: string, args: string[], env: NodeJS.ProcessEnv, ctx: CommandContext): Promise<ChildExit> {
  const streams = [ctx.stdin, ctx.stdout, ctx.stderr] as const;
  const fds = streams.map(fdOf);
  // Off a terminal (CI), the command gets a process group of its own and signals go to the whole group, so a
  // `sh -c "npm test"` cannot die and leave its test run behind. On a terminal it stays in runpod's group:
  // a background group that reads the terminal is stopped (SIGTTIN), and Ctrl-C reaches the group anyway.
  const ownGroup = (ctx.stdin as { isTTY?: boolean }).isTTY !== true;
  let child: ChildProcess;
  try {
    child = spawn(file, args, { env, stdio: fds.map((fd) => fd ?? 'pipe'), detached: ownGroup });
  } catch (err) {
    return Promise.resolve({ error: err as NodeJS.ErrnoException });
  }
  // Streams without a descriptor (a test driving the command in-process) are copied through.
  if (fds[0] === undefined) ctx.stdin.pipe(child.stdin!);
  if (fds[1] === undefined) child.stdout!.pipe(ctx.stdout, { end: false });
  if (fds[2] === undefined) child.stderr!.pipe(ctx.stderr, { end: false });

  const forward = (signal: Sig): void => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    try {
      if (ownGroup) kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      // Gone between the check and the kill: nothing left to tell.
    }
  };
  // main hands every signal over while the command runs; without it (a test's context), the abort signal.
  const onAbort = (): void => forward(ctx.interruptedBy() ?? 'SIGINT');
  const stop = ctx.onSignal ? ctx.onSignal(forward) : (ctx.signal.addEventListener('abort', onAbort), () => ctx.signal.removeEventListener('abort', onAbort));

  return new Promise((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      // 'error' without a pid: the command could not be started at all (no 'exit' follows).
      if (child.pid === undefined) {
        stop();
        resolve({ error });
      }
    });
    child.once('exit', (code, signal) => {
      stop();
      resolve({ code, signal });
    });
  });
}
