// `runpod run --prune` on a real engine: a directory of manifests is the desired state. A pod whose file left
// the directory is taken down; the others keep their very containers; another directory's pods, and pods
// from stdin, are never touched; --dry-run --prune only lists. (--prune-all is covered by unit tests only:
// on a shared engine it would take down every other test's pods.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { uniqueName } from './harness.js';
import { busybox, checkNothingLeftBehind, cleanupPod, podContainerIds, podContainers, podObject, runpod, show, sleeper, tempDir, toYaml, must } from './run-helpers.js';

checkNothingLeftBehind();

interface RunDoc {
  exitCode: number;
  pods: { name: string; status: string }[];
  pruned?: { namespace: string; name: string; source?: string; removedContainers?: number }[];
}

interface PlanDoc {
  prune?: { namespace: string; name: string; source?: string }[];
}

function writePod(dir: string, name: string, extra: Record<string, unknown>[] = [sleeper('main')]): string {
  const file = path.join(dir, `${name}.yaml`);
  fs.writeFileSync(file, toYaml(podObject({ name, containers: extra })));
  return file;
}

test('delete a file, run the directory again with --prune: that pod is gone, the rest untouched', async (t) => {
  const [a, b, c, other, piped] = ['prune-a', 'prune-b', 'prune-c', 'prune-other', 'prune-stdin'].map((p) => uniqueName(p));
  for (const n of [a!, b!, c!, other!, piped!]) cleanupPod(t, n);
  const dir = tempDir(t);
  const otherDir = tempDir(t);
  for (const n of [a!, b!, c!]) writePod(dir, n);
  writePod(otherDir, other!);

  for (const args of [[dir], [otherDir]]) {
    const r = await runpod(args);
    assert.equal(r.code, 0, show(r));
  }
  // A pod from stdin has no source; a --prune run from stdin alone prunes nothing.
  const fromStdin = await runpod(['--prune', '-'], { input: toYaml(podObject({ name: piped!, containers: [sleeper('main')] })) });
  assert.equal(fromStdin.code, 0, show(fromStdin));
  assert.equal(must(podContainers(piped!).get('POD'), 'stdin infra').Config.Labels['io.runpod.source'], undefined);

  const before = new Map([a!, b!, other!, piped!].map((n) => [n, podContainerIds(n)]));
  assert.equal(podContainerIds(c!).length, 2);
  fs.rmSync(path.join(dir, `${c}.yaml`));

  // --dry-run --prune lists what a run would take down, and takes down nothing.
  const dry = await runpod(['--dry-run', '--prune', dir]);
  assert.equal(dry.code, 0, show(dry));
  assert.match(dry.stdout, new RegExp(`^would prune default/${c} \\(source ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)$`, 'm'), show(dry));
  assert.doesNotMatch(dry.stdout, new RegExp(`would prune default/(${a}|${b}|${other}|${piped})`), show(dry));
  const dryJson = await runpod(['--dry-run', '--prune', '-o', 'json', dir]);
  assert.equal(dryJson.code, 0, show(dryJson));
  assert.deepEqual((JSON.parse(dryJson.stdout) as PlanDoc).prune, [{ namespace: 'default', name: c!, source: dir }]);
  assert.equal(podContainerIds(c!).length, 2, '--dry-run removed nothing');

  const r = await runpod(['--prune', '-o', 'json', dir]);
  assert.equal(r.code, 0, show(r));
  const doc = JSON.parse(r.stdout) as RunDoc;
  assert.deepEqual(doc.pruned, [{ namespace: 'default', name: c!, source: dir, removedContainers: 2 }]);
  assert.match(r.stderr, new RegExp(`default/${c}: pruned`), show(r));
  assert.deepEqual(podContainerIds(c!), [], 'the pod that left the directory is gone');
  for (const [n, ids] of before) assert.deepEqual(podContainerIds(n), ids, `${n} is untouched: same containers`);

  // And the other directory's own --prune run does not touch the first directory's pods.
  const second = await runpod(['--prune', otherDir]);
  assert.equal(second.code, 0, show(second));
  for (const [n, ids] of before) assert.deepEqual(podContainerIds(n), ids, `${n} is untouched after the other directory's prune`);
});

test('prune runs whatever the wait outcome, but not when --timeout ended the run', async (t) => {
  const [keep, gone1, gone2, broken, slow] = ['prune-keep', 'prune-gone1', 'prune-gone2', 'prune-broken', 'prune-slow'].map((p) => uniqueName(p));
  for (const n of [keep!, gone1!, gone2!, broken!, slow!]) cleanupPod(t, n);
  const dir = tempDir(t);
  for (const n of [keep!, gone1!, gone2!]) writePod(dir, n);
  const first = await runpod([dir]);
  assert.equal(first.code, 0, show(first));

  // A pod that fails (exits 1 under Never) is no reason to prune less.
  fs.rmSync(path.join(dir, `${gone1}.yaml`));
  fs.writeFileSync(
    path.join(dir, `${broken}.yaml`),
    toYaml(podObject({ name: broken!, restartPolicy: 'Never', containers: [{ name: 'x', image: busybox, command: ['sh', '-c', 'exit 1'] }] })),
  );
  const failed = await runpod(['--prune', '-o', 'json', dir]);
  assert.equal(failed.code, 1, show(failed));
  assert.deepEqual(
    (JSON.parse(failed.stdout) as RunDoc).pruned?.map((p) => p.name),
    [gone1],
  );
  assert.deepEqual(podContainerIds(gone1!), []);

  // --timeout ends the run: nothing is pruned (an image that is not there under --pull never keeps the pod pending).
  fs.rmSync(path.join(dir, `${gone2}.yaml`));
  fs.rmSync(path.join(dir, `${broken}.yaml`));
  fs.writeFileSync(path.join(dir, `${slow}.yaml`), toYaml(podObject({ name: slow!, containers: [{ name: 'x', image: 'runpod-test/not-here:1', imagePullPolicy: 'Never' }] })));
  const timedOut = await runpod(['--prune', '--timeout', '2s', '-o', 'json', dir]);
  assert.equal(timedOut.code, 124, show(timedOut));
  assert.equal((JSON.parse(timedOut.stdout) as RunDoc).pruned, undefined);
  assert.match(timedOut.stderr, /not pruning: --timeout passed/, show(timedOut));
  assert.equal(podContainerIds(gone2!).length, 2, 'not pruned after --timeout');
  assert.equal(podContainerIds(keep!).length, 2);
});
