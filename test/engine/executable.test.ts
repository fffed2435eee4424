// The single executable (issue 15): dist/runpod-linux-<arch>, made by scripts/build-exe.mjs, run with no node on
// PATH against the real engine: --version, every command's --help the same as bin/runpod's, validate, the demo pod
// up, status, logs, down, and a scoped run that exits with its command's code.
//
// The test builds the executable itself when it is missing or older than the compiled sources (`npm test` starts
// with `npm run build`, which removes dist/, so under `npm test` it always builds it: about 30–50 s on this
// machine, beside the engine tests that run in parallel). That is what keeps the file `npm test` proves the one
// the sources make; a separate script would let it go stale.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { docker, repoRoot, runpodBin, type CliResult } from './harness.js';

const exe = path.join(repoRoot, 'dist', `runpod-linux-${process.arch}`);
const demo = path.join(repoRoot, 'manifests', 'web-and-client.yaml');

const mtime = (file: string): number => {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return -1;
  }
};

/**
 * A PATH holding no node: a directory with sh only (the scoped run's command is `sh -c`). The executable itself
 * needs nothing on PATH; the docker CLI is not needed either (runpod talks to the engine's socket).
 */
function pathWithoutNode(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-exe-path-'));
  fs.symlinkSync('/bin/sh', path.join(dir, 'sh'));
  return dir;
}

let barePath = '';

before(() => {
  if (mtime(exe) < mtime(path.join(repoRoot, 'dist', 'src', 'main.js'))) {
    execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'build-exe.mjs')], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000 });
  }
  barePath = pathWithoutNode();
  const which = spawnSync('/bin/sh', ['-c', 'command -v node'], { env: { PATH: barePath }, encoding: 'utf8' });
  assert.notEqual(which.status, 0, `node is on the test's PATH: ${which.stdout}`);
});

/**
 * Run a file with args under the PATH without node; CI and NO_COLOR for plain output, as the harness does.
 * closeStdout: the reader of its stdout goes away before it writes (`| head -1` of a long output).
 */
function run(file: string, args: string[], env: Record<string, string> = {}, closeStdout = false): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const full: Record<string, string> = { PATH: barePath, HOME: os.homedir(), CI: 'true', NO_COLOR: '1', ...env };
    if (process.env.DOCKER_HOST) full.DOCKER_HOST = process.env.DOCKER_HOST;
    const child = spawn(file, args, { env: full, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    if (closeStdout) child.stdout.destroy();
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** bin/runpod with node given by its full path: the reference every answer of the executable is held to. */
const reference = (args: string[]): Promise<CliResult> => run(process.execPath, [runpodBin, ...args]);

const said = (r: CliResult): string => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;

test('the executable answers --version and every --help as bin/runpod does, with no node on PATH', async () => {
  const version = await run(exe, ['--version']);
  assert.equal(version.code, 0, said(version));
  assert.deepEqual(version, await reference(['--version']));
  for (const command of [[], ['run'], ['down'], ['status'], ['ps'], ['logs'], ['exec'], ['stats'], ['gc'], ['validate'], ['completion']]) {
    const args = [...command, '--help'];
    assert.deepEqual(await run(exe, args), await reference(args), `runpod ${args.join(' ')}`);
  }
  // A usage error is the same too: its words and exit 2.
  assert.deepEqual(await run(exe, ['get', 'pods']), await reference(['get', 'pods']));
});

test('the executable validates a manifest offline, as bin/runpod does', async () => {
  const ok = await run(exe, ['validate', demo]);
  assert.equal(ok.code, 0, said(ok));
  assert.deepEqual(ok, await reference(['validate', demo]));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-exe-'));
  try {
    const bad = path.join(dir, 'bad.yaml');
    fs.writeFileSync(bad, 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: Bad_Name\nspec:\n  containers:\n    - name: c\n');
    const refused = await run(exe, ['validate', bad]);
    assert.equal(refused.code, 2, said(refused));
    assert.deepEqual(refused, await reference(['validate', bad]));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the executable runs the demo pod, shows it, reads its logs, takes it down, and runs a scoped command', async (t) => {
  // An isolation key of its own: nothing here can meet another test's (or a user's) web-and-client pod.
  const key = `exe-${randomBytes(4).toString('hex')}`;
  const p = ['--project', key];
  t.after(async () => {
    await reference(['down', '--all', ...p]);
    assert.equal(docker(['ps', '-aq', '--filter', `label=io.runpod.project=${key}`]), '', 'containers left under the key');
  });

  const up = await run(exe, [demo, ...p, '--timeout', '120s']);
  assert.equal(up.code, 0, said(up));
  assert.match(up.stdout + up.stderr, /default\/web-and-client: every container is running/);

  const status = await run(exe, ['status', ...p, '-o', 'json']);
  assert.equal(status.code, 0, said(status));
  const pods = (JSON.parse(status.stdout) as { pods: { name: string; phase: string }[] }).pods;
  assert.deepEqual(
    pods.map((pod) => [pod.name, pod.phase]),
    [['web-and-client', 'Running']],
  );
  // The same document as bin/runpod's, but for the AGE a second later.
  const text = await run(exe, ['status', ...p]);
  assert.match(text.stdout, /default\/web-and-client\s+Running\s+2\/2/);
  // Its reader gone (status | head -1): quietly, 141, as bin/runpod.
  const piped = await run(exe, ['status', ...p], {}, true);
  assert.deepEqual([piped.code, piped.stdout, piped.stderr], [141, '', ''], said(piped));

  // The client fetches the page every few seconds; its log shows the page once it has.
  let logs: CliResult | undefined;
  for (let i = 0; i < 30; i++) {
    logs = await run(exe, ['logs', 'web-and-client', '-c', 'client', ...p]);
    if (logs.code === 0 && logs.stdout.includes('hello from web-and-client')) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  assert.ok(logs !== undefined && logs.code === 0, logs && said(logs));
  assert.match(logs.stdout, /hello from web-and-client/);

  const down = await run(exe, ['down', demo, ...p]);
  assert.equal(down.code, 0, said(down));
  assert.match(down.stdout + down.stderr, /default\/web-and-client: removed/);
  assert.equal(docker(['ps', '-aq', '--filter', `label=io.runpod.project=${key}`]), '');

  // A scoped run: up, the command on the host (sh from the bare PATH), down, the command's code.
  const scoped = await run(exe, [demo, ...p, '--timeout', '120s', '--', 'sh', '-c', 'exit 3']);
  assert.equal(scoped.code, 3, said(scoped));
  assert.equal(docker(['ps', '-aq', '--filter', `label=io.runpod.project=${key}`]), '', 'the scoped run took its pod down');
});
