// `npm run build:exe`: runpod as one file that needs no Node.js on the host, dist/runpod-linux-<arch> (a Node single
// executable application). Steps, after `npm run build` has compiled dist/src:
//   1. esbuild bundles dist/src/main.js and every package into ONE CommonJS script (dist/exe/runpod.cjs): the
//      executable's embedded script can require() built-in modules only, and a startup snapshot cannot import()
//      chunks, so nothing may stay a separate file or an external package. Each command's module stays lazy:
//      esbuild turns `await import('../commands/run.js')` into a function call inside the same script.
//      docker-modem (ssh engines only) is bundled apart, into an asset of the executable (modemFromAsset below).
//   2. `node --experimental-sea-config` turns that script into a preparation blob: with a V8 startup snapshot
//      of it (RUNPOD_EXE_MODE=snapshot, the default: it measured best, see BENCHMARKS.md), with V8's code cache
//      (codecache), or plain (script).
//   3. a copy of this node binary gets the blob injected by postject, under the fuse Node looks for.
// If the snapshot build fails (a module that cannot be snapshotted, another Node version), the build falls back
// to the code-cache executable and says so: `build:exe` always produces a working file.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { copyFileSync, chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { metaUrlBanner, nodeBundleOptions } from './bundle/options.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const work = path.join(root, 'dist', 'exe');
const exe = path.join(root, 'dist', `runpod-linux-${process.arch}`);
const mode = process.env.RUNPOD_EXE_MODE ?? 'snapshot';
if (!['script', 'codecache', 'snapshot'].includes(mode)) throw new Error(`RUNPOD_EXE_MODE=${mode}: expected script, codecache or snapshot`);
// The fuse string Node's single-executable support checks for (documented in single-executable-applications).
const fuse = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

/**
 * For the snapshot, also run in the builder what needs no engine (dist/src/snapshotWarmup.js: every command's module
 * evaluated, validate of a few manifests from stdin, each command's option builder up to a usage error, and the
 * pure plan, decide and check steps of a run), so that their modules come initialised in the deserialized heap and
 * their functions compiled (Node 20 keeps the bytecode of what ran in the builder). `validate` measured 0.89× of the
 * code-cache executable with its modules loaded there, 0.99× without; see BENCHMARKS.md for the warm-up's figures.
 * node:http, https and http2, which a Node 20 snapshot builder refuses, are loaded on first use (src/lazyBuiltins.ts),
 * after start-up. A warm-up that fails stops the snapshot build (the code-cache executable is made instead).
 * RUNPOD_EXE_PREWARM=0 leaves it out.
 */
function prewarm(snapshot) {
  if (!snapshot || process.env.RUNPOD_EXE_PREWARM === '0') return '';
  const warmup = JSON.stringify(path.join(root, 'dist', 'src', 'snapshotWarmup.js').replaceAll('\\', '/'));
  return `import { warmUp } from ${warmup};
    warmUp().catch((err) => { process.stderr.write('snapshot warm-up failed: ' + (err && err.stack || err) + '\\n'); process.exit(1); });\n`;
}

/**
 * esbuild keeps `await import('node:https')` as a real dynamic import in CommonJS output, and an embedded script has
 * no dynamic import (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING, found by test/engine/executable.test.ts). Each such
 * import becomes a small bundled module that re-exports the built-in: still loaded only when the code reaches it
 * (after start-up, which node:https and tls need under a snapshot), now through require().
 */
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (args) => (args.kind === 'dynamic-import' ? { path: args.path, namespace: 'lazy-builtin' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
      contents: `export * from ${JSON.stringify(args.path)}; export { default } from ${JSON.stringify(args.path)};`,
      loader: 'js',
      resolveDir: root,
    }));
  },
};

/**
 * docker-modem (with ssh2 and its crypto, 0.6 MB of script) serves ssh:// engines only, yet as part of the script
 * it would be in the snapshot's heap, read on every start. It goes into the executable as a separate asset
 * (sea-config "assets", Node 20.12 and later; not in the V8 heap) and is compiled from there the first time an
 * ssh engine needs it, as bin/runpod imports it from node_modules only then. Its requires are built-ins only (ssh2's
 * optional native parts are tried and skipped, as in the script).
 */
const modemAsset = 'docker-modem.cjs';
// Single-executable assets (and node:sea, which reads them) came with Node 20.12; an older builder keeps
// docker-modem inside the script, as before.
const withAssets = isBuiltin('node:sea');
const modemFromAsset = {
  name: 'docker-modem-from-asset',
  setup(b) {
    b.onResolve({ filter: /^docker-modem$/ }, (args) => (args.kind === 'dynamic-import' ? { path: 'docker-modem', namespace: 'sea-asset' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'sea-asset' }, () => ({
      contents: `const { getAsset } = require('node:sea');
        const { compileFunction } = require('node:vm');
        const loaded = { exports: {} };
        const { isBuiltin } = require('node:module');
        // Built-ins only, and a plain "not found" for anything else (ssh2's optional native parts, which it tries
        // in try/catch): the embedded script's own require would also print a warning for each.
        const requireBuiltin = (id) => {
          if (isBuiltin(id)) return require(id);
          throw Object.assign(new Error('Cannot find module ' + JSON.stringify(id)), { code: 'MODULE_NOT_FOUND' });
        };
        // The parameters of a CommonJS module, as the embedded script has them (its __filename is the executable).
        const params = ['require', 'module', 'exports', '__filename', '__dirname'];
        compileFunction(getAsset(${JSON.stringify(modemAsset)}, 'utf8'), params, { filename: ${JSON.stringify(modemAsset)} })(requireBuiltin, loaded, loaded.exports, __filename, __dirname);
        module.exports = loaded.exports;`,
      loader: 'js',
      resolveDir: root,
    }));
  },
};

/** docker-modem and what it requires, one CommonJS script for the asset above. */
async function bundleModem() {
  const outfile = path.join(work, modemAsset);
  await build({
    stdin: { contents: `module.exports = require('docker-modem');`, resolveDir: root, loader: 'js' },
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: ['*.node', 'cpu-features'],
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
    legalComments: 'inline',
  });
  return outfile;
}

/** Bundle the CLI with an entry that starts it now (script) or after the snapshot is deserialized (snapshot). */
async function bundle(snapshot) {
  const outfile = path.join(work, snapshot ? 'runpod-snapshot.cjs' : 'runpod.cjs');
  const main = path.join(root, 'dist', 'src', 'main.js').replaceAll('\\', '/');
  const start = snapshot
    ? // Inside the snapshot builder the bundle's top level runs (its static imports: yargs, the CLI
      // definitions, js-yaml …) and the warm-up above; node:http, https and tls for the engine are loaded on the
      // first request, after the snapshot is deserialized.
      `import v8 from 'node:v8';
       v8.startupSnapshot.setDeserializeMainFunction(() => { void mainAndExit(process.argv.slice(2)); });`
    : `void mainAndExit(process.argv.slice(2));`;
  await build({
    stdin: { contents: `import { mainAndExit } from ${JSON.stringify(main)};\n${prewarm(snapshot)}${start}\n`, resolveDir: root, loader: 'js' },
    // The stand-ins, yargs' plugin and import.meta.url's variable, shared with bin/runpod's bundle.
    ...nodeBundleOptions(root, [lazyBuiltins, ...(withAssets ? [modemFromAsset] : [])]),
    outfile,
    format: 'cjs',
    // ssh2's optional native parts: it requires them in try/catch and uses its JavaScript code when they are
    // missing, which is all an embedded script can do (it loads no files from disk).
    external: ['*.node', 'cpu-features'],
    // import.meta.url (see nodeBundleOptions) is the file URL of the node binary that runs the script (in the
    // snapshot: the builder's).
    banner: { js: metaUrlBanner('process.execPath') },
    // Every start deserializes the snapshot's heap, the script's source text included, so its size is start-up
    // time. Without comments and layout the source is 30% smaller, and it is all Latin-1: a comment in a quote
    // mark outside it (several packages have them) makes V8 hold the whole script as a two-byte string. The
    // blob went from 12.5 to 8.4 MB, `--version` from 1.32× to 1.27× of an empty snapshot (BENCHMARKS.md).
    // Identifiers are kept, so an internal error's stack still names its functions.
    minifyWhitespace: true,
    minifySyntax: true,
  });
  return outfile;
}

/** Make the executable from a bundled script; throws when Node refuses the blob. */
function makeExe(script, options) {
  const config = path.join(work, 'sea-config.json');
  const blob = path.join(work, 'sea-prep.blob');
  writeFileSync(config, JSON.stringify({ main: script, output: blob, disableExperimentalSEAWarning: true, ...(modem ? { assets: { [modemAsset]: modem } } : {}), ...options }));
  execFileSync(process.execPath, ['--experimental-sea-config', config], { stdio: ['ignore', 'ignore', 'inherit'] });
  const tmp = `${exe}.tmp`;
  copyFileSync(process.execPath, tmp);
  chmodSync(tmp, 0o755);
  execFileSync(process.execPath, [path.join(root, 'node_modules', 'postject', 'dist', 'cli.js'), tmp, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', fuse], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // Replaced whole, never rewritten in place: a running copy of the old file keeps working.
  rmSync(exe, { force: true });
  execFileSync('mv', [tmp, exe]);
}

/** The new file answers --version as bin/runpod would: a broken snapshot must not be shipped. */
function works() {
  try {
    return execFileSync(exe, ['--version'], { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] }).trim() !== '';
  } catch {
    return false;
  }
}

const modem = withAssets ? await bundleModem() : undefined;
let made = mode;
if (mode === 'snapshot') {
  try {
    makeExe(await bundle(true), { useSnapshot: true });
    if (!works()) throw new Error('the snapshot executable does not answer --version');
  } catch (err) {
    process.stderr.write(`build:exe: the snapshot build failed (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); making the code-cache executable instead\n`);
    made = 'codecache';
  }
}
if (made !== 'snapshot') {
  makeExe(await bundle(false), made === 'codecache' ? { useCodeCache: true } : {});
  if (!works()) throw new Error(`${exe} does not answer --version`);
}
process.stdout.write(`${path.relative(root, exe)} (${made})\n`);
