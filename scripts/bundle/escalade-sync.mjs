// Stand-in for escalade/sync inside runpod's bundles (scripts/bundle.mjs and build-exe.mjs alias it here). yargs'
// only use of it is to find the nearest package.json, walking up from the working directory with one readdir per
// level, on every start: yargs() guesses a version from it before runpod gives its own (.version(version)), and
// pkgConf, which runpod never calls, would read options from it. Finding nothing, yargs takes an empty package.json
// ({}), which is what it does when there is none: no directory is read.
export default function escalade() {
  return undefined;
}
