// The run-once loop for one pod (the kubelet's old runOnce): check -> sync -> sleep with backoff, woken early
// by the engine's events for the pod and by the settle timer, bounded by the retries and the deadline.
import type { Engine } from '../engine/engine.js';
import { EngineUnreachableError } from '../errors.js';
import { Label, managedSelector } from '../plan/labels.js';
import type { PodPlan } from '../plan/translate.js';
import { type Action, decidePodActions } from '../reconcile/decide.js';
import { applyActions } from '../reconcile/apply.js';
import type { ImagePuller } from '../reconcile/images.js';
import { type ObservedPod, observePod } from '../reconcile/observe.js';
import type { Backoff } from './backoff.js';
import { type PodCheck, type RestartCounts, type WaitMode, checkPod, restartCountsOf } from './check.js';
import { Waker } from './waker.js';

export type PodOutcomeStatus = 'succeeded' | 'failed' | 'timeout' | 'interrupted' | 'engine';

export interface PodOutcome {
  plan: PodPlan;
  status: PodOutcomeStatus;
  /** One line: what was reached, or what failed. */
  reason: string;
  check?: PodCheck;
  observed?: ObservedPod;
  /** Every action carried out, in order, with its reason. */
  actions: Action[];
  engineError?: EngineUnreachableError;
  /** The last non-zero exit code seen per instance id (the engine forgets it on restart). */
  lastExitCodes: ReadonlyMap<string, number>;
  checks: number;
  retriesUsed: number;
  startedAt: number;
  endedAt: number;
}

export interface RunPodContext {
  engine: Engine;
  images: ImagePuller;
  mode: WaitMode;
  backoff: Backoff;
  settleMs: number;
  /** Overall deadline, ms since the epoch. */
  deadline?: number;
  signal: AbortSignal;
  now: () => number;
  onAction?: (plan: PodPlan, a: Action) => void;
  onCheck?: (plan: PodPlan, check: PodCheck) => void;
}

function summarize(check: PodCheck | undefined): string {
  if (!check) return 'the pod was never observed';
  const bad = check.containers.filter((v) => !v.ok);
  return bad.map((v) => `${v.name}: ${v.reason}`).join('; ');
}

/** Checks in a row right after a successful sync, before the loop sleeps anyway. */
const maxImmediateChecks = 3;

export async function runPod(plan: PodPlan, ctx: RunPodContext): Promise<PodOutcome> {
  const startedAt = ctx.now();
  const waker = new Waker();
  const actions: Action[] = [];
  const created = new Set<string>();
  let previous: RestartCounts = new Map();
  let syncErrors = new Map<string, string>();
  let subscription: { close(): void } | undefined;
  let check: PodCheck | undefined;
  let observed: ObservedPod | undefined;
  let engineError: EngineUnreachableError | undefined;
  let checks = 0;
  const lastExitCodes = new Map<string, number>();
  let immediateChecks = 0;
  // When the current backoff sleep ends. As in the kubelet's runOnce (check, sync, then sleep the delay), a
  // sleep is armed after the check and sync it follows, so a slow sync (a pull) does not eat the delay.
  let tickAt: number | undefined;

  const finish = (status: PodOutcomeStatus, reason: string): PodOutcome => {
    subscription?.close();
    return {
      plan,
      status,
      reason,
      ...(check ? { check } : {}),
      ...(observed ? { observed } : {}),
      actions,
      ...(engineError ? { engineError } : {}),
      lastExitCodes,
      checks,
      retriesUsed: ctx.backoff.retriesUsed,
      startedAt,
      endedAt: ctx.now(),
    };
  };

  for (;;) {
    if (ctx.signal.aborted) return finish('interrupted', 'interrupted while waiting');
    if (ctx.deadline !== undefined && ctx.now() >= ctx.deadline) {
      // One last look, so the account shows where each container stands now, not at the previous check.
      try {
        observed = await observePod(ctx.engine, plan.namespace, plan.name);
        check = checkPod({ plan, observed, mode: ctx.mode, previous, createdThisRun: created, syncErrors, lastExitCodes, now: ctx.now(), settleMs: ctx.settleMs });
      } catch {
        // The engine is gone too; the last check is the best account there is.
      }
      return finish('timeout', `--timeout passed before the pod was ${ctx.mode}: ${summarize(check)}`);
    }
    let applied = false;
    try {
      if (!subscription) {
        subscription = await ctx.engine.subscribeEvents(
          [managedSelector, `${Label.podUid}=${plan.uid}`],
          (e) => {
            // The engine resets State.ExitCode when it restarts a container; the die event keeps it.
            if (e.action === 'die' && e.labels.exitCode !== undefined) lastExitCodes.set(e.id, Number(e.labels.exitCode));
            waker.wake();
          },
          () => {
            subscription = undefined;
            waker.wake();
          },
        );
      }
      observed = await observePod(ctx.engine, plan.namespace, plan.name);
      checks++;
      for (const list of observed.containers.values()) {
        for (const c of list) if (c.state !== 'running' && c.state !== 'created' && c.exitCode !== 0) lastExitCodes.set(c.id, c.exitCode);
      }
      check = checkPod({ plan, observed, mode: ctx.mode, previous, createdThisRun: created, syncErrors, lastExitCodes, now: ctx.now(), settleMs: ctx.settleMs });
      previous = restartCountsOf(observed);
      engineError = undefined;
      ctx.onCheck?.(plan, check);
      // A container of the current spec that failed and will not be restarted fails the pod, whatever else.
      if (check.failed) return finish('failed', summarize(check));
      // Decide before judging success: a pod whose containers all run may still need a sync (a changed
      // pod-level field, containers stranded by an infra restart), as the kubelet computes actions first.
      const decision = decidePodActions(plan, observed);
      if (decision.actions.length === 0) {
        if (check.ok) return finish('succeeded', ctx.mode === 'completed' ? 'every container completed' : `every container is ${ctx.mode === 'none' ? 'started' : 'running'}`);
        if (ctx.mode === 'none') return finish('succeeded', 'nothing to change (--wait none)');
      } else {
        const result = await applyActions(plan, decision, {
          engine: ctx.engine,
          images: ctx.images,
          onAction: (a) => {
            actions.push(a);
            ctx.onAction?.(plan, a);
          },
        });
        syncErrors = result.errors;
        for (const id of result.created) created.add(id);
        applied = true;
        if (ctx.mode === 'none') {
          return syncErrors.size === 0
            ? finish('succeeded', 'created and started (--wait none)')
            : finish('failed', [...syncErrors].map(([n, e]) => `${n}: ${e}`).join('; '));
        }
      }
    } catch (err) {
      if (!(err instanceof EngineUnreachableError)) throw err;
      // Engine lost (or not up yet): retried within the same budget and deadline, with a new subscription.
      engineError = err;
      subscription?.close();
      subscription = undefined;
    }
    // Look again at once: what apply did is visible now. Bounded, so a sync the engine keeps undoing cannot spin.
    if (applied && syncErrors.size === 0 && ++immediateChecks <= maxImmediateChecks) continue;
    immediateChecks = 0;

    const now = ctx.now();
    if (tickAt === undefined) {
      // A --wait completed job that is running normally uses no retries: only --timeout bounds it.
      const healthy = ctx.mode === 'completed' && check !== undefined && check.containers.every((v) => v.ok || v.healthyRunning);
      const delay = healthy ? ctx.backoff.current() : ctx.backoff.next();
      if (delay === undefined) {
        // Retries spent. A container that is up and only waiting out the settle time has not failed: look
        // again when it has settled (a restart in between raises its count, and that fails it).
        const onlySettling = !engineError && check?.settleAt !== undefined && check.containers.every((v) => v.ok || v.healthyRunning);
        if (!onlySettling) {
          if (engineError) return finish('engine', engineError.message);
          return finish('failed', `not ${ctx.mode} after ${ctx.backoff.retriesUsed} retries: ${summarize(check)}`);
        }
      } else {
        tickAt = now + delay;
      }
    }
    let wakeAt = tickAt ?? check?.settleAt ?? now;
    if (check?.settleAt !== undefined) wakeAt = Math.min(wakeAt, check.settleAt);
    if (ctx.deadline !== undefined) wakeAt = Math.min(wakeAt, ctx.deadline);
    await waker.sleep(wakeAt - now, ctx.signal);
    if (tickAt !== undefined && ctx.now() >= tickAt) tickAt = undefined;
  }
}
