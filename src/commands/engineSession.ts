// Connecting to the engine for a command: resolve the address, then ping within the run's retry budget and
// deadline (a boot step may run before dockerd is up), else exit 3 naming the address.
import type { Engine } from '../engine/ports/engine.js';
import type { EngineInfo, HostPort } from '../engine/ports/host.js';
import { openDockerEngine } from '../engine/ports/open.js';
import { projectEngine } from '../engine/ports/project.js';
import { DeadlineError, EngineUnreachableError, InterruptedError } from '../errors.js';
import type { Backoff } from '../wait/backoff.js';
import { Waker } from '../wait/waker.js';
import { type EngineWaitState, engineWaitLineMs, firstWaitLine, retryBudgetMs, stillWaitingLine } from './engineWait.js';
import type { CommandContext } from './context.js';

/**
 * The engine as a command sees it: confined to the isolation key (engine/ports/project.ts), or to what was made
 * without one. Every command that acts on pods opens it so; the project is required so that none forgets.
 */
export async function openEngine(host: string | undefined, env: NodeJS.ProcessEnv, project: string | undefined): Promise<Engine> {
  return projectEngine(await openHostEngine(host, env), project);
}

/** The whole engine, every key's pods: for host-wide questions only (gc; admission counts every pod's requests). */
export async function openHostEngine(host: string | undefined, env: NodeJS.ProcessEnv): Promise<Engine> {
  return openDockerEngine(host, env);
}

export interface ConnectOptions {
  backoff?: Backoff;
  deadline?: number;
  /** Each line of the wait (engineWait.ts): at once, then every 10 s and when the answer changes. */
  onWaiting?: (line: string, first: boolean) => void;
  /** The sleep between tries (tests drive the clock through it); default a Waker's, ended by the signal. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<unknown>;
}

/**
 * Ping until the engine answers; with no backoff given, one try. The wait within the retries and the deadline says
 * what it waits for (engineWait.ts): never minutes of silence.
 */
export async function connectEngine(engine: HostPort, ctx: CommandContext, options: ConnectOptions = {}): Promise<EngineInfo> {
  const waker = new Waker();
  const sleep = options.sleep ?? ((ms: number, signal: AbortSignal) => waker.sleep(ms, signal));
  let since: number | undefined;
  let lastLineAt = 0;
  let lastReason = '';
  for (;;) {
    try {
      return await engine.ping();
    } catch (err) {
      if (!(err instanceof EngineUnreachableError)) throw err;
      const delay = options.backoff?.next();
      if (delay === undefined) {
        if (since === undefined) throw err;
        throw err.withDetail([`no answer after ${options.backoff!.retriesUsed} retries in ${Math.round((ctx.now() - since) / 1000)}s (--retries and --timeout bound the wait)`]);
      }
      const now = ctx.now();
      const nextAt = options.deadline !== undefined ? Math.min(now + delay, options.deadline) : now + delay;
      const state = (at: number): EngineWaitState => ({
        address: engine.address,
        reason: err.reason,
        since: since ?? at,
        now: at,
        nextAt,
        retries: options.backoff!.retries,
        retriesLeft: options.backoff!.retries - options.backoff!.retriesUsed,
        budgetMs: retryBudgetMs(options.backoff!, delay) - (at - now),
        ...(options.deadline !== undefined ? { deadline: options.deadline } : {}),
      });
      if (since === undefined) {
        since = now;
        lastLineAt = now;
        options.onWaiting?.(firstWaitLine(state(now)), true);
      } else if (err.reason !== lastReason) {
        lastLineAt = now;
        options.onWaiting?.(stillWaitingLine(state(now)), false);
      }
      lastReason = err.reason;
      // Sleep to the next try, saying every 10 s that the wait goes on.
      for (let at = ctx.now(); at < nextAt; at = ctx.now()) {
        await sleep(Math.min(nextAt, lastLineAt + engineWaitLineMs) - at, ctx.signal);
        if (ctx.signal.aborted) throw new InterruptedError(ctx.interruptedBy() ?? 'SIGINT');
        const t = ctx.now();
        if (t < nextAt && t - lastLineAt >= engineWaitLineMs) {
          lastLineAt = t;
          options.onWaiting?.(stillWaitingLine(state(t)), false);
        }
      }
      if (options.deadline !== undefined && ctx.now() >= options.deadline) {
        throw new DeadlineError(`--timeout passed while waiting for the Docker engine at ${engine.address}: ${err.reason}`);
      }
    }
  }
}
