// eitherSignal: a pod's own stop joined with the run's signal. The run's signal outlives every pod, so a pod done
// with the joined signal takes its listener off again (Node warns past 10 listeners on one signal).
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import { eitherSignal } from '../../../src/wait/waker.js';

describe('eitherSignal', () => {
  it('aborts when either aborts, and then leaves no listener on the other', () => {
    const run = new AbortController();
    const stop = new AbortController();
    const linked = eitherSignal(run.signal, stop.signal);
    assert.equal(linked.signal.aborted, false);
    stop.abort();
    assert.equal(linked.signal.aborted, true);
    assert.equal(getEventListeners(run.signal, 'abort').length, 0);
  });

  it('release takes its listeners off both signals; the run signal stays clean over many pods', () => {
    const run = new AbortController();
    for (let i = 0; i < 50; i++) {
      const linked = eitherSignal(run.signal, new AbortController().signal);
      assert.equal(getEventListeners(run.signal, 'abort').length, 1);
      linked.release();
    }
    assert.equal(getEventListeners(run.signal, 'abort').length, 0);
  });

  it('an already aborted signal is returned as it is', () => {
    const run = new AbortController();
    run.abort();
    assert.equal(eitherSignal(run.signal, new AbortController().signal).signal, run.signal);
  });
});
