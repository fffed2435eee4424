// decide: the pure step between observe and apply, after the kubelet's computePodActions: compare the plan
// with what the engine has and say what to do, each action with the reason a user reads.
import type { PodPlan } from '../plan/translate.js';
import type { ObservedContainer, ObservedPod } from './observe.js';
import { type InitOptions, firstInitAction, initHousekeeping, initPhase, restartAt } from './initContainers.js';

export type Action =
  /** Stop (within the grace period) and remove an instance. */
  | { kind: 'remove'; container: string; id: string; reason: string }
  /** Create and start a new infra instance. */
  | { kind: 'createInfra'; attempt: number; reason: string }
  | { kind: 'startInfra'; id: string; reason: string }
  /** Create and start a new instance of an app container. */
  | { kind: 'create'; container: string; attempt: number; reason: string }
  | { kind: 'start'; container: string; id: string; reason: string }
  /** Keep a dead instance for `logs --previous`, but make sure the engine never restarts it. */
  | { kind: 'retire'; container: string; id: string; reason: string }
  /** End the instance's process after a failed liveness or startup probe; its restart policy decides what follows. */
  | { kind: 'kill'; container: string; id: string; gracePeriodSeconds: number; reason: string };

/** Containers whose liveness (or startup) probe failed, by instance id: what the probe said, and the grace period. */
export type ProbeKills = ReadonlyMap<string, { reason: string; gracePeriodSeconds: number }>;

export interface Decision {
  actions: Action[];
  /** The infra instance app containers join, when it is kept; a createInfra action supplies it otherwise. */
  infraId?: string;
}

/** Engine states in which the engine itself keeps the container going: nothing for runpod to do. */
const liveStates = new Set(['running', 'restarting', 'paused']);

/**
 * Would the engine restart this exited instance by itself? Docker's restart manager puts a container it will
 * restart into "restarting" during its back-off, so an "exited" container with policy always was stopped by
 * hand; on-failure restarts only a non-zero exit.
 */
function engineWillRestart(c: ObservedContainer): boolean {
  return c.state === 'restarting';
}

/** Does the pod's restartPolicy want this exited container to run again? (Kubernetes restartPolicy rules.) */
function wantsRestart(plan: PodPlan, c: ObservedContainer): boolean {
  if (plan.restartPolicy === 'Always') return true;
  if (plan.restartPolicy === 'OnFailure') return c.exitCode !== 0;
  return false;
}

/**
 * opts (initContainers.ts): `now` for the back-off before an exited container is run again (none given: at once),
 * and what sidecars' startup probes say.
 */
export function decidePodActions(plan: PodPlan, observed: ObservedPod, kills: ProbeKills = new Map(), opts: InitOptions = {}): Decision {
  const actions: Action[] = [];
  const infra = observed.infra[0];
  const replacePod = (reason: string): Decision => {
    // A new sandbox means new namespaces: every container of the old one goes (the kubelet's KillPod), and
    // every container starts again in the new one.
    for (const c of observed.infra) actions.push({ kind: 'remove', container: c.name, id: c.id, reason });
    for (const list of observed.containers.values()) {
      for (const c of list) actions.push({ kind: 'remove', container: c.name, id: c.id, reason });
    }
    // Init containers' records go with the sandbox: a new pod runs them all again (Kubernetes: init containers
    // run again when the pod restarts).
    for (const list of observed.initContainers.values()) {
      for (const c of list) actions.push({ kind: 'remove', container: c.name, id: c.id, reason });
    }
    const attempt = infra ? infra.attempt + 1 : 0;
    actions.push({ kind: 'createInfra', attempt, reason: infra ? reason : 'the pod does not exist' });
    // With init containers, the new sandbox starts with the first of them; the rest follow sync by sync.
    const first = firstInitAction(plan, observed, infra ? reason : 'the pod does not exist');
    if (first) {
      actions.push(first);
      return { actions };
    }
    for (const c of plan.containers) {
      const next = (observed.containers.get(c.name)?.[0]?.attempt ?? -1) + 1;
      actions.push({ kind: 'create', container: c.name, attempt: next, reason: infra ? reason : 'the pod does not exist' });
    }
    return { actions };
  };

  if (!infra) return replacePod('the pod does not exist');
  if (infra.hash !== plan.hash) return replacePod(`pod-level fields changed (hash ${infra.hash} -> ${plan.hash})`);
  if (infra.podUid !== plan.uid) return replacePod(`the pod's uid changed (${infra.podUid} -> ${plan.uid})`);
  if (infra.state === 'exited' || infra.state === 'dead') {
    return replacePod(`the infra container is ${infra.state}, so the pod's namespaces are gone`);
  }
  // Extra infra instances (left by an interrupted replacement) go; the newest stays.
  for (const extra of observed.infra.slice(1)) {
    actions.push({ kind: 'remove', container: extra.name, id: extra.id, reason: 'an older infra container of this pod' });
  }
  if (infra.state === 'created') {
    actions.push({ kind: 'startInfra', id: infra.id, reason: 'the infra container was created but not started' });
  }

  const wanted = new Set(plan.containers.map((c) => c.name));
  for (const [name, list] of observed.containers) {
    if (wanted.has(name)) continue;
    for (const c of list) actions.push({ kind: 'remove', container: name, id: c.id, reason: 'the container is no longer in the manifest' });
  }

  // Init containers first: no app container is created or started before every one has completed (sidecars:
  // started). Their history is kept tidy whatever the phase.
  actions.push(...initHousekeeping(plan, observed));
  const init = initPhase(plan, observed, { ...opts, kills });
  actions.push(...init.actions);
  if (!init.done) return { actions, infraId: infra.id };

  for (const c of plan.containers) {
    const instances = observed.containers.get(c.name) ?? [];
    const newest = instances[0];
    const next = (newest?.attempt ?? -1) + 1;
    // Instances older than the newest are dead history; make sure none is ever restarted by the engine.
    for (const old of instances.slice(1)) {
      if (liveStates.has(old.state)) {
        actions.push({ kind: 'remove', container: c.name, id: old.id, reason: `an older instance (attempt ${old.attempt}) is still ${old.state}` });
      } else if (old.engineRestartPolicy !== 'no' && old.engineRestartPolicy !== '') {
        actions.push({ kind: 'retire', container: c.name, id: old.id, reason: `dead instance (attempt ${old.attempt}) kept for logs --previous` });
      }
    }
    if (!newest) {
      actions.push({ kind: 'create', container: c.name, attempt: 0, reason: 'the container does not exist' });
      continue;
    }
    if (newest.hash !== c.hash) {
      const reason = `its spec changed (hash ${newest.hash} -> ${c.hash})`;
      actions.push({ kind: 'remove', container: c.name, id: newest.id, reason });
      actions.push({ kind: 'create', container: c.name, attempt: next, reason });
      continue;
    }
    if (liveStates.has(newest.state)) {
      // Kubernetes: "If the liveness probe fails, the kubelet kills the container, and the container is subjected
      // to its restart policy" (computePodActions: "failed liveness probe, will be restarted"). The engine's
      // restart policy, which mirrors restartPolicy, brings it back; under Never it stays down and the pod fails.
      const kill = newest.state === 'running' ? kills.get(newest.id) : undefined;
      if (kill) {
        actions.push({ kind: 'kill', container: c.name, id: newest.id, gracePeriodSeconds: kill.gracePeriodSeconds, reason: kill.reason });
        continue;
      }
      // Joined to an earlier life of the infra container: its network namespace is not the pod's any more.
      if (newest.state === 'running' && newest.startedAt !== undefined && infra.startedAt !== undefined && newest.startedAt < infra.startedAt) {
        const reason = 'the infra container restarted after it, so it is outside the pod\'s namespaces';
        actions.push({ kind: 'remove', container: c.name, id: newest.id, reason });
        actions.push({ kind: 'create', container: c.name, attempt: next, reason });
      }
      continue;
    }
    if (newest.state === 'created') {
      actions.push({ kind: 'start', container: c.name, id: newest.id, reason: 'the container was created but not started' });
      continue;
    }
    if (newest.state === 'removing') continue;
    // exited or dead, and the engine will not restart it.
    if (engineWillRestart(newest) || !wantsRestart(plan, newest)) continue;
    // The kubelet's CrashLoopBackOff, on run-once's scale (initContainers.ts restartDelayMs): a container that
    // keeps exiting (a failing postStart hook kills it each time) is not replaced in a tight loop.
    if (restartAt(newest, opts.now) !== undefined) continue;
    // The kubelet's restart model: a new instance with the next attempt number; the dead one stays for
    // `logs --previous`, retired so the engine never brings it back.
    const reason = `it exited (code ${newest.exitCode}) and the engine will not restart it; restartPolicy ${plan.restartPolicy}`;
    if (newest.engineRestartPolicy !== 'no') actions.push({ kind: 'retire', container: c.name, id: newest.id, reason: `dead instance (attempt ${newest.attempt}) kept for logs --previous` });
    actions.push({ kind: 'create', container: c.name, attempt: next, reason });
  }
  return { actions, infraId: infra.id };
}
