// A run's set-up in fewer request rounds (agent/run.ts): the network lock's removal goes on beside what follows,
// and is awaited before the run returns, so no lock is left behind.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { loadRunInput } from '../../../src/agent/input.js';
import type { RunOptions } from '../../../src/agent/options.js';
import { RunBounds, type RunSession, runSession } from '../../../src/agent/run.js';
import { Role, ServiceLabel } from '../../../src/kube/serviceNames.js';
import { pauseImageRef } from '../../../src/reconcile/pauseImage.js';
import { createReporter } from '../../../src/report/reporter.js';
import { Backoff } from '../../../src/wait/backoff.js';
import { Deadline } from '../../../src/wait/deadline.js';
import { waitStrategy } from '../../../src/wait/strategies/index.js';
import { MemoryEngine } from '../support/memoryEngine.js';

const manifest = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - name: c
    image: ${pauseImageRef('amd64')}
`;

describe("a run's set-up", () => {
  it("goes on while the network lock's removal is under way, and returns only once it is done", async () => {
    const engine = new MemoryEngine({ images: [pauseImageRef('amd64')] });
    const stderr = new PassThrough();
    stderr.resume();
    const reporter = await createReporter({ stream: stderr, env: { CI: 'true' }, quiet: true, verbose: false, now: () => new Date() });
    try {
      const seen: string[] = [];
      engine.onCall('removeContainer', async (args, next) => {
        const lock = engine.peekAll().find((c) => c.Id === args[0])?.Config.Labels?.[ServiceLabel.role] === Role.networkLock;
        if (!lock) return next(...args);
        seen.push('lock removal asked');
        // Held until the pod's own work began: a set-up that awaited the removal would never get there.
        for (let i = 0; i < 100 && !seen.includes('pod created'); i++) await new Promise((r) => setTimeout(r, 5));
        await next(...args);
        seen.push('lock removed');
      });
      engine.onCall('createContainer', async (args, next) => {
        const id = await next(...args);
        if (args[0].startsWith('k8s_')) seen.push('pod created');
        return id;
      });
      const o: RunOptions = {
        manifests: ['-'],
        wait: 'none',
        retries: 0,
        retryDelayMs: 10,
        backoff: 1,
        maxDelayMs: 10,
        settleMs: 0,
        namespace: 'default',
        dryRun: false,
        output: 'text',
        quiet: true,
        verbose: false,
      };
      const wait = waitStrategy(o.wait);
      const input = await loadRunInput(o, wait, async () => Buffer.from(manifest), reporter);
      const ctx = { stdout: new PassThrough(), env: {}, signal: new AbortController().signal, interruptedBy: () => undefined, now: Date.now };
      const s: RunSession = {
        o,
        wait,
        input,
        project: undefined,
        engine,
        host: engine,
        info: await engine.ping(),
        budget: new Backoff({ retries: 0, retryDelayMs: 10, factor: 1, maxDelayMs: 10 }),
        bounds: new RunBounds(Deadline.none, engine.address, ctx),
        reporter,
        ctx,
        made: {},
      };
      const settled = await runSession(s);
      assert.equal(settled.ending, 'ok');
      assert.ok(seen.indexOf('pod created') < seen.indexOf('lock removed'), seen.join(', '));
      assert.equal(seen.at(-1), 'lock removed', 'the removal was done when the run returned');
      assert.deepEqual(
        engine.peekAll().filter((c) => c.Config.Labels?.[ServiceLabel.role] === Role.networkLock),
        [],
      );
    } finally {
      reporter.close();
      engine.dispose();
    }
  });
});
