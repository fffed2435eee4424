// Durations in Go/kubectl style: 500ms, 90s, 5m, 1h30m, 1.5s; a bare number is seconds.

const units: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds, or undefined when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t) * 1000;
  const part = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null;
  while ((m = part.exec(t)) !== null) {
    total += Number(m[1]) * units[m[2]!]!;
    matched = part.lastIndex;
  }
  return matched === t.length && t.length > 0 ? total : undefined;
}
