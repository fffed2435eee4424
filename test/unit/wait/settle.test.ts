// A crash history asks for more proof before a container counts as running (wait/check.ts settleFor); the loop
// looks again when the last settling container has settled, and a crash inside the settle time is still caught.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LoadedPod } from '../../../src/manifest/types.js';
import { translatePod } from '../../../src/plan/translate.js';
import { ImagePuller } from '../../../src/reconcile/images.js';
import type { ObservedPod } from '../../../src/reconcile/observe.js';
import { Backoff } from '../../../src/wait/backoff.js';
import { checkPod, maxCrashSettleMs, minCrashSettleMs, settleFor } from '../../../src/wait/check.js';
import { type PodOutcome, runPod } from '../../../src/wait/runOnce.js';
import { Deadline } from '../../../src/wait/deadline.js';
import { MemoryEngine } from '../support/memoryEngine.js';
import type { PodPlan } from '../../../src/plan/types.js';

it('after a restart: at least a second, doubling per engine restart of the instance, up to 10 s; none, or a zero settle, is as given', () => {
  assert.equal(settleFor({ restartCount: 0 }, 100), 100);
  assert.equal(settleFor({ restartCount: 1 }, 100), minCrashSettleMs, 'above the 300 ms a crashed container was seen reading running on a busy engine');
  assert.equal(settleFor({ restartCount: 4 }, 100), 1600);
  assert.equal(settleFor({ restartCount: 12 }, 100), maxCrashSettleMs);
  assert.equal(settleFor({ restartCount: 1000 }, 100), maxCrashSettleMs);
  assert.equal(settleFor({ restartCount: 3 }, 0), 0, '--settle 0 asks for none');
  assert.equal(settleFor({ restartCount: 1 }, 30_000), 30_000, 'never below the settle asked for');
});

describe("the settle time, counted from each container's start", () => {
  const image = 'busybox:1';
  const infraImage = 'pause:test';
  const twoContainers = (restartPolicy: 'Never' | 'Always'): PodPlan =>
    translatePod(
      {
        pod: {
          metadata: { name: 'settle', namespace: 'default' },
          spec: {
            restartPolicy,
            terminationGracePeriodSeconds: 0,
            containers: ['a', 'b'].map((name) => ({ name, image, imagePullPolicy: 'Never', command: ['sleep', '3600'] })),
          },
        },
        source: { file: '<stdin>' },
        line: 1,
      } as LoadedPod,
      { infraImage },
    );
  const runFor = (engine: MemoryEngine, plan: PodPlan, settleMs: number): Promise<PodOutcome> =>
    runPod(plan, {
      engine,
      images: new ImagePuller(engine, () => Promise.resolve(undefined)),
      mode: 'running',
      backoff: new Backoff({ retries: 10, retryDelayMs: 5, factor: 2, maxDelayMs: 40 }),
      settleMs,
      deadline: Deadline.after(Date.now(), 30_000, '--timeout'),
      signal: new AbortController().signal,
      now: Date.now,
    });

  it('two containers settling: the next look is when the later one has settled', () => {
    const plan = twoContainers('Always');
    const check = checkPod({
      plan,
      mode: 'running',
      previous: new Map(),
      createdThisRun: new Set(),
      syncErrors: new Map(),
      lastExitCodes: new Map(),
      now: 10_000,
      settleMs: 100,
      observed: {
        infra: [{ id: 'i', name: 'POD', state: 'running', hash: plan.hash, podUid: plan.uid, restartCount: 0, exitCode: 0, attempt: 0, startedAt: 9_000 }],
        initContainers: new Map(),
        containers: new Map(
          plan.containers.map((c, i) => [
            c.name,
            [{ id: c.name, name: c.name, state: 'running', hash: c.hash, podUid: plan.uid, restartCount: 0, exitCode: 0, attempt: 0, startedAt: 9_950 + i * 30 }],
          ]),
        ),
      } as unknown as ObservedPod,
    });
    assert.equal(check.ok, false);
    assert.equal(check.settleAt, 10_080);
  });

  for (const restartPolicy of ['Never', 'Always'] as const) {
    it(`a container that crashes at once, inside its settle time, is caught (restartPolicy ${restartPolicy})`, async () => {
      const engine = new MemoryEngine({ images: [image, infraImage] });
      try {
        const plan = twoContainers(restartPolicy);
        // b's process exits right after the loop's first look saw it running: inside its settle time (3 s, longer
        // than any stall of a loaded machine between a start and the next look), whatever the machine's speed.
        let crashed = false;
        engine.onCall('inspectContainer', async (args, next) => {
          const r = await next(...args);
          if (!crashed && r?.State.Running === true && r.Config.Labels?.['io.kubernetes.container.name'] === 'b') {
            crashed = true;
            engine.crash(args[0], 1);
          }
          return r;
        });
        const out = await runFor(engine, plan, 3_000);
        assert.ok(crashed, 'b was seen running before it crashed');
        if (restartPolicy === 'Never') {
          assert.equal(out.status, 'failed', out.reason);
          assert.match(out.reason, /b: .*exited with code 1/);
        } else {
          // Restarted by the engine: it counts as running only after a crash's longer settle, never on the first start.
          assert.equal(out.status, 'succeeded', out.reason);
          const b = out.check?.containers.find((v) => v.name === 'b');
          assert.equal(b?.instance?.restartCount, 1, 'the run ended on the restarted instance, not on the one that crashed');
        }
      } finally {
        engine.dispose();
      }
    });
  }
});
