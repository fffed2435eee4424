// A pod's resolv.conf as the kubelet forms it (plan/dns.ts, pkg/kubelet/network/dns GetPodDNS): each policy, the
// merge of dnsConfig, the limits, and which host file is the node's; the node's file is read by agent/nodeResolvConf.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  chooseNodeResolvConf,
  clusterResolver,
  isLoopback,
  needsNodeResolvConf,
  parseResolvConf,
  podDnsType,
  podResolver,
  renderResolvConf,
  usesNodeResolvConf,
} from '../../../src/plan/dns.js';
import { podResolvConf } from '../../../src/plan/podFiles.js';
import { withNodeResolvConf } from '../../../src/agent/nodeResolvConf.js';
import { engineSupport } from '../../../src/plan/engineSupport.js';
import { engineFacts } from '../../../src/engine/ports/facts.js';
import type { LoadedPod } from '../../../src/manifest/types.js';
import type { PodSpec } from 'kubernetes-types/core/v1.js';

const host = { path: '/etc/resolv.conf', text: '# managed\nnameserver 10.0.0.2\nnameserver 10.0.0.3\nsearch corp.example. lab.example\noptions edns0 ndots:1\n' };
const spec = (s: Partial<PodSpec>): PodSpec => ({ containers: [{ name: 'a', image: 'busybox:1' }], ...s });

describe("dnsPolicy: the kubelet's resolv.conf", () => {
  it('parseResolvConf: nameservers accumulate, the last search and options lines win, comments and domain skipped', () => {
    assert.deepEqual(
      parseResolvConf(
        'nameserver 1.1.1.1\nsearch a.example\ndomain x\n  # nameserver 9.9.9.9\nsearch b.example. c.example\nnameserver 2.2.2.2\noptions ndots:2\noptions rotate\nnameserver\n',
      ),
      {
        nameservers: ['1.1.1.1', '2.2.2.2'],
        searches: ['b.example', 'c.example'],
        options: ['rotate'],
      },
    );
  });
  it('getPodDNSType: ClusterFirst on the host network is Default; ClusterFirstWithHostNet stays cluster', () => {
    assert.equal(podDnsType({}), 'cluster');
    assert.equal(podDnsType({ dnsPolicy: 'ClusterFirst', hostNetwork: true }), 'host');
    assert.equal(podDnsType({ dnsPolicy: 'ClusterFirstWithHostNet', hostNetwork: true }), 'cluster');
    assert.equal(podDnsType({ dnsPolicy: 'ClusterFirstWithHostNet' }), 'cluster');
    assert.equal(podDnsType({ dnsPolicy: 'Default' }), 'host');
    assert.equal(podDnsType({ dnsPolicy: 'None' }), 'none');
  });
  it("Default: the node's file as the kubelet reads it", () => {
    assert.equal(podResolvConf(spec({ dnsPolicy: 'Default' }), host), 'nameserver 10.0.0.2\nnameserver 10.0.0.3\nsearch corp.example lab.example\noptions edns0 ndots:1\n');
    // hostNetwork with ClusterFirst: the same file.
    assert.equal(podResolvConf(spec({ hostNetwork: true }), host), podResolvConf(spec({ dnsPolicy: 'Default' }), host));
    // ClusterFirstWithHostNet on the host's network: the same (the engine serves no DNS there; the kubelet's differs).
    assert.equal(podResolvConf(spec({ dnsPolicy: 'ClusterFirstWithHostNet', hostNetwork: true }), host), podResolvConf(spec({ dnsPolicy: 'Default' }), host));
    // The node's file unknown: no file of runpod's (engineSupport refuses what needs one).
    assert.equal(podResolvConf(spec({ dnsPolicy: 'Default' }), undefined), undefined);
  });
  it("the cluster policies: no file of runpod's (the engine's DNS on the namespace network)", () => {
    assert.equal(podResolvConf(spec({}), host), undefined);
  });
  it('Default with dnsConfig: nameservers and searches appended without duplicates, options replaced by name', () => {
    const s = spec({
      dnsPolicy: 'Default',
      dnsConfig: {
        nameservers: ['10.0.0.3', '192.0.2.9'],
        searches: ['lab.example', 'extra.example'],
        options: [{ name: 'ndots', value: '3' }, { name: 'edns0' }, { name: 'rotate' }],
      },
    });
    assert.equal(
      podResolvConf(s, host),
      'nameserver 10.0.0.2\nnameserver 10.0.0.3\nnameserver 192.0.2.9\nsearch corp.example lab.example extra.example\noptions edns0 ndots:3 rotate\n',
    );
  });
  it('None: exactly the dnsConfig, whatever the node says', () => {
    const s = spec({ dnsPolicy: 'None', dnsConfig: { nameservers: ['192.0.2.1'], searches: ['a.example'], options: [{ name: 'ndots', value: '2' }] } });
    assert.equal(podResolvConf(s, host), 'nameserver 192.0.2.1\nsearch a.example\noptions ndots:2\n');
  });
  it('the limits: 3 nameservers, 32 searches, none over 253 characters, the line at most 2048', () => {
    const many = { nameservers: ['1.1.1.1', '1.1.1.2', '1.1.1.3'], searches: [], options: [] };
    assert.deepEqual(podResolver(many, { nameservers: ['1.1.1.4'] }).nameservers, ['1.1.1.1', '1.1.1.2', '1.1.1.3']);
    const forty = Array.from({ length: 40 }, (_, i) => `d${i}.example`);
    assert.deepEqual(podResolver({ nameservers: [], searches: forty, options: [] }, undefined).searches, forty.slice(0, 32));
    const long = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.example`;
    assert.ok(long.length > 253);
    assert.deepEqual(podResolver({ nameservers: [], searches: ['x.example', long, 'y.example'], options: [] }, undefined).searches, ['x.example', 'y.example']);
    const wide = Array.from({ length: 12 }, (_, i) => `${String(i).padStart(2, '0')}${'z'.repeat(196)}.example`); // 206 characters each
    const fitted = podResolver({ nameservers: [], searches: wide, options: [] }, undefined).searches;
    assert.equal(fitted.length, 9, 'the last ones dropped');
    assert.deepEqual(fitted, wide.slice(0, 9));
    assert.ok(fitted.join(' ').length <= 2048);
    assert.ok([...wide.slice(0, 10)].join(' ').length > 2048);
  });
  it("ClusterFirst: the cluster's searches, then the node's; ndots:5 over the node's options; dnsConfig appended and merged", () => {
    const node = parseResolvConf('nameserver 10.0.0.2\nsearch corp.example default.svc.cluster.local\noptions timeout:1 ndots:1\n');
    const cluster = ['team.svc.cluster.local', 'svc.cluster.local', 'cluster.local'];
    assert.deepEqual(clusterResolver('team', undefined, undefined), { searches: cluster, options: ['ndots:5'] });
    assert.deepEqual(clusterResolver('team', node, undefined), { searches: [...cluster, 'corp.example', 'default.svc.cluster.local'], options: ['ndots:5'] });
    const merged = clusterResolver('team', node, { searches: ['svc.cluster.local', 'extra.example'], options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }] });
    assert.deepEqual(merged, { searches: [...cluster, 'corp.example', 'default.svc.cluster.local', 'extra.example'], options: ['ndots:2', 'edns0'] });
    const many = parseResolvConf(`search ${Array.from({ length: 40 }, (_, i) => `d${i}.example`).join(' ')}\n`);
    assert.equal(clusterResolver('team', many, undefined).searches.length, 32, 'the limits hold after the node searches');
  });
  it('renderResolvConf: nothing to say is an empty file', () => {
    assert.equal(renderResolvConf({ nameservers: [], searches: [], options: [] }), '\n');
  });
  it("the node's file: /etc/resolv.conf, or systemd-resolved's upstream list when it names only loopback resolvers", () => {
    const stub = 'nameserver 127.0.0.53\noptions edns0 trust-ad\nsearch lan\n';
    const upstream = 'nameserver 192.168.1.1\nsearch lan\n';
    assert.deepEqual(chooseNodeResolvConf(stub, upstream), { path: '/run/systemd/resolve/resolv.conf', text: upstream });
    assert.deepEqual(chooseNodeResolvConf(stub, undefined), { path: '/etc/resolv.conf', text: stub });
    assert.deepEqual(chooseNodeResolvConf(stub, 'nameserver 127.0.0.1\n'), { path: '/etc/resolv.conf', text: stub });
    assert.deepEqual(chooseNodeResolvConf('nameserver 10.0.0.2\nnameserver 127.0.0.1\n', upstream), {
      path: '/etc/resolv.conf',
      text: 'nameserver 10.0.0.2\nnameserver 127.0.0.1\n',
    });
    assert.equal(chooseNodeResolvConf(undefined, upstream), undefined);
    assert.ok(isLoopback('127.0.0.53') && isLoopback('::1') && isLoopback('0:0:0:0:0:0:0:1'));
    assert.ok(!isLoopback('10.0.0.2') && !isLoopback('fe80::1') && !isLoopback('::'));
  });
  it("which pods need the node's file: Default on the pod network, or with a dnsConfig to merge", () => {
    assert.equal(needsNodeResolvConf({ dnsPolicy: 'Default' }), true);
    assert.equal(needsNodeResolvConf({ hostNetwork: true }), false, "a hostNetwork pod can keep the engine's copy of the host's file");
    assert.equal(needsNodeResolvConf({ hostNetwork: true, dnsConfig: { searches: ['a.example'] } }), true);
    assert.equal(needsNodeResolvConf({}), false);
    assert.equal(needsNodeResolvConf({ dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1'] } }), false);
    // Read whenever a pod's file is the node's, hostNetwork ones included, so a pod gets the same file in any run.
    assert.equal(usesNodeResolvConf({ hostNetwork: true }), true);
    assert.equal(usesNodeResolvConf({ dnsPolicy: 'ClusterFirstWithHostNet', hostNetwork: true }), true);
    assert.equal(usesNodeResolvConf({ dnsPolicy: 'ClusterFirstWithHostNet' }), false);
  });
});

describe("the node's resolv.conf: read on this machine, refused for an engine elsewhere", () => {
  const facts = engineFacts({ Version: '28.1.1', ApiVersion: '1.49' }, {});
  const loaded = (s: Partial<PodSpec>): LoadedPod =>
    ({ source: { file: 'pod.yaml' }, line: 1, pod: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: spec(s) } }) as LoadedPod;
  const files = (m: Record<string, string>) => (f: string) => (m[f] !== undefined ? Promise.resolve(m[f]!) : Promise.reject(Object.assign(new Error('no'), { code: 'ENOENT' })));
  it('not read when no pod draws on it (dnsPolicy None); read for ClusterFirst (its searches) and Default', async () => {
    const read = () => Promise.reject(new Error('read'));
    const none = loaded({ dnsPolicy: 'None', dnsConfig: { nameservers: ['192.0.2.1'] } });
    assert.equal((await withNodeResolvConf(facts, [none], { isLocal: true, address: 'unix:///s' }, read, 'linux')).resolvConf, undefined);
    const cluster = await withNodeResolvConf(facts, [loaded({})], { isLocal: true, address: 'unix:///s' }, files({ '/etc/resolv.conf': 'search corp.example\n' }), 'linux');
    assert.deepEqual(cluster.resolvConf, { path: '/etc/resolv.conf', text: 'search corp.example\n' });
    const hostNet = await withNodeResolvConf(
      facts,
      [loaded({ hostNetwork: true })],
      { isLocal: true, address: 'unix:///s' },
      files({ '/etc/resolv.conf': 'nameserver 10.0.0.2\n' }),
      'linux',
    );
    assert.deepEqual(hostNet.resolvConf, { path: '/etc/resolv.conf', text: 'nameserver 10.0.0.2\n' });
  });
  it("a local engine: the host file, systemd-resolved's list behind a stub", async () => {
    const f = await withNodeResolvConf(
      facts,
      [loaded({ dnsPolicy: 'Default' })],
      { isLocal: true, address: 'unix:///s' },
      files({ '/etc/resolv.conf': 'nameserver 127.0.0.53\n', '/run/systemd/resolve/resolv.conf': 'nameserver 10.9.9.9\n' }),
      'linux',
    );
    assert.deepEqual(f.resolvConf, { path: '/run/systemd/resolve/resolv.conf', text: 'nameserver 10.9.9.9\n' });
    assert.deepEqual(engineSupport(loaded({ dnsPolicy: 'Default' }), f).problems, []);
  });
  it('an engine elsewhere, or an unreadable file: dnsPolicy Default refused, naming why and what to do', async () => {
    // A unix socket on another system is a virtual machine's engine: its host is not this one.
    const desktop = await withNodeResolvConf(
      facts,
      [loaded({ dnsPolicy: 'Default' })],
      { isLocal: true, address: 'unix:///s' },
      files({ '/etc/resolv.conf': 'nameserver 10.0.0.2\n' }),
      'darwin',
    );
    assert.deepEqual(desktop.resolvConf, { unknown: 'the engine at unix:///s does not run on this machine' });
    const remote = await withNodeResolvConf(facts, [loaded({ dnsPolicy: 'Default' })], { isLocal: false, address: 'tcp://10.1.1.1:2376' }, files({}), 'linux');
    const [p] = engineSupport(loaded({ dnsPolicy: 'Default' }), remote).problems;
    assert.equal(p?.path, 'spec.dnsPolicy');
    assert.match(p?.message ?? '', /runpod cannot read: the engine at tcp:\/\/10\.1\.1\.1:2376 does not run on this machine; run runpod on the engine host, or use dnsPolicy None/);
    const missing = await withNodeResolvConf(facts, [loaded({ dnsPolicy: 'Default' })], { isLocal: true, address: 'unix:///s' }, files({}), 'linux');
    assert.match(engineSupport(loaded({ dnsPolicy: 'Default' }), missing).problems[0]?.message ?? '', /cannot read \/etc\/resolv\.conf \(ENOENT\)/);
    // A hostNetwork pod without dnsConfig keeps the engine's copy of the host's file: not refused.
    assert.deepEqual(engineSupport(loaded({ hostNetwork: true }), remote).problems, []);
  });
});
