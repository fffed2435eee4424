// A kustomization as an input of every command (manifest/load.ts): `-k DIR` and a directory holding one are
// rendered by runpod; the pods' source is the kustomization's directory (what --prune, status and down go by);
// the objects are reported under "DIR (kustomize)"; a generated Secret is an input Secret like any other.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { kustomizeInput } from '../../../src/input/kustomize/input.js';
import { loadManifests } from '../../../src/manifest/load.js';
import { ManifestError } from '../../../src/errors.js';
import { repoRoot } from '../../engine/harness.js';

const ci = path.join(repoRoot, 'test', 'fixtures', 'kustomize', 'core-engine', 'overlays', 'ci');
const noStdin = () => Promise.reject(new Error('stdin is not read here'));

describe('kustomizations as inputs', () => {
  for (const [how, input] of [
    ['-k DIR', kustomizeInput(ci)],
    ['a directory holding a kustomization', ci],
  ] as const) {
    it(`${how}: rendered, the pods' source is its directory, the generated Secret is in the input`, async () => {
      const loaded = await loadManifests([input], { defaultNamespace: 'default' });
      assert.equal(loaded.pods.length, 1);
      const pod = loaded.pods[0]!;
      assert.equal(pod.pod.metadata.namespace, 'kz-ci');
      assert.equal(pod.owner, 'deployment/ci-web');
      assert.equal(pod.source.origin, ci);
      assert.equal(pod.source.file, `${ci} (kustomize)`);
      assert.deepEqual([...(pod.configs?.keys() ?? [])].sort(), ['ConfigMap/ci-web-config-9htbhccm4m', 'Secret/ci-web-secret-b7m5ccc2cg']);
      assert.deepEqual(
        loaded.services.map((s) => `${s.namespace}/${s.name}`),
        ['kz-ci/ci-web'],
      );
      assert.deepEqual(loaded.notes ?? [], how === '-k DIR' ? [] : [`${ci}/kustomization.yaml: a kustomization: rendered by runpod, as with -k ${ci}`]);
    });
  }
  it('a kustomization that cannot be rendered is a problem of its file and line, with the others', async () => {
    const bad = path.join(repoRoot, 'test', 'fixtures', 'kustomize', 'core-refused', 'missing');
    await assert.rejects(
      loadManifests([kustomizeInput(bad), path.join(repoRoot, 'test', 'fixtures', 'kustomize', 'core-refused', 'helm')], { defaultNamespace: 'default' }, noStdin),
      (err: unknown) => {
        assert.ok(err instanceof ManifestError);
        assert.deepEqual(
          err.problems.map((p) => `${path.relative(repoRoot, p.file)}:${p.line} ${p.path}`),
          ['test/fixtures/kustomize/core-refused/missing/kustomization.yaml:2 resources[0]', 'test/fixtures/kustomize/core-refused/helm/kustomization.yaml:2 helmCharts'],
        );
        return true;
      },
    );
  });
});
