// --wait ready: every container is ready as Kubernetes' ContainerStatus.ready says — its startupProbe passed and
// its readinessProbe succeeds; a container without probes is ready once it runs.
import type { WaitStrategy } from './strategy.js';

export const waitReady: WaitStrategy = {
  mode: 'ready',
  goal: 'ready',
  runsProbes: true,
  needsReadiness: true,
  endsAfterSync: false,
  reached: 'every container is ready',
  settled: (holds) => (holds ? waitReady.reached : undefined),
  runsToCompletion: false,
  patient: false,
  running: (p) => ({ ok: true, reason: p.probes ? 'ready' : 'running' }),
  impossibleFor: () => undefined,
};
