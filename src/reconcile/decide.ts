// decide: the pure step between observe and apply, after the kubelet's computePodActions: compare the plan
// with what the engine has and say what to do, each action with the reason a user reads. The answer is a typed
// set (the kubelet's podActions): what to remove, the sandbox, what to kill, resize in place, create and start,
// and apart from those the housekeeping that never decides whether the pod is in sync.
import { sameSpec } from '../kube/names.js';
import { resizeChange } from '../plan/resize.js';
import { restartCause, restartsAfterExit } from '../kube/restart.js';
import type { ObservedContainer, ObservedPod } from './observe.js';
import { type HistoryActions, historyActions, liveStates, retirable } from './history.js';
import { type InitOptions, firstInitAction, initHousekeeping, initPhase, restartAt } from './initContainers.js';
import { stalePodIP } from './podAddress.js';
import type { ContainerPlan, PodPlan } from '../plan/types.js';
import type { RemoveAction, CreateInfraAction, StartInfraAction, KillAction, ResizeAction, CreateAction, StartAction, RetireAction, Action } from './action.js';

/** Containers whose liveness (or startup) probe failed, by instance id: what the probe said, and the grace period. */
export type ProbeKills = ReadonlyMap<string, { reason: string; gracePeriodSeconds: number }>;

/** One sync's actions by kind, in the order apply carries them out (the kubelet's KillPod, then SyncPod's steps). */
export interface Decision {
  /** Instances to stop and remove: a replaced pod or container, an older one still live, one no longer declared. */
  remove: RemoveAction[];
  /** The sandbox to create, or the created one to start. */
  sandbox?: CreateInfraAction | StartInfraAction;
  /** Running instances whose liveness or startup probe failed: their restart policy brings them back. */
  kill: KillAction[];
  /** Instances kept whose resources changed under resizePolicy NotRequired: updated in place. */
  resize: ResizeAction[];
  create: CreateAction[];
  start: StartAction[];
  /**
   * Dead history made safe: retired, or removed when the engine marked it dead. Carried out every sync it is due,
   * its failure only warned of: it never blocks success nor costs a retry.
   */
  housekeeping: (RetireAction | RemoveAction)[];
  /** The infra instance app containers join, when it is kept; a createInfra action supplies it otherwise. */
  infraId?: string;
}

/** The sync's own actions in apply's order; an empty list means the pod is in sync. */
export function syncActions(d: Decision): Action[] {
  return [...d.remove, ...(d.sandbox ? [d.sandbox] : []), ...d.kill, ...d.resize, ...d.create, ...d.start];
}

/** Everything the decision asks for: the sync's actions, then housekeeping. */
export function allActions(d: Decision): Action[] {
  return [...syncActions(d), ...d.housekeeping];
}

function emptyDecision(): Decision {
  return { remove: [], kill: [], resize: [], create: [], start: [], housekeeping: [] };
}

/** File a sync action under its kind. */
function add(d: Decision, a: Action): void {
  switch (a.kind) {
    case 'remove':
      d.remove.push(a);
      break;
    case 'createInfra':
    case 'startInfra':
      d.sandbox = a;
      break;
    case 'kill':
      d.kill.push(a);
      break;
    case 'resize':
      d.resize.push(a);
      break;
    case 'create':
      d.create.push(a);
      break;
    case 'start':
      d.start.push(a);
      break;
    case 'retire':
      d.housekeeping.push(a);
      break;
  }
}

function tidy(d: Decision, a: Action): void {
  if (a.kind === 'retire' || a.kind === 'remove') d.housekeeping.push(a);
  else add(d, a);
}

/** A removal of a live instance is the sync's business; of a dead or exited one, housekeeping. */
function addRemoval(d: Decision, a: RemoveAction, state: string): void {
  if (liveStates.has(state)) add(d, a);
  else tidy(d, a);
}

function addHistory(d: Decision, h: HistoryActions): void {
  for (const a of h.sync) add(d, a);
  for (const a of h.housekeeping) tidy(d, a);
}

/** Is this action of the decision housekeeping (its failure a warning, never the pod's)? */
export function isHousekeeping(d: Decision, a: Action): boolean {
  return (d.housekeeping as readonly Action[]).includes(a);
}

/** An action's identity across syncs: the same kind, container, instance or attempt, and reason. */
export function actionKey(a: Action): string {
  return JSON.stringify(a);
}

/**
 * opts (initContainers.ts): `now` for the back-off before an exited (init) container is run again (none given: at
 * once), and what sidecars' startup probes say.
 */
export function decidePodActions(plan: PodPlan, observed: ObservedPod, kills: ProbeKills = new Map(), opts: InitOptions = {}): Decision {
  const d = emptyDecision();
  const infra = observed.infra[0];
  if (!infra) return replacePod(d, plan, observed, 'the pod does not exist');
  if (infra.hash !== plan.hash) return replacePod(d, plan, observed, `pod-level fields changed (hash ${infra.hash} -> ${plan.hash})`);
  if (infra.podUid !== plan.uid) return replacePod(d, plan, observed, `the pod's uid changed (${infra.podUid} -> ${plan.uid})`);
  if (infra.state === 'exited' || infra.state === 'dead' || infra.state === 'removing') {
    return replacePod(d, plan, observed, `the infra container is ${infra.state}, so the pod's namespaces are gone`);
  }
  d.infraId = infra.id;
  // Extra infra instances (left by an interrupted replacement) go; the newest stays.
  for (const extra of observed.infra.slice(1)) {
    addRemoval(d, { kind: 'remove', container: extra.name, id: extra.id, reason: `an older infra container of this pod (${extra.state})` }, extra.state);
  }
  if (infra.state === 'created') add(d, { kind: 'startInfra', id: infra.id, reason: 'the infra container was created but not started' });
  // Restarting (the engine's restart policy at work) or paused: no container can join it now; the engine decides
  // what follows, and the next sync sees it (an app container left in its old namespaces is replaced then).
  const joinable = infra.state === 'running' || infra.state === 'created';

  const wanted = new Set(plan.containers.map((c) => c.name));
  for (const [name, list] of observed.containers) {
    if (wanted.has(name)) continue;
    for (const c of list) addRemoval(d, { kind: 'remove', container: name, id: c.id, reason: 'the container is no longer in the manifest' }, c.state);
  }

  // Init containers first: no app container is created or started before every one has completed (sidecars:
  // started). Their history is kept tidy whatever the phase.
  addHistory(d, initHousekeeping(plan, observed));
  if (!joinable) return d;
  const init = initPhase(plan, observed, { ...opts, kills });
  for (const a of init.actions) add(d, a);
  if (!init.done) return d;

  for (const c of plan.containers) {
    const instances = observed.containers.get(c.name) ?? [];
    addHistory(d, historyActions(c.name, instances.slice(1), 'kept for logs --previous'));
    const newest = instances[0];
    if (!newest) add(d, { kind: 'create', container: c.name, attempt: 0, reason: 'the container does not exist' });
    else decideAppContainer(d, c, newest, { infra, kills, opts });
  }
  return d;
}

/**
 * A new sandbox means new namespaces: every container of the old one goes (the kubelet's KillPod), and every
 * container starts again in the new one. Init containers' records go with it: a new pod runs them all again
 * (Kubernetes: init containers run again when the pod restarts).
 */
function replacePod(d: Decision, plan: PodPlan, observed: ObservedPod, reason: string): Decision {
  const infra = observed.infra[0];
  for (const c of observed.infra) add(d, { kind: 'remove', container: c.name, id: c.id, reason });
  for (const list of [...observed.containers.values(), ...observed.initContainers.values()]) {
    for (const c of list) add(d, { kind: 'remove', container: c.name, id: c.id, reason });
  }
  add(d, { kind: 'createInfra', attempt: infra ? infra.attempt + 1 : 0, reason });
  // With init containers, the new sandbox starts with the first of them; the rest follow sync by sync.
  const first = firstInitAction(plan, observed, reason);
  if (first) {
    add(d, first);
    return d;
  }
  for (const c of plan.containers) {
    const next = (observed.containers.get(c.name)?.[0]?.attempt ?? -1) + 1;
    add(d, { kind: 'create', container: c.name, attempt: next, reason });
  }
  return d;
}

/** Replace an instance: remove it and create the next attempt, for one reason. */
function replaceInstance(d: Decision, c: ContainerPlan, newest: ObservedContainer, reason: string): void {
  add(d, { kind: 'remove', container: c.name, id: newest.id, reason });
  add(d, { kind: 'create', container: c.name, attempt: newest.attempt + 1, reason });
}

/** What decide knows of the pod when it looks at one app container. */
interface PodView {
  infra: ObservedContainer;
  kills: ProbeKills;
  opts: InitOptions;
}

/** One app container whose newest instance exists: keep, resize, kill, replace, start or restart it. */
function decideAppContainer(d: Decision, c: ContainerPlan, newest: ObservedContainer, pod: PodView): void {
  const next = newest.attempt + 1;
  if (!sameSpec(newest.hash, c)) {
    replaceInstance(d, c, newest, `its spec changed (hash ${newest.hash} -> ${c.hash})`);
    return;
  }
  // Resources a resizePolicy NotRequired leaves out of the hash: applied in place to the instance that stays
  // (Kubernetes in-place resize, resize.ts), or, where Docker's update cannot (a removed memory limit), replaced.
  if (newest.resources !== undefined && (liveStates.has(newest.state) || newest.state === 'created')) {
    const change = resizeChange(newest.resources, c.resources);
    if (change.kind === 'replace') {
      replaceInstance(d, c, newest, `${change.why}; resizePolicy NotRequired`);
      return;
    }
    if (change.kind === 'update')
      add(d, {
        kind: 'resize',
        container: c.name,
        id: newest.id,
        update: change.update,
        reason: `its resources changed (${change.what}); resizePolicy NotRequired applies them in place`,
      });
  }
  if (liveStates.has(newest.state)) {
    decideLive(d, c, newest, pod);
    return;
  }
  if (newest.state === 'created') {
    add(d, { kind: 'start', container: c.name, id: newest.id, reason: 'the container was created but not started' });
    return;
  }
  if (newest.state === 'removing' || newest.state === 'dead') {
    // Being removed, or a removal the engine could not finish: it will not run again, so a new instance takes
    // its place (a dead one is then removed as housekeeping, like any older dead instance).
    if (!restartsAfterExit(c.restart, newest.exitCode)) return;
    add(d, {
      kind: 'create',
      container: c.name,
      attempt: next,
      reason: `its instance (attempt ${newest.attempt}) is ${newest.state}; ${restartCause(c.restart, newest.exitCode)}`,
    });
    return;
  }
  // Exited, and not "restarting": Docker's restart manager marks a container it will restart as restarting during
  // its back-off, so an exited one with a restart policy was stopped by hand or could not be brought back. And
  // an exit that only a restartPolicyRules entry restarts: the engine's policy mirrors the container's
  // restartPolicy, so runpod makes the next attempt (kube/restart.ts), as the kubelet would restart it.
  if (!restartsAfterExit(c.restart, newest.exitCode)) return;
  // The kubelet's CrashLoopBackOff, on run-once's scale (initContainers.ts restartDelayMs): a container that
  // keeps exiting (a failing postStart hook kills it each time) is not replaced in a tight loop.
  if (restartAt(newest, pod.opts.now) !== undefined) return;
  // The kubelet's restart model: a new instance with the next attempt number; the dead one stays for
  // `logs --previous`, retired so the engine never brings it back.
  if (retirable(newest)) tidy(d, { kind: 'retire', container: c.name, id: newest.id, reason: `dead instance (attempt ${newest.attempt}) kept for logs --previous` });
  add(d, {
    kind: 'create',
    container: c.name,
    attempt: next,
    reason: `it exited (code ${newest.exitCode}) and the engine will not restart it; ${restartCause(c.restart, newest.exitCode)}`,
  });
}

/** A live instance: killed after a failed probe, or replaced when it is outside the pod's current sandbox. */
function decideLive(d: Decision, c: ContainerPlan, newest: ObservedContainer, { infra, kills }: PodView): void {
  // Kubernetes: "If the liveness probe fails, the kubelet kills the container, and the container is subjected
  // to its restart policy" (computePodActions: "failed liveness probe, will be restarted"). The engine's
  // restart policy, which mirrors restartPolicy, brings it back; under Never it stays down and the pod fails.
  const kill = newest.state === 'running' ? kills.get(newest.id) : undefined;
  if (kill) {
    add(d, { kind: 'kill', container: c.name, id: newest.id, gracePeriodSeconds: kill.gracePeriodSeconds, reason: kill.reason });
    return;
  }
  // Joined to an earlier life of the infra container: its network namespace is not the pod's any more.
  if (newest.state === 'running' && newest.startedAt !== undefined && infra.startedAt !== undefined && newest.startedAt < infra.startedAt) {
    replaceInstance(d, c, newest, "the infra container restarted after it, so it is outside the pod's namespaces");
    return;
  }
  // The engine brought the infra container back with another address (a restart of the engine, a reboot): a
  // value of status.podIP it was created with is stale, as a new sandbox's containers would have the new one.
  const stale = newest.state === 'running' && c.runtime === true ? stalePodIP(c.create.Env, newest.env, infra.ip) : undefined;
  if (stale !== undefined) {
    replaceInstance(d, c, newest, `the pod's IP is now ${infra.ip ?? ''} (the engine gave its infra container another address), and its ${stale} (status.podIP) holds the old one`);
  }
}
