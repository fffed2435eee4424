// A namespace's network made by many runs at once (services/network.ts), on an in-memory engine that creates
// networks as Docker 20.10 does under load: the duplicate check and the creation are two steps, so two creates
// of one name at once both succeed, and the name is then ambiguous to every later call.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EngineRequestError } from '../../../src/engine/ports/errors.js';
import { ServiceSetupError } from '../../../src/errors.js';
import { Role, ServiceLabel } from '../../../src/kube/serviceNames.js';
import { emptyNetworks, ensureNetwork, lookUpNetwork, removeNetworkIfUnused, withNetworkRepair } from '../../../src/services/network.js';
import { MemoryEngine } from '../support/memoryEngine.js';

const image = 'runpod/pause:test';
const fast = { staleMs: 200, pollMs: 5 };
const racy = (): MemoryEngine => new MemoryEngine({ images: [image], racyNetworkCreate: true });
const locks = (engine: MemoryEngine): string[] =>
  engine
    .peekAll()
    .filter((c) => c.Config.Labels?.[ServiceLabel.role] === Role.networkLock)
    .map((c) => c.Name);

describe('the namespace network, made by runs at once', () => {
  it('the engine does make two of a name when two creates race (what the lock is for)', async () => {
    const engine = racy();
    await Promise.all([engine.createNetwork('runpod_default', { labels: {} }), engine.createNetwork('runpod_default', { labels: {} })]);
    await assert.rejects(engine.inspectNetwork('runpod_default'), /is ambiguous/);
  });

  it('eight runs at once: one network, every run gets it, no lock is left', async () => {
    const engine = racy();
    const got = await Promise.all(Array.from({ length: 8 }, () => ensureNetwork(engine, 'default', undefined, image, fast)));
    const list = await engine.listNetworks([`${ServiceLabel.networkNamespace}=default`]);
    assert.equal(list.length, 1);
    assert.deepEqual(new Set(got.map((n) => n.id)), new Set([list[0]?.id]));
    assert.deepEqual(locks(engine), []);
    assert.equal(engine.callCount('createNetwork'), 1);
  });

  it('under an isolation key: its own network, its lock carrying the key', async () => {
    const engine = racy();
    const seenLabels: Record<string, string>[] = [];
    engine.onCall('createContainer', async (args, next) => {
      seenLabels.push(args[1].Labels ?? {});
      return next(...args);
    });
    const [a, b] = await Promise.all([ensureNetwork(engine, 'default', 'ci-1', image, fast), ensureNetwork(engine, 'default', undefined, image, fast)]);
    assert.equal(a.name, 'runpod_default.ci-1');
    assert.equal(b.name, 'runpod_default');
    assert.ok(seenLabels.some((l) => l['io.runpod.project'] === 'ci-1' && l[ServiceLabel.networkName] === 'runpod_default.ci-1'));
  });

  it('a lock left by a runpod killed holding it is removed once it has stood unchanged, and the network made', async () => {
    const engine = racy();
    await engine.createContainer('runpod_netlock_runpod_default', { Image: image, Labels: { [ServiceLabel.role]: Role.networkLock } });
    const n = await ensureNetwork(engine, 'default', undefined, image, fast);
    assert.equal(n.name, 'runpod_default');
    assert.deepEqual(locks(engine), []);
  });

  it("a container of the lock's name that is not runpod's stops the run and is left alone", async () => {
    const engine = racy();
    await engine.createContainer('runpod_netlock_runpod_default', { Image: image, Labels: { owner: 'someone' } });
    await assert.rejects(ensureNetwork(engine, 'default', undefined, image, fast), (err: unknown) => err instanceof ServiceSetupError && /is not runpod's lock/.test(err.message));
    assert.ok(engine.peek('runpod_netlock_runpod_default'));
    assert.equal(engine.callCount('createNetwork'), 0);
  });

  it('a failed creation releases the lock: the next run makes the network', async () => {
    const engine = racy();
    engine.failNext('createNetwork', new EngineRequestError('could not find an available, non-overlapping IPv4 address pool among the defaults to assign to the network', 400));
    await assert.rejects(ensureNetwork(engine, 'default', undefined, image, fast), /address pool/);
    assert.deepEqual(locks(engine), []);
    assert.equal((await ensureNetwork(engine, 'default', undefined, image, fast)).name, 'runpod_default');
  });

  it('several networks of the name already there (made without the lock): the oldest stays, the empty others go', async () => {
    const engine = racy();
    const labels = { 'app.kubernetes.io/managed-by': 'runpod', [ServiceLabel.networkNamespace]: 'default' };
    await Promise.all([1, 2, 3].map(() => engine.createNetwork('runpod_default', { labels })));
    const got = await Promise.all([1, 2].map(() => ensureNetwork(engine, 'default', undefined, image, fast)));
    const left = await engine.listNetworks([]);
    assert.equal(left.length, 1);
    assert.deepEqual(new Set(got.map((n) => n.id)), new Set([left[0]?.id]));
    assert.deepEqual(locks(engine), []);
  });

  it('the one of them that containers are on stays', async () => {
    const engine = racy();
    const labels = { 'app.kubernetes.io/managed-by': 'runpod', [ServiceLabel.networkNamespace]: 'default' };
    const ids = await Promise.all([1, 2].map(() => engine.createNetwork('runpod_default', { labels })));
    const c = await engine.createContainer('k8s_POD_web_default_u_0', { Image: image });
    await engine.connectNetwork(ids[1] ?? '', c, []);
    assert.equal((await ensureNetwork(engine, 'default', undefined, image, fast)).id, ids[1]);
    assert.equal((await engine.listNetworks([])).length, 1);
  });

  it("containers on two of them, or one that is not runpod's: a clear error with the fix, nothing removed", async () => {
    const engine = racy();
    const labels = { 'app.kubernetes.io/managed-by': 'runpod', [ServiceLabel.networkNamespace]: 'default' };
    const ids = await Promise.all([1, 2].map(() => engine.createNetwork('runpod_default', { labels })));
    for (const [i, id] of ids.entries()) await engine.connectNetwork(id, await engine.createContainer(`c${i}`, { Image: image }), []);
    await assert.rejects(
      ensureNetwork(engine, 'default', undefined, image, fast),
      (err: unknown) =>
        err instanceof ServiceSetupError &&
        /more than one network is named runpod_default .*containers are on 2 of them/.test(err.message) &&
        /docker network rm/.test(err.message),
    );
    assert.equal((await engine.listNetworks([])).length, 2);
    const foreign = racy();
    await Promise.all([{}, labels].map((l) => foreign.createNetwork('runpod_default', { labels: l })));
    await assert.rejects(ensureNetwork(foreign, 'default', undefined, image, fast), /more than one network is named runpod_default/);
    assert.equal((await foreign.listNetworks([])).length, 2);
  });

  it('a network removed under the run (a concurrent down) is made again when a create or start meets 404', async () => {
    const engine = racy();
    await ensureNetwork(engine, 'default', undefined, image, fast);
    const repaired = withNetworkRepair(engine, undefined);
    const first = (await engine.listNetworks([]))[0]?.id ?? '';
    await engine.removeNetwork(first);
    // The memory engine does not check NetworkMode; the real one answers as below at create and at start.
    engine.failNext('createContainer', new EngineRequestError('network runpod_default not found', 404));
    const id = await repaired.createContainer('k8s_POD_web_default_u_0', { Image: image, HostConfig: { NetworkMode: 'runpod_default' } });
    const after = await engine.listNetworks([]);
    assert.equal(after.length, 1);
    assert.notEqual(after[0]?.id, first);
    await engine.removeNetwork(after[0]?.id ?? '');
    engine.failNext('startContainer', new EngineRequestError('network runpod_default not found', 404));
    await repaired.startContainer(id);
    assert.equal((await engine.listNetworks([])).length, 1);
    assert.deepEqual(locks(engine), []);
  });

  it('a start that meets the id of a network made again since its first start failed: attached again by name, then started', async () => {
    const engine = racy();
    await ensureNetwork(engine, 'default', undefined, image, fast);
    const repaired = withNetworkRepair(engine, undefined);
    const id = await repaired.createContainer('k8s_POD_web_default_u_0', {
      Image: image,
      HostConfig: { NetworkMode: 'runpod_default' },
      NetworkingConfig: { EndpointsConfig: { runpod_default: { Aliases: ['web'] } } },
    });
    const attached: string[] = [];
    engine.onCall('disconnectNetwork', async (args, next) => {
      attached.push(`disconnect ${args[0]}`);
      return next(...args);
    });
    engine.onCall('connectNetwork', async (args, next) => {
      attached.push(`connect ${args[0]} ${args[2].join(',')}`);
      return next(...args);
    });
    // What Docker 20.10 answers here (checked by hand: a failed start, the network removed and made again, start).
    engine.failNext('startContainer', new EngineRequestError('network b9eee194c581e3064572574018596cf26659efc5b34e13aea3661ad4c1a19a02 not found', 404));
    await repaired.startContainer(id);
    assert.deepEqual(attached, ['disconnect runpod_default', 'connect runpod_default web']);
    assert.equal(engine.peek('k8s_POD_web_default_u_0')?.State.Running, true);
  });

  it("a stale network id on a container that is not on runpod's network under this key: the engine's error stands", async () => {
    const engine = racy();
    const repaired = withNetworkRepair(engine, 'ci-1');
    const id = await engine.createContainer('xy', { Image: image, HostConfig: { NetworkMode: 'runpod_default' } });
    engine.failNext('startContainer', new EngineRequestError('network b9eee194c581 not found', 404));
    await assert.rejects(repaired.startContainer(id), /network b9eee194c581 not found/);
    assert.equal(engine.callCount('connectNetwork'), 0);
  });

  it('a namespace network with a pod container that is created and not yet started on it stays (a concurrent run is setting it up)', async () => {
    const engine = racy();
    await ensureNetwork(engine, 'default', undefined, image, fast);
    const labels = { 'app.kubernetes.io/managed-by': 'runpod', 'io.kubernetes.pod.namespace': 'default' };
    const id = await engine.createContainer('k8s_POD_web_default_u_0', { Image: image, Labels: labels, HostConfig: { NetworkMode: 'runpod_default' } });
    assert.equal(await removeNetworkIfUnused(engine, 'default', undefined), false);
    assert.equal((await engine.listNetworks([])).length, 1);
    // Another key's created container is no reason to keep it.
    await engine.removeContainer(id, { force: true });
    await engine.createContainer('k8s_POD_web_default_v_0', { Image: image, Labels: { ...labels, 'io.runpod.project': 'ci-1' }, HostConfig: { NetworkMode: 'runpod_default' } });
    assert.equal(await removeNetworkIfUnused(engine, 'default', undefined), true);
    assert.equal((await engine.listNetworks([])).length, 0);
  });

  it("gc's empty networks leave out one a pod container is created on and not yet started, under its own key", async () => {
    const engine = racy();
    await Promise.all([
      ensureNetwork(engine, 'default', undefined, image, fast),
      ensureNetwork(engine, 'default', 'ci-1', image, fast),
      ensureNetwork(engine, 'web', undefined, image, fast),
    ]);
    const labels = { 'app.kubernetes.io/managed-by': 'runpod', 'io.kubernetes.pod.namespace': 'default', 'io.runpod.project': 'ci-1' };
    await engine.createContainer('k8s_POD_web_default_u_0', { Image: image, Labels: labels, HostConfig: { NetworkMode: 'runpod_default.ci-1' } });
    assert.deepEqual((await emptyNetworks(engine)).map((n) => n.name).sort(), ['runpod_default', 'runpod_web']);
  });

  it("another key's network, or a name that is not runpod's pattern, is never made by the repair", async () => {
    const engine = racy();
    const repaired = withNetworkRepair(engine, 'ci-1');
    engine.failNext('createContainer', new EngineRequestError('network runpod_default not found', 404));
    await assert.rejects(repaired.createContainer('x', { Image: image }), /network runpod_default not found/);
    engine.failNext('createContainer', new EngineRequestError('network mynet not found', 404));
    await assert.rejects(repaired.createContainer('y', { Image: image }), /network mynet not found/);
    assert.equal(engine.callCount('createNetwork'), 0);
  });
  it("a run goes on while its lock's removal is under way: the removal is handed over, and once awaited no lock is left", async () => {
    const engine = racy();
    let letGo: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    engine.onCall('removeContainer', async (args, next) => {
      await held;
      return next(...args);
    });
    const removals: Promise<void>[] = [];
    const n = await ensureNetwork(engine, 'default', undefined, image, fast, { release: (r) => removals.push(r) });
    assert.equal(n.name, 'runpod_default');
    // The network is there and the lock still stands: the run did not wait for its removal.
    assert.equal(removals.length, 1);
    assert.equal(locks(engine).length, 1);
    letGo();
    await Promise.all(removals);
    assert.deepEqual(locks(engine), []);
  });

  it('a network looked up earlier is not looked up again', async () => {
    const engine = racy();
    const first = await ensureNetwork(engine, 'default', undefined, image, fast);
    const before = engine.callCount('inspectNetwork');
    const again = await ensureNetwork(engine, 'default', undefined, image, fast, { found: lookUpNetwork(engine, 'default', undefined) });
    assert.equal(again.id, first.id);
    assert.equal(engine.callCount('inspectNetwork'), before + 1);
    assert.equal(engine.callCount('createContainer'), 1);
  });
});
