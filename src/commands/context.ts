// What a command gets from main: its streams, environment, clock and the interrupt signal. Commands never
// touch process.* themselves, so they can be driven by tests and by main alike.
import type { Readable, Writable } from 'node:stream';
import { ExitCode } from '../errors.js';
import { readManifestStream } from '../manifest/load.js';

export interface CommandContext {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  stdin: Readable;
  env: NodeJS.ProcessEnv;
  /** Aborted on SIGINT or SIGTERM. */
  signal: AbortSignal;
  /** Which signal aborted the run, once one has. */
  interruptedBy(): 'SIGINT' | 'SIGTERM' | undefined;
  /**
   * Aborted at a second SIGINT or SIGTERM (after the one that aborted `signal`): a command that holds signals
   * (onSignal) and is taking down what it made hurries then (agent/takedown.ts). Left out by tests that need none.
   */
  hurried?: AbortSignal;
  /** Which signal hurried the command, once one has. */
  hurriedBy?(): 'SIGINT' | 'SIGTERM' | undefined;
  /**
   * Whether stdout's reader went away (a closed pipe: `runpod logs -f pod | grep -m1 ready`); signal is aborted
   * then too, so that a command following or watching ends. Left out where stdout cannot close (tests, warm-up).
   */
  stdoutClosed?(): boolean;
  /**
   * Also hand every SIGINT/SIGTERM to listener (a command runpod runs, to forward them to) until the returned
   * function is called. While a listener is registered a second signal does not end runpod at once: the
   * command decides when it ends, and runpod still takes its pods down after it.
   */
  onSignal?(listener: (signal: 'SIGINT' | 'SIGTERM') => void): () => void;
  now(): number;
  /** When the process started (ms since the epoch, on now()'s clock): what a run's own "… ms" counts from. */
  processStartedAt?: number;
  /**
   * The program that is running and where (process.execPath, the script's path, the working directory): for a
   * command that writes a command line running runpod again (systemd). Left out by tests that need none.
   */
  self?: { execPath: string; script?: string; cwd: string };
}

/**
 * The exit code of a command that ended early because ctx.signal was aborted (logs -f, stats --watch): the signal's
 * (130, 143), or 141 when it was stdout's reader that went away.
 */
export function abortedExitCode(ctx: Pick<CommandContext, 'interruptedBy' | 'stdoutClosed'>): number {
  const signal = ctx.interruptedBy();
  if (signal === undefined && ctx.stdoutClosed?.() === true) return ExitCode.brokenPipe;
  return signal === 'SIGTERM' ? ExitCode.sigterm : ExitCode.sigint;
}

/** A manifest from stdin: read up to one byte past the size limit (an endless input is not held in memory). */
export function readAll(stream: Readable): Promise<Buffer> {
  return readManifestStream(stream);
}
