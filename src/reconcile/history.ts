// What to do with a container's older instances (pure): they are dead history, kept for `logs --previous` (or
// as an init container's record), and must never run again beside the newest one. Shared by app and init
// containers, so both follow one rule.
import type { Action } from './action.js';
import type { ObservedContainer } from './observe.js';

/** Engine states in which the engine itself keeps the container going. */
export const liveStates: ReadonlySet<string> = new Set(['running', 'restarting', 'paused']);

/**
 * Only an exited instance can be retired (its restart policy set to "no"): Docker refuses to update a `dead` or
 * `removing` container ("container is marked for removal and cannot be update"), so a dead one is removed instead.
 */
export function retirable(c: ObservedContainer): boolean {
  return c.state === 'exited' && c.engineRestartPolicy !== 'no';
}

export interface HistoryActions {
  /** An older instance still live: two instances of one container in one pod is a pod out of sync. */
  sync: Action[];
  /** Housekeeping (retire, remove what the engine marked dead): never blocks success. */
  housekeeping: Action[];
}

/** The older instances of one container (newest first, the newest left out by the caller). */
export function historyActions(container: string, older: readonly ObservedContainer[], keptFor: string): HistoryActions {
  const out: HistoryActions = { sync: [], housekeeping: [] };
  for (const old of older) {
    if (liveStates.has(old.state)) {
      out.sync.push({ kind: 'remove', container, id: old.id, reason: `an older instance (attempt ${old.attempt}) is still ${old.state}` });
    } else if (old.state === 'dead') {
      // A removal the engine could not finish; nothing of it is worth keeping, and it cannot be retired.
      out.housekeeping.push({ kind: 'remove', container, id: old.id, reason: `an older instance (attempt ${old.attempt}) is dead (a removal the engine could not finish)` });
    } else if (retirable(old)) {
      out.housekeeping.push({ kind: 'retire', container, id: old.id, reason: `dead instance (attempt ${old.attempt}) ${keptFor}` });
    }
    // removing: the engine is removing it already. created (never started): no engine restarts it.
  }
  return out;
}
