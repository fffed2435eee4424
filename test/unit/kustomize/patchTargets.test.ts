import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileTarget, parseSelector, TargetError, type PatchTarget } from '../../../src/input/kustomize/patchTargets.js';
import type { JsonObject, ResId, Resource } from '../../../src/input/kustomize/resource.js';

const res = (object: JsonObject, previousIds: ResId[] = []): Resource => ({ object, origin: { file: 'r.yaml' }, previousIds });
const deploy = (name: string, extra: JsonObject = {}) => res({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, ...extra } });

describe('patch targets (kustomize resmap Select, SelectorRegex; label selectors as apimachinery parses them)', () => {
  const cases: Array<{ name: string; target: PatchTarget; resource: Resource; selected: boolean }> = [
    { name: 'name is a regular expression anchored at both ends', target: { name: 'api' }, resource: deploy('api-migrate'), selected: false },
    { name: 'name regex', target: { name: 'api.*' }, resource: deploy('api-migrate'), selected: true },
    { name: 'kind alternatives', target: { kind: 'Job|Deployment' }, resource: deploy('a'), selected: true },
    { name: 'group and version', target: { group: 'apps', version: 'v1' }, resource: deploy('a'), selected: true },
    { name: 'the core group is empty', target: { group: '', kind: 'Deployment', version: 'v2' }, resource: deploy('a'), selected: false },
    { name: 'no namespace written is the default namespace', target: { namespace: 'default' }, resource: deploy('a'), selected: true },
    { name: 'a namespace', target: { namespace: 'shop' }, resource: deploy('a', { namespace: 'shop' }), selected: true },
    {
      name: 'a cluster-scoped kind is in no namespace',
      target: { namespace: 'default' },
      resource: res({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' } }),
      selected: false,
    },
    {
      name: 'another name, with no earlier id',
      target: { name: 'web' },
      resource: deploy('prod-web', {}),
      selected: false,
    },
    {
      name: 'the original name (first earlier id) selects a renamed object',
      target: { name: 'web' },
      resource: res({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'prod-web' } }, [{ group: 'apps', version: 'v1', kind: 'Deployment', name: 'web' }]),
      selected: true,
    },
    { name: 'labelSelector equality', target: { labelSelector: 'app=web' }, resource: deploy('a', { labels: { app: 'web' } }), selected: true },
    { name: 'labelSelector set-based in', target: { labelSelector: 'tier in (a, b),app' }, resource: deploy('a', { labels: { app: 'x', tier: 'b' } }), selected: true },
    { name: 'labelSelector notin matches a missing label', target: { labelSelector: 'tier notin (a)' }, resource: deploy('a'), selected: true },
    { name: 'labelSelector !key', target: { labelSelector: '!canary' }, resource: deploy('a', { labels: { canary: 'true' } }), selected: false },
    { name: 'labelSelector !=', target: { labelSelector: 'app!=web' }, resource: deploy('a', { labels: { app: 'web' } }), selected: false },
    { name: 'labelSelector gt', target: { labelSelector: 'gen>3' }, resource: deploy('a', { labels: { gen: '4' } }), selected: true },
    { name: 'annotationSelector', target: { annotationSelector: 'team==core' }, resource: deploy('a', { annotations: { team: 'core' } }), selected: true },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.selected ? 'selected' : 'not selected'}`, () => {
      assert.equal(compileTarget(c.target)(c.resource), c.selected);
    });
  }

  it('parses selectors with the shared parser (labels.Parse: sorted by key, values a sorted set)', () => {
    assert.deepStrictEqual(parseSelector('a=1, b in (y,x),!c,d,e notin (z),f>3'), [
      { key: 'a', operator: 'In', values: ['1'] },
      { key: 'b', operator: 'In', values: ['x', 'y'] },
      { key: 'c', operator: 'DoesNotExist', values: [] },
      { key: 'd', operator: 'Exists', values: [] },
      { key: 'e', operator: 'NotIn', values: ['z'] },
      { key: 'f', operator: 'Gt', values: ['3'] },
    ]);
  });

  it('a bad regular expression or selector is a TargetError', () => {
    assert.throws(
      () => compileTarget({ name: 'a(' }),
      (e: Error) => e instanceof TargetError && /target name "a\(" is not a regular expression/.test(e.message),
    );
    assert.throws(
      () => compileTarget({ labelSelector: 'a in (x' }),
      (e: Error) => e instanceof TargetError && /^labelSelector "a in \(x": missing "\)" at character 8/.test(e.message),
    );
    // Keys and values are checked as labels.Parse checks them, for annotation selectors too (kustomize reads both with it).
    assert.throws(
      () => compileTarget({ annotationSelector: 'note=a b' }),
      (e: Error) => e instanceof TargetError && /^annotationSelector "note=a b": found "b" at character 8/.test(e.message),
    );
    assert.throws(
      () => compileTarget({ labelSelector: 'gen>x' }),
      (e: Error) => e instanceof TargetError && /"x" at character 5 in "gen>x" is not an integer/.test(e.message),
    );
  });
});
