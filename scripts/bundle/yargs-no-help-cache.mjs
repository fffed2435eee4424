// esbuild plugin for runpod's bundles (scripts/bundle.mjs, build-exe.mjs). After running a named command's handler,
// yargs renders that command's whole help (cliui, wrap-ansi) and keeps it, for a handler that would show help
// later or for its default failure output: 3–5 ms of every `runpod validate`, `down`, `status` … (BENCHMARKS.md).
// runpod shows help only for --help (which yargs renders on its own path) and fails through its own .fail(), so the
// kept text is never read; this drops the one call that makes it. If yargs changes that line the build fails here
// rather than silently keeping the cost.
import { readFile } from 'node:fs/promises';

const call = 'yargs.getInternalMethods().getUsageInstance().cacheHelpMessage();';

export const yargsNoHelpCache = {
  name: 'yargs-no-help-cache',
  setup(b) {
    b.onLoad({ filter: /[\\/]yargs[\\/]build[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (source.split(call).length !== 2) throw new Error(`${args.path}: expected one "${call}" (yargs changed; see scripts/bundle/yargs-no-help-cache.mjs)`);
      return { contents: source.replace(call, ''), loader: 'js' };
    });
  },
};
