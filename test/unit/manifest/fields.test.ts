import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closestName, containerFields, fieldEntryAt, podFields, podSpecFields, supportedFieldsMarkdown, walkFields } from '../../../src/manifest/fields.js';
import { formatPath } from '../../../src/kube/path.js';

describe('field table', () => {
  const statuses: Array<[string[], string | undefined]> = [
    [['metadata', 'name'], 'supported'],
    [['metadata', 'generateName'], 'unsupported'],
    [['metadata', 'managedFields'], 'warn'],
    [['spec', 'nodeSelector'], 'warn'],
    [['spec', 'affinity'], 'warn'],
    [['spec', 'readinessGates'], 'unsupported'],
    [['spec', 'volumes'], 'supported'],
    [['spec', 'volumes', 'nfs'], 'unsupported'],
    [['spec', 'volumes', 'projected', 'sources', 'serviceAccountToken'], 'unsupported'],
    [['spec', 'containers', 'image'], 'supported'],
    [['spec', 'containers', 'volumeMounts'], 'supported'],
    [['spec', 'containers', 'volumeMounts', 'subPathExpr'], 'unsupported'],
    [['spec', 'containers', 'env', 'valueFrom', 'secretKeyRef'], 'supported'],
    [['spec', 'containers', 'resources', 'limits', 'memory'], 'supported'],
    [['spec', 'containers', 'resources', 'limits', 'example.com/dongle'], 'unsupported'],
    [['spec', 'nope'], undefined],
    [['status'], 'warn'],
  ];
  for (const [path, status] of statuses) {
    it(`${path.join('.')} is ${status ?? 'unknown'}`, () => assert.equal(fieldEntryAt(path)?.status, status));
  }

  it('lists every PodSpec and Container field Kubernetes defines (spot check of recent ones)', () => {
    for (const f of ['hostUsers', 'schedulingGates', 'resourceClaims', 'os', 'resources']) assert.ok(f in podSpecFields.fields, f);
    for (const f of ['resizePolicy', 'restartPolicy', 'startupProbe', 'volumeDevices']) assert.ok(f in containerFields.fields, f);
  });

  it('renders a README table with one row per field', () => {
    const md = supportedFieldsMarkdown();
    assert.match(md, /^\| Field \| Status \| Note \|\n\|---\|---\|---\|\n/);
    assert.match(md, /\| `spec\.containers\[\]\.image` \| supported \| required \|/);
    assert.match(md, /\| `spec\.nodeSelector` \| ignored \(warning\) \| ignored, scheduling has no meaning on one host \|/);
    assert.match(md, /\| `spec\.volumes\[\]\.nfs` \| not supported \|/);
    assert.match(md, /\| `Secret\.stringData` \| supported \|/);
    assert.match(md, /\| `spec\.containers\[\]\.resources\.limits\.<other>` \| not supported \|/);
    assert.equal(md.split('\n').filter((l) => l.startsWith('| `')).length > 90, true);
  });
});

describe('walkFields', () => {
  it('reports unknown and unsupported fields, warns for ignored ones, and settles refused subtrees', () => {
    const walk = walkFields(
      {
        metadata: { name: 'a', restartPolicy: 'Never', resourceVersion: '5' },
        spec: { nodeSelector: { a: 'b' }, runtimeClassName: 'gvisor', containers: [{ name: 'a', imagePulPolicy: 'x', ports: [{ containerPort: 1, hostport: 2 }] }] },
      },
      podFields,
    );
    assert.deepEqual(
      walk.problems.map((p) => `${formatPath(p.path)}: ${p.message}`),
      [
        'metadata.restartPolicy: unknown field "restartPolicy" (restartPolicy belongs in spec)',
        'spec.runtimeClassName: not supported by runpod',
        'spec.containers[0].imagePulPolicy: unknown field "imagePulPolicy"; did you mean "imagePullPolicy"?',
        'spec.containers[0].ports[0].hostport: unknown field "hostport"; did you mean "hostPort"?',
      ],
    );
    assert.deepEqual(
      walk.warnings.map((p) => `${formatPath(p.path)}: ${p.message}`),
      ['metadata.resourceVersion: ignored, read-only and set by the API server', 'spec.nodeSelector: ignored, scheduling has no meaning on one host'],
    );
    assert.deepEqual(walk.settled.map(formatPath), [
      'metadata.restartPolicy',
      'metadata.resourceVersion',
      'spec.runtimeClassName',
      'spec.containers[0].imagePulPolicy',
      'spec.containers[0].ports[0].hostport',
    ]);
  });

  const guesses: Array<[string, string[], string | undefined]> = [
    ['imagepullpolicy', ['image', 'imagePullPolicy'], 'imagePullPolicy'],
    ['contianers', ['containers', 'volumes'], 'containers'],
    ['x', ['tty', 'args'], undefined],
    ['labelz', ['labels', 'annotations'], 'labels'],
    ['somethingelse', ['labels'], undefined],
  ];
  for (const [key, names, expect] of guesses) {
    it(`closestName(${key}) = ${expect}`, () => assert.equal(closestName(key, names), expect));
  }
});
