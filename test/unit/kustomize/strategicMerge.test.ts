import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject } from '../../../src/input/kustomize/resource.js';
import { strategicMerge, StrategicMergeError } from '../../../src/input/kustomize/strategicMerge.js';

const pod = (spec: JsonObject, metadata: JsonObject = { name: 'p' }): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata,
  spec,
});

describe('strategicMerge (kustomize v5: kyaml merge2 with the v1.21.2 patch strategies)', () => {
  const cases: Array<{ name: string; object: JsonObject; patch: JsonObject; expect: JsonObject | undefined }> = [
    {
      name: 'maps merge; a null deletes a field; a scalar replaces',
      object: pod({ hostname: 'a', nodeSelector: { a: '1', b: '2' } }),
      patch: pod({ hostname: 'b', nodeSelector: { a: null, c: '3' } }),
      expect: pod({ hostname: 'b', nodeSelector: { b: '2', c: '3' } }),
    },
    {
      name: "containers merge by name: the patch's elements first, then the others",
      object: pod({
        containers: [
          { name: 'a', image: 'a:1' },
          { name: 'b', image: 'b:1' },
        ],
      }),
      patch: pod({
        containers: [
          { name: 'b', image: 'b:2' },
          { name: 'c', image: 'c:1' },
        ],
      }),
      expect: pod({
        containers: [
          { name: 'b', image: 'b:2' },
          { name: 'c', image: 'c:1' },
          { name: 'a', image: 'a:1' },
        ],
      }),
    },
    {
      name: 'an element with $patch: delete is removed; a list without strategy (args) is replaced',
      object: pod({
        containers: [
          {
            name: 'a',
            args: ['x', 'y'],
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
          },
        ],
      }),
      patch: pod({ containers: [{ name: 'a', args: ['z'], env: [{ name: 'A', $patch: 'delete' }] }] }),
      expect: pod({ containers: [{ name: 'a', args: ['z'], env: [{ name: 'B', value: '2' }] }] }),
    },
    {
      name: 'volumeMounts merge by mountPath, imagePullSecrets by name, hostAliases by ip',
      object: pod({
        containers: [{ name: 'a', volumeMounts: [{ name: 'v', mountPath: '/v' }] }],
        imagePullSecrets: [{ name: 'r1' }],
        hostAliases: [{ ip: '10.0.0.1', hostnames: ['a'] }],
      }),
      patch: pod({
        containers: [{ name: 'a', volumeMounts: [{ name: 'w', mountPath: '/v' }] }],
        imagePullSecrets: [{ name: 'r2' }],
        hostAliases: [{ ip: '10.0.0.1', hostnames: ['b'] }],
      }),
      expect: pod({
        containers: [{ name: 'a', volumeMounts: [{ name: 'w', mountPath: '/v' }] }],
        imagePullSecrets: [{ name: 'r2' }, { name: 'r1' }],
        hostAliases: [{ ip: '10.0.0.1', hostnames: ['b'] }],
      }),
    },
    {
      name: 'tolerations have no patch strategy in v1.21.2: replaced',
      object: pod({ tolerations: [{ key: 'a', operator: 'Exists' }] }),
      patch: pod({ tolerations: [{ key: 'b', operator: 'Exists' }] }),
      expect: pod({ tolerations: [{ key: 'b', operator: 'Exists' }] }),
    },
    {
      name: "ports merge by containerPort and protocol, in kyaml's order (checked against kubectl kustomize v5.5)",
      object: pod({ containers: [{ name: 'a', ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }] }] }),
      patch: pod({ containers: [{ name: 'a', ports: [{ containerPort: 53, protocol: 'UDP', name: 'dns' }, { containerPort: 8080 }] }] }),
      expect: pod({
        containers: [{ name: 'a', ports: [{ containerPort: 8080 }, { containerPort: 80 }, { containerPort: 53, protocol: 'UDP', name: 'dns' }] }],
      }),
    },
    {
      name: "finalizers (merge, no key) are a set union, the patch's first",
      object: pod({}, { name: 'p', finalizers: ['a', 'b'] }),
      patch: pod({}, { name: 'p', finalizers: ['c', 'a'] }),
      expect: pod({}, { name: 'p', finalizers: ['c', 'a', 'b'] }),
    },
    {
      name: "$patch: replace on a map takes the patch's map; $patch: delete on a map removes it",
      object: pod({ securityContext: { runAsUser: 1, fsGroup: 2 }, dnsConfig: { nameservers: ['1.1.1.1'] } }),
      patch: pod({ securityContext: { $patch: 'replace', runAsNonRoot: true }, dnsConfig: { $patch: 'delete' } }),
      expect: pod({ securityContext: { runAsNonRoot: true } }),
    },
    {
      name: "a list with {$patch: replace} takes the patch's list; {$patch: delete} removes the list",
      object: pod({ containers: [{ name: 'a' }, { name: 'b' }], volumes: [{ name: 'v', emptyDir: {} }] }),
      patch: pod({ containers: [{ $patch: 'replace' }, { name: 'c' }], volumes: [{ $patch: 'delete' }] }),
      expect: pod({ containers: [{ name: 'c' }] }),
    },
    {
      name: 'an unknown kind is merged as a JSON merge patch: maps merge, lists are replaced',
      object: { apiVersion: 'x.io/v1', kind: 'Thing', metadata: { name: 't' }, spec: { items: [{ name: 'a', v: 1 }], m: { a: 1, b: 2 } } },
      patch: { apiVersion: 'x.io/v1', kind: 'Thing', metadata: { name: 't' }, spec: { items: [{ name: 'b' }], m: { a: null } } },
      expect: { apiVersion: 'x.io/v1', kind: 'Thing', metadata: { name: 't' }, spec: { items: [{ name: 'b' }], m: { b: 2 } } },
    },
    {
      name: 'a null the object had is kept; nulls in a new map are dropped',
      object: pod({ hostname: null }, { name: 'p', creationTimestamp: null }),
      patch: pod({ dnsConfig: { options: null, nameservers: ['1.1.1.1'] } }),
      expect: pod({ hostname: null, dnsConfig: { nameservers: ['1.1.1.1'] } }, { name: 'p', creationTimestamp: null }),
    },
    {
      name: '$patch: delete at the top deletes the object',
      object: pod({ hostname: 'a' }),
      patch: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, $patch: 'delete' },
      expect: undefined,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const before = structuredClone(c.object);
      const patchBefore = structuredClone(c.patch);
      assert.deepStrictEqual(strategicMerge(c.object, c.patch), c.expect);
      assert.deepStrictEqual(c.object, before, 'the object is not changed');
      assert.deepStrictEqual(c.patch, patchBefore, 'the patch is not changed');
    });
  }

  it('refuses $setElementOrder, $retainKeys and $deleteFromPrimitiveList, which kustomize copies into the object', () => {
    for (const patch of [
      pod({ '$setElementOrder/containers': [{ name: 'a' }] }),
      pod({ securityContext: { $retainKeys: ['runAsUser'] } }),
      pod({}, { name: 'p', '$deleteFromPrimitiveList/finalizers': ['a'] }),
    ]) {
      assert.throws(
        () => strategicMerge(pod({}), patch),
        (e: Error) => e instanceof StrategicMergeError && /does not apply the \$/.test(e.message),
      );
    }
  });

  it('an unknown $patch value and a map patched with a list are errors naming the field', () => {
    assert.throws(() => strategicMerge(pod({ securityContext: {} }), pod({ securityContext: { $patch: 'nope' } })), /spec\.securityContext: unknown patch strategy 'nope'/);
    assert.throws(() => strategicMerge(pod({ nodeSelector: { a: '1' } }), pod({ nodeSelector: ['a'] })), /spec\.nodeSelector: the patch has a list where the object has a map/);
  });
});
