// What a command gets from main: its streams, environment, clock and the interrupt signal. Commands never
// touch process.* themselves, so they can be driven by tests and by main alike.
import type { Readable, Writable } from 'node:stream';

export interface CommandContext {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  stdin: Readable;
  env: NodeJS.ProcessEnv;
  /** Aborted on SIGINT or SIGTERM. */
  signal: AbortSignal;
  /** Which signal aborted the run, once one has. */
  interruptedBy(): 'SIGINT' | 'SIGTERM' | undefined;
  now(): number;
}

export function readAll(stream: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.setEncoding('utf8');
    stream.on('data', (d: string) => (text += d));
    stream.on('end', () => resolve(text));
    stream.on('error', reject);
  });
}
