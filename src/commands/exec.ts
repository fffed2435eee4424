// runpod exec: run a command in one of a pod's containers, streaming stdin in (-i) and stdout/stderr out, and
// exit with the command's own exit code. Every failure of runpod's is exit 125, as `docker exec` does: the
// command's codes (1, 2, 126, 127 …) stay the command's, so a script can tell them apart.
import type { ReadStream } from 'node:tty';
import { ExitCode, RunpodError, UsageError } from '../errors.js';
import type { CommandContext } from './context.js';
import { connectEngine, openEngine } from './engineSession.js';
import { findPodArg, parsePodArg, pickContainer } from '../reconcile/pods.js';

export interface ExecOptions {
  pod: string;
  container?: string;
  stdin: boolean;
  tty: boolean;
  command: string[];
  namespace: string;
  host?: string;
  /** The isolation key (kube/project.ts): only pods made under it are seen. */
  project?: string;
}

export const execFailedCode = 125;

/** runpod could not run the command (unknown pod or container, engine unreachable …): exit 125. */
export class ExecFailedError extends RunpodError {
  readonly exitCode = execFailedCode;
  override name = 'ExecFailedError';
  constructor(cause: RunpodError | Error) {
    super(cause.message);
    if (cause instanceof RunpodError) this.withDetail(cause.detail());
  }
}

function isTtyStream(s: unknown): s is ReadStream {
  return typeof s === 'object' && s !== null && (s as { isTTY?: boolean }).isTTY === true && typeof (s as { setRawMode?: unknown }).setRawMode === 'function';
}

export async function execCommand(o: ExecOptions, ctx: CommandContext): Promise<number> {
  let started = false;
  try {
    if (o.command.length === 0) throw new UsageError('no command given: runpod exec <pod> [-c name] -- <command...>');
    const ref = parsePodArg(o.pod, o.namespace);
    const engine = await openEngine(o.host, ctx.env, o.project);
    await connectEngine(engine, ctx);
    const pod = await findPodArg(engine, ref, (line) => ctx.stderr.write(`${line}\n`));
    const c = pickContainer(pod, o.container, 'exec');
    if (c.current.state !== 'running') {
      throw new UsageError(`container ${c.name} in pod ${pod.namespace}/${pod.name} is not running (${c.status})`);
    }
    // A terminal on both ends: raw mode passes keys (Ctrl-C included) to the command instead of to runpod.
    const raw = o.tty && o.stdin && isTtyStream(ctx.stdin) ? ctx.stdin : undefined;
    const columns = (ctx.stdout as { columns?: number }).columns;
    const rows = (ctx.stdout as { rows?: number }).rows;
    try {
      raw?.setRawMode(true);
      const code = await engine.execAttached(c.current.id, {
        cmd: o.command,
        signal: ctx.signal,
        tty: o.tty,
        ...(o.stdin ? { stdin: ctx.stdin } : {}),
        ...(o.tty && columns && rows ? { size: { rows, columns } } : {}),
        onOutput: (stream, chunk) => (stream === 'stderr' ? ctx.stderr : ctx.stdout).write(chunk),
        onStarted: (resize) => {
          started = true;
          const out = ctx.stdout as NodeJS.WriteStream;
          if (o.tty && typeof out.on === 'function' && out.isTTY) out.on('resize', () => resize({ rows: out.rows, columns: out.columns }));
        },
      });
      // Ended by runpod's side: a reader that went away (the pipeline's 141), or a signal (128 + its number).
      if (code === undefined) return ctx.stdoutClosed?.() ? ExitCode.brokenPipe : ctx.interruptedBy?.() === 'SIGTERM' ? ExitCode.sigterm : ExitCode.sigint;
      return code;
    } finally {
      raw?.setRawMode(false);
    }
  } catch (err) {
    if (started && !(err instanceof RunpodError)) throw err;
    throw new ExecFailedError(err instanceof Error ? err : new Error(String(err)));
  }
}
