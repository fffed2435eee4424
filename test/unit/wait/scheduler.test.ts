// The probe scheduler, table-driven with a fake clock: each row is a probe spec, a container start time, and a
// list of probe outcomes at given times; the expectations are the kubelet prober worker's rules
// (pkg/kubelet/prober/worker.go): initial results, initialDelaySeconds, periodSeconds, thresholds, hold after a kill.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ProbeResult, ProbeSchedule } from '../../../src/wait/probes/scheduler.js';
import type { ProbeKind, ProbeSpec } from '../../../src/kube/probes.js';

function spec(kind: ProbeKind, o: Partial<ProbeSpec> = {}): ProbeSpec {
  return {
    kind,
    handler: { type: 'tcpSocket', host: '', port: 80 },
    initialDelayMs: 0,
    periodMs: 10_000,
    timeoutMs: 1000,
    successThreshold: 1,
    failureThreshold: 3,
    gracePeriodSeconds: 30,
    ...o,
  };
}

interface Step {
  /** Fake clock at which the probe begins; it returns `tookMs` later. */
  at: number;
  ok: boolean;
  tookMs?: number;
  /** Expected reported result after this outcome. */
  result: ProbeResult;
  kill?: boolean;
  changed?: boolean;
}

/** Drive a schedule through its steps; each step must be due at its time and not before. */
function drive(s: ProbeSchedule, steps: Step[]): void {
  for (const [i, step] of steps.entries()) {
    const at = s.nextAt();
    assert.ok(at !== undefined, `step ${i}: schedule holds`);
    assert.ok(step.at >= at, `step ${i}: probing at ${step.at}, but not due before ${at}`);
    assert.equal(s.due(step.at - 1) && step.at - 1 < at, false);
    s.begin(step.at);
    assert.equal(s.nextAt(), undefined, 'no second probe while one is in flight');
    const t = s.record({ ok: step.ok, output: `step ${i}` }, step.at + (step.tookMs ?? 5));
    assert.equal(t.result, step.result, `step ${i}: result`);
    assert.equal(s.result, step.result);
    if (step.kill !== undefined) assert.equal(t.kill, step.kill, `step ${i}: kill`);
    if (step.changed !== undefined) assert.equal(t.changed, step.changed, `step ${i}: changed`);
  }
}

describe('probe scheduler', () => {
  it("starts from the kubelet's initial results: readiness Failure, liveness Success, startup Unknown", () => {
    assert.equal(new ProbeSchedule(spec('readiness'), 0).result, 'failure');
    assert.equal(new ProbeSchedule(spec('liveness'), 0).result, 'success');
    assert.equal(new ProbeSchedule(spec('startup'), 0).result, 'unknown');
  });

  const timing: Array<{ name: string; spec: ProbeSpec; startedAt: number; first: number; afterFirst: (took: number) => number; took: number }> = [
    { name: 'no initial delay: due at the start', spec: spec('readiness'), startedAt: 1000, first: 1000, afterFirst: () => 11_000, took: 5 },
    {
      name: 'initialDelaySeconds counts from the container start',
      spec: spec('readiness', { initialDelayMs: 5000 }),
      startedAt: 1000,
      first: 6000,
      afterFirst: () => 16_000,
      took: 5,
    },
    { name: 'periodSeconds from the start of the previous probe', spec: spec('liveness', { periodMs: 2000 }), startedAt: 0, first: 0, afterFirst: () => 2000, took: 500 },
    { name: 'a probe slower than the period: the next is due at once', spec: spec('liveness', { periodMs: 1000 }), startedAt: 0, first: 0, afterFirst: () => 1000, took: 3000 },
  ];
  for (const row of timing) {
    it(`timing: ${row.name}`, () => {
      const s = new ProbeSchedule(row.spec, row.startedAt);
      assert.equal(s.nextAt(), row.first);
      assert.equal(s.due(row.first - 1), false);
      assert.equal(s.due(row.first), true);
      s.begin(row.first);
      s.record({ ok: true, output: '' }, row.first + row.took);
      assert.equal(s.nextAt(), row.afterFirst(row.took));
      assert.equal(s.due(row.first + row.took), row.first + row.took >= row.afterFirst(row.took));
    });
  }

  const thresholds: Array<{ name: string; spec: ProbeSpec; steps: Step[] }> = [
    {
      name: 'readiness: one success makes it ready (successThreshold 1)',
      spec: spec('readiness', { periodMs: 1000 }),
      steps: [
        { at: 0, ok: false, result: 'failure', changed: false },
        { at: 1000, ok: true, result: 'success', changed: true },
      ],
    },
    {
      name: 'readiness: successThreshold 3 needs three successes in a row; a failure restarts the count',
      spec: spec('readiness', { periodMs: 1000, successThreshold: 3 }),
      steps: [
        { at: 0, ok: true, result: 'failure' },
        { at: 1000, ok: true, result: 'failure' },
        { at: 2000, ok: false, result: 'failure' },
        { at: 3000, ok: true, result: 'failure' },
        { at: 4000, ok: true, result: 'failure' },
        { at: 5000, ok: true, result: 'success', changed: true },
      ],
    },
    {
      name: 'readiness: once ready, failureThreshold failures in a row make it unready; it is never killed',
      spec: spec('readiness', { periodMs: 1000, failureThreshold: 2 }),
      steps: [
        { at: 0, ok: true, result: 'success' },
        { at: 1000, ok: false, result: 'success', changed: false },
        { at: 2000, ok: true, result: 'success' },
        { at: 3000, ok: false, result: 'success' },
        { at: 4000, ok: false, result: 'failure', changed: true, kill: false },
        { at: 5000, ok: false, result: 'failure', changed: false, kill: false },
      ],
    },
    {
      name: 'liveness: failureThreshold 3 failures in a row kill it',
      spec: spec('liveness', { periodMs: 1000 }),
      steps: [
        { at: 0, ok: false, result: 'success', kill: false },
        { at: 1000, ok: false, result: 'success', kill: false },
        { at: 2000, ok: true, result: 'success', kill: false },
        { at: 3000, ok: false, result: 'success', kill: false },
        { at: 4000, ok: false, result: 'success', kill: false },
        { at: 5000, ok: false, result: 'failure', kill: true, changed: true },
      ],
    },
    {
      name: 'startup: success once starts it; failureThreshold failures kill it',
      spec: spec('startup', { periodMs: 1000, failureThreshold: 2 }),
      steps: [
        { at: 0, ok: false, result: 'unknown' },
        { at: 1000, ok: true, result: 'success', changed: true },
      ],
    },
    {
      name: 'startup: failureThreshold 1 kills on the first failure',
      spec: spec('startup', { periodMs: 1000, failureThreshold: 1 }),
      steps: [{ at: 0, ok: false, result: 'failure', kill: true }],
    },
  ];
  for (const row of thresholds) {
    it(`thresholds: ${row.name}`, () => drive(new ProbeSchedule(row.spec, 0), row.steps));
  }

  it('after a kill the schedule holds: no more probes until a new start brings a new schedule', () => {
    const s = new ProbeSchedule(spec('liveness', { periodMs: 1000, failureThreshold: 1 }), 0);
    drive(s, [{ at: 0, ok: false, result: 'failure', kill: true }]);
    assert.equal(s.onHold, true);
    assert.equal(s.nextAt(), undefined);
    assert.equal(s.due(1_000_000), false);
  });
});
