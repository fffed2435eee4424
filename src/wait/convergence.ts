// A plan that repeats is a failure, not a wait (pure). When the same sync actions are decided again and again on
// the same observed state, what runpod did had no lasting effect: another retry will not mend it (an image that
// is absent under --pull never, a host port another container holds, a command the image does not have, an
// action the engine accepts but undoes). The run ends with what was tried and the engine's answer, in seconds
// instead of the whole retry budget.
import { actionKey } from '../reconcile/decide.js';
import type { ActionResult } from '../reconcile/apply.js';
import type { ObservedPod } from '../reconcile/observe.js';
import { type Action, describeAction } from '../reconcile/action.js';

/** Times the same sync is carried out on the same observed state before the run is failed. */
export const repeatLimit = 3;

/**
 * What the engine holds for a pod, as far as decide can tell instances apart. Not the engine's error text: it
 * names a new endpoint id at every failed start ("driver failed programming external connectivity on endpoint …").
 */
export function observedFingerprint(observed: ObservedPod, only?: ReadonlySet<string>): string {
  const all = [...observed.infra, ...[...observed.containers.values()].flat(), ...[...observed.initContainers.values()].flat()].filter((c) => only === undefined || only.has(c.id));
  return JSON.stringify(
    all
      .map((c) => [c.id, c.state, c.restartCount, c.startedAt ?? 0, c.finishedAt ?? 0, c.exitCode, c.engineRestartPolicy, c.hash])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
  );
}

export class Convergence {
  private last: { key: string; observed: string; times: number } | undefined;

  /**
   * Record one sync: its actions, the state they were decided on, and what became of them. Returns the account of
   * a sync that cannot converge once it has been carried out repeatLimit times in a row on the same state.
   */
  record(actions: readonly Action[], observed: string, results: readonly ActionResult[]): string | undefined {
    const key = actions.map(actionKey).join('\n');
    this.last = this.last?.key === key && this.last.observed === observed ? { ...this.last, times: this.last.times + 1 } : { key, observed, times: 1 };
    if (this.last.times < repeatLimit) return undefined;
    const failed = results.find((r) => !r.ok && r.error !== undefined && actions.includes(r.action));
    const what = failed ? failed.action : actions[0]!;
    const why = failed?.error ?? 'the engine accepted it, but nothing changed';
    return `cannot converge: ${describeAction(what)}: ${why} (tried ${this.last.times} times, with no change on the engine)`;
  }

  /** The engine was lost: what it holds after it is back is news. */
  reset(): void {
    this.last = undefined;
  }
}
