// One grace period per pod (reconcile/podStop.ts): app containers get the pod's budget, sidecars then stop in
// reverse order of their start with what is left (at least 2 s each), the sandbox last; grace 0 kills at once.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { remainingGrace, stopInKillPodOrder, type StopKind } from '../../../src/reconcile/podStop.js';

/** Stops that take as long as they are given (containers that ignore SIGTERM), on a clock of their own. */
async function spend(targets: { name: string; kind: StopKind; created: number }[], grace: number): Promise<string[]> {
  let clock = 0;
  const seen: string[] = [];
  await stopInKillPodOrder(
    targets,
    grace,
    async (t, seconds) => {
      seen.push(`${t.name}@${clock / 1000}:${seconds}`);
      await Promise.resolve();
      clock += seconds * 1000;
    },
    () => clock,
  );
  seen.push(`end@${clock / 1000}`);
  return seen;
}

describe('stopInKillPodOrder', () => {
  it('app containers in parallel with the whole budget, then sidecars last-started first with at least 2 s, then the sandbox', async () => {
    const got = await spend(
      [
        { name: 'POD', kind: 'infra', created: 0 },
        { name: 'side1', kind: 'sidecar', created: 1 },
        { name: 'app', kind: 'app', created: 3 },
        { name: 'side2', kind: 'sidecar', created: 2 },
        { name: 'app2', kind: 'app', created: 4 },
      ],
      30,
    );
    // The apps were given 30 s each, at once (this clock adds them up): the budget is spent when the sidecars' turn comes.
    assert.deepEqual(got.slice(0, 2).sort(), ['app2@0:30', 'app@0:30']);
    assert.deepEqual(got.slice(2), ['side2@60:2', 'side1@62:2', 'POD@64:2', 'end@66']);
  });
  it('a sidecar stopping early leaves the rest of the budget to the next', async () => {
    let clock = 0;
    const given: number[] = [];
    await stopInKillPodOrder(
      [
        { kind: 'app', created: 0 },
        { kind: 'sidecar', created: 1 },
      ],
      10,
      async (t, seconds) => {
        given.push(seconds);
        clock += t.kind === 'app' ? 3_000 : 0;
      },
      () => clock,
    );
    assert.deepEqual(given, [10, 7]);
  });
  it('grace 0 kills everything at once', async () => {
    assert.deepEqual(
      await spend(
        [
          { name: 'app', kind: 'app', created: 0 },
          { name: 'side', kind: 'sidecar', created: 1 },
          { name: 'POD', kind: 'infra', created: 0 },
        ],
        0,
      ),
      ['app@0:0', 'side@0:0', 'POD@0:0', 'end@0'],
    );
  });
  it('a stop that fails does not keep the others from stopping', async () => {
    const stopped: string[] = [];
    await stopInKillPodOrder(
      [
        { kind: 'app', created: 0 },
        { kind: 'infra', created: 0 },
      ],
      5,
      async (t) => {
        stopped.push(t.kind);
        if (t.kind === 'app') throw new Error('gone');
      },
    );
    assert.deepEqual(stopped, ['app', 'infra']);
  });
  it('remainingGrace: what is left, rounded up, at least 2 s', () => {
    assert.equal(remainingGrace(30, 10_000, 0), 10);
    assert.equal(remainingGrace(30, 10_000, 9_500), 2);
    assert.equal(remainingGrace(30, 10_000, 20_000), 2);
    assert.equal(remainingGrace(0, 10_000, 0), 0);
  });
});
