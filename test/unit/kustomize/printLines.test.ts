// `validate -k` takes a rendered kustomization's documents from its printing (printDocumentsWithLines) instead of
// parsing the printed text again: what it gets must be what parseYaml reads from that text, field for field and
// line for line (values with their keys in order, each field's line, each document's line, the expansion check),
// for every kustomization under test/fixtures/kustomize and for scalars the printer quotes, folds or writes as blocks.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { KustomizeError } from '../../../src/input/kustomize/errors.js';
import { renderToDocuments, renderToText } from '../../../src/input/kustomize/input.js';
import { printDocuments, printDocumentsWithLines } from '../../../src/input/kustomize/print.js';
import type { JsonObject } from '../../../src/input/kustomize/resource.js';
import { checkExpansion, type ParsedYaml, parseYaml } from '../../../src/input/yaml.js';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const fixtures = path.join(repoRoot, 'test/fixtures/kustomize');

function kustomizations(dir: string): string[] {
  const names = fs.readdirSync(dir, { withFileTypes: true });
  const here = names.some((n) => n.isFile() && ['kustomization.yaml', 'kustomization.yml', 'Kustomization'].includes(n.name)) ? [dir] : [];
  return [...here, ...names.filter((n) => n.isDirectory()).flatMap((n) => kustomizations(path.join(dir, n.name)))];
}

/** The same as parseYaml(text) gives, in everything a reader of the documents uses. */
function assertReadsAsParsed(given: ParsedYaml, text: string, file: string): void {
  const parsed = parseYaml(text, file);
  assert.deepEqual(given.problems, parsed.problems);
  assert.equal(given.documents.length, parsed.documents.length);
  given.documents.forEach((d, i) => {
    const p = parsed.documents[i]!;
    assert.deepEqual(d.value, p.value);
    // Key order too: problems are reported in the order the fields are met.
    assert.equal(JSON.stringify(d.value), JSON.stringify(p.value));
    assert.equal(d.line, p.line);
    assert.deepEqual(new Map([...d.lines].sort()), new Map([...p.lines].sort()));
    assert.deepEqual(checkExpansion(d.value, d.sourceNodes), checkExpansion(p.value, p.sourceNodes));
  });
}

describe('a rendered kustomization read from its printing = its printed text parsed', () => {
  for (const dir of kustomizations(fixtures)) {
    it(path.relative(fixtures, dir), () => {
      const file = `${dir} (kustomize)`;
      let rendered: ReturnType<typeof renderToDocuments>;
      try {
        rendered = renderToDocuments(dir, file);
      } catch (err) {
        if (!(err instanceof KustomizeError)) throw err;
        assert.throws(() => renderToText(dir), KustomizeError);
        return;
      }
      assert.equal(rendered.text, renderToText(dir));
      assertReadsAsParsed(rendered.parsed, rendered.text, file);
    });
  }

  it('scalars quoted, folded, written as blocks; empty maps, lists and objects; lists in lists; -0', () => {
    const objects: JsonObject[] = [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'odd', annotations: { 'a.b/c': 'yes', empty: '', octal: '0644', time: '2024-01-02T03:04:05Z', colon: 'a: b', hash: 'a #b' } },
        data: {
          block: 'line one\nline two\n',
          kept: 'a\n\n\n',
          lead: ' leading space\nnext',
          tabs: 'a\tb',
          long: `${'word '.repeat(30)}end`,
          longQuoted: `true ${'x '.repeat(50)}`,
          control: 'bell\u0007',
          number: '12',
          float: '1.5e3',
          nul: 'null',
          '0': 'numeric key',
        },
      },
      {},
      {
        apiVersion: 'v1',
        kind: 'List',
        items: [],
        nested: [[1, [2, 3]], [], {}, [{ a: 1, b: [] }], null, -0, 1.5e-7, 1e21, true],
        deep: { e: {}, l: [], m: { n: [{ o: { p: 'q' } }] } },
      },
      {},
    ];
    const { text, documents } = printDocumentsWithLines(objects);
    assert.equal(text, printDocuments(objects));
    assert.ok(documents !== undefined);
    const file = 'objects.yaml';
    assertReadsAsParsed({ documents: documents.map((d) => ({ value: d.value, line: d.line, lines: d.lines, sourceNodes: d.nodes })), problems: [] }, text, file);
  });

  it('nothing rendered: no documents, as parsing an empty text says', () => {
    const { text, documents } = printDocumentsWithLines([]);
    assert.equal(text, '');
    assert.deepEqual(documents, []);
  });
});
