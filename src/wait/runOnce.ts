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
import { type ContainerProbeStatus, ProbeManager, addressingFor } from './probes/manager.js';
import { describeHandler } from './probes/types.js';

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

/** How long the last look at the deadline may take: an engine that does not answer by then is not waited for. */
const lastLookMs = 2_000;

/** The deadline passed or a signal came while an engine request was still unanswered. */
class StopWaiting extends Error {}

/**
 * A request a frozen engine never answers (dockerd stopped, not gone: it accepts connections and never replies)
 * must not hold the loop past the deadline or a signal (design.md: engine lost mid-wait). The work races them;
 * a lost race abandons it and throws StopWaiting, and the loop's top then ends the run.
 */
function bounded<T>(work: Promise<T>, ctx: RunPodContext, until: number | undefined = ctx.deadline, bySignal = true): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const settle = (): void => {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', stop);
    };
    function stop(): void {
      settle();
      reject(new StopWaiting());
    }
    if (bySignal && ctx.signal.aborted) return stop();
    if (until !== undefined) timer = setTimeout(stop, Math.max(0, until - ctx.now()));
    if (bySignal) ctx.signal.addEventListener('abort', stop, { once: true });
    work.then(
      (v) => {
        settle();
        resolve(v);
      },
      (err: unknown) => {
        settle();
        reject(err);
      },
    );
  });
}

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
  // Probes run from the host while runpod watches; a change of their results wakes the loop at once.
  const probes = ctx.mode !== 'none' && ProbeManager.wanted(plan)
    ? new ProbeManager(plan, { engine: ctx.engine, addressing: addressingFor(ctx.engine.address), onChange: () => waker.wake(), now: ctx.now })
    : undefined;
  let probeStatus: Map<string, ContainerProbeStatus> | undefined;
  /** Instance starts already killed for a failed probe (id@startedAt): one kill per start. */
  const killedStarts = new Set<string>();
  /** Instance id -> what the probe said before runpod killed it, for the account of what followed. */
  const probeKilled = new Map<string, string>();
  const probeInput = (): { probes?: Map<string, ContainerProbeStatus>; probeKilled: Map<string, string> } => ({
    ...(probeStatus ? { probes: probeStatus } : {}),
    probeKilled,
  });

  const finish = (status: PodOutcomeStatus, reason: string): PodOutcome => {
    subscription?.close();
    probes?.close();
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

  /** One last look before the end, so the account shows where each container stands now, not at the previous check. */
  const lookOnceMore = async (by: number): Promise<void> => {
    try {
      observed = await bounded(observePod(ctx.engine, plan.namespace, plan.name), ctx, by);
      probes?.update(observed);
      probeStatus = probes?.statuses();
      check = checkPod({ plan, observed, mode: ctx.mode, previous, createdThisRun: created, syncErrors, lastExitCodes, now: ctx.now(), settleMs: ctx.settleMs, ...probeInput() });
    } catch {
      // The engine is gone too; the last check is the best account there is.
    }
  };

  for (;;) {
    if (ctx.signal.aborted) return finish('interrupted', 'interrupted while waiting');
    if (ctx.deadline !== undefined && ctx.now() >= ctx.deadline) {
      await lookOnceMore(ctx.deadline + lastLookMs);
      return finish('timeout', `--timeout passed before the pod was ${ctx.mode}: ${summarize(check)}`);
    }
    let applied = false;
    try {
      if (!subscription) {
        const subscribing = ctx.engine.subscribeEvents(
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
        subscription = await bounded(subscribing, ctx).catch((err: unknown) => {
          // Given up on: a subscription the engine grants later is closed at once.
          subscribing.then((s) => s.close(), () => undefined);
          throw err;
        });
      }
      observed = await bounded(observePod(ctx.engine, plan.namespace, plan.name), ctx);
      checks++;
      for (const list of observed.containers.values()) {
        for (const c of list) if (c.state !== 'running' && c.state !== 'created' && c.exitCode !== 0) lastExitCodes.set(c.id, c.exitCode);
      }
      probes?.update(observed);
      probeStatus = probes?.statuses();
      check = checkPod({ plan, observed, mode: ctx.mode, previous, createdThisRun: created, syncErrors, lastExitCodes, now: ctx.now(), settleMs: ctx.settleMs, ...probeInput() });
      previous = restartCountsOf(observed);
      engineError = undefined;
      ctx.onCheck?.(plan, check);
      // A container of the current spec that failed and will not be restarted fails the pod, whatever else.
      if (check.failed) return finish('failed', summarize(check));
      // Decide before judging success: a pod whose containers all run may still need a sync (a changed
      // pod-level field, containers stranded by an infra restart), as the kubelet computes actions first.
      const kills = new Map<string, { reason: string; gracePeriodSeconds: number }>();
      for (const [name, st] of probeStatus ?? []) {
        if (!st.kill || killedStarts.has(`${st.instanceId}@${st.startedAt}`)) continue;
        const spec = [...plan.initContainers, ...plan.containers].find((c) => c.name === name)?.probes?.[st.kill.kind];
        const said = `${st.kill.kind} probe (${spec ? describeHandler(spec.handler) : '?'}) failed: ${st.kill.output}`;
        kills.set(st.instanceId, { reason: said, gracePeriodSeconds: st.kill.gracePeriodSeconds });
      }
      // now: the back-off before an exited (init) container runs again; probeStarted: sidecars' startup probes.
      const probeStarted = new Map([...(probeStatus?.values() ?? [])].map((st) => [st.instanceId, st.started] as const));
      const decision = decidePodActions(plan, observed, kills, { now: ctx.now(), probeStarted });
      for (const a of decision.actions) {
        if (a.kind !== 'kill') continue;
        const st = [...(probeStatus ?? new Map<string, ContainerProbeStatus>()).values()].find((x) => x.instanceId === a.id);
        if (st) killedStarts.add(`${st.instanceId}@${st.startedAt}`);
        probeKilled.set(a.id, a.reason);
      }
      if (decision.actions.length === 0) {
        if (check.ok) return finish('succeeded', ctx.mode === 'completed' ? 'every container completed' : `every container is ${ctx.mode === 'none' ? 'started' : ctx.mode === 'ready' ? 'ready' : 'running'}`);
        if (ctx.mode === 'none') return finish('succeeded', 'nothing to change (--wait none)');
      } else {
        // Bounded by the deadline only: a signal lets the sync finish (cut short, it would leave half-made work such
        // as a volume helper behind), and a second signal stops runpod at once (main.ts).
        const result = await bounded(applyActions(plan, decision, {
          engine: ctx.engine,
          images: ctx.images,
          onAction: (a) => {
            actions.push(a);
            ctx.onAction?.(plan, a);
          },
        }), ctx, ctx.deadline, false);
        syncErrors = result.errors;
        for (const id of result.created) created.add(id);
        applied = true;
        // A sync error no retry can cure fails the pod now: runAsNonRoot against a root image (the kubelet would
        // keep reporting CreateContainerConfigError), a start refused under restartPolicy Never (StartError).
        if (result.final !== undefined && result.final.size > 0) {
          await lookOnceMore(ctx.now() + lastLookMs);
          return finish('failed', [...result.final].map(([n, e]) => `${n}: ${e}`).join('; '));
        }
        if (ctx.mode === 'none') {
          return syncErrors.size === 0
            ? finish('succeeded', 'created and started (--wait none)')
            : finish('failed', [...syncErrors].map(([n, e]) => `${n}: ${e}`).join('; '));
        }
      }
    } catch (err) {
      // The deadline or a signal came first: the loop's top ends the run.
      if (err instanceof StopWaiting) continue;
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
