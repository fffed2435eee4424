// A request a frozen engine never answers (dockerd stopped, not gone: it accepts connections and never replies)
// must not hold runpod past --timeout or a signal (design.md: engine lost mid-wait). The work races them; a lost
// race abandons it (the process exits without waiting for it) and rejects with StopWaiting.

/** The deadline passed or a signal came while an engine request was still unanswered. */
export class StopWaiting extends Error {
  constructor(readonly by: 'deadline' | 'signal') {
    super(by === 'deadline' ? 'the deadline passed' : 'a signal came');
  }
}

export interface Bounds {
  /** ms since the epoch; none: no deadline. */
  until: number | undefined;
  now: () => number;
  /** none: a signal does not cut the work short. */
  signal?: AbortSignal;
}

export function bounded<T>(work: Promise<T>, b: Bounds): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const settle = (): void => {
      clearTimeout(timer);
      b.signal?.removeEventListener('abort', bySignal);
    };
    const stop = (by: 'deadline' | 'signal'): void => {
      settle();
      reject(new StopWaiting(by));
    };
    function bySignal(): void {
      stop('signal');
    }
    if (b.signal?.aborted) return stop('signal');
    if (b.until !== undefined) timer = setTimeout(() => stop('deadline'), Math.max(0, b.until - b.now()));
    b.signal?.addEventListener('abort', bySignal, { once: true });
    work.then(
      (v) => {
        settle();
        resolve(v);
      },
      (err: unknown) => {
        settle();
        reject(err);
      },
    );
  });
}
