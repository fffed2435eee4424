// --publish-all and the declared ports in the plan (pure): what the infra container publishes, and the port
// list the RUNPOD_* variables are made from.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LoadedPod } from '../../../src/manifest/types.js';
import { translatePod } from '../../../src/plan/translate.js';

const loaded = {
  pod: {
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      containers: [
        {
          name: 'httpd',
          image: 'busybox:1',
          imagePullPolicy: 'IfNotPresent',
          ports: [
            { name: 'http', containerPort: 80, protocol: 'TCP' },
            { containerPort: 443, hostPort: 8443, protocol: 'TCP' },
          ],
        },
        {
          name: 'dns',
          image: 'busybox:1',
          imagePullPolicy: 'IfNotPresent',
          ports: [
            { containerPort: 53, protocol: 'UDP' },
            { containerPort: 80, protocol: 'TCP' },
          ],
        },
      ],
    },
  },
  source: { file: 'pod.yaml', origin: '/srv/pod.yaml' },
  line: 1,
} as LoadedPod;

describe('--publish-all', () => {
  it('without it only hostPorts are published (a bare containerPort is informational, as in Kubernetes)', () => {
    const plan = translatePod(loaded, { infraImage: 'pause' });
    assert.deepEqual(plan.infra.create.HostConfig?.PortBindings, { '443/tcp': [{ HostIp: '', HostPort: '8443' }] });
  });
  it('with it every other declared port gets one engine-chosen host port (empty HostPort); hostPorts stay', () => {
    const plan = translatePod(loaded, { infraImage: 'pause', publishAll: true });
    assert.deepEqual(plan.infra.create.HostConfig?.PortBindings, {
      '443/tcp': [{ HostIp: '', HostPort: '8443' }],
      '80/tcp': [{ HostIp: '', HostPort: '' }],
      '53/udp': [{ HostIp: '', HostPort: '' }],
    });
    assert.deepEqual(Object.keys(plan.infra.create.ExposedPorts ?? {}).sort(), ['443/tcp', '53/udp', '80/tcp']);
  });
  it('switching it changes the pod hash (the pod is replaced, as for a changed hostPort)', () => {
    assert.notEqual(translatePod(loaded, { infraImage: 'pause' }).hash, translatePod(loaded, { infraImage: 'pause', publishAll: true }).hash);
  });
  it('the plan lists every declared port with its container', () => {
    assert.deepEqual(translatePod(loaded, { infraImage: 'pause' }).ports, [
      { container: 'httpd', name: 'http', containerPort: 80, protocol: 'TCP' },
      { container: 'httpd', containerPort: 443, protocol: 'TCP', hostPort: 8443 },
      { container: 'dns', containerPort: 53, protocol: 'UDP' },
      { container: 'dns', containerPort: 80, protocol: 'TCP' },
    ]);
  });
});
