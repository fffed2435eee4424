// A running container's values of the pod's own IP (status.podIP through the downward API), checked against the
// address the pod's infra container has now (pure). The plan holds a reference, resolved when the container is
// created (plan/runtime.ts): a new sandbox replaces every container anyway, but an engine restart brings the same
// infra container back with a new address, and the app containers with the old value. The kubelet makes a new
// sandbox after a node reboot, and so new containers with the new address: runpod replaces the stale ones.
import { runtimeRef } from '../plan/runtime.js';

const podIP = runtimeRef('status.podIP');

/**
 * The first environment variable of the planned container that holds the pod's IP (and no other engine-time value)
 * whose value in the running instance is not what it would be with the infra container's address now; undefined
 * when none is.
 */
export function stalePodIP(plannedEnv: readonly string[] | undefined, instanceEnv: readonly string[] | undefined, infraIP: string | undefined): string | undefined {
  if (plannedEnv === undefined || instanceEnv === undefined || infraIP === undefined || infraIP === '') return undefined;
  const now = new Map(instanceEnv.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
  for (const entry of plannedEnv) {
    if (!entry.includes(podIP)) continue;
    const name = entry.slice(0, entry.indexOf('='));
    const value = entry
      .slice(entry.indexOf('=') + 1)
      .split(podIP)
      .join(infraIP);
    // Another engine-time value beside it (the host's IP, the node's name) is not known here: left alone.
    if (value.includes('\u0000runpod:')) continue;
    const seen = now.get(name);
    if (seen !== undefined && seen !== value) return name;
  }
  return undefined;
}
