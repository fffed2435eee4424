import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyJson6902, JsonPatchError, parsePointer } from '../../../src/input/kustomize/json6902.js';
import type { JsonObject, JsonValue } from '../../../src/input/kustomize/resource.js';

const metadata = (): JsonObject => ({ name: 'a', labels: { 'app.kubernetes.io/name': 'web' }, annotations: { 'x~y': '1' } });
const spec = (): JsonObject => ({ args: ['a', 'b', 'c'], n: 1 });
const doc = (): JsonObject => ({ metadata: metadata(), spec: spec() });

describe('applyJson6902 (RFC 6902 as json-patch v4 applies it for kustomize)', () => {
  const cases: Array<{ name: string; ops: JsonValue[]; expect: JsonObject }> = [
    {
      name: 'add a member, insert at an index, append with -',
      ops: [
        { op: 'add', path: '/spec/m', value: { k: 'v' } },
        { op: 'add', path: '/spec/args/1', value: 'x' },
        { op: 'add', path: '/spec/args/-', value: 'z' },
      ],
      expect: { ...doc(), spec: { args: ['a', 'x', 'b', 'c', 'z'], n: 1, m: { k: 'v' } } },
    },
    {
      name: '~1 is / and ~0 is ~ in a pointer',
      ops: [
        { op: 'replace', path: '/metadata/labels/app.kubernetes.io~1name', value: 'api' },
        { op: 'remove', path: '/metadata/annotations/x~0y' },
      ],
      expect: { metadata: { name: 'a', labels: { 'app.kubernetes.io/name': 'api' }, annotations: {} }, spec: spec() },
    },
    {
      name: 'remove and replace list elements; a negative index counts from the end',
      ops: [
        { op: 'remove', path: '/spec/args/0' },
        { op: 'replace', path: '/spec/args/-1', value: 'last' },
      ],
      expect: { ...doc(), spec: { args: ['b', 'last'], n: 1 } },
    },
    {
      name: 'move and copy; test passes on an equal value',
      ops: [
        { op: 'test', path: '/spec/n', value: 1 },
        { op: 'copy', from: '/spec/args', path: '/spec/copy' },
        { op: 'move', from: '/spec/n', path: '/metadata/n' },
      ],
      expect: { metadata: { ...metadata(), n: 1 }, spec: { args: ['a', 'b', 'c'], copy: ['a', 'b', 'c'] } },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const input = doc();
      assert.deepStrictEqual(applyJson6902(input, c.ops), c.expect);
      assert.deepStrictEqual(input, doc(), 'the input is not changed');
    });
  }

  const errors: Array<{ name: string; ops: JsonValue[]; message: RegExp }> = [
    { name: 'replace of a missing member', ops: [{ op: 'replace', path: '/spec/nope', value: 1 }], message: /^op 0 \(path \/spec\/nope\): no value at this path$/ },
    {
      name: 'remove of a missing member',
      ops: [
        { op: 'add', path: '/a', value: 1 },
        { op: 'remove', path: '/b' },
      ],
      message: /^op 1 \(path \/b\): no value at this path to remove$/,
    },
    { name: 'add under a missing parent', ops: [{ op: 'add', path: '/x/y', value: 1 }], message: /^op 0 \(path \/x\/y\): x is not an object or list here$/ },
    {
      name: 'an index past the end',
      ops: [{ op: 'add', path: '/spec/args/4', value: 1 }],
      message: /^op 0 \(path \/spec\/args\/4\): index 4 is out of the list's bounds \(3 elements\)$/,
    },
    { name: 'a failed test', ops: [{ op: 'test', path: '/spec/n', value: 2 }], message: /^op 0 \(path \/spec\/n\): test failed: the value is 1, the patch expects 2$/ },
    { name: 'an unknown op', ops: [{ op: 'merge', path: '/spec' }], message: /^op 0 \(path \/spec\): op must be one of add, remove, replace, move, copy, test \(got "merge"\)$/ },
    { name: 'a pointer without /', ops: [{ op: 'add', path: 'spec', value: 1 }], message: /^op 0 \(path spec\): a JSON pointer starts with "\/"/ },
  ];
  for (const c of errors) {
    it(`refuses ${c.name}, naming the op's index and path`, () => {
      assert.throws(
        () => applyJson6902(doc(), c.ops),
        (e: Error) => e instanceof JsonPatchError && c.message.test(e.message),
      );
    });
  }

  it('parsePointer', () => {
    assert.deepStrictEqual(parsePointer(''), []);
    assert.deepStrictEqual(parsePointer('/a~1b/c~0d/~01'), ['a/b', 'c~d', '~1']);
  });
});
