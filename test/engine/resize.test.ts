// resizePolicy on a real engine: a changed cpu limit under NotRequired (the default) is applied to the running
// container (POST /containers/{id}/update), the container kept; under RestartContainer it is replaced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uniqueName } from './harness.js';
import { type Obj, checkNothingLeftBehind, cleanupFile, cleanupPod, must, podContainers, podFile, runpod, show, sleeper } from './run-helpers.js';

checkNothingLeftBehind();

function manifest(name: string, cpu: string, policy?: 'NotRequired' | 'RestartContainer'): string {
  const extra: Obj = { resources: { limits: { cpu, memory: '64Mi' } } };
  if (policy !== undefined) extra.resizePolicy = [{ resourceName: 'cpu', restartPolicy: policy }];
  return podFile({ name, containers: [sleeper('main', extra)] });
}

test('NotRequired (the default): a changed cpu limit is applied to the running container, which is kept', async (t) => {
  const name = uniqueName('resize-inplace');
  cleanupPod(t, name);
  const first = manifest(name, '500m');
  cleanupFile(t, first);
  const r1 = await runpod([first]);
  assert.equal(r1.code, 0, show(r1));
  const before = must(podContainers(name).get('main'), 'main');
  assert.equal(before.HostConfig.CpuQuota, 50_000);
  const second = manifest(name, '1500m');
  cleanupFile(t, second);
  const r2 = await runpod([second, '-o', 'json']);
  assert.equal(r2.code, 0, show(r2));
  assert.match(r2.stdout, /"action": ?"resize"/, show(r2));
  assert.match(r2.stdout, /cpu limit 500m -> 1500m\)?.*resizePolicy NotRequired applies them in place/, show(r2));
  const after = must(podContainers(name).get('main'), 'main');
  assert.equal(after.Id, before.Id, 'the same container');
  assert.equal(after.HostConfig.CpuQuota, 150_000, 'docker inspect shows the new CFS quota (1.5 cpus over a 100 ms period)');
  assert.equal(after.HostConfig.CpuPeriod, 100_000);
  assert.equal(after.State.StartedAt, before.State.StartedAt, 'not restarted');
  // A run again has nothing to do.
  const r3 = await runpod([second, '-o', 'json']);
  assert.equal(r3.code, 0, show(r3));
  assert.doesNotMatch(r3.stdout, /"action": "resize"|"action":"resize"/, show(r3));
});

test('RestartContainer: a changed cpu limit replaces the container', async (t) => {
  const name = uniqueName('resize-restart');
  cleanupPod(t, name);
  const first = manifest(name, '500m', 'RestartContainer');
  cleanupFile(t, first);
  const r1 = await runpod([first]);
  assert.equal(r1.code, 0, show(r1));
  const before = must(podContainers(name).get('main'), 'main');
  const second = manifest(name, '1', 'RestartContainer');
  cleanupFile(t, second);
  const r2 = await runpod([second]);
  assert.equal(r2.code, 0, show(r2));
  const after = must(podContainers(name).get('main'), 'main');
  assert.notEqual(after.Id, before.Id, 'a new container');
  assert.equal(after.HostConfig.CpuQuota, 100_000);
  assert.equal(after.Config.Labels['io.kubernetes.container.restartCount'], '1');
});
