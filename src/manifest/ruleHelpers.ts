// Small helpers the kinds' rule files share (workloadRules.ts, serviceRules.ts, validate.ts). Pure.
import type { FieldPath } from '../kube/path.js';

/** What the rules report problems into: a field path and the problem there. */
export interface ProblemAdder {
  add(path: FieldPath, problem: string): void;
}

/** A list field's items; anything else (absent, or the schema's problem) as none. */
export function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Given (not absent, not null). */
export function set(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/** Add the problem, when there is one; whether there was. */
export function report(sink: ProblemAdder, path: FieldPath, problem: string | undefined): boolean {
  if (problem === undefined) return false;
  sink.add(path, problem);
  return true;
}

/** The value at a path inside a document; undefined where the path leaves it. */
export function valueAt(root: unknown, path: FieldPath): unknown {
  let node = root;
  for (const seg of path) {
    if (Array.isArray(node) && typeof seg === 'number') node = node[seg];
    else if (node !== null && typeof node === 'object' && !Array.isArray(node) && typeof seg === 'string') node = (node as Record<string, unknown>)[seg];
    else return undefined;
  }
  return node;
}
