// Part of `npm run build`: bundle the compiled CLI (dist/src/main.js) into dist/runpod/, which bin/runpod loads
// when it is at least as new as the tsc output. Start-up reads one module instead of a few hundred files; each
// command's module stays a lazy chunk (validate never loads the engine client, --help loads neither), and docker-modem
// (the ssh transport) is left out of the bundle, imported from node_modules only for an ssh engine: it loads ssh2 at
// import, time that no start-up should pay.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { yargsNoHelpCache } from './bundle/yargs-no-help-cache.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist', 'runpod');
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { main: path.join(root, 'dist', 'src', 'main.js') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  external: ['docker-modem'],
  alias: { 'string-width': path.join(root, 'scripts', 'bundle', 'string-width.mjs'), 'escalade/sync': path.join(root, 'scripts', 'bundle', 'escalade-sync.mjs'), 'ajv-i18n': path.join(root, 'scripts', 'bundle', 'ajv-i18n.mjs') },
  // Bundled CommonJS packages (js-yaml's, yargs' helpers) may call require(); give the ESM output one.
  banner: { js: "import { createRequire as __runpodCreateRequire } from 'node:module'; const require = __runpodCreateRequire(import.meta.url);" },
  plugins: [yargsNoHelpCache],
  logLevel: 'warning',
  legalComments: 'inline',
});
