// A run's takedown: what a scoped run (run … -- <command>) made goes when it ends, however it ends — the command
// done, a pod that did not come up, an error part way, a signal. One takedown for all of them, so each ending says
// the same things: which pods are still stopping and how much of their grace period is left, and, whatever could not
// be removed, the exact `runpod down` line that removes it.
//
// A second SIGINT or SIGTERM during it (a person pressing Ctrl-C again; a CI runner's cancel, which sends SIGINT,
// SIGTERM a few seconds later and SIGKILL about ten seconds after the first) hurries it: no more grace, every
// container of the run is killed and removed at once (`docker rm -f` sends SIGKILL), then the Services, networks and
// claims go as before. SIGKILL cannot be caught, so the down line is said before the fast takedown starts too.
import { ExitCode, RunpodError } from '../errors.js';
import { listClaimVolumes, removeClaimVolumes } from '../reconcile/claims.js';
import type { Reporter } from '../report/reporter.js';
import { downLine, type RunMade } from './made.js';
import { tearDownCluster } from '../services/cluster.js';
import { bounded } from '../wait/bounded.js';
import type { PodRef } from '../reconcile/pods.js';
import { killPodsNow, longestGraceMs, managedPodRefs, removePod } from '../reconcile/removePod.js';
import { networkNamespaces } from '../services/network.js';
import { managedServiceRefs } from '../services/serviceContainers.js';

/**
 * How long the takedown may take beyond the pods' longest grace period: room for the removes on a busy engine (20
 * pods' down took 4 s on the bench). An engine that accepts connections and never answers (a frozen dockerd) must
 * not hold runpod for ever after the command, or after the signal CI sends it.
 */
export const takeDownMarginMs = 30_000;

/**
 * How long a hurried takedown may take: a CI runner sends SIGKILL about 10 s after its first signal, and its second
 * comes a few seconds after the first, so what is left after this is named (the down line) while runpod still can.
 */
export const fastTakeDownMs = 6_000;

/** How often a takedown that waits for grace periods says which pods it waits for. */
export const takeDownProgressMs = 5_000;

export type { RunMade } from './made.js';

export interface TakeDownContext {
  reporter: Reporter;
  now: () => number;
  /** Aborted at a second SIGINT or SIGTERM: the takedown hurries (main.ts). */
  hurried?: AbortSignal;
  /** Which signal hurried it, for the line that says so. */
  hurriedBy?: () => string | undefined;
  /** How long it may take beyond the grace periods (default takeDownMarginMs; less after the engine failed). */
  marginMs?: number;
}

/**
 * A run that ends by an error once it may have made something (a Service's nodePort held, the engine lost, a
 * signal while it set up): a scoped run takes down what it made, as it would after its command; any other run
 * leaves it for inspection. Either way the error says so, with the down line when something is left.
 */
export async function afterFailedRun(err: unknown, m: RunMade, scoped: boolean, ctx: TakeDownContext): Promise<void> {
  if (!scoped) {
    if (err instanceof RunpodError)
      err.withDetail([
        `what runpod made is left for inspection (runpod status${m.hostWords ?? ''}${m.project !== undefined ? ` --project ${m.project}` : ''}); remove it with: ${downLine(m)}`,
      ]);
    return;
  }
  const engineFailed = err instanceof RunpodError && err.exitCode === ExitCode.engine;
  const gone = await takeDownRun(m, engineFailed ? { ...ctx, marginMs: engineFailedMarginMs } : ctx);
  if (err instanceof RunpodError)
    err.withDetail([gone ? 'what this run made was taken down' : `what this run made could not all be taken down; remove what is left with: ${downLine(m)}`]);
}

/** After the engine failed, how long its takedown may take beyond the grace periods: it may well not answer. */
const engineFailedMarginMs = 5_000;

/** How the takedown ended: true when everything of the run is gone. */
export async function takeDownRun(m: RunMade, ctx: TakeDownContext): Promise<boolean> {
  const { reporter } = ctx;
  const line = downLine(m);
  const pods = m.ownKey ? await listedOr(() => managedPodRefs(m.engine), m.pods) : [...m.pods];
  const names = pods.map((p) => `${p.namespace}/${p.name}`);
  const problems: string[] = [];
  const hurry = hurryPromise(ctx.hurried);
  let hurriedAt: number | undefined;
  const startHurry = (): void => {
    if (hurriedAt !== undefined) return;
    hurriedAt = ctx.now();
    const by = ctx.hurriedBy?.() ?? 'signal';
    reporter.warn(
      `a second ${by}: fast takedown, killing ${names.length > 0 ? names.join(', ') : "the run's containers"} now without their grace period; if runpod is stopped before it ends, remove what is left with: ${line}`,
    );
  };

  // 1. The pods: within their grace periods (preStop hooks, as `runpod down`), unless hurried.
  if (ctx.hurried?.aborted) startHurry();
  else if (pods.length > 0) {
    reporter.info(`taking down ${names.join(', ')} (within each pod's grace period; a second Ctrl-C or SIGTERM kills them at once)`);
    const startedAt = ctx.now();
    const pending = new Map(pods.map((p) => [`${p.namespace}/${p.name}`, p]));
    const graceful = Promise.all(
      pods.map((p) =>
        removePod(m.engine, p, undefined, ctx.now).then(
          () => {
            pending.delete(`${p.namespace}/${p.name}`);
          },
          (err: unknown) => {
            pending.delete(`${p.namespace}/${p.name}`);
            // Once hurried, the fast takedown removes the pod (and this graceful one meets it gone).
            if (hurriedAt === undefined) problems.push(`${p.namespace}/${p.name}: ${messageOf(err)}`);
          },
        ),
      ),
    );
    const graceMs = await listedOr(() => longestGraceMs(m.engine, pods), 30_000);
    const margin = ctx.marginMs ?? takeDownMarginMs;
    const limit = startedAt + graceMs + margin;
    const progress = setInterval(() => {
      if (pending.size === 0) return;
      const left = Math.max(0, Math.ceil((startedAt + graceMs - ctx.now()) / 1000));
      reporter.info(
        `taking down: waiting for ${[...pending.keys()].join(', ')} to stop (${left > 0 ? `${left}s of the grace period left` : 'grace period over, being killed and removed'}; a second Ctrl-C or SIGTERM kills them at once)`,
      );
    }, takeDownProgressMs);
    const outcome = await Promise.race([graceful.then(() => 'done' as const), hurry.then(() => 'hurried' as const), sleepUntil(limit, ctx.now).then(() => 'late' as const)]);
    clearInterval(progress);
    if (outcome === 'hurried') startHurry();
    if (outcome === 'late')
      problems.push(
        `the Docker engine at ${m.engine.address} did not finish within ${Math.round((limit - startedAt) / 1000)}s (the pods' grace period and ${margin / 1000}s more; is dockerd frozen or overloaded?)`,
      );
    if (outcome !== 'done') graceful.catch(() => undefined);
  }

  // 2. Hurried: every container of the run, killed and removed now (a pass after it catches one a sync cut short
  // by the signal made meanwhile). Bounded: what is left after it is named.
  const rest = async (): Promise<void> => {
    if (hurriedAt !== undefined) await fastRemove(m, pods);
    // 3. The Services with the pods, the networks nothing is left on, then the claims unless kept.
    const services = m.ownKey ? await listedOr(() => managedServiceRefs(m.engine), m.services) : m.services;
    const namespaces = new Set([...pods.map((p) => p.namespace), ...services.map((v) => v.namespace), ...(m.ownKey ? await listedOr(() => networkNamespaces(m.engine), []) : [])]);
    if (namespaces.size > 0) await tearDownCluster(m.engine, { namespaces, services, project: m.project, image: m.serviceImage });
    await removeClaims(m, reporter, problems);
  };
  const until = hurriedAt !== undefined ? hurriedAt + fastTakeDownMs : ctx.now() + (ctx.marginMs ?? takeDownMarginMs);
  let finished = false;
  const work = rest().then(() => 'done' as const);
  work.catch(() => undefined);
  const late = sleepUntil(until, ctx.now).then(() => 'late' as const);
  // A second signal while the Services and claims go: they go without grace anyway; it only bounds them tighter.
  const hurriedLate =
    hurriedAt !== undefined
      ? []
      : [
          hurry.then(async () => {
            if (finished) return 'done' as const;
            startHurry();
            await sleepUntil(ctx.now() + fastTakeDownMs, ctx.now);
            return 'late' as const;
          }),
        ];
  try {
    if ((await Promise.race([work, late, ...hurriedLate])) === 'late')
      problems.push(`the Docker engine at ${m.engine.address} did not finish in time (is dockerd frozen or overloaded?)`);
  } catch (err) {
    problems.push(messageOf(err));
  }
  finished = true;
  if (problems.length > 0) {
    reporter.warn(`could not take down everything this run made: ${problems.join('; ')}; remove what is left with: ${line}`);
    return false;
  }
  if (hurriedAt !== undefined) reporter.warn(`fast takedown done in ${((ctx.now() - hurriedAt) / 1000).toFixed(1)}s: nothing of this run is left`);
  return true;
}

/** Kill and remove every container of the pods now, then their own volumes; once more for any made meanwhile. */
async function fastRemove(m: RunMade, known: readonly PodRef[]): Promise<void> {
  for (let pass = 0; pass < 2; pass++) {
    const pods = m.ownKey ? await listedOr(() => managedPodRefs(m.engine), known) : known;
    await killPodsNow(m.engine, pods, pass > 0);
  }
}

/** The run's claims go (a CI job's database must not meet the next job under the key), unless --keep-claims. */
async function removeClaims(m: RunMade, reporter: Reporter, problems: string[]): Promise<void> {
  const all = await listClaimVolumes(m.engine);
  const wanted = new Set(m.claimVolumes);
  const volumes = m.ownKey ? all : all.filter((v) => wanted.has(v.name));
  if (volumes.length === 0) return;
  if (m.keepClaims) {
    reporter.info(`--keep-claims: keeping ${volumes.map((v) => v.name).join(', ')}; remove with: ${downLine({ ...m, keepClaims: false })}`);
    return;
  }
  const removed = await removeClaimVolumes(m.engine, volumes);
  const gone = removed.filter((c) => c.removed).map((c) => c.volume);
  if (gone.length > 0) reporter.info(`removed claim volume${gone.length === 1 ? '' : 's'} ${gone.join(', ')} (--keep-claims keeps them for the next run under the key)`);
  for (const c of removed) if (!c.removed) problems.push(`claim volume ${c.volume} stays: ${c.error ?? ''}`);
}

/** What a listing answers, or the fallback when it fails or the engine does not answer within a few seconds. */
async function listedOr<T>(list: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await bounded(list(), { until: Date.now() + listingMs, now: Date.now });
  } catch {
    return fallback;
  }
}

/** How long one listing of the takedown may take before its fallback is used (a frozen engine never answers). */
const listingMs = 5_000;

function hurryPromise(signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return new Promise<void>(() => undefined);
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

function sleepUntil(at: number, now: () => number): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, Math.max(0, at - now()));
    t.unref();
  });
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
