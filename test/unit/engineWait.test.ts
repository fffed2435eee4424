// The engine wait speaks (commands/engineWait.ts, connectEngine): on a clock the test drives, a missing engine is
// said at once with its address, why it does not answer and what bounds the wait, then every 10 s; --retries and
// --timeout end it with exit 3 and 124. The CLI check against a nonexistent socket is in test/engine/faults.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Engine } from '../../src/engine/ports/engine.js';
import { connectEngine } from '../../src/commands/engineSession.js';
import type { CommandContext } from '../../src/commands/context.js';
import { DeadlineError, EngineUnreachableError } from '../../src/errors.js';
import { Backoff } from '../../src/wait/backoff.js';
import { whyNoAnswer } from '../../src/commands/engineWait.js';

const address = 'unix:///nonexistent.sock';

/** An engine that never answers, a clock that moves only when the wait sleeps, and the lines said with their times. */
function setup(reasons: (n: number) => string = () => 'ping: ENOENT (connect ENOENT /nonexistent.sock)') {
  let t = 1_000_000;
  let pings = 0;
  const engine = { address, ping: () => Promise.reject(new EngineUnreachableError(address, reasons(pings++))) } as unknown as Engine;
  const ctx = { now: () => t, signal: new AbortController().signal, interruptedBy: () => undefined } as unknown as CommandContext;
  const lines: { at: number; line: string; first: boolean }[] = [];
  const start = t;
  return {
    engine,
    ctx,
    lines,
    start,
    options: {
      onWaiting: (line: string, first: boolean) => lines.push({ at: (t - start) / 1000, line, first }),
      sleep: (ms: number) => {
        t += Math.max(0, ms);
        return Promise.resolve();
      },
    },
  };
}

describe('the engine wait', () => {
  it('says at once which address, why and what bounds it, then a line every 10 s until the retries are spent (exit 3)', async () => {
    const s = setup();
    const backoff = new Backoff({ retries: 10, retryDelayMs: 1000, factor: 2, maxDelayMs: 30_000 });
    const err = await connectEngine(s.engine, s.ctx, { ...s.options, backoff }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof EngineUnreachableError, String(err));
    assert.equal(err.exitCode, 3);
    assert.match(err.detail().join('\n'), /no answer after 10 retries in 181s \(--retries and --timeout bound the wait\)/);
    const first = s.lines[0]!;
    assert.equal(first.at, 0);
    assert.equal(first.first, true);
    assert.match(
      first.line,
      /^waiting for the Docker engine at unix:\/\/\/nonexistent\.sock: ping: ENOENT .*\(no socket at that path: is dockerd running, and is the path right\?\); trying again for up to 3m1s more \(--retries 10, with backoff; --timeout bounds it too\)$/,
    );
    // Then never more than 10 s without a line.
    const times = s.lines.map((l) => l.at);
    for (let i = 1; i < times.length; i++) assert.ok(times[i]! - times[i - 1]! <= 10, `a gap of ${times[i]! - times[i - 1]!}s after ${times[i - 1]}s: ${times.join(', ')}`);
    assert.ok(181 - times[times.length - 1]! <= 10, `silent at the end: ${times.join(', ')}`);
    assert.match(s.lines[1]!.line, /^still waiting for the Docker engine at unix:\/\/\/nonexistent\.sock after 10s: ping: ENOENT .*; next try in \d+s, \d+ retries left$/);
  });

  it('--timeout bounds it: the lines count down to it, and it ends with 124 at the deadline', async () => {
    const s = setup();
    const backoff = new Backoff({ retries: 10, retryDelayMs: 1000, factor: 2, maxDelayMs: 30_000 });
    const err = await connectEngine(s.engine, s.ctx, { ...s.options, backoff, deadline: s.start + 25_000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof DeadlineError, String(err));
    assert.equal(s.ctx.now() - s.start, 25_000);
    assert.match(s.lines[0]!.line, /trying again until --timeout, 25s from now$/);
    assert.deepEqual(
      s.lines.map((l) => l.at),
      [0, 10, 20],
    );
    assert.match(s.lines[2]!.line, /--timeout in 5s$/);
  });

  it('a changed answer is said at once (dockerd starting: its socket appears, then refuses, then answers)', async () => {
    const answers = ['ping: ENOENT (connect ENOENT /x)', 'ping: ENOENT (connect ENOENT /x)', 'ping: ECONNREFUSED (connect ECONNREFUSED /x)'];
    const s = setup((n) => answers[Math.min(n, answers.length - 1)]!);
    const backoff = new Backoff({ retries: 3, retryDelayMs: 1000, factor: 2, maxDelayMs: 30_000 });
    await connectEngine(s.engine, s.ctx, { ...s.options, backoff }).catch(() => undefined);
    assert.deepEqual(
      s.lines.map((l) => l.at),
      [0, 3],
    );
    assert.match(s.lines[1]!.line, /ECONNREFUSED/);
  });

  it('names why an address does not answer', () => {
    assert.match(whyNoAnswer('ping: ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:2375)'), /nothing listens there/);
    assert.match(whyNoAnswer('ping: EACCES (connect EACCES /var/run/docker.sock)'), /permission denied/);
    assert.equal(whyNoAnswer('ping: something else'), '');
  });
});
