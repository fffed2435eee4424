// esbuild settings both bundles share: bin/runpod's (scripts/bundle.mjs) and the single executable's
// (scripts/build-exe.mjs). The stand-ins are what keep start-up cheap in either (BENCHMARKS.md says what each saves);
// one list, so the two cannot drift apart.
import path from 'node:path';
import { yargsNoHelpCache } from './yargs-no-help-cache.mjs';

/** Options for bundling dist/src for Node 20 from the repository at `root`; `plugins` go before the shared ones. */
export function nodeBundleOptions(root, plugins = []) {
  return {
    bundle: true,
    platform: 'node',
    target: 'node20',
    alias: {
      'string-width': path.join(root, 'scripts', 'bundle', 'string-width.mjs'),
      'escalade/sync': path.join(root, 'scripts', 'bundle', 'escalade-sync.mjs'),
      'ajv-i18n': path.join(root, 'scripts', 'bundle', 'ajv-i18n.mjs'),
    },
    // yargs and yargs-parser take import.meta.url for createRequire (config files) and to find their locale files.
    // Both bundles are CommonJS scripts, which have no import.meta: it becomes a variable each bundle defines (see
    // metaUrlBanner). Neither place holds locale files, so yargs keeps its built-in English strings.
    define: { 'import.meta.url': '__runpodMetaUrl' },
    plugins: [...plugins, yargsNoHelpCache],
    logLevel: 'warning',
    legalComments: 'inline',
  };
}

/** The definition of `__runpodMetaUrl` (above): the file URL of `file`, an expression of the CommonJS script. */
export const metaUrlBanner = (file) => `var __runpodMetaUrl = require('node:url').pathToFileURL(${file}).href;`;
