// A kustomization's patches applied in order, as kustomize v5's PatchTransformer (and the legacy
// patchesStrategicMerge / patchesJson6902 fields, which the pipeline turns into the same entries) applies them:
// - a strategic merge patch with no target patches the one object whose current or any earlier id (group,
//   version, kind, name, effective namespace) is the patch's own; none or several is an error (kustomize:
//   "failed to find unique target for patch"); a patch file of several documents is several such patches;
// - with a target it patches every object the target selects (none is not an error), taking the object's
//   apiVersion; a patch with a target must be one document;
// - the patched object keeps its name and kind unless options allowNameChange / allowKindChange say otherwise
//   (then its earlier id is kept, so references to the old name still find it), and always its namespace;
// - `$patch: delete` at a patch's top removes the object;
// - a JSON 6902 patch needs a target and is applied to each object selected.

import { KustomizeError } from './errors.js';
import { applyJson6902, JsonPatchError } from './json6902.js';
import { formatId, idOf, sameId, selectTargets, TargetError, type PatchTarget } from './patchTargets.js';
import type { JsonObject, JsonValue, Origin, ResId, Resource } from './resource.js';
import { strategicMerge, StrategicMergeError } from './strategicMerge.js';
import { isObject } from './gvk.js';

export type { PatchTarget } from './patchTargets.js';

export interface PatchOptions {
  allowNameChange?: boolean;
  allowKindChange?: boolean;
}

export interface PatchEntry {
  /** A strategic merge patch (one object, or the documents of one patch file), or JSON 6902 ops. */
  patch: JsonObject | JsonValue[];
  kind: 'strategicMerge' | 'json6902';
  target?: PatchTarget;
  options?: PatchOptions;
  /** Where the entry was written (the kustomization's line, or the patch file). */
  origin: Origin;
  /** The kustomization field that held it, for messages; `patches` when not given. */
  field?: string;
}

function metadataOf(object: JsonObject): JsonObject {
  if (!isObject(object.metadata)) object.metadata = {};
  return object.metadata as JsonObject;
}

function idChanged(a: ResId, b: ResId): boolean {
  return a.kind !== b.kind || a.name !== b.name || (a.namespace ?? '') !== (b.namespace ?? '');
}

/** Apply every patch, in order. Resources are not changed; the result holds new objects where patched. */
export function applyPatches(resources: Resource[], patches: PatchEntry[]): Resource[] {
  let list = resources.slice();
  for (const entry of patches) {
    const field = entry.field ?? 'patches';
    try {
      list = entry.kind === 'json6902' ? applyJsonEntry(list, entry, field) : applySmpEntry(list, entry, field);
    } catch (e) {
      if (e instanceof KustomizeError) throw e;
      if (e instanceof StrategicMergeError || e instanceof JsonPatchError || e instanceof TargetError) {
        throw new KustomizeError(entry.origin, field, e.message);
      }
      throw e;
    }
  }
  return list;
}

function applyJsonEntry(list: Resource[], entry: PatchEntry, field: string): Resource[] {
  if (!entry.target) {
    throw new KustomizeError(entry.origin, field, 'a JSON 6902 patch needs a target', 'add target: with kind and name');
  }
  if (!Array.isArray(entry.patch)) {
    throw new KustomizeError(entry.origin, field, 'a JSON 6902 patch is a list of operations');
  }
  const ops = entry.patch;
  const selected = new Set(selectTargets(list, entry.target));
  return list.map((r) => {
    if (!selected.has(r)) return r;
    const before = idOf(r.object);
    const object = applyJson6902(r.object, ops);
    // kustomize stores the id before a JSON patch, which may rename the object.
    const previousIds = idChanged(before, idOf(object)) ? [...r.previousIds, before] : r.previousIds;
    return { ...r, object, previousIds };
  });
}

function smpDocuments(entry: PatchEntry, field: string): JsonObject[] {
  const docs = Array.isArray(entry.patch) ? entry.patch : [entry.patch];
  for (const d of docs) {
    if (!isObject(d)) throw new KustomizeError(entry.origin, field, 'a strategic merge patch is an object (a YAML map)');
  }
  return docs as JsonObject[];
}

function applySmpEntry(list: Resource[], entry: PatchEntry, field: string): Resource[] {
  const docs = smpDocuments(entry, field);
  if (entry.target) {
    if (docs.length > 1) {
      throw new KustomizeError(
        entry.origin,
        field,
        'a patch with a target must be one strategic merge patch (this one has several documents)',
        'split it into one patches entry per document',
      );
    }
    const patch = docs[0]!;
    const selected = new Set(selectTargets(list, entry.target));
    const out: Resource[] = [];
    for (const r of list) {
      if (!selected.has(r)) {
        out.push(r);
        continue;
      }
      // kustomize gives the patch the target's apiVersion (resmap ApplySmPatch), keeping the patch's kind.
      const copy: JsonObject = { ...patch };
      if (r.object.apiVersion !== undefined) copy.apiVersion = r.object.apiVersion;
      const patched = applyOne(r, copy, entry.options);
      if (patched) out.push(patched);
    }
    return out;
  }
  let out = list;
  for (const patch of docs) {
    const pid = idOf(patch);
    const matches = out.filter((r) => [...r.previousIds, idOf(r.object)].some((id) => sameId(id, pid)));
    if (matches.length !== 1) {
      throw new KustomizeError(
        entry.origin,
        field,
        `${matches.length === 0 ? 'no' : 'several'} objects match the strategic merge patch for ${formatId(pid)}; failed to find unique target for patch`,
        matches.length === 0
          ? 'the patch names the object by its apiVersion, kind, metadata.name and namespace as the resources write them; or give the patch a target'
          : 'give the patch a target that selects one object',
      );
    }
    const target = matches[0]!;
    const patched = applyOne(target, patch, entry.options);
    out = out.flatMap((r) => (r === target ? (patched ? [patched] : []) : [r]));
  }
  return out;
}

/** kustomize Resource.ApplySmPatch: merge, then put back the name and kind (unless allowed) and the namespace. */
function applyOne(r: Resource, patch: JsonObject, options: PatchOptions | undefined): Resource | undefined {
  const before = idOf(r.object);
  const merged = strategicMerge(r.object, patch);
  if (!merged || Object.keys(merged).length === 0) return undefined;
  const meta = metadataOf(merged);
  if (!options?.allowKindChange) merged.kind = before.kind;
  if (!options?.allowNameChange) meta.name = before.name;
  if (before.namespace !== undefined) meta.namespace = before.namespace;
  else delete meta.namespace;
  const changed = (options?.allowNameChange || options?.allowKindChange) && idChanged(before, idOf(merged));
  return { ...r, object: merged, previousIds: changed ? [...r.previousIds, before] : r.previousIds };
}
