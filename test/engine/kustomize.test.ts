// A kustomization run on a real engine, rendered by runpod itself: test/fixtures/kustomize/core-engine holds a
// base (a Deployment serving a page made of its generated ConfigMap, Secret and a patched variable, and its
// Service) and two overlays (namePrefix, namespace, a merged ConfigMap, a generated Secret, an image override, a
// patch). `runpod -k overlays/ci -- <command>` reaches the Service by its prefixed name; `status -k` and `down -k`
// find the pods by the kustomization; both overlays run side by side; a directory argument is rendered as with -k.
import { type TestContext, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { docker, keyedWorkspace, repoRoot, runpod, show } from './harness.js';

const fixture = path.join(repoRoot, 'test', 'fixtures', 'kustomize', 'core-engine');

/** A copy of the fixture (its own source path) and an isolation key; what was made under the key goes at the end. */
function workspace(t: TestContext): { dir: string; key: string; run: (...args: string[]) => ReturnType<typeof runpod> } {
  const w = keyedWorkspace(t, 'kz', {});
  fs.cpSync(fixture, w.dir, { recursive: true });
  return { dir: w.dir, key: w.key, run: (...args) => runpod(['--project', w.key, ...args], { timeoutMs: 240_000, cwd: w.dir }) };
}

// The command (node, on the host) fetches the page through the Service's address, named by the Service.
const fetchPage = `
const ip = process.env.RUNPOD_SVC_CI_WEB_IP;
if (!ip) { console.error('no RUNPOD_SVC_CI_WEB_IP'); process.exit(7); }
(async () => {
  for (let i = 0; ; i++) {
    try { const r = await fetch('http://' + ip + ':' + process.env.RUNPOD_SVC_CI_WEB_PORT_80 + '/'); process.stdout.write('page: ' + (await r.text())); return; }
    catch (e) { if (i > 100) throw e; await new Promise((r) => setTimeout(r, 100)); }
  }
})().catch((e) => { console.error(e); process.exit(9); });
`;

test("runpod -k overlays/ci -- <command> reaches the Service by name; the page shows the overlay's ConfigMap, Secret, image and patch", async (t) => {
  const ws = workspace(t);
  const r = await ws.run('-k', 'overlays/ci', '--', process.execPath, '-e', fetchPage);
  assert.equal(r.code, 0, show(r));
  assert.match(r.stdout, /^page: hello-from-ci ci-token patched-ci$/m, show(r));
  // The generated Secret's value is never printed by the run.
  assert.doesNotMatch(r.stderr, /Y2ktdG9rZW4=/);
  // The pods are gone afterwards.
  assert.equal(docker(['ps', '-aq', '--filter', `label=io.runpod.project=${ws.key}`, '--filter', 'label=io.kubernetes.pod.namespace=kz-ci']), '');
});

test('both overlays run side by side; status -k and down -k find each by its kustomization; a directory is rendered as with -k', async (t) => {
  const ws = workspace(t);
  const ci = await ws.run('-k', 'overlays/ci', '--wait', 'ready');
  assert.equal(ci.code, 0, show(ci));
  // A directory argument holding a kustomization is rendered as with -k, and says so.
  const dev = await ws.run('overlays/dev', '--wait', 'ready');
  assert.equal(dev.code, 0, show(dev));
  assert.match(dev.stderr, /overlays\/dev\/kustomization\.yaml: a kustomization: rendered by runpod, as with -k overlays\/dev/);

  const status = await ws.run('status', '-k', 'overlays/ci', '-o', 'json');
  assert.equal(status.code, 0, show(status));
  const doc = JSON.parse(status.stdout) as { pods: Array<{ namespace: string; name: string }>; services?: Array<{ name: string; namespace: string }> };
  assert.ok(doc.pods.length === 1 && doc.pods.every((p) => p.namespace === 'kz-ci' && p.name.startsWith('ci-web-')), status.stdout);
  assert.deepEqual(
    (doc.services ?? []).map((s) => `${s.namespace}/${s.name}`),
    ['kz-ci/ci-web'],
  );

  // The dry run of the same overlay changes nothing and shows no Secret data.
  const dry = await ws.run('-k', 'overlays/ci', '--dry-run', '-o', 'yaml');
  assert.equal(dry.code, 0, show(dry));
  assert.doesNotMatch(dry.stdout + dry.stderr, /Y2ktdG9rZW4=|ci-token/);

  const down = await ws.run('down', '-k', 'overlays/ci');
  assert.equal(down.code, 0, show(down));
  const after = await ws.run('status', '-o', 'json');
  const left = JSON.parse(after.stdout) as { pods: Array<{ namespace: string; name: string }> };
  assert.ok(
    left.pods.every((p) => p.namespace === 'kz-dev'),
    after.stdout,
  );
  assert.ok(
    left.pods.some((p) => p.name.startsWith('dev-web-')),
    after.stdout,
  );
  const downDev = await ws.run('down', '-k', 'overlays/dev');
  assert.equal(downDev.code, 0, show(downDev));
});

test("--prune -k: a resource left out of the overlay goes, the rest stay as they are; the pods' source is the kustomization root", async (t) => {
  const ws = workspace(t);
  const overlay = path.join(ws.dir, 'overlays', 'prune');
  fs.mkdirSync(overlay, { recursive: true });
  // A second workload beside the base's web, listed in the overlay's resources.
  fs.writeFileSync(
    path.join(overlay, 'worker.yaml'),
    `apiVersion: apps/v1
kind: Deployment
metadata:
  name: worker
spec:
  replicas: 1
  selector:
    matchLabels: {app: worker}
  template:
    metadata:
      labels: {app: worker}
    spec:
      terminationGracePeriodSeconds: 0
      containers:
      - name: worker
        image: example.invalid/web
        imagePullPolicy: IfNotPresent
        command: ["sh", "-c", "exec sleep 3600"]
`,
  );
  const kustomization = (resources: string[]): string => `resources:
${resources.map((r) => `- ${r}`).join('\n')}
namePrefix: pr-
namespace: kz-prune
configMapGenerator:
- name: web-config
  behavior: merge
  literals:
  - MESSAGE=hello-from-prune
secretGenerator:
- name: web-secret
  literals:
  - token=prune-token
images:
- name: example.invalid/web
  newName: runpod-test/busybox
  newTag: "1"
`;
  fs.writeFileSync(path.join(overlay, 'kustomization.yaml'), kustomization(['../../base', 'worker.yaml']));

  // The containers of the overlay's pods (by pod name: pr-web-…, pr-worker-…), with each one's recorded source.
  const listed = (): Array<{ id: string; pod: string; source: string }> =>
    docker([
      'ps',
      '-a',
      '--no-trunc',
      '--filter',
      `label=io.runpod.project=${ws.key}`,
      '--filter',
      'label=io.kubernetes.pod.namespace=kz-prune',
      '--format',
      '{{.ID}} {{.Label "io.kubernetes.pod.name"}} {{.Label "io.runpod.source"}}',
    ])
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [id = '', pod = '', source = ''] = line.split(' ');
        return { id, pod, source };
      });
  const containers = (app: string): string[] =>
    listed()
      .filter((c) => c.pod.startsWith(`pr-${app}-`))
      .map((c) => c.id)
      .sort();

  const first = await ws.run('-k', 'overlays/prune', '--wait', 'ready');
  assert.equal(first.code, 0, show(first));
  const web = containers('web');
  assert.ok(web.length > 0 && containers('worker').length > 0, show(first));

  // The pods' source is the kustomization's directory: status -k finds both workloads' pods by it.
  const before = await ws.run('status', '-k', 'overlays/prune', '-o', 'json');
  assert.equal(before.code, 0, show(before));
  const podsBefore = (JSON.parse(before.stdout) as { pods: Array<{ name: string }> }).pods.map((p) => p.name);
  assert.ok(podsBefore.some((n) => n.startsWith('pr-web-')) && podsBefore.some((n) => n.startsWith('pr-worker-')), before.stdout);
  const sources = new Set(
    listed()
      .filter((c) => c.pod.startsWith('pr-') && c.source !== '')
      .map((c) => c.source),
  );
  assert.deepEqual([...sources], [path.resolve(overlay)], [...sources].join(', '));

  // worker.yaml leaves the overlay's resources; the re-run with --prune takes its pods down and nothing else.
  fs.writeFileSync(path.join(overlay, 'kustomization.yaml'), kustomization(['../../base']));
  const second = await ws.run('--prune', '-k', 'overlays/prune', '--wait', 'ready');
  assert.equal(second.code, 0, show(second));
  assert.deepEqual(containers('worker'), [], show(second));
  assert.deepEqual(containers('web'), web, `web's containers were replaced or removed\n${show(second)}`);

  const after = await ws.run('status', '-k', 'overlays/prune', '-o', 'json');
  const podsAfter = (JSON.parse(after.stdout) as { pods: Array<{ name: string }> }).pods.map((p) => p.name);
  assert.ok(podsAfter.length > 0 && podsAfter.every((n) => n.startsWith('pr-web-')), after.stdout);

  const down = await ws.run('down', '-k', 'overlays/prune');
  assert.equal(down.code, 0, show(down));
  assert.deepEqual(containers('web'), []);
});
