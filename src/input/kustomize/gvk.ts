// Group, version and kind of an object, and the selectors kustomize's field specs and targets use (resid.Gvk and
// its IsSelected: an empty field of the selector matches anything). Pure.

import type { JsonObject, ResId } from './resource.js';

export interface Gvk {
  group: string;
  version: string;
  kind: string;
}

export interface GvkSelector {
  group?: string;
  version?: string;
  kind?: string;
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** apiVersion "apps/v1" is group apps, version v1; "v1" is the core group (''). */
export function gvkOf(obj: JsonObject): Gvk {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? { group: '', version: apiVersion, kind } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind };
}

export function selects(selector: GvkSelector, gvk: Gvk): boolean {
  if (selector.group !== undefined && selector.group !== '' && selector.group !== gvk.group) return false;
  if (selector.version !== undefined && selector.version !== '' && selector.version !== gvk.version) return false;
  if (selector.kind !== undefined && selector.kind !== '' && selector.kind !== gvk.kind) return false;
  return true;
}

export function metadataOf(obj: JsonObject): JsonObject {
  if (!isObject(obj.metadata)) obj.metadata = {};
  return obj.metadata as JsonObject;
}

export function nameOf(obj: JsonObject): string {
  const m = obj.metadata;
  return isObject(m) && typeof m.name === 'string' ? m.name : '';
}

/** The namespace written, or undefined when none is. */
export function namespaceOf(obj: JsonObject): string | undefined {
  const m = obj.metadata;
  return isObject(m) && typeof m.namespace === 'string' && m.namespace !== '' ? m.namespace : undefined;
}

export function idOf(obj: JsonObject): ResId {
  const g = gvkOf(obj);
  const ns = namespaceOf(obj);
  return { group: g.group, version: g.version, kind: g.kind, name: nameOf(obj), ...(ns !== undefined ? { namespace: ns } : {}) };
}

/**
 * Kinds the API server keeps outside any namespace (kyaml's precomputed openapi facts for the built-in types): a
 * namespace is never set on them and they may be referred to from any namespace. A kind not listed (a custom
 * resource) is namespaced, as kustomize assumes without a schema.
 */
const clusterScoped = new Set([
  'APIService',
  'CertificateSigningRequest',
  'ClusterRole',
  'ClusterRoleBinding',
  'ComponentStatus',
  'CSIDriver',
  'CSINode',
  'CustomResourceDefinition',
  'FlowSchema',
  'IngressClass',
  'MutatingWebhookConfiguration',
  'Namespace',
  'Node',
  'PersistentVolume',
  'PodSecurityPolicy',
  'PriorityClass',
  'PriorityLevelConfiguration',
  'RuntimeClass',
  'SelfSubjectAccessReview',
  'SelfSubjectRulesReview',
  'SubjectAccessReview',
  'StorageClass',
  'TokenReview',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'ValidatingWebhookConfiguration',
  'VolumeAttachment',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
  'StorageVersionMigration',
  'VolumeAttributesClass',
  'DeviceClass',
  'ClusterTrustBundle',
  'IPAddress',
  'ServiceCIDR',
]);

export function isClusterScopedKind(kind: string): boolean {
  return clusterScoped.has(kind);
}

/** kustomize compares namespaces as effective ones: none written is "default" (resid.IsNsEquals). */
export function sameNamespace(a: ResId, b: ResId): boolean {
  return (a.namespace ?? 'default') === (b.namespace ?? 'default');
}

export function sameId(a: ResId, b: ResId): boolean {
  return a.group === b.group && a.version === b.version && a.kind === b.kind && a.name === b.name && sameNamespace(a, b);
}

/** sameId as a key: equal keys exactly when sameId holds (the namespace compared as an effective one). */
export function idKey(id: ResId): string {
  return JSON.stringify([id.group, id.version, id.kind, id.name, id.namespace ?? 'default']);
}

export function formatId(id: ResId): string {
  const gv = id.group === '' ? id.version : `${id.group}/${id.version}`;
  return `${id.kind} ${id.namespace !== undefined ? `${id.namespace}/` : ''}${id.name} (${gv})`;
}
