// The Service variables of a pod (plan/serviceEnv.ts) as the kubelet sets them (pkg/kubelet/envvars FromServices,
// kubelet_pods.go getServiceEnvVarMap), which pods a Service selects, and named targetPorts (FindPort).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServiceObject, ServicePortSpec } from '../../../src/manifest/types.js';
import { endpointPorts, resolveTargetPort, serviceEnvName, serviceLinkEnv, serviceSelects } from '../../../src/plan/serviceEnv.js';

function service(name: string, ports: ServicePortSpec[], extra: Partial<ServiceObject> = {}): ServiceObject {
  return {
    namespace: 'default',
    name,
    file: 's.yaml',
    line: 1,
    type: 'ClusterIP',
    headless: false,
    selector: { app: name },
    ports,
    publishNotReadyAddresses: false,
    sessionAffinity: 'None',
    ...extra,
  };
}

const hosts: Record<string, string> = { 'redis-master': '10.0.0.11', dns: '10.0.0.10', web: '10.0.0.12', kubernetes: '10.0.0.1' };
const hostOf = (s: ServiceObject): string | undefined => hosts[s.name];
const asText = (vars: Array<{ name: string; value: string }>): string[] => vars.map((v) => `${v.name}=${v.value}`);

describe('serviceLinkEnv (FromServices)', () => {
  it("gives the docs' redis-master example exactly", () => {
    // concepts/services-networking/service "Environment variables": one unnamed TCP port 6379.
    const redis = service('redis-master', [{ protocol: 'TCP', port: 6379, targetPort: 6379 }]);
    assert.deepEqual(asText(serviceLinkEnv([redis], 'default', hostOf)), [
      'REDIS_MASTER_SERVICE_HOST=10.0.0.11',
      'REDIS_MASTER_SERVICE_PORT=6379',
      'REDIS_MASTER_PORT=tcp://10.0.0.11:6379',
      'REDIS_MASTER_PORT_6379_TCP=tcp://10.0.0.11:6379',
      'REDIS_MASTER_PORT_6379_TCP_PROTO=tcp',
      'REDIS_MASTER_PORT_6379_TCP_PORT=6379',
      'REDIS_MASTER_PORT_6379_TCP_ADDR=10.0.0.11',
    ]);
  });

  it('gives two named ports, TCP and UDP, in the kubelet order', () => {
    const dns = service('dns', [
      { name: 'dns-tcp', protocol: 'TCP', port: 53, targetPort: 'dns-tcp' },
      { name: 'dns', protocol: 'UDP', port: 5353, targetPort: 53 },
    ]);
    assert.deepEqual(asText(serviceLinkEnv([dns], 'default', hostOf)), [
      'DNS_SERVICE_HOST=10.0.0.10',
      'DNS_SERVICE_PORT=53',
      'DNS_SERVICE_PORT_DNS_TCP=53',
      'DNS_SERVICE_PORT_DNS=5353',
      'DNS_PORT=tcp://10.0.0.10:53',
      'DNS_PORT_53_TCP=tcp://10.0.0.10:53',
      'DNS_PORT_53_TCP_PROTO=tcp',
      'DNS_PORT_53_TCP_PORT=53',
      'DNS_PORT_53_TCP_ADDR=10.0.0.10',
      'DNS_PORT_5353_UDP=udp://10.0.0.10:5353',
      'DNS_PORT_5353_UDP_PROTO=udp',
      'DNS_PORT_5353_UDP_PORT=5353',
      'DNS_PORT_5353_UDP_ADDR=10.0.0.10',
    ]);
  });

  it('takes only Services of the namespace that have an address, ordered by name', () => {
    const web = service('web', [{ protocol: 'TCP', port: 80, targetPort: 8080 }]);
    const dns = service('dns', [{ protocol: 'UDP', port: 53, targetPort: 53 }]);
    const headless = service('redis-master', [{ protocol: 'TCP', port: 6379, targetPort: 6379 }], { headless: true });
    const elsewhere = service('web', [{ protocol: 'TCP', port: 81, targetPort: 81 }], { namespace: 'other' });
    const noAddress = service('cache', [{ protocol: 'TCP', port: 11211, targetPort: 11211 }]);
    const names = serviceLinkEnv([web, headless, elsewhere, noAddress, dns], 'default', hostOf).map((v) => v.name);
    assert.deepEqual(
      names.filter((n) => n.endsWith('_SERVICE_HOST')),
      ['DNS_SERVICE_HOST', 'WEB_SERVICE_HOST'],
    );
    assert.ok(names.includes('WEB_PORT_80_TCP'));
    assert.ok(!names.includes('WEB_PORT_81_TCP'));
    assert.deepEqual(serviceLinkEnv([web], 'other', hostOf), []);
  });

  it('sets no master kubernetes Service variables: a Service of the input named kubernetes is like any other', () => {
    const k = service('kubernetes', [{ name: 'https', protocol: 'TCP', port: 443, targetPort: 6443 }]);
    assert.deepEqual(serviceLinkEnv([k], 'web', hostOf), []);
    assert.deepEqual(serviceLinkEnv([], 'default', hostOf), []);
    assert.equal(serviceLinkEnv([k], 'default', hostOf)[0]?.name, 'KUBERNETES_SERVICE_HOST');
  });

  it('names variables as makeEnvVariableName does', () => {
    assert.equal(serviceEnvName('redis-master'), 'REDIS_MASTER');
    assert.equal(serviceEnvName('a-b-c9'), 'A_B_C9');
  });
});

describe('serviceSelects', () => {
  const web = service('web', [{ protocol: 'TCP', port: 80, targetPort: 80 }], { selector: { app: 'web', tier: 'front' } });
  const cases: Array<[string, ServiceObject, string, Record<string, string> | undefined, boolean]> = [
    ['every selector label, and more', web, 'default', { app: 'web', tier: 'front', version: '2' }, true],
    ['exactly the selector', web, 'default', { app: 'web', tier: 'front' }, true],
    ['one label missing', web, 'default', { app: 'web' }, false],
    ['one label of another value', web, 'default', { app: 'web', tier: 'back' }, false],
    ['another namespace', web, 'other', { app: 'web', tier: 'front' }, false],
    ['a pod without labels', web, 'default', undefined, false],
    ['a Service without selector selects nothing', service('x', [], { selector: undefined }), 'default', { app: 'x' }, false],
    ['an empty selector selects nothing', service('x', [], { selector: {} }), 'default', { app: 'x' }, false],
    ['an empty label value matches only an empty value', service('x', [], { selector: { flag: '' } }), 'default', { flag: '' }, true],
  ];
  for (const [name, svc, ns, labels, want] of cases) {
    it(name, () => assert.equal(serviceSelects(svc, ns, labels), want));
  }
});

describe('resolveTargetPort (FindPort)', () => {
  const ports = [
    { name: 'http', containerPort: 8080 },
    { name: 'dns', containerPort: 53, protocol: 'UDP' },
    { name: 'dns', containerPort: 5353, protocol: 'TCP' },
    { name: 'http', containerPort: 9090 },
  ];
  const cases: Array<[string, ServicePortSpec, number | undefined]> = [
    ['a number is itself', { protocol: 'TCP', port: 80, targetPort: 8000 }, 8000],
    ['a name of the same protocol (TCP by default on the container)', { protocol: 'TCP', port: 80, targetPort: 'http' }, 8080],
    ['a UDP name', { protocol: 'UDP', port: 53, targetPort: 'dns' }, 53],
    ['the same name for TCP', { protocol: 'TCP', port: 53, targetPort: 'dns' }, 5353],
    ['a name of another protocol only', { protocol: 'UDP', port: 80, targetPort: 'http' }, undefined],
    ['a name the pod does not have', { protocol: 'TCP', port: 80, targetPort: 'grpc' }, undefined],
  ];
  for (const [name, port, want] of cases) {
    it(name, () => assert.equal(resolveTargetPort(port, ports), want));
  }

  it("looks at the containers' ports, then sidecars', never other init containers'", () => {
    const spec = {
      initContainers: [
        { name: 'setup', image: 'i', ports: [{ name: 'metrics', containerPort: 1 }] },
        {
          name: 'proxy',
          image: 'i',
          restartPolicy: 'Always',
          ports: [
            { name: 'metrics', containerPort: 9100 },
            { name: 'http', containerPort: 2 },
          ],
        },
      ],
      containers: [{ name: 'app', image: 'i', ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }] }],
    };
    const found = endpointPorts(spec);
    assert.deepEqual(found, [
      { name: 'http', containerPort: 8080, protocol: 'TCP' },
      { name: 'metrics', containerPort: 9100 },
      { name: 'http', containerPort: 2 },
    ]);
    assert.equal(resolveTargetPort({ protocol: 'TCP', port: 80, targetPort: 'http' }, found), 8080);
    assert.equal(resolveTargetPort({ protocol: 'TCP', port: 80, targetPort: 'metrics' }, found), 9100);
  });
});
