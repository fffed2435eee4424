// Pure: which finished Jobs' pods `runpod gc` removes for their ttlSecondsAfterFinished (the TTL-after-finished
// controller, pkg/controller/ttlafterfinished: a finished Job is deleted, with its pods, once ttl seconds have passed
// since it finished). runpod keeps no Job object, so the Job is its pods: it has finished when none of their app
// containers runs or is about to, and it finished when the last of them did (the engine's FinishedAt).

export interface TtlContainer {
  namespace: string;
  pod: string;
  /** The Job (job/<name>), from the owner label. */
  owner: string;
  /** The isolation key the container was made under, if any: a Job is one per key. */
  project?: string;
  /** ttlSecondsAfterFinished, from the label runpod puts on a Job's pods when it is > 0. */
  ttlSeconds: number;
  infra: boolean;
  state: string;
  /** Milliseconds since the epoch. */
  finishedAt?: number;
}

export interface ExpiredJob {
  namespace: string;
  owner: string;
  project?: string;
  pods: string[];
  reason: string;
}

/** The Jobs whose ttl has passed since they finished, with their pods. */
export function expiredJobs(containers: readonly TtlContainer[], now: number): ExpiredJob[] {
  const jobs = new Map<string, TtlContainer[]>();
  for (const c of containers) {
    const key = JSON.stringify([c.project ?? '', c.namespace, c.owner]);
    jobs.set(key, [...(jobs.get(key) ?? []), c]);
  }
  const out: ExpiredJob[] = [];
  for (const list of jobs.values()) {
    const apps = list.filter((c) => !c.infra);
    // Still running (or about to run, or being restarted): not finished, whatever its ttl.
    if (apps.length === 0 || apps.some((c) => c.state !== 'exited' && c.state !== 'dead')) continue;
    const ended = Math.max(...apps.map((c) => c.finishedAt ?? Number.POSITIVE_INFINITY));
    const ttl = Math.min(...list.map((c) => c.ttlSeconds));
    if (!Number.isFinite(ended) || now < ended + ttl * 1000) continue;
    const first = list[0]!;
    out.push({
      namespace: first.namespace,
      owner: first.owner,
      ...(first.project !== undefined ? { project: first.project } : {}),
      pods: [...new Set(list.map((c) => c.pod))].sort(),
      reason: `finished ${Math.round((now - ended) / 1000)}s ago, past its ttlSecondsAfterFinished ${ttl}`,
    });
  }
  return out.sort((a, b) => a.namespace.localeCompare(b.namespace) || a.owner.localeCompare(b.owner));
}
