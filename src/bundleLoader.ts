// bin/runpod's loader of the bundle (dist/runpod, made by scripts/bundle.mjs): CommonJS chunks compiled through
// vm.Script with V8's code cache, so that a start does not compile again what an earlier start compiled. Node 20 has
// no compile cache for ES modules (module.enableCompileCache is Node 22), and compiling the ES module chunks was
// ~130 ms of `runpod validate` (BENCHMARKS.md).
//
// Each chunk's cache is a file named by the hash of the chunk's content (bundle.json), in a directory named by the
// Node version and architecture (V8's code is valid only for the V8 and flags that made it; V8 checks both and
// rejects the data otherwise). It is written when a run loaded a chunk without usable data, at the process's exit,
// when the functions that run has called are compiled and go into it too: beside the bundle (dist/runpod/.cache)
// when that is writable, else in the user's cache directory. A cache is only ever an optimisation: a missing,
// truncated, corrupt or rejected one, an unwritable directory, or RUNPOD_CODE_CACHE=0 means a plain compile and the
// same behaviour; nothing here fails a run. Files are written whole to a temporary name and renamed into place, so a
// concurrent runpod reads the old file or the new one, never half of one.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import type zlib from 'node:zlib';

// node:zlib and node:os are loaded only when a chunk large enough for a cache is (below): `runpod --version` loads
// small chunks only and pays for neither.
const requireBuiltin = createRequire(import.meta.url);

/** dist/runpod/bundle.json: the entry chunk and each chunk's content hash. */
interface BundleIndex {
  entry: string;
  files: Record<string, string>;
}

interface CommonJsModule {
  exports: unknown;
}

type ModuleFunction = (exports: unknown, require: (id: string) => unknown, module: CommonJsModule, filename: string, dirname: string) => void;

/** A chunk compiled without usable cached data this run: its cache is written at exit. */
interface Fresh {
  hash: string;
  script: vm.Script;
}

// Header of a cache file: a magic number (also the format's version), the CRC-32 of V8's data after it, and the hash
// of the chunk it was made from (32 hex digits, as in bundle.json). V8 checks its own header (version, flags, data
// length) but knows the source only by its length and, in release builds, does not check the data's checksum:
// deserializing a damaged payload could crash the process, and another chunk's data of the same length would be
// taken. The CRC-32 costs ~0.5 ms per MB.
const magic = 0x52503801; // "RP8" and format 1
const hashBytes = 32;
const headerBytes = 8 + hashBytes;

// Below this size a chunk compiles in well under a millisecond, about what reading and checking its cache costs.
const minCachedSource = 16 * 1024;

let crc32Function: ((data: Uint8Array) => number) | null | undefined;
/** zlib.crc32 came with Node 20.15: an older Node compiles without a cache rather than trust unchecked data. */
function crc32(): ((data: Uint8Array) => number) | null {
  if (crc32Function === undefined) {
    const { crc32: f } = requireBuiltin('node:zlib') as typeof zlib;
    crc32Function = typeof f === 'function' ? (data) => f(data) : null;
  }
  return crc32Function;
}

/** Where caches are read, in order, and written (the first that takes the file). */
export function cacheDirs(bundleDir: string, env: NodeJS.ProcessEnv): string[] {
  const key = `${process.version}-${process.arch}`;
  const xdg = env.XDG_CACHE_HOME;
  // The XDG base directory rules: a relative XDG_CACHE_HOME is to be ignored.
  const user = xdg !== undefined && path.isAbsolute(xdg) ? path.join(xdg, 'runpod') : path.join((requireBuiltin('node:os') as typeof os).homedir(), '.cache', 'runpod');
  return [path.join(bundleDir, '.cache', key), path.join(user, 'code-cache', key)];
}

function readCache(dirs: readonly string[], hash: string): Buffer | undefined {
  const crc = crc32();
  if (crc === null) return undefined;
  for (const dir of dirs) {
    let file: Buffer;
    try {
      file = readFileSync(path.join(dir, `${hash}.v8`));
    } catch {
      continue;
    }
    if (file.length > headerBytes && file.readUInt32LE(0) === magic && file.toString('latin1', 8, headerBytes) === hash) {
      const data = file.subarray(headerBytes);
      if (crc(data) === file.readUInt32LE(4)) return data;
    }
  }
  return undefined;
}

let tmpCount = 0;

/** Write one cache file into the first directory that takes it; returns the directories still worth trying. */
function writeCache(dirs: readonly string[], hash: string, data: Buffer): readonly string[] {
  const crc = crc32();
  if (crc === null) return [];
  const header = Buffer.alloc(headerBytes);
  header.writeUInt32LE(magic, 0);
  header.writeUInt32LE(crc(data), 4);
  header.write(hash, 8, hashBytes, 'latin1');
  for (let i = 0; i < dirs.length; i++) {
    const dir = dirs[i]!;
    // pid and a random part: two runpods (even in two pid namespaces sharing the directory) never share a name.
    const tmp = path.join(dir, `.${hash}.${process.pid}.${Math.random().toString(36).slice(2)}.${tmpCount++}.tmp`);
    try {
      mkdirSync(dir, { recursive: true });
      writeFileSync(tmp, Buffer.concat([header, data]));
      renameSync(tmp, path.join(dir, `${hash}.v8`));
      return dirs.slice(i);
    } catch {
      try {
        rmSync(tmp, { force: true });
      } catch {
        // The directory cannot even be entered (ENOTDIR, EACCES): there is no temporary file to remove.
      }
    }
  }
  return [];
}

function readIndex(bundleDir: string): BundleIndex {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path.join(bundleDir, 'bundle.json'), 'utf8'));
    if (typeof parsed === 'object' && parsed !== null && 'entry' in parsed && 'files' in parsed) {
      const { entry, files } = parsed;
      if (typeof entry === 'string' && typeof files === 'object' && files !== null) {
        const hashes: Record<string, string> = {};
        for (const [name, hash] of Object.entries(files)) if (typeof hash === 'string' && /^[0-9a-f]{32}$/.test(hash)) hashes[name] = hash;
        return { entry, files: hashes };
      }
    }
  } catch {
    // No index (or a damaged one): every chunk compiles without a cache.
  }
  return { entry: 'main.js', files: {} };
}

/**
 * Load the bundle in `bundleDir` and return its entry module's exports. Chunks require each other as './name.js'
 * (resolved in bundleDir, each loaded once, cycles as in CommonJS); any other require (node's built-ins,
 * docker-modem for an ssh engine) goes to node's own require from bundleDir, which finds node_modules as the
 * bundle always did.
 */
export function loadBundle(bundleDir: string, env: NodeJS.ProcessEnv = process.env): unknown {
  const index = readIndex(bundleDir);
  const useCache = env.RUNPOD_CODE_CACHE !== '0';
  let dirs: readonly string[] | undefined;
  const external = createRequire(path.join(bundleDir, index.entry));
  const modules = new Map<string, CommonJsModule>();
  const fresh: Fresh[] = [];

  const onExit = (): void => {
    for (const { hash, script } of fresh) {
      if (dirs === undefined || dirs.length === 0) return;
      try {
        dirs = writeCache(dirs, hash, script.createCachedData());
      } catch {
        // A cache that cannot be made is only a slower next start.
      }
    }
  };

  const requireChunk = (id: string): unknown => {
    if (!id.startsWith('./')) return external(id);
    const name = id.slice(2);
    const known = modules.get(name);
    if (known) return known.exports;
    const filename = path.join(bundleDir, name);
    // The build makes every chunk ASCII (scripts/bundle.mjs), so latin1 is a plain copy and V8 keeps a one-byte string.
    const source = readFileSync(filename, 'latin1');
    const hash = useCache && source.length >= minCachedSource ? index.files[name] : undefined;
    if (hash !== undefined) dirs ??= cacheDirs(bundleDir, env);
    const cachedData = hash !== undefined && dirs !== undefined ? readCache(dirs, hash) : undefined;
    // The wrapper on the chunk's first line, as node's own: line numbers in stacks stay the file's.
    const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename, ...(cachedData ? { cachedData } : {}) });
    if (hash !== undefined && (cachedData === undefined || script.cachedDataRejected === true)) {
      if (fresh.length === 0) process.once('exit', onExit);
      fresh.push({ hash, script });
    }
    const module: CommonJsModule = { exports: {} };
    modules.set(name, module);
    (script.runInThisContext() as ModuleFunction)(module.exports, requireChunk, module, filename, bundleDir);
    return module.exports;
  };

  return requireChunk(`./${index.entry}`);
}
