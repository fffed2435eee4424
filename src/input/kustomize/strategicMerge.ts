// Strategic merge patch as kustomize v5 applies it (api/filters/patchstrategicmerge → kyaml merge2 walker), on
// plain JSON values. kustomize does not use the API server's strategicpatch package: kyaml walks the object and
// the patch together, field by field, with the embedded v1.21.2 OpenAPI schema (smpSchema.ts). Its rules:
// - maps merge field by field; a null in the patch deletes the field; `$patch: delete` removes the map,
//   `$patch: replace` takes the patch's map whole, `$patch: merge` is the default;
// - a list whose schema has the `merge` patch strategy is merged by its merge keys (list-map keys when given),
//   the patch's elements first in the patch's order, then the object's other elements (kustomize merges with
//   ListIncreaseDirection prepend); an element `{name: x, $patch: delete}` removes it; a list element
//   `{$patch: replace}` takes the patch's list; a strategic list of scalars is a set union;
// - every other list (no schema: CRDs and unknown kinds, or no strategy) is replaced by the patch's list, so an
//   unknown kind is patched as a JSON merge patch would patch it.
// The walk below keeps kyaml's order of steps, because its results (element order, the composite-key quirks of
// ports) are what `kustomize build` prints. kyaml does not implement `$setElementOrder`, `$retainKeys` or
// `$deleteFromPrimitiveList`: it copies them into the object as fields, which an API server refuses. runpod
// refuses them instead (SmpDirectiveError), so nothing half-patched runs.

import type { JsonObject, JsonValue } from './resource.js';
import { elementSchema, fieldSchema, schemaForKind, type FieldSchema } from './smpSchema.js';
import { isObject } from './gvk.js';

/** A patch that cannot be applied: kyaml's own errors, with the path of the field. */
export class StrategicMergeError extends Error {
  override name = 'StrategicMergeError';
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(path ? `${path}: ${problem}` : problem);
  }
}

/** A result that deletes the field (kyaml's ClearNode / nil). */
const CLEAR = Symbol('clear');
/** A null the object had and the patch did not touch: kept (kyaml's persistent null node). */
const KEEP_NULL = Symbol('keep-null');
type Walked = JsonValue | undefined | typeof CLEAR | typeof KEEP_NULL;

const UNSUPPORTED_DIRECTIVES = ['$setElementOrder/', '$retainKeys', '$deleteFromPrimitiveList/'];

function missingOrNull(v: unknown): boolean {
  return v === undefined || v === null || v === CLEAR || v === KEEP_NULL;
}

function isEmptyMap(v: unknown): boolean {
  return isObject(v) && Object.keys(v).length === 0;
}

function nodeKind(v: JsonValue): 'map' | 'list' | 'scalar' {
  return Array.isArray(v) ? 'list' : isObject(v) ? 'map' : 'scalar';
}

/** A scalar's text as YAML holds it (kyaml compares merge-key values as strings). */
function scalarText(v: JsonValue | undefined): string {
  if (v === undefined || v === null || typeof v === 'object') return '';
  return String(v);
}

function clone<T extends JsonValue>(v: T): T {
  return structuredClone(v);
}

/**
 * Apply a strategic merge patch to an object, as kustomize does. Both are left unchanged; the result is a new
 * object, or undefined when the patch deletes the whole object (`$patch: delete` at its top).
 */
export function strategicMerge(object: JsonObject, patch: JsonObject): JsonObject | undefined {
  rejectUnsupportedDirectives(patch, '');
  const result = walk(clone(object), clone(patch), undefined, []);
  if (result === CLEAR || result === undefined || result === null || result === KEEP_NULL) return undefined;
  if (!isObject(result)) throw new StrategicMergeError('', 'the patch did not produce an object');
  return result;
}

function rejectUnsupportedDirectives(value: JsonValue, path: string): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => rejectUnsupportedDirectives(v, `${path}[${i}]`));
    return;
  }
  if (!isObject(value)) return;
  for (const [k, v] of Object.entries(value)) {
    const here = path ? `${path}.${k}` : k;
    if (UNSUPPORTED_DIRECTIVES.some((d) => k.startsWith(d))) {
      throw new StrategicMergeError(
        here,
        `kustomize v5 does not apply the ${k.split('/')[0]} directive (it copies it into the object, which the API server rejects); write the list or map the object should have instead`,
      );
    }
    rejectUnsupportedDirectives(v, here);
  }
}

/** kyaml Walker.GetSchema: the schema given, else the one of an object that names its apiVersion and kind. */
function schemaFor(schema: FieldSchema | undefined, sources: Walked[]): FieldSchema | undefined {
  if (schema) return schema;
  for (const s of sources) {
    if (!isObject(s)) continue;
    const { apiVersion, kind } = s;
    if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !apiVersion || !kind) continue;
    const found = schemaForKind(apiVersion, kind);
    if (found) return found;
  }
  return undefined;
}

function walk(dest: Walked, origin: Walked, given: FieldSchema | undefined, path: string[]): Walked {
  const schema = schemaFor(given, [dest, origin]);
  const first = [dest, origin].find((s) => !missingOrNull(s)) as JsonValue | undefined;
  if (first === undefined) return walkMap(dest, origin, schema, path);
  const kind = nodeKind(first);
  for (const s of [dest, origin]) {
    if (!missingOrNull(s) && nodeKind(s as JsonValue) !== kind) {
      throw new StrategicMergeError(path.join('.'), `the patch has a ${nodeKind(origin as JsonValue)} where the object has a ${nodeKind(dest as JsonValue)}`);
    }
  }
  if (kind === 'map') return walkMap(dest, origin, schema, path);
  if (kind === 'list') {
    const strategies = schema?.kind === 'list' ? schema.strategy.split(',') : [];
    if (strategies.includes('merge') && schema?.kind === 'list') return walkAssociative(dest, origin, schema, path);
    return origin !== undefined ? origin : dest;
  }
  return origin !== undefined ? origin : dest;
}

type Directive = 'merge' | 'replace' | 'delete';

function directiveOf(value: unknown, path: string[]): Directive {
  const check = (v: JsonValue | undefined): Directive => {
    if (v === 'delete' || v === 'replace' || v === 'merge') return v;
    throw new StrategicMergeError(path.join('.'), `unknown patch strategy '${scalarText(v ?? null)}' in $patch`);
  };
  if (isObject(value)) {
    if (!('$patch' in value)) return 'merge';
    const d = check(value.$patch);
    delete value.$patch;
    return d;
  }
  if (Array.isArray(value)) {
    // kyaml looks for an element that is a map holding `$patch` and nothing else.
    const index = value.findIndex((e) => isObject(e) && '$patch' in e && Object.keys(e).length === 1);
    if (index < 0) return 'merge';
    const d = check((value[index] as JsonObject).$patch);
    value.splice(index, 1);
    return d;
  }
  return 'merge';
}

function walkMap(dest: Walked, origin: Walked, schema: FieldSchema | undefined, path: string[]): Walked {
  let d: Walked;
  if (missingOrNull(dest)) {
    const ps = isObject(origin) ? directiveOf(origin, path) : 'merge';
    if (ps === 'delete') return CLEAR;
    if (origin === undefined && dest === null) return KEEP_NULL;
    d = origin;
  } else if (origin === null) {
    return CLEAR;
  } else {
    const ps = directiveOf(origin, path);
    if (ps === 'delete') return CLEAR;
    d = ps === 'replace' ? origin : dest;
  }
  if (d === undefined || d === CLEAR) return CLEAR;
  if (!isObject(d)) return d;
  const names = new Set<string>(Object.keys(d));
  if (isObject(origin)) for (const k of Object.keys(origin)) names.add(k);
  for (const key of [...names].sort()) {
    const value = walk(d[key], isObject(origin) ? origin[key] : undefined, fieldSchema(schema, key), [...path, key]);
    setField(d, key, value);
  }
  return d;
}

/** kyaml FieldSetter: a cleared or null value removes the field; a kept null stays. */
function setField(target: JsonObject, key: string, value: Walked): void {
  if (value === undefined || value === CLEAR || value === null) delete target[key];
  else if (value === KEEP_NULL) target[key] = null;
  else target[key] = value;
}

function walkAssociative(dest: Walked, origin: Walked, schema: Extract<FieldSchema, { kind: 'list' }>, path: string[]): Walked {
  let d: Walked;
  if (missingOrNull(dest)) d = origin;
  else if (origin === null) return CLEAR;
  else {
    const ps = directiveOf(origin, path);
    if (ps === 'delete') return CLEAR;
    d = ps === 'replace' ? origin : dest;
  }
  if (!Array.isArray(d)) return CLEAR;
  const sources: Array<JsonValue[] | undefined> = [d, Array.isArray(origin) ? origin : undefined];
  const keys = schema.keys;
  const values = elementValues(sources, keys);
  const walker = new AssociativeMerge(elementSchema(schema), path, sources);
  if (values.length !== 0 || keys.length > 0) return walker.set(values, keys, d);
  return walker.set(primitiveValues(sources), [''], d);
}

/** The key values of every element, the patch's elements first, each distinct list once (kyaml elementValues). */
function elementValues(sources: Array<JsonValue[] | undefined>, keys: string[]): string[][] {
  const out: string[][] = [];
  const seen = new Set<string>();
  for (const src of [sources[1], sources[0]]) {
    if (!src) continue;
    for (const elem of src) {
      const vals = keys.map((k) => {
        const f = isObject(elem) ? elem[k] : undefined;
        return f === undefined || f === null || isEmptyMap(f) || (Array.isArray(f) && f.length === 0) ? '' : scalarText(f);
      });
      const id = JSON.stringify(vals);
      if (vals.length === 0 || seen.has(id)) continue;
      out.push(vals);
      seen.add(id);
    }
  }
  return out;
}

function primitiveValues(sources: Array<JsonValue[] | undefined>): string[][] {
  const out: string[][] = [];
  const seen = new Set<string>();
  for (const src of [sources[1], sources[0]]) {
    if (!src) continue;
    for (const item of src) {
      const v = scalarText(item);
      if (seen.has(v)) continue;
      out.push([v]);
      seen.add(v);
    }
  }
  return out;
}

/** kyaml's match of two composite keys: equal somewhere, and no two different non-empty values. */
function matchValues(a: string[], b: string[]): string[] | undefined {
  if (a.length !== b.length) return undefined;
  let common = false;
  const res: string[] = [];
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) {
      common = true;
      res.push(a[i]!);
      continue;
    }
    if (a[i] !== '' && b[i] !== '') return undefined;
    res.push(a[i] !== '' ? a[i]! : b[i]!);
  }
  return common ? res : undefined;
}

function mergeValues(list: string[][]): void {
  for (let i = 0; i < list.length; i++) {
    for (let j = 0; j < list.length; j++) {
      const m = matchValues(list[i]!, list[j]!);
      if (m) {
        list[i] = m;
        list[j] = m;
      }
    }
  }
}

/** kyaml validateKeys: keep the keys some element has a value for (all of them when none has). */
function validateKeys(valuesList: string[][], values: string[], keys: string[]): [string[], string[]] {
  const valid = new Set<string>();
  for (const vs of valuesList) vs.forEach((v, i) => v !== '' && valid.add(keys[i]!));
  if (valid.size === 0) return [keys, values];
  return [keys.filter((k) => valid.has(k)), values.filter((v, i) => v !== '' || valid.has(keys[i]!))];
}

/** kyaml FieldMatcher on one element: the field, when present (and equal to value when value is not ''). */
function fieldMatches(elem: JsonValue, key: string, value: string, path: string[]): boolean {
  if (elem === null) return false;
  if (key === '') {
    if (typeof elem === 'object') throw new StrategicMergeError(path.join('.'), 'expected a list of scalars');
    return scalarText(elem) === value;
  }
  if (!isObject(elem)) throw new StrategicMergeError(path.join('.'), 'expected a list of objects');
  if (!(key in elem)) return false;
  return value === '' || scalarText(elem[key]) === value;
}

/** kyaml ElementMatcher (MatchElementList): the first element whose keys hold exactly these values. */
function findElement(list: JsonValue[], keys: string[], values: string[]): JsonValue | undefined {
  if (keys.length === 0 || keys[0] === '') {
    return list.find((item) => (typeof item === 'object' && item !== null ? '' : scalarText(item)) === (values[0] ?? ''));
  }
  return list.find((elem) => isObject(elem) && keys.every((k, i) => k in elem && scalarText(elem[k]) === (values[i] ?? '')));
}

/**
 * kyaml ElementSetter: replace the elements matching keys/values with element (or remove them when element is
 * undefined), append element when none matched. Empty maps and nulls are dropped from the list on the way.
 */
function setElement(list: JsonValue[], element: JsonValue | undefined, keysIn: string[], values: string[], path: string[]): void {
  const keys = keysIn.length === 0 ? [''] : keysIn;
  const mappingSetter = keys[0] !== '' && values.length > 0 && values[0] !== '';
  const next: JsonValue[] = [];
  let matched = false;
  for (const elem of list) {
    if (elem === null || isEmptyMap(elem)) continue;
    if (!isObject(elem) && mappingSetter) {
      next.push(elem);
      continue;
    }
    let found = true;
    let val = false;
    for (let j = 0; j < keys.length; j++) {
      if (j < values.length) val = fieldMatches(elem, keys[j]!, values[j]!, path);
      if (!val) {
        found = false;
        break;
      }
    }
    if (!found) {
      if (values.length > 0) next.push(elem);
      continue;
    }
    matched = true;
    if (element === undefined) continue;
    next.push(element);
  }
  list.splice(0, list.length, ...next);
  if (element === undefined || element === null) return;
  if (!matched) list.push(element);
}

/** A key value kyaml writes back into a merged element as a plain YAML scalar (so `80` is a number again). */
function scalarFromText(text: string): JsonValue {
  if (/^-?(0|[1-9][0-9]*)$/.test(text)) return Number(text);
  if (text === 'true' || text === 'false') return text === 'true';
  return text;
}

class AssociativeMerge {
  constructor(
    private readonly schema: FieldSchema | undefined,
    private readonly path: string[],
    private readonly sources: Array<JsonValue[] | undefined>,
  ) {}

  set(valuesList: string[][], keys: string[], dest: JsonValue[]): Walked {
    const items: JsonValue[] = [];
    if (keys.length > 1) mergeValues(valuesList);
    let validKeys: string[] = keys;
    let validValues: string[] = [];
    for (const values of valuesList) {
      if (values.length === 0) continue;
      [validKeys, validValues] = validateKeys(valuesList, values, keys);
      const [ek, ev] = validateKeys([validValues], validValues, validKeys);
      const pair = this.sources.map((src) => (src ? findElement(src, ek, ev) : undefined));
      const val = walk(pair[0], pair[1], this.schema, this.path);
      if (missingOrNull(val) || isEmptyMap(val)) {
        // The patch deleted the element: kyaml removes it from the object's list.
        setElement(dest, undefined, validKeys, validValues, this.path);
        continue;
      }
      const element = val as JsonValue;
      if (isObject(element)) {
        validKeys.forEach((key, i) => {
          if (!(key in element) && validValues[i] !== '') element[key] = scalarFromText(validValues[i]!);
        });
      }
      setElement(items, element, validKeys, validValues, this.path);
    }
    let result: JsonValue[] = dest;
    if (valuesList.length > 0) result = this.appendList(items, dest, validKeys);
    return result;
  }

  /** kyaml appendListNode: the object's elements put back over the merged ones (same nodes, new order). */
  private appendList(dst: JsonValue[], src: JsonValue[], keys: string[]): JsonValue[] {
    for (const elem of src) {
      if (keys[0] === '') {
        setElement(dst, elem, [''], [scalarText(elem)], this.path);
        continue;
      }
      const v: string[] = [];
      for (const key of keys) {
        const f = isObject(elem) ? elem[key] : undefined;
        if (f === undefined || f === null) {
          dst.push(elem);
          continue;
        }
        v.push(scalarText(f));
      }
      if (keys.length > 1) setElement(dst, undefined, keys, v, this.path);
      setElement(dst, elem, keys, v, this.path);
    }
    return dst;
  }
}
