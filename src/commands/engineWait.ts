// What a run says while it waits for an engine that does not answer (pure: times are passed in). A boot step may
// run before dockerd is up, so waiting is a feature; but it must never be silence: the first line says at once which
// address is awaited, why it does not answer and what bounds the wait (--retries, --timeout); then a line every
// 10 s says it is still waiting, and a changed answer (ENOENT, then ECONNREFUSED as dockerd starts) is said at once.
import type { Backoff } from '../wait/backoff.js';

/** How often a wait for the engine says it is still waiting. */
export const engineWaitLineMs = 10_000;

/** What the reason of a failed ping means, in the words a user acts on. */
export function whyNoAnswer(reason: string): string {
  if (/\bENOENT\b/.test(reason)) return 'no socket at that path: is dockerd running, and is the path right?';
  if (/\bECONNREFUSED\b/.test(reason)) return 'nothing listens there: is dockerd running?';
  if (/\bEACCES\b|\bEPERM\b/.test(reason)) return 'permission denied: may this user use the engine (the docker group)?';
  if (/\bETIMEDOUT\b|\bEHOSTUNREACH\b|\bENETUNREACH\b/.test(reason)) return 'no answer from that host: is it up and reachable?';
  if (/\bENOTFOUND\b|\bEAI_AGAIN\b/.test(reason)) return 'the host name does not resolve';
  return '';
}

/** The sleeps the backoff has left after `next` (the one just taken), in ms. */
export function retryBudgetMs(backoff: Backoff, next: number): number {
  const rest = backoff.fork();
  let total = next;
  for (let d = rest.next(); d !== undefined; d = rest.next()) total += d;
  return total;
}

function seconds(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s >= 120 ? `${Math.floor(s / 60)}m${s % 60 > 0 ? `${s % 60}s` : ''}` : `${s}s`;
}

export interface EngineWaitState {
  address: string;
  reason: string;
  /** When the wait began (the first failed ping). */
  since: number;
  now: number;
  /** When the next ping is. */
  nextAt: number;
  retriesLeft: number;
  retries: number;
  /** What the retries left could still wait, in ms. */
  budgetMs: number;
  /** --timeout's deadline, when given. */
  deadline?: number;
}

/** The first line: the address, why it does not answer, and what bounds the wait. */
export function firstWaitLine(s: EngineWaitState): string {
  const why = whyNoAnswer(s.reason);
  const byTimeout = s.deadline !== undefined && s.deadline - s.now < s.budgetMs;
  const bound = byTimeout
    ? `until --timeout, ${seconds(s.deadline! - s.now)} from now`
    : `for up to ${seconds(s.budgetMs)} more (--retries ${s.retries}, with backoff; --timeout bounds it too)`;
  return `waiting for the Docker engine at ${s.address}: ${s.reason}${why ? ` (${why})` : ''}; trying again ${bound}`;
}

/** A line while the wait goes on: how long so far, the answer now (its meaning was said first), and when it ends at the latest. */
export function stillWaitingLine(s: EngineWaitState): string {
  const left =
    s.deadline !== undefined && s.deadline - s.now < s.budgetMs
      ? `--timeout in ${seconds(s.deadline - s.now)}`
      : `${s.retriesLeft} ${s.retriesLeft === 1 ? 'retry' : 'retries'} left`;
  return `still waiting for the Docker engine at ${s.address} after ${seconds(s.now - s.since)}: ${s.reason}; next try in ${seconds(s.nextAt - s.now)}, ${left}`;
}
