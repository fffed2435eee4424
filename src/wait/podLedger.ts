// What one pod's run-once loop has done and seen, kept for its account: the actions and what came of them, the
// warnings, the instances it made, the exit codes the engine forgets, the sync actions still wanted, and the
// engine's last failure. The loop (runOnce.ts) drives; this only records and tells it as the outcome a user reads.
import type { EngineUnreachableError } from '../errors.js';
import { type ActionResult, syncErrorsOf } from '../reconcile/apply.js';
import { type Action, describeAction } from '../reconcile/action.js';
import { actionKey } from '../reconcile/decide.js';
import type { ObservedPod } from '../reconcile/observe.js';
import type { PodPlan } from '../plan/types.js';
import type { PodCheck } from './podCheck.js';

export type PodOutcomeStatus = 'succeeded' | 'failed' | 'timeout' | 'interrupted' | 'engine';

export interface PodOutcome {
  plan: PodPlan;
  status: PodOutcomeStatus;
  /** One line: what was reached, or what failed. Never empty. */
  reason: string;
  check?: PodCheck;
  observed?: ObservedPod;
  /** Every action carried out, in order, with its reason. */
  actions: Action[];
  /** What became of each action, in the same order (apply's results). */
  results: ActionResult[];
  /** Housekeeping that failed, and anything else worth a warning that did not fail the pod. */
  warnings: string[];
  engineError?: EngineUnreachableError;
  /** Set when admission refused the pod (OutOfcpu, OutOfmemory): nothing was created. */
  admission?: string;
  /** The last non-zero exit code seen per instance id (the engine forgets it on restart). */
  lastExitCodes: ReadonlyMap<string, number>;
  checks: number;
  retriesUsed: number;
  startedAt: number;
  endedAt: number;
}

export interface LedgerHooks {
  onAction?: (plan: PodPlan, a: Action) => void;
  onWarning?: (plan: PodPlan, message: string) => void;
  onResult?: (plan: PodPlan, r: ActionResult) => void;
}

export class PodLedger {
  readonly actions: Action[] = [];
  readonly results: ActionResult[] = [];
  readonly warnings: string[] = [];
  /** Instances this run created (a restart count is new for them, not carried over). */
  readonly created = new Set<string>();
  readonly lastExitCodes = new Map<string, number>();
  syncErrors = new Map<string, string>();
  /** The sync actions still wanted at the last pass, for the account of a run that ends without success. */
  pending: Action[] = [];
  engineError: EngineUnreachableError | undefined;
  check: PodCheck | undefined;
  observed: ObservedPod | undefined;
  checks = 0;

  constructor(
    private readonly plan: PodPlan,
    private readonly hooks: LedgerHooks,
    /** What the wait is for, when nothing else is wrong ("every container is ready, but …"). */
    private readonly goal: string,
  ) {}

  announced(a: Action): void {
    this.actions.push(a);
    this.hooks.onAction?.(this.plan, a);
  }

  /** Exit codes the observation shows, kept past a restart (the engine resets them). */
  noteExits(observed: ObservedPod): void {
    for (const list of observed.containers.values()) {
      for (const c of list) if (c.state !== 'running' && c.state !== 'created' && c.exitCode !== 0) this.lastExitCodes.set(c.id, c.exitCode);
    }
  }

  record(results: readonly ActionResult[]): void {
    this.results.push(...results);
    this.syncErrors = syncErrorsOf(results);
    for (const r of results) {
      this.hooks.onResult?.(this.plan, r);
      if (r.ok && r.instance !== undefined && (r.action.kind === 'create' || r.action.kind === 'createInfra')) this.created.add(r.instance);
      if (!r.ok && r.housekeeping)
        this.warn(`${describeAction(r.action)} failed: ${r.error ?? 'no answer'}; it does not affect the pod, but the instance may need removing by hand`);
    }
  }

  warn(message: string): void {
    if (this.warnings.includes(message)) return;
    this.warnings.push(message);
    this.hooks.onWarning?.(this.plan, message);
  }

  /**
   * Why the pod is not there yet, never empty: the containers not yet right, the sync actions still pending and the
   * engine's last answer to each.
   */
  account(): string {
    return this.accountBeside() || `every container is ${this.goal}, but the wait has not held at a check`;
  }

  /**
   * The account after a reason that already names some containers (a crash loop): theirs left out, so each fact is
   * said once; '' when nothing else is left to say.
   */
  accountBeside(named: ReadonlySet<string> = new Set()): string {
    const parts: string[] = [];
    if (!this.check) parts.push('the pod was never observed');
    for (const v of this.check?.containers ?? []) if (!v.ok && !named.has(v.name)) parts.push(`${v.name}: ${v.reason}`);
    const lastError = (a: Action): string | undefined => [...this.results].reverse().find((r) => !r.ok && actionKey(r.action) === actionKey(a))?.error;
    for (const a of this.pending) {
      const err = lastError(a);
      parts.push(`pending: ${describeAction(a)}${err !== undefined ? `: ${err}` : ''}`);
    }
    if (this.engineError) parts.push(this.engineError.message);
    return parts.join('; ');
  }

  outcome(status: PodOutcomeStatus, reason: string, times: { startedAt: number; endedAt: number; retriesUsed: number }): PodOutcome {
    return {
      plan: this.plan,
      status,
      reason: reason.trim() === '' ? this.account() : reason,
      ...(this.check ? { check: this.check } : {}),
      ...(this.observed ? { observed: this.observed } : {}),
      actions: this.actions,
      results: this.results,
      warnings: this.warnings,
      ...(this.engineError ? { engineError: this.engineError } : {}),
      lastExitCodes: this.lastExitCodes,
      checks: this.checks,
      ...times,
    };
  }
}
