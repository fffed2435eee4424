// Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource): a number with an optional binary
// (Ki Mi Gi Ti Pi Ei), decimal (n u m k M G T P E) or exponent (e3, E-2) suffix.

const binary: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const decimal: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };
const pattern = /^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

/** The quantity's value as a number, or undefined when it is not a quantity. */
export function parseQuantity(q: string | number): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  const m = pattern.exec(q.trim());
  if (!m) return undefined;
  const value = Number(m[1]);
  const suffix = m[2] ?? '';
  if (suffix in binary) return value * binary[suffix]!;
  if (suffix in decimal) return value * decimal[suffix]!;
  return value * 10 ** Number(suffix.slice(1));
}

/** Memory in bytes, rounded up as the kubelet does (Quantity.Value rounds up). */
export function memoryBytes(q: string | number): number | undefined {
  const v = parseQuantity(q);
  return v === undefined ? undefined : Math.ceil(v);
}

/** CPU in millicores, rounded up (Quantity.MilliValue). */
export function milliCpu(q: string | number): number | undefined {
  const v = parseQuantity(q);
  return v === undefined ? undefined : Math.ceil(Math.round(v * 1e6) / 1e3);
}
