// Claims live as long as the user means (issue 23), through the CLI on test/fixtures/stack (a database StatefulSet
// with a claim per ordinal, an api Deployment whose claim is mounted with a subPath): `down --delete-claims` removes
// the folder's claims whether or not its pods are still there, and a subPath-mounted one (a bind, to the engine), but
// never one a pod not taken down still mounts, nor anything that is not runpod's claim; a run with a command removes
// its claims at its end unless --keep-claims, so a fixed key carries no database from one CI run to the next
// unless asked. (gc --claims is tested on a second engine, in engine2.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { docker, keyedWorkspace, repoRoot, runpodBin, show } from './harness.js';

const stack = path.join(repoRoot, 'test', 'fixtures', 'stack');

/** The claim volumes under the key, by runpod's labels. */
function claimsUnder(key: string): string[] {
  const out = docker(['volume', 'ls', '-q', '--filter', `label=io.runpod.project=${key}`, '--filter', 'label=io.runpod.volume.type=persistentVolumeClaim']);
  return out ? out.split('\n').sort() : [];
}

const reader = (claim: string): string => `apiVersion: v1
kind: Pod
metadata:
  name: reader
spec:
  terminationGracePeriodSeconds: 0
  containers:
    - name: reader
      image: runpod-test/busybox:1
      command: ["sleep", "3600"]
      volumeMounts:
        - {name: up, mountPath: /up, subPath: files}
  volumes:
    - name: up
      persistentVolumeClaim: {claimName: ${claim}}
`;

test("down --delete-claims removes the folder's claims with its pods already gone, and nothing else", async (t) => {
  const w = keyedWorkspace(t, 'claims', {
    'other.yaml': 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: keep-me}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Mi}}}\n',
  });
  const up = await w.run('--timeout', '2m', stack);
  assert.equal(up.code, 0, show(up));
  const other = await w.run(w.file('other.yaml'));
  assert.equal(other.code, 0, show(other));
  // A volume that looks like a claim of the key but is not runpod's (no managed-by label): never touched.
  const foreign = `pvc_default.${w.key}_foreign`;
  docker(['volume', 'create', '--label', `io.runpod.project=${w.key}`, '--label', 'io.runpod.volume.type=persistentVolumeClaim', '--label', 'io.runpod.pvc.name=foreign', foreign]);
  const claims = [`pvc_default.${w.key}_data-database-0`, `pvc_default.${w.key}_uploads`];
  assert.deepEqual(claimsUnder(w.key), [...claims, foreign, `pvc_default.${w.key}_keep-me`].sort());

  const down = await w.run('down', stack);
  assert.equal(down.code, 0, show(down));
  assert.equal(claimsUnder(w.key).length, 4, 'claims outlive down, as on a cluster');
  // The pods are gone: the claims are read from the manifests (the PVC, the StatefulSet's templates).
  const gone = await w.run('down', '--delete-claims', stack);
  assert.equal(gone.code, 0, show(gone));
  for (const c of claims) assert.match(gone.stdout, new RegExp(`claim volume ${c.replace(/\./g, '\\.')}: removed`), show(gone));
  assert.deepEqual(claimsUnder(w.key), [foreign, `pvc_default.${w.key}_keep-me`].sort(), "a claim of another manifest and a volume not runpod's stay");
  docker(['volume', 'rm', foreign]);
});

test('down --delete-claims removes a claim mounted with a subPath, but not while a pod it leaves up still mounts it', async (t) => {
  const w = keyedWorkspace(t, 'claims', { 'reader.yaml': reader('uploads') });
  const up = await w.run('--timeout', '2m', stack, w.file('reader.yaml'));
  assert.equal(up.code, 0, show(up));
  // The engine lists a subPath mount as a bind of a directory of the volume.
  const api = docker(['ps', '-q', '--filter', `label=io.runpod.project=${w.key}`, '--filter', 'label=io.kubernetes.container.name=api']);
  const mounts = JSON.parse(docker(['inspect', '--format', '{{json .Mounts}}', api])) as { Type: string; Source: string }[];
  assert.ok(
    mounts.some((m) => m.Type === 'bind' && m.Source.includes(`pvc_default.${w.key}_uploads`)),
    JSON.stringify(mounts),
  );
  docker(['exec', api, 'sh', '-c', 'echo kept > /srv/uploads/file']);

  const some = await w.run('down', '--delete-claims', stack);
  assert.equal(some.code, 0, show(some));
  assert.match(some.stdout, new RegExp(`claim volume pvc_default\\.${w.key}_data-database-0: removed`), show(some));
  assert.match(some.stderr, new RegExp(`claim volume pvc_default\\.${w.key}_uploads stays: still mounted by pod default/reader`), show(some));
  const readerId = docker(['ps', '-q', '--filter', `label=io.runpod.project=${w.key}`, '--filter', 'label=io.kubernetes.container.name=reader']);
  assert.equal(docker(['exec', readerId, 'cat', '/up/file']), 'kept', 'the data under the pod left up is intact');

  const rest = await w.run('down', '--delete-claims', w.file('reader.yaml'));
  assert.equal(rest.code, 0, show(rest));
  assert.match(rest.stdout, new RegExp(`claim volume pvc_default\\.${w.key}_uploads: removed`), show(rest));
  assert.deepEqual(claimsUnder(w.key), []);
});

test('a run with a command under a fixed key removes its claims at its end; --keep-claims keeps them for the next run', async (t) => {
  const w = keyedWorkspace(t, 'claims', {});
  // The command reaches the database pod with runpod exec (RUNPOD_PROJECT in its environment names the key).
  const inDb = (script: string): string[] => [process.execPath, runpodBin, 'exec', 'database-0', '--', 'sh', '-c', script];
  const write = await w.run('--timeout', '2m', '--keep-claims', stack, '--', ...inDb('echo ci-1 > /var/lib/db/mark'));
  assert.equal(write.code, 0, show(write));
  assert.match(
    write.stderr,
    new RegExp(`--keep-claims: keeping pvc_default\\.${w.key}_data-database-0, pvc_default\\.${w.key}_uploads; remove with: runpod down --project ${w.key} --delete-claims `),
    show(write),
  );
  assert.equal(claimsUnder(w.key).length, 2, 'kept, as asked');
  assert.equal(docker(['ps', '-aq', '--filter', `label=io.runpod.project=${w.key}`]), '', 'the pods went');

  // Asked for: the next run finds the database's data; without --keep-claims, the claims go at its end.
  const read = await w.run('--timeout', '2m', stack, '--', ...inDb('test "$(cat /var/lib/db/mark)" = ci-1'));
  assert.equal(read.code, 0, show(read));
  assert.match(read.stderr, /removed claim volumes .*data-database-0/, show(read));
  assert.deepEqual(claimsUnder(w.key), []);

  // So the run after starts from nothing.
  const fresh = await w.run('--timeout', '2m', stack, '--', ...inDb('test ! -e /var/lib/db/mark'));
  assert.equal(fresh.code, 0, show(fresh));
  assert.deepEqual(claimsUnder(w.key), []);
  assert.equal(docker(['ps', '-aq', '--filter', `label=io.runpod.project=${w.key}`]), '');
});

test('--keep-claims without a command is a usage error (a plain run keeps its claims anyway)', async (t) => {
  const w = keyedWorkspace(t, 'claims', {});
  const r = await w.run('--keep-claims', stack);
  assert.equal(r.code, 2, show(r));
  assert.match(r.stderr, /--keep-claims applies to a run with a command/);
  assert.ok(fs.existsSync(stack));
});
