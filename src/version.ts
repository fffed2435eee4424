// runpod's version, in a module of its own: main answers `--version` from it without loading yargs.
export const version = '0.1.0';
