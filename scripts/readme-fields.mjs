// Writes the supported-fields table (generated from src/manifest/fields.ts) into README.md between its
// markers. Run after `npm run build`; test/unit/readme.test.ts fails when README is out of step.
import fs from 'node:fs';
import { supportedFieldsMarkdown } from '../dist/src/manifest/fields.js';

const readme = new URL('../README.md', import.meta.url);
const text = fs.readFileSync(readme, 'utf8');
const start = '<!-- fields:start -->';
const end = '<!-- fields:end -->';
const a = text.indexOf(start);
const b = text.indexOf(end);
if (a < 0 || b < a) throw new Error('README.md has no fields markers');
fs.writeFileSync(readme, `${text.slice(0, a + start.length)}\n${supportedFieldsMarkdown().trim()}\n${text.slice(b)}`);
