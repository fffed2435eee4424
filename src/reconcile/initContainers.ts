// Init containers, pure: where a pod stands in its init phase and the one next step, after the kubelet's
// computeInitContainerActions (pkg/kubelet/kuberuntime). decide takes the actions; the run-once check takes the
// account ("waiting for init container X", or a failure that ends the run). Rules followed:
//  - init containers run one at a time, in order, each to exit 0, before any app container starts
//    (https://kubernetes.io/docs/concepts/workloads/pods/init-containers/);
//  - a failed init container is restarted unless restartPolicy is Never, in which case the pod has failed;
//  - a sidecar (restartPolicy Always on an init container) must be started — running, and past its startupProbe
//    if it has one — before the next init container, and keeps running beside the app containers
//    (https://kubernetes.io/docs/concepts/workloads/pods/sidecar-containers/);
//  - once an app container has run, the init phase is over: a lost init record (a dead instance removed by
//    `runpod gc`) does not run it again, as the kubelet treats a pod whose main containers ran as initialized;
//    only a new sandbox (the pod replaced) runs the init containers again.
import type { ObservedContainer, ObservedPod } from './observe.js';
import { type HistoryActions, historyActions, liveStates } from './history.js';
import { type ContainerRestart, describeRestart, matchingRule, type RestartPolicy, restartCause, restartsAfterExit } from '../kube/restart.js';
import type { ContainerPlan, PodPlan } from '../plan/types.js';
import type { Action } from './action.js';

export interface InitOptions {
  /** Now, ms since the epoch: a failed init container is restarted only after its back-off (restartDelayMs). */
  now?: number;
  /** By instance id: false while a sidecar's startupProbe has not passed. No entry: nothing known, not held. */
  probeStarted?: ReadonlyMap<string, boolean>;
  /** By instance id: a sidecar whose startupProbe failed past its threshold is killed, and its policy restarts it. */
  kills?: ReadonlyMap<string, { reason: string; gracePeriodSeconds: number }>;
}

export interface InitBlock {
  /** The init container the pod waits for. */
  name: string;
  /** The one line a user reads: "waiting for init container migrate (running)". */
  reason: string;
  /** It failed and will not be run again (restartPolicy Never): the pod has failed. */
  terminal: boolean;
  instance?: ObservedContainer;
}

export interface InitPhase {
  /** Every init container has completed (sidecars: started), or the app containers have already run. */
  done: boolean;
  /** What the pod waits for while not done. */
  block?: InitBlock;
  /** The next step(s): at most one init container is created or started per sync. */
  actions: Action[];
}

/**
 * The delay before an exited container is run again, by the attempt that exited: the kubelet's CrashLoopBackOff
 * (first restart at once, then 10 s doubling to 5 min) on run-once's own scale (1 s doubling, at most 30 s, the
 * --retry-delay and --max-delay defaults), so a failing init container is retried within the run's budget
 * without a tight loop of new instances.
 */
export function restartDelayMs(attempt: number): number {
  if (attempt <= 0) return 0;
  return Math.min(1000 * 2 ** (attempt - 1), 30_000);
}

/** When an exited instance may be replaced: undefined means now (or no clock given). */
export function restartAt(c: ObservedContainer, now: number | undefined): number | undefined {
  if (now === undefined || c.finishedAt === undefined) return undefined;
  const at = c.finishedAt + restartDelayMs(c.attempt);
  return at > now ? at : undefined;
}

/** Has any app container of the pod run (an instance that was ever started)? Then the init phase is over. */
export function appContainersRan(observed: ObservedPod): boolean {
  for (const list of observed.containers.values()) {
    for (const c of list) if (c.startedAt !== undefined || liveStates.has(c.state)) return true;
  }
  return false;
}

function sidecarStarted(p: ContainerPlan, c: ObservedContainer, opts: InitOptions): boolean {
  if (c.state !== 'running') return false;
  if (p.probes?.startup === undefined) return true;
  return opts.probeStarted?.get(c.id) !== false;
}

/**
 * Every init container's history (older instances never run again), and init containers no longer in the
 * manifest: removed. Returned separately: it is done whatever the phase.
 */
export function initHousekeeping(plan: PodPlan, observed: ObservedPod): HistoryActions {
  const out: HistoryActions = { sync: [], housekeeping: [] };
  const wanted = new Set(plan.initContainers.map((c) => c.name));
  for (const [name, list] of observed.initContainers) {
    if (!wanted.has(name)) {
      for (const c of list)
        (liveStates.has(c.state) ? out.sync : out.housekeeping).push({ kind: 'remove', container: name, id: c.id, reason: 'the init container is no longer in the manifest' });
      continue;
    }
    const history = historyActions(name, list.slice(1), 'kept as the init record');
    out.sync.push(...history.sync);
    out.housekeeping.push(...history.housekeeping);
  }
  return out;
}

/**
 * Where the pod stands in its init phase, with the step to take. Assumes the sandbox is current and running
 * (decide replaces the pod first otherwise).
 */
export function initPhase(plan: PodPlan, observed: ObservedPod, opts: InitOptions = {}): InitPhase {
  const step: InitStep = { plan, opts, ran: appContainersRan(observed), actions: [] };
  for (const p of plan.initContainers) {
    const instances = observed.initContainers.get(p.name) ?? [];
    const block = p.initKind === 'sidecar' ? sidecarStep(step, p, instances[0]) : initContainerStep(step, p, instances[0]);
    if (block !== undefined) return { done: false, block, actions: step.actions };
  }
  return { done: true, actions: step.actions };
}

/** What each init container's step shares: the pod, whether its app containers have run, and the actions so far. */
interface InitStep {
  plan: PodPlan;
  opts: InitOptions;
  ran: boolean;
  actions: Action[];
}

function blocked(name: string, reason: string, instance?: ObservedContainer, terminal = false): InitBlock {
  return { name, reason, terminal, ...(instance ? { instance } : {}) };
}

/**
 * A sidecar runs for the pod's life; once the app containers have run it is kept going like them, and until then it
 * must be started before the next init container. What the pod waits for, or undefined to go on to the next.
 */
function sidecarStep({ actions, opts, ran }: InitStep, p: ContainerPlan, newest: ObservedContainer | undefined): InitBlock | undefined {
  const next = (newest?.attempt ?? -1) + 1;
  const what = `sidecar ${p.name}`;
  const hold = !ran;
  if (!newest) {
    actions.push({ kind: 'create', container: p.name, attempt: 0, reason: `${what} does not exist` });
    if (hold) return blocked(p.name, `waiting for ${what} to start (creating it)`);
    return undefined;
  }
  if (newest.hash !== p.hash) {
    const reason = `its spec changed (hash ${newest.hash} -> ${p.hash})`;
    actions.push({ kind: 'remove', container: p.name, id: newest.id, reason });
    actions.push({ kind: 'create', container: p.name, attempt: next, reason });
    if (hold) return blocked(p.name, `waiting for ${what} to start (replacing it: ${reason})`, newest);
    return undefined;
  }
  if (newest.state === 'created') {
    actions.push({ kind: 'start', container: p.name, id: newest.id, reason: `${what} was created but not started` });
    if (hold) return blocked(p.name, `waiting for ${what} to start`, newest);
    return undefined;
  }
  if (newest.state === 'exited' || newest.state === 'dead') {
    // Stopped by hand, so the engine will not bring it back: a new instance, after the back-off.
    const at = restartAt(newest, opts.now);
    if (at === undefined) {
      const reason = `${what} exited (code ${newest.exitCode}) and the engine will not restart it; a sidecar always restarts`;
      actions.push({ kind: 'create', container: p.name, attempt: next, reason });
    }
    if (hold)
      return blocked(
        p.name,
        `waiting for ${what} to start (it exited with code ${newest.exitCode}${at !== undefined ? `; restarting in ${Math.ceil((at - (opts.now ?? 0)) / 1000)}s` : ''})`,
        newest,
      );
    return undefined;
  }
  const kill = newest.state === 'running' ? opts.kills?.get(newest.id) : undefined;
  if (kill) {
    // "If the startup probe fails, the kubelet kills the container, and the container is subjected to its
    // restart policy": a sidecar's is always.
    actions.push({ kind: 'kill', container: p.name, id: newest.id, gracePeriodSeconds: kill.gracePeriodSeconds, reason: kill.reason });
    if (hold) return blocked(p.name, `waiting for ${what} to start: ${kill.reason}; restarting it`, newest);
    return undefined;
  }
  if (hold && !sidecarStarted(p, newest, opts)) {
    const why =
      newest.state === 'running'
        ? 'its startupProbe has not passed yet'
        : newest.state === 'restarting'
          ? `it is restarting (exited with code ${newest.exitCode}, restarted ${newest.restartCount} times)`
          : newest.state;
    return blocked(p.name, `waiting for ${what} to start: ${why}`, newest);
  }
  return undefined;
}

/** A regular init container: what the pod waits for, or undefined when it has completed. */
function initContainerStep({ actions, opts, ran, plan }: InitStep, p: ContainerPlan, newest: ObservedContainer | undefined): InitBlock | undefined {
  const next = (newest?.attempt ?? -1) + 1;
  const what = `init container ${p.name}`;
  // A regular init container: once the app containers have run it is done, whatever its record says.
  if (ran) return undefined;
  if (!newest) {
    actions.push({ kind: 'create', container: p.name, attempt: 0, reason: `${what} has not run yet` });
    return blocked(p.name, `waiting for ${what} (starting it)`);
  }
  if (newest.hash !== p.hash) {
    // Cannot normally happen (the pod hash covers regular init containers), but an interrupted replacement may
    // leave one behind: it must run again as specified now.
    if (liveStates.has(newest.state)) actions.push({ kind: 'remove', container: p.name, id: newest.id, reason: `its spec changed (hash ${newest.hash} -> ${p.hash})` });
    actions.push({ kind: 'create', container: p.name, attempt: next, reason: `its spec changed (hash ${newest.hash} -> ${p.hash})` });
    return blocked(p.name, `waiting for ${what} (its spec changed)`, newest);
  }
  switch (newest.state) {
    case 'running':
    case 'restarting':
    case 'paused':
      return blocked(p.name, `waiting for ${what} (${newest.state})`, newest);
    case 'created':
      actions.push({ kind: 'start', container: p.name, id: newest.id, reason: `${what} was created but not started` });
      return blocked(p.name, `waiting for ${what} (starting it)`, newest);
    case 'removing':
      return blocked(p.name, `waiting for ${what} (being removed)`, newest);
    default: {
      if (newest.exitCode === 0) return undefined; // completed: the next one
      // exited or dead with a failure.
      if (!restartsAfterExit(p.restart, newest.exitCode)) {
        // "If the Pod's restartPolicy is set to Never, and an init container fails during startup of that Pod,
        // Kubernetes treats the overall Pod as failed."
        return blocked(
          p.name,
          `${what} exited with code ${newest.exitCode}${newest.oomKilled ? ', OOM-killed' : ''} and ${describeRestart(p.restart, newest.exitCode)}`,
          newest,
          true,
        );
      }
      const at = restartAt(newest, opts.now);
      if (at !== undefined) {
        return blocked(
          p.name,
          `${what} exited with code ${newest.exitCode}${newest.oomKilled ? ', OOM-killed' : ''} (attempt ${newest.attempt}); back-off, restarting in ${Math.ceil((at - (opts.now ?? 0)) / 1000)}s`,
          newest,
        );
      }
      actions.push({
        kind: 'create',
        container: p.name,
        attempt: next,
        reason: `${what} exited with code ${newest.exitCode}; ${restartedBy(p.restart, plan.restartPolicy, newest.exitCode)} runs it again`,
      });
      return blocked(p.name, `${what} exited with code ${newest.exitCode}${newest.oomKilled ? ', OOM-killed' : ''} (attempt ${newest.attempt}); running it again`, newest);
    }
  }
}

/**
 * What runs a failed init container again, in words: a rule of its own (Kubernetes 1.34), else the pod's restartPolicy
 * (Always or OnFailure), else, under the pod's Never, its own restartPolicy OnFailure.
 */
function restartedBy(r: ContainerRestart, podPolicy: RestartPolicy, exitCode: number): string {
  if (matchingRule(r.rules, exitCode) !== undefined) return restartCause(r, exitCode);
  return podPolicy === 'Never' ? `its own restartPolicy ${r.policy}` : `restartPolicy ${podPolicy}`;
}

/** The first step of a new sandbox: its first init container (or, without any, nothing here). */
export function firstInitAction(plan: PodPlan, observed: ObservedPod, reason: string): Action | undefined {
  const first = plan.initContainers[0];
  if (!first) return undefined;
  const attempt = (observed.initContainers.get(first.name)?.[0]?.attempt ?? -1) + 1;
  return { kind: 'create', container: first.name, attempt, reason };
}
