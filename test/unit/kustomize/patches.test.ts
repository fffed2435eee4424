import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KustomizeError } from '../../../src/input/kustomize/errors.js';
import { applyPatches, type PatchEntry } from '../../../src/input/kustomize/patches.js';
import type { JsonObject, ResId, Resource } from '../../../src/input/kustomize/resource.js';

const origin = { file: 'kustomization.yaml', line: 7 };
const cm = (name: string, data: JsonObject = {}, extra: JsonObject = {}): JsonObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...extra },
  data,
});
const res = (object: JsonObject, previousIds: ResId[] = []): Resource => ({ object, origin: { file: 'r.yaml', line: 1 }, previousIds });
const cmId = (name: string, namespace?: string): ResId => ({ group: '', version: 'v1', kind: 'ConfigMap', name, ...(namespace ? { namespace } : {}) });
const smp = (patch: JsonObject | JsonObject[], more: Partial<PatchEntry> = {}): PatchEntry => ({ kind: 'strategicMerge', patch, origin, ...more });

describe('applyPatches (kustomize v5 PatchTransformer / patchesStrategicMerge / patchesJson6902)', () => {
  it('a patch without target patches the object of its own id', () => {
    const out = applyPatches([res(cm('a', { x: '1' })), res(cm('b', { x: '1' }))], [smp(cm('b', { y: '2' }))]);
    assert.deepStrictEqual(
      out.map((r) => r.object),
      [cm('a', { x: '1' }), cm('b', { x: '1', y: '2' })],
    );
  });

  it('a patch without target finds an object by an earlier id (written against the name before namePrefix)', () => {
    const renamed = res(cm('prod-a', { x: '1' }), [cmId('a')]);
    const out = applyPatches([renamed], [smp(cm('a', { y: '2' }))]);
    assert.deepStrictEqual(out[0]!.object, cm('prod-a', { x: '1', y: '2' }));
    assert.deepStrictEqual(out[0]!.previousIds, [cmId('a')]);
  });

  it('the default namespace and no namespace are the same namespace; another namespace is not', () => {
    const out = applyPatches([res(cm('a', {}, { namespace: 'default' }))], [smp(cm('a', { y: '2' }))]);
    assert.deepStrictEqual(out[0]!.object, cm('a', { y: '2' }, { namespace: 'default' }));
    assert.throws(
      () => applyPatches([res(cm('a', {}, { namespace: 'shop' }))], [smp(cm('a', { y: '2' }))]),
      (e: Error) =>
        e instanceof KustomizeError &&
        e.message ===
          'invalid kustomization: kustomization.yaml:7 patches: no objects match the strategic merge patch for v1/ConfigMap a; failed to find unique target for patch; the patch names the object by its apiVersion, kind, metadata.name and namespace as the resources write them; or give the patch a target',
    );
  });

  it('several documents in one patch are several patches; with a target that is refused', () => {
    const out = applyPatches([res(cm('a')), res(cm('b'))], [smp([cm('a', { p: '1' }), cm('b', { p: '2' })])]);
    assert.deepStrictEqual(
      out.map((r) => r.object),
      [cm('a', { p: '1' }), cm('b', { p: '2' })],
    );
    assert.throws(() => applyPatches([res(cm('a'))], [smp([cm('a'), cm('b')], { target: { kind: 'ConfigMap' } })]), /a patch with a target must be one strategic merge patch/);
  });

  it("a targeted patch patches every object selected, keeps each one's name and namespace, and matching none is not an error", () => {
    const out = applyPatches(
      [res(cm('a', {}, { namespace: 'n1' })), res(cm('b'))],
      [
        smp({ apiVersion: 'v9', kind: 'ConfigMap', metadata: { name: 'zzz', namespace: 'other', labels: { l: '1' } } }, { target: { kind: 'ConfigMap' } }),
        smp(cm('x', { never: 'here' }), { target: { kind: 'Secret' } }),
      ],
    );
    assert.deepStrictEqual(
      out.map((r) => r.object),
      [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'n1', labels: { l: '1' } }, data: {} },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', labels: { l: '1' } }, data: {} },
      ],
    );
  });

  it('options allowNameChange renames and keeps the earlier id; without it the name stays', () => {
    const patch = cm('renamed', { y: '1' });
    const kept = applyPatches([res(cm('a'))], [smp(patch, { target: { name: 'a' } })]);
    assert.equal((kept[0]!.object.metadata as JsonObject).name, 'a');
    const renamed = applyPatches([res(cm('a'))], [smp(patch, { target: { name: 'a' }, options: { allowNameChange: true } })]);
    assert.deepStrictEqual(renamed[0]!.object, cm('renamed', { y: '1' }));
    assert.deepStrictEqual(renamed[0]!.previousIds, [cmId('a')]);
  });

  it('options allowKindChange changes the kind', () => {
    const out = applyPatches([res(cm('a'))], [smp({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a' } }, { target: { name: 'a' }, options: { allowKindChange: true } })]);
    assert.equal(out[0]!.object.kind, 'Secret');
    assert.deepStrictEqual(out[0]!.previousIds, [cmId('a')]);
  });

  it('$patch: delete removes the object', () => {
    const out = applyPatches([res(cm('a')), res(cm('b'))], [smp({ ...cm('a'), $patch: 'delete' })]);
    assert.deepStrictEqual(
      out.map((r) => (r.object.metadata as JsonObject).name),
      ['b'],
    );
  });

  it('a JSON patch is applied to each object selected; a JSON patch without target is refused', () => {
    const ops = [{ op: 'add', path: '/data/z', value: '9' }];
    const out = applyPatches([res(cm('a', {})), res(cm('b', {}))], [{ kind: 'json6902', patch: ops, target: { name: 'b' }, origin }]);
    assert.deepStrictEqual(
      out.map((r) => r.object),
      [cm('a', {}), cm('b', { z: '9' })],
    );
    assert.throws(
      () => applyPatches([res(cm('a'))], [{ kind: 'json6902', patch: ops, origin, field: 'patchesJson6902' }]),
      (e: Error) => e instanceof KustomizeError && e.exitCode === 2 && /kustomization\.yaml:7 patchesJson6902: a JSON 6902 patch needs a target/.test(e.message),
    );
  });

  it('a JSON patch that renames keeps the earlier id', () => {
    const ops = [{ op: 'replace', path: '/metadata/name', value: 'b' }];
    const out = applyPatches([res(cm('a'))], [{ kind: 'json6902', patch: ops, target: { name: 'a' }, origin }]);
    assert.deepStrictEqual(out[0]!.previousIds, [cmId('a')]);
  });

  it('errors from a patch name the kustomization and its line', () => {
    assert.throws(
      () => applyPatches([res(cm('a', { x: '1' }))], [{ kind: 'json6902', patch: [{ op: 'remove', path: '/data/y' }], target: { name: 'a' }, origin }]),
      (e: Error) => e instanceof KustomizeError && e.message === 'invalid kustomization: kustomization.yaml:7 patches: op 0 (path /data/y): no value at this path to remove',
    );
    assert.throws(
      () => applyPatches([res(cm('a'))], [smp({ ...cm('a'), data: { $patch: 'bogus' } })]),
      (e: Error) => e instanceof KustomizeError && /patches: data: unknown patch strategy 'bogus'/.test(e.message),
    );
  });

  it('the resources given are not changed', () => {
    const input = [res(cm('a', { x: '1' }))];
    const before = structuredClone(input);
    applyPatches(input, [smp(cm('a', { x: null, y: '2' }))]);
    assert.deepStrictEqual(input, before);
  });
});
