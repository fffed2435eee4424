import { loadManifests } from './dist/src/manifest/load.js';
import { formatProblem } from './dist/src/errors.js';
try { const r = await loadManifests(process.argv.slice(2), {defaultNamespace:'default'}); console.log(JSON.stringify(r, null, 1)); }
catch (e) { console.log(e.message); for (const p of e.problems ?? []) console.log(formatProblem(p)); if (!e.problems) console.log(e); }
