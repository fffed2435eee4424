// Values only the engine knows, referred to from the pure plan by a marker that apply replaces just before a
// container is created: the pod's IP and the host's (status.podIP, status.hostIP: the infra container exists by
// then), the engine host's name and capacity (spec.nodeName; a resourceFieldRef whose limit is unset reads the
// node's allocatable), and a named volume's directory on the engine host (a subPath mount on Docker before 26).
//
// Why markers and not values: the plan stays pure (same Pod, same plan, same hashes), and a hash covers the
// reference, not the value. A new pod IP comes only with a new infra container, which replaces every container
// anyway (decide.ts), so no container is ever left with a stale value.
//
// A marker is NUL-delimited: no value a user writes can contain NUL (the kernel's execve refuses it in env and
// argv), so a marker cannot be forged or met by accident, and one left unreplaced fails the create loudly.

const open = '\u0000runpod:';
const close = '\u0000';
const pattern = /\u0000runpod:([^\u0000]*)\u0000/g;

export type RuntimeKey = 'status.podIP' | 'status.hostIP' | 'spec.nodeName' | `node.cpu/${number}` | `node.memory/${number}` | `mountpoint/${string}`;

export function runtimeRef(key: RuntimeKey): string {
  return `${open}${key}${close}`;
}

/** The keys a string refers to. */
export function runtimeKeys(s: string): string[] {
  return [...s.matchAll(pattern)].map((m) => m[1]!);
}

export function hasRuntimeRef(value: unknown): boolean {
  return JSON.stringify(value ?? null).includes('\\u0000runpod:');
}

/** Every string in a JSON-like value with its markers replaced. */
export function substituteRuntime<T>(value: T, resolve: (key: string) => string): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.includes(open) ? v.replace(pattern, (_, k: string) => resolve(k)) : v;
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, child] of Object.entries(v)) out[k] = walk(child);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}

/** For people (--dry-run): a marker shown as $(runpod:<key>), resolved when the container is created. */
export function showRuntime<T>(value: T): T {
  return substituteRuntime(value, (k) => `$(runpod:${k})`);
}
