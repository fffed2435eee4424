// Label selectors: the text form (k8s.io/apimachinery/pkg/labels selector.go, labels.Parse), read by kubectl's -l
// and by kustomize's labelSelector and annotationSelector, and the API's LabelSelector object
// (metav1.LabelSelectorAsSelector), as one requirement list; and whether a label set matches. Pure: no I/O, no
// clock. The error a bad text raises is the caller's (a usage error on the command line, a kustomization's error).
import { labelValue, qualifiedName } from './syntax.js';
import { formatPath } from './path.js';

/** Gt and Lt come only from the text form (labels.Parse's > and <); a LabelSelector object has the other four. */
export type SelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
export interface Requirement {
  key: string;
  operator: SelectorOperator;
  values: string[];
}
/** Requirements ANDed; empty matches everything. */
export type Selector = readonly Requirement[];

// ---------------------------------------------------------------------------------------------------------------
// Lexer. As labels.Parse's lexer: whitespace separates tokens and is otherwise ignored; the special characters
// are = ! ( ) , < > (with == and != as two-character tokens); any other run of characters is one identifier.

type TokenKind = 'ident' | '(' | ')' | ',' | '!' | '=' | '==' | '!=' | '<' | '>' | 'end';
interface Token {
  kind: TokenKind;
  text: string;
  /** 0-based offset of the token's first character in the selector text. */
  at: number;
}

const special = new Set(['=', '!', '(', ')', ',', '<', '>']);
const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r';

function lex(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (isSpace(c)) {
      i++;
    } else if ((c === '=' || c === '!') && text[i + 1] === '=') {
      out.push({ kind: c === '=' ? '==' : '!=', text: `${c}=`, at: i });
      i += 2;
    } else if (special.has(c)) {
      out.push({ kind: c as TokenKind, text: c, at: i });
      i++;
    } else {
      const start = i;
      while (i < text.length && !isSpace(text[i]!) && !special.has(text[i]!)) i++;
      out.push({ kind: 'ident', text: text.slice(start, i), at: start });
    }
  }
  out.push({ kind: 'end', text: '', at: text.length });
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Parser.

class Parser {
  private pos = 0;
  private readonly tokens: Token[];
  /** Offset where the requirement being parsed starts, to quote it in messages. */
  private reqStart = 0;

  constructor(
    private readonly text: string,
    private readonly error: (problem: string) => Error,
  ) {
    this.tokens = lex(text);
  }

  private peek(): Token {
    return this.tokens[this.pos]!;
  }
  private next(): Token {
    const t = this.tokens[this.pos]!;
    if (t.kind !== 'end') this.pos++;
    return t;
  }

  private fail(message: string): never {
    throw this.error(message);
  }
  /** What stands at a token, for "found ...": its text and 1-based character, or the end. */
  private found(t: Token): string {
    return t.kind === 'end' ? 'the end of the selector' : `"${t.text}" at character ${t.at + 1}`;
  }
  /** The current requirement's text, from its start through the last token consumed. */
  private sofar(): string {
    const last = this.tokens[this.pos - 1];
    const end = last !== undefined && last.at >= this.reqStart ? last.at + last.text.length : this.reqStart;
    return this.text.slice(this.reqStart, end);
  }

  parse(): Requirement[] {
    const reqs: Requirement[] = [];
    // labels.Parse: an empty (or all-whitespace) selector selects everything.
    if (this.peek().kind === 'end') return reqs;
    for (;;) {
      reqs.push(this.requirement());
      const t = this.peek();
      if (t.kind === 'end') break;
      if (t.kind !== ',') this.fail(`found ${this.found(t)} after "${this.sofar()}"; expected "," or the end of the selector`);
      this.next();
      // As labels.Parse: a comma must be followed by another requirement (no empty or trailing ones).
      if (this.peek().kind === 'end' || this.peek().kind === ',') {
        this.fail(`empty requirement after the "," at character ${t.at + 1}; expected a requirement such as app=web, or remove the ","`);
      }
    }
    // labels.Parse sorts the requirements by key (internalSelector, ByKey); the sort is stable.
    return reqs.sort((a, b) => compare(a.key, b.key));
  }

  private requirement(): Requirement {
    this.reqStart = this.peek().at;
    const bang = this.peek().kind === '!';
    if (bang) this.next();
    const keyTok = this.next();
    if (keyTok.kind !== 'ident') {
      this.fail(
        bang
          ? `found ${this.found(keyTok)} after "!"; expected the label key that must be absent, e.g. !app`
          : `found ${this.found(keyTok)}; expected a label key, e.g. app=web, app, or !app`,
      );
    }
    const key = keyTok.text;
    const badKey = qualifiedName(key);
    if (badKey !== undefined) this.fail(`label key "${key}" at character ${keyTok.at + 1} is not valid: ${badKey}`);

    const op = this.peek();
    // A bare key (or !key) ends at "," or the end: Exists (DoesNotExist).
    if (op.kind === ',' || op.kind === 'end') return { key, operator: bang ? 'DoesNotExist' : 'Exists', values: [] };
    if (bang) {
      this.fail(`"${this.sofar()}" selects by the label's absence and takes no operator or value; found ${this.found(op)}, expected "," or the end of the selector`);
    }
    this.next();
    if (op.kind === '=' || op.kind === '==') return { key, operator: 'In', values: [this.exactValue(op)] };
    if (op.kind === '!=') return { key, operator: 'NotIn', values: [this.exactValue(op)] };
    // > and < (selection.GreaterThan, LessThan): one value, an integer (strconv.ParseInt, base 10, 64 bits), and a
    // label value too (NewRequirement checks both), so in effect digits only.
    if (op.kind === '<' || op.kind === '>') {
      const at = this.peek();
      const value = this.exactValue(op);
      if (!isInt64(value)) {
        this.fail(
          `${value === '' ? `no value after "${this.sofar()}"` : `"${value}" at character ${at.at + 1} in "${this.sofar()}" is not an integer`}; ${op.text} compares the label's value with a whole number, e.g. ${key}${op.text}3`,
        );
      }
      return { key, operator: op.kind === '>' ? 'Gt' : 'Lt', values: [value] };
    }
    // in and notin are read as keywords only where an operator belongs, so they remain usable as keys and values.
    if (op.kind === 'ident' && (op.text === 'in' || op.text === 'notin')) {
      return { key, operator: op.text === 'in' ? 'In' : 'NotIn', values: this.valueSet(op.text) };
    }
    this.fail(
      `found ${this.found(op)} after the key "${key}"; expected =, ==, !=, in (...), notin (...), > or <, or "," or the end of the selector (a bare key selects what has the label)`,
    );
  }

  /** The value after = == !=; it may be empty (k= selects an empty value). */
  private exactValue(op: Token): string {
    const t = this.peek();
    if (t.kind === ',' || t.kind === 'end') return '';
    if (t.kind !== 'ident') this.fail(`found ${this.found(t)} after "${this.sofar()}"; expected a label value after "${op.text}"`);
    this.next();
    this.checkValue(t);
    return t.text;
  }

  /**
   * ( v1, v2, ... ) after in/notin; empty values are allowed, as in "(a,)", and "()" is the one empty value, as
   * labels.Parse reads it (parseValues). A set: sorted, unique.
   */
  private valueSet(op: string): string[] {
    const open = this.peek();
    if (open.kind !== '(') this.fail(`found ${this.found(open)} after "${this.sofar()}"; expected "(" to open the values, e.g. ${op} (a,b)`);
    this.next();
    if (this.peek().kind === ')') {
      this.next();
      return [''];
    }
    const values = new Set<string>();
    for (;;) {
      // One value, possibly empty: nothing between "(" or "," and the next "," or ")".
      const v = this.peek();
      if (v.kind === 'ident') {
        this.next();
        this.checkValue(v);
        values.add(v.text);
      } else if (v.kind === ',' || v.kind === ')') {
        values.add('');
      } else if (v.kind === 'end') {
        this.fail(`missing ")" at character ${v.at + 1} (the end of the selector) to close the values of "${this.sofar()}"; expected a value or ")"`);
      } else {
        this.fail(`found ${this.found(v)} in "${this.sofar()}"; expected a label value, "," or ")"`);
      }
      const sep = this.peek();
      if (sep.kind === 'end') {
        this.fail(`missing ")" at character ${sep.at + 1} (the end of the selector) to close the values of "${this.sofar()}"; expected "," or ")"`);
      }
      if (sep.kind !== ',' && sep.kind !== ')') {
        this.fail(`found ${this.found(sep)} after "${this.sofar()}"; expected "," between values or ")" to close them`);
      }
      this.next();
      if (sep.kind === ')') break;
    }
    return [...values].sort(compare);
  }

  private checkValue(t: Token): void {
    const bad = labelValue(t.text);
    if (bad !== undefined) this.fail(`label value "${t.text}" at character ${t.at + 1} in "${this.sofar()}" is not valid: ${bad}`);
  }
}

/** Byte-order comparison (Go's sort.Strings), independent of the locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** strconv.ParseInt(s, 10, 64) succeeds: an optional sign, decimal digits, within 64 bits. */
function isInt64(s: string): boolean {
  return /^[+-]?[0-9]+$/.test(s) && BigInt(s) >= -(2n ** 63n) && BigInt(s) < 2n ** 63n;
}

/**
 * Parse the text form of a label selector, as labels.Parse accepts it: comma-separated requirements, each k=v,
 * k==v, k!=v, k in (a,b), k notin (a,b), k>N, k<N, k or !k, with keys and values checked as label keys and values.
 * A bad text throws what `error` makes of the problem (saying what was wrong, where, and what was expected): the
 * caller names the text's place (`-l "…"`, a kustomization's field) and the error's class.
 */
export function parseLabelSelector(text: string, error: (problem: string) => Error): Selector {
  return new Parser(text, error).parse();
}

// ---------------------------------------------------------------------------------------------------------------
// The LabelSelector object (Deployment and Service-style selectors).

const operators: readonly SelectorOperator[] = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

/**
 * metav1.LabelSelectorAsSelector with ValidateLabelSelector's checks: matchLabels are In-single-value requirements,
 * matchExpressions one each; all ANDed, sorted by key. Returns the problems instead (paths relative to the
 * selector) when any field is invalid. An empty selector selects everything.
 */
export function labelSelectorFrom(sel: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] }): Selector | string[] {
  const problems: string[] = [];
  const reqs: Requirement[] = [];
  const problem = (path: (string | number)[], message: string): void => {
    problems.push(`${formatPath(path)}: ${message}`);
  };

  for (const [key, value] of Object.entries(sel.matchLabels ?? {})) {
    const path = ['matchLabels', key];
    const badKey = qualifiedName(key);
    if (badKey !== undefined) {
      problem(path, `key ${badKey}`);
      continue;
    }
    if (typeof value !== 'string') {
      problem(path, 'must be a string');
      continue;
    }
    const bad = labelValue(value);
    if (bad !== undefined) problem(path, bad);
    else reqs.push({ key, operator: 'In', values: [value] });
  }

  (sel.matchExpressions ?? []).forEach((e, i) => {
    const at = (field: string): (string | number)[] => ['matchExpressions', i, field];
    const before = problems.length;
    if (typeof e.key !== 'string' || e.key === '') problem(at('key'), 'required: a label key');
    else {
      const bad = qualifiedName(e.key);
      if (bad !== undefined) problem(at('key'), bad);
    }
    const op = operators.find((o) => o === e.operator);
    if (op === undefined) {
      problem(at('operator'), `"${String(e.operator)}" is not a valid label selector operator; expected one of ${operators.join(', ')}`);
      return;
    }
    const values = e.values ?? [];
    if (!Array.isArray(values)) {
      problem(at('values'), 'must be a list of strings');
      return;
    }
    // ValidateLabelSelectorRequirement: In/NotIn need values, Exists/DoesNotExist take none.
    if ((op === 'In' || op === 'NotIn') && values.length === 0) problem(at('values'), `must be non-empty for ${op}`);
    if ((op === 'Exists' || op === 'DoesNotExist') && values.length > 0) problem(at('values'), `must be empty for ${op}`);
    values.forEach((v, j) => {
      if (typeof v !== 'string') problem(['matchExpressions', i, 'values', j], 'must be a string');
      else {
        const bad = labelValue(v);
        if (bad !== undefined) problem(['matchExpressions', i, 'values', j], bad);
      }
    });
    if (problems.length === before) reqs.push({ key: e.key, operator: op, values: [...new Set(values)].sort(compare) });
  });

  if (problems.length > 0) return problems;
  return reqs.sort((a, b) => compare(a.key, b.key));
}

// ---------------------------------------------------------------------------------------------------------------

/**
 * Requirement.Matches: In needs the key with one of the values; NotIn matches an absent key too; Gt and Lt need
 * the key with a value that reads as a 64-bit integer (strconv.ParseInt) above or below the requirement's.
 */
export function selectorMatches(sel: Selector, labels: Readonly<Record<string, string>>): boolean {
  return sel.every((r) => {
    const has = Object.hasOwn(labels, r.key);
    switch (r.operator) {
      case 'In':
        return has && r.values.includes(labels[r.key]!);
      case 'NotIn':
        return !has || !r.values.includes(labels[r.key]!);
      case 'Exists':
        return has;
      case 'DoesNotExist':
        return !has;
      case 'Gt':
      case 'Lt': {
        const value = labels[r.key];
        const bound = r.values[0];
        if (!has || value === undefined || bound === undefined || r.values.length !== 1 || !isInt64(value) || !isInt64(bound)) return false;
        return r.operator === 'Gt' ? BigInt(value) > BigInt(bound) : BigInt(value) < BigInt(bound);
      }
    }
  });
}

/**
 * Canonical text that parseLabelSelector reads back to the same selector: requirements sorted by key, values sorted
 * and deduplicated, one value written k=v / k!=v, several k in (a,b) / k notin (a,b), as Requirement.String does.
 */
export function formatSelector(sel: Selector): string {
  return [...sel]
    .sort((a, b) => compare(a.key, b.key))
    .map((r) => {
      const values = [...new Set(r.values)].sort(compare);
      switch (r.operator) {
        case 'Exists':
          return r.key;
        case 'DoesNotExist':
          return `!${r.key}`;
        case 'In':
          return values.length === 1 ? `${r.key}=${values[0]}` : `${r.key} in (${values.join(',')})`;
        case 'NotIn':
          return values.length === 1 ? `${r.key}!=${values[0]}` : `${r.key} notin (${values.join(',')})`;
        case 'Gt':
          return `${r.key}>${values[0]}`;
        case 'Lt':
          return `${r.key}<${values[0]}`;
      }
    })
    .join(',');
}
