// The pure parts of Services (issue 13): names, endpoints, the forwarding rules, the Service container's spec.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LoadedPod, ServiceObject } from '../../../src/manifest/types.js';
import { type EndpointPod, serviceEndpoints } from '../../../src/services/endpoints.js';
import { endpointPods } from '../../../src/services/endpointsController.js';
import { clusterFirstDns, namespaceNetwork, podDnsNames, serviceContainerName, serviceDnsNames } from '../../../src/kube/serviceNames.js';
import { serviceRules } from '../../../src/services/rules.js';
import { serviceContainerSpec, storedService } from '../../../src/services/serviceSpec.js';
import { describeServices, removeServiceContainer, setUpCluster } from '../../../src/services/cluster.js';
import { listServiceContainers } from '../../../src/services/serviceContainers.js';
import { lookAhead, prepareCluster } from '../../../src/services/clusterSetup.js';
import { MemoryEngine } from '../support/memoryEngine.js';

const svc = (over: Partial<ServiceObject> = {}): ServiceObject => ({
  namespace: 'default',
  name: 'db',
  file: 'db.yaml',
  line: 1,
  type: 'ClusterIP',
  headless: false,
  selector: { app: 'db' },
  ports: [{ name: 'pg', protocol: 'TCP', port: 5432, targetPort: 'pg' }],
  publishNotReadyAddresses: false,
  sessionAffinity: 'None',
  ...over,
});

const pod = (name: string, over: Partial<EndpointPod> = {}): EndpointPod => ({
  uid: `uid-${name}`,
  namespace: 'default',
  name,
  labels: { app: 'db' },
  ip: `10.0.0.${name.length}`,
  ready: true,
  ports: [{ name: 'pg', containerPort: 6543 }],
  ...over,
});

describe('names', () => {
  it('a network per namespace and key; a Service container per Service', () => {
    assert.equal(namespaceNetwork('default', undefined), 'runpod_default');
    assert.equal(namespaceNetwork('data', 'ci-7'), 'runpod_data.ci-7');
    assert.equal(serviceContainerName('data', 'db', 'ci-7'), 'runpod_svc_db_data.ci-7');
  });
  it("the bare name only on its own namespace's network; the qualified forms everywhere", () => {
    assert.deepEqual(serviceDnsNames('db', 'data', true), ['db', 'db.data', 'db.data.svc', 'db.data.svc.cluster.local']);
    assert.deepEqual(serviceDnsNames('db', 'data', false), ['db.data', 'db.data.svc', 'db.data.svc.cluster.local']);
    assert.deepEqual(podDnsNames('web-0', 'nginx', 'default'), ['web-0.nginx', 'web-0.nginx.default', 'web-0.nginx.default.svc', 'web-0.nginx.default.svc.cluster.local']);
  });
  it("ClusterFirst: the kubelet's search list and ndots:5", () => {
    assert.deepEqual(clusterFirstDns('data'), { search: ['data.svc.cluster.local', 'svc.cluster.local', 'cluster.local'], options: ['ndots:5'] });
  });
});

describe('endpoints', () => {
  it('selected, ready pods with an address, a named targetPort resolved per pod, in name order', () => {
    const pods = [
      pod('db-b', { ports: [{ name: 'pg', containerPort: 7000 }] }),
      pod('db-a'),
      pod('other', { labels: { app: 'web' } }),
      pod('db-c', { ready: false }),
      pod('db-d', { ip: undefined }),
      pod('db-e', { namespace: 'x' }),
    ];
    const [pg] = serviceEndpoints(svc(), pods);
    assert.deepEqual(
      pg!.backends.map((b) => `${b.pod}@${b.ip}:${b.port}`),
      ['db-a@10.0.0.4:6543', 'db-b@10.0.0.4:7000'],
    );
  });
  it('publishNotReadyAddresses takes pods that are not ready', () => {
    const [pg] = serviceEndpoints(svc({ publishNotReadyAddresses: true }), [pod('db-a', { ready: false })]);
    assert.equal(pg!.backends.length, 1);
  });
  it('a pod without the named port is no endpoint of that port; a numbered targetPort is taken as it is', () => {
    const s = svc({
      ports: [
        { name: 'pg', protocol: 'TCP', port: 5432, targetPort: 'pg' },
        { name: 'm', protocol: 'UDP', port: 53, targetPort: 5353 },
      ],
    });
    const [pg, m] = serviceEndpoints(s, [pod('db-a', { ports: [] })]);
    assert.equal(pg!.backends.length, 0);
    assert.deepEqual(
      m!.backends.map((b) => b.port),
      [5353],
    );
  });
  it('no selector selects nothing', () => {
    const { selector: _none, ...rest } = svc();
    assert.equal(serviceEndpoints(rest, [pod('db-a')])[0]!.backends.length, 0);
  });
  it('endpointPods: labels and ports from the infra container, the address on the network, ready while nothing restarts', () => {
    const labels = (c: string, extra: Record<string, string> = {}) => ({
      'io.kubernetes.pod.uid': 'u1',
      'io.kubernetes.pod.name': 'db-a',
      'io.kubernetes.pod.namespace': 'default',
      'io.kubernetes.container.name': c,
      'app.kubernetes.io/managed-by': 'runpod',
      ...extra,
    });
    const infra = { id: 'i1', name: 'k8s_POD', labels: labels('POD', { app: 'db', 'io.runpod.ports': '[{"name":"pg","containerPort":6543}]' }), state: 'running', created: 1 };
    const app = { id: 'a1', name: 'k8s_db', labels: labels('db'), state: 'running', created: 1 };
    const [p] = endpointPods([infra, app], { i1: { ipv4: '10.1.0.5' } });
    assert.deepEqual(p, { uid: 'u1', namespace: 'default', name: 'db-a', labels: { app: 'db' }, ip: '10.1.0.5', ready: true, ports: [{ name: 'pg', containerPort: 6543 }] });
    assert.equal(endpointPods([infra, { ...app, state: 'restarting' }], {})[0]!.ready, false);
    assert.deepEqual(endpointPods([{ ...infra, state: 'exited' }, app], {}), []);
  });
});

describe('rules', () => {
  it("random choice with kube-proxy's probabilities, the last rule taking the rest; masquerade; nothing for no backend", () => {
    const text = serviceRules([
      {
        port: { protocol: 'TCP', port: 80, targetPort: 8080 },
        backends: [
          { pod: 'a', uid: 'a', ip: '10.0.0.2', port: 8080 },
          { pod: 'b', uid: 'b', ip: '10.0.0.3', port: 8080 },
          { pod: 'c', uid: 'c', ip: '10.0.0.4', port: 8080 },
        ],
      },
      { port: { protocol: 'UDP', port: 53, targetPort: 5353 }, backends: [] },
    ]);
    assert.equal(
      text,
      [
        '*nat',
        ':PREROUTING ACCEPT [0:0]',
        ':INPUT ACCEPT [0:0]',
        ':OUTPUT ACCEPT [0:0]',
        ':POSTROUTING ACCEPT [0:0]',
        ':RUNPOD-SERVICE - [0:0]',
        '-A PREROUTING -j RUNPOD-SERVICE',
        '-A POSTROUTING -m conntrack --ctstate DNAT -j MASQUERADE',
        '-A RUNPOD-SERVICE -p tcp -m tcp --dport 80 -m statistic --mode random --probability 0.3333333333 -j DNAT --to-destination 10.0.0.2:8080',
        '-A RUNPOD-SERVICE -p tcp -m tcp --dport 80 -m statistic --mode random --probability 0.5000000000 -j DNAT --to-destination 10.0.0.3:8080',
        '-A RUNPOD-SERVICE -p tcp -m tcp --dport 80 -j DNAT --to-destination 10.0.0.4:8080',
        'COMMIT',
        '',
      ].join('\n'),
    );
  });
  it('ClientIP: a client seen within the timeout goes back to its backend', () => {
    const text = serviceRules(
      [
        {
          port: { protocol: 'TCP', port: 80, targetPort: 80 },
          backends: [
            { pod: 'a', uid: 'a', ip: '10.0.0.2', port: 80 },
            { pod: 'b', uid: 'b', ip: '10.0.0.3', port: 80 },
          ],
        },
      ],
      600,
    );
    const lines = text.split('\n');
    const check = lines.findIndex((l) => l.includes('--rcheck --seconds 600') && l.includes('RUNPOD-EP-0-0'));
    const random = lines.findIndex((l) => l.includes('--probability 0.5000000000 -j RUNPOD-EP-0-0'));
    assert.ok(check > 0 && random > check, text);
    assert.ok(lines.includes('-A RUNPOD-EP-0-1 -p tcp -m recent --name rp-0-1 --set --rsource -j DNAT --to-destination 10.0.0.3:80'), text);
  });
});

describe('the Service container', () => {
  it('answers to the Service names on its network; NodePort publishes at nodePort or a chosen port; ClusterIP only under --publish-all', () => {
    const np = serviceContainerSpec(
      svc({
        type: 'NodePort',
        ports: [
          { protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080 },
          { protocol: 'UDP', port: 53, targetPort: 53 },
        ],
      }),
      'runpod_default',
      'pause',
    );
    assert.deepEqual(np.HostConfig?.PortBindings, { '80/tcp': [{ HostIp: '', HostPort: '30080' }], '53/udp': [{ HostIp: '', HostPort: '' }] });
    assert.deepEqual(np.NetworkingConfig?.EndpointsConfig?.runpod_default?.Aliases, ['db', 'db.default', 'db.default.svc', 'db.default.svc.cluster.local']);
    assert.deepEqual(serviceContainerSpec(svc(), 'runpod_default', 'pause').HostConfig?.PortBindings, {});
    assert.deepEqual(serviceContainerSpec(svc(), 'runpod_default', 'pause', true).HostConfig?.PortBindings, { '5432/tcp': [{ HostIp: '', HostPort: '' }] });
  });
  it('keeps the Service in a label, read back without its file; a changed Service changes the hash', () => {
    const spec = serviceContainerSpec(svc(), 'runpod_default', 'pause');
    assert.deepEqual(storedService(spec.Labels!), { ...svc(), file: '', line: 0 });
    const other = serviceContainerSpec(svc({ ports: [{ protocol: 'TCP', port: 5433, targetPort: 'pg' }] }), 'runpod_default', 'pause');
    assert.notEqual(spec.Labels!['io.runpod.service.hash'], other.Labels!['io.runpod.service.hash']);
    assert.equal(storedService({ 'io.runpod.service.spec': '{not json' }), undefined);
  });
});

describe('a headless Service on the engine', () => {
  it('is kept as a container that never runs, found as any Service; one that stops being headless is made again', async () => {
    const engine = new MemoryEngine({ images: ['pause'] });
    try {
      const headless = svc({ headless: true, name: 'web' });
      await setUpCluster(engine, { namespaces: ['default'], services: [headless], project: undefined, image: 'pause' });
      const [record] = await listServiceContainers(engine);
      assert.deepEqual([record?.name, record?.running, record?.service?.headless], ['web', false, true]);
      const info = await engine.inspectContainer(serviceContainerName('default', 'web', undefined));
      assert.equal(info?.HostConfig.NetworkMode, 'none', 'on no network: nothing resolves to it');
      assert.deepEqual(
        (await describeServices(engine, [record!.service!], undefined)).map((s) => [s.name, s.type, s.ip]),
        [['web', 'headless', undefined]],
      );
      // A second run changes nothing; a run where the Service has a cluster IP replaces the record with a running container.
      await setUpCluster(engine, { namespaces: ['default'], services: [headless], project: undefined, image: 'pause' });
      assert.deepEqual(
        (await listServiceContainers(engine)).map((c) => c.id),
        [record!.id],
        'the same record',
      );
      await setUpCluster(engine, { namespaces: ['default'], services: [svc({ name: 'web' })], project: undefined, image: 'pause' });
      const [now] = await listServiceContainers(engine);
      assert.deepEqual([now?.running, now?.service?.headless], [true, false]);
      assert.equal(await removeServiceContainer(engine, 'default', 'web', undefined), true);
    } finally {
      engine.dispose();
    }
  });
});

describe('setting up the networks with no Service in the input', () => {
  it("lists runpod's Service containers beside the network's creation, not after it, and hands the lock's removal over", async () => {
    const engine = new MemoryEngine({ images: ['pause'] });
    try {
      const seen: string[] = [];
      engine.onCall('createNetwork', async (args, next) => {
        seen.push('create network');
        // Answered only once the other reads had their turn: a list sent after this answer comes too late.
        await new Promise((resolve) => setTimeout(resolve, 20));
        const id = await next(...args);
        seen.push('network made');
        return id;
      });
      engine.onCall('listContainers', async (args, next) => {
        if (args[0].some((l) => l.startsWith('io.runpod.role=service'))) seen.push('list services');
        return next(...args);
      });
      const removals: Promise<void>[] = [];
      await setUpCluster(engine, { namespaces: ['default'], services: [], project: undefined, image: 'pause', release: (r) => removals.push(r) });
      assert.ok(seen.indexOf('list services') >= 0 && seen.indexOf('list services') < seen.indexOf('network made'), seen.join(', '));
      assert.equal(removals.length, 1);
      await Promise.all(removals);
      assert.deepEqual(
        engine.peekAll().filter((c) => c.Name.includes('netlock')),
        [],
      );
    } finally {
      engine.dispose();
    }
  });
});

describe("the networks' first reads, asked ahead", () => {
  const loaded = (namespace: string): LoadedPod =>
    ({
      pod: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace }, spec: { containers: [{ name: 'c', image: 'pause' }] } },
      source: { file: 'pod.yaml' },
      line: 1,
    }) as LoadedPod;

  it('go out at once, before any answer, and are not asked again by the set-up', async () => {
    const engine = new MemoryEngine({ images: ['pause'] });
    try {
      const pods = [loaded('default'), loaded('other')];
      await setUpCluster(engine, { namespaces: ['default', 'other'], services: [], project: undefined, image: 'pause' });
      const before = { networks: engine.callCount('inspectNetwork'), lists: engine.callCount('listContainers') };
      const ahead = lookAhead(engine, { pods, services: [], project: undefined });
      // Both networks and the Service list were asked in the same turn, no answer awaited between them.
      assert.equal(engine.callCount('inspectNetwork'), before.networks + 2);
      assert.equal(engine.callCount('listContainers'), before.lists + 1);
      const prepared = await prepareCluster(engine, { pods, services: [], project: undefined, image: 'pause', publishAll: false, ahead });
      assert.deepEqual([...prepared.namespaces].sort(), ['default', 'other']);
      assert.equal(engine.callCount('inspectNetwork'), before.networks + 2, 'no network looked up again');
      assert.equal(engine.callCount('listContainers'), before.lists + 1, 'the Service list not asked again');
      assert.equal(engine.callCount('createNetwork'), 2, 'made once, by the first set-up');
    } finally {
      engine.dispose();
    }
  });
});
