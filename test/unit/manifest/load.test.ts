import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ManifestError, formatProblem } from '../../../src/errors.js';
import { loadManifests, maxManifestBytes } from '../../../src/manifest/load.js';

const options = { defaultNamespace: 'default' };
const podText = (name: string, extra = ''): string => `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n${extra}  containers:\n  - name: c\n    image: busybox:1.36\n`;

let dir = '';
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'runpod-load-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function problemsOf(inputs: string[], stdin?: string): Promise<string[]> {
  try {
    await loadManifests(inputs, options, async () => stdin ?? '');
  } catch (err) {
    assert.ok(err instanceof ManifestError, String(err));
    return err.problems.map(formatProblem);
  }
  assert.fail('expected a ManifestError');
}

describe('loadManifests', () => {
  it('loads a file with its absolute origin, line and warnings', async () => {
    const file = path.join(dir, 'one.yaml');
    await writeFile(file, podText('one', '  nodeSelector: {disk: ssd}\n'));
    const result = await loadManifests([file], options);
    assert.equal(result.pods.length, 1);
    const p = result.pods[0]!;
    assert.deepEqual(p.source, { file, origin: path.resolve(file) });
    assert.equal(p.line, 1);
    assert.equal(p.pod.metadata.namespace, 'default');
    assert.equal(p.pod.spec.containers[0]!.imagePullPolicy, 'IfNotPresent');
    assert.deepEqual(result.warnings, [{ file, line: 6, path: 'spec.nodeSelector', message: 'ignored, scheduling has no meaning on one host' }]);
  });

  it('expands a directory: *.yaml, *.yml, *.json directly in it, sorted by name, origin the directory', async () => {
    const d = path.join(dir, 'many');
    await mkdir(path.join(d, 'sub'), { recursive: true });
    await mkdir(path.join(d, 'dir.yaml'));
    await writeFile(path.join(d, 'b.yml'), podText('b'));
    await writeFile(path.join(d, 'a.yaml'), podText('a'));
    await writeFile(path.join(d, 'c.json'), JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'c' }, spec: { containers: [{ name: 'c', image: 'x' }] } }));
    await writeFile(path.join(d, 'notes.txt'), 'not a manifest');
    await writeFile(path.join(d, 'sub', 'z.yaml'), podText('z'));
    const result = await loadManifests([d], options);
    assert.deepEqual(
      result.pods.map((p) => [p.pod.metadata.name, p.source.file, p.source.origin]),
      [
        ['a', path.join(d, 'a.yaml'), path.resolve(d)],
        ['b', path.join(d, 'b.yml'), path.resolve(d)],
        ['c', path.join(d, 'c.json'), path.resolve(d)],
      ],
    );
  });

  it('reads "-" from stdin as <stdin>, with no origin', async () => {
    const result = await loadManifests(['-'], options, async () => podText('piped'));
    assert.deepEqual(result.pods[0]!.source, { file: '<stdin>' });
    assert.equal(result.pods[0]!.pod.metadata.name, 'piped');
  });

  it('refuses a file over 3 MiB before parsing it', async () => {
    const big = path.join(dir, 'big.yaml');
    // Invalid YAML throughout: if it were parsed, the problem would be a syntax error instead.
    await writeFile(big, ': : :\n'.repeat(Math.ceil((maxManifestBytes + 1) / 6)));
    assert.deepEqual(await problemsOf([big]), [
      `${big}: larger than 3 MiB (${Math.ceil((maxManifestBytes + 1) / 6) * 6} bytes), the API server's request limit; refused before parsing`,
    ]);
    const exact = path.join(dir, 'exact.yaml');
    await writeFile(exact, podText('exact').padEnd(maxManifestBytes, ' '));
    assert.equal((await loadManifests([exact], options)).pods.length, 1);
  });

  it('refuses stdin over 3 MiB', async () => {
    assert.deepEqual(await problemsOf(['-'], 'a'.repeat(maxManifestBytes + 1)), ["<stdin>: larger than 3 MiB, the API server's request limit; refused before parsing"]);
  });

  it('collects problems from every input into one error, by input order then line', async () => {
    const bad = path.join(dir, 'bad.yaml');
    await writeFile(bad, podText('bad').replace('    image: busybox:1.36\n', '') + '---\napiVersion: v1\nkind: Endpoints\n');
    const syntax = path.join(dir, 'syntax.yaml');
    await writeFile(syntax, 'a: b\n c: d\n');
    const empty = path.join(dir, 'empty');
    await mkdir(empty);
    const missing = path.join(dir, 'missing.yaml');
    const dup = path.join(dir, 'dup.yaml');
    await writeFile(dup, podText('bad'));
    assert.deepEqual(await problemsOf([missing, bad, syntax, empty, dup, '-'], '# nothing\n'), [
      `${missing}: no such file or directory`,
      `${bad}:7 spec.containers[0].image: required`,
      `${bad}:10 kind: kind Endpoints is not supported (runpod reads kinds Pod, ConfigMap, Secret, Service, PersistentVolumeClaim, PersistentVolume and ReplicationController (v1), Deployment, ReplicaSet, StatefulSet and DaemonSet (apps/v1), Job (batch/v1), or a List of them; --skip-kind Endpoints skips it)`,
      `${syntax}:2: invalid YAML: bad indentation of a mapping entry`,
      `${empty}: no manifests (*.yaml, *.yml or *.json) in this directory`,
      '<stdin>: no documents',
    ]);
  });

  it('refuses two pods with one name across files, pointing at the second', async () => {
    const a = path.join(dir, 'x1.yaml');
    const b = path.join(dir, 'x2.yaml');
    await writeFile(a, podText('same'));
    await writeFile(b, '# leading comment\n' + podText('same'));
    assert.deepEqual(await problemsOf([a, b]), [`${b}:5 metadata.name: pod default/same is already defined at ${a}:1`]);
  });

  it('the thrown error says what failed in one line', async () => {
    const bad = path.join(dir, 'single.yaml');
    await writeFile(bad, podText('s').replace('    image: busybox:1.36\n', ''));
    await assert.rejects(loadManifests([bad], options), { name: 'ManifestError', message: `invalid manifest: ${bad}:7 spec.containers[0].image: required` });
  });
});
