// resizePolicy (Kubernetes in-place resize): a change of resources under NotRequired (the default) is applied to the
// running instance with the engine's update, the instance kept; under RestartContainer, or where Docker's update
// cannot (a removed memory limit), the container is replaced. Plan, decide and the loop on the in-memory engine;
// the real engine: test/engine/resize.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { engineResources, resizeChange } from '../../../src/plan/resize.js';
import { EngineRequestError } from '../../../src/engine/ports/errors.js';
import { observePod } from '../../../src/reconcile/observe.js';
import type { PodOutcome } from '../../../src/wait/runOnce.js';
import type { MemoryEngine } from '../support/memoryEngine.js';
import { memoryEngines, onePodPlan, runUntilRunning } from '../support/loop.js';
import { templateOutdated } from '../../../src/reconcile/outdated.js';
import type { PodPlan } from '../../../src/plan/types.js';

const planOf = (container: Record<string, unknown>): PodPlan => onePodPlan('rs', 'Always', container);
const newEngine = memoryEngines();
const run = (engine: MemoryEngine, plan: PodPlan): Promise<PodOutcome> => runUntilRunning(engine, plan, 4);

const limits = (cpu: string, memory: string): Record<string, unknown> => ({ resources: { limits: { cpu, memory } } });
const restartOn = (resource: 'cpu' | 'memory'): Record<string, unknown> => ({ resizePolicy: [{ resourceName: resource, restartPolicy: 'RestartContainer' }] });

async function mainInstances(engine: MemoryEngine, plan: PodPlan) {
  return (await observePod(engine, plan.namespace, plan.name)).containers.get('main') ?? [];
}

describe('resizePolicy: the plan', () => {
  it('by default (NotRequired) a changed cpu or memory limit leaves the hash as it was', () => {
    const a = planOf(limits('500m', '64Mi')).containers[0]!;
    const b = planOf(limits('1500m', '128Mi')).containers[0]!;
    assert.equal(a.hash, b.hash);
    assert.notEqual(a.fullHash, b.fullHash, 'the full hash (of an instance made before in-place resize) still covers them');
    // (Requests default to limits when the manifest is loaded; this plan is made from the bare spec.)
    assert.deepEqual(b.resources, { memory: 128 * 1024 ** 2, memoryReservation: 0, cpuQuota: 150_000, cpuPeriod: 100_000, cpuShares: 2 });
  });

  it('RestartContainer for cpu puts the cpu settings in the hash, not the memory ones', () => {
    const base = planOf({ ...limits('500m', '64Mi'), ...restartOn('cpu') }).containers[0]!;
    assert.notEqual(base.hash, planOf({ ...limits('1', '64Mi'), ...restartOn('cpu') }).containers[0]!.hash);
    assert.equal(base.hash, planOf({ ...limits('500m', '128Mi'), ...restartOn('cpu') }).containers[0]!.hash);
  });
});

describe('resizeChange: how the applied resources become the planned ones', () => {
  const r = (cpuQuota: number, memory: number) => engineResources({ CpuQuota: cpuQuota, CpuPeriod: 100_000, Memory: memory, CpuShares: 2 });
  it('the same: nothing', () => assert.deepEqual(resizeChange(r(50_000, 0), r(50_000, 0)), { kind: 'none' }));
  it('a cpu limit raised: quota and period', () => {
    assert.deepEqual(resizeChange(r(50_000, 0), r(150_000, 0)), { kind: 'update', update: { CpuQuota: 150_000, CpuPeriod: 100_000 }, what: 'cpu limit 500m -> 1500m' });
  });
  it('a cpu limit removed: quota -1 (the engine reads it back as none)', () => {
    assert.deepEqual(resizeChange(r(50_000, 0), r(0, 0)), { kind: 'update', update: { CpuQuota: -1 }, what: 'cpu limit 500m -> none' });
    assert.deepEqual(engineResources({ CpuQuota: -1, CpuPeriod: 100_000, CpuShares: 2 }), r(0, 0));
  });
  it("a memory limit: with swap twice it, as Docker's create gives", () => {
    assert.deepEqual(resizeChange(r(0, 64 * 1024 ** 2), r(0, 128 * 1024 ** 2)), {
      kind: 'update',
      update: { Memory: 128 * 1024 ** 2, MemorySwap: 256 * 1024 ** 2 },
      what: 'memory limit 64Mi -> 128Mi',
    });
  });
  it("a memory limit removed: Docker's update leaves a zero alone, so the container is replaced", () => {
    assert.deepEqual(resizeChange(r(0, 64 * 1024 ** 2), r(0, 0)), {
      kind: 'replace',
      why: "its memory limit was removed (64Mi -> none), which Docker's update cannot do in place",
    });
  });
});

describe('resizePolicy in the run-once loop', () => {
  it('NotRequired: a raised cpu and memory limit is applied to the running instance, which is kept', async () => {
    const engine = newEngine();
    const first = await run(engine, planOf(limits('500m', '64Mi')));
    assert.equal(first.status, 'succeeded', first.reason);
    const [before] = await mainInstances(engine, planOf({}));
    const out = await run(engine, planOf(limits('1500m', '128Mi')));
    assert.equal(out.status, 'succeeded', out.reason);
    assert.deepEqual(
      out.results.map((r) => `${r.action.kind}:${r.ok}`),
      ['resize:true'],
    );
    assert.equal(out.results[0]!.action.reason, 'its resources changed (cpu limit 500m -> 1500m, memory limit 64Mi -> 128Mi); resizePolicy NotRequired applies them in place');
    const after = await mainInstances(engine, planOf({}));
    assert.deepEqual(
      after.map((c) => c.id),
      [before!.id],
      'the same instance',
    );
    const host = engine.peek(before!.id)!.HostConfig;
    assert.deepEqual([host.CpuQuota, host.Memory, host.MemorySwap], [150_000, 128 * 1024 ** 2, 256 * 1024 ** 2]);
    assert.deepEqual((await run(engine, planOf(limits('1500m', '128Mi')))).results, [], 'then nothing is left to do');
  });

  it('RestartContainer: a changed cpu limit replaces the container', async () => {
    const engine = newEngine();
    await run(engine, planOf({ ...limits('500m', '64Mi'), ...restartOn('cpu') }));
    const out = await run(engine, planOf({ ...limits('1', '64Mi'), ...restartOn('cpu') }));
    assert.equal(out.status, 'succeeded', out.reason);
    assert.deepEqual(
      out.results.map((r) => r.action.kind),
      ['remove', 'create'],
    );
    assert.match(out.results[0]!.action.reason, /^its spec changed/);
    assert.equal(engine.callCount('updateResources'), 0);
  });

  it('a removed memory limit replaces the container, saying why', async () => {
    const engine = newEngine();
    await run(engine, planOf(limits('500m', '64Mi')));
    const out = await run(engine, planOf({ resources: { limits: { cpu: '500m' } } }));
    assert.equal(out.status, 'succeeded', out.reason);
    assert.deepEqual(
      out.results.map((r) => r.action.kind),
      ['remove', 'create'],
    );
    assert.match(out.results[0]!.action.reason, /memory limit was removed \(64Mi -> none\), which Docker's update cannot do in place/);
  });

  it('a memory limit the engine refuses (below what the container uses): the run fails, naming the way out', async () => {
    const engine = newEngine();
    await run(engine, planOf(limits('500m', '128Mi')));
    engine.onCall('updateResources', () => Promise.reject(new EngineRequestError('Cannot update container: memory.max: device or resource busy', 500)));
    const out = await run(engine, planOf(limits('500m', '64Mi')));
    assert.equal(out.status, 'failed');
    assert.match(
      out.reason,
      /device or resource busy \(a memory limit below what the container uses now is refused; raise it, or set resizePolicy memory: RestartContainer to replace the container instead\)/,
    );
  });

  it("a workload's pod with changed resources is outdated (its controller rolls it out, it does not resize)", async () => {
    const engine = newEngine();
    await run(engine, planOf(limits('500m', '64Mi')));
    const observed = await observePod(engine, 'default', 'rs');
    assert.equal(templateOutdated(planOf(limits('500m', '64Mi')), observed), false);
    assert.equal(templateOutdated(planOf(limits('1500m', '64Mi')), observed), true);
  });
});
