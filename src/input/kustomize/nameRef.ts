// Name references fixed after every rename (kustomize's nameReferenceTransformer and nameref filter): a field that
// names an object (a pod's ConfigMap, an Ingress's Service, a RoleBinding's subjects …, builtins.ts) and holds
// one of that object's earlier names now holds its current one. Among several candidates kustomize prefers one
// in the referrer's namespace, then one renamed by the same prefixes and suffixes; two that still differ are an
// error. Pure; changes the referrers in place.

import { type NameReference, nameReferences } from './builtins.js';
import { KustomizeError } from './errors.js';
import { visitFieldSpec } from './fieldSpec.js';
import { type GvkSelector, gvkOf, idOf, isClusterScopedKind, isObject, nameOf, namespaceOf, sameNamespace, selects } from './gvk.js';
import type { JsonObject, JsonValue, Resource, ResId } from './resource.js';
import { csvAnnotation, orgId, prefixesAnnotation, suffixesAnnotation } from './transforms.js';

const gvkOfId = (id: ResId) => ({ group: id.group, version: id.version, kind: id.kind });

export function fixNameReferences(resources: Resource[], table: readonly NameReference[] = nameReferences): void {
  // Nothing here renames an object (the table's fields are references, never an object's own metadata), so each
  // object's id, original gvk and the objects it may name are worked out once, not once per field spec. A
  // RoleBinding's are the exception: its subjects' namespaces (which widen what it may name) are fields it fixes.
  const ids = new Map<Resource, ResId>();
  const idOfResource = (r: Resource): ResId => {
    let id = ids.get(r);
    if (id === undefined) ids.set(r, (id = idOf(r.object)));
    return id;
  };
  const originalGvks = new Map(resources.map((r) => [r, gvkOfId(orgId(r))]));
  const reachable = new Map<Resource, Resource[]>();
  const candidatesOf = (referrer: Resource): Resource[] => {
    if (idOfResource(referrer).kind === 'RoleBinding') return couldBeReferencedBy(referrer, resources, idOfResource);
    let c = reachable.get(referrer);
    if (c === undefined) reachable.set(referrer, (c = couldBeReferencedBy(referrer, resources, idOfResource)));
    return c;
  };
  const named = namedBefore(resources);
  for (const ref of table) {
    for (const spec of ref.referrers) {
      for (const referrer of resources) {
        if (!selects(spec, originalGvks.get(referrer)!)) continue;
        const candidates = candidatesOf(referrer);
        const gvk = gvkOf(referrer.object);
        visitFieldSpec(referrer.object, gvk, { ...spec, create: false }, (parent, key) => {
          const value = parent[key];
          const fix = (v: JsonValue, set: (v: string) => void): void => {
            if (typeof v === 'string') {
              const found = select(v, named, candidates, referrer, ref.target, spec.path, (c) => c.every((x) => nameOf(x.object) === nameOf(c[0]!.object)));
              if (found !== undefined && nameOf(found.object) !== v) set(nameOf(found.object));
            } else if (isObject(v)) setMapping(v, named, candidates, referrer, ref.target, spec.path);
          };
          if (Array.isArray(value)) value.forEach((item, i) => fix(item, (s) => (value[i] = s)));
          else if (value !== undefined && value !== null) fix(value, (s) => (parent[key] = s));
        });
      }
    }
  }
}

/** A mapping that names an object by name and namespace (a RoleBinding's subject, a webhook's service). */
function setMapping(node: JsonObject, named: NamedBefore, all: Resource[], referrer: Resource, target: GvkSelector, path: string): void {
  if (typeof node.name !== 'string') return;
  let candidates = all;
  if (typeof node.namespace === 'string') {
    const ns = node.namespace;
    const byOriginal = all.filter((r) => (orgId(r).namespace ?? '') === ns);
    candidates = byOriginal.length > 0 ? byOriginal : all.filter((r) => (namespaceOf(r.object) ?? '') === ns);
  }
  const found = select(node.name, named, candidates, referrer, target, path, (c) =>
    c.every((x) => nameOf(x.object) === nameOf(c[0]!.object) && namespaceOf(x.object) === namespaceOf(c[0]!.object)),
  );
  if (found === undefined) return;
  const ns = namespaceOf(found.object);
  if (nameOf(found.object) === node.name && ns === undefined) return;
  node.name = nameOf(found.object);
  if (ns !== undefined) node.namespace = ns;
}

/** The objects a referrer may name: cluster-scoped ones, those of its namespace, a RoleBinding's subjects' too. */
function couldBeReferencedBy(referrer: Resource, all: Resource[], idOfResource: (r: Resource) => ResId): Resource[] {
  const id = idOfResource(referrer);
  if (isClusterScopedKind(id.kind)) return all;
  const subjectNamespaces = new Set<string>();
  if (id.kind === 'RoleBinding' && Array.isArray(referrer.object.subjects)) {
    for (const s of referrer.object.subjects) if (isObject(s) && s.kind === 'ServiceAccount' && typeof s.namespace === 'string') subjectNamespaces.add(s.namespace);
  }
  return all.filter((r) => {
    const rid = idOfResource(r);
    return isClusterScopedKind(rid.kind) || sameNamespace(rid, id) || subjectNamespaces.has(rid.namespace ?? '');
  });
}

function sameEnding(a: string[], b: string[]): boolean {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  const diff = long.length - short.length;
  if (short.length === 0) return diff === 0;
  return short.every((s, i) => long[i + diff] === s);
}

function affixesEqual(r: Resource, o: Resource, allowEmpty: boolean): boolean {
  const rp = csvAnnotation(r.object, prefixesAnnotation);
  const op = csvAnnotation(o.object, prefixesAnnotation);
  const rs = csvAnnotation(r.object, suffixesAnnotation);
  const os = csvAnnotation(o.object, suffixesAnnotation);
  if (allowEmpty) return (rp.length === 0 || op.length === 0 || sameEnding(rp, op)) && (rs.length === 0 || os.length === 0 || sameEnding(rs, os));
  return sameEnding(rp, op) && sameEnding(rs, os);
}

/**
 * For one fixNameReferences (nothing renames an object meanwhile): the objects that had each name among their
 * earlier ids, in the objects' order and each once; and each candidate list as a set, made once per list.
 */
interface NamedBefore {
  byName: Map<string, Resource[]>;
  sets: WeakMap<Resource[], Set<Resource>>;
}

function namedBefore(resources: readonly Resource[]): NamedBefore {
  const byName = new Map<string, Resource[]>();
  for (const r of resources) {
    for (const name of new Set(r.previousIds.map((p) => p.name))) {
      const list = byName.get(name);
      if (list === undefined) byName.set(name, [r]);
      else list.push(r);
    }
  }
  return { byName, sets: new WeakMap() };
}

function asSet(named: NamedBefore, list: Resource[]): Set<Resource> {
  let set = named.sets.get(list);
  if (set === undefined) named.sets.set(list, (set = new Set(list)));
  return set;
}

function select(
  oldName: string,
  named: NamedBefore,
  candidates: Resource[],
  referrer: Resource,
  target: GvkSelector,
  path: string,
  identical: (c: Resource[]) => boolean,
): Resource | undefined {
  // The candidates that had this name: looked up by the name, not searched for in every candidate's earlier ids
  // (this runs for every reference of every object). Both lists keep the objects' order, so the result does too.
  const allowed = asSet(named, candidates);
  let c = (named.byName.get(oldName) ?? []).filter((r) => allowed.has(r));
  c = c.filter((r) => r.previousIds.some((p) => selects(target, gvkOfId(p))));
  if (path.endsWith('roleRef/name')) {
    const roleRef = referrer.object.roleRef;
    if (isObject(roleRef) && typeof roleRef.apiGroup === 'string' && typeof roleRef.kind === 'string') {
      const sel = { group: roleRef.apiGroup, kind: roleRef.kind };
      c = c.filter((r) => r.previousIds.some((p) => selects(sel, gvkOfId(p))));
    }
  }
  const rid = idOf(referrer.object);
  if (!isClusterScopedKind(rid.kind)) c = c.filter((r) => isClusterScopedKind(String(r.object.kind)) || r.object.kind === 'ServiceAccount' || sameNamespace(idOf(r.object), rid));
  if (c.length === 1) return c[0];
  c = c.filter((r) => affixesEqual(r, referrer, true));
  if (c.length > 1) c = c.filter((r) => affixesEqual(r, referrer, false));
  if (c.length === 1) return c[0];
  if (c.length === 0) return undefined;
  if (identical(c)) return c[0];
  throw new KustomizeError(
    referrer.origin,
    path.replace(/\//g, '.'),
    `${String(referrer.object.kind)} ${nameOf(referrer.object)} names ${oldName}, which could be any of ${c.map((r) => `${String(r.object.kind)} ${namespaceOf(r.object) ?? ''}/${nameOf(r.object)}`).join(', ')}`,
    'give the objects distinct names',
  );
}
