// Files the kubelet gives every container of a pod that are not in its spec, pure: the service account's namespace
// file and, for dnsPolicy None and Default (dns.ts), the pod's own resolv.conf. runpod writes them into the pod's own runpod volume (the
// termination-log volume) and binds them into each instance, outside what the hashes cover, as the kubelet mounts
// them outside the container's spec (so a pod made before is not replaced for the lack of them).
import type { PodSpec } from 'kubernetes-types/core/v1.js';
import { type NodeResolvConf, parseResolvConf, podResolver, renderResolvConf, runpodDnsType } from './dns.js';

/** Where the ServiceAccount admission plugin mounts the pod's API credentials; programs read the namespace there. */
export const serviceAccountDir = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface PodFiles {
  /**
   * The namespace file (serviceAccountDir/namespace), as the admission plugin's kube-api-access volume projects it
   * (plugin/pkg/admission/serviceaccount). No token (there is no API server to present one to) and no ca.crt (no API
   * server certificate). Absent with automountServiceAccountToken false, or when a container mounts something there.
   */
  namespace?: string;
  /**
   * The pod's resolv.conf as the kubelet writes it (dns.ts): dnsPolicy None, exactly the dnsConfig; Default (and
   * ClusterFirst on the host's network, which the kubelet treats as Default), the node's resolv.conf with the dnsConfig
   * merged in. Absent for the cluster policies (the engine's DNS on the namespace's network answers) and for Default
   * when the node's file is not known (engineSupport.ts has refused what needs it then).
   */
  resolvConf?: string;
}

export function podFiles(spec: PodSpec, namespace: string, node?: NodeResolvConf): PodFiles {
  const containers = [...(spec.initContainers ?? []), ...spec.containers];
  const ownMount = containers.some((c) => (c.volumeMounts ?? []).some((m) => m.mountPath.replace(/\/+$/, '') === serviceAccountDir));
  const automount = spec.automountServiceAccountToken !== false && !ownMount;
  const file = podResolvConf(spec, node);
  return { ...(automount ? { namespace } : {}), ...(file !== undefined ? { resolvConf: file } : {}) };
}

/** The pod's own resolv.conf, or undefined where the engine's is the pod's (see PodFiles.resolvConf). */
export function podResolvConf(spec: PodSpec, node: NodeResolvConf | undefined): string | undefined {
  const type = runpodDnsType(spec);
  if (type === 'none') return renderResolvConf(podResolver({ nameservers: [], searches: [], options: [] }, spec.dnsConfig));
  if (type === 'host' && node !== undefined) return renderResolvConf(podResolver(parseResolvConf(node.text), spec.dnsConfig));
  return undefined;
}
