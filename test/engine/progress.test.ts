// Plain output is never silent while runpod waits: a line per container state change (a crash loop the engine's
// restart policy runs, with no action of runpod's), and a heartbeat naming what is awaited at least every 10 s.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uniqueName } from './harness.js';
import { busybox, checkNothingLeftBehind, cleanupFile, cleanupPod, podFile, runpod, show, sleeper } from './run-helpers.js';

checkNothingLeftBehind();

test('a crash loop prints a line per restart in plain output', async (t) => {
  const name = uniqueName('prog-crash');
  cleanupPod(t, name);
  const file = podFile({ name, containers: [{ name: 'crasher', image: busybox, command: ['sh', '-c', 'sleep 1; exit 3'] }] });
  cleanupFile(t, file);
  // Up 1 s at a time: a settle time of 3 s keeps it from counting as running.
  const r = await runpod(['--retries', '4', '--settle', '3s', file], { timeoutMs: 120_000 });
  assert.equal(r.code, 1, show(r));
  const restarts = r.stderr.split('\n').filter((l) => /crasher: restarted by the engine \(\d+ restarts?; /.test(l));
  assert.ok(restarts.length >= 2, `a line per restart\n${show(r)}`);
});

test('a long wait prints a heartbeat naming what is awaited', async (t) => {
  const name = uniqueName('prog-beat');
  cleanupPod(t, name);
  const file = podFile({ name, containers: [sleeper('main')] });
  cleanupFile(t, file);
  // Up at once, and counted as running only after 14 s: nothing else would be said in between.
  const r = await runpod(['--settle', '14s', file], { timeoutMs: 120_000 });
  assert.equal(r.code, 0, show(r));
  assert.match(r.stderr, /: still waiting after 1\ds for main: running for \d+ms, less than the settle time/, show(r));
});
