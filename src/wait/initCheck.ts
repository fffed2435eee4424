// The run-once check's account of init containers (pure): while the init phase runs, the app containers wait
// for it ("waiting for init container migrate"); an init container that failed under restartPolicy Never fails
// the pod (Kubernetes treats the pod as failed); once the phase is over, each sidecar must be running beside the
// app containers. The phase itself is computed once, by reconcile/initContainers.ts, for decide and check alike.
import { initPhase } from '../reconcile/initContainers.js';
import type { ContainerVerdict, CheckInput } from './podCheck.js';

export interface InitCheck {
  /** Verdicts for init containers: the one the pod waits for, or the sidecars once the phase is over. */
  verdicts: ContainerVerdict[];
  /** While the phase runs: what every app container waits for. */
  waitingFor?: string;
  /** The init container the pod waits for is running normally (a --wait completed run spends no retries on it). */
  progressing: boolean;
}

export function checkInitContainers(input: CheckInput): InitCheck {
  const { plan, observed, syncErrors, now, previous, createdThisRun } = input;
  const none: InitCheck = { verdicts: [], progressing: false };
  if (plan.initContainers.length === 0) return none;
  const infra = observed.infra[0];
  const infraCurrent = infra !== undefined && infra.state === 'running' && infra.hash === plan.hash && infra.podUid === plan.uid;
  if (!infraCurrent) return none;

  const probeStarted = new Map<string, boolean>();
  for (const st of input.probes?.values() ?? []) probeStarted.set(st.instanceId, st.started);
  const phase = initPhase(plan, observed, { now, probeStarted });
  if (!phase.done && phase.block) {
    const b = phase.block;
    const progressing = b.instance?.state === 'running';
    const reason = syncErrors.get(b.name) ?? b.reason;
    const p = plan.initContainers.find((x) => x.name === b.name);
    const kind = p?.initKind === 'sidecar' ? 'sidecar' : 'init container';
    return {
      verdicts: [{ name: b.name, ok: false, terminal: b.terminal, healthyRunning: progressing, reason, ...(b.instance ? { instance: b.instance } : {}) }],
      waitingFor: `waiting for ${kind} ${b.name}`,
      progressing,
    };
  }

  // The phase is over: sidecars keep running beside the app containers (and count, as the kubelet counts them
  // in the pod's readiness).
  const verdicts: ContainerVerdict[] = [];
  for (const p of plan.initContainers) {
    if (p.initKind !== 'sidecar') continue;
    const c = observed.initContainers.get(p.name)?.[0];
    const base = { name: p.name, terminal: false, ...(c ? { instance: c } : {}) };
    const syncError = syncErrors.get(p.name);
    if (!c || c.hash !== p.hash) {
      verdicts.push({ ...base, ok: false, healthyRunning: false, reason: syncError ?? (c ? 'waiting for the sidecar to be replaced' : 'not created yet') });
      continue;
    }
    if (c.state === 'running') {
      const before = previous.get(c.id) ?? (createdThisRun.has(c.id) ? 0 : c.restartCount);
      if (before !== c.restartCount) {
        verdicts.push({ ...base, ok: false, healthyRunning: false, reason: `sidecar restarted since the previous check (restarts ${before} -> ${c.restartCount})` });
      } else {
        verdicts.push({ ...base, ok: true, healthyRunning: true, reason: 'sidecar running' });
      }
      continue;
    }
    const why =
      c.state === 'restarting'
        ? `crash loop: exited with code ${c.exitCode}, restarted ${c.restartCount} times`
        : c.state === 'exited' || c.state === 'dead'
          ? `exited with code ${c.exitCode}`
          : c.state;
    verdicts.push({ ...base, ok: false, healthyRunning: false, reason: syncError ?? `sidecar ${why}` });
  }
  return { verdicts, progressing: false };
}
