// $(VAR) expansion by the Kubernetes rules (third_party/forked/golang/expansion, used by the kubelet for env,
// command and args): $(VAR) is replaced by VAR's value when VAR is defined, and left as written otherwise;
// $$ is an escaped $, so $$(VAR) yields the literal $(VAR); a $ before anything else stays as it is.

export function expandVars(input: string, lookup: (name: string) => string | undefined): string {
  let out = '';
  let i = 0;
  while (i < input.length) {
    const ch = input[i]!;
    if (ch !== '$' || i + 1 >= input.length) {
      out += ch;
      i++;
      continue;
    }
    const next = input[i + 1]!;
    if (next === '$') {
      out += '$';
      i += 2;
      continue;
    }
    if (next === '(') {
      const close = input.indexOf(')', i + 2);
      if (close < 0) {
        // An unclosed reference is kept literally.
        out += input.slice(i);
        break;
      }
      const name = input.slice(i + 2, close);
      const value = name.length > 0 ? lookup(name) : undefined;
      out += value !== undefined ? value : input.slice(i, close + 1);
      i = close + 1;
      continue;
    }
    out += ch;
    i++;
  }
  return out;
}

/**
 * Resolve a container's env list: each value may refer to variables defined earlier in the list
 * (Kubernetes: "Variable references $(VAR_NAME) are expanded using the previously defined environment
 * variables in the container"). A later entry with the same name wins, as in the kubelet.
 */
export function resolveEnv(entries: { name: string; value?: string }[]): Map<string, string> {
  const env = new Map<string, string>();
  for (const e of entries) {
    env.set(
      e.name,
      expandVars(e.value ?? '', (n) => env.get(n)),
    );
  }
  return env;
}
