// The oracle: every kustomization under test/fixtures/kustomize/ (each directory holding a kustomization file)
// rendered by runpod and by `kubectl kustomize` where kubectl is installed, compared byte for byte; where kubectl
// refuses one, runpod refuses it too. Skipped without kubectl (the other tests need none).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { KustomizeError } from '../../../src/input/kustomize/errors.js';
import { renderToText } from '../../../src/input/kustomize/input.js';
import { repoRoot } from '../../engine/harness.js';

const root = path.join(repoRoot, 'test', 'fixtures', 'kustomize');
const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
const present = kubectl.status === 0 && /Kustomize Version: v5/.test(kubectl.stdout);

function kustomizations(dir: string): string[] {
  const out: string[] = [];
  const names = fs.readdirSync(dir, { withFileTypes: true });
  if (names.some((n) => n.isFile() && ['kustomization.yaml', 'kustomization.yml', 'Kustomization'].includes(n.name))) out.push(dir);
  for (const n of names) if (n.isDirectory()) out.push(...kustomizations(path.join(dir, n.name)));
  return out;
}

// Refused on purpose though kustomize renders it (runpod does not read custom OpenAPI schemas).
const refusedByRunpodOnly = new Set(['core-refused/openapi']);

describe('runpod kustomize = kubectl kustomize over test/fixtures/kustomize', { skip: present ? false : 'kubectl with kustomize v5 is not installed' }, () => {
  for (const dir of kustomizations(root)) {
    const rel = path.relative(root, dir);
    it(rel, () => {
      const expected = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
      let actual: string | KustomizeError;
      try {
        actual = renderToText(dir);
      } catch (err) {
        if (!(err instanceof KustomizeError)) throw err;
        actual = err;
      }
      if (refusedByRunpodOnly.has(rel)) {
        assert.ok(actual instanceof KustomizeError);
        return;
      }
      if (expected.status !== 0) {
        assert.ok(actual instanceof KustomizeError, `kubectl refused it (${expected.stderr.trim()}); runpod rendered it`);
        return;
      }
      assert.ok(!(actual instanceof KustomizeError), `runpod refused it: ${actual instanceof Error ? actual.message : ''}`);
      assert.equal(actual, expected.stdout);
    });
  }
});
