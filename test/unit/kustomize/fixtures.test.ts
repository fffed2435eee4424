// Oracle fixtures: each test/fixtures/kustomize/patch-*/ holds a kustomization (resources and the fields this
// part of the rendering handles: patches, patchesStrategicMerge, patchesJson6902, replacements, vars) and
// expected.yaml, which `kubectl kustomize DIR` (kustomize v5.5) printed. The fixture's resources are read here
// with js-yaml and handed to the transformers directly; the result must equal kustomize's, object for object.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { applyPatches, type PatchEntry } from '../../../src/input/kustomize/patches.js';
import type { PatchTarget } from '../../../src/input/kustomize/patchTargets.js';
import { applyReplacements } from '../../../src/input/kustomize/replacements.js';
import type { JsonObject, JsonValue, Resource } from '../../../src/input/kustomize/resource.js';
import { applyVars } from '../../../src/input/kustomize/vars.js';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const fixtures = path.join(repoRoot, 'test/fixtures/kustomize');

function docs(text: string): JsonValue[] {
  return yaml.loadAll(text).filter((d) => d !== null && d !== undefined) as JsonValue[];
}

function asObject(v: unknown): JsonObject {
  return (v ?? {}) as JsonObject;
}

/**
 * The fixture's kustomization, read as the pipeline would hand its fields to the transformers, in kustomize's
 * order (kusttarget_configplugin.go): patchesStrategicMerge, patches, (namespace … annotations), patchesJson6902,
 * (replicas, images), replacements; vars last.
 */
function render(dir: string): JsonObject[] {
  const file = path.join(dir, 'kustomization.yaml');
  const k = asObject(yaml.load(fs.readFileSync(file, 'utf8')));
  const origin = { file };
  const read = (p: string) => fs.readFileSync(path.join(dir, p), 'utf8');
  let resources: Resource[] = ((k.resources ?? []) as string[]).flatMap((p) =>
    docs(read(p)).map((object) => ({ object: object as JsonObject, origin: { file: p }, previousIds: [] })),
  );
  const entries: PatchEntry[] = [];
  for (const p of (k.patchesStrategicMerge ?? []) as string[]) {
    const text = p.includes('\n') ? p : read(p);
    entries.push({ kind: 'strategicMerge', patch: docs(text) as JsonObject[], origin, field: 'patchesStrategicMerge' });
  }
  for (const p of (k.patches ?? []) as JsonObject[]) {
    const text = typeof p.path === 'string' ? read(p.path) : String(p.patch);
    const parsed = docs(text);
    const json = parsed.length === 1 && Array.isArray(parsed[0]);
    entries.push({
      kind: json ? 'json6902' : 'strategicMerge',
      patch: json ? (parsed[0] as JsonValue[]) : parsed.length === 1 ? (parsed[0] as JsonObject) : parsed,
      ...(p.target ? { target: p.target as PatchTarget } : {}),
      ...(p.options ? { options: p.options as PatchEntry['options'] } : {}),
      origin,
    });
  }
  for (const p of (k.patchesJson6902 ?? []) as JsonObject[]) {
    const text = typeof p.path === 'string' ? read(p.path) : String(p.patch);
    entries.push({ kind: 'json6902', patch: yaml.load(text) as JsonValue[], target: p.target as PatchTarget, origin, field: 'patchesJson6902' });
  }
  resources = applyPatches(resources, entries);
  if (k.replacements) {
    const reps = (k.replacements as JsonObject[]).flatMap((r) => (typeof r.path === 'string' ? (docs(read(r.path)) as JsonObject[]) : [r]));
    resources = applyReplacements(resources, reps, origin);
  }
  if (k.vars) resources = applyVars(resources, k.vars as JsonObject[], origin);
  return resources.map((r) => r.object);
}

function key(o: JsonObject): string {
  const m = asObject(o.metadata);
  return `${String(o.apiVersion)} ${String(o.kind)} ${String(m.namespace ?? '')} ${String(m.name)}`;
}

function byKey(list: JsonObject[]): Map<string, JsonObject> {
  return new Map(list.map((o) => [key(o), o]));
}

describe('kustomize oracle fixtures (expected.yaml printed by kubectl kustomize, kustomize v5.5)', () => {
  const dirs = fs.existsSync(fixtures)
    ? fs
        .readdirSync(fixtures)
        .filter((d) => /^(patch|replacement|vars)-/.test(d))
        .sort()
    : [];
  it('there are fixtures', () => assert.ok(dirs.length > 0));
  for (const d of dirs) {
    const dir = path.join(fixtures, d);
    const errorFile = path.join(dir, 'expected-error.txt');
    if (fs.existsSync(errorFile)) {
      it(`${d}: refused, as kustomize refuses it`, () => {
        const want = fs.readFileSync(errorFile, 'utf8').trim();
        assert.throws(
          () => render(dir),
          (e: Error) => e.message.includes(want),
        );
      });
      continue;
    }
    it(`${d} renders as kustomize renders it`, () => {
      const expected = docs(fs.readFileSync(path.join(dir, 'expected.yaml'), 'utf8')) as JsonObject[];
      const actual = render(dir);
      assert.deepStrictEqual([...byKey(actual).keys()].sort(), [...byKey(expected).keys()].sort());
      const want = byKey(expected);
      for (const [k, o] of byKey(actual)) assert.deepStrictEqual(o, want.get(k), k);
    });
  }
});
