// runpod gc: remove the dead containers runpod made (kubelet container GC policy, see reconcile/gcPolicy.ts),
// the infra containers and volumes of pods that no longer exist, and say what went and why. --dry-run says
// what would go. Only containers and volumes carrying runpod's labels are ever considered.
import { EngineRequestError } from '../engine/ports/errors.js';
import { ExitCode } from '../errors.js';
import type { GcPolicy } from '../reconcile/gcPolicy.js';
import { formatAge } from '../report/tables.js';
import type { CommandContext } from './context.js';
import { connectEngine, openHostEngine } from './engineSession.js';
import { emptyNetworks } from '../services/network.js';
import { ServiceLabel } from '../kube/serviceNames.js';
import { projectEngine } from '../engine/ports/project.js';
import { removePod } from '../reconcile/removePod.js';
import { collectGarbage, findExpiredJobs, findUnusedClaims, leftHelpers } from '../reconcile/garbage.js';

export interface GcOptions extends GcPolicy {
  dryRun: boolean;
  /** --claims: also remove the claim volumes no pod uses any more (their data): asked for, as docker volume prune is. */
  claims?: boolean;
  quiet: boolean;
  host?: string;
  /** Only what was made under this isolation key; without one, every key's (gc is the host's housekeeping). */
  project?: string;
}

export async function gcCommand(o: GcOptions, ctx: CommandContext): Promise<number> {
  const host = await openHostEngine(o.host, ctx.env);
  const engine = o.project !== undefined ? projectEngine(host, o.project) : host;
  await connectEngine(engine, ctx);
  const now = ctx.now();
  const verb = o.dryRun ? 'would remove' : 'removed';
  // Finished Jobs past their ttlSecondsAfterFinished go first, pods whole (as `runpod down` takes a pod down).
  for (const job of await findExpiredJobs(engine, now)) {
    if (!o.dryRun) {
      const keyed = projectEngine(engine, job.project);
      for (const pod of job.pods) await removePod(keyed, { namespace: job.namespace, name: pod });
    }
    if (!o.quiet)
      ctx.stdout.write(
        `${verb} ${job.owner} in ${job.namespace}${job.project !== undefined ? ` (isolation key ${job.project})` : ''}, pods ${job.pods.join(', ')}: ${job.reason}\n`,
      );
  }
  const plan = await collectGarbage(engine, o, now);
  // Without force: a container that started since it was listed is refused by the engine and stays (never
  // a running container); that is reported and the rest goes on.
  const attempt = async (what: string, remove: () => Promise<void>): Promise<boolean> => {
    if (o.dryRun) return true;
    try {
      await remove();
      return true;
    } catch (err) {
      if (!(err instanceof EngineRequestError)) throw err;
      ctx.stderr.write(`gc: kept ${what}: ${err.message}\n`);
      return false;
    }
  };
  for (const { item: c, reason } of plan.containers) {
    // One by one, oldest first, so an interruption leaves the newest.
    if (!(await attempt(`container ${c.dockerName}`, () => engine.removeContainer(c.id, { force: false })))) continue;
    if (!o.quiet) ctx.stdout.write(`${verb} container ${c.dockerName} (${c.state}, created ${formatAge(now - c.createdAt)} ago): ${reason}\n`);
  }
  for (const { item: v, reason } of plan.volumes) {
    if (!(await attempt(`volume ${v.name}`, () => engine.removeVolume(v.name)))) continue;
    if (!o.quiet) ctx.stdout.write(`${verb} volume ${v.name}: ${reason}\n`);
  }
  // One-shot helpers a runpod killed mid-step left behind: a Service's rules writer, a network's creation lock.
  // Only stopped ones older than --min-age (by default a minute, longer than either step takes), so a live run's
  // helper is not taken from it.
  const helpers = await leftHelpers(engine, now, o.minAgeMs);
  for (const h of helpers) {
    if (!(await attempt(`container ${h.name}`, () => engine.removeContainer(h.id, { force: false })))) continue;
    if (!o.quiet)
      ctx.stdout.write(
        `${verb} container ${h.name} (${h.state}, created ${formatAge(now - h.created * 1000)} ago): a ${h.labels[ServiceLabel.role]} helper left by a runpod that was stopped mid-step\n`,
      );
  }
  // runpod's namespace networks nothing is attached to any more (their pods were removed by hand, say): each is
  // one of the engine's address pools, which run out after some thirty networks.
  const networks = await emptyNetworks(engine);
  let removedNetworks = 0;
  for (const n of networks) {
    if (!(await attempt(`network ${n.name}`, () => engine.removeNetwork(n.id)))) continue;
    removedNetworks++;
    if (!o.quiet) ctx.stdout.write(`${verb} network ${n.name}: no container is attached to it\n`);
  }
  // Claims hold data: only with --claims do the ones no pod uses any more go (older than --min-age, as the rest).
  const unused = await findUnusedClaims(engine, now, o.minAgeMs);
  let removedClaims = 0;
  for (const { volume: v, reason } of o.claims ? unused : []) {
    if (!(await attempt(`claim volume ${v.name}`, () => engine.removeVolume(v.name)))) continue;
    removedClaims++;
    if (!o.quiet) ctx.stdout.write(`${verb} claim volume ${v.name} (created ${formatAge(now - (v.createdAt ?? now))} ago): ${reason}\n`);
  }
  if (!o.quiet && !o.claims && unused.length > 0) {
    const n = unused.length;
    ctx.stderr.write(
      `gc: kept ${n} claim volume${n === 1 ? '' : 's'} no pod uses any more (${unused.map((u) => u.volume.name).join(', ')}): their data stays unless asked; runpod gc --claims removes them\n`,
    );
  }
  if (!o.quiet) {
    const n = plan.containers.length + helpers.length;
    const m = plan.volumes.length + removedClaims;
    ctx.stderr.write(
      n + m + removedNetworks === 0
        ? 'gc: nothing to remove\n'
        : `gc: ${verb} ${n} container${n === 1 ? '' : 's'}, ${m} volume${m === 1 ? '' : 's'} and ${removedNetworks} network${removedNetworks === 1 ? '' : 's'}\n`,
    );
  }
  return ExitCode.ok;
}
