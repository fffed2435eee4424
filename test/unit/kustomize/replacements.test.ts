import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KustomizeError } from '../../../src/input/kustomize/errors.js';
import { applyReplacements, resolvePlain, splitFieldPath } from '../../../src/input/kustomize/replacements.js';
import type { JsonObject, ResId, Resource } from '../../../src/input/kustomize/resource.js';

const origin = { file: 'kustomization.yaml', line: 3 };
const res = (object: JsonObject, previousIds: ResId[] = []): Resource => ({ object, origin: { file: 'r.yaml' }, previousIds });
const cm = (name: string, data: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
const deploy = (name: string, spec: JsonObject): JsonObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec });

describe('applyReplacements (kustomize v5.5 replacements)', () => {
  it('splitFieldPath splits on dots, keeps [a.b=c] whole and honours \\.', () => {
    assert.deepStrictEqual(splitFieldPath('spec.containers.[name=a.b].image'), ['spec', 'containers', '[name=a.b]', 'image']);
    assert.deepStrictEqual(splitFieldPath('metadata.annotations.example\\.com/x'), ['metadata', 'annotations', 'example.com/x']);
    assert.deepStrictEqual(splitFieldPath('a.[b.c].d'), ['a', 'b.c', 'd']);
    assert.deepStrictEqual(splitFieldPath('a.[b].c'), ['a', '[b]', 'c']);
  });

  it('resolvePlain reads a plain scalar as YAML does', () => {
    assert.deepStrictEqual(['5', '-2', '1.5', 'true', 'False', '~', 'null', 'web', '1.2.3'].map(resolvePlain), [5, -2, 1.5, true, false, null, null, 'web', '1.2.3']);
  });

  const table: Array<{ name: string; resources: JsonObject[]; previousIds?: ResId[][]; replacement: JsonObject; expect: JsonObject[] }> = [
    {
      name: 'default fieldPaths are metadata.name on both sides; a string target stays a string',
      resources: [cm('src', {}), cm('dst', {})],
      replacement: { source: { kind: 'ConfigMap', name: 'src' }, targets: [{ select: { name: 'dst' }, fieldPaths: ['data.x'], options: { create: true } }] },
      expect: [cm('src', {}), cm('dst', { x: 'src' })],
    },
    {
      name: 'a number target keeps its type; a string target takes the text',
      resources: [cm('src', { n: '3' }), deploy('d', { replicas: 1, template: { metadata: { labels: { n: 'x' } } } })],
      replacement: {
        source: { kind: 'ConfigMap', fieldPath: 'data.n' },
        targets: [{ select: { kind: 'Deployment' }, fieldPaths: ['spec.replicas', 'spec.template.metadata.labels.n'] }],
      },
      expect: [cm('src', { n: '3' }), deploy('d', { replicas: 3, template: { metadata: { labels: { n: '3' } } } })],
    },
    {
      name: 'delimiter and index on the source and on the target (index past the end appends, negative prefixes)',
      resources: [cm('src', { img: 'reg/app:2' }), cm('dst', { a: 'x:1', b: 'p', c: 'q' })],
      replacement: {
        source: { name: 'src', fieldPath: 'data.img', options: { delimiter: ':', index: 1 } },
        targets: [
          { select: { name: 'dst' }, fieldPaths: ['data.a'], options: { delimiter: ':', index: 1 } },
          { select: { name: 'dst' }, fieldPaths: ['data.b'], options: { delimiter: '-', index: 5 } },
          { select: { name: 'dst' }, fieldPaths: ['data.c'], options: { delimiter: '-', index: -1 } },
        ],
      },
      expect: [cm('src', { img: 'reg/app:2' }), cm('dst', { a: 'x:2', b: 'p-2', c: '2-q' })],
    },
    {
      name: 'a source selected by an earlier id; a target selected by an earlier id; reject by kind',
      resources: [cm('prod-src', { v: 'hi' }), cm('prod-dst', { v: '' }), cm('other', { v: '' })],
      previousIds: [[{ group: '', version: 'v1', kind: 'ConfigMap', name: 'src' }], [{ group: '', version: 'v1', kind: 'ConfigMap', name: 'dst' }]],
      replacement: {
        source: { kind: 'ConfigMap', name: 'src', fieldPath: 'data.v' },
        targets: [
          { select: { kind: 'ConfigMap' }, reject: [{ name: 'other' }, { name: 'prod-src' }], fieldPaths: ['data.v'] },
          { select: { name: 'dst' }, fieldPaths: ['data.w'], options: { create: true } },
        ],
      },
      expect: [cm('prod-src', { v: 'hi' }), cm('prod-dst', { v: 'hi', w: 'hi' }), cm('other', { v: '' })],
    },
    {
      name: '* reaches every element; [name=regex] matches unanchored, as kyaml does',
      resources: [
        cm('src', { v: 'x' }),
        deploy('d', {
          template: {
            spec: {
              containers: [
                { name: 'web', image: 'a' },
                { name: 'web-side', image: 'b' },
                { name: 'db', image: 'c' },
              ],
            },
          },
        }),
      ],
      replacement: {
        source: { name: 'src', fieldPath: 'data.v' },
        targets: [{ select: { kind: 'Deployment' }, fieldPaths: ['spec.template.spec.containers.[name=web].image'] }],
      },
      expect: [
        cm('src', { v: 'x' }),
        deploy('d', {
          template: {
            spec: {
              containers: [
                { name: 'web', image: 'x' },
                { name: 'web-side', image: 'x' },
                { name: 'db', image: 'c' },
              ],
            },
          },
        }),
      ],
    },
    {
      name: 'create makes maps, list elements ([k=v]) and a plain scalar',
      resources: [cm('src', { port: '8080' }), deploy('d', { template: { spec: { containers: [{ name: 'a' }] } } })],
      replacement: {
        source: { name: 'src', fieldPath: 'data.port' },
        targets: [{ select: { kind: 'Deployment' }, fieldPaths: ['spec.template.spec.containers.0.ports.[name=http].containerPort'], options: { create: true } }],
      },
      expect: [cm('src', { port: '8080' }), deploy('d', { template: { spec: { containers: [{ name: 'a', ports: [{ name: 'http', containerPort: 8080 }] }] } } })],
    },
  ];
  for (const c of table) {
    it(c.name, () => {
      const input = c.resources.map((o, i) => res(o, c.previousIds?.[i] ?? []));
      const before = structuredClone(input);
      assert.deepStrictEqual(
        applyReplacements(input, [c.replacement], origin).map((r) => r.object),
        c.expect,
      );
      assert.deepStrictEqual(input, before, 'the input is not changed');
    });
  }

  const errors: Array<{ name: string; replacement: JsonObject; message: string }> = [
    { name: 'no source', replacement: { targets: [] }, message: 'replacements must specify a source and at least one target' },
    { name: 'two sources', replacement: { source: { kind: 'ConfigMap' }, targets: [] }, message: 'multiple matches for source selector kind=ConfigMap' },
    { name: 'no source object', replacement: { source: { name: 'nope' }, targets: [] }, message: 'nothing selected by source selector name=nope' },
    {
      name: 'an empty source field',
      replacement: { source: { name: 'a', fieldPath: 'data.none' }, targets: [] },
      message: 'fieldPath `data.none` is missing for replacement source name=a',
    },
    {
      name: 'an index out of bounds',
      replacement: { source: { name: 'a', fieldPath: 'data.v', options: { delimiter: ':', index: 3 } }, targets: [] },
      message: 'options.index 3 is out of bounds for value x:y',
    },
    {
      name: 'a missing target field',
      replacement: { source: { name: 'a', fieldPath: 'data.v' }, targets: [{ select: { name: 'b' }, fieldPaths: ['data.w'] }] },
      message: 'unable to find field "data.w" in replacement target ConfigMap b',
    },
    {
      name: 'a target without select',
      replacement: { source: { name: 'a' }, targets: [{ fieldPaths: ['data.w'] }] },
      message: 'target must specify resources to select (select:)',
    },
    {
      name: 'sourceValue (not in v5.5)',
      replacement: { sourceValue: 'x', targets: [{ select: { name: 'b' } }] },
      message: 'sourceValue is not a field of kustomize v5.5 replacements',
    },
  ];
  for (const c of errors) {
    it(`refuses ${c.name}`, () => {
      assert.throws(
        () => applyReplacements([res(cm('a', { v: 'x:y' })), res(cm('b', {}))], [{ source: { name: 'a' }, targets: [] }, c.replacement], origin),
        (e: Error) => e instanceof KustomizeError && e.message.startsWith(`invalid kustomization: kustomization.yaml:3 replacements[1]: ${c.message}`),
      );
    });
  }
});
