import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ManifestError } from '../../../src/errors.js';
import { loadManifests } from '../../../src/manifest/load.js';
import { type NameProblem, readPodNames } from '../../../src/manifest/podNames.js';

const podText = (name: string, extra = '', meta = ''): string =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n${meta}spec:\n${extra}  containers:\n  - name: c\n    image: busybox:1.36\n`;
const noStdin = async (): Promise<Buffer> => Buffer.alloc(0);

let root = '';
let n = 0;
before(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'runpod-names-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A fresh directory holding the files given (name → text). */
async function folder(files: Record<string, string>): Promise<string> {
  const dir = path.join(root, `d${n++}`);
  await mkdir(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  return dir;
}

async function names(paths: string[], stdin = ''): Promise<{ pods: string[]; problems: NameProblem[] }> {
  const r = await readPodNames(paths, 'default', async () => Buffer.from(stdin));
  return { pods: r.pods.map((p) => `${p.namespace}/${p.name} ${path.basename(p.file)}:${p.line}`), problems: r.problems };
}

/** run refuses the input: the reader must not. */
async function refusedByRun(paths: string[]): Promise<void> {
  await assert.rejects(loadManifests(paths, { defaultNamespace: 'default' }, noStdin), ManifestError);
}

describe('readPodNames', () => {
  it('names a pod whose other fields run refuses (unknown field, missing ConfigMap)', async () => {
    const dir = await folder({
      'a.yaml': podText('unknown-field', '  notAField: 1\n'),
      'b.yaml': podText('needs-config', '  volumes:\n  - name: v\n    configMap: {name: absent}\n'),
    });
    await refusedByRun([dir]);
    assert.deepEqual(await names([dir]), { pods: ['default/unknown-field a.yaml:1', 'default/needs-config b.yaml:1'], problems: [] });
  });

  it('names both pods of two files that claim one host port', async () => {
    const port = '    ports: [{containerPort: 80, hostPort: 8080}]\n';
    const dir = await folder({
      'a.yaml': podText('first').replace('image: busybox:1.36\n', `image: busybox:1.36\n${port}`),
      'b.yaml': podText('second').replace('image: busybox:1.36\n', `image: busybox:1.36\n${port}`),
    });
    await refusedByRun([dir]);
    assert.deepEqual((await names([dir])).pods, ['default/first a.yaml:1', 'default/second b.yaml:1']);
  });

  it('an unknown kind is a problem at its kind line; ConfigMaps and Secrets are silently not pods', async () => {
    const dir = await folder({
      'deploy.yaml': 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: web}\n',
      'foo.yaml': '# a comment\nmetadata: {name: x}\n',
      'config.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: s}\n',
      'pod.yaml': podText('ok'),
    });
    const file = (f: string): string => path.join(dir, f);
    assert.deepEqual(await names([dir]), {
      pods: ['default/ok pod.yaml:1'],
      problems: [
        { file: file('deploy.yaml'), line: 2, message: 'kind Widget: not a Pod; runpod names no pods from it' },
        { file: file('foo.yaml'), line: 2, message: 'no kind: not a Pod; runpod names no pods from it' },
      ],
    });
  });

  it('names the Services of the inputs (for down), each namespace/name once, whatever else is wrong with them', async () => {
    const svc = (name: string, meta = '', spec = '  ports: [{port: 80}]\n'): string => `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\n${meta}spec:\n${spec}`;
    const dir = await folder({
      'a.yaml': `${svc('web', '', '  type: ExternalName\n  notAField: 1\n')}---\n${podText('p')}---\n${svc('db', '  namespace: data\n')}`,
      'b.yaml': `${svc('web')}---\n${svc('9lives')}---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Service, metadata: {name: cache}}\n`,
    });
    await refusedByRun([dir]);
    const r = await readPodNames([dir], 'default', noStdin);
    assert.deepEqual(
      r.services.map((s) => `${s.namespace}/${s.name} ${path.basename(s.file)}:${s.line}`),
      ['default/web a.yaml:1', 'data/db a.yaml:18', 'default/cache b.yaml:18'],
    );
    assert.deepEqual(
      r.pods.map((p) => `${p.namespace}/${p.name}`),
      ['default/p'],
    );
    assert.deepEqual(r.problems, [
      {
        file: path.join(dir, 'b.yaml'),
        line: 11,
        message:
          "metadata.name: must be a lowercase RFC 1035 label: lowercase letters, digits and '-', starting with a letter and ending with a letter or digit (e.g. 'my-name'); runpod cannot name this Service",
      },
    ]);
  });

  it('reads the items of a List, whatever else the List holds', async () => {
    const list = [
      'apiVersion: v1',
      'kind: List',
      'extra: refused by run',
      'items:',
      '- apiVersion: v1',
      '  kind: Pod',
      '  metadata: {name: one, namespace: ci}',
      '- apiVersion: apps/v1',
      '  kind: Widget',
      '  metadata: {name: web}',
      '- 42',
      '- {kind: Pod, metadata: {name: two}}',
      '- {kind: ConfigMap, metadata: {name: c}}',
      '',
    ].join('\n');
    const dir = await folder({ 'list.yaml': list });
    const file = path.join(dir, 'list.yaml');
    await refusedByRun([dir]);
    assert.deepEqual(await names([file]), {
      pods: ['ci/one list.yaml:5', 'default/two list.yaml:12'],
      problems: [
        { file, line: 9, message: 'items[1]: kind Widget: not a Pod; runpod names no pods from it' },
        { file, line: 11, message: 'items[2]: expected a mapping (a Pod), got 42; runpod names no pods from it' },
      ],
    });
  });

  it('reads every document of a multi-document file, in order, each namespace/name once', async () => {
    const text = [podText('b'), podText('a', '', '  namespace: ci\n'), podText('b'), podText('a')].join('---\n');
    const dir = await folder({ 'multi.yaml': text, 'z.yaml': podText('b') });
    assert.deepEqual((await names([dir])).pods, ['default/b multi.yaml:1', 'ci/a multi.yaml:10', 'default/a multi.yaml:29']);
  });

  it('a document that is not valid YAML is one problem; the documents around it are still read', async () => {
    const text = `${podText('before')}---\nkind: Pod\nmetadata: {name: [broken\n---\n${podText('after')}`;
    const dir = await folder({ 'bad.yaml': text });
    const file = path.join(dir, 'bad.yaml');
    const r = await names([file]);
    assert.deepEqual(r.pods, ['default/before bad.yaml:1', 'default/after bad.yaml:13']);
    assert.equal(r.problems.length, 1);
    assert.equal(r.problems[0]!.file, file);
    assert.match(r.problems[0]!.message, /^invalid YAML: /);
    assert.ok([10, 11, 12].includes(r.problems[0]!.line ?? 0), `line ${r.problems[0]!.line} is in the broken document`);
  });

  it('a file that is only bad YAML is one problem, with its line', async () => {
    const dir = await folder({ 'bad.json': '{"kind": "Pod",\n  "metadata": {"name": "x"]\n}\n' });
    const r = await names([dir]);
    assert.deepEqual(r.pods, []);
    assert.equal(r.problems.length, 1);
    assert.equal(r.problems[0]!.line, 2);
    assert.match(r.problems[0]!.message, /^invalid YAML: /);
  });

  it('a Pod without a usable name is a problem at the name (or where the pod starts)', async () => {
    const dir = await folder({
      'a.yaml': 'apiVersion: v1\nkind: Pod\nspec: {}\n',
      'b.yaml': 'apiVersion: v1\nkind: Pod\nmetadata:\n  labels: {a: b}\n',
      'c.yaml': podText('Not_A_Name'),
      'd.yaml': 'kind: Pod\nmetadata:\n  name: 7\n',
      'e.yaml': podText('fine', '', '  namespace: Bad\n'),
      'f.yaml': '- just a list\n',
    });
    const file = (f: string): string => path.join(dir, f);
    const r = await names([dir]);
    assert.deepEqual(r.pods, []);
    assert.deepEqual(
      r.problems.map((p) => [path.basename(p.file), p.line, p.message.replace(/: must be a lowercase RFC 1123 (subdomain|label).*/, ': <$1>')]),
      [
        ['a.yaml', 1, 'metadata.name: required; runpod cannot name this Pod'],
        ['b.yaml', 3, 'metadata.name: required; runpod cannot name this Pod'],
        ['c.yaml', 4, 'metadata.name: <subdomain>'],
        ['d.yaml', 3, 'metadata.name: expected a string, got 7; runpod cannot name this Pod'],
        ['e.yaml', 5, 'metadata.namespace: <label>'],
        ['f.yaml', 1, 'expected a mapping (a Kubernetes object), got a list; runpod names no pods from it'],
      ],
    );
    assert.ok(r.problems.every((p) => p.file.startsWith(file(''))));
    assert.match(r.problems[2]!.message, /; runpod cannot name this Pod$/);
  });

  it('a missing path is a problem, not a throw; the other inputs are still read, stdin too', async () => {
    const dir = await folder({ 'pod.yaml': podText('here') });
    const missing = path.join(root, 'no-such.yaml');
    const r = await readPodNames([missing, dir, '-'], 'ns', async () => Buffer.from(podText('piped')));
    assert.deepEqual(
      r.pods.map((p) => [p.namespace, p.name, p.file]),
      [
        ['ns', 'here', path.join(dir, 'pod.yaml')],
        ['ns', 'piped', '<stdin>'],
      ],
    );
    assert.deepEqual(r.problems, [{ file: missing, message: 'no such file or directory' }]);
  });

  it('keeps the reading rules of run: a directory without manifests, text that is not UTF-8', async () => {
    const empty = await folder({ 'notes.txt': 'not a manifest' });
    const binary = await folder({ 'bin.yaml': '' });
    await writeFile(path.join(binary, 'bin.yaml'), Buffer.from([0x6b, 0x3a, 0x0a, 0xff, 0xfe]));
    const r = await readPodNames([empty, binary], 'default', noStdin);
    assert.deepEqual(r.pods, []);
    assert.deepEqual(r.problems, [
      { file: empty, message: 'no manifests (*.yaml, *.yml or *.json) in this directory' },
      { file: path.join(binary, 'bin.yaml'), line: 2, message: 'not UTF-8 text (a manifest must be UTF-8; is this a binary file?)' },
    ]);
  });
});

describe('readPodNames: the claims a manifest names (for down --delete-claims with the pods gone)', () => {
  it("PersistentVolumeClaims, the claim volumes of Pods and templates, and a StatefulSet's claim templates and retention", async () => {
    const dir = await folder({
      'claims.yaml': [
        'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: uploads, namespace: shop}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n',
        podText('reader', '  volumes:\n  - name: up\n    persistentVolumeClaim: {claimName: uploads}\n'),
        'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\nspec:\n  selector: {matchLabels: {app: api}}\n  template:\n    metadata: {labels: {app: api}}\n    spec:\n      volumes: [{name: cache, persistentVolumeClaim: {claimName: api-cache}}]\n      containers: [{name: api, image: busybox:1.36}]\n',
        'apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec:\n  persistentVolumeClaimRetentionPolicy: {whenDeleted: Delete}\n  selector: {matchLabels: {app: db}}\n  template:\n    metadata: {labels: {app: db}}\n    spec: {containers: [{name: db, image: busybox:1.36}]}\n  volumeClaimTemplates:\n  - metadata: {name: data}\n  - metadata: {name: wal}\n',
      ].join('---\n'),
    });
    const r = await readPodNames([dir], 'default', noStdin);
    assert.deepEqual(r.claims, [
      { namespace: 'shop', name: 'uploads' },
      { namespace: 'default', name: 'uploads' },
      { namespace: 'default', name: 'api-cache' },
    ]);
    assert.deepEqual(
      r.owners.map((o) => [o.ref, o.claimTemplates, o.claimsGoWithOwner]),
      [
        ['deployment/api', undefined, undefined],
        ['statefulset/db', ['data', 'wal'], true],
      ],
    );
    assert.deepEqual(r.problems, []);
  });
});
