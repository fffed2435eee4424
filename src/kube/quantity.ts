// Resource quantities as the numbers the engine takes. Parsing is the manifest layer's exact one
// (k8s.io/apimachinery/pkg/api/resource syntax); here only the rounding the kubelet applies.
import { type Quantity, parseQuantity } from './syntax.js';

/** ceil(q × 10^scale), exactly (Quantity.Value rounds up; MilliValue is scale 3). */
function ceilScaled(q: Quantity, scale: number): number {
  const e = q.exp10 + scale;
  const base = q.digits * 2n ** BigInt(q.exp2);
  let magnitude: bigint;
  if (e >= 0) magnitude = base * 10n ** BigInt(e);
  else {
    const d = 10n ** BigInt(-e);
    magnitude = q.negative ? base / d : (base + d - 1n) / d;
  }
  return Number(q.negative ? -magnitude : magnitude);
}

/** Memory in bytes, rounded up; undefined when not a quantity. */
export function memoryBytes(v: string | number): number | undefined {
  const q = parseQuantity(v);
  return q === undefined ? undefined : ceilScaled(q, 0);
}

/** CPU in millicores, rounded up; undefined when not a quantity. */
export function milliCpu(v: string | number): number | undefined {
  const q = parseQuantity(v);
  return q === undefined ? undefined : ceilScaled(q, 3);
}
