// bin/runpod's code cache (src/bundleLoader.ts): whatever state the cache files are in, runpod behaves the same;
// only a good cache is used and kept, anything else is rewritten or left alone. Each test runs `node bin/runpod`
// from its own copy of bin/ and dist/runpod/ in a temporary directory, with real files.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { repoRoot } from '../engine/harness.js';

const manifest = path.join(repoRoot, 'manifests', 'web-and-client.yaml');
const key = `${process.version}-${process.arch}`;
// The cache file's magic number and header size (src/bundleLoader.ts).
const magic = 0x52503801;
const headerBytes = 40;

interface Copy {
  root: string;
  bin: string;
  /** The cache directory beside the bundle. */
  beside: string;
}

/** bin/runpod with the bundle and its loader, as an install holds them (without dist/src's other modules). */
function copyInstall(t: { after: (fn: () => void) => void }): Copy {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-codecache-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.copyFileSync(path.join(repoRoot, 'package.json'), path.join(root, 'package.json'));
  fs.cpSync(path.join(repoRoot, 'bin'), path.join(root, 'bin'), { recursive: true, preserveTimestamps: true });
  fs.cpSync(path.join(repoRoot, 'dist', 'runpod'), path.join(root, 'dist', 'runpod'), {
    recursive: true,
    preserveTimestamps: true,
    filter: (src) => path.basename(src) !== '.cache',
  });
  fs.mkdirSync(path.join(root, 'dist', 'src'));
  fs.copyFileSync(path.join(repoRoot, 'dist', 'src', 'bundleLoader.js'), path.join(root, 'dist', 'src', 'bundleLoader.js'));
  return { root, bin: path.join(root, 'bin', 'runpod'), beside: path.join(root, 'dist', 'runpod', '.cache', key) };
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(bin: string, args: string[], env: Record<string, string | undefined> = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const merged: Record<string, string> = {};
    // The user's cache directory is the test's to choose: never the real ~/.cache.
    for (const [k, v] of Object.entries({ ...process.env, XDG_CACHE_HOME: path.join(path.dirname(path.dirname(bin)), 'xdg'), ...env })) if (v !== undefined) merged[k] = v;
    const child = spawn(process.execPath, [bin, ...args], { env: merged, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const validate = (bin: string, env?: Record<string, string | undefined>): Promise<Ran> => run(bin, ['validate', manifest], env);
const expected = `${manifest}: pod default/web-and-client is valid\n`;

function assertValid(r: Ran): void {
  assert.deepEqual(r, { code: 0, stdout: expected, stderr: '' });
}

/** The cache files of a directory: name → (inode, mtime, content). */
function snapshot(dir: string): Map<string, { ino: number; mtimeMs: number; data: Buffer }> {
  const out = new Map<string, { ino: number; mtimeMs: number; data: Buffer }>();
  if (!fs.existsSync(dir)) return out;
  for (const name of fs.readdirSync(dir)) {
    const file = path.join(dir, name);
    const st = fs.statSync(file);
    out.set(name, { ino: st.ino, mtimeMs: st.mtimeMs, data: fs.readFileSync(file) });
  }
  return out;
}

function assertGoodCaches(dir: string): void {
  const files = snapshot(dir);
  assert.ok(files.size > 0, `cache files in ${dir}`);
  for (const [name, { data }] of files) {
    assert.match(name, /^[0-9a-f]+\.v8$/, 'no temporary file is left');
    assert.ok(data.length > headerBytes && data.readUInt32LE(0) === magic && data.toString('latin1', 8, headerBytes) === name.slice(0, -3), `${name} is a whole cache file`);
    assert.equal(zlib.crc32(data.subarray(headerBytes)), data.readUInt32LE(4), `${name}'s checksum`);
  }
}

describe('bin/runpod code cache', () => {
  it('is written on the first run beside the bundle, used and left as it is on the next ones', async (t) => {
    const c = copyInstall(t);
    // --version loads only small chunks, which compile without a cache.
    assert.deepEqual(await run(c.bin, ['--version']), { code: 0, stdout: '0.1.0\n', stderr: '' });
    assert.equal(snapshot(c.beside).size, 0);
    assert.deepEqual((await run(c.bin, ['--help'])).code, 0);
    const afterHelp = snapshot(c.beside);
    assert.ok(afterHelp.size > 0);
    assertValid(await validate(c.bin));
    const afterValidate = snapshot(c.beside);
    // validate loads chunks --help did not (the manifest, the Kubernetes models): each gets a cache; those --help
    // wrote are accepted and not written again.
    assert.ok(afterValidate.size > afterHelp.size);
    for (const [name, f] of afterHelp) assert.deepEqual(afterValidate.get(name), f, `${name} unchanged`);
    assertValid(await validate(c.bin));
    assert.deepEqual(snapshot(c.beside), afterValidate, 'a run with every cache accepted writes nothing');
    assertGoodCaches(c.beside);
    assert.equal(fs.existsSync(path.join(c.root, 'xdg')), false, "the user's cache directory is not used");
  });

  it('a corrupt or truncated cache file is not used: same result, and the file is written again', async (t) => {
    const c = copyInstall(t);
    assertValid(await validate(c.bin));
    const good = snapshot(c.beside);
    const names = [...good.keys()].sort();
    // Garbage, a cut-off file, a flipped byte in V8's data (header intact) and an empty file.
    names.forEach((name, i) => {
      const data = Buffer.from(good.get(name)!.data);
      const file = path.join(c.beside, name);
      if (i % 4 === 0) fs.writeFileSync(file, Buffer.from('not a cache'));
      else if (i % 4 === 1) fs.writeFileSync(file, data.subarray(0, Math.floor(data.length / 2)));
      else if (i % 4 === 2) {
        data.writeUInt8(data.readUInt8(data.length - 5) ^ 0xff, data.length - 5);
        fs.writeFileSync(file, data);
      } else fs.writeFileSync(file, Buffer.alloc(0));
    });
    assertValid(await validate(c.bin));
    assertGoodCaches(c.beside);
    assertValid(await validate(c.bin));
  });

  it("another chunk's cache is not used, and is replaced by the chunk's own", async (t) => {
    const c = copyInstall(t);
    assertValid(await validate(c.bin));
    const good = snapshot(c.beside);
    // Every file swapped with the next one: each a whole cache with a right checksum, made from another source.
    const names = [...good.keys()].sort();
    const swapped = (i: number): Buffer => good.get(names[(i + 1) % names.length]!)!.data;
    names.forEach((name, i) => fs.writeFileSync(path.join(c.beside, name), swapped(i)));
    assertValid(await validate(c.bin));
    assertGoodCaches(c.beside);
    const after = snapshot(c.beside);
    names.forEach((name, i) => assert.notDeepEqual(after.get(name)!.data, swapped(i), `${name} is rewritten`));
    assertValid(await validate(c.bin));
  });

  it('a cache V8 rejects (made by another V8: its version hash differs) is not used, and is written again', async (t) => {
    const c = copyInstall(t);
    assertValid(await validate(c.bin));
    const good = snapshot(c.beside);
    for (const [name, { data }] of good) {
      const changed = Buffer.from(data);
      // V8's own header follows runpod's: its magic number, then the hash of the V8 version that made it.
      changed.writeUInt8(changed.readUInt8(headerBytes + 4) ^ 0xff, headerBytes + 4);
      changed.writeUInt32LE(zlib.crc32(changed.subarray(headerBytes)), 4);
      fs.writeFileSync(path.join(c.beside, name), changed);
    }
    assertValid(await validate(c.bin));
    assertGoodCaches(c.beside);
    for (const [name, f] of snapshot(c.beside)) assert.equal(f.data.readUInt8(headerBytes + 4), good.get(name)!.data.readUInt8(headerBytes + 4), `${name} is rewritten`);
    const after = snapshot(c.beside);
    assertValid(await validate(c.bin));
    assert.deepEqual(snapshot(c.beside), after, 'and then accepted');
  });

  it("an unwritable bundle directory: the user's cache directory; neither writable: runs without a cache", async (t) => {
    const c = copyInstall(t);
    // A file where the directory would be: mkdir fails even for root, which chmod would not stop.
    fs.writeFileSync(path.join(c.root, 'dist', 'runpod', '.cache'), '');
    const xdg = path.join(c.root, 'xdg');
    assertValid(await validate(c.bin, { XDG_CACHE_HOME: xdg }));
    assertGoodCaches(path.join(xdg, 'runpod', 'code-cache', key));
    const written = snapshot(path.join(xdg, 'runpod', 'code-cache', key));
    assertValid(await validate(c.bin, { XDG_CACHE_HOME: xdg }));
    assert.deepEqual(snapshot(path.join(xdg, 'runpod', 'code-cache', key)), written, 'read from there, not written again');

    // No XDG_CACHE_HOME: ~/.cache/runpod.
    const home = path.join(c.root, 'home');
    fs.mkdirSync(home);
    assertValid(await validate(c.bin, { XDG_CACHE_HOME: undefined, HOME: home }));
    assertGoodCaches(path.join(home, '.cache', 'runpod', 'code-cache', key));

    const blocked = path.join(c.root, 'blocked');
    fs.writeFileSync(blocked, '');
    for (let i = 0; i < 2; i++) assertValid(await validate(c.bin, { XDG_CACHE_HOME: path.join(blocked, 'cache'), HOME: blocked }));
    assert.deepEqual(await run(c.bin, ['--version'], { XDG_CACHE_HOME: path.join(blocked, 'cache'), HOME: blocked }), { code: 0, stdout: '0.1.0\n', stderr: '' });
  });

  it('concurrent first runs all succeed and leave whole cache files only', async (t) => {
    const c = copyInstall(t);
    const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? validate(c.bin) : run(c.bin, ['--help']))));
    runs.forEach((r, i) => {
      if (i % 2 === 0) assertValid(r);
      else assert.deepEqual([r.code, r.stderr, r.stdout.startsWith('runpod [run] <manifest...>')], [0, '', true]);
    });
    assertGoodCaches(c.beside);
    const after = snapshot(c.beside);
    assertValid(await validate(c.bin));
    assert.deepEqual(snapshot(c.beside), after, 'every cache written by the concurrent runs is accepted');
  });

  it('RUNPOD_CODE_CACHE=0 reads and writes no cache', async (t) => {
    const c = copyInstall(t);
    assertValid(await validate(c.bin, { RUNPOD_CODE_CACHE: '0' }));
    assert.equal(fs.existsSync(c.beside), false);
  });
});
