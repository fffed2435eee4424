// `runpod run` on a pod that already exists but differs from the manifest or was disturbed by hand: what is
// replaced and what is kept (design.md "What replaces what", "Restart model").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { uniqueName } from './harness.js';
import {
  busybox,
  checkNothingLeftBehind,
  cleanupFile,
  cleanupPod,
  docker,
  eventually,
  freePort,
  httpGet,
  inspect,
  must,
  podContainerIds,
  podContainers,
  podFile,
  runpod,
  show,
  sleeper,
  type InspectedFull,
  type PodSpecInput,
} from './run-helpers.js';

checkNothingLeftBehind();

function webPod(name: string, hostPort: number, marker: string, labels: Record<string, string> = {}): PodSpecInput {
  return {
    name,
    labels,
    containers: [
      {
        name: 'web',
        image: busybox,
        command: ['sh', '-c', `mkdir -p /www && echo ${marker} > /www/index.html && exec httpd -f -p 8080 -h /www`],
        ports: [{ containerPort: 8080, hostPort }],
      },
      sleeper('side'),
    ],
  };
}

async function pageOn(port: number): Promise<string> {
  return eventually(`page on 127.0.0.1:${port}`, async () => {
    const r = await httpGet('127.0.0.1', port);
    return r.status === 200 ? r.body.trim() : undefined;
  });
}

test('a change to pod labels alone replaces nothing', async (t) => {
  const name = uniqueName('re-labels');
  cleanupPod(t, name);
  const file = podFile({ name, labels: { v: 'one' }, containers: [sleeper('a')] });
  cleanupFile(t, file);
  const first = await runpod([file]);
  assert.equal(first.code, 0, show(first));
  const ids = podContainerIds(name);
  const relabelled = podFile({ name, labels: { v: 'two' }, annotations: { note: 'new' }, containers: [sleeper('a')] });
  cleanupFile(t, relabelled);
  const second = await runpod([relabelled]);
  assert.equal(second.code, 0, show(second));
  assert.deepEqual(podContainerIds(name), ids);
});

test('a changed hostPort (a pod-level field) replaces the whole pod', async (t) => {
  const name = uniqueName('re-port');
  cleanupPod(t, name);
  const marker = `page-${randomBytes(5).toString('hex')}`;
  const [portA, portB] = [await freePort(), await freePort()];
  const file = podFile(webPod(name, portA, marker));
  cleanupFile(t, file);
  const first = await runpod([file]);
  assert.equal(first.code, 0, show(first));
  const before = podContainers(name);
  assert.equal(await pageOn(portA), marker);

  const moved = podFile(webPod(name, portB, marker));
  cleanupFile(t, moved);
  const second = await runpod([moved]);
  assert.equal(second.code, 0, show(second));
  assert.doesNotMatch(second.stdout, /unchanged/, show(second));
  const after = podContainers(name);
  assert.deepEqual([...after.keys()].sort(), ['POD', 'side', 'web']);
  const infra = must(after.get('POD'), 'infra');
  const uid = infra.Config.Labels['io.kubernetes.pod.uid'];
  // A new sandbox (next attempt), and every container started again inside it.
  assert.notEqual(infra.Id, must(before.get('POD'), 'infra').Id);
  assert.equal(infra.Name, `/k8s_POD_${name}_default_${uid}_1`);
  assert.deepEqual(infra.HostConfig.PortBindings, { '8080/tcp': [{ HostIp: '', HostPort: String(portB) }] });
  for (const c of ['web', 'side']) {
    assert.notEqual(must(after.get(c), c).Id, must(before.get(c), c).Id, c);
    assert.equal(must(after.get(c), c).HostConfig.NetworkMode, `container:${infra.Id}`, c);
  }
  assert.equal(await pageOn(portB), marker);
});

test('a container stopped by hand is replaced by its next attempt; the dead one is kept without a restart policy', async (t) => {
  const name = uniqueName('re-stopped');
  cleanupPod(t, name);
  const file = podFile({ name, containers: [sleeper('keep'), sleeper('victim')] });
  cleanupFile(t, file);
  const first = await runpod([file]);
  assert.equal(first.code, 0, show(first));
  const before = podContainers(name);
  const victim = must(before.get('victim'), 'victim');
  docker(['stop', '-t', '0', victim.Id]);

  const second = await runpod([file]);
  assert.equal(second.code, 0, show(second));
  const all = podContainerIds(name);
  assert.equal(all.length, 4, 'expected infra, keep, the dead victim and its replacement');
  const uid = must(before.get('POD'), 'infra').Config.Labels['io.kubernetes.pod.uid'];
  const now = inspect(all) as InspectedFull[];
  const ofName = (c: string) => now.filter((x) => x.Config.Labels['io.kubernetes.container.name'] === c);
  const dead = must(
    ofName('victim').find((x) => x.Id === victim.Id),
    'the dead instance',
  );
  assert.equal(dead.State.Status, 'exited');
  assert.equal(dead.HostConfig.RestartPolicy.Name, 'no', 'the dead instance could be brought back by the engine');
  const replacement = must(
    ofName('victim').find((x) => x.Id !== victim.Id),
    'the replacement',
  );
  assert.equal(replacement.Name, `/k8s_victim_${name}_default_${uid}_1`);
  assert.equal(replacement.Config.Labels['io.kubernetes.container.restartCount'], '1');
  assert.equal(replacement.State.Running, true);
  assert.equal(replacement.HostConfig.RestartPolicy.Name, 'always');
  assert.equal(replacement.HostConfig.NetworkMode, `container:${must(before.get('POD'), 'infra').Id}`);
  assert.deepEqual(
    ofName('keep').map((x) => x.Id),
    [must(before.get('keep'), 'keep').Id],
  );
  assert.deepEqual(
    ofName('POD').map((x) => x.Id),
    [must(before.get('POD'), 'infra').Id],
  );

  const down = await runpod(['down', name]);
  assert.equal(down.code, 0, show(down));
  assert.deepEqual(podContainerIds(name), []);
});

test("after the infra container restarts, a re-run puts the containers back in the pod's namespaces", async (t) => {
  const name = uniqueName('re-infra');
  cleanupPod(t, name);
  const marker = `page-${randomBytes(5).toString('hex')}`;
  const port = await freePort();
  const file = podFile(webPod(name, port, marker));
  cleanupFile(t, file);
  const first = await runpod([file]);
  assert.equal(first.code, 0, show(first));
  assert.equal(await pageOn(port), marker);
  const before = podContainers(name);
  // A restarted infra container has new namespaces: the running app containers are left in the old ones.
  docker(['restart', '-t', '0', must(before.get('POD'), 'infra').Id]);

  const again = await runpod([file]);
  assert.equal(again.code, 0, show(again));
  const after = podContainers(name);
  assert.notEqual(must(after.get('web'), 'web').Id, must(before.get('web'), 'web').Id, 'web was not replaced');
  assert.equal(await pageOn(port), marker);
});
