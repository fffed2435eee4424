// A sleep that ends early when woken (an engine event for the pod) or aborted (a signal, the deadline).

export type WakeReason = 'timer' | 'woken' | 'aborted';

export class Waker {
  private pending: (() => void) | undefined;
  private flagged = false;

  /** Wake the current sleep, or the next one if none is under way. */
  wake(): void {
    if (this.pending) this.pending();
    else this.flagged = true;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<WakeReason> {
    if (signal?.aborted) return Promise.resolve('aborted');
    if (this.flagged) {
      this.flagged = false;
      return Promise.resolve('woken');
    }
    return new Promise((resolve) => {
      const done = (reason: WakeReason): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.pending = undefined;
        resolve(reason);
      };
      const onAbort = (): void => done('aborted');
      const timer = setTimeout(() => done('timer'), Math.max(0, ms));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending = () => done('woken');
    });
  }
}

/**
 * A signal that aborts when either does (AbortSignal.any is not in every Node.js 20), and `release`, which its user
 * calls when done with it: the run's signal outlives every pod, and listeners left on it pile up.
 */
export function eitherSignal(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; release: () => void } {
  if (a.aborted) return { signal: a, release: () => undefined };
  if (b.aborted) return { signal: b, release: () => undefined };
  const both = new AbortController();
  const release = (): void => {
    a.removeEventListener('abort', abort);
    b.removeEventListener('abort', abort);
  };
  const abort = (): void => {
    release();
    both.abort();
  };
  a.addEventListener('abort', abort);
  b.addEventListener('abort', abort);
  return { signal: both.signal, release };
}
