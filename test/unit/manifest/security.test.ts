// Validation of security contexts, host namespaces, hostname, hostAliases and DNS (src/manifest/securityRules.ts),
// and the hostNetwork port defaulting: one rule per row, each as the API server words it where it has one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import yaml from 'js-yaml';
import { formatProblem } from '../../../src/errors.js';
import { parseManifests } from '../../../src/manifest/parse.js';

type Obj = Record<string, unknown>;

function run(spec: Obj, container: Obj = {}, metadata: Obj = {}) {
  const doc = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', ...metadata },
    spec: { ...spec, containers: [{ name: 'app', image: 'busybox', ...container }] },
  };
  return parseManifests([{ source: { file: 'pod.yaml', origin: '/x/pod.yaml' }, text: yaml.dump(doc) }], { defaultNamespace: 'default' });
}
/** Problems as "path: message", without file and line. */
function problems(spec: Obj, container: Obj = {}, metadata: Obj = {}): string[] {
  return run(spec, container, metadata).problems.map((p) => formatProblem(p).replace(/^pod\.yaml:\d+ /, ''));
}

describe('security and namespace validation', () => {
  const cases: { name: string; spec?: Obj; container?: Obj; metadata?: Obj; expect: (string | RegExp)[] }[] = [
    {
      name: 'a pod using every supported field is valid',
      spec: {
        hostname: 'h',
        subdomain: 'sub',
        setHostnameAsFQDN: true,
        shareProcessNamespace: true,
        hostIPC: false,
        hostAliases: [{ ip: '10.0.0.1', hostnames: ['a.example'] }],
        dnsPolicy: 'None',
        dnsConfig: { nameservers: ['1.1.1.1'], searches: ['a.example.'], options: [{ name: 'ndots', value: '2' }] },
        securityContext: {
          runAsUser: 1000,
          runAsGroup: 1000,
          runAsNonRoot: true,
          supplementalGroups: [5],
          fsGroup: 6,
          fsGroupChangePolicy: 'OnRootMismatch',
          supplementalGroupsPolicy: 'Merge',
          seccompProfile: { type: 'RuntimeDefault' },
          sysctls: [
            { name: 'net.ipv4.tcp_syncookies', value: '1' },
            { name: 'kernel/shm_rmid_forced', value: '1' },
          ],
        },
      },
      container: {
        securityContext: {
          runAsUser: 1,
          privileged: false,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          procMount: 'Default',
          capabilities: { add: ['NET_BIND_SERVICE', 'net_raw'], drop: ['ALL'] },
          seccompProfile: { type: 'Unconfined' },
        },
      },
      expect: [],
    },
    {
      name: 'runAsUser out of range',
      container: { securityContext: { runAsUser: -1 } },
      expect: ['spec.containers[0].securityContext.runAsUser: must be between 0 and 2147483647, inclusive'],
    },
    { name: 'pod fsGroup out of range', spec: { securityContext: { fsGroup: 2147483648 } }, expect: [/spec.securityContext.fsGroup: /] },
    {
      name: 'supplementalGroups item out of range',
      spec: { securityContext: { supplementalGroups: [1, -5] } },
      expect: [/spec.securityContext.supplementalGroups\[1\]: must be between/],
    },
    {
      name: 'supplementalGroupsPolicy Strict refused',
      spec: { securityContext: { supplementalGroupsPolicy: 'Strict' } },
      expect: [/supplementalGroupsPolicy: Strict is not supported by runpod/],
    },
    // validateSeccompProfileField: localhostProfile with Localhost, and only then; a relative path without "..".
    {
      name: 'seccomp Localhost needs localhostProfile',
      spec: { securityContext: { seccompProfile: { type: 'Localhost' } } },
      expect: ['spec.securityContext.seccompProfile.localhostProfile: must be set when seccomp type is Localhost'],
    },
    {
      name: 'seccomp Localhost with a profile is valid (read at run time)',
      container: { securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/p.json' } } },
      expect: [],
    },
    {
      name: 'seccomp localhostProfile escaping the root',
      container: { securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: '../p.json' } } },
      expect: ["spec.containers[0].securityContext.seccompProfile.localhostProfile: must be a relative path without '..'"],
    },
    {
      name: 'seccomp localhostProfile without Localhost',
      container: { securityContext: { seccompProfile: { type: 'RuntimeDefault', localhostProfile: 'p.json' } } },
      expect: ['spec.containers[0].securityContext.seccompProfile.localhostProfile: can only be set when seccomp type is Localhost'],
    },
    { name: 'unknown capability', container: { securityContext: { capabilities: { add: ['NET_FLY'] } } }, expect: [/capabilities.add\[0\]: unknown capability "NET_FLY"/] },
    {
      name: 'CAP_ prefix refused with a hint',
      container: { securityContext: { capabilities: { drop: ['CAP_NET_RAW'] } } },
      expect: [/capabilities.drop\[0\]: write the capability without the CAP_ prefix \("NET_RAW"\)/],
    },
    {
      name: 'allowPrivilegeEscalation false with privileged',
      container: { securityContext: { privileged: true, allowPrivilegeEscalation: false } },
      expect: [/allowPrivilegeEscalation: cannot set `allowPrivilegeEscalation` to false and `privileged` to true/],
    },
    {
      name: 'allowPrivilegeEscalation false with SYS_ADMIN',
      container: { securityContext: { capabilities: { add: ['SYS_ADMIN'] }, allowPrivilegeEscalation: false } },
      expect: [/capabilities.Add` CAP_SYS_ADMIN/],
    },
    {
      name: 'procMount Unmasked needs hostUsers false',
      container: { securityContext: { procMount: 'Unmasked' } },
      expect: [/procMount: `hostUsers` must be false to use `Unmasked`/],
    },
    // appArmorProfile is accepted offline (the engine decides at run time: plan/engineSupport.ts), with
    // validateAppArmorProfileField's rules; the deprecated annotation as the API server checks it.
    {
      name: 'appArmorProfile accepted',
      container: { securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } },
      spec: { securityContext: { appArmorProfile: { type: 'Localhost', localhostProfile: 'k8s-apparmor-example' } } },
      expect: [],
    },
    {
      name: 'appArmorProfile Localhost needs localhostProfile',
      container: { securityContext: { appArmorProfile: { type: 'Localhost' } } },
      expect: ['spec.containers[0].securityContext.appArmorProfile.localhostProfile: must be set when AppArmor type is Localhost'],
    },
    {
      name: 'appArmorProfile localhostProfile without Localhost',
      spec: { securityContext: { appArmorProfile: { type: 'Unconfined', localhostProfile: 'x' } } },
      expect: ['spec.securityContext.appArmorProfile.localhostProfile: can only be set when AppArmor type is Localhost'],
    },
    {
      name: 'appArmorProfile type must be known (schema)',
      container: { securityContext: { appArmorProfile: { type: 'Default' } } },
      expect: [/appArmorProfile.type: must be one of/],
    },
    { name: 'AppArmor annotation accepted', metadata: { annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'localhost/my-profile' } }, expect: [] },
    {
      name: 'AppArmor annotation: bad value',
      metadata: { annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'docker-default' } },
      expect: [/metadata.annotations\["container.apparmor.security.beta.kubernetes.io\/app"\]: invalid AppArmor profile name: "docker-default"/],
    },
    {
      name: 'AppArmor annotation: no such container',
      metadata: { annotations: { 'container.apparmor.security.beta.kubernetes.io/web': 'unconfined' } },
      expect: [/container web not found/],
    },
    {
      name: 'AppArmor annotation and field must match',
      metadata: { annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'unconfined' } },
      container: { securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } },
      expect: [/apparmor type in annotation and field must match/],
    },
    { name: 'seLinuxOptions refused', spec: { securityContext: { seLinuxOptions: { level: 's0' } } }, expect: [/seLinuxOptions: not supported by runpod/] },
    {
      name: 'hostNetwork: hostPort must equal containerPort',
      spec: { hostNetwork: true },
      container: { ports: [{ containerPort: 80, hostPort: 8080 }] },
      expect: ['spec.containers[0].ports[0].hostPort: must match `containerPort` when `hostNetwork` is true'],
    },
    {
      name: 'shareProcessNamespace with hostPID',
      spec: { shareProcessNamespace: true, hostPID: true },
      expect: ['spec.shareProcessNamespace: ShareProcessNamespace and HostPID cannot both be enabled'],
    },
    {
      name: 'sysctl: not namespaced',
      spec: { securityContext: { sysctls: [{ name: 'vm.swappiness', value: '1' }] } },
      expect: [/sysctls\[0\].name: "vm.swappiness" is not a namespaced sysctl/],
    },
    { name: 'sysctl: bad name', spec: { securityContext: { sysctls: [{ name: 'Net.IPv4', value: '1' }] } }, expect: [/is not a valid sysctl name/] },
    {
      name: 'sysctl: duplicate across forms',
      spec: {
        securityContext: {
          sysctls: [
            { name: 'net.ipv4.ip_forward', value: '1' },
            { name: 'net/ipv4/ip_forward', value: '0' },
          ],
        },
      },
      expect: [/sysctls\[1\].name: duplicate sysctl/],
    },
    {
      name: 'sysctl net.* with hostNetwork',
      spec: { hostNetwork: true, securityContext: { sysctls: [{ name: 'net.ipv4.tcp_syncookies', value: '1' }] } },
      expect: [/not allowed with hostNetwork/],
    },
    {
      name: 'sysctl kernel.shm* with hostIPC',
      spec: { hostIPC: true, securityContext: { sysctls: [{ name: 'kernel.shm_rmid_forced', value: '1' }] } },
      expect: [/not allowed with hostIPC/],
    },
    { name: 'subdomain must be a DNS-1123 label', spec: { subdomain: 'A_B' }, expect: [/spec.subdomain: must be a lowercase RFC 1123 label/] },
    {
      name: 'setHostnameAsFQDN: FQDN over 64 characters',
      spec: { hostname: 'h'.repeat(30), subdomain: 's'.repeat(20), setHostnameAsFQDN: true },
      metadata: { namespace: 'team' },
      expect: [/spec.setHostnameAsFQDN: the FQDN h+\.s+\.team\.svc\.cluster\.local is too long \(64 characters is the max, 74 characters requested\)/],
    },
    {
      name: 'hostAliases: bad IP and hostname',
      spec: { hostAliases: [{ ip: '300.1.1.1', hostnames: ['ok', 'Not_OK'] }] },
      expect: [/hostAliases\[0\].ip: must be a valid IP/, /hostAliases\[0\].hostnames\[1\]: /],
    },
    {
      name: 'hostAliases with hostNetwork refused',
      spec: { hostNetwork: true, hostAliases: [{ ip: '10.0.0.1', hostnames: ['a'] }] },
      expect: [/spec.hostAliases: not supported by runpod with hostNetwork/],
    },
    { name: 'dnsPolicy None needs a nameserver', spec: { dnsPolicy: 'None' }, expect: ['spec.dnsConfig: must provide at least one DNS nameserver when `dnsPolicy` is None'] },
    {
      name: 'dnsConfig searches and options with ClusterFirst merged',
      spec: { dnsConfig: { searches: ['a.example'], options: [{ name: 'ndots', value: '1' }] } },
      expect: [],
    },
    {
      name: 'dnsConfig nameservers with ClusterFirst on the pod network refused',
      spec: { dnsConfig: { nameservers: ['192.0.2.1'] } },
      expect: [/spec.dnsConfig.nameservers: not supported by runpod with dnsPolicy ClusterFirst on the pod network .*use dnsPolicy None/],
    },
    {
      name: 'dnsConfig nameservers with ClusterFirstWithHostNet on the pod network refused',
      spec: { dnsPolicy: 'ClusterFirstWithHostNet', dnsConfig: { nameservers: ['192.0.2.1'] } },
      expect: [/spec.dnsConfig.nameservers: not supported by runpod/],
    },
    {
      name: "dnsConfig nameservers with ClusterFirstWithHostNet on the host's network merged (the node's file)",
      spec: { dnsPolicy: 'ClusterFirstWithHostNet', hostNetwork: true, dnsConfig: { nameservers: ['192.0.2.1'] } },
      expect: [],
    },
    { name: 'dnsConfig with Default merged', spec: { dnsPolicy: 'Default', dnsConfig: { searches: ['a.example'] } }, expect: [] },
    {
      name: 'dnsConfig: too many nameservers, bad IP',
      spec: { dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1', '1.1.1.2', '1.1.1.3', 'x'] } },
      expect: [/nameservers: must not have more than 3 nameservers, got 4/, /nameservers\[3\]: must be a valid IP/],
    },
    {
      name: 'dnsConfig: option name required',
      spec: { dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1'], options: [{ value: '2' }] } },
      expect: ['spec.dnsConfig.options[0].name: required'],
    },
    { name: 'dnsPolicy must be a known value (schema)', spec: { dnsPolicy: 'Cluster' }, expect: [/spec.dnsPolicy: must be one of/] },
    { name: 'hostUsers is still refused, naming the field', spec: { hostUsers: false }, expect: [/spec.hostUsers: not supported by runpod/] },
  ];
  for (const t of cases) {
    it(t.name, () => {
      const got = problems(t.spec ?? {}, t.container ?? {}, t.metadata ?? {});
      assert.equal(got.length, t.expect.length, got.join('\n'));
      t.expect.forEach((e, i) => (typeof e === 'string' ? assert.equal(got[i], e) : assert.match(got[i]!, e)));
    });
  }
});

describe('hostNetwork defaults hostPort to containerPort (defaultHostNetworkPorts)', () => {
  it('an unset hostPort becomes the containerPort', () => {
    const r = run({ hostNetwork: true }, { ports: [{ containerPort: 8080 }, { containerPort: 9090, hostPort: 9090 }] });
    assert.deepEqual(r.problems, []);
    const ports = r.pods[0]!.pod.spec.containers[0]!.ports!;
    assert.deepEqual(
      ports.map((p) => p.hostPort),
      [8080, 9090],
    );
  });
  it('without hostNetwork nothing is defaulted', () => {
    const r = run({}, { ports: [{ containerPort: 8080 }] });
    assert.equal(r.pods[0]!.pod.spec.containers[0]!.ports![0]!.hostPort, undefined);
  });
});

describe('scheduling-only fields are accepted with one warning each', () => {
  it('nodeSelector, affinity, tolerations, priorityClassName, schedulerName, topologySpreadConstraints, nodeName', () => {
    const r = run({
      nodeSelector: { disk: 'ssd' },
      affinity: { nodeAffinity: {} },
      tolerations: [{ key: 'k', operator: 'Exists' }],
      priorityClassName: 'high',
      schedulerName: 'custom',
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway' }],
      nodeName: 'node-1',
    });
    assert.deepEqual(r.problems, []);
    assert.deepEqual(
      r.warnings.map((w) => `${w.path}: ${w.message}`).sort(),
      ['affinity', 'nodeName', 'nodeSelector', 'priorityClassName', 'schedulerName', 'tolerations', 'topologySpreadConstraints'].map(
        (f) => `spec.${f}: ignored, scheduling has no meaning on one host`,
      ),
    );
  });
});
