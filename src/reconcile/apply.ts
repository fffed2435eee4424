// apply: carry out what decide said, in the kubelet's order — kill what goes, then the sandbox, then the
// containers (in parallel) — and say what became of each action (one result per action, as the kubelet's
// PodSyncResult). A failure about one container is that action's result (the pod's problem, exit 1); only
// losing the engine is thrown (exit 3).
import type { ContainerLifecycle, ContainerReader, CreateOptions } from '../engine/ports/containers.js';
import type { Engine } from '../engine/ports/engine.js';
import type { ImagePort } from '../engine/ports/images.js';
import { EngineRequestError, NameConflictError } from '../engine/ports/errors.js';
import { takenHostPort } from '../engine/ports/errors.js';
import { EngineUnreachableError } from '../errors.js';
import { Label, infraContainerName, managedByValue } from '../kube/labels.js';
import { instanceCreateOptions } from '../plan/translate.js';
import { type Decision, isHousekeeping } from './decide.js';
import { ImageUnavailableError, type ImagePuller, type PodAuth } from './images.js';
import { authFromPullSecret } from '../engine/ports/auth.js';
import { runPostStart, stopGracefully } from './hooks.js';
import { stopInKillPodOrder } from './podStop.js';
import { resolveImageUser } from '../plan/security.js';
import { VolumeSetupError, VolumeWork, removeStaleVolumes } from './volumes.js';
import type { ContainerPlan, PodPlan } from '../plan/types.js';
import type { Action, CreateAction, CreateInfraAction, KillAction, RemoveAction, ResizeAction, RetireAction, StartAction, StartInfraAction } from './action.js';

/**
 * What became of one action (the kubelet's SyncResult): done or not, on which instance, and the engine's answer.
 * apply returns one for every action it was given, in the order it carried them out.
 */
export interface ActionResult {
  action: Action;
  /** Housekeeping: its failure is a warning, never the pod's (decide.ts). */
  housekeeping: boolean;
  ok: boolean;
  /** The instance acted on, or the one the action created. */
  instance?: string;
  /** What was done when it differs from the action: a retire the engine refused, carried out as a removal. */
  outcome?: string;
  /** Why it failed: the engine's answer, or runpod's reason (FailedPostStartHook, a sandbox that did not start). */
  error?: string;
  /** No retry can cure it (a container whose runAsNonRoot the image breaks, a start refused under Never). */
  final?: boolean;
}

export interface ApplyResult {
  results: ActionResult[];
}

/** The sync's errors by container name ("POD" for the infra container): the first failed action of each. */
export function syncErrorsOf(results: readonly ActionResult[]): Map<string, string> {
  const errors = new Map<string, string>();
  for (const r of results) {
    if (r.ok || r.housekeeping || r.error === undefined) continue;
    const name = actionContainer(r.action);
    if (!errors.has(name)) errors.set(name, r.error);
  }
  return errors;
}

/** The container an action is about, by its name in the pod ("POD" for the sandbox). */
export function actionContainer(a: Action): string {
  return a.kind === 'createInfra' || a.kind === 'startInfra' ? infraContainerName : a.container;
}

/**
 * The kubelet's CreateContainerConfigError for a container whose security context the image contradicts
 * (runAsNonRoot and an image that runs as root). The manifest and the image will not change while runpod waits.
 */
export class ContainerConfigError extends Error {
  override name = 'ContainerConfigError';
}

/**
 * The engine refused to start a container under restartPolicy Never. Kubernetes records such a container as
 * terminated (reason StartError, exit code 128), and Never does not start it again: the pod has failed. Under
 * Always and OnFailure the start is retried with backoff, as the kubelet retries it.
 */
export class ContainerStartError extends Error {
  override name = 'ContainerStartError';
}

/**
 * The container's plan with the image's user taken into account, when its security context needs it (security.ts):
 * refuses runAsNonRoot against a root image, and gives runAsGroup without runAsUser the image's user.
 */
export async function withImageUser(engine: ImagePort, c: ContainerPlan): Promise<ContainerPlan> {
  if (c.imageUserCheck === undefined) return c;
  const image = await engine.inspectImage(c.image);
  if (image === undefined) throw new ImageUnavailableError(`image ${c.image} is not present on the engine`);
  const resolved = resolveImageUser(c.imageUserCheck, image.user ?? '', c.name);
  if ('error' in resolved) throw new ContainerConfigError(resolved.error);
  return resolved.user === undefined ? c : { ...c, create: { ...c.create, User: resolved.user } };
}

export interface ApplyContext {
  engine: Engine;
  images: ImagePuller;
  onAction?: (a: Action) => void;
  /** Each action's result as it is known, so a sync cut short (the engine lost) still accounts for what it did. */
  onResult?: (r: ActionResult) => void;
}

/** Errors that are the pod's own problem (its image, its ports, its mounts), not the engine's. */
function podProblem(err: unknown): string | undefined {
  if (err instanceof ImageUnavailableError || err instanceof EngineRequestError || err instanceof VolumeSetupError) return err.message;
  return undefined;
}

/**
 * What the phases of one sync share: the pod, what decide said, the context, and the results so far (one per
 * action, in the order they were carried out). The phases run one after another; within a phase the actions run in
 * parallel and only append to results.
 */
interface Sync {
  readonly plan: PodPlan;
  readonly decision: Decision;
  readonly ctx: ApplyContext;
  readonly results: ActionResult[];
  /** Every container of the pod by name, init containers included. */
  readonly byName: ReadonlyMap<string, ContainerPlan>;
}

export async function applyActions(plan: PodPlan, decision: Decision, ctx: ApplyContext): Promise<ApplyResult> {
  const byName = new Map([...plan.initContainers, ...plan.containers].map((c) => [c.name, c]));
  const sync: Sync = { plan, decision, ctx, results: [], byName };
  await removeInKillPodOrder(sync);
  await Promise.all(decision.housekeeping.map((a) => keepHouse(sync, a)));
  await Promise.all(decision.kill.map((a) => killForRestart(sync, a)));
  await Promise.all(decision.resize.map((a) => resizeInPlace(sync, a)));
  const podAuth = podAuthOf(plan);
  // Volumes are made ready (once per sync) before the containers that mount them are created (volumes.ts).
  const shared: CreateShared = { volumes: new VolumeWork(ctx.engine, plan), podAuth };
  const sandbox = decision.sandbox;
  const up = sandbox?.kind === 'createInfra' ? await newSandbox(sync, sandbox, shared) : await keptSandbox(sync, sandbox, shared);
  if (!up) return { results: sync.results };
  // Volumes of this pod the plan no longer names (changed ConfigMap data, a changed emptyDir) go once unused.
  if (decision.create.length > 0) {
    await removeStaleVolumes(ctx.engine, plan).catch((err: unknown) => {
      if (err instanceof EngineUnreachableError) throw err;
    });
  }
  return { results: sync.results };
}

/** Record what became of an action, and tell the context at once. */
function done(sync: Sync, action: Action, r: Omit<ActionResult, 'action' | 'housekeeping'> = { ok: true }): void {
  const result: ActionResult = { action, housekeeping: isHousekeeping(sync.decision, action), ...r };
  sync.results.push(result);
  sync.ctx.onResult?.(result);
}

/** An action that failed: the pod's own problem is its result; losing the engine ends the sync (exit 3). */
function failed(sync: Sync, action: Action, err: unknown, instance?: string): void {
  if (err instanceof EngineUnreachableError) throw err;
  const at = instance !== undefined ? { instance } : {};
  if (err instanceof ContainerConfigError || err instanceof ContainerStartError) {
    done(sync, action, { ok: false, ...at, error: err.message, final: true });
    return;
  }
  const problem = podProblem(err);
  if (problem === undefined) throw err;
  done(sync, action, { ok: false, ...at, error: problem });
}

/**
 * The kubelet's KillPod order, in one grace period for the pod (podStop.ts): app (and finished init) containers
 * first, then sidecars in reverse order of their start, then the sandbox, so a preStop hook still has the pod's
 * network. Each stop runs the instance's preStop hook within the seconds it is given (hooks.ts).
 */
async function removeInKillPodOrder(sync: Sync): Promise<void> {
  const { plan, decision } = sync;
  const sidecarIndex = new Map(plan.initContainers.filter((c) => c.initKind === 'sidecar').map((c, i) => [c.name, i]));
  let lost: unknown;
  await stopInKillPodOrder(
    decision.remove.map((a) => ({
      action: a,
      kind: a.container === plan.infra.name ? ('infra' as const) : sidecarIndex.has(a.container) ? ('sidecar' as const) : ('app' as const),
      created: sidecarIndex.get(a.container) ?? 0,
    })),
    plan.gracePeriodSeconds,
    (t, seconds) =>
      removeOne(sync, t.action, seconds).catch((err: unknown) => {
        lost ??= err;
      }),
  );
  // Losing the engine ends the sync (exit 3), once every stop under way has settled.
  if (lost !== undefined) throw lost;
}

async function removeOne(sync: Sync, a: RemoveAction, seconds: number): Promise<void> {
  const { ctx } = sync;
  ctx.onAction?.(a);
  const began = Date.now();
  try {
    await stopGracefully(ctx.engine, a.id, seconds);
    await ctx.engine.removeContainer(a.id, { force: true });
    done(sync, a, { ok: true, instance: a.id, outcome: `stopped in ${(Date.now() - began) / 1000}s of ${seconds}s, and removed` });
  } catch (err) {
    failed(sync, a, err, a.id);
  }
}

/** Housekeeping: dead history made safe (a removal in the pod's grace period, or a retire). */
function keepHouse(sync: Sync, a: RemoveAction | RetireAction): Promise<void> {
  if (a.kind === 'remove') return removeOne(sync, a, sync.plan.gracePeriodSeconds);
  sync.ctx.onAction?.(a);
  return retire(sync, a);
}

/**
 * A retire that does not take (refused for a dead or removing instance, or accepted and not kept) removes the
 * instance instead, so a later engine restart can never start two instances of one container in one pod.
 */
async function retire(sync: Sync, a: RetireAction): Promise<void> {
  const { engine } = sync.ctx;
  let refused: string;
  try {
    await engine.updateRestartPolicy(a.id, 'no');
    const after = await engine.inspectContainer(a.id);
    if (after === undefined) return done(sync, a, { ok: true, instance: a.id, outcome: 'the instance is gone' });
    const kept = after.HostConfig.RestartPolicy?.Name || 'no';
    if (kept === 'no') return done(sync, a, { ok: true, instance: a.id });
    refused = `the engine accepted the update, but the restart policy is still ${kept}`;
  } catch (err) {
    if (!(err instanceof EngineRequestError)) return failed(sync, a, err, a.id);
    refused = `the engine refused to retire it (${err.message})`;
  }
  try {
    await engine.removeContainer(a.id, { force: true });
    done(sync, a, { ok: true, instance: a.id, outcome: `removed: ${refused}` });
  } catch (second) {
    const error = second instanceof EngineRequestError ? new EngineRequestError(`${refused}, and could not remove it (${second.message})`, second.statusCode) : second;
    failed(sync, a, error, a.id);
  }
}

async function killForRestart(sync: Sync, a: KillAction): Promise<void> {
  sync.ctx.onAction?.(a);
  try {
    await sync.ctx.engine.killForRestart(a.id, a.gracePeriodSeconds);
    done(sync, a, { ok: true, instance: a.id });
  } catch (err) {
    failed(sync, a, err, a.id);
  }
}

/**
 * Resources applied in place (resizePolicy NotRequired): POST /containers/{id}/update. The kernel will not set a
 * memory limit below what the container uses; Docker passes that refusal on, and it is said with the way out.
 */
async function resizeInPlace(sync: Sync, a: ResizeAction): Promise<void> {
  sync.ctx.onAction?.(a);
  try {
    await sync.ctx.engine.updateResources(a.id, a.update);
    done(sync, a, { ok: true, instance: a.id });
  } catch (err) {
    if (err instanceof EngineRequestError && a.update.Memory !== undefined) {
      const way = 'a memory limit below what the container uses now is refused; raise it, or set resizePolicy memory: RestartContainer to replace the container instead';
      return failed(sync, a, new EngineRequestError(`${err.message} (${way})`, err.statusCode), a.id);
    }
    failed(sync, a, err, a.id);
  }
}

/**
 * The pod's imagePullSecrets come first, then the Docker config (the kubelet's order: pod secrets, then the node's
 * credentials). The first pull secret with an entry for the registry is used.
 */
function podAuthOf(plan: PodPlan): PodAuth | undefined {
  if (plan.pullSecrets.length === 0) return undefined;
  return {
    id: plan.key,
    lookup: async (image) => {
      for (const s of plan.pullSecrets) {
        const auth = authFromPullSecret(s.config, s.legacy, image, s.name);
        if (auth) return auth;
      }
      return undefined;
    },
  };
}

/** Without a sandbox no container can join it: they wait for the next sync. */
function notAttempted(sync: Sync, what: 'get created' | 'start'): void {
  const why = `not attempted: the infra container did not ${what}`;
  for (const a of [...sync.decision.create, ...sync.decision.start]) done(sync, a, { ok: false, error: why });
}

/**
 * The sync of a sandbox kept (or made earlier and started now): the containers are created once it runs, as the
 * files they bind may be written through it. False when it did not start.
 */
async function keptSandbox(sync: Sync, sandbox: StartInfraAction | undefined, shared: CreateShared): Promise<boolean> {
  const { decision, ctx } = sync;
  if (sandbox !== undefined) {
    ctx.onAction?.(sandbox);
    try {
      await ctx.engine.startContainer(sandbox.id);
      done(sync, sandbox, { ok: true, instance: sandbox.id });
    } catch (err) {
      failed(sync, sandbox, infraStartError(sync.plan, err), sandbox.id);
      notAttempted(sync, 'start');
      return false;
    }
  }
  const infraId = sandbox?.id ?? decision.infraId;
  await Promise.all([...decision.create.map((a) => createAndStart(sync, a, shared, infraId)), ...decision.start.map((a) => startExisting(sync, a))]);
  return true;
}

/**
 * The sync that creates the sandbox. Docker creates a container joining another's namespaces (NetworkMode
 * container:<id>) while that one is only created; only its start needs that one running (daemon/start.go). So the
 * pod's files and its containers' creates go on beside the infra container's start (network set-up, ~0.5 s), and
 * the containers start once it returned. Each is announced and its result recorded after the sandbox's, as before.
 * When the start fails, the instances this sync created (never started) are removed, and the creates are recorded
 * as not attempted, as when nothing was created. False when the sandbox did not come up.
 */
async function newSandbox(sync: Sync, sandbox: CreateInfraAction, shared: CreateShared): Promise<boolean> {
  const { plan, decision, ctx } = sync;
  ctx.onAction?.(sandbox);
  let id: string;
  try {
    await ctx.images.ensure(plan.infra.image, plan.infra.pullPolicy);
    await shared.volumes.ensureInfraVolumes();
    id = (await createInstance(ctx.engine, plan, plan.infra, sandbox.attempt, undefined)).id;
  } catch (err) {
    failed(sync, sandbox, infraStartError(plan, err), undefined);
    notAttempted(sync, 'get created');
    return false;
  }
  const start = ctx.engine.startContainer(id).then(
    () => undefined,
    (err: unknown) => ({ err }),
  );
  shared.volumes.newSandbox(
    id,
    start.then((r) => r === undefined),
  );
  // The files go through a helper, beside the start: an archive into the starting infra container would wait for
  // its start. Their failure is that of the creates that wait for them (prepare), so here they are only settled.
  const creates = decision.create.map((a) => ({ container: sync.byName.get(a.container)!, attempt: a.attempt }));
  const files = creates.length > 0 ? shared.volumes.makeSandboxFiles(creates).catch(() => undefined) : Promise.resolve();
  const made = decision.create.map((a) => makeInstance(sync, a, shared, id));
  const refused = await start;
  if (refused !== undefined) {
    await removeUnstarted(sync.ctx.engine, await Promise.all(made));
    await files;
    failed(sync, sandbox, infraStartError(plan, refused.err), id);
    notAttempted(sync, 'start');
    return false;
  }
  done(sync, sandbox, { ok: true, instance: id });
  await Promise.all([
    ...decision.create.map(async (a, i) => {
      ctx.onAction?.(a);
      await startMade(sync, a, await made[i]!);
    }),
    ...decision.start.map((a) => startExisting(sync, a)),
  ]);
  await files;
  return true;
}

/**
 * The instances a sync created beside an infra start that failed: never started, so removed (force) for the next
 * sync to make again; one adopted from a concurrent runpod is that runpod's. Best effort: one left is observed.
 */
async function removeUnstarted(engine: ContainerLifecycle, made: readonly Made[]): Promise<void> {
  await Promise.all(made.map((m) => ('id' in m && !m.adopted ? engine.removeContainer(m.id, { force: true }).catch(() => undefined) : undefined)));
}

/** What every create of one sync shares. */
interface CreateShared {
  volumes: VolumeWork;
  podAuth: PodAuth | undefined;
}

/** A create's first half: the instance made (or adopted), or why not. Nothing recorded yet. */
type Made = { id: string; adopted: boolean } | { error: unknown };

async function makeInstance(sync: Sync, a: CreateAction, shared: CreateShared, infraId: string | undefined): Promise<Made> {
  const { engine, images } = sync.ctx;
  const { volumes, podAuth } = shared;
  const c = sync.byName.get(a.container)!;
  try {
    await images.ensure(c.image, c.pullPolicy, podAuth);
    // An image volume's image must be on the engine before the create, by its own pull policy: the engine mounts
    // it from its image store (Mount Type image, Engine API 1.48).
    for (const v of c.volumeImages ?? []) await images.ensure(v.image, v.pullPolicy, podAuth);
    return await createInstance(engine, sync.plan, await withImageUser(engine, c), a.attempt, infraId, (o) => volumes.prepare(c, o, infraId, a.attempt));
  } catch (error) {
    return { error };
  }
}

/** A create's second half, once the sandbox runs: start the instance, run postStart, and record the result. */
async function startMade(sync: Sync, a: CreateAction, made: Made): Promise<void> {
  if ('error' in made) return failed(sync, a, made.error);
  const { id } = made;
  try {
    await startInstance(sync, id, sync.byName.get(a.container));
    // An instance adopted from a concurrent runpod is that runpod's to hook: postStart runs once per start.
    if (made.adopted) return done(sync, a, { ok: true, instance: id, outcome: 'adopted: a concurrent runpod created it' });
    const hook = await postStart(sync, a.container, id);
    done(sync, a, hook === undefined ? { ok: true, instance: id } : { ok: false, instance: id, error: hook });
  } catch (err) {
    failed(sync, a, err, id);
  }
}

async function createAndStart(sync: Sync, a: CreateAction, shared: CreateShared, infraId: string | undefined): Promise<void> {
  sync.ctx.onAction?.(a);
  await startMade(sync, a, await makeInstance(sync, a, shared, infraId));
}

async function startExisting(sync: Sync, a: StartAction): Promise<void> {
  sync.ctx.onAction?.(a);
  try {
    await startInstance(sync, a.id, sync.byName.get(a.container));
    const hook = await postStart(sync, a.container, a.id);
    done(sync, a, hook === undefined ? { ok: true, instance: a.id } : { ok: false, instance: a.id, error: hook });
  } catch (err) {
    failed(sync, a, err, a.id);
  }
}

/**
 * A start refused under the container's restartPolicy Never (its own, else the pod's) is final; with
 * restartPolicyRules the exit code a rule would match is not known here, so it is retried (and a repeated failure
 * ends the run as not converging).
 */
async function startInstance(sync: Sync, id: string, c: ContainerPlan | undefined): Promise<void> {
  try {
    await sync.ctx.engine.startContainer(id);
  } catch (err) {
    const restart = c?.restart ?? { policy: sync.plan.restartPolicy, rules: [] };
    if (err instanceof EngineRequestError && restart.policy === 'Never' && restart.rules.length === 0) {
      throw new ContainerStartError(`${err.message} (StartError: restartPolicy Never does not start it again)`);
    }
    throw err;
  }
}

/**
 * postStart right after the start; a failure kills the container (with its preStop and grace period, as the
 * kubelet's killContainer) and is this container's sync error, FailedPostStartHook (hooks.ts).
 */
async function postStart(sync: Sync, name: string, id: string): Promise<string | undefined> {
  const failure = await runPostStart(sync.ctx.engine, id, sync.byName.get(name)?.lifecycle?.postStart);
  if (failure !== undefined) await stopGracefully(sync.ctx.engine, id, sync.plan.gracePeriodSeconds);
  return failure;
}

/**
 * The infra container publishes the pod's ports, so a taken host port fails its start; the message names the
 * container that declared the port, which is the one the user has to change.
 */
function infraStartError(plan: PodPlan, err: unknown): unknown {
  if (!(err instanceof EngineRequestError)) return err;
  const port = takenHostPort(err.message);
  if (port === undefined) return err;
  const owner = plan.ports.find((p) => p.hostPort === port)?.container;
  const whose = owner !== undefined ? `container ${owner}'s hostPort ${port}` : `host port ${port}`;
  return new EngineRequestError(`${whose} is taken on the engine host by another container or process (${err.message})`, err.statusCode);
}

/**
 * Create one instance. The name is deterministic, so when another runpod created it first the engine answers
 * 409 and this one adopts the existing container instead of failing (design.md: no lock file needed).
 */
async function createInstance(
  engine: ContainerLifecycle & ContainerReader,
  plan: PodPlan,
  c: ContainerPlan,
  attempt: number,
  infraId: string | undefined,
  prepare?: (o: CreateOptions) => Promise<CreateOptions>,
): Promise<{ id: string; adopted: boolean }> {
  const { name, options }: { name: string; options: CreateOptions } = instanceCreateOptions(plan, c, attempt, infraId);
  try {
    return { id: await engine.createContainer(name, prepare ? await prepare(options) : options), adopted: false };
  } catch (err) {
    if (!(err instanceof NameConflictError)) throw err;
    const existing = await engine.inspectContainer(name);
    if (!existing) throw new EngineRequestError(`container ${name} was in use, then vanished; retrying`, 409);
    // Adopt only what another runpod made for this very pod; anything else under that name is not ours.
    const labels = existing.Config.Labels ?? {};
    if (labels[Label.managedBy] !== managedByValue || labels[Label.podUid] !== plan.uid) {
      throw new EngineRequestError(
        `a container named ${name} already exists and was not made by runpod for this pod (${existing.Id.slice(0, 12)}); runpod does not touch it: remove or rename it`,
        409,
      );
    }
    return { id: existing.Id, adopted: true };
  }
}
