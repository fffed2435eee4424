// Property: whatever a valid manifest is mutated into, the manifest layer never crashes. Every outcome is either
// valid pods (which must then plan without error) or problems that each name the file and say what is wrong —
// what the CLI prints as a clean exit 2. The same cases go through the CLI in test/engine/bad-input.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseManifests } from '../../../src/manifest/parse.js';
import { translatePod } from '../../../src/plan/translate.js';
import { fuzzCase, render, validManifests } from './mutations.js';

const file = 'fuzz.yaml';

function check(text: string): void {
  const result = parseManifests([{ source: { file }, text }], { defaultNamespace: 'default' });
  for (const p of result.problems) {
    assert.equal(p.file, file);
    assert.ok(p.message.length > 0, 'a problem says what is wrong');
    assert.ok(p.line === undefined || (Number.isInteger(p.line) && p.line >= 1), `line ${String(p.line)} is a line number`);
  }
  if (result.problems.length > 0) return;
  for (const pod of result.pods) {
    const plan = translatePod(pod, { infraImage: 'runpod/pause:test' });
    // The plan is what goes to the engine as JSON and into the spec hash.
    JSON.stringify(plan);
  }
}

describe('mutated manifests never crash the manifest layer', () => {
  it('the unmutated manifests are valid', () => {
    for (const text of validManifests) {
      const r = parseManifests([{ source: { file }, text }], { defaultNamespace: 'default' });
      assert.deepEqual(r.problems, []);
      assert.ok(r.pods.length >= 1);
    }
  });

  it('survives random mutations (fields deleted, replaced, duplicated, nested, retyped; text damaged)', () => {
    let valid = 0;
    let invalid = 0;
    fc.assert(
      fc.property(fuzzCase, (c) => {
        const text = render(c);
        check(text);
        const r = parseManifests([{ source: { file }, text }], { defaultNamespace: 'default' });
        if (r.problems.length === 0) valid++;
        else invalid++;
      }),
      { numRuns: 500 },
    );
    // Both outcomes occur, or the mutations are too tame (or too wild) to test anything.
    assert.ok(valid > 0 && invalid > 0, `valid ${valid}, invalid ${invalid}`);
  });

  it('survives arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => check(text)),
      { numRuns: 200 },
    );
  });
});
