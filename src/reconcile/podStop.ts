// One grace period per pod, as the kubelet's KillPod spends it: the app (and finished init) containers stop in
// parallel within terminationGracePeriodSeconds, preStop hooks included; then the sidecars, the last started
// first, each with what is left of the same budget but at least 2 s (the kubelet's minimumGracePeriodInSeconds);
// then the sandbox, likewise (https://kubernetes.io/docs/concepts/workloads/pods/sidecar-containers/,
// "Pod termination"). A grace period of 0 kills everything at once. Used wherever runpod stops a whole pod:
// `down`, --prune, a scoped run's teardown, a replaced sandbox.
import { minimumGraceAfterPreStopSeconds } from './hooks.js';

export type StopKind = 'app' | 'sidecar' | 'infra';

export interface StopTarget {
  kind: StopKind;
  /** When the instance was created (ms or s since the epoch, consistently): later sidecars stop first. */
  created: number;
}

/** The seconds a stage may take from the pod's budget, by the clock: what is left, at least the minimum. */
export function remainingGrace(graceSeconds: number, deadline: number, now: number): number {
  if (graceSeconds <= 0) return 0;
  return Math.max(minimumGraceAfterPreStopSeconds, Math.ceil((deadline - now) / 1000));
}

/**
 * Stop the targets in the kubelet's order, each given the seconds its stage may take (`stop` runs its preStop
 * and stop within them). Errors are `stop`'s to handle: a stage waits for every stop in it to settle.
 */
export async function stopInKillPodOrder<T extends StopTarget>(
  targets: readonly T[],
  graceSeconds: number,
  stop: (t: T, seconds: number) => Promise<void>,
  now: () => number = Date.now,
): Promise<void> {
  const deadline = now() + Math.max(0, graceSeconds) * 1000;
  const settle = (list: readonly T[], seconds: number): Promise<unknown> => Promise.allSettled(list.map((t) => stop(t, seconds)));
  const sidecars = targets.filter((t) => t.kind === 'sidecar').sort((a, b) => b.created - a.created);
  // Grace 0: no stage waits for another (each is a kill), so all of them are killed at once, in the same order.
  if (graceSeconds <= 0) {
    await settle([...targets.filter((t) => t.kind === 'app'), ...sidecars, ...targets.filter((t) => t.kind === 'infra')], 0);
    return;
  }
  await settle(
    targets.filter((t) => t.kind === 'app'),
    Math.max(0, graceSeconds),
  );
  for (const s of sidecars) await settle([s], remainingGrace(graceSeconds, deadline, now()));
  await settle(
    targets.filter((t) => t.kind === 'infra'),
    remainingGrace(graceSeconds, deadline, now()),
  );
}
