// Part of `npm run build`: bundle the compiled CLI (dist/src/main.js) into dist/runpod/, which bin/runpod loads
// (through dist/src/bundleLoader.js) when it is at least as new as the tsc output. Start-up reads a few files instead
// of a few hundred; each command's module stays a lazy chunk (validate never loads the engine client, --help loads
// neither), and docker-modem (the ssh transport) is left out of the bundle, required from node_modules only for an
// ssh engine: it loads ssh2 at load, time that no start-up should pay.
//
// The chunks are CommonJS, not ES modules: Node 20 can keep V8's compiled code of a script between runs only for
// vm.Script (`cachedData`), not for the ES module loader, and compiling the chunks was most of `runpod validate`'s
// start (BENCHMARKS.md). esbuild splits only ES module output, so the bundle is split as ES modules first and each
// chunk is then turned into a CommonJS module: its imports of other chunks become require('./chunk.js'), its
// dynamic import() calls (other chunks, node:https, docker-modem) become require() inside a promise, as a vm.Script
// has no dynamic import. dist/runpod/package.json says "commonjs", so node's own require() could load them too.
// bundle.json lists each file with a hash of its content: the key of its cached code (see src/bundleLoader.ts).
import { build, transform } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { metaUrlBanner, nodeBundleOptions } from './bundle/options.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist', 'runpod');
rmSync(outdir, { recursive: true, force: true });
const split = await build({
  ...nodeBundleOptions(root),
  entryPoints: { main: path.join(root, 'dist', 'src', 'main.js') },
  outdir,
  write: false,
  splitting: true,
  format: 'esm',
  entryNames: '[name]',
  // One flat directory: every chunk names another as './name.js', which the loader resolves beside itself.
  chunkNames: '[name]-[hash]',
  external: ['docker-modem'],
});

mkdirSync(outdir, { recursive: true });
const files = {};
for (const out of split.outputFiles) {
  const name = path.relative(outdir, out.path);
  if (name.includes(path.sep) || !name.endsWith('.js')) throw new Error(`bundle: unexpected output ${name}`);
  const cjs = await transform(out.text, {
    format: 'cjs',
    target: 'node20',
    // import() becomes Promise.resolve().then(() => require(…)): a vm.Script cannot import().
    supported: { 'dynamic-import': false },
    ...(out.text.includes('__runpodMetaUrl') ? { banner: metaUrlBanner('__filename') } : {}),
    legalComments: 'inline',
    logLevel: 'warning',
  });
  if (/\bimport\.meta\b/.test(cjs.code)) throw new Error(`bundle: ${name} still uses import.meta`);
  // esbuild escapes non-ASCII characters in strings, templates and identifiers, but a comment it keeps inside an
  // expression may hold some (js-yaml's “quote marks”): one such character makes V8 hold the whole chunk as a
  // two-byte string, and the loader reads chunks as latin1. In a comment the escape changes nothing.
  const code = cjs.code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  writeFileSync(path.join(outdir, name), code);
  files[name] = createHash('sha256').update(code).digest('hex').slice(0, 32);
}
if (!files['main.js']) throw new Error('bundle: no main.js');
writeFileSync(path.join(outdir, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
writeFileSync(path.join(outdir, 'bundle.json'), `${JSON.stringify({ entry: 'main.js', files }, null, 1)}\n`);
