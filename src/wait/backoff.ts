// The run-once retry schedule (the kubelet's runOnceMaxRetries=10, runOnceRetryDelay=1s,
// runOnceRetryDelayBackoff=2), with each sleep capped at maxDelay (design.md: ~3 minutes in all by default).

export interface BackoffOptions {
  retries: number;
  retryDelayMs: number;
  factor: number;
  maxDelayMs: number;
}

export class Backoff {
  private used = 0;
  private delay: number;

  constructor(private readonly options: BackoffOptions) {
    this.delay = options.retryDelayMs;
  }

  /** The next sleep, or undefined when the retries are spent. */
  next(): number | undefined {
    if (this.used >= this.options.retries) return undefined;
    this.used++;
    const d = Math.min(this.delay, this.options.maxDelayMs);
    this.delay = Math.min(this.delay * this.options.factor, this.options.maxDelayMs);
    return d;
  }

  /** The sleep next() would give, without spending a retry. */
  current(): number {
    return Math.min(this.delay, this.options.maxDelayMs);
  }

  get retriesUsed(): number {
    return this.used;
  }

  /** The retries in all (--retries). */
  get retries(): number {
    return this.options.retries;
  }

  /** A copy at the same point of the schedule (the engine wait and each pod share one budget). */
  fork(): Backoff {
    const b = new Backoff(this.options);
    b.used = this.used;
    b.delay = this.delay;
    return b;
  }
}
