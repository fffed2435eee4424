// Helm hook annotations on `helm template` output (manifest/helmHooks.ts): test, delete and rollback hooks are
// skipped with a warning (helm install runs none); install and upgrade hooks run with the other objects, said so.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { helmHook } from '../../../src/manifest/helmHooks.js';
import { parseManifests } from '../../../src/manifest/parse.js';

const hook = (value: string) => helmHook({ 'helm.sh/hook': value });

describe('Helm hooks', () => {
  it('test and test-success (Helm 2) are skipped; so are delete and rollback hooks', () => {
    for (const v of ['test', 'test-success', 'test-failure']) assert.equal(hook(v)?.action, 'skip', v);
    assert.match(JSON.stringify(hook('test')), /helm install runs none, helm test does/);
    for (const v of ['pre-delete', 'post-delete', 'pre-rollback', 'post-delete, post-rollback']) assert.equal(hook(v)?.action, 'skip', v);
  });
  it('install and upgrade hooks run, alone or in a list with others', () => {
    for (const v of ['pre-install', 'post-install', 'pre-upgrade', 'post-upgrade', 'pre-install,pre-upgrade', 'post-install, post-delete']) assert.equal(hook(v)?.action, 'run', v);
  });
  it('no annotation, or another one: nothing to judge', () => {
    assert.equal(helmHook(undefined), undefined);
    assert.equal(helmHook({ 'helm.sh/hook-weight': '1' }), undefined);
  });
  it('a rendered chart: the test Pod skipped with a warning, the pre-install Job kept with a warning, the rest as is', () => {
    const text = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers: [{name: web, image: nginx:1}]
---
apiVersion: v1
kind: Pod
metadata:
  name: web-test-connection
  annotations:
    "helm.sh/hook": test
spec:
  restartPolicy: Never
  containers: [{name: wget, image: busybox:1, command: [wget, 'web:80']}]
---
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations: {"helm.sh/hook": pre-install, "helm.sh/hook-weight": "-5"}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: m, image: busybox:1}]
`;
    const r = parseManifests([{ source: { file: 'chart.yaml' }, text }], { defaultNamespace: 'default' });
    assert.deepEqual(r.problems, []);
    assert.deepEqual(
      r.pods.map((p) => p.pod.metadata.name.replace(/-[a-z0-9]{5}$/, '-*')),
      ['web', 'migrate-*'],
      "the Job's pod",
    );
    assert.deepEqual(
      r.skipped.map((s) => `${s.kind} ${s.name}`),
      ['Pod web-test-connection'],
    );
    assert.deepEqual(
      r.warnings.map((w) => `${w.line} ${w.path}: ${w.message}`),
      [
        '13 metadata.annotations["helm.sh/hook"]: Pod web-test-connection skipped: a Helm test hook (test): helm install runs none, helm test does',
        '22 metadata.annotations["helm.sh/hook"]: Helm hook pre-install: runs with the other objects, not before or after them (runpod has no release to order hooks by; hook-weight and hook-delete-policy are not used)',
      ],
    );
  });
});
