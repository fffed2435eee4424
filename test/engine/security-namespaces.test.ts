// Pod-level namespaces and names on a real engine, checked from inside the containers: hostname and subdomain
// (FQDN), hostAliases and DNS shared by every container, sysctls, shareProcessNamespace, and hostNetwork/hostPID/
// hostIPC against the host's own namespaces. Each test uses its own pod and removes it, pass or fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import { uniqueName } from './harness.js';
import {
  checkNothingLeftBehind,
  cleanupFile,
  cleanupPod,
  docker,
  eventually,
  freePort,
  httpGet,
  must,
  podContainers,
  podFile,
  podObject,
  runpod,
  show,
  sleeper,
  busybox,
} from './run-helpers.js';

checkNothingLeftBehind();

const sh = (id: string, script: string): string => docker(['exec', id, 'sh', '-c', script]);

test('hostname, subdomain, hostAliases, dnsPolicy None and sysctls: shared by every container of the pod', async (t) => {
  const name = uniqueName('sec-names');
  const namespace = 'sec-ns';
  cleanupPod(t, name, namespace);
  const pod = podObject({ name, namespace, containers: [sleeper('a'), sleeper('b')] });
  Object.assign(pod.spec as Record<string, unknown>, {
    hostname: 'web',
    subdomain: 'backend',
    hostAliases: [{ ip: '10.1.2.3', hostnames: ['db.example', 'cache.example'] }],
    dnsPolicy: 'None',
    dnsConfig: { nameservers: ['192.0.2.53'], searches: ['corp.example'], options: [{ name: 'ndots', value: '3' }] },
    securityContext: {
      sysctls: [
        { name: 'net.ipv4.ip_local_port_range', value: '20000 30000' },
        { name: 'kernel/shm_rmid_forced', value: '1' },
      ],
    },
  });
  const file = podFile([pod]);
  cleanupFile(t, file);
  const r = await runpod([file]);
  assert.equal(r.code, 0, show(r));
  const byName = podContainers(name, namespace);
  const fqdn = `web.backend.${namespace}.svc.cluster.local`;
  for (const c of ['a', 'b']) {
    const id = must(byName.get(c), c).Id;
    assert.equal(sh(id, 'hostname'), 'web', c);
    // The FQDN resolves through the pod's /etc/hosts, as the kubelet's managed hosts file makes it.
    assert.equal(sh(id, 'hostname -f'), fqdn, c);
    const hosts = sh(id, 'cat /etc/hosts');
    assert.match(hosts, /^10\.1\.2\.3\s+db\.example$/m, c);
    assert.match(hosts, /^10\.1\.2\.3\s+cache\.example$/m, c);
    assert.match(hosts, new RegExp(`\\s${fqdn.replace(/\./g, '\\.')}\\s+web$`, 'm'), c);
    const resolv = sh(id, 'cat /etc/resolv.conf');
    assert.match(resolv, /^search corp\.example$/m, c);
    assert.match(resolv, /^options ndots:3$/m, c);
    // dnsPolicy None: exactly the dnsConfig, as the kubelet writes it (issue 24), not the engine's 127.0.0.11.
    assert.equal(resolv.trim(), 'nameserver 192.0.2.53\nsearch corp.example\noptions ndots:3', c);
    assert.equal(sh(id, 'sysctl -n net.ipv4.ip_local_port_range').replace(/\s+/g, ' '), '20000 30000', c);
    assert.equal(sh(id, 'sysctl -n kernel.shm_rmid_forced'), '1', c);
  }
  const infra = must(byName.get('POD'), 'POD');
  assert.equal(docker(['inspect', '--format', '{{json .HostConfig.Dns}}', infra.Id]), '["192.0.2.53"]');
  // The same file, not two copies: an entry the engine adds is seen by both (Docker shares the infra's hosts file).
  const aHosts = must(byName.get('a'), 'a');
  const bHosts = must(byName.get('b'), 'b');
  assert.equal(sh(aHosts.Id, 'cat /etc/hosts'), sh(bHosts.Id, 'cat /etc/hosts'));
});

test('setHostnameAsFQDN: the hostname is the FQDN', async (t) => {
  const name = uniqueName('sec-fqdn');
  cleanupPod(t, name);
  const pod = podObject({ name, containers: [sleeper('a')] });
  Object.assign(pod.spec as Record<string, unknown>, { subdomain: 'sub', setHostnameAsFQDN: true });
  const file = podFile([pod]);
  cleanupFile(t, file);
  const r = await runpod([file]);
  assert.equal(r.code, 0, show(r));
  assert.equal(sh(must(podContainers(name).get('a'), 'a').Id, 'hostname'), `${name}.sub.default.svc.cluster.local`);
});

test("dnsPolicy ClusterFirst (default): the kubelet's search list and ndots:5, the engine's DNS; Default: the host's resolv.conf", async (t) => {
  const name = uniqueName('sec-dns');
  cleanupPod(t, name);
  const file = podFile({ name, containers: [sleeper('a')] });
  cleanupFile(t, file);
  const r = await runpod([file]);
  assert.equal(r.code, 0, show(r));
  const resolv = sh(must(podContainers(name).get('a'), 'a').Id, 'cat /etc/resolv.conf');
  assert.match(resolv, /^search default\.svc\.cluster\.local svc\.cluster\.local cluster\.local$/m, resolv);
  assert.match(resolv, /^options ndots:5$/m, resolv);
  assert.match(resolv, /^nameserver 127\.0\.0\.11$/m, resolv);
  // Default: no cluster search list; the node's own resolv.conf (dns-policy.test.ts compares it with the host's file).
  const other = uniqueName('sec-dns-default');
  cleanupPod(t, other);
  const pod = podObject({ name: other, containers: [sleeper('a')] });
  (pod.spec as Record<string, unknown>).dnsPolicy = 'Default';
  const otherFile = podFile([pod]);
  cleanupFile(t, otherFile);
  const r2 = await runpod([otherFile]);
  assert.equal(r2.code, 0, show(r2));
  const plain = sh(must(podContainers(other).get('a'), 'a').Id, 'cat /etc/resolv.conf');
  assert.doesNotMatch(plain, /svc\.cluster\.local/, plain);
  assert.doesNotMatch(plain, /ndots:5/, plain);
});

test("shareProcessNamespace: every container sees the others' processes, pause is PID 1", async (t) => {
  const name = uniqueName('sec-sharepid');
  cleanupPod(t, name);
  const pod = podObject({ name, containers: [sleeper('a'), { name: 'b', image: busybox, command: ['sleep', '4242'] }] });
  (pod.spec as Record<string, unknown>).shareProcessNamespace = true;
  const file = podFile([pod]);
  cleanupFile(t, file);
  const r = await runpod([file]);
  assert.equal(r.code, 0, show(r));
  const a = must(podContainers(name).get('a'), 'a').Id;
  const ps = sh(a, 'ps -o pid,args');
  assert.match(ps, /^\s*1\s+\/pause$/m, ps);
  assert.match(ps, /sleep 4242/, ps);
  // Without it, each container has its own PID namespace.
  const other = uniqueName('sec-ownpid');
  cleanupPod(t, other);
  const otherFile = podFile({ name: other, containers: [sleeper('a'), { name: 'b', image: busybox, command: ['sleep', '4242'] }] });
  cleanupFile(t, otherFile);
  const r2 = await runpod([otherFile]);
  assert.equal(r2.code, 0, show(r2));
  assert.doesNotMatch(sh(must(podContainers(other).get('a'), 'a').Id, 'ps -o args'), /sleep 4242/);
});

test("hostNetwork, hostPID, hostIPC: the host's namespaces and hostname; containerPort served on the host", async (t) => {
  const name = uniqueName('sec-host');
  cleanupPod(t, name);
  const port = await freePort();
  const pod = podObject({
    name,
    containers: [
      {
        name: 'web',
        image: busybox,
        command: ['sh', '-c', `mkdir -p /www && echo host-net-ok > /www/index.html && exec httpd -f -p ${port} -h /www`],
        // No hostPort: with hostNetwork it defaults to the containerPort.
        ports: [{ containerPort: port }],
      },
    ],
  });
  Object.assign(pod.spec as Record<string, unknown>, { hostNetwork: true, hostPID: true, hostIPC: true });
  const file = podFile([pod]);
  cleanupFile(t, file);
  const r = await runpod([file]);
  assert.equal(r.code, 0, show(r));
  const id = must(podContainers(name).get('web'), 'web').Id;
  for (const ns of ['net', 'pid', 'ipc']) {
    assert.equal(sh(id, `readlink /proc/self/ns/${ns}`), fs.readlinkSync(`/proc/self/ns/${ns}`), ns);
  }
  assert.equal(sh(id, 'hostname'), os.hostname());
  const page = await eventually('the page on the host port', async () => {
    const res = await httpGet('127.0.0.1', port);
    return res.status === 200 ? res.body : undefined;
  });
  assert.equal(page.trim(), 'host-net-ok');
});
