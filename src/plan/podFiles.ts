// Files the kubelet gives every container of a pod that are not in its spec, pure: the service account's namespace
// file and, for dnsPolicy None, the pod's own resolv.conf. runpod writes them into the pod's own runpod volume (the
// termination-log volume) and binds them into each instance, outside what the hashes cover, as the kubelet mounts
// them outside the container's spec (so a pod made before is not replaced for the lack of them).
import type { PodSpec } from 'kubernetes-types/core/v1.js';

/** Where the ServiceAccount admission plugin mounts the pod's API credentials; programs read the namespace there. */
export const serviceAccountDir = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface PodFiles {
  /**
   * The namespace file (serviceAccountDir/namespace), as the admission plugin's kube-api-access volume projects it
   * (plugin/pkg/admission/serviceaccount). No token (there is no API server to present one to) and no ca.crt (no API
   * server certificate). Absent with automountServiceAccountToken false, or when a container mounts something there.
   */
  namespace?: string;
  /** dnsPolicy None: exactly the dnsConfig's nameservers, searches and options (the kubelet's resolv.conf). */
  resolvConf?: string;
}

export function podFiles(spec: PodSpec, namespace: string): PodFiles {
  const containers = [...(spec.initContainers ?? []), ...spec.containers];
  const ownMount = containers.some((c) => (c.volumeMounts ?? []).some((m) => m.mountPath.replace(/\/+$/, '') === serviceAccountDir));
  const automount = spec.automountServiceAccountToken !== false && !ownMount;
  return { ...(automount ? { namespace } : {}), ...(spec.dnsPolicy === 'None' ? { resolvConf: resolvConf(spec.dnsConfig ?? {}) } : {}) };
}

/** The kubelet's resolv.conf of a dnsConfig (pkg/kubelet/network/dns: nameserver lines, one search, one options). */
export function resolvConf(cfg: NonNullable<PodSpec['dnsConfig']>): string {
  const lines = (cfg.nameservers ?? []).map((n) => `nameserver ${n}`);
  if ((cfg.searches ?? []).length > 0) lines.push(`search ${cfg.searches!.join(' ')}`);
  const options = (cfg.options ?? []).filter((o) => o.name).map((o) => (o.value !== undefined && o.value !== null ? `${o.name}:${o.value}` : o.name!));
  if (options.length > 0) lines.push(`options ${options.join(' ')}`);
  return `${lines.join('\n')}\n`;
}
