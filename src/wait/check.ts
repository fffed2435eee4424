// The run-once check, pure: does the pod meet the wait condition now? Each container gets a verdict and the
// one-line reason a CI log reader needs.
import { sameSpec } from '../kube/names.js';
import type { ObservedContainer, ObservedPod } from '../reconcile/observe.js';
import type { ContainerProbeStatus } from './probes/manager.js';
import { describeHandler } from '../kube/probes.js';
import { checkInitContainers } from './initCheck.js';
import { describeRestart, restartsAfterExit } from '../kube/restart.js';
import { type WaitStrategy, waitStrategy } from './strategies/index.js';
import type { PodPlan } from '../plan/types.js';
import type { CheckInput, PodCheck, ContainerVerdict, RestartCounts } from './podCheck.js';

export type { WaitMode } from './strategies/index.js';

function describeExit(c: ObservedContainer, lastExitCodes: ReadonlyMap<string, number>): string {
  const oom = c.oomKilled ? ', OOM-killed' : '';
  // A restarted container reads exit code 0 on the engine; the code it died with is remembered here.
  const code = c.exitCode !== 0 || c.state === 'exited' || c.state === 'dead' ? c.exitCode : (lastExitCodes.get(c.id) ?? c.exitCode);
  return `exited with code ${code}${oom}`;
}

/** Context for a container that has restarted: how often, and the code it last died with. */
function crashContext(c: ObservedContainer, lastExitCodes: ReadonlyMap<string, number>): string {
  return c.restartCount > 0 ? ` (restarted ${c.restartCount} times, last ${describeExit(c, lastExitCodes)})` : '';
}

/** The longest a restarted container's settle time grows to (Docker's restart backoff resets after 10 s up). */
export const maxCrashSettleMs = 10_000;

/**
 * The time a container must have been up to count as running: the settle time, doubled for each time the engine
 * restarted this instance (up to 10 s). Under load a container that crashes at once reads "running" for up to
 * 180 ms here (design.md), longer than the default 100 ms; two checks can both land inside one such start, with
 * the same restart count. A crash history asks for more proof, as Docker's own backoff doubles per restart; a
 * container that crashed once and then stays up still passes within a fraction of a second.
 */
export function settleFor(c: Pick<ObservedContainer, 'restartCount'>, settleMs: number): number {
  if (c.restartCount <= 0 || settleMs <= 0) return settleMs;
  return Math.max(settleMs, minCrashSettleMs, Math.min(maxCrashSettleMs, settleMs * 2 ** Math.min(c.restartCount, 16)));
}

/**
 * The least a restarted container must have been up. A busy engine (many networks and their iptables work) was
 * seen here reporting an instance that had already crashed as running for over 300 ms, across two checks with one
 * restart count; a second of proof after a restart outlasts that, and costs a container that crashed once and then
 * stays up only that second.
 */
export const minCrashSettleMs = 1_000;

export function checkPod(input: CheckInput): PodCheck {
  const { plan, observed, previous, createdThisRun, syncErrors, lastExitCodes, now, settleMs } = input;
  const wait = waitStrategy(input.mode);
  const killedNote = (c: ObservedContainer): string => {
    const why = input.probeKilled?.get(c.id);
    return why ? `; killed after ${why}` : '';
  };
  const verdicts: ContainerVerdict[] = [];
  let settleAt: number | undefined;
  const infra = observed.infra[0];
  // The infra container of this very pod (its hash and uid), and whether it is up for the containers to join.
  const infraOfPlan = infra !== undefined && infra.hash === plan.hash && infra.podUid === plan.uid;
  const infraCurrent = infraOfPlan && infra.state === 'running';
  const infraError = syncErrors.get(plan.infra.name);
  // Init containers first (initCheck.ts): app containers wait for them; one failed under Never fails the pod.
  const init = checkInitContainers(input);
  verdicts.push(...init.verdicts);

  for (const p of plan.containers) {
    const c = observed.containers.get(p.name)?.[0];
    const syncError = syncErrors.get(p.name) ?? infraError;
    const verdict = (ok: boolean, reason: string, extra: Partial<ContainerVerdict> = {}): void => {
      verdicts.push({ name: p.name, ok, terminal: false, healthyRunning: false, reason, ...(c ? { instance: c } : {}), ...extra });
    };
    if (init.waitingFor !== undefined) {
      verdict(false, syncErrors.get(p.name) ?? init.waitingFor, { healthyRunning: init.progressing });
      continue;
    }
    if (!c || !sameSpec(c.hash, p) || !infraCurrent) {
      verdict(false, syncError ?? (infraOfPlan && !infraCurrent ? `the infra container is ${infra.state}` : c ? 'waiting for the pod to be synced' : 'not created yet'));
      continue;
    }
    const restartsNow = c.restartCount;
    const restartsBefore = previous.get(c.id) ?? (createdThisRun.has(c.id) ? 0 : restartsNow);
    switch (c.state) {
      case 'running': {
        if (restartsNow !== restartsBefore) {
          verdict(false, `restarted since the previous check (restarts ${restartsBefore} -> ${restartsNow}, last ${describeExit(c, lastExitCodes)}${killedNote(c)})`);
          break;
        }
        const upFor = c.startedAt !== undefined ? now - c.startedAt : 0;
        const settle = settleFor(c, settleMs);
        if (upFor < settle) {
          const at = (c.startedAt ?? now) + settle;
          settleAt = settleAt === undefined ? at : Math.max(settleAt, at);
          verdict(false, `running for ${Math.max(0, upFor)}ms, less than the settle time${crashContext(c, lastExitCodes)}`, { healthyRunning: true });
          break;
        }
        const probeVerdict = probeReason(p, c, input.probes?.get(p.name), wait);
        if (probeVerdict !== undefined) verdict(false, probeVerdict);
        else {
          const r = wait.running(p);
          verdict(r.ok, r.reason, { healthyRunning: true });
        }
        break;
      }
      case 'exited':
      case 'dead': {
        // Final when neither the container's restartPolicy (else the pod's) nor a restartPolicyRules entry restarts
        // this exit (kube/restart.ts): Never leaves every exit final, OnFailure a zero exit.
        const final = !restartsAfterExit(p.restart, c.exitCode);
        if (final && c.exitCode === 0) verdict(true, 'completed (exit code 0)');
        // A sync error about this container (a FailedPostStartHook that killed it) says why it exited.
        else if (final)
          verdict(
            false,
            `${describeExit(c, lastExitCodes)}${killedNote(c)}${syncErrors.has(p.name) ? ` (${syncErrors.get(p.name)})` : ''} and ${describeRestart(p.restart, c.exitCode)}`,
            { terminal: true },
          );
        else verdict(false, syncError ?? describeExit(c, lastExitCodes));
        break;
      }
      case 'restarting':
        verdict(false, `crash loop: ${describeExit(c, lastExitCodes)}, restarted ${c.restartCount} times`);
        break;
      case 'created':
        verdict(false, syncError ?? (c.error ? `could not start: ${c.error}` : 'created, not started'));
        break;
      default:
        verdict(false, syncError ?? (c.state === 'removing' ? 'being removed by the engine' : c.state));
    }
  }
  const failed = verdicts.some((v) => v.terminal);
  const ok = !failed && verdicts.every((v) => v.ok);
  return { ok, failed, containers: verdicts, ...(settleAt !== undefined ? { settleAt } : {}) };
}

/**
 * Why a running, settled container does not pass on account of its probes, or undefined when it does. A liveness
 * or startup failure fails every wait (the container is being restarted). --wait ready needs Kubernetes'
 * ContainerStatus.ready: the startupProbe passed (Started) and the readinessProbe's result is Success; a
 * container without a readinessProbe is ready once started.
 */
function probeReason(p: PodPlan['containers'][number], c: ObservedContainer, status: ContainerProbeStatus | undefined, wait: WaitStrategy): string | undefined {
  if (!p.probes) return undefined;
  const current = status !== undefined && status.instanceId === c.id && status.startedAt === c.startedAt ? status : undefined;
  if (current?.kill) {
    const spec = p.probes[current.kill.kind];
    return `${current.kill.kind} probe (${spec ? describeHandler(spec.handler) : '?'}) failed: ${current.kill.output}; restarting it`;
  }
  if (!wait.needsReadiness) return undefined;
  if (!current) return 'running; its probes have not run yet';
  const said = (kind: 'startup' | 'readiness'): string => {
    const spec = p.probes?.[kind];
    const last = current.last[kind];
    const what = `${kind} probe (${spec ? describeHandler(spec.handler) : '?'})`;
    if (!last) return `${what} has not run yet`;
    return last.ok ? `${what} has not passed successThreshold yet: ${last.output}` : `${what} failed: ${last.output}`;
  };
  if (!current.started) return `not started: ${said('startup')}`;
  if (!current.ready) return `not ready: ${said('readiness')}`;
  return undefined;
}

/** The restart counts to compare against at the next check. */
export function restartCountsOf(observed: ObservedPod): RestartCounts {
  const counts: RestartCounts = new Map();
  for (const list of observed.containers.values()) for (const c of list) counts.set(c.id, c.restartCount);
  for (const list of observed.initContainers.values()) for (const c of list) counts.set(c.id, c.restartCount);
  return counts;
}
