// The timing and threshold rules of one probe on one container instance, pure: the caller owns the clock and
// the timers, and tells the schedule when a probe began and what it returned. The rules are the kubelet's
// prober worker (pkg/kubelet/prober/worker.go):
// - nothing runs before initialDelaySeconds have passed since the container started;
// - then one probe per periodSeconds, never two at once (a slow probe delays the next, as the worker's ticker does);
// - the reported result changes only after failureThreshold failures, or successThreshold successes, in a row;
// - before that it keeps its initial value: Failure for readiness (not ready until proven), Success for
//   liveness (alive until proven dead), Unknown for startup;
// - after a liveness or startup failure the container is killed: the probe holds (no more probes, the run of
//   results resets) until a new container start, which gets a new schedule.
import type { ProbeKind, ProbeOutcome, ProbeSpec } from '../../kube/probes.js';

export type ProbeResult = 'unknown' | 'success' | 'failure';

export interface Transition {
  /** The reported result changed with this outcome. */
  changed: boolean;
  result: ProbeResult;
  /** A liveness or startup failure reached its threshold: the container must be killed. */
  kill: boolean;
}

const initialResult: Record<ProbeKind, ProbeResult> = { readiness: 'failure', liveness: 'success', startup: 'unknown' };

export class ProbeSchedule {
  private reported: ProbeResult;
  private lastRaw: boolean | undefined;
  private run = 0;
  private lastStart: number | undefined;
  private running = false;
  private held = false;
  private last: (ProbeOutcome & { at: number }) | undefined;
  private count = 0;

  constructor(
    readonly spec: ProbeSpec,
    /** When the container instance started (ms). */
    readonly startedAt: number,
  ) {
    this.reported = initialResult[spec.kind];
  }

  get result(): ProbeResult {
    return this.reported;
  }

  /** The last probe's outcome, whatever the thresholds made of it. */
  get lastOutcome(): (ProbeOutcome & { at: number }) | undefined {
    return this.last;
  }

  get onHold(): boolean {
    return this.held;
  }

  get probes(): number {
    return this.count;
  }

  /** When the next probe is due, or undefined while one is in flight or the schedule holds. */
  nextAt(): number | undefined {
    if (this.held || this.running) return undefined;
    const first = this.startedAt + this.spec.initialDelayMs;
    return this.lastStart === undefined ? first : Math.max(first, this.lastStart + this.spec.periodMs);
  }

  due(now: number): boolean {
    const at = this.nextAt();
    return at !== undefined && now >= at;
  }

  /** A probe starts now. */
  begin(now: number): void {
    this.running = true;
    this.lastStart = now;
    this.count++;
  }

  /** The probe that began last returned. */
  record(outcome: ProbeOutcome, now: number): Transition {
    this.running = false;
    this.last = { ...outcome, at: now };
    if (this.held) return { changed: false, result: this.reported, kill: false };
    if (this.lastRaw === outcome.ok) this.run++;
    else {
      this.lastRaw = outcome.ok;
      this.run = 1;
    }
    const threshold = outcome.ok ? this.spec.successThreshold : this.spec.failureThreshold;
    if (this.run < threshold) return { changed: false, result: this.reported, kill: false };
    const next: ProbeResult = outcome.ok ? 'success' : 'failure';
    const changed = next !== this.reported;
    this.reported = next;
    const kill = !outcome.ok && (this.spec.kind === 'liveness' || this.spec.kind === 'startup');
    if (kill) {
      // worker.go: "Stop probing until we see a new container ID", and the run starts again from zero.
      this.held = true;
      this.run = 0;
    }
    return { changed: changed || kill, result: next, kill };
  }
}
