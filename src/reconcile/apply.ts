// apply: carry out what decide said, in the kubelet's order — kill what goes, then the sandbox, then the
// containers (in parallel). A failure about one container is recorded as that container's sync error (the
// pod's failure, exit 1); only losing the engine is thrown (exit 3).
import { type CreateOptions, type Engine, EngineRequestError, NameConflictError } from '../engine/engine.js';
import { EngineUnreachableError } from '../errors.js';
import { Label, managedByValue } from '../plan/labels.js';
import { type PodPlan, type ContainerPlan, instanceCreateOptions } from '../plan/translate.js';
import type { Action, Decision } from './decide.js';
import { ImageUnavailableError, type ImagePuller, type PodAuth } from './images.js';
import { authFromPullSecret } from '../engine/auth.js';
import { runPostStart, stopGracefully } from './hooks.js';
import { resolveImageUser } from '../plan/security.js';
import { VolumeSetupError, VolumeWork, removeStaleVolumes } from './volumes.js';

export interface ApplyResult {
  /** Sync errors by container name ("POD" for the infra container). */
  errors: Map<string, string>;
  /** Ids of the instances this apply created (their restart counts start from 0). */
  created: string[];
  /**
   * Sync errors that no retry can cure (a container whose runAsNonRoot the image breaks, a start the engine
   * refused under restartPolicy Never): the pod has failed.
   * A subset of errors.
   */
  final?: Map<string, string>;
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
export async function withImageUser(engine: Engine, c: ContainerPlan): Promise<ContainerPlan> {
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
}

/** Errors that are the pod's own problem (its image, its ports, its mounts), not the engine's. */
function podProblem(err: unknown): string | undefined {
  if (err instanceof ImageUnavailableError || err instanceof EngineRequestError || err instanceof VolumeSetupError) return err.message;
  return undefined;
}

export async function applyActions(plan: PodPlan, decision: Decision, ctx: ApplyContext): Promise<ApplyResult> {
  const errors = new Map<string, string>();
  const final = new Map<string, string>();
  const created: string[] = [];
  const record = (container: string, err: unknown): void => {
    if (err instanceof EngineUnreachableError) throw err;
    if (err instanceof ContainerConfigError || err instanceof ContainerStartError) {
      errors.set(container, err.message);
      final.set(container, err.message);
      return;
    }
    const problem = podProblem(err);
    if (problem === undefined) throw err;
    errors.set(container, problem);
  };
  const of = <K extends Action['kind']>(kind: K): Extract<Action, { kind: K }>[] =>
    decision.actions.filter((a): a is Extract<Action, { kind: K }> => a.kind === kind);

  // The kubelet's KillPod order: app (and finished init) containers first, then sidecars in reverse order of
  // their start (Kubernetes stops sidecars after the main containers), then the sandbox, so a preStop hook still
  // has the pod's network. Each stop runs the instance's preStop hook within the grace period (hooks.ts).
  const removes = of('remove');
  const sidecarOrder = plan.initContainers.filter((c) => c.initKind === 'sidecar').map((c) => c.name).reverse();
  const removeOne = async (a: Extract<Action, { kind: 'remove' }>): Promise<void> => {
    ctx.onAction?.(a);
    try {
      await stopGracefully(ctx.engine, a.id, plan.gracePeriodSeconds);
      await ctx.engine.removeContainer(a.id, { force: true });
    } catch (err) {
      record(a.container, err);
    }
  };
  await Promise.all(removes.filter((a) => a.container !== plan.infra.name && !sidecarOrder.includes(a.container)).map(removeOne));
  for (const name of sidecarOrder) await Promise.all(removes.filter((a) => a.container === name).map(removeOne));
  await Promise.all(removes.filter((a) => a.container === plan.infra.name).map(removeOne));
  await Promise.all(
    of('retire').map(async (a) => {
      ctx.onAction?.(a);
      try {
        await ctx.engine.updateRestartPolicy(a.id, 'no');
      } catch (err) {
        record(a.container, err);
      }
    }),
  );

  await Promise.all(
    of('kill').map(async (a) => {
      ctx.onAction?.(a);
      try {
        await ctx.engine.killForRestart(a.id, a.gracePeriodSeconds);
      } catch (err) {
        record(a.container, err);
      }
    }),
  );

  // The pod's imagePullSecrets come first, then the Docker config (the kubelet's order: pod secrets, then
  // the node's credentials). The first pull secret with an entry for the registry is used.
  const podAuth: PodAuth | undefined =
    plan.pullSecrets.length === 0
      ? undefined
      : {
          id: plan.key,
          lookup: async (image) => {
            for (const s of plan.pullSecrets) {
              const auth = authFromPullSecret(s.config, s.legacy, image, s.name);
              if (auth) return auth;
            }
            return undefined;
          },
        };
  let infraId = decision.infraId;
  const byName = new Map([...plan.initContainers, ...plan.containers].map((c) => [c.name, c]));
  // Volumes are made ready (once per sync) before the containers that mount them are created (volumes.ts). When
  // this sync makes the pod's infra container, the termination-message files of its new instances are written
  // through it while it starts; otherwise each create makes its own in prepare, once its image is there.
  const volumes = new VolumeWork(ctx.engine, plan);
  const creates = of('create').map((a) => ({ container: byName.get(a.container)!, attempt: a.attempt }));
  // Awaited before this returns (work still under way would be cut off with runpod). Its failure is the failure
  // of the creates that wait for the files (prepare), so here it is only settled.
  let termFiles: Promise<void> = Promise.resolve();
  for (const a of [...of('createInfra'), ...of('startInfra')]) {
    ctx.onAction?.(a);
    try {
      if (a.kind === 'createInfra') {
        await ctx.images.ensure(plan.infra.image, plan.infra.pullPolicy);
        await volumes.ensureInfraVolumes();
        infraId = await createInstance(ctx.engine, plan, plan.infra, a.attempt, undefined);
        created.push(infraId);
        if (creates.length > 0) termFiles = volumes.makeTerminationFiles(creates, infraId).catch(() => undefined);
      } else {
        infraId = a.id;
      }
      await ctx.engine.startContainer(infraId);
    } catch (err) {
      record(plan.infra.name, err);
      // Without a sandbox no container can join it: they wait for the next sync.
      await termFiles;
      return { errors, created, final };
    }
  }

  const startInstance = async (id: string): Promise<void> => {
    try {
      await ctx.engine.startContainer(id);
    } catch (err) {
      if (err instanceof EngineRequestError && plan.restartPolicy === 'Never') throw new ContainerStartError(`${err.message} (StartError: restartPolicy Never does not start it again)`);
      throw err;
    }
  };
  // postStart right after the start; a failure kills the container (with its preStop and grace period, as the
  // kubelet's killContainer) and is this container's sync error, FailedPostStartHook (hooks.ts).
  const postStart = async (name: string, id: string): Promise<void> => {
    const failure = await runPostStart(ctx.engine, id, byName.get(name)?.lifecycle?.postStart);
    if (failure === undefined) return;
    errors.set(name, failure);
    await stopGracefully(ctx.engine, id, plan.gracePeriodSeconds);
  };
  await Promise.all([
    ...of('create').map(async (a) => {
      ctx.onAction?.(a);
      const c = byName.get(a.container)!;
      try {
        await ctx.images.ensure(c.image, c.pullPolicy, podAuth);
        const id = await createInstance(ctx.engine, plan, await withImageUser(ctx.engine, c), a.attempt, infraId, (o) => volumes.prepare(c, o, infraId, a.attempt));
        created.push(id);
        await startInstance(id);
        await postStart(a.container, id);
      } catch (err) {
        record(a.container, err);
      }
    }),
    ...of('start').map(async (a) => {
      ctx.onAction?.(a);
      try {
        await startInstance(a.id);
        await postStart(a.container, a.id);
      } catch (err) {
        record(a.container, err);
      }
    }),
  ]);
  await termFiles;
  // Volumes of this pod the plan no longer names (changed ConfigMap data, a changed emptyDir) go once unused.
  if (of('create').length > 0) {
    await removeStaleVolumes(ctx.engine, plan).catch((err: unknown) => {
      if (err instanceof EngineUnreachableError) throw err;
    });
  }
  return { errors, created, final };
}

/**
 * Create one instance. The name is deterministic, so when another runpod created it first the engine answers
 * 409 and this one adopts the existing container instead of failing (design.md: no lock file needed).
 */
async function createInstance(
  engine: Engine,
  plan: PodPlan,
  c: ContainerPlan,
  attempt: number,
  infraId: string | undefined,
  prepare?: (o: CreateOptions) => Promise<CreateOptions>,
): Promise<string> {
  const { name, options }: { name: string; options: CreateOptions } = instanceCreateOptions(plan, c, attempt, infraId);
  try {
    return await engine.createContainer(name, prepare ? await prepare(options) : options);
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
    return existing.Id;
  }
}
