import { parseYaml } from './dist/src/manifest/yaml.js';
const r = parseYaml(process.argv[2], 'x');
console.log(JSON.stringify(r.problems)); for (const d of r.documents) console.log(d.line, d.sourceNodes, JSON.stringify([...d.lines]));
