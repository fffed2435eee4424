// Entry: run the CLI and turn an error into its exit code. The only place that sets the process exit code
// or listens for signals.
import type { CommandContext } from './commands/context.js';
import { ExitCode, RunpodError } from './errors.js';
import { version } from './version.js';

export async function main(argv: string[]): Promise<number> {
  const controller = new AbortController();
  // A reader that went away (`runpod status | head -1`, `logs -f pod | grep -m1 ready`) ends runpod quietly, as
  // SIGPIPE ends kubectl, docker and coreutils: no stack, exit 141. A command that follows or watches stops (the
  // abort); one that changes the engine (down, gc, a run) finishes what it does, its lines dropped. A closed stderr
  // only loses runpod's own account: the work goes on and the exit code still says how it ended.
  let stdoutClosed = false;
  const onStdoutError = (err: NodeJS.ErrnoException): void => {
    if (err.code !== 'EPIPE') throw err;
    if (stdoutClosed) return;
    stdoutClosed = true;
    controller.abort();
  };
  const onStderrError = (err: NodeJS.ErrnoException): void => {
    if (err.code !== 'EPIPE') throw err;
  };
  process.stdout.on('error', onStdoutError);
  process.stderr.on('error', onStderrError);
  // `runpod --version` alone is answered as yargs answers it (the version and a newline on stdout, exit 0), without
  // loading yargs and building its command tree: that was most of the command's time beyond node's own start.
  if (argv.length === 1 && argv[0] === '--version') {
    process.stdout.write(`${version}\n`);
    return 0;
  }
  // Loaded here, not imported at the top: the bundle's first module stays small for the answer above.
  const { runCli } = await import('./cli/cli.js');
  let interruptedBy: 'SIGINT' | 'SIGTERM' | undefined;
  // A second signal: a command that holds signals (a scoped run taking its pods down) hurries (agent/takedown.ts).
  const hurry = new AbortController();
  let hurriedBy: 'SIGINT' | 'SIGTERM' | undefined;
  const forwards = new Set<(signal: 'SIGINT' | 'SIGTERM') => void>();
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => (): void => {
    if (interruptedBy && !hurry.signal.aborted) {
      hurriedBy = signal;
      hurry.abort();
    }
    if (forwards.size > 0) {
      // A command runs under runpod (run … -- cmd): every signal is passed on, and runpod ends after it.
      interruptedBy ??= signal;
      controller.abort();
      for (const f of forwards) f(signal);
      return;
    }
    if (interruptedBy) process.exit(signal === 'SIGINT' ? 130 : 143); // a second signal: stop now
    interruptedBy = signal;
    controller.abort();
  };
  const sigint = onSignal('SIGINT');
  const sigterm = onSignal('SIGTERM');
  process.on('SIGINT', sigint);
  process.on('SIGTERM', sigterm);
  const ctx: CommandContext = {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    signal: controller.signal,
    interruptedBy: () => interruptedBy,
    hurried: hurry.signal,
    hurriedBy: () => hurriedBy,
    stdoutClosed: () => stdoutClosed,
    onSignal: (listener) => {
      forwards.add(listener);
      return () => forwards.delete(listener);
    },
    now: () => Date.now(),
    // process.uptime() counts from node's own start (before the snapshot or the bundle loads).
    processStartedAt: Date.now() - process.uptime() * 1000,
    self: { execPath: process.execPath, ...(process.argv[1] !== undefined ? { script: process.argv[1] } : {}), cwd: process.cwd() },
  };
  try {
    const code = await runCli(argv, ctx);
    // Done, but what it said was not all read: the pipeline's code for a reader that left early (a write's
    // failure is told after it returns, so once what was written is out).
    await flushed(process.stdout);
    const closed = stdoutClosed || (process.stdout.errored as NodeJS.ErrnoException | null)?.code === 'EPIPE';
    return code === ExitCode.ok && closed ? ExitCode.brokenPipe : code;
  } catch (err) {
    if (err instanceof RunpodError) {
      process.stderr.write(`runpod: ${err.message}\n`);
      for (const line of err.detail()) process.stderr.write(`  ${line}\n`);
      return err.exitCode;
    }
    // A bug, not a user's problem: say so with the stack, exit 1.
    process.stderr.write(`runpod: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  } finally {
    process.off('SIGINT', sigint);
    process.off('SIGTERM', sigterm);
  }
}

/**
 * Run and exit with the code. Exiting explicitly matters when the engine froze: requests abandoned at the
 * deadline keep their sockets open and would hold the process after the result is written (both streams are
 * drained first, so nothing written is lost).
 */
export async function mainAndExit(argv: string[]): Promise<never> {
  const code = await main(argv);
  // What was written must be out before the exit: a pipe that was full holds the rest in Node's queue.
  await Promise.all([process.stdout, process.stderr].map(flushed));
  process.exit(code);
}

/** Once what was written to the stream is out (or has failed). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise<void>((resolve) => stream.write('', () => resolve()));
}
