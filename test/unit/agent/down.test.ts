// `down` in as few request rounds as its order rules allow (agent/down.ts, reconcile/removePod.ts): at grace 0 a
// forced remove is the kill (Docker's rm -f sends SIGKILL), and the namespace's network goes beside the pod's own
// volumes, once its containers are gone.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { takeDown } from '../../../src/agent/down.js';
import { Label, managedByValue } from '../../../src/kube/labels.js';
import { pauseImageRef } from '../../../src/reconcile/pauseImage.js';
import { removePod, removePodContainers } from '../../../src/reconcile/removePod.js';
import { ensureNetwork } from '../../../src/services/network.js';
import { MemoryEngine } from '../support/memoryEngine.js';

const image = pauseImageRef('amd64');

/** A running pod default/web of three containers on the namespace's network, with a volume of its own. */
async function podUp(engine: MemoryEngine, grace: number): Promise<void> {
  const network = await ensureNetwork(engine, 'default', undefined, image);
  const own = { [Label.managedBy]: managedByValue, [Label.podNamespace]: 'default', [Label.podName]: 'web' };
  for (const c of ['POD', 'a', 'b']) {
    const id = await engine.createContainer(`k8s_${c}_web`, {
      Image: image,
      Labels: { ...own, [Label.containerName]: c, [Label.gracePeriod]: String(grace) },
      HostConfig: { NetworkMode: network.name },
    });
    await engine.startContainer(id);
  }
  await engine.createVolume('runpod_web_cache', { labels: own });
}

describe('down in fewer rounds', () => {
  it('at grace 0 each container is removed by force, with no stop (kill) before it, and each is still accounted', async () => {
    const engine = new MemoryEngine({ images: [image] });
    try {
      await podUp(engine, 0);
      const down = await (await removePodContainers(engine, { namespace: 'default', name: 'web' }, undefined, Date.now, { removeKills: true })).rest;
      assert.equal(engine.callCount('stopContainer'), 0, 'no kill before the remove');
      assert.equal(engine.callCount('removeContainer'), 4, 'the three containers, and the lock earlier');
      assert.deepEqual(engine.peekAll(), []);
      assert.equal(down.removed, 3);
      assert.deepEqual(down.stops.map((s) => [s.container, s.graceSeconds]).sort(), [
        ['POD', 0],
        ['a', 0],
        ['b', 0],
      ]);
      assert.equal(await engine.inspectVolume('runpod_web_cache'), undefined);
    } finally {
      engine.dispose();
    }
  });

  it("at grace 0 a removal other than down's (a scoped takedown, --replace, --prune) still kills before it removes", async () => {
    const engine = new MemoryEngine({ images: [image] });
    try {
      await podUp(engine, 0);
      await removePod(engine, { namespace: 'default', name: 'web' });
      assert.equal(engine.callCount('stopContainer'), 3);
      assert.deepEqual(engine.peekAll(), []);
    } finally {
      engine.dispose();
    }
  });

  it('with a grace period the containers are still stopped before they are removed', async () => {
    const engine = new MemoryEngine({ images: [image] });
    try {
      await podUp(engine, 1);
      await removePod(engine, { namespace: 'default', name: 'web' });
      assert.equal(engine.callCount('stopContainer'), 3);
      assert.deepEqual(engine.peekAll(), []);
    } finally {
      engine.dispose();
    }
  });

  it("the namespace's network goes beside the pod's own volumes, after its containers", async () => {
    const engine = new MemoryEngine({ images: [image] });
    try {
      await podUp(engine, 0);
      const seen: string[] = [];
      engine.onCall('removeContainer', async (args, next) => {
        await next(...args);
        seen.push('container');
      });
      engine.onCall('removeNetwork', async (args, next) => {
        await next(...args);
        seen.push('network');
      });
      engine.onCall('removeVolume', async (args, next) => {
        // Held a while: a network removal that waits for the volume's comes after it.
        await delay(100);
        await next(...args);
        seen.push('volume');
      });
      const done = await takeDown(engine, {
        all: false,
        targets: { refs: [{ namespace: 'default', name: 'web' }], owners: [], services: [], claims: [] },
        graceSeconds: 0,
        deleteClaims: false,
        project: undefined,
        arch: 'amd64',
      });
      assert.deepEqual(seen, ['container', 'container', 'container', 'network', 'volume']);
      assert.deepEqual(done.cluster.networks, ['runpod_default']);
      assert.deepEqual(
        done.pods.map((p) => [p.name, p.removed]),
        [['web', 3]],
      );
      assert.deepEqual(await engine.listNetworks([]), []);
    } finally {
      engine.dispose();
    }
  });
});
