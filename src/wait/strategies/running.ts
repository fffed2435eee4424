// --wait running (the default, the kubelet's run-once check): every app container runs and has settled.
import type { WaitStrategy } from './strategy.js';

export const waitRunning: WaitStrategy = {
  mode: 'running',
  goal: 'running',
  runsProbes: true,
  needsReadiness: false,
  endsAfterSync: false,
  reached: 'every container is running',
  settled: (holds) => (holds ? waitRunning.reached : undefined),
  runsToCompletion: false,
  patient: false,
  running: () => ({ ok: true, reason: 'running' }),
  impossibleFor: () => undefined,
};
