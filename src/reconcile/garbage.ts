// What `runpod gc` looks at on the engine, read into the inputs of its pure rules: the dead containers and pod
// volumes (gcPolicy.ts), the finished Jobs past their ttlSecondsAfterFinished (jobTtl.ts), the claim volumes no
// pod uses (claims.ts), and the Services' helpers left behind. Only what carries runpod's labels is listed.
import type { ContainerInspect, ContainerLifecycle, ContainerReader, ContainerSummary } from '../engine/ports/containers.js';
import type { VolumePort } from '../engine/ports/volumes.js';
import { Label, infraContainerName, managedSelector } from '../kube/labels.js';
import { Role, ServiceLabel } from '../kube/serviceNames.js';
import { claimUsers, listClaimVolumes, type UnusedClaim, unusedClaims } from './claims.js';
import { type GcContainer, type GcPlan, type GcPolicy, type GcVolume, planGc } from './gcPolicy.js';
import { expiredJobs, type ExpiredJob, type TtlContainer } from './jobTtl.js';

function toGcContainer(info: ContainerInspect): GcContainer {
  const l = info.Config.Labels ?? {};
  const created = Date.parse(info.Created);
  return {
    id: info.Id,
    dockerName: info.Name.replace(/^\//, ''),
    namespace: l[Label.podNamespace] ?? '',
    pod: l[Label.podName] ?? '',
    podUid: l[Label.podUid] ?? '',
    container: l[Label.containerName] ?? '',
    infra: l[Label.containerName] === infraContainerName,
    attempt: Number(l[Label.restartCount] ?? 0) || 0,
    state: info.State.Status,
    createdAt: Number.isNaN(created) ? 0 : created,
  };
}

export async function collectGarbage(engine: ContainerReader & VolumePort, policy: GcPolicy, now: number): Promise<GcPlan> {
  const [summaries, volumes] = await Promise.all([engine.listContainers([managedSelector]), engine.listVolumes([managedSelector])]);
  const inspected = (await Promise.all(summaries.map((s) => engine.inspectContainer(s.id)))).filter((i): i is ContainerInspect => i !== undefined);
  // A volume belongs to a pod by its uid label; one without (a claim that outlives pods) is never collected.
  const gcVolumes: GcVolume[] = volumes.map((v) => {
    const created = v.createdAt ? Date.parse(v.createdAt) : NaN;
    const uid = v.labels[Label.podUid];
    const ns = v.labels[Label.podNamespace];
    const pod = v.labels[Label.podName];
    return { name: v.name, ...(uid ? { podUid: uid } : {}), ...(ns ? { namespace: ns } : {}), ...(pod ? { pod } : {}), ...(Number.isNaN(created) ? {} : { createdAt: created }) };
  });
  return planGc(inspected.map(toGcContainer), gcVolumes, policy, now);
}

/** The claim volumes (of every key) no runpod container uses, old enough and in no key and namespace a run is busy in. */
export async function findUnusedClaims(engine: ContainerReader & VolumePort, now: number, minAgeMs: number): Promise<UnusedClaim[]> {
  const volumes = await listClaimVolumes(engine);
  if (volumes.length === 0) return [];
  const [users, containers] = await Promise.all([claimUsers(engine, volumes), engine.listContainers([managedSelector])]);
  const busy = new Set(containers.filter((c) => now - c.created * 1000 < minAgeMs).map((c) => `${c.labels[Label.project] ?? ''}/${c.labels[Label.podNamespace] ?? ''}`));
  return unusedClaims(volumes, users, busy, now, minAgeMs);
}

/** The Jobs whose pods carry a ttlSecondsAfterFinished that has passed since they finished (reconcile/jobTtl.ts). */
export async function findExpiredJobs(engine: ContainerReader, now: number): Promise<ExpiredJob[]> {
  const summaries = await engine.listContainers([managedSelector, Label.jobTtl]);
  const inspected = (await Promise.all(summaries.map((s) => engine.inspectContainer(s.id)))).filter((i): i is ContainerInspect => i !== undefined);
  const containers: TtlContainer[] = inspected.flatMap((info) => {
    const l = info.Config.Labels ?? {};
    const ttl = Number(l[Label.jobTtl]);
    const owner = l[Label.owner];
    if (!Number.isInteger(ttl) || ttl <= 0 || owner === undefined) return [];
    const finished = Date.parse(info.State.FinishedAt ?? '');
    const project = l[Label.project];
    return [
      {
        namespace: l[Label.podNamespace] ?? '',
        pod: l[Label.podName] ?? '',
        owner,
        ...(project !== undefined ? { project } : {}),
        ttlSeconds: ttl,
        infra: l[Label.containerName] === infraContainerName,
        state: info.State.Status,
        ...(Number.isNaN(finished) || (info.State.FinishedAt ?? '').startsWith('0001-') ? {} : { finishedAt: finished }),
      },
    ];
  });
  return expiredJobs(containers, now);
}

/** The Services' helper containers (rules loaders, network locks) left stopped, old enough that no run is using them. */
export async function leftHelpers(engine: ContainerReader, now: number, minAgeMs: number): Promise<ContainerSummary[]> {
  const lists = await Promise.all([Role.rules, Role.networkLock].map((role) => engine.listContainers([`${ServiceLabel.role}=${role}`])));
  return lists.flat().filter((c) => c.state !== 'running' && c.state !== 'restarting' && now - c.created * 1000 >= minAgeMs);
}

/**
 * Remove a dead container gc found, without force: one that started since it was listed is refused by the engine
 * (EngineRequestError, thrown) and stays, so gc never removes a running container.
 */
export async function removeDeadContainer(engine: ContainerLifecycle, id: string): Promise<void> {
  await engine.removeContainer(id, { force: false });
}

/** Remove a volume gc found (a gone pod's, or an unused claim's); one still in use is refused by the engine and stays. */
export async function removeFoundVolume(engine: VolumePort, name: string): Promise<void> {
  await engine.removeVolume(name);
}
