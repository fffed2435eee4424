// Admission, pure: does a pod fit on the engine host, as the kubelet decides before it creates anything
// (pkg/kubelet/lifecycle/predicate.go, the NodeResourcesFit rule)? A pod's effective requests, against the host's
// CPUs and memory, less what the pods already there requested and what the pods before it in the same input
// take. A pod that does not fit fails with the kubelet's reason (OutOfcpu, OutOfmemory); limits are not admission.
import type { LoadedPod } from '../manifest/types.js';
import type { ContainerPlan, PodPlan, Resources } from './types.js';

const none = (): Resources => ({ milliCpu: 0, memoryBytes: 0 });
const plus = (a: Resources, b: Resources): Resources => ({ milliCpu: a.milliCpu + b.milliCpu, memoryBytes: a.memoryBytes + b.memoryBytes });
const max = (a: Resources, b: Resources): Resources => ({ milliCpu: Math.max(a.milliCpu, b.milliCpu), memoryBytes: Math.max(a.memoryBytes, b.memoryBytes) });

/**
 * The pod's effective requests (Kubernetes' PodRequests, with sidecars): the app containers' sum plus every
 * sidecar's, or, when larger, the largest regular init container's request plus the sidecars started before it
 * (https://kubernetes.io/docs/concepts/workloads/pods/init-containers/#resource-sharing-within-containers).
 * Each resource is taken on its own.
 */
export function podRequests(initContainers: readonly Pick<ContainerPlan, 'initKind' | 'requests'>[], containers: readonly Pick<ContainerPlan, 'requests'>[]): Resources {
  let running = containers.reduce((sum, c) => plus(sum, c.requests), none());
  let sidecars = none();
  let init = none();
  for (const c of initContainers) {
    if (c.initKind === 'sidecar') {
      running = plus(running, c.requests);
      sidecars = plus(sidecars, c.requests);
    } else {
      init = max(init, plus(c.requests, sidecars));
    }
  }
  return max(running, init);
}

export interface HostCapacity {
  cpus: number;
  memoryBytes: number;
}

export interface AdmissionInput {
  capacity: HostCapacity;
  /** What the pods already on the engine requested, by namespace/name (their live containers). */
  running: ReadonlyMap<string, Resources>;
}

function cpus(milli: number): string {
  const n = Number((milli / 1000).toFixed(3));
  return `${n} CPU${n === 1 ? '' : 's'}`;
}

/**
 * Bytes as a Kubernetes memory quantity, to the unit that keeps it short (Gi, Mi, Ki), as requests are written in a
 * manifest; report/tables.ts formatBytes is docker stats' form (GiB, MB) for measured usage.
 */
export function memoryQuantity(b: number): string {
  for (const [unit, size] of [
    ['Ti', 2 ** 40],
    ['Gi', 2 ** 30],
    ['Mi', 2 ** 20],
    ['Ki', 2 ** 10],
  ] as const) {
    if (b >= size) return `${Number((b / size).toFixed(2))}${unit}`;
  }
  return `${b}`;
}

/**
 * Admit the input's pods in their order: a pod already on the engine was admitted when it started and only
 * counts; a new one fits when, for each resource it requests (none requested always fits), the engine has room for
 * it beside everything counted so far. Returns the refusal of each pod that does not fit, by namespace/name.
 */
export function admitPods(plans: readonly PodPlan[], input: AdmissionInput): Map<string, string> {
  const refused = new Map<string, string>();
  let used = [...input.running.values()].reduce(plus, none());
  const capacity = { milliCpu: input.capacity.cpus * 1000, memoryBytes: input.capacity.memoryBytes };
  for (const plan of plans) {
    if (input.running.has(plan.uid)) continue;
    const req = plan.requests;
    if (req.milliCpu > 0 && used.milliCpu + req.milliCpu > capacity.milliCpu) {
      refused.set(plan.key, `OutOfcpu: requests ${cpus(req.milliCpu)}, the engine has ${cpus(capacity.milliCpu)}, ${cpus(used.milliCpu).replace(/ CPUs?$/, '')} already requested`);
      continue;
    }
    if (req.memoryBytes > 0 && used.memoryBytes + req.memoryBytes > capacity.memoryBytes) {
      refused.set(
        plan.key,
        `OutOfmemory: requests ${memoryQuantity(req.memoryBytes)} of memory, the engine has ${memoryQuantity(capacity.memoryBytes)}, ${memoryQuantity(used.memoryBytes)} already requested`,
      );
      continue;
    }
    used = plus(used, req);
  }
  return refused;
}

/**
 * Whether admission has anything to weigh for this pod: a container declares a cpu or memory request. Read from the
 * manifest, so the engine can be asked before the pods are planned; a pod that requests nothing always fits.
 */
export function declaresRequests(p: LoadedPod): boolean {
  return [...(p.pod.spec.initContainers ?? []), ...p.pod.spec.containers].some((c) => c.resources?.requests?.cpu !== undefined || c.resources?.requests?.memory !== undefined);
}
