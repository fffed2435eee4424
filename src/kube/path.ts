// Field paths inside a document, and their kubectl-style rendering (spec.containers[0].image).

/** One step into a document: a mapping key or a sequence index. */
export type PathSegment = string | number;
export type FieldPath = readonly PathSegment[];

// Keys that read unambiguously after a dot; anything else (label keys with '.' or '/') is bracketed and quoted,
// so a rendered path maps back to exactly one field.
const plainKey = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** Render a path the way kubectl prints field paths: spec.containers[1].ports[0].containerPort. */
export function formatPath(path: FieldPath): string {
  let out = '';
  for (const seg of path) out = appendSegment(out, seg);
  return out;
}

/** formatPath of a path one segment longer, from the rendering of the path: a walk need not re-render the prefix. */
export function appendSegment(rendered: string, seg: PathSegment): string {
  if (typeof seg === 'number') return `${rendered}[${seg}]`;
  if (plainKey.test(seg)) return rendered === '' ? seg : `${rendered}.${seg}`;
  return `${rendered}[${JSON.stringify(seg)}]`;
}

/** True when `path` is `ancestor` or lies under it. */
export function isWithin(path: FieldPath, ancestor: FieldPath): boolean {
  if (ancestor.length > path.length) return false;
  return ancestor.every((seg, i) => seg === path[i]);
}

/**
 * Parse an ajv instancePath (/spec/containers/0/image, RFC 6901 escapes) into segments. A segment is an index
 * only where the document holds a sequence, so an all-digit mapping key (a label "123") stays a key.
 */
export function fromJsonPointer(pointer: string, root: unknown): PathSegment[] {
  if (pointer === '') return [];
  const out: PathSegment[] = [];
  let node: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      const index = Number(key);
      out.push(index);
      node = node[index];
    } else {
      out.push(key);
      node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
    }
  }
  return out;
}
