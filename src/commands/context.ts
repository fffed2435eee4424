// What a command gets from main: its streams, environment, clock and the interrupt signal. Commands never
// touch process.* themselves, so they can be driven by tests and by main alike.
import type { Readable, Writable } from 'node:stream';
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
   * Also hand every SIGINT/SIGTERM to listener (a command runpod runs, to forward them to) until the returned
   * function is called. While a listener is registered a second signal does not end runpod at once: the
   * command decides when it ends, and runpod still takes its pods down after it.
   */
  onSignal?(listener: (signal: 'SIGINT' | 'SIGTERM') => void): () => void;
  now(): number;
  /**
   * The program that is running and where (process.execPath, the script's path, the working directory): for a
   * command that writes a command line running runpod again (systemd). Left out by tests that need none.
   */
  self?: { execPath: string; script?: string; cwd: string };
}

/** A manifest from stdin: read up to one byte past the size limit (an endless input is not held in memory). */
export function readAll(stream: Readable): Promise<Buffer> {
  return readManifestStream(stream);
}
