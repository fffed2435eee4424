// A pod's resolver settings as the kubelet forms them (pkg/kubelet/network/dns/dns.go, GetPodDNS), pure: the node's
// resolv.conf is passed in as text (agent/nodeResolvConf.ts reads it), the result is the file's text.
import type { PodSpec } from 'kubernetes-types/core/v1.js';
import { clusterFirstDns } from '../kube/serviceNames.js';

/** The three things a resolv.conf says (the CRI's DNSConfig). */
export interface ResolverConfig {
  nameservers: string[];
  searches: string[];
  options: string[];
}

/** The node's resolv.conf: the file runpod took it from (for messages) and its text. */
export interface NodeResolvConf {
  path: string;
  text: string;
}

/** The file a kubelet reads by default (--resolv-conf), and the upstream list systemd-resolved keeps beside its stub. */
export const etcResolvConf = '/etc/resolv.conf';
export const systemdResolvConf = '/run/systemd/resolve/resolv.conf';

/** validation.MaxDNSNameservers, MaxDNSSearchPathsExpanded and MaxDNSSearchListCharsExpanded (ExpandedDNSConfig is GA). */
const maxNameservers = 3;
const maxSearchPaths = 32;
const maxSearchListChars = 2048;
/** A search path longer than a DNS-1123 subdomain is dropped (glibc aborts on one over 255 characters). */
const maxSearchPathLength = 253;

/**
 * parseResolvConf: `nameserver` lines accumulate, the last `search` line wins (each domain without a trailing dot),
 * the last `options` line wins; lines starting with # are comments, anything else (`domain`, `sortlist`) is ignored.
 */
export function parseResolvConf(text: string): ResolverConfig {
  const cfg: ResolverConfig = { nameservers: [], searches: [], options: [] };
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed.startsWith('#')) continue;
    const [key, ...rest] = trimmed.split(/\s+/);
    if (key === 'nameserver' && rest[0] !== undefined) cfg.nameservers.push(rest[0]);
    else if (key === 'search') cfg.searches = rest.map((s) => (s.endsWith('.') ? s.slice(0, -1) : s));
    else if (key === 'options') cfg.options = rest;
  }
  return cfg;
}

/** 127.0.0.0/8 or ::1: an address that, seen from a pod's own network namespace, is the pod itself. */
export function isLoopback(address: string): boolean {
  return /^127\./.test(address) || address === '::1' || /^0*:(0*:)*0*1$/.test(address.replace(/%.*$/, ''));
}

/**
 * Which file is the node's resolv.conf. A kubelet reads --resolv-conf, /etc/resolv.conf by default; on a host where
 * that file names only loopback resolvers (systemd-resolved's stub 127.0.0.53), a pod on its own network cannot reach
 * them, so kubeadm points the kubelet at /run/systemd/resolve/resolv.conf, the upstream list resolved keeps (and
 * Docker's resolvconf.Path() makes the same choice for the engine's own containers). runpod does the same when that
 * file names a resolver that is not loopback; otherwise /etc/resolv.conf as it is, as a kubelet with the default
 * --resolv-conf would. undefined when /etc/resolv.conf could not be read.
 */
export function chooseNodeResolvConf(etc: string | undefined, systemd: string | undefined): NodeResolvConf | undefined {
  if (etc === undefined) return undefined;
  const servers = parseResolvConf(etc).nameservers;
  const onlyLoopback = servers.length > 0 && servers.every(isLoopback);
  if (onlyLoopback && systemd !== undefined && parseResolvConf(systemd).nameservers.some((n) => !isLoopback(n))) return { path: systemdResolvConf, text: systemd };
  return { path: etcResolvConf, text: etc };
}

/**
 * getPodDNSType: None is the dnsConfig alone; ClusterFirstWithHostNet is the cluster's DNS; ClusterFirst is too,
 * except for a hostNetwork pod, which falls back to Default ("host": the node's resolv.conf).
 */
export function podDnsType(spec: Pick<PodSpec, 'dnsPolicy' | 'hostNetwork'>): 'cluster' | 'host' | 'none' {
  switch (spec.dnsPolicy ?? 'ClusterFirst') {
    case 'None':
      return 'none';
    case 'Default':
      return 'host';
    case 'ClusterFirst':
      return spec.hostNetwork === true ? 'host' : 'cluster';
    default:
      return 'cluster';
  }
}

/** The dnsConfig says something to merge (validation requires nameservers with None; the others may be empty). */
export function hasDnsConfig(spec: Pick<PodSpec, 'dnsConfig'>): boolean {
  const c = spec.dnsConfig;
  return c !== undefined && ((c.nameservers ?? []).length > 0 || (c.searches ?? []).length > 0 || (c.options ?? []).length > 0);
}

/**
 * The pod's resolver for the "host" and "none" types (GetPodDNS): the node's settings (none for None), then
 * appendDNSConfig: nameservers and searches appended without duplicates, options merged by name (a dnsConfig option
 * replaces the node's of the same name; the kubelet's order is a Go map's, runpod keeps the node's order and appends
 * new ones); then formDNSConfigFitsLimits: the first 3 nameservers, the first 32 searches, none longer than 253
 * characters, and the last ones dropped until the search line has at most 2048 characters.
 */
export function podResolver(base: ResolverConfig, dnsConfig: PodSpec['dnsConfig']): ResolverConfig {
  const cfg = dnsConfig ?? {};
  const nameservers = unique([...base.nameservers, ...(cfg.nameservers ?? [])]);
  const searches = unique([...base.searches, ...(cfg.searches ?? [])]);
  const options = mergeOptions(base.options, cfg.options ?? []);
  return { nameservers: nameservers.slice(0, maxNameservers), searches: fitSearches(searches), options };
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}

function mergeOptions(existing: readonly string[], added: NonNullable<NonNullable<PodSpec['dnsConfig']>['options']>): string[] {
  const byName = new Map<string, string>();
  const split = (o: string): [string, string] => {
    const i = o.indexOf(':');
    return i === -1 ? [o, ''] : [o.slice(0, i), o.slice(i + 1)];
  };
  for (const o of existing) byName.set(...split(o));
  for (const o of added) if (o.name) byName.set(o.name, o.value ?? '');
  return [...byName].map(([name, value]) => (value !== '' ? `${name}:${value}` : name));
}

function fitSearches(all: string[]): string[] {
  const searches = all.slice(0, maxSearchPaths).filter((s) => s.length <= maxSearchPathLength);
  while (searches.length > 0 && searches.join(' ').length > maxSearchListChars) searches.pop();
  return searches;
}

/**
 * ClusterFirst on the pod network (GetPodDNS, podDNSCluster): the cluster's DNS is the nameserver (here the engine's,
 * which Docker writes into the file itself); generateSearchesForDNSClusterFirst puts the namespace's, svc's and the
 * cluster domain before the node's searches; the node's options give way to defaultDNSOptions (ndots:5); then the
 * dnsConfig is appended and the limits applied as for the other types (podResolver). The node's file is undefined
 * when runpod cannot read it (an engine on another machine): the cluster's searches alone then.
 */
export function clusterResolver(namespace: string, node: ResolverConfig | undefined, dnsConfig: PodSpec['dnsConfig']): Omit<ResolverConfig, 'nameservers'> {
  const cluster = clusterFirstDns(namespace);
  const base = { nameservers: [], searches: [...cluster.search, ...(node?.searches ?? [])], options: cluster.options };
  const { searches, options } = podResolver(base, dnsConfig);
  return { searches, options };
}

/** The file: one nameserver line each, one search line, one options line (the order Docker and dockershim write). */
export function renderResolvConf(cfg: ResolverConfig): string {
  const lines = cfg.nameservers.map((n) => `nameserver ${n}`);
  if (cfg.searches.length > 0) lines.push(`search ${cfg.searches.join(' ')}`);
  if (cfg.options.length > 0) lines.push(`options ${cfg.options.join(' ')}`);
  return `${lines.join('\n')}\n`;
}

/**
 * What runpod gives the pod: the kubelet's type, except that ClusterFirstWithHostNet on the host's network is "host"
 * (the engine serves no DNS on the host's network, so the cluster's cannot be reached there; the kubelet's differs).
 */
export function runpodDnsType(spec: Pick<PodSpec, 'dnsPolicy' | 'hostNetwork'>): 'cluster' | 'host' | 'none' {
  const kubelet = podDnsType(spec);
  return kubelet === 'cluster' && spec.hostNetwork === true ? 'host' : kubelet;
}

/** The pod's resolv.conf is the node's: runpod reads the node's file when the engine is on this machine. */
export function usesNodeResolvConf(spec: Pick<PodSpec, 'dnsPolicy' | 'hostNetwork'>): boolean {
  return runpodDnsType(spec) === 'host';
}

/** The pod's resolver draws on the node's file: Default's whole file, or ClusterFirst's search list after the cluster's. */
export function readsNodeResolvConf(spec: Pick<PodSpec, 'dnsPolicy' | 'hostNetwork'>): boolean {
  return runpodDnsType(spec) !== 'none';
}

/**
 * The pod cannot run without the node's file: Default on the pod's own network, or a dnsConfig to merge. A
 * hostNetwork pod without one keeps the engine's copy of the host's /etc/resolv.conf when runpod cannot read the
 * node's file (Docker copies it for a container on the host's network).
 */
export function needsNodeResolvConf(spec: Pick<PodSpec, 'dnsPolicy' | 'hostNetwork' | 'dnsConfig'>): boolean {
  return usesNodeResolvConf(spec) && (spec.hostNetwork !== true || hasDnsConfig(spec));
}
