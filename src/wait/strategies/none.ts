// --wait none: one sync, then exit; what the engine does with the containers afterwards is not watched.
import type { WaitStrategy } from './strategy.js';

export const waitNone: WaitStrategy = {
  mode: 'none',
  goal: 'started',
  runsProbes: false,
  needsReadiness: false,
  endsAfterSync: true,
  patient: false,
  running: () => ({ ok: true, reason: 'running' }),
  impossibleFor: () => undefined,
};
