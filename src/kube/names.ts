// Deterministic names and uids, so two runpod processes working on the same pod meet on the engine's
// name uniqueness instead of creating two pods.
import { nodeCrypto } from '../lazyBuiltins.js';

/**
 * metadata.uid when the manifest gives one, else a UUID-shaped hash of namespace/name (a name-based UUID in
 * the style of RFC 4122 version 5, with a SHA-256 digest): the same pod always gets the same uid. Under an
 * isolation key (project.ts) the uid is a hash of the key with the given uid or namespace/name, so one manifest
 * run under two keys gives two pods whose names, volumes and labels never meet.
 */
export function podUid(namespace: string, name: string, given?: string, project?: string): string {
  if (given && project === undefined) return given;
  const seed = project === undefined ? `runpod/${namespace}/${name}` : `runpod/${project}/${given ? `uid/${given}` : `${namespace}/${name}`}`;
  const h = nodeCrypto().createHash('sha256').update(seed).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * k8s_<container>_<pod>_<namespace>_<uid>_<attempt>; the infra container's <container> is POD. Under an isolation
 * key the namespace part is <namespace>.<key> (neither holds a dot, so it reads back unambiguously in docker ps).
 */
export function dockerContainerName(container: string, pod: string, namespace: string, uid: string, attempt: number, project?: string): string {
  return `k8s_${container}_${pod}_${namespacePart(namespace, project)}_${uid}_${attempt}`;
}

/** The namespace as engine names carry it: <namespace>, or <namespace>.<key> under an isolation key. */
export function namespacePart(namespace: string, project?: string): string {
  return project === undefined ? namespace : `${namespace}.${project}`;
}

/** A short, stable hex digest of a JSON value with sorted keys: the same spec always hashes the same. */
export function specHash(value: unknown): string {
  return nodeCrypto().createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 16);
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

/**
 * Does an instance carrying this hash label run the container's current spec (resources a resizePolicy applies in
 * place aside)? Its hash, or the full hash an instance made before in-place resize carries (translate.ts).
 */
export function sameSpec(hash: string, c: { hash: string; fullHash?: string }): boolean {
  return hash === c.hash || (c.fullHash !== undefined && hash === c.fullHash);
}
