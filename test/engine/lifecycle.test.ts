// The examples in manifests/, waiting for an engine that is still starting, signals, and TTY output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';
import { repoRoot, runpodBin, runpod, uniqueName, podContainerIds } from './harness.js';
import { checkNothingLeftBehind, cleanupPod, dockerTry, eventually, logsOf, podContainers, podFile, show, sleep, sleeper } from './run-helpers.js';

checkNothingLeftBehind();

const examples = fs
  .readdirSync(path.join(repoRoot, 'manifests'))
  .filter((f) => /\.ya?ml$/.test(f))
  .sort();

for (const file of examples) {
  test(`example manifests/${file} runs and comes down`, async (t) => {
    const manifest = path.join(repoRoot, 'manifests', file);
    // A file may hold ConfigMaps and Secrets beside its Pod.
    const docs = yaml.loadAll(fs.readFileSync(manifest, 'utf8')) as { kind?: string; metadata: { name: string }; spec: { restartPolicy?: string } }[];
    const doc = docs.find((d) => d.kind === 'Pod')!;
    const namespace = uniqueName('ex');
    cleanupPod(t, doc.metadata.name, namespace);
    const wait = doc.spec.restartPolicy === 'Never' ? 'completed' : 'running';
    const r = await runpod(['-n', namespace, '--wait', wait, '--timeout', '60s', manifest]);
    assert.equal(r.code, 0, show(r));
    if (file === 'web-and-client.yaml') {
      const client = podContainers(doc.metadata.name, namespace).get('client');
      assert.ok(client, 'the client container exists');
      await eventually('the client fetched the page over localhost', () => (logsOf(client.Id).includes('hello from web-and-client') ? true : undefined));
    }
    if (file === 'web-with-config.yaml') {
      // The page comes from the ConfigMap volume; the password file is not world-readable; the sidecar shares localhost.
      const shipper = podContainers(doc.metadata.name, namespace).get('log-shipper');
      assert.ok(shipper, 'the sidecar exists');
      await eventually('the page from the ConfigMap is served', () =>
        dockerTry(['exec', shipper.Id, 'wget', '-qO-', 'http://localhost:8080/index.html']).stdout.includes('hello from a ConfigMap') ? true : undefined,
      );
      const web = podContainers(doc.metadata.name, namespace).get('web')!;
      assert.match(dockerTry(['exec', web.Id, 'ls', '-l', '/etc/web/password']).stdout, /^-r--r----- /);
      // Non-root, read-only root filesystem, the Secret readable by that user, the init container's work there.
      for (const c of [web, shipper]) {
        assert.equal(dockerTry(['exec', c.Id, 'id', '-u']).stdout.trim(), '65534');
        assert.notEqual(dockerTry(['exec', c.Id, 'touch', '/rootfs-write-test']).status, 0, 'the root filesystem is read-only');
      }
      assert.equal(dockerTry(['exec', web.Id, 'cat', '/etc/web/password']).stdout, 'change-me');
      assert.ok(dockerTry(['exec', web.Id, 'cat', '/data/prepared-at']).stdout.trim().length > 0, 'the init container prepared the data directory');
      const init = podContainers(doc.metadata.name, namespace).get('prepare-data');
      assert.equal(init?.State.ExitCode, 0, 'the init container ran to exit 0');
    }
    const down = await runpod(['down', '-n', namespace, manifest]);
    assert.equal(down.code, 0, show(down));
    assert.deepEqual(podContainerIds(doc.metadata.name, namespace), []);
  });
}

test('an engine that is still starting is waited for within the retry budget', async (t) => {
  const name = uniqueName('late-engine');
  cleanupPod(t, name);
  const file = podFile({ name, containers: [sleeper('main')] });
  // A socket that appears only after a while, then forwards to the real engine: what a boot step sees when it
  // runs before dockerd is up.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-late-'));
  const socket = path.join(dir, 'docker.sock');
  const server = net.createServer((client) => {
    const upstream = net.connect('/var/run/docker.sock');
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  t.after(() => {
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const run = runpod(['--host', `unix://${socket}`, '--retry-delay', '300ms', '--retries', '8', '--timeout', '60s', file]);
  // Long enough for runpod to start and meet the missing socket even on a loaded machine.
  await sleep(3000);
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  const r = await run;
  assert.equal(r.code, 0, show(r));
  assert.match(r.stderr, new RegExp(`waiting for the Docker engine at unix://${socket.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), show(r));
});

for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  test(`${signal} while waiting: exit ${code}, and a re-run converges`, async (t) => {
    const name = uniqueName(`sig-${signal.toLowerCase()}`);
    cleanupPod(t, name);
    // A container that never settles keeps runpod waiting.
    const file = podFile({ name, containers: [{ name: 'crash', image: 'runpod-test/busybox:1', command: ['sh', '-c', 'exit 1'] }] });
    let pid = 0;
    const run = runpod(['--retry-delay', '5s', file], { onSpawn: (p) => (pid = p) });
    await eventually('runpod created the pod', () => (podContainerIds(name).length >= 2 ? true : undefined), 20_000);
    process.kill(pid, signal);
    const r = await run;
    assert.equal(r.code, code, show(r));
    assert.match(r.stderr, new RegExp(`interrupted by ${signal}`), show(r));
    // Everything left carries runpod's labels (podContainerIds finds only those), so `down` removes it all.
    const down = await runpod(['down', file]);
    assert.equal(down.code, 0, show(down));
    assert.deepEqual(podContainerIds(name), []);
  });
}

test('on a terminal: a spinner and colour on stderr; NO_COLOR removes the colour only, CI gives plain lines', async (t) => {
  const name = uniqueName('tty');
  cleanupPod(t, name);
  const file = podFile({ name, containers: [sleeper('main')] });
  // script(1) gives runpod a pseudo-terminal, as a user's shell would.
  const inTty = (env: Record<string, string>): Promise<string> =>
    new Promise((resolve, reject) => {
      const childEnv: Record<string, string> = {};
      for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'CI' && k !== 'NO_COLOR') childEnv[k] = v;
      const child = spawn('script', ['-qec', `stty cols 120 rows 40; ${process.execPath} ${runpodBin} ${file}`, '/dev/null'], {
        env: { ...childEnv, TERM: 'xterm', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.on('error', reject);
      child.on('close', (c) => (c === 0 ? resolve(out) : reject(new Error(`exit ${c}: ${out}`))));
    });
  // SGR sequences (ESC [ … m) are colour; a spinner also moves the cursor and clears lines, which is no colour.
  // eslint-disable-next-line no-control-regex
  const sgr = /\u001b\[[0-9;]*m/;
  const timestamped = /^\d{4}-\d\d-\d\dT[\d:.]+Z /m;
  const colour = await inTty({});
  assert.match(colour, sgr, 'colour on a terminal');
  assert.match(colour, /✔/, 'a success mark per pod');
  const noColour = await inTty({ NO_COLOR: '1' });
  assert.doesNotMatch(noColour, sgr, 'no colour with NO_COLOR');
  assert.match(noColour, /✔/, 'NO_COLOR keeps the terminal output: the mark per pod');
  assert.doesNotMatch(noColour, timestamped, 'and not the plain lines');
  const plain = await inTty({ CI: 'true' });
  // eslint-disable-next-line no-control-regex
  assert.doesNotMatch(plain, /\u001b\[/, 'no ANSI codes at all with CI');
  assert.match(plain, timestamped, 'timestamped lines');
});
