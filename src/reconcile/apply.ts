// apply: carry out what decide said, in the kubelet's order — kill what goes, then the sandbox, then the
// containers (in parallel). A failure about one container is recorded as that container's sync error (the
// pod's failure, exit 1); only losing the engine is thrown (exit 3).
import { type CreateOptions, type Engine, EngineRequestError, NameConflictError } from '../engine/engine.js';
import { EngineUnreachableError } from '../errors.js';
import { Label, managedByValue } from '../plan/labels.js';
import { type PodPlan, type ContainerPlan, instanceCreateOptions } from '../plan/translate.js';
import type { Action, Decision } from './decide.js';
import { ImageUnavailableError, type ImagePuller } from './images.js';

export interface ApplyResult {
  /** Sync errors by container name ("POD" for the infra container). */
  errors: Map<string, string>;
  /** Ids of the instances this apply created (their restart counts start from 0). */
  created: string[];
}

export interface ApplyContext {
  engine: Engine;
  images: ImagePuller;
  onAction?: (a: Action) => void;
}

/** Errors that are the pod's own problem (its image, its ports, its mounts), not the engine's. */
function podProblem(err: unknown): string | undefined {
  if (err instanceof ImageUnavailableError || err instanceof EngineRequestError) return err.message;
  return undefined;
}

export async function applyActions(plan: PodPlan, decision: Decision, ctx: ApplyContext): Promise<ApplyResult> {
  const errors = new Map<string, string>();
  const created: string[] = [];
  const record = (container: string, err: unknown): void => {
    if (err instanceof EngineUnreachableError) throw err;
    const problem = podProblem(err);
    if (problem === undefined) throw err;
    errors.set(container, problem);
  };
  const of = <K extends Action['kind']>(kind: K): Extract<Action, { kind: K }>[] =>
    decision.actions.filter((a): a is Extract<Action, { kind: K }> => a.kind === kind);

  await Promise.all(
    of('remove').map(async (a) => {
      ctx.onAction?.(a);
      try {
        await ctx.engine.stopContainer(a.id, plan.gracePeriodSeconds);
        await ctx.engine.removeContainer(a.id, { force: true });
      } catch (err) {
        record(a.container, err);
      }
    }),
  );
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

  let infraId = decision.infraId;
  for (const a of [...of('createInfra'), ...of('startInfra')]) {
    ctx.onAction?.(a);
    try {
      if (a.kind === 'createInfra') {
        await ctx.images.ensure(plan.infra.image, plan.infra.pullPolicy);
        infraId = await createInstance(ctx.engine, plan, plan.infra, a.attempt, undefined);
        created.push(infraId);
      } else {
        infraId = a.id;
      }
      await ctx.engine.startContainer(infraId);
    } catch (err) {
      record(plan.infra.name, err);
      // Without a sandbox no container can join it: they wait for the next sync.
      return { errors, created };
    }
  }

  const byName = new Map(plan.containers.map((c) => [c.name, c]));
  await Promise.all([
    ...of('create').map(async (a) => {
      ctx.onAction?.(a);
      const c = byName.get(a.container)!;
      try {
        await ctx.images.ensure(c.image, c.pullPolicy);
        const id = await createInstance(ctx.engine, plan, c, a.attempt, infraId);
        created.push(id);
        await ctx.engine.startContainer(id);
      } catch (err) {
        record(a.container, err);
      }
    }),
    ...of('start').map(async (a) => {
      ctx.onAction?.(a);
      try {
        await ctx.engine.startContainer(a.id);
      } catch (err) {
        record(a.container, err);
      }
    }),
  ]);
  return { errors, created };
}

/**
 * Create one instance. The name is deterministic, so when another runpod created it first the engine answers
 * 409 and this one adopts the existing container instead of failing (design.md: no lock file needed).
 */
async function createInstance(engine: Engine, plan: PodPlan, c: ContainerPlan, attempt: number, infraId: string | undefined): Promise<string> {
  const { name, options }: { name: string; options: CreateOptions } = instanceCreateOptions(plan, c, attempt, infraId);
  try {
    return await engine.createContainer(name, options);
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
