// kustomize v5.5's vars (deprecated in favour of replacements, still honoured): `$(NAME)` in the fields of its
// built-in varReference field specs (api/internal/konfig/builtinpluginconsts/varreference.go) becomes the value
// of a field of another object. The rules applied, as kustomize has them (accumulator/refvartransformer.go,
// filters/refvar):
// - a var names its object by objref (apiVersion or group/version, kind, name, and namespace); the object is the
//   one whose current or an earlier id has that group, version, kind and name (and effective namespace when the
//   objref gives one, or the kind is cluster-scoped); several is an error, none is "cannot be mapped";
// - fieldref.fieldPath (default metadata.name) is read as kyaml's GetFieldValue reads it (`ports[0].port`,
//   `[name=x]`) with its YAML type (a number stays a number); a map or list is not substituted; a missing field
//   is an error;
// - only string fields are substituted; a field that is exactly `$(NAME)` takes the value with its type
//   (`port: $(DB_PORT)` becomes a number), elsewhere the value's text is inserted; `$$` writes one `$`; a
//   `$(NAME)` with no var of that name is left as written, as kustomize leaves it;
// - two vars of one name are an error ("already encountered").
// The pipeline calls this last, with the vars of every kustomization of the build (kustomize binds them level by
// level and resolves them once at the top, after the name references are fixed).

import { KustomizeError } from './errors.js';
import { idOf, sameId } from './patchTargets.js';
import { splitFieldPath } from './replacements.js';
import type { JsonObject, JsonValue, Origin, ResId, Resource } from './resource.js';
import { isClusterScoped } from './smpSchema.js';
import { isObject } from './gvk.js';

function str(v: JsonValue | undefined): string {
  return typeof v === 'string' ? v : '';
}

/** varReference field specs: a path of field names (lists are walked through) and the kind it applies to. */
const WORKLOAD_PATHS = [
  'containers/args',
  'containers/command',
  'containers/env/value',
  'containers/volumeMounts/mountPath',
  'initContainers/args',
  'initContainers/command',
  'initContainers/env/value',
  'initContainers/volumeMounts/mountPath',
];

interface FieldSpec {
  kind?: string;
  path: string[];
}

function specs(): FieldSpec[] {
  const out: FieldSpec[] = [];
  const add = (kind: string | undefined, path: string) => out.push({ ...(kind ? { kind } : {}), path: path.split('/') });
  for (const p of WORKLOAD_PATHS) add('CronJob', `spec/jobTemplate/spec/template/spec/${p}`);
  // kustomize's spec for CronJob's NFS server omits the pod spec's `spec` (a path no CronJob has); kept as it is.
  add('CronJob', 'spec/jobTemplate/spec/template/volumes/nfs/server');
  for (const kind of ['DaemonSet', 'Deployment']) {
    for (const p of WORKLOAD_PATHS) add(kind, `spec/template/spec/${p}`);
    add(kind, 'spec/template/spec/volumes/nfs/server');
  }
  add('Deployment', 'spec/template/metadata/annotations');
  add('Ingress', 'spec/rules/host');
  add('Ingress', 'spec/tls/hosts');
  add('Ingress', 'spec/tls/secretName');
  for (const p of WORKLOAD_PATHS) add('Job', `spec/template/spec/${p}`);
  add('Job', 'spec/template/spec/volumes/nfs/server');
  for (const p of WORKLOAD_PATHS) add('Pod', `spec/${p}`);
  add('Pod', 'spec/volumes/nfs/server');
  for (const p of WORKLOAD_PATHS) add('ReplicaSet', `spec/template/spec/${p}`);
  add('ReplicaSet', 'spec/template/spec/volumes/nfs/server');
  add('Service', 'spec/ports/port');
  add('Service', 'spec/ports/targetPort');
  for (const p of WORKLOAD_PATHS) add('StatefulSet', `spec/template/spec/${p}`);
  add('StatefulSet', 'spec/volumeClaimTemplates/spec/nfs/server');
  add('PersistentVolume', 'spec/nfs/server');
  add(undefined, 'metadata/labels');
  add(undefined, 'metadata/annotations');
  return out;
}

const VAR_REFERENCE = specs();

class VarError extends Error {}

/** kustomize refvar.DoReplacements: `$(NAME)` → its value, `$$` → `$`, anything else as written. */
export type VarValue = string | number | boolean;

export function expandVars(input: string, lookup: (name: string) => VarValue | undefined, used: Set<string>): VarValue {
  let out = '';
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== '$' || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const rest = input.slice(cursor + 1);
    let advance = 1;
    if (rest[0] === '$') out += '$';
    else if (rest[0] === '(') {
      const close = rest.indexOf(')', 1);
      if (close < 0) out += '$(';
      else {
        const name = rest.slice(1, close);
        const value = lookup(name);
        if (value !== undefined) used.add(name);
        if (input === `$(${name})`) return value ?? input;
        out += value === undefined ? `$(${name})` : String(value);
        advance = close + 1;
      }
    } else out += `$${rest[0]}`;
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}

/**
 * kyaml GetFieldValue: a scalar field's value with its type; null reads as its text; a map or list is returned as
 * null here (kustomize leaves `$(NAME)` as written for those); undefined when the field is missing.
 */
function fieldValue(object: JsonObject, path: string): VarValue | null | undefined {
  const parts: string[] = [];
  for (const s of splitFieldPath(path)) {
    const m = /^(.*)\[(\d+)\]$/.exec(s);
    if (!m) parts.push(s);
    else {
      if (m[1]) parts.push(m[1]);
      parts.push(m[2]!);
    }
  }
  let cur: JsonValue | undefined = object;
  for (const p of parts) {
    if (Array.isArray(cur)) {
      if (/^\[.*=.*\]$/.test(p)) {
        const [k, v] = [p.slice(1, p.indexOf('=')), p.slice(p.indexOf('=') + 1, -1)];
        cur = cur.find((e) => isObject(e) && e[k] !== undefined && String(e[k]) === v);
      } else cur = /^[0-9]+$/.test(p) ? cur[Number(p)] : undefined;
    } else if (isObject(cur)) cur = cur[p];
    else return undefined;
    if (cur === undefined) return undefined;
  }
  if (cur === null) return 'null';
  if (typeof cur === 'object') return null;
  return cur;
}

function describeVar(v: JsonObject): string {
  const ref = isObject(v.objref) ? v.objref : {};
  const field = isObject(v.fieldref) ? str(v.fieldref.fieldPath) : '';
  return `${str(v.name)} (objref ${[str(ref.apiVersion) || [str(ref.group), str(ref.version)].filter(Boolean).join('/'), str(ref.kind), str(ref.name)].filter(Boolean).join(' ')}${field ? `, fieldref ${field}` : ''})`;
}

function objrefId(v: JsonObject): ResId {
  const ref = isObject(v.objref) ? v.objref : {};
  let group = str(ref.group);
  let version = str(ref.version);
  const apiVersion = str(ref.apiVersion);
  if (apiVersion) {
    const parts = apiVersion.split('/');
    if (parts.length === 2) [group, version] = parts as [string, string];
    else if (parts.length === 1) version = parts[0]!;
  }
  const namespace = str(ref.namespace);
  return { group, version, kind: str(ref.kind), name: str(ref.name), ...(namespace ? { namespace } : {}) };
}

function resolve(resources: Resource[], v: JsonObject): VarValue | null {
  const target = objrefId(v);
  const strict = target.namespace !== undefined || isClusterScoped(target.group, target.kind);
  const matches = resources.filter((r) =>
    [...r.previousIds, idOf(r.object)].some((id) =>
      strict ? sameId(id, target) : id.group === target.group && id.version === target.version && id.kind === target.kind && id.name === target.name,
    ),
  );
  if (matches.length > 1) throw new VarError(`found ${matches.length} resId matches for var ${describeVar(v)} (unable to disambiguate)`);
  if (matches.length === 0) throw new VarError(`var ${describeVar(v)} cannot be mapped to a field in the set of known resources`);
  const fieldPath = (isObject(v.fieldref) ? str(v.fieldref.fieldPath) : '') || 'metadata.name';
  const text = fieldValue(matches[0]!.object, fieldPath);
  if (text === undefined) throw new VarError(`field specified in var ${describeVar(v)} not found in corresponding resource`);
  return text;
}

/** Apply fn to every value a field spec reaches (lists are walked through, missing fields skipped). */
function visit(node: JsonValue | undefined, path: string[], fn: (holder: JsonObject, key: string) => void): void {
  if (node === undefined || node === null) return;
  if (Array.isArray(node)) {
    node.forEach((e) => visit(e, path, fn));
    return;
  }
  if (!isObject(node) || path.length === 0) return;
  const [head, ...rest] = path as [string, ...string[]];
  if (!(head in node)) return;
  if (rest.length === 0) fn(node, head);
  else visit(node[head], rest, fn);
}

/** kustomize refvar.Filter.set on the value a spec reaches: strings in a scalar, a map's values, a list. */
function substitute(holder: JsonObject, key: string, expand: (s: string) => VarValue): void {
  const value = holder[key];
  if (value === null || value === undefined) return;
  if (typeof value === 'string') holder[key] = expand(value);
  else if (Array.isArray(value)) {
    holder[key] = value.map((item) => {
      if (typeof item !== 'string') throw new VarError('invalid value type expect a string');
      return expand(item);
    });
  } else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) if (typeof v === 'string') value[k] = expand(v);
  }
}

/**
 * Substitute a build's vars. Each var is {name, objref, fieldref} as written. Resources are not changed; the
 * result holds copies.
 */
export function applyVars(resources: Resource[], vars: JsonObject[], origin: Origin): Resource[] {
  const values = new Map<string, VarValue | null>();
  vars.forEach((v, i) => {
    try {
      const name = str(v.name);
      if (!name) throw new VarError('a var needs a name');
      if (values.has(name)) throw new VarError(`var '${name}' already encountered`);
      values.set(name, resolve(resources, v));
    } catch (e) {
      if (e instanceof VarError) throw new KustomizeError(origin, `vars[${i}]`, e.message);
      throw e;
    }
  });
  const out = resources.map((r) => ({ ...r, object: structuredClone(r.object) }));
  if (values.size === 0) return out;
  const used = new Set<string>();
  const expand = (s: string) => expandVars(s, (n) => values.get(n) ?? undefined, used);
  for (const r of out) {
    for (const spec of VAR_REFERENCE) {
      if (spec.kind !== undefined && spec.kind !== r.object.kind) continue;
      try {
        visit(r.object, spec.path, (holder, key) => substitute(holder, key, expand));
      } catch (e) {
        if (e instanceof VarError) throw new KustomizeError(r.origin, spec.path.join('.'), e.message);
        throw e;
      }
    }
  }
  return out;
}
