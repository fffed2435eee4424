// Kubernetes' value syntaxes (k8s.io/apimachinery/pkg/util/validation and pkg/api/resource), as pure checks that
// return a human message for a bad value, or undefined when the value is fine.

import { isIP } from 'node:net';

const dns1123LabelRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123SubdomainRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const qualifiedNamePartRe = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** IsDNS1123Label: at most 63 characters, lowercase alphanumerics and '-', alphanumeric at both ends. */
export function dns1123Label(v: string): string | undefined {
  if (v.length > 63) return `must be no more than 63 characters (has ${v.length})`;
  if (!dns1123LabelRe.test(v)) return "must be a lowercase RFC 1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit (e.g. 'my-name')";
  return undefined;
}

/**
 * IsDNS1035Label: at most 63 characters, lowercase alphanumerics and '-', starting with a letter and ending with a
 * letter or digit (a Service's name: it becomes a DNS label and an environment variable prefix).
 */
export function dns1035Label(v: string): string | undefined {
  if (v.length > 63) return `must be no more than 63 characters (has ${v.length})`;
  if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(v))
    return "must be a lowercase RFC 1035 label: lowercase letters, digits and '-', starting with a letter and ending with a letter or digit (e.g. 'my-name')";
  return undefined;
}

/** IsDNS1123Subdomain: at most 253 characters, dot-separated labels. */
export function dns1123Subdomain(v: string): string | undefined {
  if (v.length > 253) return `must be no more than 253 characters (has ${v.length})`;
  if (!dns1123SubdomainRe.test(v))
    return "must be a lowercase RFC 1123 subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit (e.g. 'example.com')";
  return undefined;
}

/** IsQualifiedName: [prefix/]name, the prefix a DNS subdomain, the name at most 63 characters (label and annotation keys). */
export function qualifiedName(v: string): string | undefined {
  const parts = v.split('/');
  let name = v;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix === '') return 'prefix part must not be empty';
    const bad = dns1123Subdomain(prefix);
    if (bad !== undefined) return `prefix part ${bad}`;
  } else if (parts.length > 2) {
    return "must be a qualified name: an optional DNS subdomain prefix and '/', then a name (e.g. 'example.com/MyName')";
  }
  if (name === '') return 'name part must not be empty';
  if (name.length > 63) return `name part must be no more than 63 characters (has ${name.length})`;
  if (!qualifiedNamePartRe.test(name))
    return "name part must consist of letters, digits, '-', '_' or '.', starting and ending with a letter or digit (e.g. 'MyName', 'my.name', '123-abc')";
  return undefined;
}

/** IsValidLabelValue: empty, or at most 63 characters of the qualified-name-part alphabet. */
export function labelValue(v: string): string | undefined {
  if (v === '') return undefined;
  if (v.length > 63) return `must be no more than 63 characters (has ${v.length})`;
  if (!qualifiedNamePartRe.test(v)) return "must be empty or consist of letters, digits, '-', '_' or '.', starting and ending with a letter or digit";
  return undefined;
}

/** IsValidPortName (IANA_SVC_NAME, RFC 6335): at most 15 characters, lowercase alphanumerics and '-', a letter. */
export function portName(v: string): string | undefined {
  if (v.length > 15) return `must be no more than 15 characters (has ${v.length})`;
  if (!/^[-a-z0-9]+$/.test(v)) return "must contain only lowercase letters, digits and '-'";
  if (!/[a-z]/.test(v)) return 'must contain at least one letter';
  if (v.includes('--')) return "must not contain consecutive '-'";
  if (v.startsWith('-') || v.endsWith('-')) return "must not begin or end with '-'";
  return undefined;
}

/** IsEnvVarName as relaxed in Kubernetes 1.30 (RelaxedEnvironmentVariableValidation): printable ASCII except '='. */
export function envVarName(v: string): string | undefined {
  if (v === '') return 'required';
  if (!/^[\x20-\x7e]+$/.test(v) || v.includes('=')) return "must consist of printable ASCII characters other than '='";
  return undefined;
}

/** IsValidPortNum: 1-65535. */
export function portNumber(v: number): string | undefined {
  return Number.isInteger(v) && v >= 1 && v <= 65535 ? undefined : 'must be between 1 and 65535, inclusive';
}

/** IsValidIP. */
export function ipAddress(v: string): string | undefined {
  return isIP(v) !== 0 ? undefined : 'must be a valid IP address (e.g. 10.9.8.7 or 2001:db8::ffff)';
}

/**
 * A resource quantity, exactly: digits × 10^exp10 × 2^exp2. Kubernetes keeps quantities as decimals, never floats,
 * so comparing requests with limits must be exact too ("0.1" equals "100m").
 */
export interface Quantity {
  negative: boolean;
  digits: bigint;
  exp10: number;
  exp2: number;
}

// pkg/api/resource/quantity.go: <signedNumber><suffix>, suffix a binary SI (Ki … Ei), a decimal SI (n u m "" k M G
// T P E) or a decimal exponent (e/E and a signed integer).
const quantityRe = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$/;
const binarySuffix: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const decimalSuffix: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

export const quantityExample = 'expected a quantity such as 128Mi or 500m';

/** Parse a quantity written as a string or a YAML number; undefined when Kubernetes would refuse it. */
export function parseQuantity(v: unknown): Quantity | undefined {
  let text: string;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return undefined;
    text = String(v); // shortest round-trip form, e.g. 0.5 or 1e+21: both valid quantity syntax
  } else if (typeof v === 'string') {
    text = v;
  } else {
    return undefined;
  }
  const m = quantityRe.exec(text);
  if (m === null) return undefined;
  const [, sign, number, suffix] = m;
  const [whole = '', fraction = ''] = number!.split('.');
  // A huge exponent would make an exact value astronomically large; Kubernetes caps such values anyway.
  let exp10 = -fraction.length;
  let exp2 = 0;
  if (suffix !== undefined) {
    if (suffix in binarySuffix) exp2 = binarySuffix[suffix]!;
    else if (suffix in decimalSuffix) exp10 += decimalSuffix[suffix]!;
    else {
      const e = Number(suffix.slice(1));
      if (Math.abs(e) > 1000) return undefined;
      exp10 += e;
    }
  }
  const digits = BigInt((whole + fraction).replace(/^0+(?=.)/, '') || '0');
  return { negative: sign === '-' && digits !== 0n, digits, exp10, exp2 };
}

/** Compare two quantities exactly: negative, zero or positive as a < b, a = b, a > b. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  const e = Math.min(a.exp10, b.exp10);
  const scaled = (q: Quantity): bigint => {
    const magnitude = q.digits * 2n ** BigInt(q.exp2) * 10n ** BigInt(q.exp10 - e);
    return q.negative ? -magnitude : magnitude;
  };
  const x = scaled(a);
  const y = scaled(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
