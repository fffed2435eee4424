// The controllers' order of work, as pure steps: which pods to bring up (and wait for) and which to remove next,
// from what exists now. The runner (agent/runWorkload.ts) carries each step out with the run-once loop and asks again.
import type { WorkloadPlan } from './expand.js';

/** One step: bring these pods to the template and wait until they are ready, or remove these, or nothing is left. */
export type Step = { sync: string[]; reason: string } | { remove: string[]; reason: string } | { done: true; leftAlone: string[] };

export interface RollingState {
  /** The pods the template wants, in order. */
  desired: readonly string[];
  /** The workload's other pods still there (an older template, or beyond replicas). */
  old: readonly string[];
  /** Desired pods known ready in this run. */
  ready: ReadonlySet<string>;
  /** Desired pods already on the engine when the run began. */
  present: ReadonlySet<string>;
  /** Of those, the ones on an older spec under the same name (a changed ConfigMap value): changed where they stand. */
  outdated: ReadonlySet<string>;
}

/**
 * A Deployment's (and a DaemonSet's) rolling update, as the Deployment controller bounds it: never more pods than
 * replicas + maxSurge, never fewer available than replicas - maxUnavailable (old pods count as available; new ones
 * once ready). Pods already there are waited for first; new ones come when there is room; old ones go as soon as
 * enough new ones are ready (pkg/controller/deployment/rolling.go: reconcileNewReplicaSet, reconcileOldReplicaSets);
 * a pod changed under its own name is unavailable while it changes, so at most maxUnavailable (or 1) at a time.
 */
export function rollingStep(replicas: number, maxSurge: number, maxUnavailable: number, s: RollingState): Step {
  const pending = s.desired.filter((n) => !s.ready.has(n));
  const waitFor = pending.filter((n) => s.present.has(n) && !s.outdated.has(n));
  if (waitFor.length > 0) return { sync: waitFor, reason: 'already there: waiting until ready' };
  const counted = s.desired.filter((n) => s.ready.has(n) || s.present.has(n)).length;
  const absent = pending.filter((n) => !s.present.has(n));
  const room = replicas + maxSurge - s.old.length - counted;
  if (absent.length > 0 && room > 0) {
    return { sync: absent.slice(0, room), reason: `${Math.min(room, absent.length)} new of ${replicas} (at most ${replicas + maxSurge} pods at once)` };
  }
  const readyNew = s.desired.length - pending.length;
  const removable = Math.min(s.old.length, readyNew + s.old.length - (replicas - maxUnavailable));
  if (removable > 0) return { remove: s.old.slice(0, removable), reason: `${readyNew} new ready (at least ${Math.max(0, replicas - maxUnavailable)} available at all times)` };
  const inPlace = pending.filter((n) => s.outdated.has(n));
  if (inPlace.length > 0)
    return { sync: inPlace.slice(0, Math.max(1, maxUnavailable)), reason: `changed where it stands, at most ${Math.max(1, maxUnavailable)} at a time (maxUnavailable)` };
  if (pending.length === 0 && s.old.length === 0) return { done: true, leftAlone: [] };
  // Both bounds at zero cannot happen (resolveFenceposts makes maxUnavailable 1); say so rather than spin.
  return { done: true, leftAlone: [...s.old] };
}

/** Recreate: every old pod goes first, then the new ones come up together. */
export function recreateStep(s: RollingState): Step {
  if (s.old.length > 0) return { remove: [...s.old], reason: 'Recreate: the old pods go before the new ones come' };
  const pending = s.desired.filter((n) => !s.ready.has(n));
  return pending.length > 0 ? { sync: pending, reason: 'Recreate: the new pods' } : { done: true, leftAlone: [] };
}

export interface ExistingPod {
  name: string;
  /** A StatefulSet pod's ordinal. */
  ordinal?: number;
  /** It exists, and its template is not the current one (the run-once loop would change it). */
  outdated: boolean;
}

/** What a StatefulSet does, in order (pkg/controller/statefulset/stateful_set_control.go). */
export interface StatefulOrder {
  /** Pods to bring up in ordinal order: missing ones made, up-to-date ones waited for. One at a time under OrderedReady. */
  bringUp: string[];
  /** Outdated pods at or above the partition, updated one at a time, highest ordinal first (RollingUpdate). */
  update: string[];
  /** Outdated pods left as they are: below the partition, or OnDelete. */
  leftAlone: string[];
  /** Pods beyond replicas, highest ordinal first (one at a time under OrderedReady). */
  remove: string[];
}

export function statefulOrder(plan: WorkloadPlan, existing: readonly ExistingPod[]): StatefulOrder {
  const byName = new Map(existing.map((e) => [e.name, e]));
  const wanted = new Set(plan.pods.map((p) => p.name));
  const ordinalOf = (name: string): number => plan.pods.find((p) => p.name === name)?.ordinal ?? byName.get(name)?.ordinal ?? 0;
  const partition = plan.update.type === 'OrderedRollingUpdate' ? plan.update.partition : Number.POSITIVE_INFINITY;
  const outdated = plan.pods.filter((p) => byName.get(p.name)?.outdated === true);
  const update = outdated
    .filter((p) => (p.ordinal ?? 0) >= partition)
    .map((p) => p.name)
    .reverse();
  const leftAlone = outdated.filter((p) => (p.ordinal ?? 0) < partition).map((p) => p.name);
  const bringUp = plan.pods.filter((p) => byName.get(p.name)?.outdated !== true).map((p) => p.name);
  const remove = existing
    .filter((e) => !wanted.has(e.name))
    .map((e) => e.name)
    .sort((a, b) => ordinalOf(b) - ordinalOf(a));
  return { bringUp, update, leftAlone, remove };
}
