// Objects as YAML decodes them: a mapping, and a short description of any value for messages. Pure.

export type Obj = Record<string, unknown>;

/** A YAML mapping; not a list, and not a timestamp or binary scalar (which js-yaml builds as objects). */
export function isObj(v: unknown): v is Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A short description of a value for messages: "abc", 42, true, null, a list, a mapping. */
export function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 37)}...` : v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v)) return 'a list';
  if (v instanceof Date) return 'a timestamp';
  if (isObj(v)) return 'a mapping';
  return typeof v;
}
