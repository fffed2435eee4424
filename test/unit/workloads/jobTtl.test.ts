// Which finished Jobs `runpod gc` removes for their ttlSecondsAfterFinished (reconcile/jobTtl.ts; the TTL-after-
// finished controller deletes a finished Job with its pods once ttl seconds have passed since it finished).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expiredJobs, type TtlContainer } from '../../../src/reconcile/jobTtl.js';

const c = (pod: string, state: string, finishedAt: number | undefined, more: Partial<TtlContainer> = {}): TtlContainer => ({
  namespace: 'default',
  pod,
  owner: 'job/pi',
  ttlSeconds: 10,
  infra: false,
  state,
  ...(finishedAt !== undefined ? { finishedAt } : {}),
  ...more,
});

describe('ttlSecondsAfterFinished: expired Jobs', () => {
  it('finished, the ttl past its last container: every pod of it', () => {
    const got = expiredJobs([c('pi-a', 'exited', 1_000), c('pi-b', 'exited', 5_000), c('pi-b', 'running', undefined, { infra: true })], 15_000);
    assert.deepEqual(got, [{ namespace: 'default', owner: 'job/pi', pods: ['pi-a', 'pi-b'], reason: 'finished 10s ago, past its ttlSecondsAfterFinished 10' }]);
  });
  it('not yet past: kept', () => assert.deepEqual(expiredJobs([c('pi-a', 'exited', 5_000)], 14_999), []));
  it('a container still running or restarting: not finished, kept', () => {
    assert.deepEqual(expiredJobs([c('pi-a', 'exited', 0), c('pi-b', 'running', undefined)], 1e9), []);
    assert.deepEqual(expiredJobs([c('pi-a', 'restarting', 0)], 1e9), []);
  });
  it('one Job per isolation key and namespace', () => {
    const got = expiredJobs([c('pi-a', 'exited', 0, { project: 'k1' }), c('pi-a', 'running', undefined, { project: 'k2' })], 1e9);
    assert.deepEqual(
      got.map((j) => j.project),
      ['k1'],
    );
  });
});
