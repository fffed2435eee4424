// The files the kubelet gives every container outside its spec (plan/podFiles.ts): the service account's namespace
// file (unless automountServiceAccountToken is false), and dnsPolicy None's exact resolv.conf; bound per instance.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseManifests } from '../../../src/manifest/parse.js';
import { instanceCreateOptions, translatePod } from '../../../src/plan/translate.js';
import { podFiles, podResolvConf } from '../../../src/plan/podFiles.js';
import { runtimeRef } from '../../../src/plan/runtime.js';

const plan = (spec: string, ns = 'shop') => {
  const r = parseManifests([{ source: { file: 'pod.yaml' }, text: `apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: ${ns}}\nspec:\n${spec}` }], {
    defaultNamespace: 'default',
  });
  assert.deepEqual(r.problems, []);
  return translatePod(r.pods[0]!, { infraImage: 'runpod/pause:test' });
};
const app = '  containers: [{name: app, image: busybox:1}]\n';

describe('pod files', () => {
  it('the namespace file, bound read-only at the service account directory in every app and init instance', () => {
    const p = plan(`  initContainers: [{name: init, image: busybox:1}]\n${app}`);
    assert.deepEqual(p.podFiles, { namespace: 'shop' });
    const vol = runtimeRef(`mountpoint/${p.terminationLog.engineName}`);
    for (const c of [...p.initContainers, ...p.containers]) {
      const mounts = instanceCreateOptions(p, c, 0, 'infra').options.HostConfig?.Mounts ?? [];
      assert.deepEqual(
        mounts.filter((m) => m.Target === '/var/run/secrets/kubernetes.io/serviceaccount'),
        [{ Type: 'bind', Source: `${vol}/serviceaccount`, Target: '/var/run/secrets/kubernetes.io/serviceaccount', ReadOnly: true }],
      );
    }
    assert.equal(
      (instanceCreateOptions(p, p.infra, 0).options.HostConfig?.Mounts ?? []).some((m) => m.Target.startsWith('/var/run/secrets')),
      false,
      'not the infra container',
    );
    assert.equal(p.containers[0]!.create.HostConfig?.Mounts, undefined, 'outside what the hash covers');
  });
  it('automountServiceAccountToken false, or a mount of its own there: no namespace file', () => {
    assert.deepEqual(plan(`  automountServiceAccountToken: false\n${app}`).podFiles, {});
    assert.deepEqual(
      plan(
        '  volumes: [{name: t, emptyDir: {}}]\n  containers: [{name: app, image: busybox:1, volumeMounts: [{name: t, mountPath: /var/run/secrets/kubernetes.io/serviceaccount}]}]\n',
      ).podFiles,
      {},
    );
  });
  it('dnsPolicy None: exactly the dnsConfig, bound at /etc/resolv.conf', () => {
    const p = plan(
      `  dnsPolicy: None\n  dnsConfig: {nameservers: [192.0.2.1, 192.0.2.2], searches: [ns1.svc.cluster-domain.example, my.dns.search.suffix], options: [{name: ndots, value: "2"}, {name: edns0}]}\n${app}`,
    );
    assert.equal(p.podFiles.resolvConf, 'nameserver 192.0.2.1\nnameserver 192.0.2.2\nsearch ns1.svc.cluster-domain.example my.dns.search.suffix\noptions ndots:2 edns0\n');
    const mounts = instanceCreateOptions(p, p.containers[0]!, 0, 'infra').options.HostConfig?.Mounts ?? [];
    assert.ok(mounts.some((m) => m.Target === '/etc/resolv.conf' && m.ReadOnly === true && m.Source.endsWith('/resolv.conf')));
    assert.equal(podResolvConf({ containers: [], dnsPolicy: 'None', dnsConfig: { nameservers: ['192.0.2.1'] } }, undefined), 'nameserver 192.0.2.1\n');
    assert.equal(podFiles({ containers: [], dnsPolicy: 'ClusterFirst' }, 'x').resolvConf, undefined);
  });
});
