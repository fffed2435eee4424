// The layering of src/, checked by `npm run lint:deps` (part of `npm test`). ARCHITECTURE.md explains the floors.
// A folder may import its own folder and any folder on a lower floor; never a higher floor, never a sibling on
// its own floor, never round in a circle. Outside src/engine/ the engine is reached only through its ports.
// No exceptions are listed: a rule that needs one means the code is in the wrong place.

/** Floors from the ground up; the folders on one floor do not import each other. */
const floors = [
  ['ground'], // src/kube/: Kubernetes vocabulary; src/*.ts: the project's own words (errors, image references)
  ['engine', 'workloads', 'input'], // the engine's ports and adapter; controllers' pure rules; input stages
  ['manifest'], // read and validate manifests
  ['plan'], // one pod to the containers that run it (pure)
  ['reconcile'], // compare plan with the engine, act on the difference
  ['services', 'wait'], // endpoints and DNS; probes and readiness
  ['report'], // what the user reads of a run
  ['agent'], // the node agent: one input run to its verdict
  ['commands'], // each command wires the floors below
  ['cli'], // arguments to a command
  ['entry'], // the process: main, the bundle's loader, the snapshot warm-up
];

/** A folder's path pattern; the ground and the entry are files at src/'s top. */
const paths = {
  ground: '^src/(kube/|(errors|imageRef|version|lazyBuiltins)\\.ts$)',
  entry: '^src/(main|bundleLoader|snapshotWarmup)\\.ts$',
};
const pathOf = (name) => paths[name] ?? `^src/${name}/`;
const anyOf = (names) => names.map(pathOf);

const floorRules = floors.flatMap((floor, i) => {
  const higher = floors.slice(i + 1).flat();
  return floor.flatMap((name) => {
    const above = [...higher, ...floor.filter((other) => other !== name)];
    if (above.length === 0) return [];
    return [{
      name: `floor-${name}`,
      comment: `${name} may import only its own folder and lower floors`,
      severity: 'error',
      from: { path: pathOf(name) },
      to: { path: anyOf(above) },
    }];
  });
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'a circle of imports has no floor to stand on',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'engine-only-through-ports',
      comment: 'outside src/engine/ the engine is reached through src/engine/ports/ only',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/engine/'] },
      to: { path: '^src/engine/', pathNot: '^src/engine/ports/' },
    },
    {
      name: 'src-not-on-tests',
      comment: 'the product does not import its tests or scripts',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts)/' },
    },
    {
      name: 'every-file-on-a-floor',
      comment: 'a file of src/ outside every floor has no place in the layering: add its folder to a floor',
      severity: 'error',
      from: { path: '^src/', pathNot: anyOf(floors.flat()) },
      to: {},
    },
    ...floorRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
