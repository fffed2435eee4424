// kustomize v5.5's replacements (api/filters/replacement, kyaml PathMatcher): copy one field's value
// into fields of other objects (v5.5 has no `sourceValue`). The rules applied, as kustomize has them:
// - source: the one object whose current or earlier id has every non-empty group/version/kind/name/namespace
//   of the selector (exact, not regular expressions); fieldPath defaults to metadata.name; options.delimiter and
//   index take one part of the value; none or several objects, or an empty field, is an error;
// - targets: select/reject by the same exact ids (kustomize v5.5 does not read them as regular expressions,
//   unlike patch targets), against the current and earlier ids; a reject with a label or annotation selector
//   rejects on those alone; each fieldPath is dot-separated, with
//   `[key=regex]` choosing list elements (an unanchored match, as kyaml's), `[=regex]` list scalars, `*` every
//   element and a number one index; `\.` escapes a dot; a missing field is an error unless options.create;
// - a scalar target keeps its type and takes the value's text (so `replicas: 1` stays a number and a string
//   field stays a string); a created scalar is written plain (its text read as YAML: `5` is a number);
//   options.delimiter/index replace one part of the target's text (index < 0 prefixes, past the end appends).

import { KustomizeError } from './errors.js';
import { effectiveNamespace, idOf, parseSelector, TargetError } from './patchTargets.js';
import { selectorMatches } from '../../kube/selector.js';
import type { JsonObject, JsonValue, Origin, ResId, Resource } from './resource.js';
import { isObject } from './gvk.js';

class ReplacementError extends Error {}

function str(v: JsonValue | undefined): string {
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
}

/** A scalar's text (what kyaml's node Value holds); '' for maps and lists. */
function textOf(v: JsonValue): string {
  if (v === null) return 'null';
  return typeof v === 'object' ? '' : String(v);
}

/** A plain YAML scalar's value (YAML 1.2 core schema, as a node without a tag prints and reads back). */
export function resolvePlain(text: string): JsonValue {
  if (text === '' || text === '~' || /^(null|Null|NULL)$/.test(text)) return text === '' ? '' : null;
  if (/^(true|True|TRUE)$/.test(text)) return true;
  if (/^(false|False|FALSE)$/.test(text)) return false;
  if (/^[-+]?[0-9]+$/.test(text)) return Number(text);
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(text)) return Number(text);
  return text;
}

/** kyaml SmarterPathSplitter: split on dots, `\.` escapes one, `[a.b=c]` stays one part. */
export function splitFieldPath(path: string): string[] {
  let parts = path.split('.');
  if (parts.length > 1 && parts[0] === '') parts = parts.slice(1);
  const joined: string[] = [parts[0]!];
  for (const p of parts.slice(1)) {
    const last = joined.length - 1;
    if (joined[last]!.endsWith('\\')) joined[last] = `${joined[last]!.slice(0, -1)}.${p}`;
    else joined.push(p);
  }
  const out: string[] = [];
  for (let i = 0; i < joined.length; i++) {
    const elem = joined[i]!;
    if (elem.startsWith('[') && !elem.endsWith(']')) {
      const bracketed = [elem];
      while (i < joined.length - 1) {
        i++;
        bracketed.push(joined[i]!);
        if (joined[i]!.endsWith(']')) break;
      }
      const s = bracketed.join('.');
      out.push(s.includes('=') ? s : s.replace(/^\[+|\]+$/g, ''));
    } else out.push(elem);
  }
  return out;
}

const isIndex = (p: string) => /^[0-9]+$/.test(p);
const isListSelector = (p: string) => p.startsWith('[') && p.endsWith(']');

function splitSelector(p: string): [string, string] {
  const inner = p.slice(1, -1);
  const eq = inner.indexOf('=');
  if (eq < 0) throw new ReplacementError(`${p}: a list path element is [field=value]`);
  return [inner.slice(0, eq), inner.slice(eq + 1)];
}

/** A place a value sits in: read it, write it. */
interface Slot {
  get(): JsonValue | undefined;
  set(v: JsonValue): void;
}

function slotOf(container: JsonObject | JsonValue[], key: string | number): Slot {
  return {
    get: () => (Array.isArray(container) ? container[key as number] : (container as JsonObject)[key as string]),
    set: (v) => {
      if (Array.isArray(container)) container[key as number] = v;
      else container[key as string] = v;
    },
  };
}

type CreateKind = 'scalar' | 'map' | 'list' | undefined;

function kindOfValue(v: JsonValue): Exclude<CreateKind, undefined> {
  return Array.isArray(v) ? 'list' : isObject(v) ? 'map' : 'scalar';
}

function emptyOf(kind: Exclude<CreateKind, undefined>): JsonValue {
  return kind === 'list' ? [] : kind === 'map' ? {} : null;
}

function nextKind(next: string | undefined, create: Exclude<CreateKind, undefined>): Exclude<CreateKind, undefined> {
  if (next === undefined) return create;
  return isListSelector(next) || isIndex(next) ? 'list' : 'map';
}

function regexOf(pattern: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch (e) {
    throw new ReplacementError(`${JSON.stringify(pattern)} is not a regular expression: ${(e as Error).message}`);
  }
}

/** kyaml PathMatcher: every slot the path reaches from this one (creating what is missing when asked). */
function match(slot: Slot, parts: string[], create: CreateKind): Slot[] {
  if (parts.length === 0) return [slot];
  const [p, ...rest] = parts as [string, ...string[]];
  const node = slot.get();
  if (isIndex(p)) {
    if (!Array.isArray(node)) throw new ReplacementError(`${p}: expected a list here`);
    const idx = Number(p);
    if (node.length === idx && create) node.push(emptyOf(nextKind(rest[0], create)));
    if (node.length < idx + 1) throw new ReplacementError(`index ${idx} specified but only ${node.length} elements found`);
    return match(slotOf(node, idx), rest, create);
  }
  if (isListSelector(p)) {
    if (!Array.isArray(node)) throw new ReplacementError(`${p}: expected a list here`);
    const [field, pattern] = splitSelector(p);
    const re = regexOf(pattern);
    const found: Slot[] = [];
    node.forEach((elem, i) => {
      if (field === '') {
        if (re.test(textOf(elem).trim())) found.push(slotOf(node, i));
        return;
      }
      if (!isObject(elem) || elem[field] === undefined || elem[field] === null) return;
      if (!re.test(textOf(elem[field]).trim())) return;
      found.push(...match(slotOf(node, i), rest, create));
    });
    if (found.length > 0 || !create) return found;
    node.push(field === '' ? resolvePlain(pattern) : { [field]: resolvePlain(pattern) });
    return match(slot, parts, create);
  }
  if (p === '*') {
    if (!Array.isArray(node)) throw new ReplacementError(`*: expected a list here`);
    return node.flatMap((_, i) => match(slotOf(node, i), rest, create));
  }
  if (node === undefined || node === null) return [];
  if (!isObject(node)) throw new ReplacementError(`${p}: expected a map here`);
  if (node[p] === undefined) {
    if (!create) return [];
    node[p] = emptyOf(nextKind(rest[0], create));
  }
  return match(slotOf(node, p), rest, create);
}

/** kyaml Lookup (the source's fieldPath): fields, `[key=value]` (exact), indexes. */
function lookup(root: JsonValue, parts: string[]): JsonValue | undefined {
  let cur: JsonValue | undefined = root;
  for (const p of parts) {
    if (cur === undefined || cur === null) return undefined;
    if (isListSelector(p)) {
      if (!Array.isArray(cur)) return undefined;
      const [field, value] = splitSelector(p);
      cur = cur.find((e) => (field === '' ? textOf(e) === value : isObject(e) && e[field] !== undefined && textOf(e[field]!) === value));
    } else if (isIndex(p) && Array.isArray(cur)) cur = cur[Number(p)];
    else if (isObject(cur)) cur = cur[p];
    else return undefined;
  }
  return cur;
}

interface FieldOptions {
  delimiter: string;
  index: number;
  create: boolean;
}

function optionsOf(v: JsonValue | undefined): FieldOptions {
  const o = isObject(v) ? v : {};
  return { delimiter: str(o.delimiter), index: typeof o.index === 'number' ? o.index : 0, create: o.create === true };
}

/** The value to copy, with the type its source field has. */
interface SourceValue {
  value: JsonValue;
}

function idsOf(r: Resource): ResId[] {
  return [idOf(r.object), ...r.previousIds];
}

/** kustomize ResId.IsSelectedBy: every non-empty field of the selector equal (namespaces as effective ones). */
function isSelectedBy(id: ResId, sel: JsonObject): boolean {
  const eq = (field: keyof ResId) => !str(sel[field]) || str(sel[field]) === (id[field] ?? '');
  const nsOk = !str(sel.namespace) || effectiveNamespace({ ...id, namespace: str(sel.namespace) }) === effectiveNamespace(id);
  return eq('name') && nsOk && eq('group') && eq('version') && eq('kind');
}

function describeSelector(sel: JsonObject): string {
  return ['group', 'version', 'kind', 'name', 'namespace']
    .filter((k) => str(sel[k]))
    .map((k) => `${k}=${str(sel[k])}`)
    .join(',');
}

function getSource(resources: Resource[], r: JsonObject): SourceValue {
  if (r.sourceValue !== undefined) {
    throw new ReplacementError('sourceValue is not a field of kustomize v5.5 replacements; put the value in a ConfigMap and use it as the source');
  }
  const sel = isObject(r.source) ? r.source : {};
  const matches = resources.filter((res) => idsOf(res).some((id) => isSelectedBy(id, sel)));
  if (matches.length > 1) throw new ReplacementError(`multiple matches for source selector ${describeSelector(sel)}`);
  if (matches.length === 0) throw new ReplacementError(`nothing selected by source selector ${describeSelector(sel)}`);
  const fieldPath = str(sel.fieldPath) || 'metadata.name';
  const found = lookup(matches[0]!.object, splitFieldPath(fieldPath));
  if (found === undefined || found === null || (typeof found === 'object' && Object.keys(found).length === 0)) {
    throw new ReplacementError(`fieldPath \`${fieldPath}\` is missing for replacement source ${describeSelector(sel)}`);
  }
  const opts = optionsOf(sel.options);
  if (!opts.delimiter) return { value: structuredClone(found) };
  if (typeof found === 'object') throw new ReplacementError('delimiter option can only be used with scalar nodes');
  const parts = textOf(found).split(opts.delimiter);
  if (opts.index >= parts.length || opts.index < 0) {
    throw new ReplacementError(`options.index ${opts.index} is out of bounds for value ${textOf(found)}`);
  }
  return { value: typeof found === 'string' ? parts[opts.index]! : resolvePlain(parts[opts.index]!) };
}

function setFieldValue(slot: Slot, source: SourceValue, opts: FieldOptions): void {
  const target = slot.get();
  let text = typeof source.value === 'object' && source.value !== null ? '' : textOf(source.value);
  if (opts.delimiter) {
    if (typeof target === 'object' && target !== null) throw new ReplacementError('delimiter option can only be used with scalar nodes');
    const tv = (target === undefined || target === null ? '' : textOf(target)).split(opts.delimiter);
    if (opts.index < 0) tv.unshift(text);
    else if (opts.index >= tv.length) tv.push(text);
    else tv[opts.index] = text;
    text = tv.join(opts.delimiter);
  }
  if (target !== undefined && target !== null && typeof target !== 'object') {
    // A scalar keeps its YAML tag; only its text changes.
    if (typeof target === 'string') slot.set(text);
    else if (typeof target === 'number') slot.set(/^[-+]?[0-9.eE+-]+$/.test(text) && !Number.isNaN(Number(text)) ? Number(text) : text);
    else slot.set(text === 'true' ? true : text === 'false' ? false : text);
    return;
  }
  if (target === null || target === undefined) {
    // A created (or null) scalar has no tag: the text is read back as YAML.
    if (typeof source.value !== 'object' || source.value === null || opts.delimiter) {
      slot.set(resolvePlain(text));
      return;
    }
  }
  slot.set(structuredClone(source.value));
}

function selectorOf(v: JsonValue | undefined): JsonObject {
  return isObject(v) ? v : {};
}

function matchesLabelsAndAnnotations(object: JsonObject, sel: JsonObject): boolean {
  const meta = isObject(object.metadata) ? object.metadata : {};
  const check = (text: string, field: string, values: JsonValue | undefined): boolean => {
    const labels: Record<string, string> = {};
    if (isObject(values)) for (const [k, v] of Object.entries(values)) labels[k] = textOf(v);
    return selectorMatches(parseSelector(text, field), labels);
  };
  return check(str(sel.labelSelector), 'labelSelector', meta.labels) && check(str(sel.annotationSelector), 'annotationSelector', meta.annotations);
}

function applyTarget(resources: Resource[], targetSpec: JsonObject, source: SourceValue): void {
  if (!isObject(targetSpec.select)) throw new ReplacementError('target must specify resources to select (select:)');
  const select = selectorOf(targetSpec.select);
  const rejects = Array.isArray(targetSpec.reject) ? targetSpec.reject.map(selectorOf) : [];
  const fieldPaths = Array.isArray(targetSpec.fieldPaths) && targetSpec.fieldPaths.length > 0 ? targetSpec.fieldPaths.map((p) => str(p)) : ['metadata.name'];
  const opts = optionsOf(targetSpec.options);
  const rejectIds = rejects.filter((r) => ['group', 'version', 'kind', 'name', 'namespace'].some((k) => str(r[k])));
  for (const res of resources) {
    if (!matchesLabelsAndAnnotations(res.object, select)) continue;
    if (rejects.some((r) => (str(r.labelSelector) || str(r.annotationSelector)) && matchesLabelsAndAnnotations(res.object, r))) continue;
    const ids = idsOf(res);
    if (!ids.some((id) => isSelectedBy(id, select))) continue;
    if (rejectIds.some((rej) => ids.some((id) => isSelectedBy(id, rej)))) continue;
    for (const fp of fieldPaths) {
      const create: CreateKind = opts.create ? kindOfValue(source.value) : undefined;
      const root: { value: JsonValue } = { value: res.object };
      const slots = match(slotOf(root as unknown as JsonObject, 'value'), splitFieldPath(fp), create);
      if (slots.length === 0) {
        throw new ReplacementError(`unable to find ${opts.create ? 'or create ' : ''}field "${fp}" in replacement target ${idOf(res.object).kind} ${idOf(res.object).name}`);
      }
      for (const s of slots) setFieldValue(s, source, opts);
    }
  }
}

/**
 * Apply a kustomization's replacements, in order. Each entry is one replacement as written (source or
 * sourceValue, targets). Resources are not changed; the result holds copies.
 */
export function applyReplacements(resources: Resource[], replacements: JsonObject[], origin: Origin): Resource[] {
  const out = resources.map((r) => ({ ...r, object: structuredClone(r.object) }));
  replacements.forEach((r, i) => {
    try {
      if ((r.sourceValue === undefined && r.source === undefined) || !Array.isArray(r.targets)) {
        throw new ReplacementError('replacements must specify a source and at least one target');
      }
      const source = getSource(out, r);
      for (const t of r.targets) applyTarget(out, selectorOf(t), source);
    } catch (e) {
      if (e instanceof ReplacementError || e instanceof TargetError) {
        throw new KustomizeError(origin, `replacements[${i}]`, e.message);
      }
      throw e;
    }
  });
  return out;
}
