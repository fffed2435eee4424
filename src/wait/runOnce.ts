// The run-once loop for one pod (the kubelet's old runOnce): check -> sync -> sleep with backoff, woken early
// by the engine's events for the pod and by the settle timer, bounded by the retries and the deadline. Each pass
// reads like the kubelet's SyncPod: observe, check, decide, apply, and judge what came of it. What the wait asks
// (what counts as reached, whether probes run, whether a pass ends it) is the strategy's (strategies/); what the
// loop did is its ledger's (podLedger.ts); the probes' kills are ProbeKills'.
import { StopWaiting } from './bounded.js';
import { Deadline } from './deadline.js';
import type { Engine } from '../engine/ports/engine.js';
import { EngineUnreachableError } from '../errors.js';
import { Label, managedSelector } from '../kube/labels.js';
import { type Decision, actionKey, decidePodActions, isHousekeeping, syncActions } from '../reconcile/decide.js';
import { type ActionResult, actionContainer, applyActions } from '../reconcile/apply.js';
import type { ImagePuller } from '../reconcile/images.js';
import { type ObservedPod, observePod } from '../reconcile/observe.js';
import type { Backoff } from './backoff.js';
import { checkPod, restartCountsOf } from './check.js';
import { Convergence, observedFingerprint } from './convergence.js';
import { CrashLoopRule, defaultCrashLoopLimit } from './crashLoop.js';
import { OwnEvents, recordingEngine } from './ownEvents.js';
import { type WaitMode, type WaitStrategy, waitStrategy } from './strategies/index.js';
import { Waker } from './waker.js';
import { type ContainerProbeStatus, ProbeManager, addressingFor } from './probes/manager.js';
import { describeHandler } from '../kube/probes.js';
import type { PodPlan } from '../plan/types.js';
import type { Action } from '../reconcile/action.js';
import type { PodCheck, RestartCounts } from './podCheck.js';
import { PodLedger, type PodOutcome, type PodOutcomeStatus } from './podLedger.js';

export type { PodOutcome, PodOutcomeStatus } from './podLedger.js';

export interface RunPodContext {
  engine: Engine;
  images: ImagePuller;
  mode: WaitMode;
  backoff: Backoff;
  settleMs: number;
  /** The bound of the pod's wait: --timeout, or a workload's deadline if earlier (it names which). Default none. */
  deadline?: Deadline;
  signal: AbortSignal;
  now: () => number;
  onAction?: (plan: PodPlan, a: Action) => void;
  onCheck?: (plan: PodPlan, check: PodCheck) => void;
  onWarning?: (plan: PodPlan, message: string) => void;
  /** What came of each action, as apply says it. */
  onResult?: (plan: PodPlan, r: ActionResult) => void;
  /**
   * A Job under restartPolicy OnFailure bounds this pod's container restarts with its backoffLimit (pkg/controller/job
   * pastBackoffLimitOnFailure), not the run-once retries: told the pod's restarts at each look, it answers why the pod
   * must stop (the pod then ends failed), and the loop spends no retry while a container that has run is restarted.
   */
  restartsBounded?: (restarts: number) => string | undefined;
  /**
   * --crash-loop-limit: restarts in a row without coming up that fail the pod (crashLoop.ts); 0 never. Not applied
   * under restartsBounded (a Job's backoffLimit judges its pods' restarts).
   */
  crashLoopLimit?: number;
}

/** The pod's container restarts as the kubelet counts them: each container's replaced instances plus its engine restarts. */
export function podRestarts(plan: PodPlan, observed: ObservedPod): number {
  let n = 0;
  for (const list of [...observed.containers.values(), ...observed.initContainers.values()]) {
    const newest = list.find((c) => c.podUid === plan.uid);
    if (newest) n += newest.attempt + newest.restartCount;
  }
  return n;
}

/** Checks in a row right after a successful sync, before the loop sleeps anyway. */
/** A failure's reason and the rest of the pod's account, when there is more to say. */
function withRest(reason: string, rest: string): string {
  return rest === '' ? reason : `${reason}; ${rest}`;
}

const maxImmediateChecks = 3;

/** How long the last look at the deadline may take: an engine that does not answer by then is not waited for. */
const lastLookMs = 2_000;

/** What one pass of the loop came to: the run's end, or how soon to look again. */
type Pass = { end: PodOutcome } | { next: 'now' | 'later' };

export async function runPod(plan: PodPlan, ctx: RunPodContext): Promise<PodOutcome> {
  const run = new PodRun(plan, ctx);
  try {
    for (;;) {
      const early = await run.stopped();
      if (early) return early;
      const pass = await run.pass();
      if ('end' in pass) return pass.end;
      const spent = await run.sleep(pass.next);
      if (spent) return spent;
    }
  } finally {
    run.close();
  }
}

/**
 * The probes run from the host while runpod watches (a change of their results wakes the loop), and the kills they
 * ask for: one per instance start, remembered so the account says why the instance that followed exists.
 */
class ProbeKills {
  private status: Map<string, ContainerProbeStatus> | undefined;
  /** Instance starts already killed for a failed probe (id@startedAt). */
  private readonly killedStarts = new Set<string>();
  /** Instance id -> what the probe said before runpod killed it. */
  readonly killed = new Map<string, string>();

  constructor(
    private readonly plan: PodPlan,
    private readonly manager: ProbeManager | undefined,
  ) {}

  /** The probes' results as of this observation. */
  update(observed: ObservedPod): Map<string, ContainerProbeStatus> | undefined {
    this.manager?.update(observed);
    this.status = this.manager?.statuses();
    return this.status;
  }

  /** decide, with the kills the probes ask for. */
  decide(observed: ObservedPod, now: number): Decision {
    const kills = new Map<string, { reason: string; gracePeriodSeconds: number }>();
    for (const [name, st] of this.status ?? []) {
      if (!st.kill || this.killedStarts.has(`${st.instanceId}@${st.startedAt}`)) continue;
      const spec = [...this.plan.initContainers, ...this.plan.containers].find((c) => c.name === name)?.probes?.[st.kill.kind];
      kills.set(st.instanceId, {
        reason: `${st.kill.kind} probe (${spec ? describeHandler(spec.handler) : '?'}) failed: ${st.kill.output}`,
        gracePeriodSeconds: st.kill.gracePeriodSeconds,
      });
    }
    // now: the back-off before an exited (init) container runs again; probeStarted: sidecars' startup probes.
    const probeStarted = new Map([...(this.status?.values() ?? [])].map((st) => [st.instanceId, st.started] as const));
    const decision = decidePodActions(this.plan, observed, kills, { now, probeStarted });
    for (const a of decision.kill) {
      const st = [...(this.status?.values() ?? [])].find((x) => x.instanceId === a.id);
      if (st) this.killedStarts.add(`${st.instanceId}@${st.startedAt}`);
      this.killed.set(a.id, a.reason);
    }
    return decision;
  }

  close(): void {
    this.manager?.close();
  }
}

/** One pod's run: the state the loop keeps between passes. */
class PodRun {
  private readonly wait: WaitStrategy;
  private readonly deadline: Deadline;
  private readonly startedAt: number;
  private readonly waker = new Waker();
  private readonly own: OwnEvents;
  private readonly engine: Engine;
  private readonly ledger: PodLedger;
  private readonly probes: ProbeKills;
  private readonly convergence = new Convergence();
  /** Housekeeping that repeats without effect is given up (with a warning), never the pod's failure. */
  private readonly tidying = new Convergence();
  private readonly givenUp = new Set<string>();
  /** The crash-loop rule (crashLoop.ts), unless a Job's bound judges the restarts. */
  private readonly crashLoop: CrashLoopRule | undefined;
  private subscription: { close(): void } | undefined;
  private previous: RestartCounts = new Map();
  private immediateChecks = 0;
  // When the current backoff sleep ends. As in the kubelet's runOnce (check, sync, then sleep the delay), a
  // sleep is armed after the check and sync it follows, so a slow sync (a pull) does not eat the delay.
  private tickAt: number | undefined;

  constructor(
    private readonly plan: PodPlan,
    private readonly ctx: RunPodContext,
  ) {
    this.wait = waitStrategy(ctx.mode);
    this.deadline = ctx.deadline ?? Deadline.none;
    this.crashLoop = ctx.restartsBounded === undefined ? new CrashLoopRule(plan, ctx.crashLoopLimit ?? defaultCrashLoopLimit) : undefined;
    this.startedAt = ctx.now();
    this.own = new OwnEvents(ctx.now);
    this.engine = recordingEngine(ctx.engine, this.own);
    this.ledger = new PodLedger(plan, ctx, this.wait.goal);
    this.probes = new ProbeKills(
      plan,
      this.wait.runsProbes && ProbeManager.wanted(plan)
        ? new ProbeManager(plan, { engine: ctx.engine, addressing: addressingFor(ctx.engine.address), onChange: () => this.waker.wake(), now: ctx.now })
        : undefined,
    );
  }

  close(): void {
    this.subscription?.close();
    this.probes.close();
  }

  /** A signal or the deadline ends the run before the next pass. */
  async stopped(): Promise<PodOutcome | undefined> {
    if (this.ctx.signal.aborted) return this.finish('interrupted', 'interrupted while waiting');
    if (!this.deadline.passed(this.ctx.now())) return undefined;
    await this.lookOnceMore(this.deadline.plus(lastLookMs));
    const l = this.ledger;
    // A container crashing again and again when the deadline comes: the cause is known, and it is said (exit 1).
    const looping = this.crashLoop?.atDeadline(l.observed, l.check, l.lastExitCodes, this.deadline.by);
    if (looping !== undefined) return this.finish('failed', withRest(looping.reason, l.accountBeside(looping.containers)));
    return this.finish('timeout', `${this.deadline.by} passed before the pod was ${this.wait.goal}: ${l.account()}`);
  }

  /** observe -> check -> decide -> apply, and what came of it. */
  async pass(): Promise<Pass> {
    const l = this.ledger;
    try {
      await this.subscribe();
      const observed = await this.observe();
      const looping = this.crashLoop?.judge(observed, l.check!, l.lastExitCodes);
      const fails = looping?.reason ?? this.ctx.restartsBounded?.(podRestarts(this.plan, observed));
      if (fails !== undefined || l.check!.failed) {
        l.pending = [];
        return { end: this.finish('failed', fails !== undefined ? withRest(fails, l.accountBeside(looping?.containers)) : l.account()) };
      }
      const decision = this.probes.decide(observed, this.ctx.now());
      decision.housekeeping = decision.housekeeping.filter((a) => !this.givenUp.has(actionKey(a)));
      const sync = syncActions(decision);
      l.pending = sync;
      // Success is the wait settling with no sync action pending; housekeeping is carried out on the way out.
      const settled = sync.length === 0 ? this.wait.settled(l.check!.ok) : undefined;
      if (settled !== undefined) {
        await this.tidyUp(decision);
        return { end: this.finish('succeeded', settled) };
      }
      if (sync.length === 0 && decision.housekeeping.length === 0) return { next: 'later' };
      return await this.applied(decision, sync, observed);
    } catch (err) {
      // The deadline or a signal came first: the loop's top ends the run.
      if (err instanceof StopWaiting) return { next: 'now' };
      if (!(err instanceof EngineUnreachableError)) throw err;
      // Engine lost (or not up yet): retried within the same budget and deadline, with a new subscription. Said
      // once when it goes, so a log does not go on reading the last answer as news.
      if (!l.engineError) this.ctx.onWarning?.(this.plan, `${err.message}; looking again within --retries (${this.ctx.backoff.retriesUsed} used), then exit 3`);
      l.engineError = err;
      this.convergence.reset();
      this.subscription?.close();
      this.subscription = undefined;
      return { next: 'later' };
    }
  }

  /** Carry the decision out and judge what came of it. */
  private async applied(decision: Decision, sync: Action[], observed: ObservedPod): Promise<Pass> {
    const l = this.ledger;
    const results = await this.apply(decision);
    const stuck = sync.length > 0 ? this.convergence.record(sync, observedFingerprint(observed), results) : undefined;
    this.giveUpRepeatedHousekeeping(decision, observed, results);
    // A sync error no retry can cure fails the pod now: runAsNonRoot against a root image (the kubelet would
    // keep reporting CreateContainerConfigError), a start refused under restartPolicy Never (StartError).
    const final = results.filter((r) => r.final);
    if (final.length > 0 || stuck !== undefined) {
      await this.lookOnceMore(Deadline.at(this.ctx.now() + lastLookMs, this.deadline.by));
      return { end: this.finish('failed', stuck ?? final.map((r) => `${actionContainer(r.action)}: ${r.error}`).join('; ')) };
    }
    if (this.wait.endsAfterSync) {
      if (l.syncErrors.size === 0) return { end: this.finish('succeeded', 'created and started (--wait none)') };
      await this.lookOnceMore(Deadline.at(this.ctx.now() + lastLookMs, this.deadline.by));
      return { end: this.finish('failed', l.account()) };
    }
    // Look again at once: what apply did is visible now. Bounded, so a sync the engine keeps undoing cannot spin.
    return { next: sync.length > 0 && l.syncErrors.size === 0 && ++this.immediateChecks <= maxImmediateChecks ? 'now' : 'later' };
  }

  /** Sleep until the next tick (spending a retry when one is armed), the settle time, an event, or the deadline. */
  async sleep(next: 'now' | 'later'): Promise<PodOutcome | undefined> {
    if (next === 'now') return undefined;
    this.immediateChecks = 0;
    const now = this.ctx.now();
    const check = this.ledger.check;
    if (this.tickAt === undefined) {
      // A --wait completed job that is running normally uses no retries: only --timeout bounds it.
      // Under a Job's bound on restarts, a container that has run and is being restarted is that bound's to judge.
      const restarting = (v: PodCheck['containers'][number]): boolean => this.ctx.restartsBounded !== undefined && v.instance?.startedAt !== undefined && !v.terminal;
      // The check is the last the engine answered: while the engine is lost it says nothing of now, and each look
      // spends a retry (design.md: an engine lost mid-wait is retried within the same budget, then exit 3).
      const healthy = !this.ledger.engineError && check !== undefined && check.containers.every((v) => v.ok || v.healthyRunning || restarting(v));
      const delay = this.wait.patient && healthy ? this.ctx.backoff.current() : this.ctx.backoff.next();
      if (delay === undefined) {
        // Retries spent. A container that is up and only waiting out the settle time has not failed: look
        // again when it has settled (a restart in between raises its count, and that fails it).
        const engineError = this.ledger.engineError;
        const onlySettling = !engineError && check?.settleAt !== undefined && healthy;
        if (!onlySettling) {
          if (engineError) return this.finish('engine', engineError.message);
          return this.finish('failed', `not ${this.wait.goal} after ${this.ctx.backoff.retriesUsed} retries: ${this.ledger.account()}`);
        }
      } else {
        this.tickAt = now + delay;
      }
    }
    let wakeAt = this.tickAt ?? check?.settleAt ?? now;
    if (check?.settleAt !== undefined) wakeAt = Math.min(wakeAt, check.settleAt);
    if (this.deadline.at !== undefined) wakeAt = Math.min(wakeAt, this.deadline.at);
    await this.waker.sleep(wakeAt - now, this.ctx.signal);
    if (this.tickAt !== undefined && this.ctx.now() >= this.tickAt) this.tickAt = undefined;
    return undefined;
  }

  private async subscribe(): Promise<void> {
    if (this.subscription) return;
    const subscribing = this.ctx.engine.subscribeEvents(
      [managedSelector, `${Label.podUid}=${this.plan.uid}`],
      (e) => {
        // The engine resets State.ExitCode when it restarts a container; the die event keeps it.
        if (e.action === 'die' && e.labels.exitCode !== undefined) this.ledger.lastExitCodes.set(e.id, Number(e.labels.exitCode));
        if (this.own.wakes(e)) this.waker.wake();
      },
      () => {
        this.subscription = undefined;
        this.waker.wake();
      },
    );
    this.subscription = await this.deadline.bound(subscribing, this.ctx.now, this.ctx.signal).catch((err: unknown) => {
      // Given up on: a subscription the engine grants later is closed at once.
      subscribing.then(
        (s) => s.close(),
        () => undefined,
      );
      throw err;
    });
  }

  /** Observe the pod and check it against the wait; bounded by the deadline (or the last look's own) and a signal. */
  private async observe(by: Deadline = this.deadline): Promise<ObservedPod> {
    const l = this.ledger;
    const observed = await by.bound(observePod(this.ctx.engine, this.plan.namespace, this.plan.name), this.ctx.now, this.ctx.signal);
    l.observed = observed;
    l.checks++;
    l.noteExits(observed);
    const probeStatus = this.probes.update(observed);
    l.check = checkPod({
      plan: this.plan,
      observed,
      mode: this.wait.mode,
      previous: this.previous,
      createdThisRun: l.created,
      syncErrors: l.syncErrors,
      lastExitCodes: l.lastExitCodes,
      now: this.ctx.now(),
      settleMs: this.ctx.settleMs,
      ...(probeStatus ? { probes: probeStatus } : {}),
      probeKilled: this.probes.killed,
    });
    this.previous = restartCountsOf(observed);
    l.engineError = undefined;
    this.ctx.onCheck?.(this.plan, l.check);
    return observed;
  }

  /**
   * Carry the decision out. Bounded by the deadline only: a signal lets the sync finish (cut short, it would leave
   * half-made work such as a volume helper behind), and a second signal stops runpod at once (main.ts).
   */
  private async apply(decision: Decision, until: Deadline = this.deadline): Promise<ActionResult[]> {
    const announced: Action[] = [];
    const results: ActionResult[] = [];
    try {
      await until.bound(
        applyActions(this.plan, decision, {
          engine: this.engine,
          images: this.ctx.images,
          onAction: (a) => {
            announced.push(a);
            this.ledger.announced(a);
          },
          onResult: (r) => results.push(r),
        }),
        this.ctx.now,
      );
    } catch (err) {
      // Cut short: every action that was begun has a result all the same, so the account says what was under way.
      const why = err instanceof StopWaiting ? 'cut short by --timeout' : err instanceof EngineUnreachableError ? `cut short: ${err.message}` : undefined;
      if (why !== undefined) {
        for (const a of announced) if (!results.some((r) => r.action === a)) results.push({ action: a, housekeeping: isHousekeeping(decision, a), ok: false, error: why });
      }
      this.ledger.record(results);
      throw err;
    }
    this.ledger.record(results);
    return results;
  }

  /**
   * Housekeeping on the way out of a pod that has reached its wait: bounded by a short allowance rather than the
   * deadline, and whatever goes wrong is a warning, never the pod's outcome.
   */
  private async tidyUp(decision: Decision): Promise<void> {
    if (decision.housekeeping.length === 0) return;
    try {
      await this.apply(decision, Deadline.at(this.ctx.now() + lastLookMs, this.deadline.by));
    } catch (err) {
      if (!(err instanceof StopWaiting) && !(err instanceof EngineUnreachableError)) throw err;
      this.ledger.warn(`housekeeping was cut short (${err instanceof EngineUnreachableError ? err.message : 'it took too long'}); it does not affect the pod`);
    }
  }

  private giveUpRepeatedHousekeeping(decision: Decision, observed: ObservedPod, results: readonly ActionResult[]): void {
    if (decision.housekeeping.length === 0) return;
    const targets = new Set(decision.housekeeping.map((a) => a.id));
    const stuck = this.tidying.record(decision.housekeeping, observedFingerprint(observed, targets), results);
    if (stuck === undefined) return;
    for (const a of decision.housekeeping) this.givenUp.add(actionKey(a));
    this.ledger.warn(`${stuck}; given up for this run`);
  }

  /** One last look before the end, so the account shows where each container stands now, not at the previous check. */
  private async lookOnceMore(by: Deadline): Promise<void> {
    try {
      const observed = await this.observe(by);
      // What is still pending now, as decide would say it (pure: nothing is carried out).
      this.ledger.pending = syncActions(decidePodActions(this.plan, observed, new Map(), { now: this.ctx.now() }));
    } catch {
      // The engine is gone too; the last check is the best account there is.
    }
  }

  private finish(status: PodOutcomeStatus, reason: string): PodOutcome {
    this.close();
    return this.ledger.outcome(status, reason, { retriesUsed: this.ctx.backoff.retriesUsed, startedAt: this.startedAt, endedAt: this.ctx.now() });
  }
}
