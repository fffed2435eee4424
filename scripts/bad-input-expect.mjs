// Rewrite test/bad-input/*.expect from what the built CLI prints now (`npm run build` first). For when a message
// changes on purpose: review `git diff test/bad-input` before committing — an .expect file is the contract.
// Usage: node scripts/bad-input-expect.mjs [file...]   (default: every input in the corpus)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.join(root, 'test', 'bad-input');
const files = process.argv.length > 2 ? process.argv.slice(2).map((f) => path.basename(f)) : fs.readdirSync(dir).filter((f) => !f.endsWith('.expect'));
for (const file of files.sort()) {
  const r = spawnSync(process.execPath, [path.join(root, 'bin', 'runpod'), 'validate', file], { cwd: dir, encoding: 'utf8', env: { ...process.env, CI: 'true', NO_COLOR: '1' } });
  if (r.status !== 2) {
    console.error(`${file}: exit ${r.status}, not 2; left as it was\n${r.stderr}`);
    continue;
  }
  const lines = r.stderr.split('\n');
  const head = lines.findIndex((l) => l.startsWith('runpod: invalid manifest: '));
  const rest = lines[head].slice('runpod: invalid manifest: '.length);
  const problems = /^\d+ problems$/.test(rest)
    ? lines
        .slice(head + 1)
        .filter((l) => l.startsWith('  '))
        .map((l) => l.slice(2))
    : [rest];
  fs.writeFileSync(path.join(dir, `${file}.expect`), `${problems.join('\n')}\n`);
}
