// Objects printed as `kubectl kustomize` prints them: documents joined by "---", every mapping's keys sorted (it
// prints objects decoded into Go maps), two spaces of indent, a list's "- " at its key's column, and scalars styled
// as go-yaml v3 styles them: plain where a plain scalar reads back as the same string, double quotes where it
// would read as another type ("true", "1.5", "null", YAML 1.1's yes/no/on/off), single quotes where a plain
// scalar is not allowed (": ", " #", a leading indicator, spaces at either end), a literal block for several lines;
// and a long plain or quoted scalar folded at a space once its line is past 80 columns (go-yaml's best width),
// continued on the next line at the value's indent. Pure.

import { appendSegment } from '../../kube/path.js';
import { isObject } from './gvk.js';
import type { JsonObject, JsonValue } from './resource.js';

export function printDocuments(objects: readonly JsonObject[]): string {
  const out = new Out(false);
  printAll(out, objects);
  return out.text;
}

/** A printed document as parseYaml reads it back: its value (keys in printed order), first line and field lines. */
export interface PrintedDocument {
  value: JsonObject;
  /** 1-based line where the document's content starts. */
  line: number;
  /** Field path (formatPath's text) → 1-based line of its key or list item, as parseYaml maps them. */
  lines: Map<string, number>;
  /** The values it holds (no aliases are ever printed): its expanded size. */
  nodes: number;
}

/**
 * The text printDocuments prints, and its documents as parseYaml would read them back from it, made while printing:
 * a rendered kustomization is validated as this text with its lines, and reading back what was just printed parsed
 * the YAML of `validate -k` a second time. Undefined documents when a key prints on several lines (no Kubernetes
 * object has one): only parsing knows where such a key's value starts.
 */
export function printDocumentsWithLines(objects: readonly JsonObject[]): { text: string; documents: PrintedDocument[] | undefined } {
  const out = new Out(true);
  const documents: PrintedDocument[] = [];
  printAll(out, objects, (object, line, lines, nodes) => {
    // An object with no field prints nothing: an empty document, which a reader skips.
    if (Object.keys(object).length > 0) documents.push({ value: object, line, lines, nodes });
  });
  return { text: out.text, documents: out.multiLineKey ? undefined : documents };
}

/** The text, and while `tracking`, the line the next character goes on and each field's line. */
class Out {
  text = '';
  line = 1;
  lines = new Map<string, number>();
  nodes = 0;
  multiLineKey = false;
  constructor(readonly tracking: boolean) {}

  write(s: string): void {
    this.text += s;
    if (!this.tracking) return;
    for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) this.line++;
  }

  /** The field at path starts on the current line (the first such place counts, as in parseYaml). */
  at(path: string): void {
    if (this.tracking && !this.lines.has(path)) this.lines.set(path, this.line);
  }
}

type DocumentDone = (copy: JsonObject, line: number, lines: Map<string, number>, nodes: number) => void;

function printAll(out: Out, objects: readonly JsonObject[], done?: DocumentDone): void {
  objects.forEach((o, i) => {
    if (i > 0) out.write('---\n');
    const line = out.line;
    out.lines = new Map();
    out.nodes = 1;
    const copy = printValue(out, o, 0, '', '');
    done?.(copy, line, out.lines, out.nodes);
  });
}

/**
 * A mapping's fields, keys sorted, at indent; the first line starts with `lead` (a list item's "- ") instead of the
 * indent. Returns the mapping as a reader gets it back: its keys in the printed order.
 */
function printValue(out: Out, value: JsonObject, indent: number, path: string, lead: string | undefined): JsonObject {
  const pad = ' '.repeat(indent);
  const copy: JsonObject = {};
  let first = lead;
  // The default sort orders by UTF-16 code units, as comparing with `<` does, without calling a comparator per pair.
  for (const key of Object.keys(value).sort()) {
    const v = value[key]!;
    const k = scalar(key, indent, -1);
    if (k.includes('\n')) out.multiLineKey = true;
    const keyPath = out.tracking ? appendSegment(path, key) : '';
    out.write(first ?? pad);
    first = undefined;
    out.at(keyPath);
    out.write(`${k}:`);
    copy[key] = afterKey(out, v, indent, indent + k.length + 2, keyPath);
  }
  return copy;
}

/** What follows "key:" — an inline scalar or empty collection, or a nested block. */
function afterKey(out: Out, v: JsonValue, indent: number, column: number, path: string): JsonValue {
  out.nodes++;
  if (isObject(v)) {
    if (Object.keys(v).length === 0) {
      out.write(' {}\n');
      return {};
    }
    out.write('\n');
    return printValue(out, v, indent + 2, path, undefined);
  }
  if (Array.isArray(v)) {
    if (v.length === 0) {
      out.write(' []\n');
      return [];
    }
    out.write('\n');
    return printList(out, v, indent, path, undefined);
  }
  out.write(` ${scalar(v, indent + 2, column)}\n`);
  return readBack(v);
}

/** A list's items at indent; the first item's line starts with `lead` instead of the indent. */
function printList(out: Out, list: JsonValue[], indent: number, path: string, lead: string | undefined): JsonValue[] {
  const pad = ' '.repeat(indent);
  const copy: JsonValue[] = [];
  list.forEach((item, i) => {
    const itemPath = out.tracking ? appendSegment(path, i) : '';
    const start = i === 0 && lead !== undefined ? lead : pad;
    out.nodes++;
    if (isObject(item)) {
      if (Object.keys(item).length === 0) {
        out.write(start);
        out.at(itemPath);
        out.write('- {}\n');
        copy.push({});
        return;
      }
      // The first key goes on the dash's line, the others under it.
      out.at(itemPath);
      copy.push(printValue(out, item, indent + 2, itemPath, `${start}- `));
    } else if (Array.isArray(item)) {
      if (item.length === 0) {
        out.write(start);
        out.at(itemPath);
        out.write('- []\n');
        copy.push([]);
      } else {
        out.at(itemPath);
        copy.push(printList(out, item, indent + 2, itemPath, `${start}- `));
      }
    } else {
      out.write(start);
      out.at(itemPath);
      out.write(`- ${scalar(item, indent + 2, indent + 2)}\n`);
      copy.push(readBack(item));
    }
  });
  return copy;
}

/** A scalar as reading its printed form gives it back: -0 prints as 0. */
function readBack(v: JsonValue): JsonValue {
  return v === 0 ? 0 : v;
}

/** A scalar starting at `column` (-1: a key, never folded), continued at `indent` when folded. */
function scalar(v: JsonValue, indent: number, column: number): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return formatNumber(v);
  if (typeof v === 'string') return formatString(v, indent, column);
  return JSON.stringify(v);
}

const bestWidth = 80;

/**
 * go-yaml's folding of a flow scalar (plain, single- or double-quoted) written from `column`: at a space that
 * follows a non-space, when the line is already past the best width and the next character is no space, the
 * space becomes a line break and the indent. Quoted scalars never fold at their first or last character; a
 * double-quoted one whose next character is a space ends its line with "\\" so that the space is kept.
 */
function fold(text: string, indent: number, column: number, kind: 'plain' | 'single' | 'double'): string {
  if (column < 0) return text;
  // Most scalars cannot fold: no space in them, or none past the best width (a character's column is at most the
  // start column plus its UTF-16 offset, so text.length bounds it).
  if (!text.includes(' ') || column + text.length - 1 <= bestWidth) return text;
  const chars = [...text];
  let out = '';
  let col = column;
  let spaces = false;
  const inner = kind === 'plain' ? [0, chars.length] : [1, chars.length - 1];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const inside = i >= inner[0]! && i < inner[1]!;
    const first = i === inner[0];
    const last = i === inner[1]! - 1;
    if (c === ' ' && inside) {
      const next = chars[i + 1];
      const foldHere = !spaces && col > bestWidth && (kind === 'plain' ? next !== ' ' : !first && !last && (kind === 'double' || next !== ' '));
      if (foldHere) {
        out += `\n${' '.repeat(indent)}`;
        col = indent;
        if (kind === 'double' && next === ' ') {
          out += '\\';
          col++;
        }
      } else {
        out += c;
        col++;
      }
      spaces = true;
      continue;
    }
    out += c;
    col++;
    spaces = false;
  }
  return out;
}

function formatNumber(n: number): string {
  if (Number.isInteger(n) || !Number.isFinite(n)) return Number.isFinite(n) ? String(n) : n > 0 ? '.inf' : n < 0 ? '-.inf' : '.nan';
  // Go's 'g' formatting writes a two-digit exponent at least.
  return String(n).replace(/e([+-])(\d)$/, 'e$10$2');
}

// The words YAML 1.1 reads as null or a boolean.
const nullOrBool = new Set('null Null NULL true True TRUE false False FALSE y Y yes Yes YES n N no No NO on On ON off Off OFF'.split(' '));

/** Plain scalars go-yaml v3 (and YAML 1.1 readers) resolve to something other than this string. */
function resolvesToOther(s: string): boolean {
  if (s === '' || s === '~' || s === '<<') return true;
  if (nullOrBool.has(s)) return true;
  // Every number, infinity, NaN, sexagesimal and timestamp below starts with a digit, a sign or a dot: most strings
  // (names, images, paths) need none of the patterns, and this runs for every scalar printed.
  const c = s.charCodeAt(0);
  if (!((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46)) return false;
  if (/^[-+]?(0|[1-9][0-9_]*)$/.test(s) || /^[-+]?0[0-7_]+$/.test(s) || /^[-+]?0b[01_]+$/.test(s) || /^[-+]?0o[0-7_]+$/.test(s) || /^[-+]?0x[0-9a-fA-F_]+$/.test(s)) return true;
  if (/^[-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?$/.test(s)) return true;
  if (/^[-+]?\.(inf|Inf|INF)$/.test(s) || /^\.(nan|NaN|NAN)$/.test(s)) return true;
  // YAML 1.1 sexagesimal numbers (190:20:30) and timestamps read back as numbers and times.
  if (/^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$/.test(s)) return true;
  if (/^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ].*)?$/.test(s)) return true;
  return false;
}

// Characters go-yaml writes only escaped, in double quotes.
// eslint-disable-next-line no-control-regex
const special = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufeff\ufffe\uffff]/;

// A word that starts with a letter or digit and holds no space, colon, hash, quote or bracket: plain (below).
const simpleWord = /^[A-Za-z0-9][A-Za-z0-9_./=-]*$/;

function plainAllowed(s: string): boolean {
  if (simpleWord.test(s)) return true;
  if (s.startsWith('---') || s.startsWith('...')) return false;
  const first = s[0]!;
  if ('#,[]{}&*!|>\'"%@`'.includes(first)) return false;
  if ('-?:'.includes(first) && (s.length === 1 || s[1] === ' ' || s[1] === '\t')) return false;
  if (/^\s|\s$/.test(s)) return false;
  if (/: |:$/.test(s) || / #/.test(s) || /:\t/.test(s) || /\t#/.test(s)) return false;
  if (s.includes('\t')) return false;
  return true;
}

function formatString(s: string, indent: number, column: number): string {
  if (special.test(s)) return fold(doubleQuoted(s), indent, column, 'double');
  if (s.includes('\n')) {
    // A literal block cannot keep spaces before a line break or a line of only spaces after text (go-yaml's
    // analysis refuses a block then), nor tabs' alignment: double quotes instead.
    if (/ \n|\t/.test(s) || / $/.test(s) || (/\n /.test(s) && /\n\n/.test(s))) return fold(doubleQuoted(s), indent, column, 'double');
    return literal(s, indent);
  }
  if (resolvesToOther(s)) return fold(doubleQuoted(s), indent, column, 'double');
  if (plainAllowed(s)) return fold(s, indent, column, 'plain');
  return fold(`'${s.replace(/'/g, "''")}'`, indent, column, 'single');
}

function doubleQuoted(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\u009f\ufeff\ufffe\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}

function literal(s: string, indent: number): string {
  const trailing = /\n+$/.exec(s)?.[0].length ?? 0;
  const chomp = trailing === 0 ? '-' : trailing === 1 ? '' : '+';
  const indicator = s.startsWith(' ') || s.startsWith('\n') ? '2' : '';
  const body = trailing > 0 ? s.slice(0, s.length - 1) : s;
  const pad = ' '.repeat(indent);
  const lines = body.split('\n').map((l) => (l === '' ? '' : pad + l));
  return `|${indicator}${chomp}\n${lines.join('\n')}`.replace(/\n$/, '\n');
}
