import { it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { supportedFieldsMarkdown } from '../../src/manifest/fields.js';
import { repoRoot } from '../engine/harness.js';

it("README's supported-fields table matches src/manifest/fields.ts (npm run fields)", () => {
  const text = fs.readFileSync(`${repoRoot}/README.md`, 'utf8');
  const block = /<!-- fields:start -->\n([\s\S]*?)\n<!-- fields:end -->/.exec(text);
  assert.ok(block, 'README has the fields markers');
  assert.equal(block[1], supportedFieldsMarkdown().trim());
});
