// Security contexts and the pod's namespaces, translated as the kubelet does it (pkg/kubelet/kuberuntime and
// pkg/securitycontext), for a Docker engine. Pure: imported by translate.ts, and by apply.ts for the one check that
// needs the image (runAsNonRoot, and runAsGroup without runAsUser).
import type { Container, PodSecurityContext, PodSpec, SecurityContext } from 'kubernetes-types/core/v1.js';
import type { CreateOptions } from '../engine/ports/containers.js';
import { clusterDomain } from '../kube/serviceNames.js';
import type { EngineFacts } from '../engine/ports/facts.js';
import { appArmorSecurityOpt, effectiveAppArmor } from '../kube/apparmor.js';
import { dottedSysctl } from '../kube/sysctl.js';
import { type ResolverConfig, clusterResolver, runpodDnsType } from './dns.js';

type HostConfig = NonNullable<CreateOptions['HostConfig']>;

/** The fields of a container's effective security context: the container's own, else the pod's. */
export interface EffectiveSecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  seccompProfile?: { type: string; localhostProfile?: string };
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
}

/**
 * DetermineEffectiveSecurityContext (pkg/securitycontext/util.go): runAsUser, runAsGroup, runAsNonRoot and
 * seccompProfile come from the container when it sets them, else from the pod
 * (https://kubernetes.io/docs/tasks/configure-pod-container/security-context/: "settings made at the Container
 * level override settings made at the Pod level"); privileged, capabilities, readOnlyRootFilesystem and
 * allowPrivilegeEscalation exist only on the container. seccompProfile is replaced as a whole, not merged.
 */
export function effectiveSecurityContext(pod: PodSecurityContext | undefined, c: SecurityContext | undefined): EffectiveSecurityContext {
  const out: EffectiveSecurityContext = {};
  const runAsUser = c?.runAsUser ?? pod?.runAsUser;
  const runAsGroup = c?.runAsGroup ?? pod?.runAsGroup;
  const runAsNonRoot = c?.runAsNonRoot ?? pod?.runAsNonRoot;
  const seccomp = c?.seccompProfile ?? pod?.seccompProfile;
  if (runAsUser !== undefined && runAsUser !== null) out.runAsUser = runAsUser;
  if (runAsGroup !== undefined && runAsGroup !== null) out.runAsGroup = runAsGroup;
  if (runAsNonRoot !== undefined && runAsNonRoot !== null) out.runAsNonRoot = runAsNonRoot;
  if (seccomp) out.seccompProfile = { type: seccomp.type, ...(seccomp.localhostProfile ? { localhostProfile: seccomp.localhostProfile } : {}) };
  if (c?.privileged !== undefined && c.privileged !== null) out.privileged = c.privileged;
  if (c?.allowPrivilegeEscalation !== undefined && c.allowPrivilegeEscalation !== null) out.allowPrivilegeEscalation = c.allowPrivilegeEscalation;
  if (c?.readOnlyRootFilesystem !== undefined && c.readOnlyRootFilesystem !== null) out.readOnlyRootFilesystem = c.readOnlyRootFilesystem;
  if (c?.capabilities) {
    const caps: { add?: string[]; drop?: string[] } = {};
    if (c.capabilities.add?.length) caps.add = c.capabilities.add;
    if (c.capabilities.drop?.length) caps.drop = c.capabilities.drop;
    if (caps.add || caps.drop) out.capabilities = caps;
  }
  return out;
}

/**
 * A capability as the engine takes it. Kubernetes names capabilities without the CAP_ prefix (the CRI runtime adds
 * it, upper-cased: containerd's "CAP_" + strings.ToUpper(name)); Docker takes the bare name and the special "ALL".
 */
export function engineCapability(name: string): string {
  return name.toUpperCase();
}

/** What the plan knows beyond the Pod: the engine's facts, the Localhost seccomp profiles read, the annotations. */
export interface SecurityPlanContext {
  facts?: EngineFacts;
  /** By localhostProfile: each profile's JSON. */
  seccompProfiles?: ReadonlyMap<string, string>;
  /** metadata.annotations: the deprecated AppArmor annotation. */
  annotations?: Readonly<Record<string, string>>;
}

/** What a container's create options carry for its security context, and what must wait for the image. */
export interface ContainerSecurity {
  /** Config.User when it is known from the manifest alone: "uid" or "uid:gid". */
  user?: string;
  hostConfig: HostConfig;
  /** Set when the image's user must be looked at before the container is created (see resolveImageUser). */
  imageUserCheck?: ImageUserCheck;
}

/** The part of the effective security context that is decided against the image's configured user. */
export interface ImageUserCheck {
  runAsNonRoot: boolean;
  runAsUser?: number;
  runAsGroup?: number;
}

/**
 * A container's security context as Docker create options, after the kubelet's generateLinuxContainerConfig and
 * the dockershim's modifyContainerConfig/modifyHostConfig:
 * - runAsUser -> User "uid"; with runAsGroup "uid:gid" (runAsGroup alone keeps the image's user: resolveImageUser).
 * - supplementalGroups and fsGroup -> GroupAdd, fsGroup first (pkg/kubelet/kuberuntime/security_context.go adds
 *   the fsGroup, then the supplementalGroups). Docker, like supplementalGroupsPolicy Merge, also keeps the groups
 *   the image's /etc/group gives the user.
 * - privileged -> Privileged; capabilities add/drop -> CapAdd/CapDrop; readOnlyRootFilesystem -> ReadonlyRootfs.
 * - allowPrivilegeEscalation: false -> the no_new_privs bit (securitycontext.AddNoNewPrivileges: only an explicit
 *   false sets it, and never for a privileged container).
 * - seccompProfile: RuntimeDefault -> the engine's default profile; Unconfined -> seccomp=unconfined. A container
 *   that names none gets the runtime default too, as a kubelet configured with seccompDefault: true does
 *   (https://kubernetes.io/docs/tutorials/security/seccomp/#enable-the-use-of-runtimedefault-as-the-default-seccomp-profile-for-all-workloads);
 *   Localhost -> seccomp=<the profile's JSON>, read by runpod from --seccomp-profile-root (manifest/seccompProfiles.ts)
 *   before the plan is made: the Engine API takes a profile's content in SecurityOpt, not a path.
 * - appArmorProfile (or the deprecated annotation) -> apparmor=<profile> (apparmor.ts), where the engine host has
 *   AppArmor; engineSupport.ts refuses a profile on a host without it before the plan is made, and Unconfined on such
 *   a host needs no option (nothing confines the container).
 */
export function containerSecurity(spec: PodSpec, c: Container, context: SecurityPlanContext = {}): ContainerSecurity {
  const podSc = spec.securityContext ?? undefined;
  const sc = effectiveSecurityContext(podSc, c.securityContext ?? undefined);
  const hostConfig: HostConfig = {};
  const out: ContainerSecurity = { hostConfig };

  if (sc.runAsUser !== undefined) out.user = sc.runAsGroup !== undefined ? `${sc.runAsUser}:${sc.runAsGroup}` : String(sc.runAsUser);
  // The image must be read when the kubelet would read it: runAsNonRoot without a runAsUser (verifyRunAsNonRoot),
  // runAsNonRoot with runAsUser 0 (refused at creation, not by validation), and runAsGroup without runAsUser
  // (the kubelet fills runAsUser from the image's user).
  if (sc.runAsNonRoot === true || (sc.runAsGroup !== undefined && sc.runAsUser === undefined)) {
    out.imageUserCheck = {
      runAsNonRoot: sc.runAsNonRoot === true,
      ...(sc.runAsUser !== undefined ? { runAsUser: sc.runAsUser } : {}),
      ...(sc.runAsGroup !== undefined ? { runAsGroup: sc.runAsGroup } : {}),
    };
  }

  const groups: number[] = [];
  if (podSc?.fsGroup !== undefined && podSc.fsGroup !== null) groups.push(podSc.fsGroup);
  for (const g of podSc?.supplementalGroups ?? []) if (!groups.includes(g)) groups.push(g);
  if (groups.length > 0) hostConfig.GroupAdd = groups.map(String);

  if (sc.privileged === true) hostConfig.Privileged = true;
  if (sc.capabilities?.add) hostConfig.CapAdd = sc.capabilities.add.map(engineCapability);
  if (sc.capabilities?.drop) hostConfig.CapDrop = sc.capabilities.drop.map(engineCapability);
  if (sc.readOnlyRootFilesystem === true) hostConfig.ReadonlyRootfs = true;

  const securityOpt: string[] = [];
  if (sc.allowPrivilegeEscalation === false && sc.privileged !== true) securityOpt.push('no-new-privileges:true');
  // A privileged container runs without seccomp whatever the profile (the engine and the kubelet agree).
  if (sc.seccompProfile?.type === 'Unconfined' && sc.privileged !== true) securityOpt.push('seccomp=unconfined');
  if (sc.seccompProfile?.type === 'Localhost' && sc.privileged !== true && sc.seccompProfile.localhostProfile !== undefined) {
    const json = context.seccompProfiles?.get(sc.seccompProfile.localhostProfile);
    if (json !== undefined) securityOpt.push(`seccomp=${json}`);
  }
  // Without facts (a dry run with no engine) the option is planned as an AppArmor host would take it.
  if (context.facts === undefined || context.facts.security.apparmor) {
    const apparmor = appArmorSecurityOpt(effectiveAppArmor(spec, c, context.annotations)?.profile, sc.privileged === true);
    if (apparmor !== undefined) securityOpt.push(apparmor);
  }
  if (securityOpt.length > 0) hostConfig.SecurityOpt = securityOpt;
  return out;
}

/** The image's configured user, split as Docker reads it: "user[:group]", user a name or a uid. */
function parseImageUser(imageUser: string): { uid?: number; name?: string } {
  const user = imageUser.split(':')[0] ?? '';
  if (user === '') return { uid: 0 };
  if (/^\d+$/.test(user)) return { uid: Number(user) };
  // "root" is uid 0 in every passwd file; other names are resolved only inside the image.
  if (user === 'root') return { uid: 0 };
  return { name: user };
}

/**
 * The kubelet's check at container creation (verifyRunAsNonRoot, pkg/kubelet/kuberuntime/security_context_others.go),
 * against the image's Config.User (empty: root), and the User a runAsGroup without a runAsUser needs (the kubelet
 * takes the uid, or user name, from the image). A refusal is the pod's failure (CreateContainerConfigError); it is
 * final, because the image and the manifest will not change while runpod waits.
 */
export function resolveImageUser(check: ImageUserCheck, imageUser: string, container: string): { user?: string } | { error: string } {
  const image = parseImageUser(imageUser);
  if (check.runAsNonRoot) {
    if (check.runAsUser !== undefined) {
      if (check.runAsUser === 0) return { error: `container ${container}'s runAsUser breaks non-root policy (runAsNonRoot is true and runAsUser is 0)` };
    } else if (image.uid === 0) {
      const shown = imageUser === '' ? 'no user, so root' : `user "${imageUser}"`;
      return { error: `container ${container} has runAsNonRoot and image will run as root (the image's configured user: ${shown}); set runAsUser to a non-zero uid` };
    } else if (image.name !== undefined) {
      return {
        error: `container ${container} has runAsNonRoot and image has non-numeric user (${image.name}), cannot verify user is non-root; set runAsUser to a non-zero uid`,
      };
    }
  }
  if (check.runAsUser === undefined && check.runAsGroup !== undefined) {
    return { user: `${image.uid !== undefined ? image.uid : image.name!}:${check.runAsGroup}` };
  }
  return {};
}

/** How the pod's containers share (or not) the host's and each other's namespaces. */
export interface PodNamespaces {
  /** hostNetwork: the infra container (and so every container joined to it) uses the host's network. */
  hostNetwork: boolean;
  /** hostPID: every container sees the host's processes. shareProcessNamespace: one PID namespace, the infra's. */
  pid: 'container' | 'pod' | 'host';
  /** hostIPC: the host's IPC namespace; else the infra container's. */
  ipc: 'pod' | 'host';
}

export function podNamespaces(spec: PodSpec): PodNamespaces {
  return {
    hostNetwork: spec.hostNetwork === true,
    // https://kubernetes.io/docs/tasks/configure-pod-container/share-process-namespace/: with
    // shareProcessNamespace the pause process is PID 1 and every container sees the others' processes.
    // Validation refuses hostPID together with shareProcessNamespace.
    pid: spec.hostPID === true ? 'host' : spec.shareProcessNamespace === true ? 'pod' : 'container',
    ipc: spec.hostIPC === true ? 'host' : 'pod',
  };
}

/**
 * The pod's hostname and domain (GeneratePodHostNameAndDomain, pkg/kubelet/kubelet_pods.go): the hostname is
 * spec.hostname or the pod name; with a subdomain the pod's FQDN is <hostname>.<subdomain>.<namespace>.svc.<cluster
 * domain> (https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/#pod-hostname-and-subdomain-field).
 * setHostnameAsFQDN makes the kernel hostname the FQDN (validation limits it to 64 characters).
 */
export function podHostname(spec: PodSpec, name: string, namespace: string): { hostname: string; domain?: string; fqdn?: string } {
  const hostname = spec.hostname || name;
  if (!spec.subdomain) return { hostname };
  const domain = `${spec.subdomain}.${namespace}.svc.${clusterDomain}`;
  return { hostname, domain, fqdn: `${hostname}.${domain}` };
}

/**
 * What the infra container carries for the pod-level fields: namespaces, hostname and domain, /etc/hosts
 * additions, DNS and sysctls. Every one of these lives on the sandbox in Kubernetes, and a Docker container joined
 * to another's network namespace shares its /etc/hosts, /etc/resolv.conf and hostname (Docker refuses ExtraHosts,
 * DNS options and a hostname on the joined container).
 */
export function infraPodSettings(
  spec: PodSpec,
  name: string,
  namespace: string,
  node?: ResolverConfig,
): { config: Pick<CreateOptions, 'Hostname' | 'Domainname'>; hostConfig: HostConfig } {
  const ns = podNamespaces(spec);
  const hostConfig: HostConfig = {};
  const config: Pick<CreateOptions, 'Hostname' | 'Domainname'> = {};
  if (ns.hostNetwork) {
    // A hostNetwork pod has the node's network and UTS namespaces, so the node's hostname
    // (https://kubernetes.io/docs/concepts/workloads/pods/#pod-networking; the kubelet's sandbox uses host UTS).
    hostConfig.NetworkMode = 'host';
    hostConfig.UTSMode = 'host';
  } else {
    const h = podHostname(spec, name, namespace);
    if (spec.setHostnameAsFQDN === true && h.fqdn !== undefined) {
      config.Hostname = h.fqdn;
    } else {
      config.Hostname = h.hostname;
      // Docker writes "<pod ip> <hostname>.<domain> <hostname>" into /etc/hosts, as the kubelet's managed hosts
      // file does for a pod with a subdomain (so `hostname -f` prints the FQDN).
      if (h.domain !== undefined) config.Domainname = h.domain;
    }
  }
  // Other containers join this IPC namespace, which Docker allows only from a "shareable" one; hostIPC puts the
  // whole pod in the host's.
  hostConfig.IpcMode = ns.ipc === 'host' ? 'host' : 'shareable';
  if (ns.pid === 'host') hostConfig.PidMode = 'host';

  // hostAliases -> extra /etc/hosts lines (https://kubernetes.io/docs/tasks/network/customize-hosts-file-for-pods/).
  const extraHosts: string[] = [];
  for (const a of spec.hostAliases ?? []) for (const h of a.hostnames ?? []) extraHosts.push(`${h}:${a.ip}`);
  if (extraHosts.length > 0) hostConfig.ExtraHosts = extraHosts;

  // dnsPolicy (https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/#pod-s-dns-policy). ClusterFirst
  // (the default; ClusterFirstWithHostNet is the same for a pod on the pod network): the kubelet's search list (the
  // cluster's, then the node's: `node` is its resolv.conf, undefined when unknown) and ndots:5 with the dnsConfig's
  // searches and options merged (dns.ts); the nameserver is the engine's embedded DNS on the namespace's network
  // (kube/serviceNames.ts), which answers pods' and Services' names and forwards the rest to the host's resolvers. A hostNetwork pod is on the
  // host's network, where the engine serves no DNS: the kubelet gives such a pod Default under ClusterFirst, and so
  // does runpod under both (no cluster names then). Default and None: the pod's own resolv.conf (podFiles.ts, dns.ts),
  // bound over /etc/resolv.conf in each container; None's settings are also the infra container's, as before.
  if (runpodDnsType(spec) === 'cluster') {
    const dns = clusterResolver(namespace, node, spec.dnsConfig);
    hostConfig.DnsSearch = dns.searches;
    hostConfig.DnsOptions = dns.options;
  }
  if (spec.dnsPolicy === 'None' && spec.dnsConfig) {
    if (spec.dnsConfig.nameservers?.length) hostConfig.Dns = spec.dnsConfig.nameservers;
    if (spec.dnsConfig.searches?.length) hostConfig.DnsSearch = spec.dnsConfig.searches;
    const options = (spec.dnsConfig.options ?? []).filter((o) => o.name).map((o) => (o.value !== undefined && o.value !== null ? `${o.name}:${o.value}` : o.name!));
    if (options.length > 0) hostConfig.DnsOptions = options;
  }

  // Pod sysctls are set in the pod's namespaces, which the infra container holds
  // (https://kubernetes.io/docs/tasks/administer-cluster/sysctl-cluster/); validation admits namespaced ones only.
  const sysctls: Record<string, string> = {};
  for (const s of spec.securityContext?.sysctls ?? []) sysctls[dottedSysctl(s.name)] = s.value;
  if (Object.keys(sysctls).length > 0) hostConfig.Sysctls = sysctls;
  return { config, hostConfig };
}

/**
 * Namespace modes of an app container: it joins the infra container's network (and with it the hostname,
 * /etc/hosts and /etc/resolv.conf); IPC is the infra's or the host's; PID is its own, the host's, or the infra's
 * (shareProcessNamespace: the pause program is PID 1 and reaps orphans).
 */
export function appNamespaceModes(ns: PodNamespaces, infraId: string): Pick<HostConfig, 'NetworkMode' | 'IpcMode' | 'PidMode'> {
  return {
    NetworkMode: `container:${infraId}`,
    IpcMode: ns.ipc === 'host' ? 'host' : `container:${infraId}`,
    ...(ns.pid === 'host' ? { PidMode: 'host' } : ns.pid === 'pod' ? { PidMode: `container:${infraId}` } : {}),
  };
}
