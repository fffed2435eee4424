// A first word that is neither a command nor a file: kubectl and docker habits (`runpod get pods`, `runpod rm`)
// get the runpod command that does that, anything else the nearest command name (pure).

/** kubectl's and docker's words for what a runpod command does. */
const habits: Readonly<Record<string, string>> = {
  get: 'status',
  describe: 'status',
  list: 'status',
  ls: 'status',
  apply: 'run',
  create: 'run',
  up: 'run',
  start: 'run',
  delete: 'down',
  rm: 'down',
  remove: 'down',
  stop: 'down',
  log: 'logs',
  attach: 'exec',
  top: 'stats',
  prune: 'gc',
};

/** Edits between two words: insertions, deletions, substitutions and swaps of neighbours. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      // Two letters swapped is one slip, not two (Damerau's rule).
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** Does the word look like a mistyped command rather than a manifest path? */
export function looksLikeCommand(word: string): boolean {
  return /^[a-z][a-z-]*$/.test(word);
}

/** The command to suggest for a word that is not one, if any is near. */
export function suggestCommand(word: string, commands: ReadonlySet<string>): string | undefined {
  const habit = habits[word];
  if (habit !== undefined && commands.has(habit)) return habit;
  let best: { name: string; d: number } | undefined;
  for (const name of commands) {
    const d = distance(word, name);
    // The nearer wins; between equals, the one of the same length (a swap, not a letter lost).
    const better = best === undefined || d < best.d || (d === best.d && name.length === word.length && best.name.length !== word.length);
    if (d <= Math.max(1, Math.floor(name.length / 3)) && better) best = { name, d };
  }
  return best?.name;
}
