// `npm run bench`: run every compiled benchmark (dist/bench/*.js, not its lib/) in turn. One that fails is
// reported and the others still run; the exit code says whether all passed. BENCH_FILES=dockerScript,speed runs
// only those (by file name without .js).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'bench');
const only = process.env.BENCH_FILES ? new Set(process.env.BENCH_FILES.split(',').map((f) => f.trim())) : undefined;
const files = fs.existsSync(dir)
  ? fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.js') && (only === undefined || only.has(f.replace(/\.js$/, ''))))
      .sort()
  : [];
if (files.length === 0) {
  console.error('bench: no benchmarks in dist/bench (run npm run build)');
  process.exit(1);
}
let failed = 0;
for (const f of files) {
  console.log(`\n## ${f.replace(/\.js$/, '')}\n`);
  const r = spawnSync(process.execPath, [path.join(dir, f)], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.error(`bench: ${f} failed (exit ${r.status ?? r.signal})`);
  }
}
process.exit(failed > 0 ? 1 : 0);
