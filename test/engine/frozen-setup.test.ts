// An engine that stops answering while a run is still setting up (before any pod's loop, which bounds its own
// requests): runpod must still end at --timeout (124) or at a signal (143), never hang. The engine here is the
// shared one behind a proxy of this test's own that passes requests through until one of a chosen kind, then
// holds that one and everything after it (connections stay open, nothing answers): what a frozen dockerd does.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { runpod, show, uniqueName } from './harness.js';
import { cleanupFile, cleanupPod, dockerTry, podFile, sleeper } from './run-helpers.js';

const engineSocket = (process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock').replace(/^unix:\/\//, '');

/** A unix socket that forwards to the engine until a request line matches `freezeAt`; from then on it answers nothing. */
async function freezingProxy(t: TestContext, freezeAt: RegExp): Promise<{ host: string; frozen: () => boolean }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-freeze-'));
  const sock = path.join(dir, 'engine.sock');
  let frozen = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(engineSocket);
    sockets.add(client).add(upstream);
    client.on('data', (chunk: Buffer) => {
      if (!frozen && freezeAt.test(chunk.toString('latin1'))) frozen = true;
      if (!frozen) upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!frozen) client.write(chunk);
    });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(sock, resolve));
  t.after(() => {
    for (const s of sockets) s.destroy();
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { host: `unix://${sock}`, frozen: () => frozen };
}

for (const [what, freezeAt] of [
  ['asking what the engine can do (GET /info)', /^GET \/[^ ]*info /m],
  ['checking the infra image', /^GET \/[^ ]*images\/[^ ]*\/json /m],
  ['making the namespace network', /^POST \/[^ ]*networks\/create /m],
] as const) {
  test(`the engine freezes while the run is ${what}: exit 124 at --timeout, naming the engine`, async (t) => {
    const name = uniqueName('frz');
    // A namespace of its own, so its network does not exist yet and must be made.
    const namespace = uniqueName('frz-ns');
    cleanupPod(t, name, namespace);
    // Frozen while it held the network's creation lock, the run leaves the lock (a later run takes it over once
    // stale, gc removes it); this test's go with it.
    t.after(() => {
      dockerTry(['rm', '-f', `runpod_netlock_runpod_${namespace}`]);
      dockerTry(['network', 'rm', `runpod_${namespace}`]);
    });
    const file = podFile({ name, namespace, containers: [sleeper('main')] });
    cleanupFile(t, file);
    const proxy = await freezingProxy(t, freezeAt);
    const started = Date.now();
    const r = await runpod(['--host', proxy.host, '--timeout', '4s', file], { timeoutMs: 60_000 });
    const took = Date.now() - started;
    assert.ok(proxy.frozen(), `the run never sent the request to freeze at\n${show(r)}`);
    assert.equal(r.signal, null, `runpod hung past --timeout and was killed\n${show(r)}`);
    assert.equal(r.code, 124, show(r));
    assert.match(r.stderr, /--timeout passed while the Docker engine at unix:\/\/.* had not answered/, show(r));
    assert.ok(took < 20_000, `took ${took} ms for a 4 s timeout`);
  });
}

test('the engine freezes during set-up and SIGTERM comes: exit 143 at once', async (t) => {
  const name = uniqueName('frz-term');
  cleanupPod(t, name);
  const file = podFile({ name, containers: [sleeper('main')] });
  cleanupFile(t, file);
  const proxy = await freezingProxy(t, /^GET \/[^ ]*info /m);
  let pid = 0;
  const running = runpod(['--host', proxy.host, '--timeout', '2m', file], { timeoutMs: 60_000, onSpawn: (p) => (pid = p) });
  const deadline = Date.now() + 20_000;
  while (!proxy.frozen() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.ok(proxy.frozen(), 'the run never reached GET /info');
  const signalled = Date.now();
  process.kill(pid, 'SIGTERM');
  const r = await running;
  assert.equal(r.signal, null, `runpod hung after SIGTERM and was killed\n${show(r)}`);
  assert.equal(r.code, 143, show(r));
  assert.ok(Date.now() - signalled < 10_000, `took ${Date.now() - signalled} ms after SIGTERM`);
});

test("a scoped run whose engine freezes while the pods are taken down: it ends within the grace period and 30 s, with the command's code and the down to run", async (t) => {
  const name = uniqueName('frz-down');
  cleanupPod(t, name);
  // Grace 0: the takedown kills (POST …/kill) rather than stops; the first of either is where the engine freezes.
  const file = podFile({ name, containers: [sleeper('main')] });
  cleanupFile(t, file);
  const proxy = await freezingProxy(t, /^POST \/[^ ]*containers\/[0-9a-f]+\/(stop|kill)/m);
  const started = Date.now();
  const r = await runpod(['--host', proxy.host, '--timeout', '2m', file, '--', 'sh', '-c', 'exit 3'], { timeoutMs: 120_000 });
  const took = Date.now() - started;
  assert.ok(proxy.frozen(), `the takedown never sent a stop\n${show(r)}`);
  assert.equal(r.signal, null, `runpod hung in the takedown and was killed\n${show(r)}`);
  assert.equal(r.code, 3, show(r));
  // Under the run's own key everything of the key is the run's: the down line takes all of it, on the engine the run
  // was given with --host (agent/made.ts downLine).
  const advice =
    /could not take down everything this run made: the Docker engine at unix:\/\/.* did not finish within 30s .*; remove what is left with: runpod down --host unix:\/\/\S+ (--project run-[0-9a-f]{8}) --delete-claims --all/.exec(
      r.stderr,
    );
  assert.ok(advice, show(r));
  assert.ok(took < 90_000, `took ${took} ms`);
  // The advice works on the engine itself (the test's proxy to it is frozen): the pod and its key's network go.
  const down = await runpod(['down', '--project', advice[1]!.slice('--project '.length), '--delete-claims', '--all']);
  assert.equal(down.code, 0, show(down));
  assert.match(down.stdout, new RegExp(`default/${name}: removed`), show(down));
  assert.match(down.stdout, /network runpod_default\.run-[0-9a-f]{8}: removed/, show(down));
});
