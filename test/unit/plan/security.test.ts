// Security contexts and pod namespaces: the pure translation (src/plan/security.ts and its use in translate.ts),
// case by case, each citing the Kubernetes rule it follows.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Container, PodSecurityContext, SecurityContext } from 'kubernetes-types/core/v1.js';
import type { LoadedPod } from '../../../src/manifest/types.js';
import { instanceCreateOptions, translatePod } from '../../../src/plan/translate.js';
import { engineFacts } from '../../../src/engine/ports/facts.js';
import { effectiveSecurityContext, resolveImageUser } from '../../../src/plan/security.js';
import { dottedSysctl } from '../../../src/kube/sysctl.js';

function pod(containers: Container[], spec: Record<string, unknown> = {}, namespace = 'default'): LoadedPod {
  return {
    pod: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace },
      spec: { containers, restartPolicy: 'Always', terminationGracePeriodSeconds: 30, ...spec },
    },
    source: { file: 'pod.yaml', origin: '/srv/pod.yaml' },
    line: 1,
  } as LoadedPod;
}
const c = (securityContext?: SecurityContext, extra: Partial<Container> = {}): Container => ({
  name: 'app',
  image: 'busybox:1.36',
  imagePullPolicy: 'IfNotPresent',
  ...(securityContext ? { securityContext } : {}),
  ...extra,
});
const plan = (p: LoadedPod) => translatePod(p, { infraImage: 'runpod/pause:test' });

describe('effectiveSecurityContext: the container overrides the pod (DetermineEffectiveSecurityContext)', () => {
  const cases: { name: string; pod?: PodSecurityContext; container?: SecurityContext; expect: ReturnType<typeof effectiveSecurityContext> }[] = [
    { name: 'neither: nothing', expect: {} },
    { name: 'pod only: inherited', pod: { runAsUser: 1000, runAsGroup: 2000, runAsNonRoot: true }, expect: { runAsUser: 1000, runAsGroup: 2000, runAsNonRoot: true } },
    {
      name: 'container wins field by field',
      pod: { runAsUser: 1000, runAsGroup: 2000, runAsNonRoot: true },
      container: { runAsUser: 0, runAsNonRoot: false },
      expect: { runAsUser: 0, runAsGroup: 2000, runAsNonRoot: false },
    },
    {
      name: 'seccompProfile is replaced whole, not merged',
      pod: { seccompProfile: { type: 'Unconfined' } },
      container: { seccompProfile: { type: 'RuntimeDefault' } },
      expect: { seccompProfile: { type: 'RuntimeDefault' } },
    },
    {
      name: "container-only fields stay the container's",
      container: { privileged: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: true, capabilities: { add: ['NET_ADMIN'] } },
      expect: { privileged: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: true, capabilities: { add: ['NET_ADMIN'] } },
    },
  ];
  for (const t of cases) it(t.name, () => assert.deepEqual(effectiveSecurityContext(t.pod, t.container), t.expect));
});

describe('container create options from the security context', () => {
  type HC = Record<string, unknown>;
  const cases: { name: string; podSc?: PodSecurityContext; sc?: SecurityContext; user?: string; hostConfig: HC; check?: unknown }[] = [
    { name: 'nothing set: no user, engine defaults (RuntimeDefault seccomp)', hostConfig: {} },
    { name: 'runAsUser -> User uid', sc: { runAsUser: 1000 }, user: '1000', hostConfig: {} },
    { name: 'runAsUser and runAsGroup -> uid:gid', podSc: { runAsGroup: 3000 }, sc: { runAsUser: 1000 }, user: '1000:3000', hostConfig: {} },
    { name: 'runAsGroup alone waits for the image user', sc: { runAsGroup: 3000 }, hostConfig: {}, check: { runAsNonRoot: false, runAsGroup: 3000 } },
    { name: 'runAsNonRoot without runAsUser waits for the image user', podSc: { runAsNonRoot: true }, hostConfig: {}, check: { runAsNonRoot: true } },
    {
      name: 'runAsNonRoot with runAsUser: checked too (uid 0 is refused at creation)',
      sc: { runAsNonRoot: true, runAsUser: 5 },
      user: '5',
      hostConfig: {},
      check: { runAsNonRoot: true, runAsUser: 5 },
    },
    { name: 'fsGroup then supplementalGroups -> GroupAdd', podSc: { fsGroup: 4000, supplementalGroups: [2000, 4000, 3000] }, hostConfig: { GroupAdd: ['4000', '2000', '3000'] } },
    { name: 'privileged', sc: { privileged: true }, hostConfig: { Privileged: true } },
    { name: 'capabilities: upper-cased, ALL kept', sc: { capabilities: { add: ['net_admin'], drop: ['ALL'] } }, hostConfig: { CapAdd: ['NET_ADMIN'], CapDrop: ['ALL'] } },
    { name: 'readOnlyRootFilesystem', sc: { readOnlyRootFilesystem: true }, hostConfig: { ReadonlyRootfs: true } },
    { name: 'allowPrivilegeEscalation false -> no-new-privileges', sc: { allowPrivilegeEscalation: false }, hostConfig: { SecurityOpt: ['no-new-privileges:true'] } },
    { name: 'allowPrivilegeEscalation true or unset: nothing (AddNoNewPrivileges)', sc: { allowPrivilegeEscalation: true }, hostConfig: {} },
    { name: 'seccomp Unconfined from the pod', podSc: { seccompProfile: { type: 'Unconfined' } }, hostConfig: { SecurityOpt: ['seccomp=unconfined'] } },
    {
      name: "seccomp RuntimeDefault on the container overrides the pod's Unconfined",
      podSc: { seccompProfile: { type: 'Unconfined' } },
      sc: { seccompProfile: { type: 'RuntimeDefault' } },
      hostConfig: {},
    },
    {
      name: 'privileged: no seccomp option (the engine drops the filter itself)',
      sc: { privileged: true, seccompProfile: { type: 'Unconfined' } },
      hostConfig: { Privileged: true },
    },
  ];
  const securityKeys = ['GroupAdd', 'Privileged', 'CapAdd', 'CapDrop', 'ReadonlyRootfs', 'SecurityOpt'];
  for (const t of cases) {
    it(t.name, () => {
      const p = plan(pod([c(t.sc)], t.podSc ? { securityContext: t.podSc } : {}));
      const cp = p.containers[0]!;
      assert.equal(cp.create.User, t.user);
      const hc = cp.create.HostConfig as HC;
      const got: HC = {};
      for (const k of securityKeys) if (hc[k] !== undefined) got[k] = hc[k];
      assert.deepEqual(got, t.hostConfig);
      assert.deepEqual(cp.imageUserCheck, t.check);
    });
  }

  it('a changed securityContext changes the container hash, not the pod hash', () => {
    const a = plan(pod([c()]));
    const b = plan(pod([c({ readOnlyRootFilesystem: true })]));
    assert.notEqual(a.containers[0]!.hash, b.containers[0]!.hash);
    assert.equal(a.hash, b.hash);
  });
});

describe('resolveImageUser: verifyRunAsNonRoot against the image user', () => {
  const cases: { name: string; check: Parameters<typeof resolveImageUser>[0]; image: string; expect: RegExp | { user?: string } }[] = [
    { name: 'image without a user runs as root: refused', check: { runAsNonRoot: true }, image: '', expect: /has runAsNonRoot and image will run as root/ },
    { name: 'image user "root": refused', check: { runAsNonRoot: true }, image: 'root', expect: /image will run as root/ },
    { name: 'image user "0:0": refused', check: { runAsNonRoot: true }, image: '0:0', expect: /image will run as root/ },
    { name: 'image user 1000: allowed', check: { runAsNonRoot: true }, image: '1000', expect: {} },
    { name: 'image user "1000:50": allowed', check: { runAsNonRoot: true }, image: '1000:50', expect: {} },
    { name: 'non-numeric image user: cannot verify, refused', check: { runAsNonRoot: true }, image: 'nobody', expect: /non-numeric user \(nobody\), cannot verify/ },
    { name: 'runAsUser 0 with runAsNonRoot: refused whatever the image', check: { runAsNonRoot: true, runAsUser: 0 }, image: '1000', expect: /runAsUser breaks non-root policy/ },
    { name: 'runAsUser non-zero: the image is not consulted', check: { runAsNonRoot: true, runAsUser: 7 }, image: '', expect: {} },
    { name: 'runAsGroup alone: the image uid with the group', check: { runAsNonRoot: false, runAsGroup: 30 }, image: '1000:1', expect: { user: '1000:30' } },
    { name: 'runAsGroup alone, image without a user: root with the group', check: { runAsNonRoot: false, runAsGroup: 30 }, image: '', expect: { user: '0:30' } },
    { name: 'runAsGroup alone, named image user', check: { runAsNonRoot: false, runAsGroup: 30 }, image: 'nobody', expect: { user: 'nobody:30' } },
  ];
  for (const t of cases) {
    it(t.name, () => {
      const r = resolveImageUser(t.check, t.image, 'app');
      if (t.expect instanceof RegExp) {
        assert.ok('error' in r, JSON.stringify(r));
        assert.match(r.error, t.expect);
        assert.match(r.error, /container app/);
      } else assert.deepEqual(r, t.expect);
    });
  }
});

describe('pod-level fields on the infra container', () => {
  type HC = Record<string, unknown>;
  const infra = (spec: Record<string, unknown>, ns = 'default') => plan(pod([c()], spec, ns)).infra.create;
  it('hostname: spec.hostname, else the pod name (no domain without subdomain)', () => {
    assert.equal(infra({}).Hostname, 'web');
    assert.equal(infra({ hostname: 'h1' }).Hostname, 'h1');
    assert.equal(infra({}).Domainname, undefined);
  });
  it('subdomain: the FQDN hostname.subdomain.namespace.svc.cluster.local as hostname + domain', () => {
    const cr = infra({ hostname: 'h1', subdomain: 'sub' }, 'team');
    assert.equal(cr.Hostname, 'h1');
    assert.equal(cr.Domainname, 'sub.team.svc.cluster.local');
  });
  it('setHostnameAsFQDN: the kernel hostname is the FQDN', () => {
    const cr = infra({ hostname: 'h1', subdomain: 'sub', setHostnameAsFQDN: true }, 'team');
    assert.equal(cr.Hostname, 'h1.sub.team.svc.cluster.local');
    assert.equal(cr.Domainname, undefined);
  });
  it('setHostnameAsFQDN without subdomain: the plain hostname', () => {
    assert.equal(infra({ setHostnameAsFQDN: true }).Hostname, 'web');
  });
  it('hostNetwork: host network and UTS, no hostname, nothing published', () => {
    const cr = plan(pod([c(undefined, { ports: [{ containerPort: 8080, hostPort: 8080 }] })], { hostNetwork: true })).infra.create;
    const hc = cr.HostConfig as HC;
    assert.equal(hc.NetworkMode, 'host');
    assert.equal(hc.UTSMode, 'host');
    assert.equal(cr.Hostname, undefined);
    assert.deepEqual(hc.PortBindings, {});
    assert.deepEqual(cr.ExposedPorts, {});
  });
  it('hostIPC and hostPID on the infra container', () => {
    const hc = infra({ hostIPC: true, hostPID: true }).HostConfig as HC;
    assert.equal(hc.IpcMode, 'host');
    assert.equal(hc.PidMode, 'host');
    assert.equal((infra({}).HostConfig as HC).IpcMode, 'shareable');
  });
  it('hostAliases -> ExtraHosts, one line per hostname', () => {
    const hc = infra({
      hostAliases: [
        { ip: '10.0.0.1', hostnames: ['a', 'b.example'] },
        { ip: '::1', hostnames: ['c'] },
      ],
    }).HostConfig as HC;
    assert.deepEqual(hc.ExtraHosts, ['a:10.0.0.1', 'b.example:10.0.0.1', 'c:::1']);
  });
  it('dnsPolicy None: dnsConfig becomes Dns, DnsSearch, DnsOptions', () => {
    const hc = infra({
      dnsPolicy: 'None',
      dnsConfig: { nameservers: ['1.1.1.1'], searches: ['a.example'], options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }] },
    }).HostConfig as HC;
    assert.deepEqual([hc.Dns, hc.DnsSearch, hc.DnsOptions], [['1.1.1.1'], ['a.example'], ['ndots:2', 'edns0']]);
  });
  for (const policy of ['ClusterFirst', 'ClusterFirstWithHostNet', undefined]) {
    it(`dnsPolicy ${policy ?? '(default)'}: the kubelet's search list for the namespace and ndots:5, the namespace's network`, () => {
      const created = infra(policy !== undefined ? { dnsPolicy: policy } : {});
      const hc = created.HostConfig as HC;
      assert.deepEqual([hc.Dns, hc.DnsSearch, hc.DnsOptions], [undefined, ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'], ['ndots:5']]);
      assert.equal(hc.NetworkMode, 'runpod_default');
    });
  }
  it("ClusterFirst with the node's file and a dnsConfig: the node's searches after the cluster's, dnsConfig merged; the hash leaves the node's out", () => {
    const node = engineFacts({ Version: '28.1.1', ApiVersion: '1.49' }, {});
    const withNode = (text: string) => ({ infraImage: 'runpod/pause:test', engine: { ...node, resolvConf: { path: '/etc/resolv.conf', text } } });
    const spec = { dnsConfig: { searches: ['extra.example'], options: [{ name: 'ndots', value: '2' }] } };
    const p = translatePod(pod([c()], spec), withNode('search corp.example\n'));
    const hc = p.infra.create.HostConfig as HC;
    assert.deepEqual(
      [hc.Dns, hc.DnsSearch, hc.DnsOptions],
      [undefined, ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'corp.example', 'extra.example'], ['ndots:2']],
    );
    assert.equal(p.hash, translatePod(pod([c()], spec), withNode('search other.example\n')).hash, 'a changed host file replaces no pod');
    assert.equal(p.hash, plan(pod([c()], spec)).hash, "nor does runpod's reading it or not");
    assert.equal(translatePod(pod([c()]), withNode('search corp.example\n')).hash, plan(pod([c()])).hash);
    assert.notEqual(p.hash, plan(pod([c()])).hash, "the pod's own dnsConfig does");
  });
  it("dnsPolicy Default: the host's resolver (no DNS options)", () => {
    const hc = infra({ dnsPolicy: 'Default' }).HostConfig as HC;
    assert.deepEqual([hc.Dns, hc.DnsSearch, hc.DnsOptions], [undefined, undefined, undefined]);
  });
  for (const policy of ['ClusterFirst', 'ClusterFirstWithHostNet']) {
    it(`dnsPolicy ${policy} with hostNetwork: the host's resolver, as the kubelet falls back to Default`, () => {
      const hc = infra({ dnsPolicy: policy, hostNetwork: true }).HostConfig as HC;
      assert.deepEqual([hc.NetworkMode, hc.Dns, hc.DnsSearch, hc.DnsOptions], ['host', undefined, undefined, undefined]);
    });
  }
  it('sysctls on the infra container, slash form converted to dots', () => {
    const hc = infra({
      securityContext: {
        sysctls: [
          { name: 'net.ipv4.tcp_syncookies', value: '1' },
          { name: 'kernel/shm_rmid_forced', value: '1' },
        ],
      },
    }).HostConfig as HC;
    assert.deepEqual(hc.Sysctls, { 'net.ipv4.tcp_syncookies': '1', 'kernel.shm_rmid_forced': '1' });
  });
  it('pod-level hash: shareProcessNamespace, hostPID, hostAliases, DNS, sysctls each replace the pod', () => {
    const base = plan(pod([c()])).hash;
    for (const spec of [
      { shareProcessNamespace: true },
      { hostPID: true },
      { hostIPC: true },
      { hostNetwork: true },
      { hostAliases: [{ ip: '10.0.0.1', hostnames: ['a'] }] },
      { dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1'] } },
      { securityContext: { sysctls: [{ name: 'net.ipv4.tcp_syncookies', value: '1' }] } },
      { subdomain: 's' },
    ]) {
      assert.notEqual(plan(pod([c()], spec)).hash, base, JSON.stringify(spec));
    }
  });
  it('dnsPolicy ClusterFirst is the default: the same pod hash either way', () => {
    assert.equal(plan(pod([c()])).hash, plan(pod([c()], { dnsPolicy: 'ClusterFirst' })).hash);
  });
});

describe('dottedSysctl (ConvertSysctlVariableToDotsSeparator)', () => {
  const cases: [string, string][] = [
    ['net.ipv4.ip_forward', 'net.ipv4.ip_forward'],
    ['net/ipv4/ip_forward', 'net.ipv4.ip_forward'],
    ['net/ipv4/conf/eno2.100/rp_filter', 'net.ipv4.conf.eno2/100.rp_filter'],
    ['net.ipv4.conf.eno2/100.rp_filter', 'net.ipv4.conf.eno2/100.rp_filter'],
  ];
  for (const [input, want] of cases) it(input, () => assert.equal(dottedSysctl(input), want));
});

describe('app containers join the infra container per hostIPC, hostPID and shareProcessNamespace', () => {
  const modes = (spec: Record<string, unknown>) => {
    const p = plan(pod([c()], spec));
    const hc = instanceCreateOptions(p, p.containers[0]!, 0, 'infra123').options.HostConfig!;
    return { NetworkMode: hc.NetworkMode, IpcMode: hc.IpcMode, PidMode: hc.PidMode };
  };
  const cases: { name: string; spec: Record<string, unknown>; expect: Record<string, string | undefined> }[] = [
    { name: 'default: network and IPC of the pod, own PID namespace', spec: {}, expect: { NetworkMode: 'container:infra123', IpcMode: 'container:infra123', PidMode: undefined } },
    {
      name: 'shareProcessNamespace: the infra PID namespace',
      spec: { shareProcessNamespace: true },
      expect: { NetworkMode: 'container:infra123', IpcMode: 'container:infra123', PidMode: 'container:infra123' },
    },
    { name: 'hostPID: the host PID namespace', spec: { hostPID: true }, expect: { NetworkMode: 'container:infra123', IpcMode: 'container:infra123', PidMode: 'host' } },
    { name: 'hostIPC: the host IPC namespace', spec: { hostIPC: true }, expect: { NetworkMode: 'container:infra123', IpcMode: 'host', PidMode: undefined } },
    {
      name: 'hostNetwork: still joins the infra (which is on the host network)',
      spec: { hostNetwork: true },
      expect: { NetworkMode: 'container:infra123', IpcMode: 'container:infra123', PidMode: undefined },
    },
  ];
  for (const t of cases) it(t.name, () => assert.deepEqual(modes(t.spec), t.expect));
});
