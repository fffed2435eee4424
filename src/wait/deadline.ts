// One value for every bound a run keeps: --timeout, a Job's activeDeadlineSeconds, a Deployment's
// progressDeadlineSeconds, and any of them merged (the earliest holds). It carries what set it, so the reason a user
// reads names the bound that ended the wait ("--timeout passed …", "job/x's deadline passed …"). Pure: the clock is
// passed in; bound() races a piece of work against it (wait/bounded.ts).
import { bounded } from './bounded.js';

export class Deadline {
  /** No bound at all: the run waits as long as it takes (no --timeout, no workload deadline). */
  static readonly none = new Deadline(undefined, '--timeout');

  private constructor(
    /** ms since the epoch; undefined: no bound. */
    readonly at: number | undefined,
    /** What set it, as a user reads it: "--timeout", "job/x's deadline". */
    readonly by: string,
  ) {}

  /** A bound `ms` after `start` (undefined ms: none), set by `by`. */
  static after(start: number, ms: number | undefined, by: string): Deadline {
    return ms === undefined ? new Deadline(undefined, by) : new Deadline(start + ms, by);
  }

  get bounded(): boolean {
    return this.at !== undefined;
  }

  passed(now: number): boolean {
    return this.at !== undefined && now >= this.at;
  }

  /** ms left from now (never below 0); undefined when unbounded. */
  left(now: number): number | undefined {
    return this.at === undefined ? undefined : Math.max(0, this.at - now);
  }

  /** A wait of `ms` cut to what is left. */
  cap(ms: number, now: number): number {
    const left = this.left(now);
    return left === undefined ? ms : Math.min(ms, left);
  }

  /** The earlier of the two; a tie keeps this one (the run's own --timeout names itself first). */
  within(other: Deadline): Deadline {
    if (other.at === undefined) return this;
    if (this.at === undefined || other.at < this.at) return other;
    return this;
  }

  /** The same bound, `ms` later (a grace after it: the pods' loops end with their own reports first). */
  plus(ms: number): Deadline {
    return this.at === undefined ? this : new Deadline(this.at + ms, this.by);
  }

  /** A bound at `at` set by the same thing (a short last look, a housekeeping allowance). */
  static at(at: number, by: string): Deadline {
    return new Deadline(at, by);
  }

  /** The work, or StopWaiting when this passes (or the signal, if given, comes) first. */
  bound<T>(work: Promise<T>, now: () => number, signal?: AbortSignal): Promise<T> {
    return bounded(work, { until: this.at, now, ...(signal ? { signal } : {}) });
  }
}
