// --wait completed: every container has exited 0 and will not run again. A pod under restartPolicy Always never
// completes, so it is refused up front; a job that runs normally spends no retries (only --timeout bounds it).
import type { WaitStrategy } from './strategy.js';

export const waitCompleted: WaitStrategy = {
  mode: 'completed',
  goal: 'completed',
  runsProbes: true,
  needsReadiness: false,
  endsAfterSync: false,
  patient: true,
  running: () => ({ ok: false, reason: 'still running' }),
  impossibleFor: (policy) =>
    policy === 'Always' ? 'restartPolicy Always restarts containers forever; use restartPolicy Never or OnFailure, or --wait running' : undefined,
};
