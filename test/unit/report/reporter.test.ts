// The plain reporter (report/reporter.ts) as a CI log reads it: each pod's line when it is done, not again at the
// end; a heartbeat that names only the pods still awaited; -q leaving out the notes about the input, not warnings.
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { createReporter, type Reporter } from '../../../src/report/reporter.js';
import { failureHeadline } from '../../../src/report/output.js';
import type { PodResult } from '../../../src/report/result.js';
import type { PodCheck } from '../../../src/wait/podCheck.js';

function result(name: string, status: PodResult['status'], reason: string, durationMs = 4300): PodResult {
  return {
    namespace: 'default',
    name,
    uid: 'u',
    status,
    phase: 'Running',
    reason,
    changed: true,
    actions: [],
    checks: 1,
    retries: 0,
    durationMs,
    containers: [{ name: 'main', image: 'busybox:1', state: 'running', ok: status === 'succeeded', reason, restartCount: 0 }],
  };
}

const waiting = (reason: string): PodCheck => ({ ok: false, failed: false, containers: [{ name: 'main', ok: false, terminal: false, healthyRunning: false, reason }] });

async function plain(t: TestContext, quiet = false): Promise<{ reporter: Reporter; lines: () => string[]; advance: (ms: number) => void }> {
  t.mock.timers.enable({ apis: ['setInterval'] });
  let now = Date.parse('2026-01-01T00:00:00Z');
  let text = '';
  const stream = new PassThrough();
  stream.on('data', (d: Buffer) => (text += d.toString()));
  const reporter = await createReporter({ stream, env: { CI: 'true' }, quiet, verbose: false, now: () => new Date(now) });
  t.after(() => reporter.close());
  return {
    reporter,
    // Without the timestamps.
    lines: () =>
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => l.replace(/^\S+ /, '')),
    advance: (ms) => {
      for (let i = 0; i < ms / 1000; i++) {
        now += 1000;
        t.mock.timers.tick(1000);
      }
    },
  };
}

describe('plain progress lines', () => {
  it("a pod's line comes when it is done and is not repeated at the end; the heartbeat names only pods still awaited", async (t) => {
    const { reporter, lines, advance } = await plain(t);
    reporter.podStarted('default/db-0');
    reporter.podStarted('default/api');
    reporter.podCheck('default/api', waiting('not ready: readiness probe (http :80/) failed: HTTP probe failed with statuscode: 500'));
    advance(4000);
    const db = result('db-0', 'succeeded', 'every container is ready');
    reporter.podFinished(db);
    assert.equal(lines().at(-1), 'default/db-0: every container is ready (1 container, 0 actions, 4.3s)', 'said when ready');
    advance(12_000);
    const beats = lines().filter((l) => l.includes('still waiting'));
    assert.deepEqual(beats, ['default/api: still waiting after 14s for main: not ready: readiness probe (http :80/) failed: HTTP probe failed with statuscode: 500']);
    const before = lines().length;
    reporter.podFinished(db); // the run's account at the end
    assert.equal(lines().length, before, 'not said again');
    reporter.podFinished(result('api', 'failed', 'main: not ready'));
    assert.match(lines().at(-1)!, /^default\/api: failed: main: not ready/);
    advance(20_000);
    assert.equal(lines().filter((l) => l.includes('still waiting')).length, 1, 'nothing awaited, no heartbeat');
  });
  it('-q leaves out the notes about the input and the progress, never a warning or a failure', async (t) => {
    const { reporter, lines } = await plain(t, true);
    reporter.note('pod.yaml:9 spec.containers[0].resources.limits.ephemeral-storage: not enforced');
    reporter.warn('job/nightly: suspended (spec.suspend: true): no pods are created');
    reporter.podStarted('default/web');
    reporter.info('default/web: creating container main');
    reporter.podFinished(result('web', 'succeeded', 'every container is running'));
    reporter.podFinished(result('bad', 'failed', 'main: exited with code 3'));
    assert.deepEqual(lines(), [
      'warning: job/nightly: suspended (spec.suspend: true): no pods are created',
      'default/bad: failed: main: exited with code 3 (1 container, 0 actions, 4.3s)',
    ]);
  });
});

describe("a failed run's headline", () => {
  const reason = 'm: exited with code 3 and restartPolicy Never will not restart it';
  it('pods that failed for one reason are named together, the reason said once', () => {
    assert.equal(
      failureHeadline(
        [
          { namespace: 'default', name: 'a', reason },
          { namespace: 'default', name: 'b', reason },
          { namespace: 'ci', name: 'c', reason: 'main: not ready' },
        ],
        [],
      ),
      `pods default/a, default/b failed: ${reason}; pod ci/c failed: main: not ready`,
    );
  });
  it("a failed Job is named by itself with its controller's reason, its kind/name once", () => {
    const job = {
      namespace: 'default',
      ref: 'job/migrate',
      reason: `job/migrate failed: BackoffLimitExceeded (3 pods failed, backoffLimit 2); last: default/migrate-x: ${reason}`,
    };
    assert.equal(failureHeadline([], [job]), `job/migrate failed: BackoffLimitExceeded (3 pods failed, backoffLimit 2); last: default/migrate-x: ${reason}`);
    assert.equal(
      failureHeadline([], [{ ...job, namespace: 'ci', reason: 'job/migrate failed: BackoffLimitExceeded (3 pods failed, backoffLimit 2)' }]),
      'job/migrate (namespace ci) failed: BackoffLimitExceeded (3 pods failed, backoffLimit 2)',
    );
    assert.equal(
      failureHeadline(
        [{ namespace: 'default', name: 'web', reason: 'main: exited with code 1' }],
        [{ namespace: 'default', ref: 'deployment/api', reason: 'deployment/api exceeded its progress deadline (600s, ProgressDeadlineExceeded) before default/api-x was ready' }],
      ),
      'pod default/web failed: main: exited with code 1; deployment/api failed: exceeded its progress deadline (600s, ProgressDeadlineExceeded) before default/api-x was ready',
    );
  });
});

describe('the terminal spinner', () => {
  it('keeps to one line of the terminal, however long what a pod waits for and however many pods', async (t) => {
    let text = '';
    const stream = Object.assign(new PassThrough(), { isTTY: true, columns: 60, cursorTo: () => true, clearLine: () => true, moveCursor: () => true });
    stream.on('data', (d: Buffer) => (text += d.toString()));
    const reporter = await createReporter({ stream, env: { NO_COLOR: '1' }, quiet: false, verbose: false, now: () => new Date() });
    t.after(() => reporter.close());
    for (const name of ['default/db-0', 'default/api-7c9d8f6b5d-x2x4p', 'default/worker']) reporter.podStarted(name);
    reporter.podCheck('default/db-0', waiting(`not ready: readiness probe (http :80/) failed: HTTP probe failed with statuscode: 500: ${'<p>busy</p> '.repeat(20)}`));
    // ora draws the text it was given at its next frame.
    await new Promise((resolve) => setTimeout(resolve, 300));
    reporter.close();
    // eslint-disable-next-line no-control-regex
    const frames = text
      .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '\n')
      .split('\n')
      .filter((l) => l.trim() !== '');
    assert.ok(
      frames.some((f) => f.includes('default/db-0 waiting for main: not ready')),
      text,
    );
    for (const f of frames) assert.ok(f.length <= 60, `a spinner frame wider than the terminal: ${JSON.stringify(f)}`);
    assert.ok(
      frames.some((f) => f.endsWith('(+2 more)')),
      text,
    );
  });
});
