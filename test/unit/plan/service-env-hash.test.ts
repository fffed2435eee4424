// A container's hash ignores the Service variables the kubelet adds at each start (kubelet_pods.go
// makeEnvironmentVariables; the container hash covers the spec only): a Service made, changed or moved to another
// address replaces no pod, while the container is still created with the values of now.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LoadedPod, ServiceObject } from '../../../src/manifest/types.js';
import { translatePod } from '../../../src/plan/translate.js';
import type { ClusterPlan, PodPlan } from '../../../src/plan/types.js';

function service(name: string, port: number): ServiceObject {
  return {
    namespace: 'default',
    name,
    file: 's.yaml',
    line: 1,
    type: 'ClusterIP',
    headless: false,
    selector: { app: name },
    ports: [{ protocol: 'TCP', port, targetPort: port }],
    publishNotReadyAddresses: false,
    sessionAffinity: 'None',
  };
}

function planOf(spec: LoadedPod['pod']['spec'], cluster: ClusterPlan | undefined): PodPlan {
  const loaded = { pod: { metadata: { name: 'web', namespace: 'default' }, spec }, source: { file: '<stdin>' }, line: 1 } as LoadedPod;
  return translatePod(loaded, { infraImage: 'pause:test', ...(cluster ? { cluster } : {}) });
}

const spec = (env: Array<{ name: string; value: string }> = [], args?: string[]): LoadedPod['pod']['spec'] => ({
  containers: [{ name: 'app', image: 'busybox:1', command: ['sh', '-c'], ...(args ? { args } : {}), env }],
});
const envOf = (p: PodPlan): string[] => p.containers[0]!.create.Env ?? [];
const hashOf = (p: PodPlan): string => p.containers[0]!.hash;

describe('the container hash and the Service variables', () => {
  const db = service('db', 5432);
  const one: ClusterPlan = { services: [db], hosts: new Map([['default/db', '10.0.0.5']]) };
  const moved: ClusterPlan = { services: [db], hosts: new Map([['default/db', '10.0.0.9']]) };
  const more: ClusterPlan = {
    services: [db, service('cache', 6379)],
    hosts: new Map([
      ['default/db', '10.0.0.5'],
      ['default/cache', '10.0.0.6'],
    ]),
  };

  it('a Service at another address: the same hash, the new address in the environment', () => {
    const a = planOf(spec(), one);
    const b = planOf(spec(), moved);
    assert.ok(envOf(a).includes('DB_SERVICE_HOST=10.0.0.5'));
    assert.ok(envOf(b).includes('DB_SERVICE_HOST=10.0.0.9'));
    assert.equal(hashOf(a), hashOf(b));
    assert.equal(a.hash, b.hash, 'the pod-level hash too');
  });

  it('a Service added to the namespace, or none at all: the same hash', () => {
    const a = planOf(spec(), one);
    assert.ok(envOf(planOf(spec(), more)).includes('CACHE_SERVICE_HOST=10.0.0.6'));
    assert.equal(hashOf(planOf(spec(), more)), hashOf(a));
    assert.equal(hashOf(planOf(spec(), undefined)), hashOf(a));
  });

  it('a $(VAR) reading a Service variable is hashed as written; its value is the current one', () => {
    const withRef = spec([{ name: 'DB_URL', value: 'postgres://$(DB_SERVICE_HOST):5432' }], ['echo $(DB_SERVICE_PORT)']);
    const a = planOf(withRef, one);
    const b = planOf(withRef, moved);
    assert.ok(envOf(b).includes('DB_URL=postgres://10.0.0.9:5432'));
    assert.deepEqual(b.containers[0]!.create.Cmd, ['echo 5432']);
    assert.equal(hashOf(a), hashOf(b));
  });

  it("the container's own env still counts, also where it overrides a Service variable", () => {
    const a = planOf(spec([{ name: 'DB_SERVICE_HOST', value: 'db.example' }]), one);
    const b = planOf(spec([{ name: 'DB_SERVICE_HOST', value: 'db2.example' }]), one);
    assert.ok(envOf(a).includes('DB_SERVICE_HOST=db.example'));
    assert.notEqual(hashOf(a), hashOf(b));
    assert.notEqual(hashOf(planOf(spec([{ name: 'X', value: '1' }]), one)), hashOf(planOf(spec([{ name: 'X', value: '2' }]), one)));
  });

  it('enableServiceLinks false: no Service variables, and the same hash as with them', () => {
    const off = planOf({ ...spec(), enableServiceLinks: false }, one);
    assert.ok(!envOf(off).some((e) => e.startsWith('DB_')));
    assert.equal(hashOf(off), hashOf(planOf(spec(), one)));
  });
});
