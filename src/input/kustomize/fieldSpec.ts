// kustomize's field specs: a path into an object (segments split on "/", "\/" an escaped slash, "name[]" a list),
// selected by group, version and kind, optionally created when missing (types.FieldSpec and its fieldspec
// filter). A list met along the path without "[]" is walked element by element, as kustomize's filter does.
// Pure; the visitor changes the object in place.

import { type Gvk, type GvkSelector, isObject, selects } from './gvk.js';
import type { JsonObject, JsonValue } from './resource.js';

export interface FieldSpec extends GvkSelector {
  path: string;
  create?: boolean;
}

// A few dozen built-in paths are split for every object they are tried on: split each once.
const splitCache = new Map<string, readonly string[]>();

function splitPathCached(path: string): readonly string[] {
  let segments = splitCache.get(path);
  if (segments === undefined) splitCache.set(path, (segments = splitPath(path)));
  return segments;
}

export function splitPath(path: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < path.length; i++) {
    const c = path[i]!;
    if (c === '\\' && path[i + 1] === '/') {
      cur += '/';
      i++;
    } else if (c === '/') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/**
 * Call `at(parent, key)` for each place the spec's path reaches in obj (when the spec selects gvk). With create,
 * missing mappings along the way are made, and the last field is left for `at` to make.
 */
export function visitFieldSpec(obj: JsonObject, gvk: Gvk, spec: FieldSpec, at: (parent: JsonObject, key: string) => void): void {
  if (!selects(spec, gvk)) return;
  walk(obj, splitPathCached(spec.path), 0, spec.create === true, at);
}

/** The walk from segments[from] on (an index, not a copy of the rest: this runs for every spec on every object). */
function walk(node: JsonValue, segments: readonly string[], from: number, create: boolean, at: (parent: JsonObject, key: string) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, segments, from, create, at);
    return;
  }
  if (!isObject(node) || from >= segments.length) return;
  const first = segments[from]!;
  const isList = first.endsWith('[]');
  const key = isList ? first.slice(0, -2) : first;
  if (from === segments.length - 1) {
    if (key in node || create) at(node, key);
    return;
  }
  let next = node[key];
  if (next === undefined || next === null) {
    if (!create || isList) return;
    next = {};
    node[key] = next;
  }
  walk(next, segments, from + 1, create, at);
}
