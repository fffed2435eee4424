// Reads an Exec*= command line back into its words, as systemd.service(5) "Command lines" describes it, written
// apart from src/commands/systemdUnit.ts so a test can catch that module's quoting going wrong: words split at
// whitespace; "…" and '…' quote, with C escapes (\" \\ \n \t) inside; "%%" is a literal "%" (specifiers), and in
// the arguments (not the executable's path, which is not expanded) "$$" is a literal "$".
export function execWords(line: string): string[] {
  const words: string[] = [];
  let i = 0;
  while (i < line.length) {
    while (i < line.length && /\s/.test(line[i]!)) i++;
    if (i >= line.length) break;
    let word = '';
    while (i < line.length && !/\s/.test(line[i]!)) {
      const c = line[i]!;
      if (c === '"' || c === "'") {
        i++;
        while (i < line.length && line[i] !== c) {
          if (line[i] === '\\' && i + 1 < line.length) {
            const e = line[i + 1]!;
            word += e === 'n' ? '\n' : e === 't' ? '\t' : e;
            i += 2;
          } else word += line[i++];
        }
        if (line[i] !== c) throw new Error(`unterminated quote in ${line}`);
        i++;
      } else if (c === '\\' && i + 1 < line.length) {
        word += line[i + 1];
        i += 2;
      } else word += line[i++];
    }
    words.push(word);
  }
  return words.map((w, n) => (n === 0 ? w.replace(/%%/g, '%') : w.replace(/%%/g, '%').replace(/\$\$/g, '$')));
}
