// Plain output is never silent while runpod waits: a line per container state change (a crash loop the engine's
// restart policy runs, with no action of runpod's), and a heartbeat naming what is awaited at least every 10 s.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uniqueName } from './harness.js';
import { busybox, checkNothingLeftBehind, cleanupFile, cleanupPod, podFile, podObject, runpod, show, sleeper } from './run-helpers.js';

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
  assert.match(r.stderr, /: still waiting after \d+s for main: running for \d+ms, less than the settle time/, show(r));
});

test("each pod's line comes when it is ready, the heartbeat names only what is still awaited, a probe's page is one line", async (t) => {
  const fast = uniqueName('prog-fast');
  const slow = uniqueName('prog-slow');
  cleanupPod(t, fast);
  cleanupPod(t, slow);
  // slow answers its readiness probe with busybox httpd's 404 page (four lines of HTML) until, after 16 s, the page
  // is there: a heartbeat or two while fast has long been ready.
  const file = podFile([
    podObject({ name: fast, containers: [sleeper('main')] }),
    podObject({
      name: slow,
      containers: [
        {
          name: 'web',
          image: busybox,
          command: ['sh', '-c', 'mkdir -p /www; (sleep 16; echo ok > /www/ready) & exec httpd -f -p 8080 -h /www'],
          readinessProbe: { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 1 },
        },
      ],
    }),
  ]);
  cleanupFile(t, file);
  const r = await runpod(['--wait', 'ready', '--retries', '20', '--max-delay', '2s', file], { timeoutMs: 120_000 });
  assert.equal(r.code, 0, show(r));
  const lines = r.stderr.split('\n').filter(Boolean);
  // One line per fact: every line is a timestamped line of its own (no page body spilling over).
  for (const l of lines) assert.match(l, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z /, `a line that is no line of its own: ${JSON.stringify(l)}\n${show(r)}`);
  const ready = lines.findIndex((l) => l.includes(`default/${fast}: every container is ready`));
  const beats = lines.flatMap((l, i) => (l.includes('still waiting after') ? [{ l, i }] : []));
  assert.ok(ready >= 0, show(r));
  assert.ok(beats.length > 0, `a heartbeat while slow is awaited\n${show(r)}`);
  assert.ok(
    beats.every((b) => b.i > ready && b.l.includes(`default/${slow}:`)),
    `only slow is awaited once fast is ready, and fast said so first\n${show(r)}`,
  );
  assert.match(
    beats[0]!.l,
    /still waiting after \d+s for web: not ready: readiness probe \(httpGet http:\/\/<pod>:8080\/ready\) failed: HTTP probe failed with statuscode: 404: <HTML><HEAD><TITLE>404 Not Found<\/TITLE><\/HEAD> <BODY><H1>404 Not Found<\/H1> The requested URL was not found <\/BODY><\/HTML>$/,
    show(r),
  );
  // The end repeats no pod's line.
  assert.equal(lines.filter((l) => l.includes(`default/${fast}: every container is ready`)).length, 1, show(r));
});
