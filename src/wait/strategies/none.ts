// --wait none: one sync, then exit; what the engine does with the containers afterwards is not watched.
import type { WaitStrategy } from './strategy.js';

export const waitNone: WaitStrategy = {
  mode: 'none',
  goal: 'started',
  runsProbes: false,
  needsReadiness: false,
  endsAfterSync: true,
  reached: 'every container is started',
  settled: (holds) => (holds ? waitNone.reached : 'nothing to change (--wait none)'),
  runsToCompletion: false,
  patient: false,
  running: () => ({ ok: true, reason: 'running' }),
  impossibleFor: () => undefined,
};
