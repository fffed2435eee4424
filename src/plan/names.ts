// Deterministic names and uids, so two runpod processes working on the same pod meet on the engine's
// name uniqueness instead of creating two pods.
import { createHash } from 'node:crypto';

/**
 * metadata.uid when the manifest gives one, else a UUID-shaped hash of namespace/name (a name-based UUID in
 * the style of RFC 4122 version 5, with a SHA-256 digest): the same pod always gets the same uid.
 */
export function podUid(namespace: string, name: string, given?: string): string {
  if (given) return given;
  const h = createHash('sha256').update(`runpod/${namespace}/${name}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** k8s_<container>_<pod>_<namespace>_<uid>_<attempt>; the infra container's <container> is POD. */
export function dockerContainerName(container: string, pod: string, namespace: string, uid: string, attempt: number): string {
  return `k8s_${container}_${pod}_${namespace}_${uid}_${attempt}`;
}

/** A short, stable hex digest of a JSON value with sorted keys: the same spec always hashes the same. */
export function specHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 16);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
