// runpod run <manifest...> -- <command...>: the pods around one command. Bring them up (done by run.ts),
// run the command on the host with the pods' addresses in its environment, take the pods down when it ends
// however it ends, and exit with the command's own code. Replaces the CI wrapper script with its traps.
import { spawn, type ChildProcess } from 'node:child_process';
import { kill } from 'node:process';
import type { Readable, Writable } from 'node:stream';
import type { Engine } from '../engine/ports/engine.js';
import { ExitCode, InterruptedError, type RunpodError } from '../errors.js';
import { type CommandExit, commandFailure, withContainerCode } from '../agent/verdict.js';
import { podEnvironment } from '../report/env.js';
import type { Reporter } from '../report/reporter.js';
import type { PodResult } from '../report/result.js';
import type { CommandContext } from './context.js';
import { downLine, type RunMade } from '../agent/made.js';
import { takeDownRun } from '../agent/takedown.js';
import type { ExitCodeSource } from '../agent/exitCodeFrom.js';
import type { ServiceResult } from '../services/result.js';
import type { PodPlan } from '../plan/types.js';

export type { ScopedOptions } from '../agent/options.js';
import type { ScopedOptions } from '../agent/options.js';

/** What the run left for the scoped part: the pods as they came up, and the run's own verdict. */
export interface ScopedRun {
  engine: Engine;
  /** The isolation key the pods run under: the one given, else the run's own (run.ts). */
  project: string | undefined;
  /** What the run made (pods, Services, networks, claims), taken down after the command (agent/takedown.ts). */
  made: RunMade;
  /** Where the run's Services answer, for the command's environment. */
  serviceResults: readonly ServiceResult[];
  plans: PodPlan[];
  results: PodResult[];
  /** The pods came up as the wait asks (the run's verdict is ok). */
  ok: boolean;
  /** The run's failure for a run that did not come up; takenDown says whether the pods were removed. */
  failure: (takenDown: boolean) => RunpodError;
  reporter: Reporter;
  /** --exit-code-from: the container whose code, once it has terminated, replaces the command's (exitCodeFrom.ts). */
  exitFrom?: ExitCodeSource;
  /** That container's code once it has terminated (read off the engine; undefined while it runs). */
  containerCode?: () => Promise<number | undefined>;
}

type Sig = 'SIGINT' | 'SIGTERM';

export async function runScoped(s: ScopedOptions, run: ScopedRun, ctx: CommandContext): Promise<number> {
  const { reporter } = run;
  const takeDown = async (): Promise<boolean> => {
    if (s.keep) {
      const key = run.project !== undefined ? ` under isolation key ${run.project}` : '';
      reporter.info(`--keep: leaving ${run.plans.map((p) => p.key).join(', ')} up${key}; remove with: ${downLine(run.made)}`);
      return false;
    }
    return takeDownRun(run.made, { reporter, now: ctx.now, ...(ctx.hurried ? { hurried: ctx.hurried } : {}), ...(ctx.hurriedBy ? { hurriedBy: ctx.hurriedBy } : {}) });
  };

  // The pods did not come up (or a signal came first): the command never runs; the run's own account and code.
  // Each container code is read off its instance on the engine, so before the pods go.
  const containerCode = async (): Promise<number | undefined> => run.containerCode?.();
  const withCode = (code: number | undefined, err: RunpodError | undefined): RunpodError | undefined => (run.exitFrom ? withContainerCode(code, run.exitFrom, err) : err);
  if (!run.ok || ctx.signal.aborted) {
    const code = run.ok ? undefined : await containerCode();
    const takenDown = await takeDown();
    if (run.ok) throw new InterruptedError(ctx.interruptedBy() ?? 'SIGINT');
    throw withCode(code, run.failure(takenDown))!;
  }

  const env = podEnvironment(run.results, run.project, run.serviceResults);
  for (const w of env.warnings) reporter.warn(w);
  reporter.close(); // the spinner must not draw over the command's output

  const [file, ...args] = s.command;
  const exit = await runChild(file!, args, { ...ctx.env, ...Object.fromEntries(env.vars) }, ctx);
  const code = await containerCode();
  const takenDown = await takeDown();
  const final = withCode(code, commandFailure(file!, exit, takenDown, ctx.interruptedBy()));
  if (final) throw final;
  return ExitCode.ok;
}

type ChildExit = CommandExit;

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
  const stop = ctx.onSignal ? ctx.onSignal(forward) : listenForAbort(ctx.signal, onAbort);

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

/** Calls onAbort when the signal aborts; returns the function that stops listening. */
function listenForAbort(signal: AbortSignal, onAbort: () => void): () => void {
  signal.addEventListener('abort', onAbort);
  return () => signal.removeEventListener('abort', onAbort);
}
