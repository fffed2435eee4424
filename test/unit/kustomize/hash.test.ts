// kustomize's name hash (api/hasher): the values below are the suffixes kubectl kustomize (v5.5) gave these
// generated objects.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { encodeForHash, encodeHash, goJson, nameHash } from '../../../src/input/kustomize/hash.js';

describe('kustomize name hash', () => {
  it('encodes the content, sorted, with the name always empty', () => {
    assert.equal(
      encodeForHash({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { B: '2', A: '1' } }),
      '{"data":{"A":"1","B":"2"},"kind":"ConfigMap","name":""}',
    );
    assert.equal(encodeForHash({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, type: 'Opaque' }), '{"data":"","kind":"Secret","name":"","type":"Opaque"}');
  });
  it("escapes as Go's encoder does", () => {
    assert.equal(goJson({ v: '<a&b>\u2028' }), '{"v":"\\u003ca\\u0026b\\u003e\\u2028"}');
  });
  it('swaps 0, 1, 3, a and e in the first 10 hex digits', () => {
    assert.equal(encodeHash('0123456789abcdef'), 'gh2k456789');
    assert.equal(encodeHash('aeaeaeaeae00'), 'mtmtmtmtmt');
  });
  for (const [obj, hash] of [
    [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { A: '1' } }, '89g4tffbfk'],
    [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p-cfg' }, data: { A: '1', B: 'true', C: 'hello world: x', D: '<a&b>' } }, 'k49bg4k65b'],
    [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'p-sec' }, type: 'Opaque', data: { PASS: 'czNjcmV0' } }, '7ctmd57m2c'],
  ] as const) {
    it(`${obj.kind} ${obj.metadata.name} → ${hash}`, () => {
      assert.equal(nameHash(structuredClone(obj) as never), hash);
    });
  }
});
