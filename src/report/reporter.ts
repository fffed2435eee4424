// The only code that writes to the terminal. TTY: an ora spinner and chalk colour on stderr (NO_COLOR: the
// spinner without colour). Not a TTY, or CI set: plain timestamped lines, no ANSI codes. Results go to stdout
// (see output.ts).
import type { Writable } from 'node:stream';
import type { PodResult } from './result.js';
import { type ProgressState, progressLines, waitingLine } from './progress.js';
import { type Action, actionHeadline, describeAction as actionText } from '../reconcile/action.js';
import type { PodCheck } from '../wait/podCheck.js';

export interface Reporter {
  /** Something went otherwise than asked, or needs the user now: shown even under -q. */
  warn(message: string): void;
  /**
   * A warning about the input that is the same at every run (a field ignored or not enforced on one host, a kind
   * skipped, a field that depends on the engine): shown as a warning, but not under -q.
   */
  note(message: string): void;
  info(message: string): void;
  verbose(message: string): void;
  podStarted(key: string): void;
  podAction(key: string, action: Action): void;
  podCheck(key: string, check: PodCheck): void;
  pullProgress(image: string, status: string): void;
  /**
   * A pod's loop has ended (ready, completed, failed …): its line, said when it happens, and the pod is no longer
   * awaited. Said again (the run's account at the end) it is not repeated; a pod brought up again says its new line.
   */
  podFinished(result: PodResult): void;
  /** Persist whatever is on screen (stop spinners) before the final output. */
  close(): void;
}

export interface ReporterOptions {
  stream: Writable & { isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
  quiet: boolean;
  verbose: boolean;
  now: () => Date;
}

/** Plain output is chosen when stderr is not a TTY or CI is set. */
export function wantsPlain(stream: { isTTY?: boolean; columns?: number }, env: NodeJS.ProcessEnv): boolean {
  // A terminal that reports no width (a pty nobody sized) cannot host a spinner that redraws its lines.
  return !stream.isTTY || !stream.columns || Boolean(env.CI);
}

/** NO_COLOR (no-color.org): present and not empty, it removes colour only; the spinner stays. */
export function wantsNoColour(env: NodeJS.ProcessEnv): boolean {
  return env.NO_COLOR !== undefined && env.NO_COLOR !== '';
}

export function podLine(r: PodResult): string {
  const n = r.containers.length;
  const what = r.changed ? `${r.actions.length} action${r.actions.length === 1 ? '' : 's'}` : 'unchanged';
  const took = r.durationMs < 1000 ? `${Math.round(r.durationMs)}ms` : `${(r.durationMs / 1000).toFixed(1)}s`;
  return `${r.namespace}/${r.name}: ${r.status === 'succeeded' ? r.reason : `${r.status}: ${r.reason}`} (${n} container${n === 1 ? '' : 's'}, ${what}, ${took})`;
}

/** No plain log stays silent longer than this while a pod is awaited (a heartbeat names what is awaited). */
const heartbeatMs = 10_000;

class PlainReporter implements Reporter {
  private lastCheck = new Map<string, string>();
  private pulling = new Set<string>();
  /** Pods in flight: when each started, its last check, and what progress was last said of its containers. */
  private readonly inFlight = new Map<string, { startedAt: number; check?: PodCheck; progress: ProgressState }>();
  private lastLineAt = 0;
  private heartbeat: NodeJS.Timeout | undefined;
  /** Each pod's line as last said (podFinished). */
  private readonly said = new Map<string, string>();
  constructor(private readonly o: ReporterOptions) {}
  private line(text: string): void {
    this.lastLineAt = this.o.now().getTime();
    this.o.stream.write(`${this.o.now().toISOString()} ${text}\n`);
  }
  private beat(): void {
    const now = this.o.now().getTime();
    if (now - this.lastLineAt < heartbeatMs) return;
    for (const [key, p] of this.inFlight) this.line(`${key}: ${waitingLine(p.check, now - p.startedAt)}`);
  }
  warn(message: string): void {
    this.line(`warning: ${message}`);
  }
  note(message: string): void {
    if (!this.o.quiet) this.warn(message);
  }
  info(message: string): void {
    if (!this.o.quiet) this.line(message);
  }
  verbose(message: string): void {
    if (this.o.verbose) this.line(message);
  }
  podStarted(key: string): void {
    this.info(`${key}: syncing`);
    if (this.o.quiet) return;
    this.inFlight.set(key, { startedAt: this.o.now().getTime(), progress: new Map() });
    this.heartbeat ??= setInterval(() => this.beat(), 1000).unref();
  }
  podAction(key: string, action: Action): void {
    this.info(`${key}: ${actionText(action)}`);
  }
  podCheck(key: string, check: PodCheck): void {
    const p = this.inFlight.get(key);
    if (p) {
      // A line whenever a container's state changes, even when runpod has nothing to do (a crash loop the
      // engine's restart policy runs).
      const { lines, now } = progressLines(p.progress, check);
      p.progress = now;
      p.check = check;
      for (const l of lines) this.line(`${key}: ${l}`);
    }
    if (!this.o.verbose) return;
    const text = check.containers.map((v) => `${v.name} ${v.ok ? 'ok' : v.reason}`).join(', ');
    if (this.lastCheck.get(key) === text) return;
    this.lastCheck.set(key, text);
    this.line(`${key}: check: ${text}`);
  }
  pullProgress(image: string, status: string): void {
    if (this.pulling.has(image)) {
      if (this.o.verbose) this.line(`pull ${image}: ${status}`);
      return;
    }
    this.pulling.add(image);
    this.info(`pulling ${image}`);
  }
  podFinished(result: PodResult): void {
    const key = `${result.namespace}/${result.name}`;
    this.inFlight.delete(key);
    if (this.inFlight.size === 0) this.close();
    const line = podLine(result);
    if (this.said.get(key) === line) return;
    this.said.set(key, line);
    if (result.status !== 'succeeded' || !this.o.quiet) this.line(line);
  }
  close(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}

/** Text cut to at most n characters, "…" marking the cut. */
function cut(text: string, n: number): string {
  return text.length <= n ? text : `${text.slice(0, Math.max(0, n - 1))}…`;
}

/** Spinner and colour on a terminal. ora and chalk are loaded only here, only for a TTY. */
class TtyReporter implements Reporter {
  private readonly inFlight = new Map<string, string>();
  /** Each pod's line as last said (podFinished). */
  private readonly said = new Map<string, string>();
  constructor(
    private readonly o: ReporterOptions,
    private readonly spinner: { text: string; start(): unknown; stop(): unknown; clear(): unknown; render(): unknown; isSpinning: boolean },
    private readonly chalk: { yellow(s: string): string; green(s: string): string; red(s: string): string; dim(s: string): string },
  ) {}
  private persist(text: string): void {
    if (this.spinner.isSpinning) this.spinner.clear();
    this.o.stream.write(`${text}\n`);
    if (this.spinner.isSpinning) this.spinner.render();
  }
  private refresh(): void {
    if (this.inFlight.size === 0) {
      if (this.spinner.isSpinning) this.spinner.stop();
      return;
    }
    // One terminal line, whatever the pods say: a line the terminal wraps is one the spinner cannot redraw. The
    // first pod still awaited, and how many more (each says its own line when it is done).
    const [key, status] = this.inFlight.entries().next().value as [string, string];
    const more = this.inFlight.size > 1 ? ` (+${this.inFlight.size - 1} more)` : '';
    this.spinner.text = `${key} ${this.chalk.dim(cut(status, this.width() - key.length - 1 - more.length))}${more}`;
    if (!this.spinner.isSpinning) this.spinner.start();
  }
  /** Room for the spinner's text: the terminal's width less the spinner and its space. */
  private width(): number {
    return Math.max(20, (this.o.stream.columns ?? 80) - 3);
  }
  warn(message: string): void {
    this.persist(this.chalk.yellow(`warning: ${message}`));
  }
  note(message: string): void {
    if (!this.o.quiet) this.warn(message);
  }
  info(message: string): void {
    if (!this.o.quiet) this.persist(message);
  }
  verbose(message: string): void {
    if (this.o.verbose) this.persist(this.chalk.dim(message));
  }
  podStarted(key: string): void {
    if (this.o.quiet) return;
    this.inFlight.set(key, 'syncing');
    this.refresh();
  }
  podAction(key: string, action: Action): void {
    if (this.o.verbose) this.persist(this.chalk.dim(`${key}: ${actionText(action)}`));
    if (this.inFlight.has(key)) {
      this.inFlight.set(key, actionHeadline(action));
      this.refresh();
    }
  }
  podCheck(key: string, check: PodCheck): void {
    if (!this.inFlight.has(key)) return;
    const waiting = check.containers.filter((v) => !v.ok).map((v) => `${v.name}: ${v.reason}`);
    this.inFlight.set(key, waiting.length ? `waiting for ${waiting.join(', ')}` : 'ok');
    this.refresh();
  }
  pullProgress(image: string, status: string): void {
    if (this.o.quiet) return;
    this.spinner.text = cut(`pulling ${image}: ${status}`, this.width());
    if (!this.spinner.isSpinning) this.spinner.start();
  }
  podFinished(result: PodResult): void {
    const key = `${result.namespace}/${result.name}`;
    this.inFlight.delete(key);
    // Stop the spinner before the last line, so it is not drawn again below it.
    if (this.inFlight.size === 0 && this.spinner.isSpinning) this.spinner.stop();
    const ok = result.status === 'succeeded';
    const line = podLine(result);
    if (this.said.get(key) !== line) {
      this.said.set(key, line);
      if (!ok || !this.o.quiet) this.persist(`${ok ? this.chalk.green('✔') : this.chalk.red('✖')} ${line}`);
    }
    this.refresh();
  }
  close(): void {
    if (this.spinner.isSpinning) this.spinner.stop();
  }
}

export async function createReporter(o: ReporterOptions): Promise<Reporter> {
  if (wantsPlain(o.stream, o.env)) return new PlainReporter(o);
  const [{ default: ora }, { Chalk }] = await Promise.all([import('ora'), import('chalk')]);
  // chalk does not read NO_COLOR itself; level 0 writes no colour codes, and ora's spinner is told the same.
  const noColour = wantsNoColour(o.env);
  const spinner = ora({ stream: o.stream as NodeJS.WritableStream, discardStdin: false, ...(noColour ? { color: false as const } : {}) });
  return new TtyReporter(o, spinner, new Chalk(noColour ? { level: 0 } : {}));
}
