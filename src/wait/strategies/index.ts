// The wait strategy for a --wait mode.
import { waitCompleted } from './completed.js';
import { waitNone } from './none.js';
import { waitReady } from './ready.js';
import { waitRunning } from './running.js';
import type { WaitMode, WaitStrategy } from './strategy.js';

export type { WaitMode, WaitStrategy } from './strategy.js';

const strategies: Record<WaitMode, WaitStrategy> = { running: waitRunning, ready: waitReady, completed: waitCompleted, none: waitNone };

export function waitStrategy(mode: WaitMode): WaitStrategy {
  return strategies[mode];
}

/** The strategies themselves, for a floor that picks one by what it waits for, not by a mode string. */
export { waitCompleted, waitNone, waitReady, waitRunning };
