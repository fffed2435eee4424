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
import { formatProblem } from '../../../src/errors.js';
import { parseManifests } from '../../../src/manifest/parse.js';

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
    assert.deepEqual(
      newer.filter((f) => f.since === undefined).map((f) => f.at),
      [],
      'fields missing from the schema without `since`',
    );
    // The ones known today (Kubernetes 1.34): a field moving into the schema (a newer kubernetes-models) shows here.
    assert.deepEqual([...new Set(newer.map((f) => f.at.split(' ')[0]))].sort(), [
      'Container.restartPolicyRules',
      'EnvVarSource.fileKeyRef',
      'PodSpec.hostnameOverride',
      'PodSpec.schedulingGroup',
      'PodSpec.workloadRef',
      'VolumeProjection.podCertificate',
    ]);
  });

  it('a refused one says so', () => {
    assert.equal(fields.newerThanSchema('1.34'), 'from Kubernetes 1.34, newer than the 1.33 schema runpod validates against');
    assert.equal(fields.newerThanSchema('1.36'), 'from Kubernetes 1.36, newer than the Kubernetes 1.34 API runpod knows');
  });
});

// Fields Kubernetes added to the Pod API after 1.34 (kubernetes/api core/v1/types.go, tags v0.35.0 and v0.36.0):
// said to be newer, not unknown; a field the tables do not know says which Kubernetes runpod knows.
describe('fields and values from Kubernetes after 1.34', () => {
  const messages = (text: string) => {
    const r = parseManifests([{ source: { file: 'pod.yaml', origin: '/x/pod.yaml' }, text }], { defaultNamespace: 'default' });
    return { problems: r.problems.map(formatProblem), warnings: r.warnings.map(formatProblem) };
  };
  const pod = (lines: string[]) =>
    ['apiVersion: v1', 'kind: Pod', 'metadata:', '  name: web', 'spec:', ...lines, '  containers:', '  - name: app', '    image: busybox'].join('\n');
  it('spec.schedulingGroup (1.36) and spec.workloadRef (1.35): gang scheduling, ignored with a warning that names the version', () => {
    const r = messages(pod(['  schedulingGroup: {podGroupName: trainers}', '  workloadRef: {name: w, podGroup: trainers}']));
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.warnings, [
      'pod.yaml:6 spec.schedulingGroup: ignored, scheduling has no meaning on one host (gang scheduling) (a field from Kubernetes 1.36, newer than the Kubernetes 1.34 API runpod knows)',
      "pod.yaml:7 spec.workloadRef: ignored, scheduling has no meaning on one host (Kubernetes 1.35's gang scheduling; replaced by schedulingGroup in 1.36) (a field from Kubernetes 1.35, newer than the Kubernetes 1.34 API runpod knows)",
    ]);
  });
  it('restartPolicyRules action RestartAllContainers (1.35): refused as newer, not as a wrong value', () => {
    const text = [
      'apiVersion: v1',
      'kind: Pod',
      'metadata:',
      '  name: web',
      'spec:',
      '  restartPolicy: Never',
      '  containers:',
      '  - name: app',
      '    image: busybox',
      '    restartPolicy: Never',
      '    restartPolicyRules:',
      '    - action: RestartAllContainers',
      '      exitCodes: {operator: In, values: [42]}',
    ].join('\n');
    assert.deepEqual(messages(text).problems, [
      'pod.yaml:12 spec.containers[0].restartPolicyRules[0].action: RestartAllContainers is from Kubernetes 1.35, newer than the Kubernetes 1.34 API runpod knows (it restarts every container of the pod in place): runpod does not support it yet; Restart is the action of Kubernetes 1.34',
    ]);
  });
  it('a field runpod does not know at all says which Kubernetes API it knows', () => {
    assert.deepEqual(messages(pod(['  evictionResponders: [{name: x}]'])).problems, [
      'pod.yaml:6 spec.evictionResponders: unknown field "evictionResponders" (not in the Kubernetes 1.34 API runpod knows)',
    ]);
  });
});
