// The sync that makes a pod's sandbox, on the in-memory engine (issue 28): the infra container's start (network
// set-up, ~0.5 s on Docker) is the long step, so the pod's files and the containers' creates go on beside it and
// only the containers' starts wait for it. The memory engine refuses a start joining a container not yet running,
// as Docker does, and lets a create join a container that is only created, as Docker 20.10 does.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LoadedPod } from '../../../src/manifest/types.js';
import { EngineRequestError } from '../../../src/engine/ports/errors.js';
import { translatePod } from '../../../src/plan/translate.js';
import { type ApplyResult, applyActions } from '../../../src/reconcile/apply.js';
import { decidePodActions } from '../../../src/reconcile/decide.js';
import { ImagePuller } from '../../../src/reconcile/images.js';
import { observePod } from '../../../src/reconcile/observe.js';
import { MemoryEngine } from '../support/memoryEngine.js';
import type { PodPlan } from '../../../src/plan/types.js';

const image = 'busybox:1';
const infraImage = 'pause:test';

const engines: MemoryEngine[] = [];
afterEach(() => {
  for (const e of engines.splice(0)) e.dispose();
});

/** Three sleeping containers; the namespace file (automountServiceAccountToken) makes pod files too. */
function threeContainers(name: string, extra: Record<string, unknown> = {}): PodPlan {
  const c = (n: string) => ({ name: n, image, imagePullPolicy: 'Never', command: ['sleep', '3600'], ...extra });
  const loaded = {
    pod: { metadata: { name, namespace: 'default' }, spec: { restartPolicy: 'Always', terminationGracePeriodSeconds: 0, containers: [c('a'), c('b'), c('c')] } },
    source: { file: '<stdin>' },
    line: 1,
  } as LoadedPod;
  return translatePod(loaded, { infraImage });
}

/** What the engine saw of one sync, in the order it happened. */
interface Seen {
  /** Helper creates, each with whether the infra start had returned by then. */
  helpers: { afterStart: boolean }[];
  /** App container creates made (answered) while the infra start was held open. */
  appCreatesDuringStart: number;
  startReturned: boolean;
}

/**
 * Watch one sync of a new sandbox; the infra container's start is held open until the three app containers are
 * created (or 300 ms pass: the old order never creates them first), then let through or refused.
 */
function watch(engine: MemoryEngine, outcome: 'start' | 'refuse'): Seen {
  const seen: Seen = { helpers: [], appCreatesDuringStart: 0, startReturned: false };
  let infraId: string | undefined;
  let starting = false;
  let appCreates = 0;
  engine.onCall('createContainer', async (args, next) => {
    const id = await next(...args);
    if (args[0].startsWith('runpod_helper_')) seen.helpers.push({ afterStart: seen.startReturned });
    else if (args[0].startsWith('k8s_POD_')) infraId = id;
    else {
      appCreates++;
      if (starting) seen.appCreatesDuringStart++;
    }
    return id;
  });
  engine.onCall('startContainer', async (args, next) => {
    if (args[0] !== infraId) return next(...args);
    starting = true;
    const until = Date.now() + 300;
    while (appCreates < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 2));
    starting = false;
    try {
      if (outcome === 'refuse') {
        throw new EngineRequestError(`driver failed programming external connectivity on endpoint x: Bind for 0.0.0.0:8080 failed: port is already allocated`, 500);
      }
      return await next(...args);
    } finally {
      seen.startReturned = true;
    }
  });
  return seen;
}

async function syncNewPod(engine: MemoryEngine, plan: PodPlan): Promise<ApplyResult> {
  const d = decidePodActions(plan, await observePod(engine, plan.namespace, plan.name));
  assert.equal(d.sandbox?.kind, 'createInfra');
  return applyActions(plan, d, { engine, images: new ImagePuller(engine, () => Promise.resolve(undefined)) });
}

function newEngine(): MemoryEngine {
  const e = new MemoryEngine({ images: [image, infraImage] });
  engines.push(e);
  return e;
}

describe('the sync that makes a sandbox', () => {
  it('writes the termination-message files and the pod files through one helper, none after the infra start', async () => {
    const engine = newEngine();
    const plan = threeContainers('onehelper');
    const seen = watch(engine, 'start');
    const { results } = await syncNewPod(engine, plan);
    assert.ok(
      results.every((r) => r.ok),
      JSON.stringify(results),
    );
    assert.equal(seen.helpers.length, 1, 'one helper for the sandbox');
    assert.deepEqual(
      seen.helpers.filter((h) => h.afterStart),
      [],
      'no helper after the infra start returned',
    );
    // The files are there all the same: a second sync (nothing to create) still finds the pod running.
    const again = decidePodActions(plan, await observePod(engine, plan.namespace, plan.name));
    assert.equal(again.create.length + again.start.length + (again.sandbox ? 1 : 0), 0);
  });

  it('creates the app containers while the infra container starts, and starts them after it', async () => {
    const engine = newEngine();
    const plan = threeContainers('overlap');
    const seen = watch(engine, 'start');
    const { results } = await syncNewPod(engine, plan);
    assert.equal(seen.appCreatesDuringStart, 3, 'the three creates were made before the infra start returned');
    assert.deepEqual(
      results.map((r) => [r.action.kind, r.ok]),
      [
        ['createInfra', true],
        ['create', true],
        ['create', true],
        ['create', true],
      ],
    );
    const observed = await observePod(engine, plan.namespace, plan.name);
    for (const name of ['a', 'b', 'c']) assert.equal(observed.containers.get(name)?.[0]?.state, 'running', name);
  });

  it('a failed infra start leaves no container this sync created, and says the creates were not attempted', async () => {
    const engine = newEngine();
    const plan = threeContainers('refused');
    const seen = watch(engine, 'refuse');
    const { results } = await syncNewPod(engine, plan);
    assert.equal(seen.appCreatesDuringStart, 3, 'the creates were under way beside the start');
    assert.deepEqual(
      results.map((r) => [r.action.kind, r.ok, r.action.kind === 'create' ? r.error : undefined]),
      [
        ['createInfra', false, undefined],
        ['create', false, 'not attempted: the infra container did not start'],
        ['create', false, 'not attempted: the infra container did not start'],
        ['create', false, 'not attempted: the infra container did not start'],
      ],
    );
    const observed = await observePod(engine, plan.namespace, plan.name);
    assert.equal(observed.infra.length, 1, 'the infra container stays, as before');
    assert.deepEqual([...observed.containers.values()].flat(), [], 'no app container left');
    assert.deepEqual(await engine.listContainers(['io.runpod.helper']), [], 'no helper left');
  });

  it("status.podIP waits for the infra start (Docker gives the address then): each container gets the pod's IP", async () => {
    const engine = newEngine();
    const plan = threeContainers('podip', { env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }] });
    const seen = watch(engine, 'start');
    const { results } = await syncNewPod(engine, plan);
    assert.ok(
      results.every((r) => r.ok),
      JSON.stringify(results),
    );
    assert.equal(seen.appCreatesDuringStart, 0, 'no create of a container that needs the pod IP before the start');
    const observed = await observePod(engine, plan.namespace, plan.name);
    const infra = await engine.inspectContainer(observed.infra[0]!.id);
    const ip = Object.values(infra?.NetworkSettings?.Networks ?? {})[0]?.IPAddress ?? '';
    assert.notEqual(ip, '');
    for (const name of ['a', 'b', 'c']) {
      const c = await engine.inspectContainer(observed.containers.get(name)![0]!.id);
      assert.ok(c?.Config.Env?.includes(`POD_IP=${ip}`), `${name}: ${JSON.stringify(c?.Config.Env)}`);
    }
  });
});
