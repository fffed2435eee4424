// Each dnsPolicy's /etc/resolv.conf on a real engine, read inside the containers and compared with the kubelet's
// file for it (pkg/kubelet/network/dns GetPodDNS): Default is the node's (this machine's, the engine's host) with
// dnsConfig merged, ClusterFirst on the host's network is Default, None is exactly dnsConfig, ClusterFirst is the
// cluster's search list and the node's on the engine's DNS with dnsConfig's searches and options merged; dnsConfig's
// nameservers under a cluster policy are refused. Each pod is removed after.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { chooseNodeResolvConf, parseResolvConf, podResolver, renderResolvConf } from '../../src/plan/dns.js';
import { uniqueName } from './harness.js';
import { busybox, checkNothingLeftBehind, cleanupFile, cleanupPod, docker, must, podContainers, podFile, podObject, runpod, show, sleeper } from './run-helpers.js';

checkNothingLeftBehind();

const sh = (id: string, script: string): string => docker(['exec', id, 'sh', '-c', script]);
const readOr = (file: string): string | undefined => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined);

/** The node's file as a kubelet (kubeadm-configured on a systemd-resolved host) reads it: this machine's. */
const node = (): { path: string; text: string } =>
  must(chooseNodeResolvConf(readOr('/etc/resolv.conf'), readOr('/run/systemd/resolve/resolv.conf')), "this machine's /etc/resolv.conf");
const nameservers = (text: string): string[] => [...text.matchAll(/^nameserver\s+(\S+)/gm)].map((m) => m[1]!);

test("dnsPolicy Default: the node's resolv.conf in every container, init containers too; dnsConfig merged as the kubelet merges it", async (t) => {
  const host = node();
  const hostServers = nameservers(host.text);
  // Plain Default: the node's nameservers, search and options lines, nothing of the engine's (127.0.0.11).
  const plain = uniqueName('dns-default');
  cleanupPod(t, plain);
  const plainPod = podObject({ name: plain, containers: [sleeper('a')] });
  (plainPod.spec as Record<string, unknown>).dnsPolicy = 'Default';
  // Default with dnsConfig: a nameserver and a search domain appended, ndots replaced or added, edns0 once.
  const merged = uniqueName('dns-default-cfg');
  cleanupPod(t, merged);
  const dnsConfig = { nameservers: ['192.0.2.53'], searches: ['corp.example'], options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }] };
  const mergedPod = podObject({
    name: merged,
    initContainers: [
      { name: 'init', image: busybox, command: ['sh', '-c', 'cat /etc/resolv.conf > /shared/resolv.conf'], volumeMounts: [{ name: 'shared', mountPath: '/shared' }] },
    ],
    containers: [sleeper('a', { volumeMounts: [{ name: 'shared', mountPath: '/shared' }] }), sleeper('b')],
  });
  Object.assign(mergedPod.spec as Record<string, unknown>, { dnsPolicy: 'Default', dnsConfig, volumes: [{ name: 'shared', emptyDir: {} }] });
  const file = podFile([plainPod, mergedPod]);
  cleanupFile(t, file);
  const r = await runpod([file]);
  assert.equal(r.code, 0, show(r));

  const plainResolv = sh(must(podContainers(plain).get('a'), 'a').Id, 'cat /etc/resolv.conf');
  assert.equal(plainResolv.trim(), renderResolvConf(podResolver(parseResolvConf(host.text), undefined)).trim(), `${host.path}:\n${host.text}`);
  assert.deepEqual(nameservers(plainResolv), [...new Set(hostServers)].slice(0, 3), "the node's nameservers, not the engine's DNS");
  assert.ok(!nameservers(plainResolv).includes('127.0.0.11') || hostServers.includes('127.0.0.11'), plainResolv);

  const expected = renderResolvConf(podResolver(parseResolvConf(host.text), dnsConfig)).trim();
  const byName = podContainers(merged);
  for (const c of ['a', 'b']) {
    const resolv = sh(must(byName.get(c), c).Id, 'cat /etc/resolv.conf');
    assert.equal(resolv.trim(), expected, `${c}; ${host.path}:\n${host.text}`);
    assert.match(resolv, /^options .*\bndots:2\b/m, resolv);
    assert.match(resolv, /^search .*\bcorp\.example\b/m, resolv);
    if (new Set(hostServers).size < 3) assert.ok(nameservers(resolv).includes('192.0.2.53'), resolv);
  }
  assert.equal(sh(must(byName.get('a'), 'a').Id, 'cat /shared/resolv.conf').trim(), expected, 'the init container had the same file');
});

test("ClusterFirst and ClusterFirstWithHostNet on the host's network: the node's resolv.conf (Default)", async (t) => {
  const host = node();
  const expected = renderResolvConf(podResolver(parseResolvConf(host.text), undefined)).trim();
  const names = { ClusterFirst: uniqueName('dns-hostnet'), ClusterFirstWithHostNet: uniqueName('dns-hostnet-cf') };
  const pods = Object.entries(names).map(([policy, name]) => {
    cleanupPod(t, name);
    const pod = podObject({ name, containers: [sleeper('a')] });
    Object.assign(pod.spec as Record<string, unknown>, { hostNetwork: true, dnsPolicy: policy });
    return pod;
  });
  const file = podFile(pods);
  cleanupFile(t, file);
  const r = await runpod([file]);
  assert.equal(r.code, 0, show(r));
  for (const [policy, name] of Object.entries(names)) {
    const resolv = sh(must(podContainers(name).get('a'), 'a').Id, 'cat /etc/resolv.conf');
    assert.equal(resolv.trim(), expected, `${policy}; ${host.path}:\n${host.text}`);
  }
});

test("ClusterFirst on the pod network: the cluster's search list, the node's, ndots:5 on the engine's DNS, dnsConfig merged; None: exactly dnsConfig", async (t) => {
  const cluster = uniqueName('dns-cluster');
  const merged = uniqueName('dns-merged');
  const none = uniqueName('dns-none');
  const namespace = 'dns-ns';
  cleanupPod(t, cluster, namespace);
  cleanupPod(t, merged, namespace);
  cleanupPod(t, none, namespace);
  const mergedPod = podObject({ name: merged, namespace, containers: [sleeper('a')] });
  (mergedPod.spec as Record<string, unknown>).dnsConfig = { searches: ['extra.example'], options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }] };
  const nonePod = podObject({ name: none, namespace, containers: [sleeper('a')] });
  Object.assign(nonePod.spec as Record<string, unknown>, {
    dnsPolicy: 'None',
    dnsConfig: { nameservers: ['192.0.2.1', '192.0.2.2'], searches: ['a.example', 'b.example'], options: [{ name: 'ndots', value: '1' }, { name: 'rotate' }] },
  });
  const file = podFile([podObject({ name: cluster, namespace, containers: [sleeper('a')] }), mergedPod, nonePod]);
  cleanupFile(t, file);
  const r = await runpod([file]);
  assert.equal(r.code, 0, show(r));
  // generateSearchesForDNSClusterFirst: the cluster's three, then the node's own (this machine's file, as runpod reads it).
  const clusterSearch = [`${namespace}.svc.cluster.local`, 'svc.cluster.local', 'cluster.local'];
  const expected = podResolver({ nameservers: [], searches: [...clusterSearch, ...parseResolvConf(node().text).searches], options: [] }, undefined).searches;
  const resolv = sh(must(podContainers(cluster, namespace).get('a'), 'a').Id, 'cat /etc/resolv.conf');
  assert.match(resolv, new RegExp(`^search ${expected.join(' ').replaceAll('.', '\\.')}$`, 'm'), resolv);
  assert.match(resolv, /^options ndots:5$/m, resolv);
  assert.deepEqual(nameservers(resolv), ['127.0.0.11'], resolv);
  const withConfig = sh(must(podContainers(merged, namespace).get('a'), 'a').Id, 'cat /etc/resolv.conf');
  assert.match(withConfig, new RegExp(`^search ${[...expected, 'extra.example'].join(' ').replaceAll('.', '\\.')}$`, 'm'), withConfig);
  assert.match(withConfig, /^options ndots:2 edns0$/m, withConfig);
  assert.deepEqual(nameservers(withConfig), ['127.0.0.11'], withConfig);
  const exact = sh(must(podContainers(none, namespace).get('a'), 'a').Id, 'cat /etc/resolv.conf');
  assert.equal(exact.trim(), 'nameserver 192.0.2.1\nnameserver 192.0.2.2\nsearch a.example b.example\noptions ndots:1 rotate');
});

test("dnsConfig's nameservers with a cluster policy on the pod network are refused before anything is made (exit 2)", async (t) => {
  const name = uniqueName('dns-refused');
  cleanupPod(t, name);
  const pod = podObject({ name, containers: [sleeper('a')] });
  (pod.spec as Record<string, unknown>).dnsConfig = { nameservers: ['192.0.2.1'], searches: ['corp.example'] };
  const file = podFile([pod]);
  cleanupFile(t, file);
  const r = await runpod([file]);
  assert.equal(r.code, 2, show(r));
  assert.match(r.stderr, /spec\.dnsConfig\.nameservers: not supported by runpod with dnsPolicy ClusterFirst on the pod network .*use dnsPolicy None/);
  assert.equal(podContainers(name).size, 0);
});
