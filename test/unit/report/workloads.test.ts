// status's workload lines (report/tables.ts workloadRows): READY against the manifest's replicas when it was given,
// a Job's succeeded pods against its completions, a suspended Job said so, a workload without pods still listed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PodSummary } from '../../../src/reconcile/podSummary.js';
import { workloadRows } from '../../../src/report/tables.js';

const pod = (name: string, owner: string, phase: PodSummary['phase'], ready: boolean): PodSummary =>
  ({ namespace: 'default', name, owner, phase, readyCount: ready ? 1 : 0, readyTotal: 1 }) as unknown as PodSummary;

describe('status: workload rows', () => {
  const pods = [pod('web-a', 'deployment/web', 'Running', true), pod('web-b', 'deployment/web', 'Running', false), pod('pi-a', 'job/pi', 'Succeeded', false)];
  it('without a manifest: ready pods of those on the engine', () => {
    assert.deepEqual(
      workloadRows(pods).map((r) => [r.ref, r.ready, r.of]),
      [
        ['deployment/web', 1, 2],
        ['job/pi', 1, 1],
      ],
    );
  });
  it('with the manifest: against its replicas and completions; a suspended Job without pods is listed', () => {
    const rows = workloadRows(pods, [
      { namespace: 'default', ref: 'deployment/web', desired: 3 },
      { namespace: 'default', ref: 'job/pi', desired: 2 },
      { namespace: 'default', ref: 'job/later', desired: 1, suspended: true },
    ]);
    assert.deepEqual(
      rows.map((r) => [r.ref, r.ready, r.of, r.suspended ?? false, r.pods.length]),
      [
        ['deployment/web', 1, 3, false, 2],
        ['job/later', 0, 1, true, 0],
        ['job/pi', 1, 2, false, 1],
      ],
    );
  });
});
