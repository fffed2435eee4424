// Connecting to the engine for a command: resolve the address, then ping within the run's retry budget and
// deadline (a boot step may run before dockerd is up), else exit 3 naming the address.
import { DockerEngine } from '../engine/docker.js';
import { resolveEndpoint } from '../engine/connection.js';
import type { Engine, EngineInfo } from '../engine/engine.js';
import { projectEngine } from '../engine/project.js';
import { DeadlineError, EngineUnreachableError, InterruptedError } from '../errors.js';
import type { Backoff } from '../wait/backoff.js';
import { Waker } from '../wait/waker.js';
import type { CommandContext } from './context.js';

/**
 * The engine as a command sees it: confined to the isolation key (engine/project.ts), or to what was made
 * without one. Every command that acts on pods opens it so; the project is required so that none forgets.
 */
export async function openEngine(host: string | undefined, env: NodeJS.ProcessEnv, project: string | undefined): Promise<Engine> {
  return projectEngine(await openHostEngine(host, env), project);
}

/** The whole engine, every key's pods: for host-wide questions only (gc; admission counts every pod's requests). */
export async function openHostEngine(host: string | undefined, env: NodeJS.ProcessEnv): Promise<Engine> {
  return new DockerEngine(await resolveEndpoint(host, env));
}

export interface ConnectOptions {
  backoff?: Backoff;
  deadline?: number;
  onRetry?: (err: EngineUnreachableError, delayMs: number) => void;
}

/** Ping until the engine answers; with no backoff given, one try. */
export async function connectEngine(engine: Engine, ctx: CommandContext, options: ConnectOptions = {}): Promise<EngineInfo> {
  const waker = new Waker();
  for (;;) {
    try {
      return await engine.ping();
    } catch (err) {
      if (!(err instanceof EngineUnreachableError)) throw err;
      const delay = options.backoff?.next();
      if (delay === undefined) throw err;
      const now = ctx.now();
      if (options.deadline !== undefined && now + delay >= options.deadline) {
        await waker.sleep(options.deadline - now, ctx.signal);
        if (ctx.signal.aborted) throw new InterruptedError(ctx.interruptedBy() ?? 'SIGINT');
        throw new DeadlineError(`--timeout passed while waiting for the Docker engine at ${engine.address}: ${err.reason}`);
      }
      options.onRetry?.(err, delay);
      await waker.sleep(delay, ctx.signal);
      if (ctx.signal.aborted) throw new InterruptedError(ctx.interruptedBy() ?? 'SIGINT');
    }
  }
}
