// The one bound a run keeps (wait/deadline.ts): the earliest of --timeout and a workload's deadline holds, and the
// reason names whichever set it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Deadline } from '../../../src/wait/deadline.js';
import { StopWaiting } from '../../../src/wait/bounded.js';

describe('Deadline', () => {
  const timeout = Deadline.after(1_000, 5_000, '--timeout');
  const job = Deadline.after(1_000, 2_000, "job/x's deadline");

  it("the earlier of two holds; a tie and an unbounded one keep the run's own", () => {
    assert.equal(timeout.within(job).by, "job/x's deadline");
    assert.equal(timeout.within(job).at, 3_000);
    assert.equal(timeout.within(Deadline.after(1_000, 5_000, "job/y's deadline")).by, '--timeout');
    assert.equal(timeout.within(Deadline.after(1_000, undefined, "job/z's deadline")), timeout);
    assert.equal(Deadline.none.within(job), job);
  });

  it('passes at its time, caps a wait to what is left, and is later by a grace', () => {
    assert.equal(timeout.passed(5_999), false);
    assert.equal(timeout.passed(6_000), true);
    assert.equal(Deadline.none.passed(Number.MAX_SAFE_INTEGER), false);
    assert.equal(timeout.cap(10_000, 4_000), 2_000);
    assert.equal(timeout.cap(1_000, 4_000), 1_000);
    assert.equal(Deadline.none.cap(1_000, 4_000), 1_000);
    assert.equal(timeout.plus(500).at, 6_500);
    assert.equal(timeout.plus(500).by, '--timeout');
  });

  it('bounds work: what settles first wins, and a passed bound rejects with StopWaiting', async () => {
    assert.equal(await Deadline.none.bound(Promise.resolve(7), Date.now), 7);
    const now = Date.now();
    const never = new Promise<number>(() => undefined);
    await assert.rejects(Deadline.at(now + 20, '--timeout').bound(never, Date.now), (e: unknown) => e instanceof StopWaiting && e.by === 'deadline');
  });
});
