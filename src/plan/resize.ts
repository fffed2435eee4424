// A container's resizePolicy (Kubernetes "Resize CPU and Memory Resources assigned to Containers", in-place pod
// resize, InPlacePodVerticalScaling): per resource (cpu, memory), NotRequired (the default) applies a change of
// its resources to the running container, RestartContainer restarts the container to apply it. On one host the
// engine can do the first: POST /containers/{id}/update (`docker update`) sets the cgroup limits of a running
// container. So the resources a NotRequired policy covers are left out of the container's hash (a change does not
// replace it), and decide compares them with what the engine reports (inspect's HostConfig, the record of what is
// applied: labels cannot change after creation) and asks for an update. Pure.
import type { CreateOptions, ResourceUpdate } from '../engine/ports/containers.js';

export type ResizeRestart = 'NotRequired' | 'RestartContainer';

export interface ResizePolicy {
  cpu: ResizeRestart;
  memory: ResizeRestart;
}

/** The cgroup settings runpod sets from resources (translate.ts resourceLimits), as the engine reports them. */
export interface EngineResources {
  /** Memory limit in bytes; 0: none. */
  memory: number;
  /** Memory request (soft reservation) in bytes; 0: none. */
  memoryReservation: number;
  /** CFS quota in µs per period; 0: no cpu limit (the engine's -1 and 0 both read as 0). */
  cpuQuota: number;
  /** CFS period in µs; 0 when there is no cpu limit. */
  cpuPeriod: number;
  cpuShares: number;
}

type HostConfig = NonNullable<CreateOptions['HostConfig']>;

/** resizePolicy as written (validation checked it); a resource not listed is NotRequired (the API default). */
export function resizePolicyOf(raw: unknown): ResizePolicy {
  const out: ResizePolicy = { cpu: 'NotRequired', memory: 'NotRequired' };
  if (!Array.isArray(raw)) return out;
  for (const entry of raw) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { resourceName, restartPolicy } = entry as { resourceName?: unknown; restartPolicy?: unknown };
    if ((resourceName === 'cpu' || resourceName === 'memory') && restartPolicy === 'RestartContainer') out[resourceName] = 'RestartContainer';
  }
  return out;
}

/** The HostConfig keys of each resource. */
const keysOf = {
  cpu: ['CpuPeriod', 'CpuQuota', 'CpuShares'],
  memory: ['Memory', 'MemoryReservation'],
} as const;

/** Create options without the resources that a NotRequired policy lets change in place: what the hash covers. */
export function hashedCreate(create: CreateOptions, policy: ResizePolicy): CreateOptions {
  const host: Record<string, unknown> = { ...create.HostConfig };
  for (const resource of ['cpu', 'memory'] as const) {
    if (policy[resource] === 'NotRequired') for (const k of keysOf[resource]) delete host[k];
  }
  return { ...create, HostConfig: host as HostConfig };
}

/** What a HostConfig (planned, or inspected) sets, normalized so the two compare. */
export function engineResources(h: Partial<Record<'Memory' | 'MemoryReservation' | 'CpuQuota' | 'CpuPeriod' | 'CpuShares', number | undefined>> | undefined): EngineResources {
  const quota = h?.CpuQuota ?? 0;
  return {
    memory: Math.max(0, h?.Memory ?? 0),
    memoryReservation: Math.max(0, h?.MemoryReservation ?? 0),
    cpuQuota: Math.max(quota, 0),
    cpuPeriod: quota > 0 ? (h?.CpuPeriod ?? 0) : 0,
    cpuShares: h?.CpuShares ?? 0,
  };
}

export type ResizeChange = { kind: 'none' } | { kind: 'update'; update: ResourceUpdate; what: string } | { kind: 'replace'; why: string };

/**
 * How the applied resources become the planned ones. Docker's update leaves a zero untouched, so a memory limit
 * or request cannot be removed in place: such a change replaces the container (as RestartContainer would). A cpu
 * limit is removed with CpuQuota -1 (no CFS quota). A memory limit is sent with MemorySwap twice it, what Docker
 * gives a container created with a memory limit and no swap setting (it refuses a limit above the current swap).
 */
export function resizeChange(applied: EngineResources, planned: EngineResources): ResizeChange {
  const update: ResourceUpdate = {};
  const what: string[] = [];
  const cpuLimitChanged = applied.cpuQuota !== planned.cpuQuota || applied.cpuPeriod !== planned.cpuPeriod;
  if (cpuLimitChanged) {
    if (planned.cpuQuota === 0) update.CpuQuota = -1;
    else {
      update.CpuQuota = planned.cpuQuota;
      update.CpuPeriod = planned.cpuPeriod;
    }
    what.push(`cpu limit ${cpuText(applied)} -> ${cpuText(planned)}`);
  }
  if (applied.cpuShares !== planned.cpuShares) {
    update.CpuShares = planned.cpuShares;
    what.push(`cpu shares ${applied.cpuShares} -> ${planned.cpuShares}`);
  }
  if (applied.memory !== planned.memory) {
    if (planned.memory === 0) return { kind: 'replace', why: `its memory limit was removed (${bytesText(applied.memory)} -> none), which Docker's update cannot do in place` };
    update.Memory = planned.memory;
    update.MemorySwap = planned.memory * 2;
    what.push(`memory limit ${bytesText(applied.memory)} -> ${bytesText(planned.memory)}`);
  }
  if (applied.memoryReservation !== planned.memoryReservation) {
    if (planned.memoryReservation === 0)
      return { kind: 'replace', why: `its memory request was removed (${bytesText(applied.memoryReservation)} -> none), which Docker's update cannot do in place` };
    update.MemoryReservation = planned.memoryReservation;
    what.push(`memory request ${bytesText(applied.memoryReservation)} -> ${bytesText(planned.memoryReservation)}`);
  }
  return what.length === 0 ? { kind: 'none' } : { kind: 'update', update, what: what.join(', ') };
}

function cpuText(r: EngineResources): string {
  return r.cpuQuota === 0 ? 'none' : `${Math.round((r.cpuQuota * 1000) / r.cpuPeriod)}m`;
}

function bytesText(n: number): string {
  if (n === 0) return 'none';
  const mi = n / 1024 ** 2;
  return Number.isInteger(mi) ? `${mi}Mi` : `${n} bytes`;
}
