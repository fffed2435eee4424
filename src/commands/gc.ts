// runpod gc: remove the dead containers runpod made (kubelet container GC policy, see reconcile/gcPolicy.ts),
// the infra containers and volumes of pods that no longer exist, and say what went and why. --dry-run says
// what would go. Only containers and volumes carrying runpod's labels are ever considered. The collecting is the
// agent's (agent/gc.ts); this opens the engine and says each step.
import { ExitCode } from '../errors.js';
import type { GcPolicy } from '../reconcile/gcPolicy.js';
import { formatAge } from '../report/tables.js';
import type { CommandContext } from './context.js';
import { connectEngine, openHostEngine } from './engineSession.js';
import { ServiceLabel } from '../kube/serviceNames.js';
import { projectEngine } from '../engine/ports/project.js';
import { collectAll, type GcEvent } from '../agent/gc.js';

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
  const told = (e: GcEvent): void => {
    // What the engine refused stays, and is said even under --quiet.
    if (e.kind === 'kept') ctx.stderr.write(`gc: kept ${e.what}: ${e.message}\n`);
    else if (!o.quiet) ctx.stdout.write(`${gcLine(e, verb, now)}\n`);
  };
  const done = await collectAll(engine, { ...o, claims: o.claims === true }, now, told);
  const unused = done.unusedClaims;
  if (!o.quiet && !o.claims && unused.length > 0) {
    const n = unused.length;
    ctx.stderr.write(
      `gc: kept ${n} claim volume${n === 1 ? '' : 's'} no pod uses any more (${unused.map((u) => u.volume.name).join(', ')}): their data stays unless asked; runpod gc --claims removes them\n`,
    );
  }
  if (!o.quiet) {
    const n = done.containers;
    const m = done.volumes;
    ctx.stderr.write(
      n + m + done.networks === 0
        ? 'gc: nothing to remove\n'
        : `gc: ${verb} ${n} container${n === 1 ? '' : 's'}, ${m} volume${m === 1 ? '' : 's'} and ${done.networks} network${done.networks === 1 ? '' : 's'}\n`,
    );
  }
  return ExitCode.ok;
}

/** The line that says what went (or would go) and why. */
function gcLine(e: Exclude<GcEvent, { kind: 'kept' }>, verb: string, now: number): string {
  switch (e.kind) {
    case 'job': {
      const { job } = e;
      return `${verb} ${job.owner} in ${job.namespace}${job.project !== undefined ? ` (isolation key ${job.project})` : ''}, pods ${job.pods.join(', ')}: ${job.reason}`;
    }
    case 'container': {
      const c = e.container;
      return `${verb} container ${c.dockerName} (${c.state}, created ${formatAge(now - c.createdAt)} ago): ${e.reason}`;
    }
    case 'volume':
      return `${verb} volume ${e.volume}: ${e.reason}`;
    case 'helper': {
      const h = e.helper;
      return `${verb} container ${h.name} (${h.state}, created ${formatAge(now - h.created * 1000)} ago): a ${h.labels[ServiceLabel.role]} helper left by a runpod that was stopped mid-step`;
    }
    case 'network':
      return `${verb} network ${e.network}: no container is attached to it`;
    case 'claim':
      return `${verb} claim volume ${e.volume.name} (created ${formatAge(now - (e.volume.createdAt ?? now))} ago): ${e.reason}`;
  }
}
