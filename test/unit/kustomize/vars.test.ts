import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KustomizeError } from '../../../src/input/kustomize/errors.js';
import type { JsonObject, ResId, Resource } from '../../../src/input/kustomize/resource.js';
import { applyVars, expandVars } from '../../../src/input/kustomize/vars.js';

const origin = { file: 'kustomization.yaml', line: 9 };
const res = (object: JsonObject, previousIds: ResId[] = []): Resource => ({ object, origin: { file: 'r.yaml', line: 2 }, previousIds });
const svc = (name: string, namespace?: string): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, ...(namespace ? { namespace } : {}) },
  spec: { ports: [{ port: 5432 }] },
});
const pod = (container: JsonObject, metadata: JsonObject = { name: 'p' }): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata,
  spec: { containers: [{ name: 'c', ...container }] },
});
const dbVar = (name: string, fieldPath?: string): JsonObject => ({
  name,
  objref: { apiVersion: 'v1', kind: 'Service', name: 'db' },
  ...(fieldPath ? { fieldref: { fieldPath } } : {}),
});

describe('applyVars (kustomize v5.5 vars in its varReference fields)', () => {
  it('expandVars: $(NAME), $$, unknown names and unclosed references as kustomize reads them', () => {
    const values = new Map<string, string | number>([
      ['A', 'x'],
      ['N', 80],
    ]);
    const used = new Set<string>();
    const look = (n: string) => values.get(n);
    assert.equal(expandVars('a-$(A)-b', look, used), 'a-x-b');
    assert.equal(expandVars('$(N)', look, used), 80);
    assert.equal(expandVars(':$(N)', look, used), ':80');
    assert.equal(expandVars('$$(A) $(B) $(A', look, used), '$(A) $(B) $(A');
    assert.equal(expandVars('cost $5', look, used), 'cost $5');
    assert.deepStrictEqual([...used].sort(), ['A', 'N']);
  });

  it('substitutes in command, args, env values, mount paths and labels, not elsewhere; a whole $(VAR) keeps its type', () => {
    const out = applyVars(
      [
        res(svc('db', 'data')),
        res(
          pod(
            {
              image: '$(DB)',
              command: ['sh', '-c', 'nc $(DB).$(NS) $(PORT)'],
              args: ['$(PORT)'],
              env: [
                { name: 'P', value: '$(PORT)' },
                { name: 'U', value: '$(UNKNOWN)' },
              ],
              volumeMounts: [{ name: 'v', mountPath: '/d/$(DB)' }],
            },
            { name: 'p', labels: { db: '$(DB)' } },
          ),
        ),
      ],
      [dbVar('DB'), dbVar('NS', 'metadata.namespace'), dbVar('PORT', 'spec.ports[0].port')],
      origin,
    );
    assert.deepStrictEqual(
      out[1]!.object,
      pod(
        {
          image: '$(DB)',
          command: ['sh', '-c', 'nc db.data 5432'],
          args: [5432],
          env: [
            { name: 'P', value: 5432 },
            { name: 'U', value: '$(UNKNOWN)' },
          ],
          volumeMounts: [{ name: 'v', mountPath: '/d/db' }],
        },
        { name: 'p', labels: { db: 'db' } },
      ),
    );
  });

  it('an objref finds its object by an earlier id (the name before namePrefix), and reads the current value', () => {
    const renamed = res(svc('prod-db'), [{ group: '', version: 'v1', kind: 'Service', name: 'db' }]);
    const out = applyVars([renamed, res(pod({ args: ['$(DB)'] }))], [dbVar('DB')], origin);
    assert.deepStrictEqual((out[1]!.object.spec as JsonObject).containers, [{ name: 'c', args: ['prod-db'] }]);
  });

  const errors: Array<{ name: string; resources: JsonObject[]; vars: JsonObject[]; message: string }> = [
    {
      name: 'an objref without apiVersion (kustomize compares the version too)',
      resources: [svc('db')],
      vars: [{ name: 'DB', objref: { kind: 'Service', name: 'db' } }],
      message: 'vars[0]: var DB (objref Service db) cannot be mapped to a field in the set of known resources',
    },
    {
      name: 'two objects of that name in two namespaces',
      resources: [svc('db', 'a'), svc('db', 'b')],
      vars: [dbVar('DB')],
      message: 'vars[0]: found 2 resId matches for var DB (objref v1 Service db) (unable to disambiguate)',
    },
    {
      name: 'a missing field',
      resources: [svc('db')],
      vars: [dbVar('DB', 'spec.clusterIP')],
      message: 'vars[0]: field specified in var DB (objref v1 Service db, fieldref spec.clusterIP) not found in corresponding resource',
    },
    {
      name: 'two vars of one name',
      resources: [svc('db')],
      vars: [dbVar('DB'), dbVar('DB')],
      message: "vars[1]: var 'DB' already encountered",
    },
  ];
  for (const c of errors) {
    it(`refuses ${c.name}`, () => {
      assert.throws(
        () =>
          applyVars(
            c.resources.map((o) => res(o)),
            c.vars,
            origin,
          ),
        (e: Error) => e instanceof KustomizeError && e.exitCode === 2 && e.message === `invalid kustomization: kustomization.yaml:9 ${c.message}`,
      );
    });
  }

  it('a non-string item in a substituted list is an error naming the object', () => {
    assert.throws(
      () => applyVars([res(svc('db')), res(pod({ args: ['$(DB)', 3] }))], [dbVar('DB')], origin),
      (e: Error) => e instanceof KustomizeError && /^invalid kustomization: r\.yaml:2 spec\.containers\.args: invalid value type expect a string$/.test(e.message),
    );
  });
});
