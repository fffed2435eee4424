// The bad-input corpus (test/bad-input/): every file there, with the problems its .expect file lists, exactly,
// through the built CLI — `runpod validate` and `runpod run` — exit 2, and nothing on the engine changed. Plus
// the inputs too big to keep in the repository (made here), the alias bomb under a small heap, and a handful of
// randomly mutated manifests (test/unit/manifest/mutations.ts) through `runpod validate`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { type CliResult, docker, repoRoot, runpod, runpodBin } from './harness.js';
import { fuzzCase, render } from '../unit/manifest/mutations.js';

const corpusDir = path.join(repoRoot, 'test', 'bad-input');
const corpus = fs
  .readdirSync(corpusDir)
  .filter((f) => !f.endsWith('.expect'))
  .sort();
const expected = (file: string): string[] =>
  fs
    .readFileSync(path.join(corpusDir, `${file}.expect`), 'utf8')
    .split('\n')
    .filter((l) => l !== '');

/** Every pod in the corpus is named badinput-…; none may ever exist on the engine. */
const corpusPrefix = 'badinput-';

/**
 * The problem lines of a manifest error on stderr: "runpod: invalid manifest: <problem>", or "… N problems" and
 * then one indented line per problem. Progress lines (run's reporter) are not problems.
 */
function problemLines(stderr: string): string[] {
  const lines = stderr.split('\n');
  const head = lines.findIndex((l) => l.startsWith('runpod: invalid manifest: '));
  assert.ok(head >= 0, `no "invalid manifest" line in:\n${stderr}`);
  const rest = lines[head]!.slice('runpod: invalid manifest: '.length);
  const many = /^(\d+) problems$/.exec(rest);
  if (!many) return [rest];
  const out = lines
    .slice(head + 1)
    .filter((l) => l.startsWith('  '))
    .map((l) => l.slice(2));
  assert.equal(out.length, Number(many[1]), stderr);
  return out;
}

/** Why a result is not the expected refusal, or undefined when it is. */
function refusalMismatch(r: CliResult, want: string[], what: string): string | undefined {
  if (r.code !== 2) return `${what}: exit ${r.code}, not 2\n${r.stderr}`;
  if (/internal error/.test(r.stderr)) return `${what}: internal error\n${r.stderr}`;
  if (r.stdout !== '') return `${what}: wrote to stdout: ${r.stdout}`;
  let got: string[];
  try {
    got = problemLines(r.stderr);
  } catch (err) {
    return `${what}: ${err instanceof Error ? err.message : String(err)}`;
  }
  if (JSON.stringify(got) !== JSON.stringify(want)) return `${what}:\n  expected ${want.join('\n           ')}\n  got      ${got.join('\n           ')}`;
  return undefined;
}

function assertRefused(r: CliResult, want: string[], what: string): void {
  const mismatch = refusalMismatch(r, want, what);
  assert.equal(mismatch, undefined, mismatch);
}

/** Check every corpus file with one command; report every mismatch at once. */
async function checkCorpus(command: (file: string) => Promise<CliResult>, label: string): Promise<void> {
  const mismatches: string[] = [];
  await pool(corpus, 3, async (file) => {
    const m = refusalMismatch(await command(file), expected(file), `${label} ${file}`);
    if (m !== undefined) mismatches.push(m);
  });
  assert.deepEqual(mismatches, [], `${mismatches.length} of ${corpus.length} inputs:\n${mismatches.join('\n')}`);
}

/** Run tasks at most `limit` at a time (each is a child process; the machine has two cores). */
async function pool<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await task(item);
    }),
  );
}

/**
 * A unix socket in front of the real engine that records each request line, so a test can say which requests
 * runpod made: for a refused manifest, none that changes anything (and today none at all).
 */
async function recordingProxy(dir: string): Promise<{ address: string; requests: string[]; close(): Promise<void> }> {
  const target = (process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock').replace(/^unix:\/\//, '');
  const socket = path.join(dir, 'engine.sock');
  const requests: string[] = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(target);
    client.on('data', (d: Buffer) => {
      for (const m of d.toString('latin1').matchAll(/^(GET|HEAD|POST|PUT|DELETE|PATCH) (\S+) HTTP\/1\.[01]\r$/gm)) requests.push(`${m[1]} ${m[2]}`);
    });
    client.pipe(upstream).pipe(client);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return { address: `unix://${socket}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Ids of every runpod container on the engine, with their pod names. */
function runpodContainers(): Map<string, string> {
  const out = docker(['ps', '-a', '--no-trunc', '--filter', 'label=app.kubernetes.io/managed-by=runpod', '--format', '{{.ID}} {{.Label "io.kubernetes.pod.name"}}']);
  // A container of runpod's with no pod label (a Service's, a namespace lock) is a bare id: the output is trimmed.
  return new Map(
    out
      .split('\n')
      .filter(Boolean)
      .map((l): [string, string] => {
        const [id = '', pod = ''] = l.split(' ');
        return [id, pod];
      }),
  );
}

describe('bad input: exit 2, the exact problems, nothing on the engine changed', () => {
  let tmp = '';
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  let before_: Map<string, string>;

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-bad-input-'));
    proxy = await recordingProxy(tmp);
    before_ = runpodContainers();
  });
  after(async () => {
    await proxy.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('the corpus has at least 40 inputs, each with its .expect file', () => {
    assert.ok(corpus.length >= 40, `${corpus.length} inputs`);
    for (const f of corpus) assert.ok(expected(f).length > 0, `${f}.expect lists the problems`);
  });

  it('runpod validate refuses each with exactly the expected problems', async () => {
    await checkCorpus((file) => runpod(['validate', file], { cwd: corpusDir }), 'validate');
  });

  it('runpod run refuses each the same way, before asking the engine anything', async () => {
    await checkCorpus((file) => runpod(['run', '--host', proxy.address, file], { cwd: corpusDir }), 'run');
    assert.deepEqual(proxy.requests, [], 'no request reached the engine');
  });

  it('a file far larger than any manifest (4 MiB) is refused before parsing, as a file and on stdin', async () => {
    const big = path.join(tmp, 'huge.yaml');
    const text = `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${corpusPrefix}huge\n  annotations:\n    a: "${'x'.repeat(4 * 1024 * 1024)}"\nspec:\n  containers: [{name: a, image: busybox}]\n`;
    fs.writeFileSync(big, text);
    const size = fs.statSync(big).size;
    const limit = "larger than 3 MiB, the API server's request limit; refused before parsing";
    assertRefused(
      await runpod(['validate', 'huge.yaml'], { cwd: tmp }),
      [`huge.yaml: larger than 3 MiB (${size} bytes), the API server's request limit; refused before parsing`],
      'validate huge.yaml',
    );
    assertRefused(
      await runpod(['run', '--host', proxy.address, 'huge.yaml'], { cwd: tmp }),
      [`huge.yaml: larger than 3 MiB (${size} bytes), the API server's request limit; refused before parsing`],
      'run huge.yaml',
    );
    assertRefused(await runpod(['validate', '-'], { input: text }), [`<stdin>: ${limit}`], 'validate - (4 MiB)');
    assertRefused(await runpod(['run', '--host', proxy.address, '-'], { input: text }), [`<stdin>: ${limit}`], 'run - (4 MiB)');
    assert.deepEqual(proxy.requests, []);
  });

  it('an endless stdin is refused once it passes the limit, not read to the end', async () => {
    const child = spawn(process.execPath, [runpodBin, 'validate', '-'], { env: { ...process.env, CI: 'true', NO_COLOR: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.on('error', () => {}); // EPIPE once runpod stops reading
    const chunk = Buffer.from('# an endless comment line\n'.repeat(4096));
    let written = 0;
    const feed = (): void => {
      // Stop at 64 MiB: past that, runpod has read far beyond the limit and the test fails below.
      while (!child.stdin.destroyed && written < 64 * 1024 * 1024) {
        written += chunk.length;
        if (!child.stdin.write(chunk)) return void child.stdin.once('drain', feed);
      }
      child.stdin.end();
    };
    feed();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 2, stderr);
    assert.deepEqual(problemLines(stderr), [`<stdin>: larger than 3 MiB, the API server's request limit; refused before parsing`]);
    assert.ok(written < 64 * 1024 * 1024, `runpod read ${written} bytes`);
  });

  it('the alias bomb is refused within a small heap (it is never expanded)', async () => {
    // With a 40 MB heap cap, expanding 9^9 strings is impossible: refusing the bomb with exit 2 under the cap shows
    // the memory stays bounded. A valid manifest under the same cap shows the cap leaves room for runpod itself.
    const capped = (args: string[]): Promise<{ code: number | null; stderr: string; peakKb?: number }> =>
      new Promise((resolve, reject) => {
        const child = spawn(process.execPath, ['--max-old-space-size=40', runpodBin, ...args], { cwd: corpusDir, env: { ...process.env, CI: 'true' } });
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('error', reject);
        child.on('exit', (code) => resolve({ code, stderr }));
      });
    const valid = path.join(tmp, 'valid.yaml');
    fs.writeFileSync(valid, `apiVersion: v1\nkind: Pod\nmetadata: {name: ${corpusPrefix}valid}\nspec:\n  containers: [{name: a, image: busybox}]\n`);
    const control = await capped(['validate', valid]);
    assert.equal(control.code, 0, control.stderr);
    for (const bomb of ['alias-bomb.yaml', 'alias-bomb-in-pod.yaml']) {
      const r = await capped(['validate', bomb]);
      assert.equal(r.code, 2, r.stderr);
      assert.deepEqual(problemLines(r.stderr), expected(bomb));
    }
  });

  it('random mutations of valid manifests through runpod validate: exit 0 or a clean exit 2', async () => {
    const cases = fc.sample(fuzzCase, { numRuns: 12, seed: 20240531 });
    await pool(
      cases.map((c, i) => ({ i, text: render(c) })),
      3,
      async ({ i, text }) => {
        const file = path.join(tmp, `fuzz-${i}.yaml`);
        fs.writeFileSync(file, text);
        const r = await runpod(['validate', file]);
        assert.doesNotMatch(r.stderr, /internal error/, text);
        assert.ok(r.code === 0 || r.code === 2, `exit ${r.code} for:\n${text}\n${r.stderr}`);
        if (r.code === 2) assert.ok(problemLines(r.stderr).length > 0);
      },
    );
  });

  it('runpod run against the real engine: still refused, and no container of a corpus pod exists', async () => {
    await checkCorpus((file) => runpod(['run', file], { cwd: corpusDir }), 'run (real engine)');
    // Other tests may create and remove their own pods meanwhile: every container that appeared must be theirs.
    const now = runpodContainers();
    for (const [id, pod] of now) {
      if (!before_.has(id)) assert.ok(!pod.startsWith(corpusPrefix), `container ${id} of corpus pod ${pod} exists`);
    }
    assert.equal(docker(['ps', '-aq', '--filter', `name=${corpusPrefix}`]), '', 'no container named after a corpus pod');
  });
});
