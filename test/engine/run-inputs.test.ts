// `runpod run` and `runpod down` on a real engine: concurrent runs meet on one pod; down by manifest, name
// and namespace/name; containers runpod did not make are never touched; --dry-run; manifests from stdin, a
// directory and a kind: List; namespaces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { uniqueName } from './harness.js';
import {
  busybox,
  checkNothingLeftBehind,
  cleanupFile,
  cleanupPod,
  docker,
  dockerTry,
  inspect,
  must,
  podContainerIds,
  podContainers,
  podFile,
  podObject,
  runpod,
  show,
  sleeper,
  tempDir,
  toYaml,
} from './run-helpers.js';

checkNothingLeftBehind();

/** One infra and one instance of each container, all running, nothing else. */
function assertOnePod(name: string, containers: string[], namespace = 'default'): void {
  const ids = podContainerIds(name, namespace);
  const all = inspect(ids);
  const names = all.map((c) => c.Config.Labels['io.kubernetes.container.name']).sort();
  assert.deepEqual(names, ['POD', ...containers].sort(), all.map((c) => c.Name).join(' '));
  for (const c of all) assert.equal(c.State.Running, true, `${c.Name} is ${c.State.Status}`);
}

test('two, then eight, concurrent runs of one manifest leave exactly one pod', async (t) => {
  const name = uniqueName('in-concurrent');
  cleanupPod(t, name);
  const file = podFile({ name, containers: [sleeper('a'), sleeper('b')] });
  cleanupFile(t, file);

  const two = await Promise.all([runpod([file]), runpod([file])]);
  for (const r of two) assert.equal(r.code, 0, show(r));
  assertOnePod(name, ['a', 'b']);
  const ids = podContainerIds(name);

  const eight = await Promise.all(Array.from({ length: 8 }, () => runpod([file])));
  for (const r of eight) assert.equal(r.code, 0, show(r));
  assertOnePod(name, ['a', 'b']);
  assert.deepEqual(podContainerIds(name), ids, 'an up-to-date pod was changed');
});

test('eight concurrent runs on a fresh pod leave exactly one pod', async (t) => {
  const name = uniqueName('in-concurrent8');
  cleanupPod(t, name);
  const file = podFile({ name, containers: [sleeper('a'), sleeper('b')] });
  cleanupFile(t, file);
  const eight = await Promise.all(Array.from({ length: 8 }, () => runpod([file])));
  for (const r of eight) assert.equal(r.code, 0, show(r));
  assertOnePod(name, ['a', 'b']);
});

test('eight concurrent runs in a namespace whose network does not exist yet: one network, every pod up, and down removes it', async (t) => {
  // What a fresh engine meets on the first CI job: Docker does not make creating a network by name atomic.
  const namespace = uniqueName('in-netrace');
  const network = `runpod_${namespace}`;
  const names = Array.from({ length: 8 }, (_, i) => `${namespace}-${i}`);
  for (const n of names) cleanupPod(t, n, namespace);
  t.after(() => dockerTry(['network', 'rm', network]));
  const files = names.map((n) => podFile({ name: n, namespace, containers: [sleeper('a')] }, `${n}.yaml`));
  for (const f of files) cleanupFile(t, f);
  const runs = await Promise.all(files.map((f) => runpod([f])));
  for (const r of runs) assert.equal(r.code, 0, show(r));
  const ids = docker(['network', 'ls', '-q', '--filter', `label=io.runpod.network.namespace=${namespace}`])
    .split('\n')
    .filter((x) => x !== '');
  assert.equal(ids.length, 1, `networks of ${namespace}: ${ids.join(' ')}`);
  for (const n of names) assertOnePod(n, ['a'], namespace);
  assert.equal(docker(['ps', '-aq', '--filter', `name=runpod_netlock_${network}`]), '', 'no creation lock is left');
  const down = await runpod(['down', ...files]);
  assert.equal(down.code, 0, show(down));
  assert.equal(dockerTry(['network', 'inspect', network]).status, 1, 'the network went with its last pod');
});

test('down by manifest, by name and by namespace/name leaves nothing; down is safe to repeat', async (t) => {
  const name = uniqueName('in-down');
  cleanupPod(t, name);
  const file = podFile({ name, containers: [sleeper('a'), sleeper('b')] });
  cleanupFile(t, file);

  for (const target of [file, name, `default/${name}`]) {
    const up = await runpod([file]);
    assert.equal(up.code, 0, show(up));
    assert.equal(podContainerIds(name).length, 3);
    const down = await runpod(['down', target]);
    assert.equal(down.code, 0, `down ${target}: ${show(down)}`);
    assert.deepEqual(podContainerIds(name), [], `down ${target} left containers`);
  }
  // A pod that does not exist (any more, or ever): exit 0.
  for (const target of [file, name, `default/${name}`, uniqueName('in-never-was')]) {
    const again = await runpod(['down', target]);
    assert.equal(again.code, 0, `down ${target}: ${show(again)}`);
  }
});

test('down removes stopped and crashed instances too', async (t) => {
  const name = uniqueName('in-down-dead');
  cleanupPod(t, name);
  const file = podFile({
    name,
    restartPolicy: 'Never',
    containers: [sleeper('server'), { name: 'job', image: busybox, command: ['true'] }],
  });
  cleanupFile(t, file);
  const up = await runpod([file]);
  assert.equal(up.code, 0, show(up));
  assert.equal(must(podContainers(name).get('job'), 'job').State.Status, 'exited');
  const down = await runpod(['down', file]);
  assert.equal(down.code, 0, show(down));
  assert.deepEqual(podContainerIds(name), []);
});

test("containers without runpod's labels are never touched, even with a pod-like name or pod labels", async (t) => {
  const name = uniqueName('in-foreign');
  cleanupPod(t, name);
  const lookalike = `k8s_x_${name}_default_y_0`;
  const labelled = `k8s_y_${name}_default_z_0`;
  t.after(() => {
    dockerTry(['rm', '-f', lookalike]);
    dockerTry(['rm', '-f', labelled]);
  });
  docker(['create', '--name', lookalike, busybox, 'sleep', '3600']);
  // Same pod labels, but not managed by runpod.
  docker([
    'run',
    '-d',
    '--name',
    labelled,
    '--label',
    `io.kubernetes.pod.name=${name}`,
    '--label',
    'io.kubernetes.pod.namespace=default',
    '--label',
    'io.kubernetes.container.name=y',
    '--label',
    'io.kubernetes.docker.type=container',
    busybox,
    'sleep',
    '3600',
  ]);
  const file = podFile({ name, containers: [sleeper('a')] });
  cleanupFile(t, file);
  const state = (n: string) => JSON.parse(docker(['inspect', '--format', '{{json .State}}', n])) as { Status: string; StartedAt: string };
  const before = { lookalike: state(lookalike), labelled: state(labelled) };

  const up = await runpod([file]);
  assert.equal(up.code, 0, show(up));
  assertOnePod(name, ['a']);
  const again = await runpod([file]);
  assert.equal(again.code, 0, show(again));
  for (const target of [file, name]) {
    const down = await runpod(['down', target]);
    assert.equal(down.code, 0, show(down));
  }
  assert.deepEqual(podContainerIds(name), []);
  assert.deepEqual(state(lookalike), before.lookalike, 'the look-alike container was touched');
  assert.deepEqual(state(labelled), before.labelled, 'the labelled foreign container was touched');
  assert.equal(before.lookalike.Status, 'created');
  assert.equal(before.labelled.Status, 'running');
});

test('a foreign container holding the exact infra name is neither adopted nor started', async (t) => {
  const name = uniqueName('in-squat');
  cleanupPod(t, name);
  const file = podFile({ name, containers: [sleeper('a')] });
  cleanupFile(t, file);
  const plan = await runpod([file, '--dry-run', '-o', 'json']);
  assert.equal(plan.code, 0, show(plan));
  const uid = (JSON.parse(plan.stdout) as { pods: { plan: { uid: string } }[] }).pods[0]!.plan.uid;
  const squatter = `k8s_POD_${name}_default_${uid}_0`;
  t.after(() => dockerTry(['rm', '-f', squatter]));
  docker(['create', '--name', squatter, busybox, 'sleep', '3600']);

  const r = await runpod([file, '--retries', '1', '--retry-delay', '100ms'], { timeoutMs: 60_000 });
  const squat = inspect([squatter])[0]!;
  // Not runpod's: never started, stopped or removed, and no app container joined its namespaces.
  assert.equal(squat.State.Status, 'created', 'runpod started a container it does not own');
  for (const c of inspect(podContainerIds(name))) {
    assert.notEqual(c.HostConfig.NetworkMode, `container:${squat.Id}`, `${c.Name} joined the foreign container`);
  }
  // The pod cannot be made under its name: a failure of the pod that names the conflicting container.
  assert.equal(r.code, 1, show(r));
  assert.ok(r.stderr.includes(squatter), show(r));
});

test('--dry-run prints the plan and creates nothing', async (t) => {
  const name = uniqueName('in-dry');
  cleanupPod(t, name);
  const file = podFile({ name, containers: [sleeper('a'), sleeper('b')] });
  cleanupFile(t, file);
  const r = await runpod([file, '--dry-run']);
  assert.equal(r.code, 0, show(r));
  assert.match(r.stdout, new RegExp(`^default/${name} \\(uid `, 'm'));
  assert.match(r.stdout, /container a: /);
  assert.match(r.stdout, /container b: /);
  assert.match(r.stdout, /would create/);
  assert.deepEqual(podContainerIds(name), []);

  const j = await runpod([file, '--dry-run', '-o', 'json']);
  assert.equal(j.code, 0, show(j));
  const doc = JSON.parse(j.stdout) as { kind: string; pods: { plan: { pod: string; containers: { name: string }[] }; actions: { kind: string }[] }[] };
  assert.equal(doc.kind, 'Plan');
  const p = must(doc.pods[0], 'plan');
  assert.equal(p.plan.pod, `default/${name}`);
  assert.deepEqual(
    p.plan.containers.map((c) => c.name),
    ['a', 'b'],
  );
  assert.deepEqual(p.actions.map((a) => a.kind).sort(), ['create', 'create', 'createInfra']);
  assert.deepEqual(podContainerIds(name), []);

  // On a running pod: the plan says nothing would change, and nothing does.
  const up = await runpod([file]);
  assert.equal(up.code, 0, show(up));
  const ids = podContainerIds(name);
  const dry = await runpod([file, '--dry-run']);
  assert.equal(dry.code, 0, show(dry));
  assert.doesNotMatch(dry.stdout, /would /);
  assert.deepEqual(podContainerIds(name), ids);
});

test('a manifest from stdin (-)', async (t) => {
  const name = uniqueName('in-stdin');
  cleanupPod(t, name);
  const r = await runpod(['-'], { input: toYaml(podObject({ name, containers: [sleeper('a')] })) });
  assert.equal(r.code, 0, show(r));
  assertOnePod(name, ['a']);
  const down = await runpod(['down', '-'], { input: toYaml(podObject({ name, containers: [sleeper('a')] })) });
  assert.equal(down.code, 0, show(down));
  assert.deepEqual(podContainerIds(name), []);
});

test('a directory of manifests runs every pod in it', async (t) => {
  const first = uniqueName('in-dir-a');
  const second = uniqueName('in-dir-b');
  cleanupPod(t, first);
  cleanupPod(t, second);
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, 'first.yaml'), toYaml(podObject({ name: first, containers: [sleeper('a')] })));
  fs.writeFileSync(path.join(dir, 'second.yml'), toYaml(podObject({ name: second, containers: [sleeper('b')] })));
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'not a manifest: ignored\n');
  const r = await runpod([dir, '-o', 'json']);
  assert.equal(r.code, 0, show(r));
  const doc = JSON.parse(r.stdout) as { pods: { name: string; status: string }[] };
  assert.deepEqual(
    doc.pods.map((p) => [p.name, p.status]).sort(),
    [
      [first, 'succeeded'],
      [second, 'succeeded'],
    ].sort(),
  );
  assertOnePod(first, ['a']);
  assertOnePod(second, ['b']);
  const down = await runpod(['down', dir]);
  assert.equal(down.code, 0, show(down));
  assert.deepEqual([...podContainerIds(first), ...podContainerIds(second)], []);
});

test('a kind: List of Pods runs every pod in it', async (t) => {
  const first = uniqueName('in-list-a');
  const second = uniqueName('in-list-b');
  cleanupPod(t, first);
  cleanupPod(t, second);
  const list = {
    apiVersion: 'v1',
    kind: 'List',
    items: [podObject({ name: first, containers: [sleeper('a')] }), podObject({ name: second, containers: [sleeper('b'), sleeper('c')] })],
  };
  const file = podFile([list]);
  cleanupFile(t, file);
  const r = await runpod([file]);
  assert.equal(r.code, 0, show(r));
  assertOnePod(first, ['a']);
  assertOnePod(second, ['b', 'c']);
});

test('the same pod name in another namespace is a separate pod', async (t) => {
  const name = uniqueName('in-ns');
  const other = 'other';
  const third = `third-${name.slice(-8)}`;
  cleanupPod(t, name, 'default');
  cleanupPod(t, name, other);
  cleanupPod(t, name, third);
  const file = podFile({ name, containers: [sleeper('a')] });
  cleanupFile(t, file);

  const inDefault = await runpod([file]);
  assert.equal(inDefault.code, 0, show(inDefault));
  const defaultIds = podContainerIds(name, 'default');
  const inOther = await runpod([file, '-n', other]);
  assert.equal(inOther.code, 0, show(inOther));
  assertOnePod(name, ['a'], 'default');
  assertOnePod(name, ['a'], other);
  assert.deepEqual(podContainerIds(name, 'default'), defaultIds, 'the default namespace pod was changed');
  const d = podContainers(name, 'default');
  const o = podContainers(name, other);
  const uidD = must(d.get('POD'), 'infra').Config.Labels['io.kubernetes.pod.uid']!;
  const uidO = must(o.get('POD'), 'infra').Config.Labels['io.kubernetes.pod.uid']!;
  assert.notEqual(uidD, uidO);
  assert.equal(must(o.get('POD'), 'infra').Name, `/k8s_POD_${name}_${other}_${uidO}_0`);
  assert.equal(must(o.get('a'), 'a').HostConfig.NetworkMode, `container:${must(o.get('POD'), 'infra').Id}`);

  // metadata.namespace wins over -n.
  const fixed = podFile({ name, namespace: third, containers: [sleeper('a')] });
  cleanupFile(t, fixed);
  const inThird = await runpod([fixed, '-n', other]);
  assert.equal(inThird.code, 0, show(inThird));
  assertOnePod(name, ['a'], third);
  assertOnePod(name, ['a'], other);

  // down namespace/name removes that pod alone.
  const down = await runpod(['down', `${other}/${name}`]);
  assert.equal(down.code, 0, show(down));
  assert.deepEqual(podContainerIds(name, other), []);
  assertOnePod(name, ['a'], 'default');
  assertOnePod(name, ['a'], third);
  const downN = await runpod(['down', name, '-n', third]);
  assert.equal(downN.code, 0, show(downN));
  assert.deepEqual(podContainerIds(name, third), []);
  assertOnePod(name, ['a'], 'default');
});
