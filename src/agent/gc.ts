// What `runpod gc` removes and how, as the kubelet's garbage collection and the Job TTL controller do: finished Jobs
// past their ttlSecondsAfterFinished (pods whole, as `down` takes a pod down), the dead containers and gone pods'
// volumes the kubelet's container GC policy names (reconcile/gcPolicy.ts), helpers a stopped runpod left, networks
// nothing is attached to, and (asked for) claims no pod uses. Each step is told as it goes, so an interruption
// leaves an account of what went; the command says it.
import { EngineRequestError } from '../engine/ports/errors.js';
import type { ContainerSummary } from '../engine/ports/containers.js';
import type { Engine } from '../engine/ports/engine.js';
import { projectEngine } from '../engine/ports/project.js';
import type { ClaimVolume, UnusedClaim } from '../reconcile/claims.js';
import { collectGarbage, findExpiredJobs, findUnusedClaims, leftHelpers, removeDeadContainer, removeFoundVolume } from '../reconcile/garbage.js';
import type { GcContainer, GcPolicy } from '../reconcile/gcPolicy.js';
import type { ExpiredJob } from '../reconcile/jobTtl.js';
import { removePod } from '../reconcile/removePod.js';
import { emptyNetworks, removeEmptyNetwork } from '../services/network.js';

export interface GcRequest extends GcPolicy {
  /** Say what would go; remove nothing. */
  dryRun: boolean;
  /** Also the claim volumes no pod uses any more (their data): asked for, as docker volume prune is. */
  claims: boolean;
}

/** One thing gc removed (or, with dryRun, would remove), or kept because the engine refused it. */
export type GcEvent =
  | { kind: 'job'; job: ExpiredJob }
  | { kind: 'container'; container: GcContainer; reason: string }
  | { kind: 'volume'; volume: string; reason: string }
  | { kind: 'helper'; helper: ContainerSummary }
  | { kind: 'network'; network: string }
  | { kind: 'claim'; volume: ClaimVolume; reason: string }
  | { kind: 'kept'; what: string; message: string };

/** The tally: containers and volumes gc found (helpers and removed claims among them), networks removed. */
export interface GcDone {
  containers: number;
  volumes: number;
  networks: number;
  /** The claims no pod uses any more: kept unless asked for (claims). */
  unusedClaims: UnusedClaim[];
}

export async function collectAll(engine: Engine, r: GcRequest, now: number, told: (e: GcEvent) => void): Promise<GcDone> {
  // Finished Jobs past their ttlSecondsAfterFinished go first, pods whole (as `runpod down` takes a pod down).
  for (const job of await findExpiredJobs(engine, now)) {
    if (!r.dryRun) {
      const keyed = projectEngine(engine, job.project);
      for (const pod of job.pods) await removePod(keyed, { namespace: job.namespace, name: pod });
    }
    told({ kind: 'job', job });
  }
  const plan = await collectGarbage(engine, r, now);
  // A removal the engine refuses (a container that started since it was listed: gc never removes a running one)
  // is told and the rest goes on.
  const attempt = async (what: string, remove: () => Promise<void>): Promise<boolean> => {
    if (r.dryRun) return true;
    try {
      await remove();
      return true;
    } catch (err) {
      if (!(err instanceof EngineRequestError)) throw err;
      told({ kind: 'kept', what, message: err.message });
      return false;
    }
  };
  for (const { item: c, reason } of plan.containers) {
    // One by one, oldest first, so an interruption leaves the newest.
    if (await attempt(`container ${c.dockerName}`, () => removeDeadContainer(engine, c.id))) told({ kind: 'container', container: c, reason });
  }
  for (const { item: v, reason } of plan.volumes) {
    if (await attempt(`volume ${v.name}`, () => removeFoundVolume(engine, v.name))) told({ kind: 'volume', volume: v.name, reason });
  }
  // One-shot helpers a runpod killed mid-step left behind: a Service's rules writer, a network's creation lock.
  // Only stopped ones older than --min-age (by default a minute, longer than either step takes), so a live run's
  // helper is not taken from it.
  const helpers = await leftHelpers(engine, now, r.minAgeMs);
  for (const h of helpers) {
    if (await attempt(`container ${h.name}`, () => removeDeadContainer(engine, h.id))) told({ kind: 'helper', helper: h });
  }
  // runpod's namespace networks nothing is attached to any more (their pods were removed by hand, say): each is
  // one of the engine's address pools, which run out after some thirty networks.
  let networks = 0;
  for (const n of await emptyNetworks(engine)) {
    if (!(await attempt(`network ${n.name}`, () => removeEmptyNetwork(engine, n)))) continue;
    networks++;
    told({ kind: 'network', network: n.name });
  }
  // Claims hold data: only when asked do the ones no pod uses any more go (older than --min-age, as the rest).
  const unused = await findUnusedClaims(engine, now, r.minAgeMs);
  let claims = 0;
  for (const { volume: v, reason } of r.claims ? unused : []) {
    if (!(await attempt(`claim volume ${v.name}`, () => removeFoundVolume(engine, v.name)))) continue;
    claims++;
    told({ kind: 'claim', volume: v, reason });
  }
  return { containers: plan.containers.length + helpers.length, volumes: plan.volumes.length + claims, networks, unusedClaims: unused };
}
