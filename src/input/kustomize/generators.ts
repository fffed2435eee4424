// configMapGenerator and secretGenerator (api/internal/generators, api/kv): literals, files (key=path or the
// file's base name), env files (KEY=VALUE lines, # comments, a UTF-8 BOM dropped), in kustomize's order: envs,
// then literals, then files; a key given twice is an error. A ConfigMap keeps UTF-8 values in data and others in
// binaryData; a Secret's values are base64, broken into lines of 70 when longer. generatorOptions are merged
// under each generator's own options (its own labels and annotations win). Pure: file contents come from `read`.

import { formatPath } from '../../kube/path.js';
import { KustomizeError } from './errors.js';
import { isObject } from './gvk.js';
import { checkEntryFields, checkShape, type Kustomization } from './kustomization.js';
import type { JsonObject, JsonValue, Origin, Resource } from './resource.js';

export const needsHashAnnotation = 'internal.config.kubernetes.io/needsHashSuffix';
export const behaviorAnnotation = 'internal.config.kubernetes.io/generatorBehavior';

export type ReadBytes = (relPath: string, origin: Origin, field: string) => Uint8Array;

const generatorFields = ['name', 'namespace', 'behavior', 'literals', 'files', 'envs', 'env', 'options', 'type'];
const optionFields = ['labels', 'annotations', 'disableNameSuffixHash', 'immutable'];

interface Options {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  disableNameSuffixHash: boolean;
  immutable: boolean;
}

function readOptions(k: Kustomization, path: (string | number)[], v: JsonValue | undefined): Options | undefined {
  if (v === undefined || v === null) return undefined;
  const o = checkEntryFields(k, path, v, optionFields);
  const map = (key: string): Record<string, string> => {
    const m = o[key];
    if (m === undefined || m === null) return {};
    checkShape(k, [...path, key], m, 'stringMap');
    return { ...(m as Record<string, string>) };
  };
  for (const key of ['disableNameSuffixHash', 'immutable']) if (o[key] !== undefined) checkShape(k, [...path, key], o[key]!, 'bool');
  return { labels: map('labels'), annotations: map('annotations'), disableNameSuffixHash: o.disableNameSuffixHash === true, immutable: o.immutable === true };
}

/** A generator's options with the kustomization's generatorOptions under them (MergeGlobalOptionsIntoLocal). */
function mergeOptions(local: Options | undefined, global: Options | undefined): Options | undefined {
  if (global === undefined) return local;
  const out: Options = local ?? { labels: {}, annotations: {}, disableNameSuffixHash: false, immutable: false };
  for (const [key, val] of Object.entries(global.labels)) if (!(key in out.labels)) out.labels[key] = val;
  for (const [key, val] of Object.entries(global.annotations)) if (!(key in out.annotations)) out.annotations[key] = val;
  if (global.disableNameSuffixHash) out.disableNameSuffixHash = true;
  if (global.immutable) out.immutable = true;
  return out;
}

const configMapKey = /^[-._a-zA-Z0-9]+$/;
const envVarName = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/** Every generated object of a kustomization: ConfigMaps first, then Secrets, each in the order written. */
export function generate(k: Kustomization, read: ReadBytes): Array<{ resource: Resource; field: string }> {
  const global = readOptions(k, ['generatorOptions'], k.value.generatorOptions);
  const out: Array<{ resource: Resource; field: string }> = [];
  for (const kind of ['ConfigMap', 'Secret'] as const) {
    const field = kind === 'ConfigMap' ? 'configMapGenerator' : 'secretGenerator';
    const list = k.value[field];
    if (!Array.isArray(list)) continue;
    list.forEach((entry, i) => out.push({ resource: generateOne(k, kind, [field, i], entry, global, read), field: formatPath([field, i]) }));
  }
  return out;
}

function generateOne(k: Kustomization, kind: 'ConfigMap' | 'Secret', path: (string | number)[], entry: JsonValue, global: Options | undefined, read: ReadBytes): Resource {
  const g = checkEntryFields(k, path, entry, kind === 'Secret' ? generatorFields : generatorFields.filter((f) => f !== 'type'));
  const origin = k.at(path);
  const fail = (sub: (string | number)[], message: string, fix: string): never => {
    throw new KustomizeError(k.at([...path, ...sub]), formatPath([...path, ...sub]), message, fix);
  };
  for (const key of ['name', 'namespace', 'behavior', 'type', 'env']) if (g[key] !== undefined && g[key] !== null) checkShape(k, [...path, key], g[key]!, 'string');
  for (const key of ['literals', 'files', 'envs']) if (g[key] !== undefined && g[key] !== null) checkShape(k, [...path, key], g[key]!, 'strings');
  const name = typeof g.name === 'string' ? g.name : '';
  if (name === '') fail([], `a ${kind === 'ConfigMap' ? 'configMapGenerator' : 'secretGenerator'} entry needs a name`, 'add name:');
  const behavior = typeof g.behavior === 'string' ? g.behavior : 'create';
  if (!['create', 'merge', 'replace'].includes(behavior)) fail(['behavior'], `behavior ${JSON.stringify(behavior)}: expected create, merge or replace`, 'write one of them');
  const options = mergeOptions(readOptions(k, [...path, 'options'], g.options), global);

  const pairs: Array<{ key: string; value: Uint8Array; where: (string | number)[] }> = [];
  const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');
  const envs = [...((g.envs as string[] | undefined) ?? []), ...(typeof g.env === 'string' && g.env !== '' ? [g.env] : [])];
  envs.forEach((file, i) => {
    const where = typeof g.env === 'string' && i === envs.length - 1 && !(g.envs as string[] | undefined)?.includes(file) ? ['env'] : ['envs', i];
    const content = text(read(file, k.at([...path, ...where]), formatPath([...path, ...where])));
    content.split(/\r?\n/).forEach((raw, n) => {
      let line = n === 0 ? raw.replace(/^\ufeff/, '') : raw;
      line = line.replace(/^\s+/, '');
      if (line === '' || line.startsWith('#')) return;
      const eq = line.indexOf('=');
      const key = eq < 0 ? line : line.slice(0, eq);
      if (!envVarName.test(key)) fail(where, `${file} line ${n + 1}: ${JSON.stringify(key)} is not a valid environment variable name`, 'write KEY=VALUE lines');
      pairs.push({ key, value: Buffer.from(eq < 0 ? '' : line.slice(eq + 1), 'utf8'), where });
    });
  });
  ((g.literals as string[] | undefined) ?? []).forEach((lit, i) => {
    const eq = lit.indexOf('=');
    if (eq <= 0) fail(['literals', i], `invalid literal ${JSON.stringify(lit)}, expected key=value`, 'write KEY=VALUE');
    let value = lit.slice(eq + 1);
    // Quotes around the whole value are removed (kv.removeQuotes).
    if (value.length >= 2 && value[0] === value[value.length - 1] && (value[0] === '"' || value[0] === "'")) value = value.slice(1, -1);
    pairs.push({ key: lit.slice(0, eq), value: Buffer.from(value, 'utf8'), where: ['literals', i] });
  });
  ((g.files as string[] | undefined) ?? []).forEach((src, i) => {
    const eqs = src.split('=').length - 1;
    if (eqs > 1 || (eqs === 1 && (src.startsWith('=') || src.endsWith('='))))
      fail(['files', i], `file source ${JSON.stringify(src)}: expected [key=]path`, 'write key=path or a path');
    const [key, file] = eqs === 1 ? (src.split('=') as [string, string]) : [src.slice(src.lastIndexOf('/') + 1), src];
    pairs.push({ key, value: read(file, k.at([...path, 'files', i]), formatPath([...path, 'files', i])), where: ['files', i] });
  });

  const data: Record<string, Uint8Array> = {};
  for (const p of pairs) {
    if (!configMapKey.test(p.key)) fail(p.where, `${JSON.stringify(p.key)} is not a valid ${kind} key (letters, digits, -, _ and .)`, 'rename the key');
    if (p.key in data) fail(p.where, `${kind === 'ConfigMap' ? 'configmap' : 'secret'} ${name} repeats the key ${p.key}`, 'give each key once');
    data[p.key] = p.value;
  }
  const keys = Object.keys(data).sort();
  const metadata: JsonObject = { name };
  if (typeof g.namespace === 'string' && g.namespace !== '') metadata.namespace = g.namespace;
  const obj: JsonObject = { apiVersion: 'v1', kind, metadata };
  if (kind === 'Secret') obj.type = typeof g.type === 'string' && g.type !== '' ? g.type : 'Opaque';
  if (keys.length > 0) {
    if (kind === 'Secret') obj.data = Object.fromEntries(keys.map((key) => [key, secretBase64(data[key]!)]));
    else {
      const text: JsonObject = {};
      const binary: JsonObject = {};
      for (const key of keys) {
        const b = data[key]!;
        if (isUtf8(b)) text[key] = Buffer.from(b).toString('utf8');
        else binary[key] = Buffer.from(b).toString('base64');
      }
      if (Object.keys(text).length > 0) obj.data = text;
      if (Object.keys(binary).length > 0) obj.binaryData = binary;
    }
  }
  const labels = options?.labels ?? {};
  const annotations: Record<string, string> = { ...(options?.annotations ?? {}) };
  if (Object.keys(labels).length > 0)
    metadata.labels = Object.fromEntries(
      Object.keys(labels)
        .sort()
        .map((key) => [key, labels[key]!]),
    );
  if (options?.disableNameSuffixHash !== true) annotations[needsHashAnnotation] = 'enabled';
  annotations[behaviorAnnotation] = behavior;
  metadata.annotations = annotations;
  if (options?.immutable === true) obj.immutable = true;
  return { object: obj, origin, previousIds: [] };
}

function isUtf8(b: Uint8Array): boolean {
  return Buffer.isBuffer(b) ? isUtf8Buffer(b) : isUtf8Buffer(Buffer.from(b));
}
function isUtf8Buffer(b: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b);
    return true;
  } catch {
    return false;
  }
}

/** base64, and when 70 characters or more, in lines of 70 each ending with a newline (kyaml's encodeBase64). */
export function secretBase64(b: Uint8Array): string {
  const enc = Buffer.from(b).toString('base64');
  if (enc.length < 70) return enc;
  let out = '';
  for (let i = 0; i < enc.length; i += 70) out += `${enc.slice(i, i + 70)}\n`;
  return out;
}

export { isObject };
