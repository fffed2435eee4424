// What runpod refuses to render, each by name with the kustomization file, its line and the field, and what to do
// instead (exit 2, as validate's problems): test/fixtures/kustomize/core-refused/, through the built CLI.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../../engine/harness.js';

const dir = 'test/fixtures/kustomize/core-refused';
const runpod = path.join(repoRoot, 'bin', 'runpod');

function run(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [runpod, ...args], { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const cases: Array<{ name: string; where: string; says: RegExp }> = [
  {
    name: 'remote',
    where: 'remote/kustomization.yaml:3 resources[1]',
    says: /remote resource https:\/\/github\.com\/example\/app\/\/deploy\?ref=v1: runpod renders local kustomizations only \(no network, no git\); clone or download it/,
  },
  { name: 'git', where: 'git/kustomization.yaml:2 resources[0]', says: /remote resource github\.com\/example\/app\/base\?ref=main/ },
  { name: 'helm', where: 'helm/kustomization.yaml:2 helmCharts', says: /helmCharts is not supported; Helm charts are inflated by running helm.*kustomize build DIR \| runpod -/ },
  { name: 'plugins', where: 'plugins/kustomization.yaml:2 generators', says: /generators is not supported; generator plugins run programs/ },
  { name: 'openapi', where: 'openapi/kustomization.yaml:1 openapi', says: /openapi is not supported/ },
  { name: 'unknown', where: 'unknown/kustomization.yaml:2 commonLabel', says: /unknown kustomization field commonLabel/ },
  { name: 'missing', where: 'missing/kustomization.yaml:2 resources[0]', says: /missing\/deployment\.yaml: no such file or directory; fix the path/ },
  { name: 'cycle/a', where: 'cycle/b/kustomization.yaml:3 resources[0]', says: /a cycle of kustomizations: .*cycle\/a → .*cycle\/b → .*cycle\/a/ },
  {
    name: 'twogen',
    where: 'twogen/kustomization.yaml:4 configMapGenerator[1]',
    says: /ConfigMap cfg is already generated or defined at .*twogen\/kustomization\.yaml:2; two generators of one name/,
  },
  { name: 'outside', where: 'outside/kustomization.yaml:2 resources[0]', says: /\.\.\/remote\/app\.yaml is outside .*load restrictor/ },
  { name: 'component-as-resource', where: 'component-as-resource/kustomization.yaml:2 resources[0]', says: /is a Component; a Component is listed under components:/ },
];

describe('kustomizations runpod refuses: exit 2, file, line, field and what to do', () => {
  for (const c of cases) {
    it(c.name, () => {
      for (const args of [
        ['kustomize', `${dir}/${c.name}`],
        ['validate', '-k', `${dir}/${c.name}`],
        ['validate', `${dir}/${c.name}`],
      ]) {
        const r = run(args);
        assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
        assert.ok(r.stderr.includes(`${dir}/${c.where}: `), `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, c.says);
        assert.equal(r.stdout, '');
      }
    });
  }
  it('-k names a directory that holds a kustomization', () => {
    const r = run(['validate', '-k', 'test/fixtures/stack']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /test\/fixtures\/stack: no kustomization\.yaml, kustomization\.yml or Kustomization in test\/fixtures\/stack/);
  });
});
