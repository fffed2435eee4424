// Multi-document YAML (JSON is YAML) → plain values, each with a map from field path to the 1-based line where
// the field is written, so every problem can point at its line. Pure: text in, documents out.
//
// Lines come from js-yaml's undocumented `listener` option: it is called with ('open', state) as each node
// starts and ('close', state) when it is built, state.line being the parser's 0-based line. Recording each node's
// opening line and the nodes closed inside it gives a tree of nodes; a mapping's direct children are its keys and
// values in source order, a sequence's its items. A key opens on the line where it is written, which is the line
// a field is reported at.

import yaml from 'js-yaml';
import type { ManifestProblem } from '../errors.js';
import { type FieldPath, appendSegment, formatPath } from '../kube/path.js';

/** Field path (rendered by formatPath) → 1-based line. */
export type LineMap = ReadonlyMap<string, number>;

export interface YamlDocument {
  /** The parsed document: never null (empty documents are skipped). */
  value: unknown;
  /** 1-based line where the document's content starts. */
  line: number;
  lines: LineMap;
  /** Nodes written in the source (aliases count once); compared with the expanded size to catch alias bombs. */
  sourceNodes: number;
}

export interface ParsedYaml {
  documents: YamlDocument[];
  problems: ManifestProblem[];
}

interface NodeRecord {
  line: number; // 0-based, as js-yaml counts
  kind: string | null;
  tag: string | null;
  result: unknown;
  children: NodeRecord[];
}

const mergeTag = 'tag:yaml.org,2002:merge';

/** The problem of a text that holds no document (empty, or only comments). */
export const noDocuments = 'no documents';

/**
 * Kubernetes reads YAML with go-yaml's YAML 1.1 rules, where an integer written with a leading 0 is octal: the
 * `defaultMode: 0644` of countless manifests means 420, not 644. js-yaml follows YAML 1.2 (octal only as 0o644),
 * so this type, tried before the ordinary int, reads 0644 as Kubernetes does.
 */
const yaml11Octal = new yaml.Type('tag:runpod.local,2024:yaml11-octal-int', {
  kind: 'scalar',
  resolve: (data: unknown) => typeof data === 'string' && /^[-+]?0[0-7_]+$/.test(data),
  construct: (data: string) => {
    const sign = data.startsWith('-') ? -1 : 1;
    return sign * parseInt(data.replace(/^[-+]/, '').replace(/_/g, ''), 8);
  },
  predicate: () => false,
});
const { types } = yaml as unknown as { types: Record<'null' | 'bool' | 'int' | 'float' | 'timestamp' | 'merge' | 'binary' | 'omap' | 'pairs' | 'set', yaml.Type> };
const kubernetesSchema = yaml.FAILSAFE_SCHEMA.extend({
  implicit: [types.null, types.bool, yaml11Octal, types.int, types.float, types.timestamp, types.merge],
  explicit: [types.binary, types.omap, types.pairs, types.set],
});

/**
 * Parse every document of one file. A syntax error makes the whole file one problem (js-yaml stops there).
 * `fieldLines: false` leaves each document's field lines out (its `lines` empty, its start line kept): for a reader
 * that reports only at the document (kustomize's resource files), which saves walking every node.
 */
export function parseYaml(text: string, file: string, options: { fieldLines?: boolean } = {}): ParsedYaml {
  const tree = options.fieldLines !== false ? nodeTree() : undefined;
  const nodes = tree ?? rootsOnly();
  const values: unknown[] = [];
  try {
    yaml.loadAll(text, (doc) => values.push(doc), { filename: file, schema: kubernetesSchema, listener: nodes.listener });
  } catch (err) {
    if (err instanceof yaml.YAMLException) {
      const line = err.mark?.line;
      return {
        documents: [],
        problems: [{ file, ...(typeof line === 'number' ? { line: line + 1 } : {}), path: '', message: `invalid YAML: ${err.reason}` }],
      };
    }
    throw err;
  }

  const { roots, counts } = nodes;
  const documents: YamlDocument[] = [];
  values.forEach((value, i) => {
    // An empty document (a trailing "---", a file of comments) is skipped, as kubectl does.
    if (value === null || value === undefined) return;
    // loadAll composes exactly one root node per document; if that ever differs, lines are simply unknown.
    const root = roots.length === values.length ? roots[i] : undefined;
    const lines = new Map<string, number>();
    if (root !== undefined && tree !== undefined) collectLines(tree.roots[i]!, '', lines);
    documents.push({
      value,
      line: root !== undefined ? root.line + 1 : 1,
      lines,
      sourceNodes: counts[i] ?? 0,
    });
  });
  return {
    documents,
    problems: documents.length === 0 ? [{ file, path: '', message: noDocuments }] : [],
  };
}

type Listener = NonNullable<yaml.LoadOptions['listener']>;

/** What a listener gathers: each document's root node (its line at least) and how many nodes it opened. */
interface Nodes {
  listener: Listener;
  roots: Array<{ line: number }>;
  counts: number[];
}

/** Every node, with its line and the nodes closed inside it: the tree collectLines walks. */
function nodeTree(): Nodes & { roots: NodeRecord[] } {
  const roots: NodeRecord[] = [];
  const counts: number[] = [];
  const stack: NodeRecord[] = [];
  let nodeCount = 0;
  const listener: Listener = (event, state) => {
    if (event === 'open') {
      stack.push({ line: state.line, kind: null, tag: null, result: undefined, children: [] });
      nodeCount++;
      return;
    }
    const node = stack.pop();
    if (node === undefined) return;
    // js-yaml's State type omits `tag`; it is there (the merge key "<<" carries tag:yaml.org,2002:merge).
    const tag = (state as typeof state & { tag?: unknown }).tag;
    node.kind = typeof state.kind === 'string' ? state.kind : null;
    node.tag = typeof tag === 'string' ? tag : null;
    node.result = state.result;
    const parent = stack[stack.length - 1];
    if (parent !== undefined) parent.children.push(node);
    else {
      roots.push(node);
      counts.push(nodeCount);
      nodeCount = 0;
    }
  };
  return { listener, roots, counts };
}

/**
 * Only each document's root line and node count, as nodeTree gives them, from a nesting depth instead of a record
 * per node: a text read without field lines (kustomize's resource files) has no use for the tree.
 */
function rootsOnly(): Nodes {
  const roots: Array<{ line: number }> = [];
  const counts: number[] = [];
  let depth = 0;
  let rootLine = 0;
  let nodeCount = 0;
  const listener: Listener = (event, state) => {
    if (event === 'open') {
      if (depth === 0) rootLine = state.line;
      depth++;
      nodeCount++;
      return;
    }
    if (depth === 0) return;
    depth--;
    if (depth === 0) {
      roots.push({ line: rootLine });
      counts.push(nodeCount);
      nodeCount = 0;
    }
  };
  return { listener, roots, counts };
}

/**
 * Walk the node tree, recording each mapping value and sequence item at its key's (or item's) line. The path
 * travels rendered (formatPath's text, one segment appended per level), as the line map is keyed by it.
 */
function collectLines(outer: NodeRecord, path: string, lines: Map<string, number>): void {
  // A flow collection where a block mapping could start ("{a: 1}" as a document or "- {a: 1}") is first read as
  // a would-be key, then kept as the node itself: the real node is the only child, holding the same object. An alias
  // (kind null) is never unwrapped, so a self-referencing anchor cannot loop here.
  let node = outer;
  for (let only = node.children[0]; node.children.length === 1 && only !== undefined; only = node.children[0]) {
    if ((only.kind !== 'mapping' && only.kind !== 'sequence') || !Object.is(only.result, node.result)) break;
    node = only;
  }
  if (node.kind === 'sequence') {
    if (!Array.isArray(node.result)) return;
    // Items are the children in order, matched by value: an empty "-" entry stores null without composing a node,
    // and a "[a: 1]" entry builds its pair object outside any node, so a child is taken only when it is the item.
    const items: unknown[] = node.result;
    let k = 0;
    items.forEach((item, index) => {
      const kid = node.children[k];
      if (kid === undefined || !Object.is(kid.result, item)) return;
      k++;
      const itemPath = appendSegment(path, index);
      record(lines, itemPath, kid.line);
      collectLines(kid, itemPath, lines);
    });
    return;
  }
  if (node.kind !== 'mapping' || node.result === null || typeof node.result !== 'object') return;
  const mapping = node.result as Record<string, unknown>;
  const kids = node.children;
  for (let i = 0; i < kids.length; ) {
    const key = kids[i]!;
    const value = kids[i + 1];
    // A merge key ("<<: *base") and its value: the merged fields have no line of their own, and are reported at
    // the nearest ancestor's line.
    if (key.tag === mergeTag) {
      i += 2;
      continue;
    }
    // A trailing record with no result is the parser probing for one more key at the end of the mapping.
    if (key.kind !== 'scalar' || key.result === null || key.result === undefined) {
      i += 1;
      continue;
    }
    const name = String(key.result);
    const keyPath = appendSegment(path, name);
    record(lines, keyPath, key.line);
    // A key written without a value ("? k", "{a, b}") composes no value node: pair it only when the next record
    // is the value stored under it.
    if (value !== undefined && Object.hasOwn(mapping, name) && Object.is(mapping[name], value.result)) {
      collectLines(value, keyPath, lines);
      i += 2;
    } else {
      i += 1;
    }
  }
}

function record(lines: Map<string, number>, key: string, line0: number): void {
  if (!lines.has(key)) lines.set(key, line0 + 1);
}

/** The line of a field, or of its nearest ancestor that has one (fields merged in by "<<" or from an alias). */
export function lineOf(lines: LineMap, path: FieldPath): number | undefined {
  for (let n = path.length; n > 0; n--) {
    const line = lines.get(formatPath(path.slice(0, n)));
    if (line !== undefined) return line;
  }
  return undefined;
}

export type ExpansionCheck = { ok: true } | { ok: false; reason: 'cycle' | 'too large'; expanded: number };

/**
 * How many nodes a document holds once aliases are expanded, counted without expanding them (each shared object is
 * counted once and its size reused), so the check itself is linear in the source. Anything that walks the document
 * as a tree (the schema validator, defaulting, a later JSON dump for hashing) costs the expanded size; a few aliases
 * that reuse an env list are fine, a "billion laughs" document or a self-referencing anchor is refused. The limit
 * follows go-yaml v3 (used by kubectl), which refuses excessive aliasing rather than expanding it.
 */
export function checkExpansion(value: unknown, sourceNodes: number): ExpansionCheck {
  const limit = Math.max(maxExpandedNodes, 2 * sourceNodes);
  const sizes = new Map<object, number>();
  const inProgress = new Set<object>();
  let cycle = false;
  const size = (v: unknown): number => {
    if (v === null || typeof v !== 'object') return 1;
    const known = sizes.get(v);
    if (known !== undefined) return known;
    if (inProgress.has(v)) {
      cycle = true;
      return 1;
    }
    inProgress.add(v);
    let total = 1;
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const child of children) {
      total += size(child);
      if (cycle) break;
      // Saturate: the exact count of a bomb does not matter, and it would overflow to Infinity.
      if (total > limit) {
        total = limit + 1;
        break;
      }
    }
    inProgress.delete(v);
    sizes.set(v, total);
    return total;
  };
  // A recursive descent can be as deep as the document; js-yaml already caps nesting at depth 100.
  const expanded = size(value);
  if (cycle) return { ok: false, reason: 'cycle', expanded };
  if (expanded > limit) return { ok: false, reason: 'too large', expanded };
  return { ok: true };
}

/** No Pod needs a million fields and list items; a few aliases in a large file may still double it. */
export const maxExpandedNodes = 1_000_000;
