// The built-in transformers of one kustomization, each as kustomize v5 applies it: namespace, namePrefix and
// nameSuffix, labels and commonLabels, commonAnnotations, images, replicas. Each changes the resources in place
// and records a renamed object's earlier id (previousIds) for the name references fixed at the end. Pure.

import { commonAnnotations, commonLabels, imageSpecs, namespaceSpecs, prefixSkip, replicaSpecs, templateLabels, volumeClaimTemplateLabels } from './builtins.js';
import { type FieldSpec, visitFieldSpec } from './fieldSpec.js';
import { gvkOf, idKey, idOf, isClusterScopedKind, isObject, metadataOf, nameOf, selects } from './gvk.js';
import type { JsonObject, JsonValue, Resource } from './resource.js';

export const prefixesAnnotation = 'internal.config.kubernetes.io/prefixes';
export const suffixesAnnotation = 'internal.config.kubernetes.io/suffixes';

/** Keep the current id as a previous one (Resource.StorePreviousId). */
export function storePreviousId(r: Resource): void {
  r.previousIds.push(idOf(r.object));
}

/** The original id: the first previous one, else the current (Resource.OrgId). */
export function orgId(r: Resource) {
  return r.previousIds[0] ?? idOf(r.object);
}

export function setNamespace(resources: Resource[], namespace: string): string | undefined {
  for (const r of resources) {
    if (Object.keys(r.object).length === 0) continue;
    storePreviousId(r);
    const gvk = gvkOf(r.object);
    if (!isClusterScopedKind(gvk.kind)) metadataOf(r.object).namespace = namespace;
    if (gvk.kind === 'RoleBinding' || gvk.kind === 'ClusterRoleBinding') {
      // Subjects named "default" are the namespace's default ServiceAccount: they follow the namespace.
      const subjects = r.object.subjects;
      if (Array.isArray(subjects)) for (const s of subjects) if (isObject(s) && s.name === 'default') s.namespace = namespace;
    }
    for (const spec of namespaceSpecs) {
      if (spec.path === 'metadata/name' && r.object.apiVersion !== 'v1') continue;
      visitFieldSpec(r.object, gvk, spec, (parent, key) => {
        parent[key] = namespace;
      });
    }
  }
  // Two objects of one id after the move cannot both exist. Counted by id, not compared pairwise (quadratic in the
  // resources); the first object that has a later twin is the one named.
  const keys = resources.map((r) => idKey(idOf(r.object)));
  const count = new Map<string, number>();
  for (const key of keys) count.set(key, (count.get(key) ?? 0) + 1);
  const first = keys.findIndex((key) => count.get(key)! > 1);
  if (first < 0) return undefined;
  return `namespace ${namespace} makes two objects of one id: ${resources[first]!.object.kind} ${nameOf(resources[first]!.object)}`;
}

function appendCsv(r: Resource, key: string, value: string): void {
  if (value === '') return;
  const ann = metadataOf(r.object);
  if (!isObject(ann.annotations)) ann.annotations = {};
  const a = ann.annotations as JsonObject;
  a[key] = typeof a[key] === 'string' && a[key] !== '' ? `${a[key] as string},${value}` : value;
}

export function csvAnnotation(obj: JsonObject, key: string): string[] {
  const m = obj.metadata;
  if (!isObject(m) || !isObject(m.annotations)) return [];
  const v = m.annotations[key];
  return typeof v === 'string' && v !== '' ? v.split(',') : [];
}

/** namePrefix and nameSuffix: metadata.name of every object but a CRD, an APIService and a Namespace. */
export function addPrefixSuffix(resources: Resource[], prefix: string, suffix: string): void {
  for (const r of resources) {
    const org = orgId(r);
    const gvk = { group: org.group, version: org.version, kind: org.kind };
    if (prefixSkip.some((s) => selects(s, gvk))) continue;
    const meta = metadataOf(r.object);
    if (prefix !== '') {
      appendCsv(r, prefixesAnnotation, prefix);
      storePreviousId(r);
      meta.name = `${prefix}${typeof meta.name === 'string' ? meta.name : ''}`;
    }
    if (suffix !== '') {
      appendCsv(r, suffixesAnnotation, suffix);
      storePreviousId(r);
      meta.name = `${typeof meta.name === 'string' ? meta.name : ''}${suffix}`;
    }
  }
}

function setPairs(resources: Resource[], pairs: Record<string, string>, specs: readonly FieldSpec[]): void {
  if (Object.keys(pairs).length === 0) return;
  for (const r of resources) {
    const gvk = gvkOf(r.object);
    for (const spec of specs) {
      visitFieldSpec(r.object, gvk, spec, (parent, key) => {
        let map: JsonValue | undefined = parent[key];
        if (!isObject(map)) {
          if (map !== undefined && map !== null) return;
          map = {};
          parent[key] = map;
        }
        for (const [k, v] of Object.entries(pairs)) (map as JsonObject)[k] = v;
      });
    }
  }
}

export interface LabelEntry {
  pairs: Record<string, string>;
  includeSelectors: boolean;
  includeTemplates: boolean;
  includeVolumeClaimTemplates: boolean;
  fields: FieldSpec[];
}

/** labels: metadata only, unless includeSelectors (everything commonLabels reaches) or includeTemplates. */
export function applyLabels(resources: Resource[], entry: LabelEntry): void {
  let specs: FieldSpec[] = [...entry.fields];
  if (entry.includeSelectors) specs.push(...commonLabels);
  else {
    if (entry.includeTemplates) specs.push(...templateLabels);
    if (entry.includeVolumeClaimTemplates) specs.push(...volumeClaimTemplateLabels);
    specs.push({ path: 'metadata/labels', create: true });
  }
  specs = dedupe(specs);
  setPairs(resources, entry.pairs, specs);
}

/** Two specs of one path and selector are one (kustomize's FsSlice.MergeAll refuses nothing, keeps the first). */
function dedupe(specs: FieldSpec[]): FieldSpec[] {
  const seen = new Set<string>();
  return specs.filter((s) => {
    const key = `${s.group ?? ''}|${s.version ?? ''}|${s.kind ?? ''}|${s.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function applyCommonLabels(resources: Resource[], pairs: Record<string, string>): void {
  setPairs(resources, pairs, commonLabels);
}

export function applyCommonAnnotations(resources: Resource[], pairs: Record<string, string>): void {
  setPairs(resources, pairs, commonAnnotations);
}

export interface ImageEntry {
  name: string;
  newName?: string;
  newTag?: string;
  digest?: string;
  tagSuffix?: string;
}

/** Split an image into name, tag and digest as kustomize does (image.Split): the tag's ":" is after the last "/". */
export function splitImage(image: string): { name: string; tag: string; digest: string } {
  const slash = image.indexOf('/');
  const from = Math.max(slash, 0);
  const search = image.slice(from);
  let at = search.indexOf('@');
  let colon = search.indexOf(':');
  if (colon < 0 && at < 0) return { name: image, tag: '', digest: '' };
  if (at >= 0 && (at < colon || colon < 0)) {
    at += from;
    return { name: image.slice(0, at), tag: '', digest: image.slice(at + 1) };
  }
  if (at >= 0 && colon >= 0) {
    at += from;
    colon += from;
    return { name: image.slice(0, colon), tag: image.slice(colon + 1, at), digest: image.slice(at + 1) };
  }
  colon += from;
  return { name: image.slice(0, colon), tag: image.slice(colon + 1), digest: '' };
}

/** Whether an image is the entry's (image.IsImageMatched: the name, then an optional tag and digest). */
export function imageMatches(image: string, name: string): boolean {
  let re: RegExp;
  try {
    // The name is used as kustomize uses it, as a regular expression.
    re = new RegExp(`^${name}(:[a-zA-Z0-9_.{}-]*)?(@[a-zA-Z0-9]+([.+_-][a-zA-Z0-9]+)*:[a-zA-Z0-9_.{}-]*)?$`);
  } catch {
    return false;
  }
  return re.test(image);
}

export function updateImage(image: string, e: ImageEntry): string {
  if (!imageMatches(image, e.name)) return image;
  let { name, tag, digest } = splitImage(image);
  if (e.newName !== undefined && e.newName !== '') name = e.newName;
  if (e.newTag && e.digest) {
    tag = e.newTag;
    digest = e.digest;
  } else if (e.newTag) {
    tag = e.newTag;
    digest = '';
  } else if (e.digest) {
    tag = '';
    digest = e.digest;
  } else if (e.tagSuffix) {
    tag += e.tagSuffix;
    digest = '';
  }
  return `${name}${tag !== '' ? `:${tag}` : ''}${digest !== '' ? `@${digest}` : ''}`;
}

/** images: every containers[] and initContainers[] list anywhere in an object (but a CRD), then the field specs. */
export function applyImage(resources: Resource[], e: ImageEntry): void {
  const walk = (node: JsonValue): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    if (!isObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      walk(value);
      if ((key === 'containers' || key === 'initContainers') && Array.isArray(value)) {
        for (const c of value) if (isObject(c) && typeof c.image === 'string') c.image = updateImage(c.image, e);
      }
    }
  };
  for (const r of resources) {
    if (r.object.kind === 'CustomResourceDefinition') continue;
    walk(r.object);
    const gvk = gvkOf(r.object);
    for (const spec of imageSpecs) {
      visitFieldSpec(r.object, gvk, spec, (parent, key) => {
        if (typeof parent[key] === 'string') parent[key] = updateImage(parent[key] as string, e);
      });
    }
  }
}

/** replicas: spec.replicas of the workloads of that name (by current name, or an earlier one). */
export function applyReplicas(resources: Resource[], name: string, count: number): number {
  let matched = 0;
  for (const r of resources) {
    const names = [nameOf(r.object), ...r.previousIds.map((p) => p.name)];
    if (!names.includes(name)) continue;
    const gvk = gvkOf(r.object);
    for (const spec of replicaSpecs) {
      visitFieldSpec(r.object, gvk, spec, (parent, key) => {
        parent[key] = count;
        matched++;
      });
    }
  }
  return matched;
}
