// The crash-loop rule (wait/crashLoop.ts) in the run-once loop, on the in-memory engine: a container that crashes
// at every start fails its pod after --crash-loop-limit restarts in a row, not after the retries; one that crashes
// twice and then stays up succeeds; 0 turns the rule off; a deadline that comes while a container loops reports the
// loop (a failure), not the deadline. The same on a real engine: test/engine/crash-loop.test.ts.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ImagePuller } from '../../../src/reconcile/images.js';
import { observePod } from '../../../src/reconcile/observe.js';
import { Backoff } from '../../../src/wait/backoff.js';
import { type PodOutcome, runPod } from '../../../src/wait/runOnce.js';
import { Deadline } from '../../../src/wait/deadline.js';
import { MemoryEngine } from '../support/memoryEngine.js';
import { image, infraImage, onePodPlan } from '../support/loop.js';
import type { PodPlan } from '../../../src/plan/types.js';

const engines: MemoryEngine[] = [];
afterEach(() => {
  for (const e of engines.splice(0)) e.dispose();
});

function newEngine(): MemoryEngine {
  // The engine restarts a crashed container after 5 ms (Docker's restart manager, much faster).
  const e = new MemoryEngine({ images: [image, infraImage], restartDelayMs: 5 });
  engines.push(e);
  return e;
}

function run(engine: MemoryEngine, plan: PodPlan, o: { crashLoopLimit?: number; retries?: number; deadlineMs?: number }): Promise<PodOutcome> {
  return runPod(plan, {
    engine,
    images: new ImagePuller(engine, () => Promise.resolve(undefined)),
    mode: 'running',
    backoff: new Backoff({ retries: o.retries ?? 1000, retryDelayMs: 5, factor: 1, maxDelayMs: 5 }),
    // Up 200 ms before it counts as running (a restarted one longer: check.ts settleFor), so the crasher meets it.
    settleMs: 200,
    ...(o.crashLoopLimit !== undefined ? { crashLoopLimit: o.crashLoopLimit } : {}),
    ...(o.deadlineMs !== undefined ? { deadline: Deadline.after(Date.now(), o.deadlineMs, '--timeout') } : {}),
    signal: new AbortController().signal,
    now: Date.now,
  });
}

/** Crash main (exit 3) at each of its first `times` starts, while the loop runs; how many it crashed. */
function crasher(engine: MemoryEngine, plan: PodPlan, times: number): { stop: () => number } {
  let crashed = 0;
  let busy = false;
  const timer = setInterval(() => {
    if (busy || crashed >= times) return;
    busy = true;
    void observePod(engine, plan.namespace, plan.name)
      .then((o) => {
        const c = o.containers.get('main')?.[0];
        if (c !== undefined && c.state === 'running' && crashed < times) {
          engine.crash(c.id, 3);
          crashed++;
        }
      })
      .catch(() => undefined)
      .finally(() => (busy = false));
  }, 3);
  return {
    stop: () => {
      clearInterval(timer);
      return crashed;
    },
  };
}

describe('--crash-loop-limit', () => {
  it('a container that crashes at every start fails its pod after the limit, naming the crash loop, with retries to spare', { timeout: 20_000 }, async () => {
    const engine = newEngine();
    const plan = onePodPlan('hopeless', 'Always', {});
    const c = crasher(engine, plan, 1000);
    const out = await run(engine, plan, { crashLoopLimit: 4 });
    c.stop();
    assert.equal(out.status, 'failed', out.reason);
    assert.match(out.reason, /^main: crash loop: restarted [4-9] times in a row without coming up, last exit code 3 \(--crash-loop-limit 4\)/);
    assert.ok(out.retriesUsed < 1000, 'the rule, not the retries, ended it');
    assert.equal(out.reason.split('main:').length - 1, 1, `the looping container is named once: ${out.reason}`);
  });

  it('a container that crashes twice and then stays up comes up', { timeout: 20_000 }, async () => {
    const engine = newEngine();
    const plan = onePodPlan('mends', 'Always', {});
    const c = crasher(engine, plan, 2);
    const out = await run(engine, plan, { crashLoopLimit: 4 });
    assert.equal(c.stop(), 2, 'it crashed twice');
    assert.equal(out.status, 'succeeded', out.reason);
  });

  it('0 turns the rule off: the retries end the wait', { timeout: 20_000 }, async () => {
    const engine = newEngine();
    const plan = onePodPlan('patient', 'Always', {});
    const c = crasher(engine, plan, 1000);
    const out = await run(engine, plan, { crashLoopLimit: 0, retries: 40 });
    const crashed = c.stop();
    assert.equal(out.status, 'failed', out.reason);
    assert.match(out.reason, /^not running after 40 retries/);
    assert.ok(crashed > 4, `it crashed ${crashed} times, past any small limit`);
  });

  it('a deadline that comes while a container loops reports the crash loop, a failure, not the deadline', { timeout: 20_000 }, async () => {
    const engine = newEngine();
    const plan = onePodPlan('cut-short', 'Always', {});
    const c = crasher(engine, plan, 1000);
    const out = await run(engine, plan, { crashLoopLimit: 100_000, deadlineMs: 2_500 });
    c.stop();
    assert.equal(out.status, 'failed', out.reason);
    assert.match(out.reason, /^main: crash loop: restarted \d+ times in a row without coming up, last exit code 3 \(--timeout ended the wait before --crash-loop-limit 100000\)/);
    assert.equal(out.reason.split('main:').length - 1, 1, `the looping container is named once: ${out.reason}`);
  });
});
