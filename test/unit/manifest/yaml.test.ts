import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkExpansion, lineOf, parseYaml } from '../../../src/input/yaml.js';

function linesOf(text: string): Record<string, number> {
  const parsed = parseYaml(text, 'f.yaml');
  assert.deepEqual(parsed.problems, []);
  assert.equal(parsed.documents.length, 1);
  return Object.fromEntries(parsed.documents[0]!.lines);
}

describe('parseYaml line map', () => {
  const cases: Array<{ name: string; text: string; expect: Record<string, number> }> = [
    {
      name: 'block mappings and sequences: each field at its key line, each item at its first line',
      text: 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  containers:\n  - name: a\n    image: b\n    args:\n    - sh\n    -\n      -c\n',
      expect: {
        apiVersion: 1,
        kind: 2,
        metadata: 3,
        'metadata.name': 4,
        spec: 5,
        'spec.containers': 6,
        'spec.containers[0]': 7,
        'spec.containers[0].name': 7,
        'spec.containers[0].image': 8,
        'spec.containers[0].args': 9,
        'spec.containers[0].args[0]': 10,
        'spec.containers[0].args[1]': 12,
      },
    },
    {
      name: 'JSON on one line',
      text: '{"a": {"b": [1, {"c": 2}]}}',
      expect: { a: 1, 'a.b': 1, 'a.b[0]': 1, 'a.b[1]': 1, 'a.b[1].c': 1 },
    },
    {
      name: 'pretty-printed JSON',
      text: '{\n  "a": 1,\n  "b": {\n    "c": [\n      "x"\n    ]\n  }\n}\n',
      expect: { a: 2, b: 3, 'b.c': 4, 'b.c[0]': 5 },
    },
    {
      name: 'flow collections in a block sequence',
      text: 'a:\n- {b: 1}\n- [1, {c: 2}]\n',
      expect: { a: 1, 'a[0]': 2, 'a[0].b': 2, 'a[1]': 3, 'a[1][0]': 3, 'a[1][1]': 3, 'a[1][1].c': 3 },
    },
    {
      name: 'an empty sequence entry has no node; later items keep their index',
      text: 'a:\n-\n- z\n',
      expect: { a: 1, 'a[1]': 3 },
    },
    {
      name: 'keys with dots and slashes are quoted in paths',
      text: 'labels:\n  app.kubernetes.io/name: x\n',
      expect: { labels: 1, 'labels["app.kubernetes.io/name"]': 2 },
    },
    {
      name: 'merge keys: merged fields have no line of their own',
      text: 'base: &b {x: 1}\nm:\n  <<: *b\n  y: 2\n',
      expect: { base: 1, 'base.x': 1, m: 2, 'm.y': 4 },
    },
    {
      name: 'explicit keys and keys without values',
      text: '? k\n: v\nz:\nf: {a, b: 1}\n',
      expect: { k: 1, z: 3, f: 4, 'f.a': 4, 'f.b': 4 },
    },
    {
      name: 'comments and a document marker before the content',
      text: '# a comment\n---\n# another\nkind: Pod\n',
      expect: { kind: 4 },
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(linesOf(c.text), c.expect));
  }

  it('lineOf falls back to the nearest ancestor with a line', () => {
    const doc = parseYaml('base: &b {x: 1}\nm:\n  <<: *b\n', 'f.yaml').documents[0]!;
    assert.equal(lineOf(doc.lines, ['m', 'x']), 2);
    assert.equal(lineOf(doc.lines, ['nope', 'deeper']), undefined);
  });
});

describe('parseYaml documents and errors', () => {
  it('splits documents, skips empty ones, and records where each starts', () => {
    const parsed = parseYaml('a: 1\n---\n---\n# only a comment\n---\nb: 2\n---\n', 'f.yaml');
    assert.deepEqual(parsed.problems, []);
    assert.deepEqual(
      parsed.documents.map((d) => [d.value, d.line]),
      [
        [{ a: 1 }, 1],
        [{ b: 2 }, 6],
      ],
    );
    assert.equal(parsed.documents[1]!.lines.get('b'), 6);
  });

  const bad: Array<{ name: string; text: string; line: number | undefined; message: RegExp }> = [
    { name: 'bad indentation', text: 'a: 1\nb:\n  c: 1\n d: 2\n', line: 4, message: /^invalid YAML: bad indentation/ },
    { name: 'unclosed flow mapping', text: 'a: 1\nb: {c: 1\n', line: 3, message: /^invalid YAML: / },
    { name: 'duplicate key', text: 'a: 1\na: 2\n', line: 2, message: /^invalid YAML: duplicated mapping key/ },
    { name: 'tab indentation', text: 'a:\n\tb: 1\n', line: 2, message: /^invalid YAML: / },
  ];
  for (const c of bad) {
    it(`syntax error: ${c.name}`, () => {
      const parsed = parseYaml(c.text, 'f.yaml');
      assert.equal(parsed.documents.length, 0);
      assert.equal(parsed.problems.length, 1);
      const p = parsed.problems[0]!;
      assert.equal(p.file, 'f.yaml');
      assert.equal(p.line, c.line);
      assert.equal(p.path, '');
      assert.match(p.message, c.message);
    });
  }

  for (const text of ['', '# nothing\n', '---\n---\n', '~\n']) {
    it(`no documents: ${JSON.stringify(text)}`, () => {
      assert.deepEqual(parseYaml(text, 'f.yaml'), { documents: [], problems: [{ file: 'f.yaml', path: '', message: 'no documents' }] });
    });
  }
});

describe('checkExpansion', () => {
  it('accepts a few shared aliases', () => {
    const doc = parseYaml('env: &e [{name: A}]\nc1: {env: *e}\nc2: {env: *e}\n', 'f.yaml').documents[0]!;
    assert.deepEqual(checkExpansion(doc.value, doc.sourceNodes), { ok: true });
  });

  it('refuses a billion-laughs document without expanding it', () => {
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i <= 9; i++)
      lines.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    const doc = parseYaml(lines.join('\n'), 'f.yaml').documents[0]!;
    const check = checkExpansion(doc.value, doc.sourceNodes);
    assert.equal(check.ok, false);
    assert.equal(!check.ok && check.reason, 'too large');
  });

  it('refuses a self-referencing anchor', () => {
    const doc = parseYaml('a: &a {b: *a}\n', 'f.yaml').documents[0]!;
    const check = checkExpansion(doc.value, doc.sourceNodes);
    assert.equal(!check.ok && check.reason, 'cycle');
  });
});
