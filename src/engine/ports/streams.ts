// The streams port: what flows out of running containers — logs, exec sessions, statistics, and the engine's
// container events.
import { StringDecoder } from 'node:string_decoder';

export interface EngineEvent {
  /** container, image, network … */
  type: string;
  /** start, die, destroy, health_status … */
  action: string;
  id: string;
  labels: Record<string, string>;
  /** Nanoseconds since the epoch. */
  timeNano: number;
}

export interface EventSubscription {
  close(): void;
}

export interface LogsOptions {
  tail?: number;
  timestamps?: boolean;
}

/** Which of a container's streams a chunk of output came from. */
export type OutputStream = 'stdout' | 'stderr';

export interface LogStreamOptions {
  /** Keep the stream open for new output until the container stops. */
  follow: boolean;
  tail?: number;
  /** Only output after this time (seconds since the epoch, fractions allowed). */
  since?: number;
  timestamps?: boolean;
  /** Aborting ends the stream early (Ctrl-C on `logs -f`). */
  signal?: AbortSignal;
}

export interface ExecOptions {
  cmd: string[];
  /** Allocate a terminal: output arrives raw on stdout, not framed per stream. */
  tty: boolean;
  /** Attach the caller's stdin (docker exec -i). */
  stdin?: NodeJS.ReadableStream;
  /** Terminal size for tty, and a way to hear about later resizes. */
  size?: { rows: number; columns: number };
  onOutput(stream: OutputStream, chunk: Buffer): void;
  /** Called once the command runs: a failure before this is runpod's (exit 125), after it the command's. */
  onStarted?(resize: (size: { rows: number; columns: number }) => void): void;
  /**
   * Aborting closes the connection (the reader of runpod's output went away, or a signal): the command's streams
   * close with it, as when the docker client dies, and no exit code is awaited.
   */
  signal?: AbortSignal;
}

/** The engine's statistics for one container, the fields `runpod stats` reads (GET /containers/{id}/stats). */
export interface ContainerStats {
  read: string;
  cpu: { total: number; system?: number; onlineCpus?: number; perCpu?: number };
  precpu: { total: number; system?: number };
  /** inactiveFile: reclaimable page cache, which `docker stats` leaves out of the usage it shows. */
  memory: { usage?: number; limit?: number; inactiveFile?: number };
  /** Per interface; absent for a container that joined another's network namespace. */
  networks?: Record<string, { rxBytes: number; txBytes: number }>;
  blkio: { op: string; value: number }[];
  pids?: number;
}

export interface ExecCaptureResult {
  /** undefined when the command timed out. */
  exitCode?: number;
  /** stdout and stderr interleaved. */
  output: string;
  timedOut: boolean;
}

/** Container events: the wait's wake-ups (start, die, health_status …). */
export interface EventPort {
  /** Container events for containers carrying every given label. */
  subscribeEvents(labels: string[], onEvent: (e: EngineEvent) => void, onError: (err: Error) => void): Promise<EventSubscription>;
}

/** A container's output as text or as it is written. */
export interface LogPort {
  /** Last log lines, stdout and stderr interleaved, as text. */
  logs(id: string, options: LogsOptions): Promise<string>;
  /**
   * Logs as they are written, each chunk to its own stream (frames demultiplexed; a TTY container's output all
   * goes to stdout). Resolves when the stream ends: at once without follow, when the container stops with it.
   */
  streamLogs(id: string, options: LogStreamOptions, onOutput: (stream: OutputStream, chunk: Buffer) => void): Promise<void>;
}

/** Commands run inside a running container. */
export interface ExecPort {
  /** Run a command in a running container, attached; the command's exit code, undefined when options.signal ended the session first. */
  execAttached(id: string, options: ExecOptions): Promise<number | undefined>;
  /**
   * Run a command in a running container and collect its output (an exec probe). Past timeoutMs the result is
   * timedOut and the command is abandoned: the Engine API has no way to kill an exec (design.md).
   */
  execCapture(id: string, cmd: string[], timeoutMs: number): Promise<ExecCaptureResult>;
}

/** A container's resource usage. */
export interface StatsPort {
  /** One sample of a container's statistics (with the previous CPU reading); undefined when it is gone. */
  containerStats(id: string): Promise<ContainerStats | undefined>;
}

/** Every stream the engine gives out. */
export interface StreamPort extends EventPort, LogPort, ExecPort, StatsPort {}

/**
 * Splits a stream into whole lines for `--prefix`: a line is written only once its newline arrives, so
 * prefixes from two containers never land in the middle of each other's lines.
 */
export class LineSplitter {
  private pending = '';
  // A chunk can end inside a multi-byte UTF-8 character; the decoder holds its first bytes back.
  private readonly decoder = new StringDecoder('utf8');

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Buffer): void {
    this.pending += this.decoder.write(chunk);
    let nl: number;
    while ((nl = this.pending.indexOf('\n')) >= 0) {
      this.onLine(this.pending.slice(0, nl + 1));
      this.pending = this.pending.slice(nl + 1);
    }
  }

  /** The last line when the stream ends without a newline. */
  flush(): void {
    this.pending += this.decoder.end();
    if (this.pending) this.onLine(`${this.pending}\n`);
    this.pending = '';
  }
}
