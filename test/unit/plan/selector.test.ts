// Label selectors (kube/selector.ts), table-driven: the text form as labels.Parse reads it (kubectl's -l, kustomize's
// label and annotation selectors: one parser, the error the caller's), the LabelSelector object as
// LabelSelectorAsSelector reads it, which label sets match, and the canonical text reading back the same.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError } from '../../../src/errors.js';
import { formatSelector, labelSelectorFrom, parseLabelSelector, selectorMatches, type Requirement, type Selector } from '../../../src/kube/selector.js';

/** A test title: the text, long runs shortened. */
const show = (s: string): string => JSON.stringify(s.replace(/(.)\1{9,}/g, (run, c: string) => `${c}{${run.length}}`));
const req = (key: string, operator: Requirement['operator'], values: string[] = []): Requirement => ({ key, operator, values });
/** The parser as the command line calls it: a usage error naming the -l text. */
const parseCli = (text: string): Selector => parseLabelSelector(text, (problem) => new UsageError(`-l "${text}": ${problem}`));

describe('parseLabelSelector (labels.Parse)', () => {
  const cases: { text: string; want: Requirement[] }[] = [
    { text: '', want: [] },
    { text: '   ', want: [] },
    { text: 'app=web', want: [req('app', 'In', ['web'])] },
    { text: 'app==web', want: [req('app', 'In', ['web'])] },
    { text: 'app!=web', want: [req('app', 'NotIn', ['web'])] },
    { text: 'app=', want: [req('app', 'In', [''])] },
    { text: 'app!=', want: [req('app', 'NotIn', [''])] },
    { text: 'app in (web,db)', want: [req('app', 'In', ['db', 'web'])] },
    { text: 'app notin (web)', want: [req('app', 'NotIn', ['web'])] },
    { text: 'app in (b,a,b)', want: [req('app', 'In', ['a', 'b'])] },
    { text: 'app in (a,)', want: [req('app', 'In', ['', 'a'])] },
    { text: 'app in (,a)', want: [req('app', 'In', ['', 'a'])] },
    { text: 'app', want: [req('app', 'Exists')] },
    { text: '!app', want: [req('app', 'DoesNotExist')] },
    { text: '! app', want: [req('app', 'DoesNotExist')] },
    { text: ' app = web , tier in ( a , b ) ,\t!x ', want: [req('app', 'In', ['web']), req('tier', 'In', ['a', 'b']), req('x', 'DoesNotExist')] },
    { text: 'app in(a)', want: [req('app', 'In', ['a'])] },
    // "()" is the one empty value (parseValues), not an error.
    { text: 'app in ()', want: [req('app', 'In', [''])] },
    { text: 'app notin ()', want: [req('app', 'NotIn', [''])] },
    // > and < (Gt, Lt): an integer value.
    { text: 'gen>3', want: [req('gen', 'Gt', ['3'])] },
    { text: 'gen < 10', want: [req('gen', 'Lt', ['10'])] },
    { text: 'gen>007,a', want: [req('a', 'Exists'), req('gen', 'Gt', ['007'])] },
    { text: 'gen>9223372036854775807', want: [req('gen', 'Gt', ['9223372036854775807'])] },
    // Sorted by key; the same key twice is kept, ANDed.
    { text: 'z,a=1,m!=2,a!=3', want: [req('a', 'In', ['1']), req('a', 'NotIn', ['3']), req('m', 'NotIn', ['2']), req('z', 'Exists')] },
    { text: 'example.com/app=web', want: [req('example.com/app', 'In', ['web'])] },
    { text: 'app.kubernetes.io/name in (A_1.b-c)', want: [req('app.kubernetes.io/name', 'In', ['A_1.b-c'])] },
    // in and notin are keywords only where an operator belongs.
    { text: 'in in (notin)', want: [req('in', 'In', ['notin'])] },
    { text: 'notin=in', want: [req('notin', 'In', ['in'])] },
    { text: `k=${'v'.repeat(63)}`, want: [req('k', 'In', ['v'.repeat(63)])] },
    { text: `${'p'.repeat(253)}/${'n'.repeat(63)}`, want: [req(`${'p'.repeat(253)}/${'n'.repeat(63)}`, 'Exists')] },
  ];
  for (const t of cases) it(show(t.text), () => assert.deepEqual(parseCli(t.text), t.want));
});

describe('parseLabelSelector rejects bad input with what, where and what was expected', () => {
  const cases: { text: string; want: RegExp }[] = [
    { text: 'app in (a', want: /^-l "app in \(a": missing "\)" at character 10 \(the end of the selector\) to close the values of "app in \(a"; expected "," or "\)"$/ },
    { text: 'app in (a,', want: /missing "\)" at character 11 .*expected a value or "\)"/ },
    { text: 'app in a', want: /found "a" at character 8 after "app in"; expected "\(" to open the values/ },
    { text: 'app in (a b)', want: /found "b" at character 11 after "app in \(a"; expected "," between values or "\)"/ },
    { text: 'app in (a,(b))', want: /found "\(" at character 11 in "app in \(a,"; expected a label value/ },
    { text: 'app in (a)(b)', want: /found "\(" at character 11 after "app in \(a\)"; expected "," or the end of the selector/ },
    { text: 'a=b,,c', want: /empty requirement after the "," at character 4/ },
    { text: 'a=b,', want: /empty requirement after the "," at character 4/ },
    { text: ',a', want: /found "," at character 1; expected a label key/ },
    { text: '=a', want: /found "=" at character 1; expected a label key/ },
    { text: '!', want: /found the end of the selector after "!"; expected the label key/ },
    { text: '!!a', want: /found "!" at character 2 after "!"/ },
    { text: '!a=b', want: /"!a" selects by the label's absence and takes no operator or value; found "=" at character 3/ },
    { text: '!a>1', want: /"!a" selects by the label's absence and takes no operator or value; found ">" at character 3/ },
    { text: 'a>b', want: /"b" at character 3 in "a>b" is not an integer; > compares the label's value with a whole number, e.g. a>3/ },
    { text: 'a<', want: /no value after "a<"; < compares the label's value with a whole number/ },
    { text: 'a>1.5', want: /"1.5" at character 3 in "a>1.5" is not an integer/ },
    { text: 'a>9223372036854775808', want: /"9223372036854775808" at character 3 .* is not an integer/ },
    // A label value cannot start with a sign, so labels.Parse refuses a negative bound too.
    { text: 'a>-1', want: /label value "-1" at character 3 in "a>-1" is not valid/ },
    { text: 'a>=1', want: /found "=" at character 3 after "a>"; expected a label value after ">"/ },
    { text: 'a>(1)', want: /found "\(" at character 3 after "a>"; expected a label value after ">"/ },
    { text: 'a foo', want: /found "foo" at character 3 after the key "a"; expected =, ==, !=, in \(...\), notin \(...\), > or </ },
    { text: 'a!b', want: /found "!" at character 2 after the key "a"/ },
    { text: 'a=b c', want: /found "c" at character 5 after "a=b"; expected "," or the end of the selector/ },
    { text: 'a=b=c', want: /found "=" at character 4 after "a=b"/ },
    { text: 'a=(b)', want: /found "\(" at character 3 after "a="; expected a label value after "="/ },
    // Keys: qualified names.
    { text: 'Foo_=1', want: /label key "Foo_" at character 1 is not valid: name part must consist of/ },
    { text: 'x,-a', want: /label key "-a" at character 3 is not valid/ },
    { text: 'a/b/c', want: /label key "a\/b\/c" at character 1 is not valid: must be a qualified name/ },
    { text: '/a', want: /label key "\/a" .*prefix part must not be empty/ },
    { text: 'Example.com/a', want: /prefix part must be a lowercase RFC 1123 subdomain/ },
    { text: 'example.com/', want: /name part must not be empty/ },
    { text: `${'n'.repeat(64)}=1`, want: /name part must be no more than 63 characters \(has 64\)/ },
    { text: `${'p'.repeat(254)}/n`, want: /prefix part must be no more than 253 characters \(has 254\)/ },
    { text: 'a"b=1', want: /label key "a"b" at character 1 is not valid/ },
    // Values: empty, or at most 63 characters of the same alphabet.
    { text: 'a=b/c', want: /label value "b\/c" at character 3 in "a=b\/c" is not valid: must be empty or consist of/ },
    { text: 'a!=-b', want: /label value "-b" at character 4/ },
    { text: 'a in (ok,bad.)', want: /label value "bad\." at character 10 in "a in \(ok,bad\." is not valid/ },
    { text: `a=${'v'.repeat(64)}`, want: /must be no more than 63 characters \(has 64\)/ },
  ];
  for (const t of cases) {
    it(show(t.text), () => {
      assert.throws(
        () => parseCli(t.text),
        (e: unknown) => {
          assert.ok(e instanceof UsageError, `not a UsageError: ${String(e)}`);
          assert.match(e.message, t.want);
          assert.ok(e.message.startsWith(`-l "${t.text}": `), e.message);
          return true;
        },
      );
    });
  }
});

describe('selectorMatches (Requirement.Matches), on the labels app=web, tier=front, empty=""', () => {
  const labels = { app: 'web', tier: 'front', empty: '' };
  const cases: { text: string; want: boolean }[] = [
    { text: '', want: true },
    { text: 'app=web', want: true },
    { text: 'app=db', want: false },
    { text: 'missing=web', want: false },
    { text: 'app!=db', want: true },
    { text: 'app!=web', want: false },
    { text: 'missing!=web', want: true },
    { text: 'app in (db,web)', want: true },
    { text: 'app in (db,api)', want: false },
    { text: 'missing in (web)', want: false },
    { text: 'app notin (db,api)', want: true },
    { text: 'app notin (db,web)', want: false },
    { text: 'missing notin (web)', want: true },
    { text: 'app', want: true },
    { text: 'missing', want: false },
    { text: '!missing', want: true },
    { text: '!app', want: false },
    { text: 'empty=', want: true },
    { text: 'empty', want: true },
    { text: 'missing=', want: false },
    { text: 'empty!=', want: false },
    { text: 'missing!=', want: true },
    { text: 'app=web,tier=front', want: true },
    { text: 'app=web,tier=back', want: false },
    { text: 'app=web,!tier', want: false },
  ];
  for (const t of cases) it(`${show(t.text)} → ${t.want}`, () => assert.equal(selectorMatches(parseCli(t.text), labels), t.want));
  it('an inherited property is not a label', () => {
    assert.equal(selectorMatches(parseCli('toString'), {}), false);
    assert.equal(selectorMatches(parseCli('!constructor'), {}), true);
  });
});

describe('selectorMatches with > and < (Requirement.Matches: the label read as a 64-bit integer)', () => {
  const cases: { text: string; labels: Record<string, string>; want: boolean }[] = [
    { text: 'gen>3', labels: { gen: '4' }, want: true },
    { text: 'gen>3', labels: { gen: '3' }, want: false },
    { text: 'gen<3', labels: { gen: '2' }, want: true },
    { text: 'gen<3', labels: { gen: '3' }, want: false },
    { text: 'gen>3', labels: {}, want: false },
    { text: 'gen<3', labels: {}, want: false },
    { text: 'gen>3', labels: { gen: 'four' }, want: false },
    { text: 'gen>3', labels: { gen: '' }, want: false },
    { text: 'gen>3', labels: { gen: '010' }, want: true },
    // ParseInt takes a sign in the label's value; beyond 64 bits it fails, and nothing matches.
    { text: 'gen<3', labels: { gen: '-5' }, want: true },
    { text: 'gen>3', labels: { gen: '+5' }, want: true },
    { text: 'gen>3', labels: { gen: '9223372036854775808' }, want: false },
    // Exact beyond 2^53, where a float would round both to the same number.
    { text: 'gen>9007199254740992', labels: { gen: '9007199254740993' }, want: true },
  ];
  for (const t of cases) it(`${show(t.text)} on ${JSON.stringify(t.labels)} → ${t.want}`, () => assert.equal(selectorMatches(parseCli(t.text), t.labels), t.want));
});

describe('parseLabelSelector raises the error its caller makes', () => {
  class KustomizationProblem extends Error {}
  it('the problem is given to the caller, which names the text and chooses the class', () => {
    assert.throws(
      () => parseLabelSelector('app in (a', (problem) => new KustomizationProblem(`labelSelector: ${problem}`)),
      (e: unknown) => e instanceof KustomizationProblem && !(e instanceof UsageError) && /^labelSelector: missing "\)" at character 10/.test(e.message),
    );
    assert.throws(
      () => parseCli('app in (a'),
      (e: unknown) => e instanceof UsageError && e.message.startsWith('-l "app in (a": missing'),
    );
  });
});

describe('labelSelectorFrom (LabelSelectorAsSelector, ValidateLabelSelector)', () => {
  it('an empty selector selects everything', () => {
    assert.deepEqual(labelSelectorFrom({}), []);
    assert.deepEqual(labelSelectorFrom({ matchLabels: {}, matchExpressions: [] }), []);
    assert.equal(selectorMatches(labelSelectorFrom({}) as Selector, { any: 'thing' }), true);
  });
  it('matchLabels and matchExpressions are ANDed, sorted by key, values a sorted set', () => {
    const got = labelSelectorFrom({
      matchLabels: { tier: 'front', app: 'web' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['prod', 'dev', 'prod'] },
        { key: 'zone', operator: 'NotIn', values: ['b'] },
        { key: 'canary', operator: 'DoesNotExist' },
        { key: 'owner', operator: 'Exists', values: [] },
      ],
    });
    assert.deepEqual(got, [
      req('app', 'In', ['web']),
      req('canary', 'DoesNotExist'),
      req('env', 'In', ['dev', 'prod']),
      req('owner', 'Exists'),
      req('tier', 'In', ['front']),
      req('zone', 'NotIn', ['b']),
    ]);
    assert.equal(formatSelector(got as Selector), 'app=web,!canary,env in (dev,prod),owner,tier=front,zone!=b');
  });
  const bad: { title: string; sel: Parameters<typeof labelSelectorFrom>[0]; want: string[] }[] = [
    { title: 'Exists with values', sel: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }, want: ['matchExpressions[0].values: must be empty for Exists'] },
    {
      title: 'DoesNotExist with values',
      sel: { matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: ['x'] }] },
      want: ['matchExpressions[0].values: must be empty for DoesNotExist'],
    },
    { title: 'In without values', sel: { matchExpressions: [{ key: 'a', operator: 'In' }] }, want: ['matchExpressions[0].values: must be non-empty for In'] },
    {
      title: 'NotIn with an empty list',
      sel: { matchExpressions: [{ key: 'a', operator: 'NotIn', values: [] }] },
      want: ['matchExpressions[0].values: must be non-empty for NotIn'],
    },
    {
      title: 'an unknown operator (case matters)',
      sel: { matchExpressions: [{ key: 'a', operator: 'in', values: ['x'] }] },
      want: ['matchExpressions[0].operator: "in" is not a valid label selector operator; expected one of In, NotIn, Exists, DoesNotExist'],
    },
    { title: 'a missing key', sel: { matchExpressions: [{ key: '', operator: 'Exists' }] }, want: ['matchExpressions[0].key: required: a label key'] },
    {
      title: 'a bad expression key and value, every problem at once',
      sel: {
        matchExpressions: [
          { key: 'ok', operator: 'Exists' },
          { key: 'a/b/c', operator: 'In', values: ['fine', 'not fine'] },
        ],
      },
      want: [
        "matchExpressions[1].key: must be a qualified name: an optional DNS subdomain prefix and '/', then a name (e.g. 'example.com/MyName')",
        "matchExpressions[1].values[1]: must be empty or consist of letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
      ],
    },
    {
      title: 'bad matchLabels key and value, paths quoted where the key needs it',
      sel: { matchLabels: { 'example.com/x_': 'v', app: '-web' } },
      want: [
        `matchLabels["example.com/x_"]: key name part must consist of letters, digits, '-', '_' or '.', starting and ending with a letter or digit (e.g. 'MyName', 'my.name', '123-abc')`,
        "matchLabels.app: must be empty or consist of letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
      ],
    },
  ];
  for (const t of bad) it(t.title, () => assert.deepEqual(labelSelectorFrom(t.sel), t.want));
});

describe('formatSelector: canonical text that parses back to the same selector', () => {
  const cases: { sel: Requirement[]; text: string }[] = [
    { sel: [], text: '' },
    { sel: [req('app', 'In', ['web'])], text: 'app=web' },
    { sel: [req('app', 'In', ['web', 'db'])], text: 'app in (db,web)' },
    { sel: [req('app', 'NotIn', ['web'])], text: 'app!=web' },
    { sel: [req('app', 'NotIn', ['web', 'db', 'web'])], text: 'app notin (db,web)' },
    { sel: [req('app', 'Exists')], text: 'app' },
    { sel: [req('app', 'DoesNotExist')], text: '!app' },
    { sel: [req('app', 'In', [''])], text: 'app=' },
    { sel: [req('app', 'In', ['', 'a'])], text: 'app in (,a)' },
    { sel: [req('z', 'Exists'), req('example.com/a', 'NotIn', [''])], text: 'example.com/a!=,z' },
    { sel: [req('gen', 'Gt', ['3'])], text: 'gen>3' },
    { sel: [req('gen', 'Lt', ['10']), req('app', 'Exists')], text: 'app,gen<10' },
  ];
  for (const t of cases) {
    it(t.text || '(empty)', () => {
      assert.equal(formatSelector(t.sel), t.text);
      assert.equal(formatSelector(parseCli(t.text)), t.text);
    });
  }
  it('parse(format(x)) equals x for every combination of keys, operators and values that parse and labelSelectorFrom build', () => {
    const keys = ['a', 'app', 'Z9', 'a-b_c.d', 'example.com/app', 'k8s.io/x', 'in', 'notin'];
    const valueSets = [[''], ['web'], ['in'], ['', 'a'], ['b', 'a'], ['a-b_c.D', 'notin', 'x']];
    const reqs: Requirement[] = [];
    for (const key of keys) {
      reqs.push(req(key, 'Exists'), req(key, 'DoesNotExist'));
      for (const values of valueSets) reqs.push(req(key, 'In', values), req(key, 'NotIn', values));
    }
    // Each requirement alone, then overlapping windows of several, in the built (sorted, set) form.
    const selectors = [...reqs.map((r) => [r]), ...reqs.map((_, i) => reqs.slice(i, i + 5)), reqs];
    for (const reqsOf of selectors) {
      const built = labelSelectorFrom({ matchExpressions: reqsOf });
      assert.ok(Array.isArray(built) && built.every((r) => typeof r !== 'string'), JSON.stringify(built));
      const sel = built as Selector;
      assert.deepEqual(parseCli(formatSelector(sel)), sel, formatSelector(sel));
    }
  });
});
