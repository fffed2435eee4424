// Many CI jobs on one host (issue 14): scoped runs are isolated by default and wait for ready, --project keys any
// run, and every command follows the key. Through the CLI, on the real engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { docker, removeEmptyNetworks, runpodBin, uniqueName } from './harness.js';
import { busybox, checkNothingLeftBehind, cleanupFile, cleanupPod, podFile, podObject, runpod, show, sleeper } from './run-helpers.js';

checkNothingLeftBehind();

/** Containers and volumes on the engine made under an isolation key. */
function madeUnder(key: string): string[] {
  const containers = docker(['ps', '-aq', '--filter', `label=io.runpod.project=${key}`]);
  const volumes = docker(['volume', 'ls', '-q', '--filter', `label=io.runpod.project=${key}`]);
  return [...containers.split('\n'), ...volumes.split('\n')].filter((x) => x !== '');
}

/**
 * A "database": it listens on 5432 only after 3 s (its readiness probe says when), answers "pong <pod>" to each
 * connection, and keeps a file on its claim.
 */
function dbPod(name: string): Record<string, unknown> {
  const pod = podObject({
    name,
    containers: [
      {
        ...sleeper('db'),
        command: ['sh', '-c', `cat /proc/sys/kernel/random/uuid > /data/made; sleep 3; exec nc -ll -p 5432 -e echo pong-${name}`],
        ports: [{ containerPort: 5432, name: 'pg' }],
        readinessProbe: { tcpSocket: { port: 5432 }, periodSeconds: 1 },
        volumeMounts: [{ name: 'data', mountPath: '/data' }],
      },
    ],
  });
  (pod.spec as Record<string, unknown>).volumes = [{ name: 'data', persistentVolumeClaim: { claimName: `${name}-data` } }];
  return pod;
}

/**
 * The command a CI job runs against the pods: it connects to the database through the published port at once
 * (a database not yet ready refuses it), and asks runpod status which pods it sees (RUNPOD_PROJECT follows).
 */
function testScript(dir: string, out: string): string {
  const file = path.join(dir, `${path.basename(out, '.json')}.mjs`);
  fs.writeFileSync(
    file,
    `import net from 'node:net';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
const port = Number(process.env.RUNPOD_HOST_PORT_5432);
const reply = await new Promise((resolve, reject) => {
  const s = net.connect(port, '127.0.0.1');
  let data = '';
  s.on('data', (d) => (data += d));
  s.on('end', () => resolve(data.trim()));
  s.on('error', reject);
});
const status = JSON.parse(execFileSync(process.execPath, [${JSON.stringify(runpodBin)}, 'status', '-o', 'json'], { encoding: 'utf8' }));
fs.writeFileSync(${JSON.stringify(out)}, JSON.stringify({ reply, project: process.env.RUNPOD_PROJECT, pods: status.pods.map((p) => p.namespace + '/' + p.name) }));
`,
  );
  return file;
}

test('two CI jobs run the same folder at once: each has its own pods, claim and key, waits for ready, and leaves nothing behind', async (t) => {
  const name = uniqueName('iso-db');
  cleanupPod(t, name);
  // Should the run fail before its teardown, its claims go too.
  t.after(() => {
    const claims = docker(['volume', 'ls', '-q', '--filter', `label=io.runpod.pvc.name=${name}-data`]);
    if (claims) docker(['volume', 'rm', '-f', ...claims.split('\n')]);
  });
  const file = podFile([dbPod(name)], 'db.yaml');
  cleanupFile(t, file);
  const dir = path.dirname(file);
  const services = path.join(dir, 'services');
  fs.mkdirSync(services);
  fs.renameSync(file, path.join(services, 'db.yaml'));
  const outs = [path.join(dir, 'job1.json'), path.join(dir, 'job2.json')];
  // README's CI line, as written: --publish-all --timeout 2m services/ -- <the tests>; two jobs at once.
  const job = (out: string) => runpod(['--publish-all', '--timeout', '2m', services, '--', process.execPath, testScript(dir, out)], { timeoutMs: 180_000 });
  const results = await Promise.all(outs.map(job));
  for (const r of results) assert.equal(r.code, 0, show(r));
  const seen = outs.map((out) => JSON.parse(fs.readFileSync(out, 'utf8')) as { reply: string; project: string; pods: string[] });
  for (const s of seen) {
    // Connected at once and answered: the run waited for the readiness probe, not merely for the container.
    assert.equal(s.reply, `pong-${name}`);
    assert.match(s.project, /^run-[0-9a-f]{8}$/, 'a key of its own');
    assert.deepEqual(s.pods, [`default/${name}`], 'runpod status inside the job sees its own pod only');
  }
  assert.notEqual(seen[0]!.project, seen[1]!.project, 'two keys');
  for (const s of seen) assert.deepEqual(madeUnder(s.project), [], `nothing left under ${s.project}: containers, emptyDirs, claims`);
});

test('--project keys any run: its own pods beside the unkeyed ones, followed by status, exec, logs and down', async (t) => {
  const name = uniqueName('iso-key');
  cleanupPod(t, name);
  const file = podFile({ name, containers: [{ ...sleeper('main'), command: ['sh', '-c', 'echo hello; exec sleep 3600'] }] });
  cleanupFile(t, file);
  const key = uniqueName('job');
  const plain = await runpod([file]);
  assert.equal(plain.code, 0, show(plain));
  const keyed = await runpod([file, '--project', key, '-o', 'json']);
  assert.equal(keyed.code, 0, show(keyed));
  const doc = JSON.parse(keyed.stdout) as { project: string; pods: { containers: { id: string }[] }[] };
  assert.equal(doc.project, key);
  // Two pods of one name: engine names carry the key in their namespace part.
  const names = docker(['ps', '--filter', `label=io.kubernetes.pod.name=${name}`, '--format', '{{.Names}}'])
    .split('\n')
    .sort();
  assert.equal(names.length, 4, names.join('\n'));
  assert.ok(
    names.some((n) => n === `k8s_POD_${name}_default.${key}_${n.split('_')[4]}_0`),
    names.join('\n'),
  );
  const env = { RUNPOD_PROJECT: key };
  const status = await runpod(['status', '-o', 'json'], { env });
  assert.equal(status.code, 0, show(status));
  const ids = (JSON.parse(status.stdout) as { pods: { name: string; containers: { id: string }[] }[] }).pods.filter((p) => p.name === name);
  assert.equal(ids.length, 1);
  assert.equal(ids[0]!.containers[0]!.id.slice(0, 12), doc.pods[0]!.containers[0]!.id.slice(0, 12), 'status under the key shows the keyed pod');
  const exec = await runpod(['exec', '--project', key, name, 'sh', '-c', 'echo $((40+2))']);
  assert.equal(exec.code, 0, show(exec));
  assert.equal(exec.stdout.trim(), '42');
  const logs = await runpod(['logs', name], { env });
  assert.equal(logs.stdout.trim(), 'hello', show(logs));
  // A bad key is a usage error that says where it came from.
  const bad = await runpod(['status'], { env: { RUNPOD_PROJECT: 'Job_1' } });
  assert.equal(bad.code, 2, show(bad));
  assert.match(bad.stderr, /RUNPOD_PROJECT=Job_1: not an isolation key: expected lower-case letters/);
  // down under the key leaves the unkeyed pod alone.
  const down = await runpod(['down', '--all'], { env });
  assert.equal(down.code, 0, show(down));
  assert.deepEqual(madeUnder(key), []);
  const still = await runpod(['status', name]);
  assert.equal(still.code, 0, show(still));
  assert.match(still.stdout, /Running/);
  assert.equal((await runpod(['down', file])).code, 0);
});

test('--replace runs a finished one-shot pod again; a plain re-run leaves it as it is', async (t) => {
  const name = uniqueName('iso-replace');
  cleanupPod(t, name);
  const file = podFile({ name, restartPolicy: 'Never', containers: [{ name: 'job', image: busybox, command: ['sh', '-c', 'echo ran as $(cat /proc/sys/kernel/random/uuid)'] }] });
  cleanupFile(t, file);
  const run = (...extra: string[]) => runpod(['--wait', 'completed', '-o', 'json', ...extra, file]);
  const idOf = (r: { stdout: string }) => (JSON.parse(r.stdout) as { pods: { changed: boolean; containers: { id: string }[] }[] }).pods[0]!;
  const first = await run();
  assert.equal(first.code, 0, show(first));
  const again = await run();
  assert.equal(again.code, 0, show(again));
  assert.equal(idOf(again).changed, false, 'a plain re-run of a completed pod changes nothing');
  assert.equal(idOf(again).containers[0]!.id, idOf(first).containers[0]!.id);
  const replaced = await run('--replace');
  assert.equal(replaced.code, 0, show(replaced));
  assert.equal(idOf(replaced).changed, true);
  assert.notEqual(idOf(replaced).containers[0]!.id, idOf(first).containers[0]!.id, 'a new instance ran');
  assert.match(replaced.stderr, /--replace: taken down/, show(replaced));
  const dry = await runpod(['--dry-run', '--replace', file]);
  assert.match(dry.stdout, /would take the pod down first \(--replace\)/, show(dry));
  assert.equal((await runpod(['down', file])).code, 0);
});

test("--exit-code-from gives the container's own code: with --wait completed, and for a scoped run", async (t) => {
  const name = uniqueName('iso-code');
  cleanupPod(t, name);
  const file = podFile({
    name,
    restartPolicy: 'Never',
    containers: [{ name: 'tests', image: busybox, command: ['sh', '-c', 'sleep 1; echo failing; exit 3'] }, sleeper('helper')],
  });
  cleanupFile(t, file);
  // helper never completes: --wait completed cannot hold, yet tests' code is what the script wants.
  const solo = podFile({ name, restartPolicy: 'Never', containers: [{ name: 'tests', image: busybox, command: ['sh', '-c', 'echo failing; exit 3'] }] });
  cleanupFile(t, solo);
  const completed = await runpod(['--wait', 'completed', '--exit-code-from', 'tests', solo]);
  assert.equal(completed.code, 3, show(completed));
  assert.match(completed.stderr, /container tests of pod default\/\S+ exited with code 3 \(--exit-code-from\)/);
  assert.equal((await runpod(['down', solo])).code, 0);
  // A scoped run: the pods come up (tests runs), the command waits, tests has exited 3 by then.
  const scoped = await runpod(['--exit-code-from', `${name}/tests`, file, '--', 'sleep', '3'], { timeoutMs: 120_000 });
  assert.equal(scoped.code, 3, show(scoped));
  // Usage errors, before the engine: an unknown container, and a wait that ends before the container does.
  const unknown = await runpod(['--wait', 'completed', '--exit-code-from', 'nope', solo]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /--exit-code-from nope: no such container in the input; its containers: \S+\/tests/);
  const running = await runpod(['--exit-code-from', 'tests', solo]);
  assert.equal(running.code, 2);
  assert.match(running.stderr, /needs --wait completed, or a command after --/);
});

test('kubectl and docker habits: get pods, -f, -l, exec without --, stats of several pods or all', async (t) => {
  const web = uniqueName('iso-web');
  const api = uniqueName('iso-api');
  cleanupPod(t, web);
  cleanupPod(t, api);
  // The selectors carry a label of this test's own: the engine is shared (other tests, another copy of this one,
  // a run that was cut short), and an unkeyed -l sees every pod on it, so app=api alone would read, or take down,
  // theirs too.
  const own = uniqueName('habits');
  const file = podFile([
    podObject({
      name: web,
      labels: { app: 'web', tier: 'front', habits: own },
      containers: [{ ...sleeper('main'), command: ['sh', '-c', 'echo web-log; exec sleep 3600'] }, sleeper('side')],
    }),
    podObject({ name: api, labels: { app: 'api', tier: 'back', habits: own }, containers: [{ ...sleeper('main'), command: ['sh', '-c', 'echo api-log; exec sleep 3600'] }] }),
  ]);
  cleanupFile(t, file);
  const get = await runpod(['get', 'pods']);
  assert.equal(get.code, 2, show(get));
  assert.match(get.stderr, /"get" is neither a command nor a manifest file or directory: did you mean runpod status\?/);
  const up = await runpod(['-f', file]);
  assert.equal(up.code, 0, show(up));
  const validate = await runpod(['validate', '-f', file]);
  assert.equal(validate.code, 0, show(validate));
  const front = await runpod(['status', '-l', `tier=front,app in (web, x),habits=${own}`]);
  assert.equal(front.code, 0, show(front));
  assert.match(front.stdout, new RegExp(`default/${web} `));
  assert.doesNotMatch(front.stdout, new RegExp(api));
  const bad = await runpod(['status', '-l', 'app in (web']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /missing "\)"/);
  const logs = await runpod(['logs', '-l', `app in (web,api),habits in (${own})`]);
  assert.equal(logs.code, 0, show(logs));
  assert.deepEqual(logs.stdout.trim().split('\n').sort(), ['api-log', 'web-log']);
  assert.match(logs.stderr, new RegExp(`Defaulted container "main" of pod default/${web} out of: main, side`));
  // exec POD -c C CMD…: -c before the command is runpod's, after it the command's.
  const exec = await runpod(['exec', web, '-c', 'side', 'sh', '-c', 'echo $((6*7))']);
  assert.equal(exec.code, 0, show(exec));
  assert.equal(exec.stdout.trim(), '42');
  const stats = await runpod(['stats', web, api]);
  assert.equal(stats.code, 0, show(stats));
  assert.match(stats.stdout, new RegExp(`default/${web} +main`));
  assert.match(stats.stdout, new RegExp(`default/${api} +main`));
  const all = await runpod(['stats', '-o', 'json']);
  assert.equal(all.code, 0, show(all));
  const listed = JSON.parse(all.stdout) as { kind: string; pods: { name: string }[] };
  assert.equal(listed.kind, 'PodStatsList');
  assert.ok(
    [web, api].every((n) => listed.pods.some((p) => p.name === n)),
    all.stdout,
  );
  const down = await runpod(['down', '-l', `app=api,habits=${own}`]);
  assert.equal(down.code, 0, show(down));
  assert.match(down.stdout, new RegExp(`default/${api}: removed`));
  assert.doesNotMatch(down.stdout, new RegExp(web));
  assert.equal((await runpod(['down', '-f', file])).code, 0);
});

test('a run that makes pods for a source already running under another key says so, once, with the flag that reaches them', async (t) => {
  const name = uniqueName('iso-slip');
  const [first, second] = [uniqueName('slip-a'), uniqueName('slip-b')];
  const file = podFile({ name, containers: [sleeper('main')] });
  const dir = path.dirname(file);
  t.after(() => {
    for (const key of [first, second]) {
      const ids = docker(['ps', '-aq', '--filter', `label=io.runpod.project=${key}`])
        .split('\n')
        .filter(Boolean);
      if (ids.length > 0) docker(['rm', '-f', ...ids]);
      removeEmptyNetworks({ key });
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const a = await runpod(['--project', first, dir]);
  assert.equal(a.code, 0, show(a));
  assert.doesNotMatch(a.stderr, /already runs/, show(a));
  // The same folder under another key (a shell where RUNPOD_PROJECT is something else): a second copy, said, under
  // -q too (it is no note about the input).
  const b = await runpod(['-q', '--project', second, dir]);
  assert.equal(b.code, 0, show(b));
  const said = `warning: ${dir} already runs under isolation key ${first} (1 pod: default/${name}); this run, under isolation key ${second}, makes a second copy beside it (its own pods, claims and host ports). To act on the one there, run with --project ${first} (or RUNPOD_PROJECT=${first})`;
  assert.ok(b.stderr.includes(said), show(b));
  // Again under the second key: its copy is there, nothing to say.
  const again = await runpod(['--project', second, dir]);
  assert.equal(again.code, 0, show(again));
  assert.doesNotMatch(again.stderr, /already runs/, show(again));
  assert.equal((await runpod(['down', '--project', first, dir])).code, 0);
  assert.equal((await runpod(['down', '--project', second, dir])).code, 0);
  assert.deepEqual([...madeUnder(first), ...madeUnder(second)], []);
});
