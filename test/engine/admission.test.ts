// Admit and end pods as the kubelet does (issue 17), on a real engine: a pod whose requests the host cannot hold
// fails at once with the kubelet's reason and nothing created; pods that fit alone but not together; and one grace
// period for the whole pod when it is taken down, the sidecar stopped after the app container.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uniqueName } from './harness.js';
import { checkNothingLeftBehind, cleanupFile, cleanupPod, docker, must, podContainerIds, podFile, podObject, runpod, show, sleeper, toYaml, writeManifest } from './run-helpers.js';

checkNothingLeftBehind();

interface RunDoc {
  exitCode: number;
  pods: { name: string; status: string; phase: string; reason: string; actions: unknown[] }[];
}

interface DownDoc {
  kind: string;
  pods: { name: string; removed: number; graceSeconds: number; seconds: number; stops: { container: string; graceSeconds: number; seconds: number }[] }[];
}

const memTotal = Number(docker(['info', '-f', '{{.MemTotal}}']));
const cpus = Number(docker(['info', '-f', '{{.NCPU}}']));

for (const [what, resources, reason] of [
  ['CPU', { requests: { cpu: '100' } }, new RegExp(`^OutOfcpu: requests 100 CPUs, the engine has ${cpus} CPUs?, [\\d.]+ already requested$`)],
  ['memory', { requests: { memory: '1000Gi' } }, /^OutOfmemory: requests 1000Gi of memory, the engine has [\d.]+[KMGT]i, [\d.]+[KMGT]?i? already requested$/],
] as const) {
  test(`a pod that requests more ${what} than the engine host has fails at once with the kubelet's reason, and nothing is created`, async (t) => {
    const name = uniqueName('adm-over');
    cleanupPod(t, name);
    const file = podFile({ name, containers: [sleeper('main', { resources })] });
    cleanupFile(t, file);
    const dry = await runpod(['--dry-run', file]);
    assert.equal(dry.code, 0, show(dry));
    assert.match(dry.stdout, /would refuse the pod, creating nothing: OutOf(cpu|memory): /, show(dry));
    const r = await runpod(['-o', 'json', file]);
    assert.equal(r.code, 1, show(r));
    const pod = must((JSON.parse(r.stdout) as RunDoc).pods[0], 'pod');
    assert.match(pod.reason, reason, show(r));
    assert.equal(pod.phase, 'Failed');
    assert.deepEqual(pod.actions, []);
    assert.match(r.stderr, /nothing was created for default\//, show(r));
    assert.deepEqual(podContainerIds(name), [], 'no container was created');
  });
}

test('two pods that fit alone but not together: the second fails, whether already running or in the same input', async (t) => {
  // Memory, not CPU: a reservation of 60% of the host each leaves the other tests running beside this one room.
  const mi = Math.floor((memTotal * 0.6) / 2 ** 20);
  const pod = (name: string) => podObject({ name, containers: [sleeper('main', { resources: { requests: { memory: `${mi}Mi` } } })] });
  const [a, b, c, d] = ['adm-a', 'adm-b', 'adm-c', 'adm-d'].map(uniqueName) as [string, string, string, string];
  for (const n of [a, b, c, d]) cleanupPod(t, n);
  const fileA = writeManifest(toYaml(pod(a)));
  const fileB = writeManifest(toYaml(pod(b)));
  for (const f of [fileA, fileB]) cleanupFile(t, f);
  const upA = await runpod(['--timeout', '60s', fileA]);
  assert.equal(upA.code, 0, show(upA));
  const again = await runpod(['--timeout', '60s', fileA]);
  assert.equal(again.code, 0, `a pod already running is not refused again\n${show(again)}`);
  const rB = await runpod(['-o', 'json', fileB]);
  assert.equal(rB.code, 1, show(rB));
  assert.match(
    must((JSON.parse(rB.stdout) as RunDoc).pods[0], 'b').reason,
    /^OutOfmemory: requests [\d.]+Gi of memory, the engine has [\d.]+Gi, [\d.]+Gi already requested$/,
    show(rB),
  );
  assert.deepEqual(podContainerIds(b), []);
  // Both in one input, with the first pod gone: the first in the input is admitted, the second refused.
  const down = await runpod(['down', fileA]);
  assert.equal(down.code, 0, show(down));
  const both = writeManifest(toYaml(pod(c), pod(d)));
  cleanupFile(t, both);
  const r = await runpod(['-o', 'json', '--timeout', '60s', both]);
  assert.equal(r.code, 1, show(r));
  const doc = JSON.parse(r.stdout) as RunDoc;
  assert.deepEqual(
    doc.pods.map((p) => `${p.name}:${p.status}`),
    [`${c}:succeeded`, `${d}:failed`],
    show(r),
  );
  assert.deepEqual(podContainerIds(d), []);
});

/** A sidecar and an app container, both ignoring SIGTERM (sleep as PID 1), with a grace period of `grace` seconds. */
function sidecarPod(name: string, grace: number): string {
  return podFile({ name, grace, initContainers: [sleeper('side', { restartPolicy: 'Always' })], containers: [sleeper('app')] });
}

test('down of a pod with a sidecar and an app container that ignore SIGTERM: within one grace period, the sidecar stopped last with what is left', async (t) => {
  const name = uniqueName('adm-grace');
  cleanupPod(t, name);
  const grace = 6;
  const file = sidecarPod(name, grace);
  cleanupFile(t, file);
  const up = await runpod(['--timeout', '60s', file]);
  assert.equal(up.code, 0, show(up));
  const down = await runpod(['down', '-o', 'json', file], { timeoutMs: 120_000 });
  assert.equal(down.code, 0, show(down));
  const pod = must((JSON.parse(down.stdout) as DownDoc).pods[0], 'pod');
  assert.equal(pod.graceSeconds, grace);
  assert.deepEqual(
    pod.stops.map((s) => s.container),
    ['app', 'side', 'POD'],
    'app containers first, the sidecar after them, the sandbox last',
  );
  const [app, side] = pod.stops;
  assert.equal(app!.graceSeconds, grace);
  assert.ok(app!.seconds >= grace - 1, `the app container was waited for (${app!.seconds}s)`);
  // What is left of the budget, at least the kubelet's 2 s: not a second grace period of its own.
  assert.equal(side!.graceSeconds, 2);
  assert.ok(pod.seconds < grace + 2 + 4, `down took ${pod.seconds}s: one grace period (${grace}s), the sidecar's minimum 2s, and a margin\n${show(down)}`);
  assert.deepEqual(podContainerIds(name), []);
});

test("down --grace 4 overrides the pod's budget, not each container's", async (t) => {
  const name = uniqueName('adm-grace4');
  cleanupPod(t, name);
  const file = sidecarPod(name, 30);
  cleanupFile(t, file);
  const up = await runpod(['--timeout', '60s', file]);
  assert.equal(up.code, 0, show(up));
  const down = await runpod(['down', '-v', '--grace', '4s', file], { timeoutMs: 120_000 });
  assert.equal(down.code, 0, show(down));
  assert.match(down.stdout, /^ {2}stopped app in [\d.]+s of 4s$/m, show(down));
  assert.match(down.stdout, /^ {2}stopped side in [\d.]+s of 2s$/m, show(down));
  const took = Number(/removed \(3 containers, ([\d.]+)s\)/.exec(down.stdout)?.[1]);
  assert.ok(took < 4 + 2 + 4, `down --grace 4 took ${took}s\n${show(down)}`);
});
