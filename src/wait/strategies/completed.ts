// --wait completed: every container has exited 0 and will not run again. A pod under restartPolicy Always never
// completes, so it is refused up front; a job that runs normally spends no retries (only --timeout bounds it).
import type { WaitStrategy } from './strategy.js';

export const waitCompleted: WaitStrategy = {
  mode: 'completed',
  goal: 'completed',
  runsProbes: true,
  needsReadiness: false,
  endsAfterSync: false,
  reached: 'every container completed',
  settled: (holds) => (holds ? waitCompleted.reached : undefined),
  runsToCompletion: true,
  patient: true,
  running: () => ({ ok: false, reason: 'still running' }),
  impossibleFor: (pod, containers) => {
    // A container's own restartPolicy overrides the pod's (Kubernetes 1.34 container restart rules): the pod
    // completes only when none of its containers restarts forever.
    const forever = [...containers].filter(([, policy]) => policy === 'Always').map(([name]) => name);
    if (forever.length === 0) return undefined;
    if (pod === 'Always' && forever.length === containers.size) return 'restartPolicy Always restarts containers forever; use restartPolicy Never or OnFailure, or --wait running';
    return `container${forever.length === 1 ? '' : 's'} ${forever.join(', ')} restart${forever.length === 1 ? 's' : ''} forever (restartPolicy Always); set its restartPolicy to Never or OnFailure, or use --wait running`;
  },
};
