// The name suffix kustomize gives a generated ConfigMap or Secret (api/hasher): the JSON encoding, keys sorted,
// of the fields that make its content, its SHA-256 in hex, the first 10 characters with 0, 1, 3, a and e replaced
// (by g, h, k, m and t: no vowel, no digit lookalike to spell a word). The name in that encoding is always "":
// kustomize looks the name up as one field called "metadata/name", which no object has, so two generators of
// one content hash alike whatever their names. Go's encoder escapes <, >, & and U+2028/2029 as \uXXXX. Pure.

import { createHash } from 'node:crypto';
import { isObject } from './gvk.js';
import type { JsonObject, JsonValue } from './resource.js';

/** JSON as Go's encoding/json writes a map: keys sorted, HTML characters escaped. */
export function goJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${keys.map((k) => `${goString(k)}:${goJson(value[k]!)}`).join(',')}}`;
  }
  if (typeof value === 'string') return goString(value);
  return JSON.stringify(value);
}

function goString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const mapOrEmpty = (v: JsonValue | undefined): JsonValue => (isObject(v) ? v : '');

export function encodeForHash(obj: JsonObject): string {
  if (obj.kind === 'ConfigMap') {
    const m: JsonObject = { kind: 'ConfigMap', name: '', data: mapOrEmpty(obj.data) };
    if (isObject(obj.binaryData)) m.binaryData = obj.binaryData;
    return goJson(m);
  }
  if (obj.kind === 'Secret') {
    const m: JsonObject = { kind: 'Secret', type: typeof obj.type === 'string' ? obj.type : '', name: '', data: mapOrEmpty(obj.data) };
    if (isObject(obj.stringData)) m.stringData = obj.stringData;
    return goJson(m);
  }
  return goJson(obj);
}

export function encodeHash(hex: string): string {
  const swap: Record<string, string> = { '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' };
  return hex.slice(0, 10).replace(/[013ae]/g, (c) => swap[c]!);
}

export function nameHash(obj: JsonObject): string {
  return encodeHash(createHash('sha256').update(encodeForHash(obj), 'utf8').digest('hex'));
}
