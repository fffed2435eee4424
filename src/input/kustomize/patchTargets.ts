// Which objects a patch's (or a replacement's) target selects, as kustomize v5 selects them (resmap Select and
// types.SelectorRegex): group, version, kind, name and namespace are regular expressions anchored at both ends
// (`name: web-.*`), an empty one matches all; name and namespace match the object's current id or its original
// one (the id before any namePrefix, namespace or patch changed it); a namespace compares as kustomize's
// effective namespace (`default` for none written, none at all for cluster-scoped kinds); labelSelector and
// annotationSelector use the Kubernetes label selector syntax, equality- and set-based and > <, read by the shared
// parser (src/kube/selector.ts, as apimachinery labels.Parse).

import type { JsonObject, JsonValue, ResId, Resource } from './resource.js';
import { isClusterScoped } from './smpSchema.js';
import { isObject } from './gvk.js';
import { parseLabelSelector, type Selector, selectorMatches } from '../../kube/selector.js';

export interface PatchTarget {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  labelSelector?: string;
  annotationSelector?: string;
}

/** A target that cannot be used (a bad regular expression or selector). */
export class TargetError extends Error {
  override name = 'TargetError';
}

function str(v: JsonValue | undefined): string {
  return typeof v === 'string' ? v : '';
}

/** The current id of an object: its apiVersion split into group and version, kind, name, namespace. */
export function idOf(object: JsonObject): ResId {
  const apiVersion = str(object.apiVersion);
  const slash = apiVersion.lastIndexOf('/');
  const meta = isObject(object.metadata) ? object.metadata : {};
  const namespace = str(meta.namespace);
  return {
    group: slash < 0 ? '' : apiVersion.slice(0, slash),
    version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1),
    kind: str(object.kind),
    name: str(meta.name),
    ...(namespace ? { namespace } : {}),
  };
}

/** kustomize ResId.EffectiveNamespace. */
export function effectiveNamespace(id: ResId): string {
  if (isClusterScoped(id.group, id.kind)) return '_non_namespaceable_';
  if (!id.namespace || id.namespace === 'default') return 'default';
  return id.namespace;
}

/** kustomize ResId.Equals: same group, version, kind and name, in the same effective namespace. */
export function sameId(a: ResId, b: ResId): boolean {
  return a.group === b.group && a.version === b.version && a.kind === b.kind && a.name === b.name && effectiveNamespace(a) === effectiveNamespace(b);
}

export function formatId(id: ResId): string {
  const gvk = [id.group, id.version, id.kind].filter((p) => p !== '').join('/');
  return `${gvk} ${id.namespace ? `${id.namespace}/` : ''}${id.name}`;
}

function anchored(field: string, pattern: string | undefined): RegExp | undefined {
  if (!pattern) return undefined;
  try {
    return new RegExp(`^(?:${pattern})$`);
  } catch (e) {
    throw new TargetError(`target ${field} ${JSON.stringify(pattern)} is not a regular expression: ${(e as Error).message}`);
  }
}

/**
 * A labelSelector or annotationSelector of a target, read as kustomize reads it (apimachinery's labels.Parse, the
 * shared parser of src/kube/selector.ts); a bad one is a TargetError naming the field.
 */
export function parseSelector(text: string, field = 'labelSelector'): Selector {
  return parseLabelSelector(text, (problem) => new TargetError(`${field} ${JSON.stringify(text)}: ${problem}`));
}

function stringMap(v: JsonValue | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (isObject(v)) for (const [k, x] of Object.entries(v)) out[k] = typeof x === 'string' ? x : JSON.stringify(x);
  return out;
}

/** A compiled target: call matches(resource) for each object. */
export function compileTarget(target: PatchTarget): (resource: Resource) => boolean {
  const group = anchored('group', target.group);
  const version = anchored('version', target.version);
  const kind = anchored('kind', target.kind);
  const name = anchored('name', target.name);
  const namespace = anchored('namespace', target.namespace);
  const labels = parseSelector(target.labelSelector ?? '', 'labelSelector');
  const annotations = parseSelector(target.annotationSelector ?? '', 'annotationSelector');
  return (resource) => {
    const cur = idOf(resource.object);
    const org = resource.previousIds[0] ?? cur;
    if (namespace && !namespace.test(effectiveNamespace(org)) && !namespace.test(effectiveNamespace(cur))) return false;
    if (name && !name.test(org.name) && !name.test(cur.name)) return false;
    if (group && !group.test(cur.group)) return false;
    if (version && !version.test(cur.version)) return false;
    if (kind && !kind.test(cur.kind)) return false;
    const meta = isObject(resource.object.metadata) ? resource.object.metadata : {};
    if (!selectorMatches(labels, stringMap(meta.labels))) return false;
    return selectorMatches(annotations, stringMap(meta.annotations));
  };
}

/** The objects a target selects, in their order. */
export function selectTargets(resources: Resource[], target: PatchTarget): Resource[] {
  const matches = compileTarget(target);
  return resources.filter(matches);
}
