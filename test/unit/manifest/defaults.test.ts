import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyDefaults } from '../../../src/manifest/defaults.js';

const options = { defaultNamespace: 'team' };

describe('applyDefaults (pkg/apis/core/v1/defaults.go)', () => {
  const cases: Array<{ name: string; input: Record<string, unknown>; expect: Record<string, unknown> }> = [
    {
      name: 'a minimal pod gets namespace, restartPolicy, grace period, service links and pull policy',
      input: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
      expect: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'a', namespace: 'team' },
        spec: {
          containers: [{ name: 'c', image: 'busybox', imagePullPolicy: 'Always' }],
          restartPolicy: 'Always',
          terminationGracePeriodSeconds: 30,
          enableServiceLinks: true,
        },
      },
    },
    {
      name: 'given values are kept; tagged images pull IfNotPresent; ports get TCP; requests default to limits',
      input: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'a', namespace: 'ns', resourceVersion: '7', creationTimestamp: new Date('2024-01-01T00:00:00Z') },
        spec: {
          restartPolicy: 'Never',
          terminationGracePeriodSeconds: 0,
          enableServiceLinks: false,
          serviceAccount: 'robot',
          containers: [
            {
              name: 'c',
              image: 'nginx:1.27',
              ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }],
              resources: { limits: { cpu: '1', memory: '64Mi' }, requests: { cpu: '250m' } },
            },
            { name: 'd', image: 'nginx@sha256:abc', imagePullPolicy: 'Never' },
          ],
        },
        status: { phase: 'Running' },
      },
      expect: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'a', namespace: 'ns' },
        spec: {
          restartPolicy: 'Never',
          terminationGracePeriodSeconds: 0,
          enableServiceLinks: false,
          serviceAccount: 'robot',
          serviceAccountName: 'robot',
          containers: [
            {
              name: 'c',
              image: 'nginx:1.27',
              imagePullPolicy: 'IfNotPresent',
              ports: [
                { containerPort: 80, protocol: 'TCP' },
                { containerPort: 53, protocol: 'UDP' },
              ],
              resources: { limits: { cpu: '1', memory: '64Mi' }, requests: { cpu: '250m', memory: '64Mi' } },
            },
            { name: 'd', image: 'nginx@sha256:abc', imagePullPolicy: 'Never' },
          ],
        },
      },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const before = structuredClone(c.input);
      assert.deepEqual(applyDefaults(c.input, options), c.expect);
      assert.deepEqual(c.input, before, 'the input is not mutated');
    });
  }

  it('shared (aliased) containers become separate copies', () => {
    const shared = { name: 'c', image: 'i:1', ports: [{ containerPort: 1 }] };
    const out = applyDefaults({ metadata: { name: 'a' }, spec: { containers: [shared, shared] } }, options);
    const [a, b] = out.spec.containers;
    assert.notEqual(a, b);
    assert.notEqual(a!.ports, b!.ports);
    assert.equal('protocol' in shared.ports[0]!, false);
  });
});
