// Stand-in for the string-width package inside runpod's bundle (scripts/bundle.mjs aliases it here). yargs' help
// layout (cliui) is its only user. The package compiles large Unicode property regular expressions and an
// Intl.Segmenter when it is imported, ~50 ms of every start-up; here a string of printable ASCII, which is all
// runpod's help text, is measured by its length, and anything else by East Asian Width per code point, with the
// regular expressions compiled on first use.
import { eastAsianWidth } from 'get-east-asian-width';

const printableAscii = /^[\x20-\x7e]*$/;
// CSI and OSC sequences, as terminals and chalk write them.
const ansi = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;
let zeroWidth;
let pictographic;

export default function stringWidth(text, options = {}) {
  if (typeof text !== 'string' || text.length === 0) return 0;
  if (printableAscii.test(text)) return text.length;
  const plain = options.countAnsiEscapeCodes ? text : text.replace(ansi, '');
  zeroWidth ??= /[\p{Mn}\p{Me}\p{Cf}\p{Cc}\p{Default_Ignorable_Code_Point}]/u;
  pictographic ??= /\p{Extended_Pictographic}/u;
  let width = 0;
  for (const ch of plain) {
    if (zeroWidth.test(ch)) continue;
    if (pictographic.test(ch) && ch.codePointAt(0) > 0xff) width += 2;
    else width += eastAsianWidth(ch.codePointAt(0), { ambiguousAsWide: options.ambiguousIsNarrow === false });
  }
  return width;
}
