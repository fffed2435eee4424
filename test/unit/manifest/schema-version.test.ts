// The OpenAPI schema runpod validates types against (kubernetes-models 4.5.1) is Kubernetes 1.33's; runpod's field
// tables follow 1.34. Every field of the tables that the schema's type lacks must say which Kubernetes version added
// it (FieldEntry.since), so its refusal reads "from Kubernetes 1.34, newer than the 1.33 schema" and not as a typo.
// The schema's validators are generated code; a type's fields are read from the `data.<field>` checks in it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import * as fields from '../../../src/manifest/fields.js';
import type { FieldLevel } from '../../../src/manifest/fields.js';

const schemas = path.join(path.dirname(createRequire(import.meta.url).resolve('kubernetes-models/package.json')), '_schemas');
const groups = ['IoK8sApiCoreV1', 'IoK8sApiAppsV1', 'IoK8sApiBatchV1', 'IoK8sApimachineryPkgApisMetaV1'];

function schemaFields(type: string): Set<string> | undefined {
  for (const g of groups) {
    const file = path.join(schemas, `${g}${type}.js`);
    if (!fs.existsSync(file)) continue;
    const found = new Set([...fs.readFileSync(file, 'utf8').matchAll(/data\.([A-Za-z0-9]+)/g)].map((m) => m[1]!));
    return found.size > 0 ? found : undefined;
  }
  return undefined;
}

function newerFields(): { at: string; since: string | undefined }[] {
  const out: { at: string; since: string | undefined }[] = [];
  const seen = new Set<FieldLevel>();
  const visit = (level: FieldLevel, at: string): void => {
    if (seen.has(level)) return;
    seen.add(level);
    const known = schemaFields(level.type);
    for (const [name, entry] of Object.entries(level.fields)) {
      if (known !== undefined && !known.has(name)) out.push({ at: `${level.type}.${name} (${at}.${name})`, since: entry.since });
      if (entry.fields) visit(entry.fields, `${at}.${name}`);
    }
  };
  for (const [name, value] of Object.entries(fields)) {
    if (name.endsWith('Fields') && typeof value === 'object' && value !== null && 'fields' in value) visit(value as FieldLevel, name);
  }
  return out;
}

describe('fields newer than the bundled schema', () => {
  it(`the schema is Kubernetes ${fields.schemaKubernetesVersion}'s: it has 1.33's lifecycle.stopSignal`, () => {
    assert.equal(schemaFields('Lifecycle')?.has('stopSignal'), true);
  });

  it('each field of the tables the schema lacks says the version that added it', () => {
    const newer = newerFields();
    assert.deepEqual(newer.filter((f) => f.since === undefined).map((f) => f.at), [], 'fields missing from the schema without `since`');
    // The ones known today (Kubernetes 1.34): a field moving into the schema (a newer kubernetes-models) shows here.
    assert.deepEqual([...new Set(newer.map((f) => f.at.split(' ')[0]))].sort(), ['Container.restartPolicyRules', 'EnvVarSource.fileKeyRef', 'PodSpec.hostnameOverride', 'VolumeProjection.podCertificate']);
  });

  it('a refused one says so', () => {
    assert.equal(fields.newerThanSchema('1.34'), 'from Kubernetes 1.34, newer than the 1.33 schema runpod validates against');
  });
});
