// JSON patch (RFC 6902) as kustomize applies it (api/filters/patchjson6902, which hands the ops to
// evanphx/json-patch v4): add, remove, replace, move, copy, test on JSON pointers (RFC 6901: `~1` is `/`, `~0` is
// `~`; `-` is the end of a list for add). As in json-patch v4, a negative list index counts from the end, a
// replace or remove of a missing member is an error, and add needs the parent to exist. Pure: the object given
// is not changed, the result is a new one.

import type { JsonObject, JsonValue } from './resource.js';
import { isObject } from './gvk.js';

/** An op that cannot be applied: its index in the patch, its path, and why. */
export class JsonPatchError extends Error {
  override name = 'JsonPatchError';
  constructor(
    readonly index: number,
    readonly path: string,
    readonly problem: string,
  ) {
    super(`op ${index}${path ? ` (path ${path})` : ''}: ${problem}`);
  }
}

const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/** The reference tokens of a JSON pointer. */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`a JSON pointer starts with "/" (got ${JSON.stringify(pointer)})`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function deepEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

class Doc {
  constructor(public root: JsonValue) {}

  /** The container holding the last token, and that token. */
  private parent(tokens: string[]): { container: JsonValue; key: string } {
    let cur: JsonValue = this.root;
    for (const t of tokens.slice(0, -1)) {
      const next: JsonValue | undefined = Array.isArray(cur) ? cur[this.index(cur, t, false)] : isObject(cur) ? cur[t] : undefined;
      if (next === undefined || next === null || typeof next !== 'object') throw new Error(`${t} is not an object or list here`);
      cur = next;
    }
    return { container: cur, key: tokens[tokens.length - 1]! };
  }

  private index(list: JsonValue[], token: string, forAdd: boolean): number {
    if (!/^-?(0|[1-9][0-9]*)$/.test(token)) throw new Error(`${JSON.stringify(token)} is not a list index`);
    let i = Number(token);
    const limit = forAdd ? list.length : list.length - 1;
    if (i < 0) {
      if (i < -list.length) throw new Error(`index ${token} is out of the list's bounds (${list.length} elements)`);
      i += list.length;
    }
    if (i > limit) throw new Error(`index ${token} is out of the list's bounds (${list.length} elements)`);
    return i;
  }

  get(tokens: string[]): JsonValue {
    if (tokens.length === 0) return this.root;
    const { container, key } = this.parent(tokens);
    if (Array.isArray(container)) return container[this.index(container, key, false)]!;
    if (isObject(container) && key in container) return container[key]!;
    throw new Error('no value at this path');
  }

  add(tokens: string[], value: JsonValue): void {
    if (tokens.length === 0) {
      this.root = value;
      return;
    }
    const { container, key } = this.parent(tokens);
    if (Array.isArray(container)) {
      if (key === '-') container.push(value);
      else container.splice(this.index(container, key, true), 0, value);
    } else if (isObject(container)) container[key] = value;
    else throw new Error('the parent is not an object or list');
  }

  remove(tokens: string[]): JsonValue {
    if (tokens.length === 0) throw new Error('the whole document cannot be removed');
    const { container, key } = this.parent(tokens);
    if (Array.isArray(container)) return container.splice(this.index(container, key, false), 1)[0]!;
    if (isObject(container) && key in container) {
      const old = container[key]!;
      delete container[key];
      return old;
    }
    throw new Error('no value at this path to remove');
  }

  replace(tokens: string[], value: JsonValue): void {
    if (tokens.length === 0) {
      this.root = value;
      return;
    }
    const { container, key } = this.parent(tokens);
    if (Array.isArray(container)) container[this.index(container, key, false)] = value;
    else if (isObject(container) && key in container) container[key] = value;
    else throw new Error('no value at this path to replace');
  }
}

/** Apply JSON patch ops to an object. Throws JsonPatchError naming the op's index and path. */
export function applyJson6902(object: JsonObject, ops: JsonValue[]): JsonObject {
  const doc = new Doc(structuredClone(object));
  ops.forEach((raw, index) => {
    if (!isObject(raw)) throw new JsonPatchError(index, '', 'an op is an object with op and path');
    const op = raw.op;
    const path = raw.path;
    if (typeof op !== 'string' || !OPS.has(op)) {
      throw new JsonPatchError(index, typeof path === 'string' ? path : '', `op must be one of add, remove, replace, move, copy, test (got ${JSON.stringify(op ?? null)})`);
    }
    if (typeof path !== 'string') throw new JsonPatchError(index, '', `${op} needs a path`);
    try {
      const tokens = parsePointer(path);
      const value = raw.value === undefined ? null : structuredClone(raw.value);
      switch (op) {
        case 'add':
          doc.add(tokens, value);
          break;
        case 'remove':
          doc.remove(tokens);
          break;
        case 'replace':
          doc.get(tokens);
          doc.replace(tokens, value);
          break;
        case 'move':
        case 'copy': {
          if (typeof raw.from !== 'string') throw new Error(`${op} needs from`);
          const from = parsePointer(raw.from);
          if (op === 'move' && raw.from !== path && path.startsWith(`${raw.from}/`)) {
            throw new Error(`cannot move ${raw.from} into one of its own members`);
          }
          const v = op === 'move' ? doc.remove(from) : structuredClone(doc.get(from));
          doc.add(tokens, v);
          break;
        }
        case 'test': {
          let actual: JsonValue | undefined;
          try {
            actual = doc.get(tokens);
          } catch {
            actual = undefined;
          }
          if (!deepEqual(actual, raw.value === undefined ? null : raw.value)) {
            throw new Error(`test failed: the value is ${JSON.stringify(actual ?? null)}, the patch expects ${JSON.stringify(raw.value ?? null)}`);
          }
          break;
        }
      }
    } catch (e) {
      if (e instanceof JsonPatchError) throw e;
      throw new JsonPatchError(index, path, e instanceof Error ? e.message : String(e));
    }
  });
  if (!isObject(doc.root)) throw new JsonPatchError(ops.length - 1, '', 'the patch did not leave an object');
  return doc.root;
}
