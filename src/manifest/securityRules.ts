// The API server's rules for security contexts, host namespaces, hostname, hostAliases and DNS
// (pkg/apis/core/validation: ValidatePodSecurityContext, ValidateSecurityContext, validateHostNetwork, validateSysctls,
// validatePodDNSConfig, ValidateHostAliases …) that the OpenAPI schema does not express, plus runpod's own limits on
// one host (each says why). Pure: values in, problems out.

import { annotationProfile, appArmorAnnotationPrefix } from '../kube/apparmor.js';
import { clusterDomain } from '../kube/serviceNames.js';
import type { PathSegment } from '../kube/path.js';
import { dns1123Label, dns1123Subdomain, ipAddress } from '../kube/syntax.js';
import { dottedSysctl, isIpcSysctl, isNamespacedSysctl } from '../kube/sysctl.js';
import type { Obj } from '../kube/object.js';
import type { ProblemSink } from './problems.js';

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}
function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** IsValidUserID / IsValidGroupID: 0 to 2147483647 (math.MaxInt32). */
function idRange(v: unknown): string | undefined {
  if (typeof v !== 'number') return undefined;
  return Number.isInteger(v) && v >= 0 && v <= 2147483647 ? undefined : 'must be between 0 and 2147483647, inclusive';
}

/** Linux capabilities (capability(7), as of Linux 5.9), without the CAP_ prefix. */
export const linuxCapabilities = new Set([
  'CHOWN',
  'DAC_OVERRIDE',
  'DAC_READ_SEARCH',
  'FOWNER',
  'FSETID',
  'KILL',
  'SETGID',
  'SETUID',
  'SETPCAP',
  'LINUX_IMMUTABLE',
  'NET_BIND_SERVICE',
  'NET_BROADCAST',
  'NET_ADMIN',
  'NET_RAW',
  'IPC_LOCK',
  'IPC_OWNER',
  'SYS_MODULE',
  'SYS_RAWIO',
  'SYS_CHROOT',
  'SYS_PTRACE',
  'SYS_PACCT',
  'SYS_ADMIN',
  'SYS_BOOT',
  'SYS_NICE',
  'SYS_RESOURCE',
  'SYS_TIME',
  'SYS_TTY_CONFIG',
  'MKNOD',
  'LEASE',
  'AUDIT_WRITE',
  'AUDIT_CONTROL',
  'SETFCAP',
  'MAC_OVERRIDE',
  'MAC_ADMIN',
  'SYSLOG',
  'WAKE_ALARM',
  'BLOCK_SUSPEND',
  'AUDIT_READ',
  'PERFMON',
  'BPF',
  'CHECKPOINT_RESTORE',
]);

/**
 * A capability name as Kubernetes documents it: without the CAP_ prefix, which the CRI runtime adds (so "CAP_X"
 * would become CAP_CAP_X on a node), or "ALL". Case is free: the runtime upper-cases it.
 */
export function capabilityProblem(name: string): string | undefined {
  const upper = name.toUpperCase();
  if (upper === 'ALL' || linuxCapabilities.has(upper)) return undefined;
  if (upper.startsWith('CAP_') && linuxCapabilities.has(upper.slice(4))) {
    return `write the capability without the CAP_ prefix ("${name.slice(4)}"); the runtime adds it`;
  }
  return `unknown capability "${name}" (a Linux capability such as NET_ADMIN or NET_BIND_SERVICE, or ALL)`;
}

/** IsValidSysctlName: dot- or slash-separated segments of [a-z0-9_-], at most 253 characters. */
const sysctlNameRe = /^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$/;

/**
 * seccompProfile at pod or container level (validateSeccompProfileField): a Localhost profile names a file under the
 * seccomp profile root (a relative path, no ".."), which runpod reads on the client (--seccomp-profile-root,
 * manifest/seccompProfiles.ts) when it runs the pod.
 */
function seccompRules(sp: unknown, p: PathSegment[], sink: ProblemSink): void {
  localProfileRules(sp, p, sink, 'seccomp');
}

/** appArmorProfile at pod or container level (validateAppArmorProfileField); the engine host must have AppArmor. */
function appArmorRules(ap: unknown, p: PathSegment[], sink: ProblemSink): void {
  localProfileRules(ap, p, sink, 'AppArmor');
}

/** The rule seccomp and AppArmor profiles share: localhostProfile with type Localhost, and only then. */
function localProfileRules(sp: unknown, p: PathSegment[], sink: ProblemSink, what: 'seccomp' | 'AppArmor'): void {
  if (!isObj(sp)) return;
  const local = sp.localhostProfile;
  if (sp.type === 'Localhost') {
    if (typeof local !== 'string' || local === '') sink.add([...p, 'localhostProfile'], `must be set when ${what} type is Localhost`);
    else if (what === 'seccomp' && (local.startsWith('/') || local.split('/').includes('..'))) sink.add([...p, 'localhostProfile'], "must be a relative path without '..'");
    else if (what === 'AppArmor' && local.trim() !== local) sink.add([...p, 'localhostProfile'], 'must not be padded with whitespace');
  } else if (local !== undefined && local !== null) {
    sink.add([...p, 'localhostProfile'], `can only be set when ${what} type is Localhost`);
  }
}

/**
 * The deprecated AppArmor annotations (container.apparmor.security.beta.kubernetes.io/<container>), as the API
 * server still checks them: a container of the pod, a valid profile (runtime/default, unconfined, localhost/<name>),
 * and the same type as the container's own appArmorProfile when both are set.
 */
function appArmorAnnotationRules(spec: Obj, annotations: unknown, s: PathSegment[], sink: ProblemSink): void {
  if (!isObj(annotations)) return;
  const containers = new Map<string, Obj>();
  for (const field of ['initContainers', 'containers'] as const) {
    for (const c of list(spec[field])) if (isObj(c) && typeof c.name === 'string') containers.set(c.name, c);
  }
  const meta = [...s.slice(0, -1), 'metadata', 'annotations'];
  for (const [key, value] of Object.entries(annotations)) {
    if (!key.startsWith(appArmorAnnotationPrefix) || typeof value !== 'string') continue;
    const name = key.slice(appArmorAnnotationPrefix.length);
    const c = containers.get(name);
    if (c === undefined) {
      sink.add([...meta, key], `container ${name} not found (the annotation names a container of the pod)`);
      continue;
    }
    const profile = annotationProfile(value);
    if (typeof profile === 'string') {
      sink.add([...meta, key], profile);
      continue;
    }
    const own = isObj(c.securityContext) && isObj(c.securityContext.appArmorProfile) ? c.securityContext.appArmorProfile : undefined;
    if (own !== undefined && (own.type !== profile.type || (profile.localhostProfile !== undefined && own.localhostProfile !== profile.localhostProfile))) {
      sink.add([...meta, key], `apparmor type in annotation and field must match (the container's appArmorProfile is ${String(own.type)})`);
    }
  }
}

/** Fields a container's securityContext shares with the pod's, plus the container-only ones (ValidateSecurityContext). */
function containerSecurityRules(sc: unknown, p: PathSegment[], sink: ProblemSink): void {
  if (!isObj(sc)) return;
  for (const f of ['runAsUser', 'runAsGroup']) {
    const problem = idRange(sc[f]);
    if (problem !== undefined) sink.add([...p, f], problem);
  }
  seccompRules(sc.seccompProfile, [...p, 'seccompProfile'], sink);
  appArmorRules(sc.appArmorProfile, [...p, 'appArmorProfile'], sink);
  // ProcMount Unmasked needs a user namespace (hostUsers: false), which runpod does not make.
  if (sc.procMount === 'Unmasked') sink.add([...p, 'procMount'], '`hostUsers` must be false to use `Unmasked`');
  const caps = sc.capabilities;
  const add: unknown[] = isObj(caps) ? list(caps.add) : [];
  if (isObj(caps)) {
    for (const which of ['add', 'drop'] as const) {
      list(caps[which]).forEach((name, i) => {
        if (typeof name !== 'string') return;
        const problem = capabilityProblem(name);
        if (problem !== undefined) sink.add([...p, 'capabilities', which, i], problem);
      });
    }
  }
  if (sc.allowPrivilegeEscalation === false) {
    if (sc.privileged === true) sink.add([...p, 'allowPrivilegeEscalation'], 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true');
    // The API server looks for "CAP_SYS_ADMIN" literally; runpod also catches the documented spelling.
    if (add.some((c) => typeof c === 'string' && ['SYS_ADMIN', 'CAP_SYS_ADMIN'].includes(c.toUpperCase()))) {
      sink.add([...p, 'allowPrivilegeEscalation'], 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN');
    }
  }
}

/** Every rule of this file for one Pod's spec at path `s` ([..., 'spec']); `namespace` when the manifest names one. */
export function securityRules(spec: Obj, s: PathSegment[], sink: ProblemSink, podName: unknown, namespace: unknown, annotations?: unknown): void {
  appArmorAnnotationRules(spec, annotations, s, sink);
  podSecurityContextRules(spec, s, sink);
  for (const field of ['initContainers', 'containers'] as const) {
    list(spec[field]).forEach((c, i) => {
      if (!isObj(c)) return;
      const cp = [...s, field, i];
      containerSecurityRules(c.securityContext, [...cp, 'securityContext'], sink);
      // validateHostNetwork: with hostNetwork a container port is a host port, so a hostPort must equal it.
      if (spec.hostNetwork !== true) return;
      list(c.ports).forEach((port, j) => {
        if (!isObj(port) || typeof port.hostPort !== 'number' || port.hostPort === 0) return;
        if (port.hostPort !== port.containerPort) sink.add([...cp, 'ports', j, 'hostPort'], 'must match `containerPort` when `hostNetwork` is true');
      });
    });
  }
  // ValidatePodSpec: shareProcessNamespace and hostPID exclude each other.
  if (spec.shareProcessNamespace === true && spec.hostPID === true) {
    sink.add([...s, 'shareProcessNamespace'], 'ShareProcessNamespace and HostPID cannot both be enabled');
  }
  subdomainRules(spec, s, sink, podName, namespace);
  hostAliasRules(spec, s, sink);
  dnsRules(spec, s, sink);
}

/** ValidatePodSecurityContext. */
function podSecurityContextRules(spec: Obj, s: PathSegment[], sink: ProblemSink): void {
  const psc = spec.securityContext;
  const ps = [...s, 'securityContext'];
  if (!isObj(psc)) return;
  for (const f of ['runAsUser', 'runAsGroup', 'fsGroup']) {
    const problem = idRange(psc[f]);
    if (problem !== undefined) sink.add([...ps, f], problem);
  }
  list(psc.supplementalGroups).forEach((g, i) => {
    const problem = idRange(g);
    if (problem !== undefined) sink.add([...ps, 'supplementalGroups', i], problem);
  });
  // Strict would drop the groups the image's /etc/group gives the user; Docker always adds them.
  if (psc.supplementalGroupsPolicy === 'Strict') {
    sink.add([...ps, 'supplementalGroupsPolicy'], "Strict is not supported by runpod (the engine always adds the groups the image's /etc/group gives the user); use Merge");
  }
  seccompRules(psc.seccompProfile, [...ps, 'seccompProfile'], sink);
  appArmorRules(psc.appArmorProfile, [...ps, 'appArmorProfile'], sink);
  sysctlRules(psc.sysctls, [...ps, 'sysctls'], sink, spec.hostNetwork === true, spec.hostIPC === true);
}

/**
 * validateSysctls: valid, unique names; and (validateSysctls with hostNet/hostIPC) no namespaced sysctl of a
 * namespace the pod shares with the host. runpod sets only namespaced sysctls: a node-wide one would change the
 * host for every container, and the kubelet refuses those too (only namespaced sysctls may be set per pod).
 */
function sysctlRules(sysctls: unknown, p: PathSegment[], sink: ProblemSink, hostNetwork: boolean, hostIPC: boolean): void {
  const seen = new Map<string, number>();
  list(sysctls).forEach((sc, i) => {
    if (!isObj(sc) || typeof sc.name !== 'string') return;
    const at = [...p, i, 'name'];
    const name = sc.name;
    if (name.length > 253 || !sysctlNameRe.test(name)) {
      sink.add(at, `"${name}" is not a valid sysctl name: lower-case segments separated by "." or "/", such as net.ipv4.ip_local_port_range`);
      return;
    }
    const dotted = dottedSysctl(name);
    const first = seen.get(dotted);
    if (first !== undefined) {
      sink.add(at, `duplicate sysctl "${name}" (also spec.securityContext.sysctls[${first}])`);
      return;
    }
    seen.set(dotted, i);
    if (!isNamespacedSysctl(dotted)) {
      sink.add(at, `"${name}" is not a namespaced sysctl; a pod may set only net.*, kernel.shm*, kernel.msg*, kernel.sem and fs.mqueue.*`);
    } else if (hostNetwork && !isIpcSysctl(dotted)) {
      sink.add(at, `sysctl "${name}" not allowed with hostNetwork enabled (it would change the host's network namespace)`);
    } else if (hostIPC && isIpcSysctl(dotted)) {
      sink.add(at, `sysctl "${name}" not allowed with hostIPC enabled (it would change the host's IPC namespace)`);
    }
  });
}

/**
 * subdomain is a DNS-1123 label (ValidatePodSpec); with setHostnameAsFQDN the kubelet refuses an FQDN longer than
 * 64 characters, the kernel's hostname limit (checked here when the manifest names its namespace).
 */
function subdomainRules(spec: Obj, s: PathSegment[], sink: ProblemSink, podName: unknown, namespace: unknown): void {
  if (typeof spec.subdomain !== 'string' || spec.subdomain === '') return;
  const problem = dns1123Label(spec.subdomain);
  if (problem !== undefined) sink.add([...s, 'subdomain'], problem);
  else if (spec.setHostnameAsFQDN === true && spec.hostNetwork !== true && typeof namespace === 'string' && namespace !== '') {
    const host = typeof spec.hostname === 'string' && spec.hostname !== '' ? spec.hostname : typeof podName === 'string' ? podName : '';
    const fqdn = `${host}.${spec.subdomain}.${namespace}.svc.${clusterDomain}`;
    if (fqdn.length > 64) {
      sink.add([...s, 'setHostnameAsFQDN'], `the FQDN ${fqdn} is too long (64 characters is the max, ${fqdn.length} characters requested)`);
    }
  }
}

/** ValidateHostAliases: an IP and DNS-1123 subdomain hostnames. */
function hostAliasRules(spec: Obj, s: PathSegment[], sink: ProblemSink): void {
  list(spec.hostAliases).forEach((a, i) => {
    if (!isObj(a)) return;
    const ap = [...s, 'hostAliases', i];
    if (typeof a.ip === 'string') {
      const problem = ipAddress(a.ip);
      if (problem !== undefined) sink.add([...ap, 'ip'], problem);
    }
    list(a.hostnames).forEach((h, j) => {
      if (typeof h !== 'string') return;
      const problem = dns1123Subdomain(h);
      if (problem !== undefined) sink.add([...ap, 'hostnames', j], problem);
    });
  });
  // With hostNetwork the engine writes its own /etc/hosts when there are extra entries, dropping the host's; the
  // kubelet keeps the node's entries and appends the aliases. runpod cannot read the engine host's file, so it refuses.
  if (spec.hostNetwork === true && list(spec.hostAliases).length > 0) {
    sink.add([...s, 'hostAliases'], "not supported by runpod with hostNetwork (the engine would replace the host's /etc/hosts entries, which Kubernetes keeps)");
  }
}

/** validatePodDNSConfig (MaxDNSNameservers 3, MaxDNSSearchPaths 32, MaxDNSSearchListChars 2048). */
function dnsRules(spec: Obj, s: PathSegment[], sink: ProblemSink): void {
  const policy = spec.dnsPolicy;
  const cfg = spec.dnsConfig;
  const dp = [...s, 'dnsConfig'];
  const nameservers = isObj(cfg) ? list(cfg.nameservers) : [];
  if (policy === 'None' && nameservers.length === 0) {
    sink.add(isObj(cfg) ? [...dp, 'nameservers'] : dp, 'must provide at least one DNS nameserver when `dnsPolicy` is None');
  }
  if (!isObj(cfg)) return;
  // The kubelet appends dnsConfig to what the policy gives (GetPodDNS, appendDNSConfig): runpod does the same for
  // searches and options under every policy (plan/dns.ts). Under the cluster policies on the pod network the
  // nameserver is the engine's embedded DNS, which Docker writes as the only one (a nameserver given to the engine
  // becomes where that DNS forwards other names, not a second resolver after it): so runpod refuses nameservers there.
  // On the host's network both cluster policies give the node's file (plan/dns.ts runpodDnsType), which merges them.
  const clusterType = (policy === undefined || policy === 'ClusterFirst' || policy === 'ClusterFirstWithHostNet') && spec.hostNetwork !== true;
  if (clusterType && nameservers.length > 0) {
    sink.add(
      [...dp, 'nameservers'],
      "not supported by runpod with dnsPolicy ClusterFirst on the pod network (the engine's DNS is the pod's only nameserver and sends the names it does not know to the host's resolvers); searches and options are merged; use dnsPolicy None with the whole resolver list",
    );
    return;
  }
  if (nameservers.length > 3) sink.add([...dp, 'nameservers'], `must not have more than 3 nameservers, got ${nameservers.length}`);
  nameservers.forEach((n, i) => {
    if (typeof n !== 'string') return;
    const problem = ipAddress(n);
    if (problem !== undefined) sink.add([...dp, 'nameservers', i], problem);
  });
  const searches = list(cfg.searches);
  if (searches.length > 32) sink.add([...dp, 'searches'], `must not have more than 32 search paths, got ${searches.length}`);
  let chars = 0;
  searches.forEach((d, i) => {
    if (typeof d !== 'string') return;
    chars += d.length;
    // A search path may end with a dot (a fully qualified domain).
    const problem = dns1123Subdomain(d.endsWith('.') ? d.slice(0, -1) : d);
    if (problem !== undefined) sink.add([...dp, 'searches', i], problem);
  });
  const listChars = chars + Math.max(0, searches.length - 1);
  if (listChars > 2048) sink.add([...dp, 'searches'], `must not have more than 2048 characters (including spaces) in the search list, got ${listChars}`);
  list(cfg.options).forEach((o, i) => {
    if (isObj(o) && (typeof o.name !== 'string' || o.name === '')) sink.add([...dp, 'options', i, 'name'], 'required');
  });
}
