// --dry-run says exactly what a run would do (issue 23): after a run has converged, --dry-run reports nothing to change
// and a second run changes nothing, for every manifest a run can bring up here: manifests/ and the test fixtures
// (each folder of test/fixtures). The fixtures of test/bad-input are each refused by validate (exit 2), which is
// asserted, so none of them is left out unseen. Each runs under an isolation key of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { docker, keyedWorkspace, repoRoot, runpod, show } from './harness.js';

interface PlanDoc {
  pods: { plan: { pod: string }; actions: { kind: string; container?: string; reason: string }[] | string; replace?: boolean; anew?: boolean; job?: string; admission?: string }[];
  jobs?: { ref: string; plan: string; remove?: string[] }[];
  services?: { name: string; ip?: string; wouldMake?: string }[];
}

const inRepo = (...parts: string[]): string => path.join(repoRoot, ...parts);
const listed = (dir: string, keep: (e: fs.Dirent) => boolean): string[] =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { withFileTypes: true })
        .filter(keep)
        .map((e) => path.join(dir, e.name))
        .sort()
    : [];

/** What a run can bring up: each manifest of manifests/, each folder of test/fixtures. */
const runnable = [
  ...listed(inRepo('manifests'), (e) => e.isFile() && /\.(ya?ml|json)$/.test(e.name)),
  // test/fixtures/kustomize holds the renderer's fixtures (kustomizations, several refused on purpose), not a folder
  // a run takes as it is; kustomize.test.ts runs its overlays.
  ...listed(inRepo('test', 'fixtures'), (e) => e.isDirectory() && e.name !== 'kustomize'),
];

test('the fixtures of test/bad-input are each refused by validate: none is a manifest a run could bring up', async () => {
  const files = listed(inRepo('test', 'bad-input'), (e) => e.isFile() && /\.(ya?ml|json)$/.test(e.name));
  assert.ok(files.length > 0);
  // validate reads every file and names each problem's file: each of these must have one.
  const r = await runpod(['validate', ...files]);
  assert.equal(r.code, 2, show(r));
  const refused = new Set(r.stderr.split('\n').flatMap((l) => /^ {2}(\S+?\.(?:ya?ml|json)):/.exec(l)?.[1] ?? []));
  for (const file of files) assert.ok(refused.has(file), `${path.relative(repoRoot, file)} is not refused: ${show(r)}`);
});

for (const manifest of runnable) {
  const name = path.relative(repoRoot, manifest);
  test(`${name}: after a run has converged, --dry-run reports nothing to change, and a run changes nothing`, async (t) => {
    assert.ok(runnable.length >= 4, 'manifests/ and test/fixtures/stack at least');
    const w = keyedWorkspace(t, 'dry', {});
    const up = await w.run('--timeout', '2m', manifest);
    assert.equal(up.code, 0, show(up));
    const dry = await w.run('--dry-run', '-o', 'json', manifest);
    assert.equal(dry.code, 0, show(dry));
    const plan = JSON.parse(dry.stdout) as PlanDoc;
    assert.ok(plan.pods.length > 0, dry.stdout);
    for (const p of plan.pods) {
      assert.ok(Array.isArray(p.actions), `${p.plan.pod}: the engine answered, so the actions are known: ${JSON.stringify(p.actions)}`);
      assert.deepEqual(p.actions, [], `${p.plan.pod} would change: ${JSON.stringify(p.actions)}`);
      assert.equal(p.replace, undefined, p.plan.pod);
      assert.equal(p.anew, undefined, p.plan.pod);
      assert.equal(p.admission, undefined, p.plan.pod);
    }
    for (const j of plan.jobs ?? []) assert.equal(j.remove, undefined, `${j.ref} would remove pods: ${j.plan}`);
    for (const s of plan.services ?? []) assert.equal(s.wouldMake, undefined, `service ${s.name} would be made: ${s.wouldMake}`);
    // The text says the same.
    const text = await w.run('--dry-run', manifest);
    assert.equal(text.code, 0, show(text));
    assert.doesNotMatch(text.stdout, /^\s+would /m, show(text));
    // And a run, the same decision with the same inputs, changes nothing.
    const again = await w.run('-o', 'json', manifest);
    assert.equal(again.code, 0, show(again));
    const result = JSON.parse(again.stdout) as { pods: { name: string; actions: unknown[] }[] };
    for (const p of result.pods) assert.deepEqual(p.actions, [], `${p.name} was changed by the second run`);
  });
}

test('--dry-run creates nothing: a Service container a run would make again is said so, and is not made', async (t) => {
  const stack = inRepo('test', 'fixtures', 'stack');
  const w = keyedWorkspace(t, 'dry', {});
  const up = await w.run('--timeout', '2m', stack);
  assert.equal(up.code, 0, show(up));
  const svc = `runpod_svc_api_default.${w.key}`;
  docker(['rm', '-f', svc]);
  const before = docker(['ps', '-aq', '--no-trunc', '--filter', `label=io.runpod.project=${w.key}`])
    .split('\n')
    .sort();
  const dry = await w.run('--dry-run', '-o', 'json', stack);
  assert.equal(dry.code, 0, show(dry));
  const plan = JSON.parse(dry.stdout) as PlanDoc;
  assert.match(plan.services?.find((s) => s.name === 'api')?.wouldMake ?? '', /its container does not exist/, dry.stdout);
  // Its address is known only once a run makes it: the pods' API_SERVICE_HOST says so (no pod is replaced for it:
  // the Service variables are no part of a container's hash, as in the kubelet's).
  assert.match(dry.stdout, /API_SERVICE_HOST=<the address of service default\/api, once made>/);
  assert.deepEqual(
    docker(['ps', '-aq', '--no-trunc', '--filter', `label=io.runpod.project=${w.key}`])
      .split('\n')
      .sort(),
    before,
    'nothing was created or removed',
  );
  assert.equal(docker(['ps', '-aq', '--filter', `name=^${svc}$`]), '');
  const run = await w.run(stack);
  assert.equal(run.code, 0, show(run));
  const rerun = await w.run('--dry-run', '-o', 'json', stack);
  assert.deepEqual(
    (JSON.parse(rerun.stdout) as PlanDoc).pods.flatMap((p): unknown[] => (Array.isArray(p.actions) ? p.actions : [p.actions])),
    [],
    'converged again',
  );
});
