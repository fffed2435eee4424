// The MemoryEngine's own semantics, the ones the observe → decide → apply loop's tests rely on: Docker 20.10's
// restart manager, manual stops, the errors of a dead container, scripted faults, an engine that goes away, and
// events filtered by label and delivered asynchronously.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { CreateOptions } from '../../../src/engine/ports/containers.js';
import { EngineRequestError, NameConflictError } from '../../../src/engine/ports/errors.js';
import type { EngineEvent } from '../../../src/engine/ports/streams.js';
import { EngineUnreachableError } from '../../../src/errors.js';
import { Label, managedSelector, podSelector } from '../../../src/kube/labels.js';
import { MemoryEngine, neverTime } from './memoryEngine.js';

const image = 'busybox:1';
let engines: MemoryEngine[] = [];

function engineWith(options: ConstructorParameters<typeof MemoryEngine>[0] = {}): MemoryEngine {
  const e = new MemoryEngine({ images: [image, 'pause:test'], ...options });
  engines.push(e);
  return e;
}

afterEach(() => {
  for (const e of engines) e.dispose();
  engines = [];
});

function podLabels(container: string, uid = 'uid-1'): Record<string, string> {
  return {
    [Label.managedBy]: 'runpod',
    [Label.podNamespace]: 'default',
    [Label.podName]: 'web',
    [Label.podUid]: uid,
    [Label.containerName]: container,
  };
}

function app(container: string, policy: string, extra: CreateOptions = {}): CreateOptions {
  return { Image: image, Labels: podLabels(container), ...extra, HostConfig: { RestartPolicy: { Name: policy }, ...extra.HostConfig } };
}

/** An infra container, running, and an app container joined to its network. */
async function pod(e: MemoryEngine, policy = 'always'): Promise<{ infra: string; app: string }> {
  const infra = await e.createContainer('k8s_POD_web', { Image: 'pause:test', Labels: podLabels('POD'), HostConfig: { RestartPolicy: { Name: 'unless-stopped' } } });
  await e.startContainer(infra);
  const id = await e.createContainer('k8s_a_web', app('a', policy, { HostConfig: { NetworkMode: `container:${infra}` } }));
  await e.startContainer(id);
  return { infra, app: id };
}

function actions(e: MemoryEngine, id: string): string[] {
  return e.eventsSent.filter((ev) => ev.id === id).map((ev) => ev.action);
}

describe('MemoryEngine: containers as Docker 20.10 keeps them', () => {
  it('create: a 64-hex id, the name with "/", the options copied, Docker\'s zero times, event create', async () => {
    const e = engineWith();
    const id = await e.createContainer('k8s_a_web', app('a', 'always', { Env: ['A=1'], Cmd: ['sleep', '1'] }));
    assert.match(id, /^[0-9a-f]{64}$/);
    const info = await e.inspectContainer(id);
    assert.ok(info);
    assert.equal(info.Name, '/k8s_a_web');
    assert.equal(info.State.Status, 'created');
    assert.equal(info.State.Running, false);
    assert.equal(info.State.StartedAt, neverTime);
    assert.equal(info.State.FinishedAt, neverTime);
    assert.equal(info.RestartCount, 0);
    assert.equal(info.HostConfig.RestartPolicy?.Name, 'always');
    assert.equal(info.HostConfig.NetworkMode, 'default');
    assert.equal(info.Config.Image, image);
    assert.match(info.Image, /^sha256:[0-9a-f]{64}$/);
    assert.deepEqual(info.Config.Cmd, ['sleep', '1']);
    assert.ok(info.Config.Env.includes('A=1'));
    assert.equal(info.Config.Labels[Label.containerName], 'a');
    assert.deepEqual(actions(e, id), ['create']);
    // By name too, as apply.ts adopts a container it lost a name race for.
    assert.equal((await e.inspectContainer('k8s_a_web'))?.Id, id);
    // Ids are deterministic: a second engine makes the same ones.
    assert.equal(await engineWith().createContainer('x1', { Image: image }), id);
  });

  it('a taken name is NameConflictError (Docker 409); a missing image is a 404', async () => {
    const e = engineWith();
    await e.createContainer('k8s_a_web', app('a', 'always'));
    await assert.rejects(e.createContainer('k8s_a_web', app('a', 'always')), NameConflictError);
    await assert.rejects(e.createContainer('k8s_b_web', { Image: 'nginx:1' }), (err: unknown) => err instanceof EngineRequestError && err.statusCode === 404);
    // Docker's name pattern wants two characters at least: a one-letter name is a 400.
    await assert.rejects(e.createContainer('a', { Image: image }), (err: unknown) => err instanceof EngineRequestError && err.statusCode === 400);
  });

  it('listContainers filters by every "key" and "key=value"', async () => {
    const e = engineWith();
    const a = await e.createContainer('ctr-a', { Image: image, Labels: podLabels('a') });
    await e.createContainer('ctr-b', { Image: image, Labels: podLabels('b', 'uid-2') });
    await e.createContainer('ctr-c', { Image: image });
    assert.deepEqual(
      (await e.listContainers([...podSelector('default', 'web'), `${Label.podUid}=uid-1`])).map((c) => c.id),
      [a],
    );
    assert.equal((await e.listContainers([Label.podUid])).length, 2);
    assert.equal((await e.listContainers([])).length, 3);
    const [summary] = await e.listContainers([`${Label.containerName}=a`]);
    assert.deepEqual({ name: summary?.name, state: summary?.state }, { name: 'ctr-a', state: 'created' });
  });

  it('start: running with the clock as StartedAt and an IP; a second start is a no-op (304)', async () => {
    let t = Date.parse('2024-05-01T10:00:00Z');
    const e = engineWith({ now: () => t });
    const id = await e.createContainer('ctr-a', app('a', 'always'));
    await e.startContainer(id);
    t += 5000;
    await e.startContainer(id);
    const info = e.peek(id);
    assert.equal(info?.State.Status, 'running');
    assert.equal(info?.State.StartedAt, '2024-05-01T10:00:00.000Z');
    assert.match(info?.NetworkSettings.Networks.bridge?.IPAddress ?? '', /^172\.17\.0\.\d+$/);
    assert.deepEqual(actions(e, id), ['create', 'start']);
    await e.stopContainer(id, 0);
    assert.equal(e.peek(id)?.NetworkSettings.Networks.bridge?.IPAddress, '', 'the address goes with the process');
  });

  it('joining the network of a container that is not running: 409, the container stays created with Error and exit code 128', async () => {
    const e = engineWith();
    const infra = await e.createContainer('infra', { Image: 'pause:test' });
    const id = await e.createContainer('ctr-a', app('a', 'always', { HostConfig: { NetworkMode: `container:${infra}` } }));
    await assert.rejects(e.startContainer(id), (err: unknown) => {
      assert.ok(err instanceof EngineRequestError);
      assert.equal(err.statusCode, 409);
      assert.equal(err.message, `cannot join network of a non running container: ${infra}`);
      return true;
    });
    const info = e.peek(id);
    assert.equal(info?.State.Status, 'created');
    assert.equal(info?.State.ExitCode, 128);
    assert.equal(info?.State.Error, `cannot join network of a non running container: ${infra}`);
    assert.deepEqual(info?.NetworkSettings.Networks, {});
    assert.deepEqual(actions(e, id), ['create']);
  });
});

describe('MemoryEngine: the restart manager', () => {
  it('a crash under always: die (exitCode), then restarted at once: RestartCount+1, a new StartedAt, event start', async () => {
    let t = 1_000_000;
    const e = engineWith({ now: () => t });
    const { app: id } = await pod(e);
    const first = e.peek(id)?.State.StartedAt;
    t += 60_000;
    e.crash(id, 2);
    const info = e.peek(id);
    assert.equal(info?.State.Status, 'running');
    assert.equal(info?.RestartCount, 1);
    assert.notEqual(info?.State.StartedAt, first);
    assert.equal(info?.State.ExitCode, 0, 'the engine resets ExitCode on the restart; only the die event keeps it');
    assert.deepEqual(actions(e, id), ['create', 'start', 'die', 'start']);
    assert.equal(e.eventsSent.find((ev) => ev.id === id && ev.action === 'die')?.labels.exitCode, '2');
  });

  it('with restartDelayMs: "restarting" (Running, RestartCount already raised, the exit code kept) until the timer fires', async () => {
    const e = engineWith({ restartDelayMs: 5 });
    const { app: id } = await pod(e);
    e.crash(id, 137, { oom: true });
    let info = e.peek(id);
    assert.equal(info?.State.Status, 'restarting');
    assert.equal(info?.State.Running, true);
    assert.equal(info?.State.ExitCode, 137);
    assert.equal(info?.State.OOMKilled, true);
    assert.equal(info?.RestartCount, 1);
    assert.deepEqual(actions(e, id).slice(2), ['oom', 'die']);
    await new Promise((r) => setTimeout(r, 20));
    info = e.peek(id);
    assert.equal(info?.State.Status, 'running');
    assert.equal(info?.RestartCount, 1);
    assert.deepEqual(actions(e, id).slice(2), ['oom', 'die', 'start']);
  });

  it('a restart held back by a long delay happens on runPendingRestarts()', async () => {
    const e = engineWith({ restartDelayMs: 60_000 });
    const { app: id } = await pod(e);
    e.crash(id, 1);
    assert.equal(e.peek(id)?.State.Status, 'restarting');
    assert.equal(e.runPendingRestarts(), 1);
    assert.equal(e.peek(id)?.State.Status, 'running');
  });

  it('on-failure restarts a non-zero exit only; no never restarts', async () => {
    const e = engineWith();
    const onFailure = await e.createContainer('of', app('of', 'on-failure'));
    const never = await e.createContainer('no', app('no', 'no'));
    await e.startContainer(onFailure);
    await e.startContainer(never);
    e.crash(onFailure, 1);
    assert.equal(e.peek(onFailure)?.RestartCount, 1);
    e.exitNow(onFailure, 0);
    assert.equal(e.peek(onFailure)?.State.Status, 'exited');
    assert.equal(e.peek(onFailure)?.State.ExitCode, 0);
    e.crash(never, 3);
    assert.equal(e.peek(never)?.State.Status, 'exited');
    assert.equal(e.peek(never)?.State.ExitCode, 3);
    assert.equal(e.peek(never)?.RestartCount, 0);
  });

  it("a restart that cannot join the infra container's network leaves the container exited for good, with Error", async () => {
    const e = engineWith();
    const { infra, app: id } = await pod(e);
    await e.stopContainer(infra, 0);
    e.crash(id, 1);
    const info = e.peek(id);
    assert.equal(info?.State.Status, 'exited');
    assert.equal(info?.State.ExitCode, 1);
    assert.equal(info?.RestartCount, 1);
    assert.equal(info?.State.Error, `cannot join network of a non running container: ${infra}`);
    assert.deepEqual(actions(e, id).slice(2), ['die']);
  });

  it('an API start resets RestartCount to 0 (daemon/start.go ResetRestartManager(true))', async () => {
    const e = engineWith();
    const { app: id } = await pod(e, 'on-failure');
    e.crash(id, 1);
    e.exitNow(id, 0);
    assert.equal(e.peek(id)?.RestartCount, 1);
    await e.startContainer(id);
    assert.equal(e.peek(id)?.RestartCount, 0);
  });

  it('killForRestart: die 137 and the policy restarts the same instance (RestartCount+1), "signalled"', async () => {
    const e = engineWith();
    const { app: id } = await pod(e);
    assert.equal(await e.killForRestart(id, 0), 'signalled');
    assert.equal(e.peek(id)?.RestartCount, 1);
    assert.equal(e.peek(id)?.State.Status, 'running');
    assert.deepEqual(actions(e, id).slice(2), ['die', 'start']);
    assert.equal(e.eventsSent.filter((ev) => ev.id === id && ev.action === 'die').at(-1)?.labels.exitCode, '137');
  });
});

describe('MemoryEngine: a manual stop does not restart', () => {
  it('stop with a grace period: kill (SIGTERM), kill (SIGKILL), die 137, stop; exited, and always leaves it so', async () => {
    const e = engineWith();
    const { app: id } = await pod(e);
    await e.stopContainer(id, 10);
    const info = e.peek(id);
    assert.equal(info?.State.Status, 'exited');
    assert.equal(info?.State.ExitCode, 137);
    assert.equal(info?.RestartCount, 0);
    assert.equal(info?.State.Pid, 0);
    assert.deepEqual(actions(e, id).slice(2), ['kill', 'kill', 'die', 'stop']);
    assert.deepEqual(
      e.eventsSent.filter((ev) => ev.id === id && ev.action === 'kill').map((ev) => ev.labels.signal),
      ['15', '9'],
    );
    // Stopping again, or a container that is gone: nothing to do, as DockerEngine answers 304 and 404.
    await e.stopContainer(id, 10);
    await e.stopContainer('no-such', 10);
  });

  it('a process that exits on its stop signal gives its own code; grace 0 is a SIGKILL (no stop event)', async () => {
    const e = engineWith();
    const { infra, app: id } = await pod(e);
    e.exitOnStopSignal(id, 0);
    await e.stopContainer(id, 30);
    assert.equal(e.peek(id)?.State.ExitCode, 0);
    assert.equal(e.peek(id)?.State.Status, 'exited', 'unless-stopped and always alike: a manual stop is final');
    await e.stopContainer(infra, 0);
    assert.deepEqual(actions(e, infra).slice(1), ['start', 'kill', 'die']);
    assert.equal(e.peek(infra)?.State.Status, 'exited');
  });

  it('stopping a restarting container cancels its pending restart', async () => {
    const e = engineWith({ restartDelayMs: 60_000 });
    const { app: id } = await pod(e);
    e.crash(id, 1);
    await e.stopContainer(id, 10);
    assert.equal(e.runPendingRestarts(), 0);
    assert.equal(e.peek(id)?.State.Status, 'exited');
    assert.equal(e.peek(id)?.State.ExitCode, 1);
  });
});

describe('MemoryEngine: update and remove, as Docker answers them', () => {
  it("updateRestartPolicy: sets the policy (event update); missing is fine; dead or removing is Docker's 500", async () => {
    const e = engineWith();
    const { app: id } = await pod(e);
    await e.updateRestartPolicy(id, 'no');
    assert.equal(e.peek(id)?.HostConfig.RestartPolicy?.Name, 'no');
    assert.equal(actions(e, id).at(-1), 'update');
    e.crash(id, 1);
    assert.equal(e.peek(id)?.State.Status, 'exited', 'the new policy holds');
    await e.updateRestartPolicy('no-such', 'no');

    e.setState(id, { status: 'dead', restartPolicy: 'always', exitCode: 137 });
    for (const status of ['dead', 'removing'] as const) {
      e.setState(id, { status });
      await assert.rejects(e.updateRestartPolicy(id, 'no'), (err: unknown) => {
        assert.ok(err instanceof EngineRequestError);
        assert.equal(err.statusCode, 500);
        assert.equal(err.message, `Cannot update container ${id}: container is marked for removal and cannot be "update"`);
        return true;
      });
    }
    assert.equal(e.callCount('updateRestartPolicy', id), 3);
  });

  it('setState builds "an app instance exited 137 that still has restart policy always, the infra running"', async () => {
    const e = engineWith();
    const { infra, app: id } = await pod(e);
    e.setState(id, { status: 'exited', exitCode: 137, finishedAt: '2024-05-01T10:00:00Z' });
    const info = await e.inspectContainer(id);
    assert.deepEqual(
      { status: info?.State.Status, exit: info?.State.ExitCode, policy: info?.HostConfig.RestartPolicy?.Name, finished: info?.State.FinishedAt, running: info?.State.Running },
      { status: 'exited', exit: 137, policy: 'always', finished: '2024-05-01T10:00:00Z', running: false },
    );
    assert.equal(e.peek(infra)?.State.Status, 'running');
  });

  it('remove: a running container needs force (409); force kills then destroys; missing resolves', async () => {
    const e = engineWith();
    const { app: id } = await pod(e);
    await assert.rejects(
      e.removeContainer(id),
      (err: unknown) => err instanceof EngineRequestError && err.statusCode === 409 && /You cannot remove a running container/.test(err.message),
    );
    await e.removeContainer(id, { force: true });
    assert.equal(await e.inspectContainer(id), undefined);
    assert.deepEqual(actions(e, id).slice(2), ['kill', 'die', 'destroy']);
    await e.removeContainer(id, { force: true });
    // The name is free again.
    await e.createContainer('k8s_a_web', app('a', 'always'));
  });

  it('refuseRemoval: a 500 and the container left dead, until allowRemoval', async () => {
    const e = engineWith();
    const { app: id } = await pod(e);
    e.refuseRemoval(id, 'unable to remove filesystem');
    await assert.rejects(
      e.removeContainer(id, { force: true }),
      (err: unknown) => err instanceof EngineRequestError && err.statusCode === 500 && err.message === 'unable to remove filesystem',
    );
    assert.equal(e.peek(id)?.State.Status, 'dead');
    assert.equal(e.peek(id)?.State.Dead, true);
    await assert.rejects(e.startContainer(id), /marked for removal/);
    await assert.rejects(e.updateRestartPolicy(id, 'no'), /marked for removal/);
    await assert.rejects(e.removeContainer(id), EngineRequestError);
    e.allowRemoval(id);
    await e.removeContainer(id);
    assert.equal(e.peek(id), undefined);
  });
});

describe('MemoryEngine: scripted faults', () => {
  it('failNext: the next call(s) throw, then the engine answers again; the error can be made from the arguments', async () => {
    const e = engineWith();
    const id = await e.createContainer('ctr-a', app('a', 'always'));
    e.failNext('startContainer', new EngineRequestError('port is already allocated', 500));
    await assert.rejects(e.startContainer(id), /port is already allocated/);
    assert.equal(e.peek(id)?.State.Status, 'created', 'a failed call changes nothing');
    await e.startContainer(id);
    e.failNext('inspectContainer', (ref) => new Error(`boom ${ref}`), 2);
    await assert.rejects(e.inspectContainer(id), new RegExp(`boom ${id}`));
    await assert.rejects(e.inspectContainer(id), /boom/);
    assert.ok(await e.inspectContainer(id));
    assert.equal(e.callCount('startContainer'), 2);
    assert.equal(e.callCount('inspectContainer', id), 3);
  });

  it('onCall: code runs in the middle of a call (the container crashes between observe and apply), or replaces it', async () => {
    const e = engineWith();
    const { app: id } = await pod(e, 'no');
    const remove = e.onCall('updateRestartPolicy', async (args, next) => {
      e.crash(args[0], 9);
      return next(...args);
    });
    await e.updateRestartPolicy(id, 'no');
    remove();
    assert.equal(e.peek(id)?.State.Status, 'exited');
    assert.deepEqual(actions(e, id).slice(2), ['die', 'update']);

    e.onCall('inspectImage', async () => undefined);
    assert.equal(await e.inspectImage(image), undefined);
  });

  it('goDown: every call throws EngineUnreachableError, subscriptions end through onError; comeBack restores service', async () => {
    const e = engineWith();
    const { app: id } = await pod(e);
    const errors: Error[] = [];
    await e.subscribeEvents(
      [managedSelector],
      () => undefined,
      (err) => errors.push(err),
    );
    e.goDown();
    const calls = [
      () => e.ping(),
      () => e.inspectContainer(id),
      () => e.listContainers([]),
      () => e.stopContainer(id, 0),
      () =>
        e.subscribeEvents(
          [],
          () => undefined,
          () => undefined,
        ),
    ];
    for (const call of calls) {
      await assert.rejects(call(), (err: unknown) => err instanceof EngineUnreachableError && err.address === 'memory://test' && err.reason === 'connect ECONNREFUSED');
    }
    await e.flushEvents();
    assert.equal(errors.length, 1);
    // The containers go on without the API: a crash while it is down is seen once it is back.
    e.crash(id, 1);
    e.comeBack();
    assert.equal((await e.inspectContainer(id))?.RestartCount, 1);
    assert.equal((await e.ping()).version, '20.10.24');
  });
});

describe('MemoryEngine: events', () => {
  it("filtered by label, delivered asynchronously, with the container's labels, name, image and exitCode as Docker's attributes", async () => {
    const e = engineWith();
    const got: EngineEvent[] = [];
    await e.subscribeEvents(
      [managedSelector, `${Label.podUid}=uid-1`],
      (ev) => got.push(ev),
      () => assert.fail('no error'),
    );
    const mine = await e.createContainer('mine', app('a', 'no'));
    await e.createContainer('other', { Image: image, Labels: podLabels('a', 'uid-2') });
    await e.startContainer(mine);
    e.crash(mine, 3);
    assert.equal(got.length, 0, 'nothing is delivered within the call that caused it');
    await e.flushEvents();
    assert.deepEqual(
      got.map((ev) => ev.action),
      ['create', 'start', 'die'],
    );
    const die = got[2]!;
    assert.equal(die.type, 'container');
    assert.equal(die.id, mine);
    assert.equal(die.labels.exitCode, '3');
    assert.equal(die.labels.name, 'mine');
    assert.equal(die.labels.image, image);
    assert.equal(die.labels[Label.podUid], 'uid-1');
    assert.ok(die.timeNano > 0);
    assert.equal(e.eventsSent.length, 4, "the other pod's create was sent, to no one");
  });

  it('a closed subscription receives nothing, not even events already on their way', async () => {
    const e = engineWith();
    const got: string[] = [];
    const sub = await e.subscribeEvents(
      [],
      (ev) => got.push(ev.action),
      () => assert.fail('no error after close'),
    );
    await e.createContainer('ctr-a', { Image: image });
    sub.close();
    await e.createContainer('ctr-b', { Image: image });
    e.goDown();
    await e.flushEvents();
    assert.deepEqual(got, []);
  });
});

describe('MemoryEngine: images, volumes, exec', () => {
  it('pull fails as with no registry unless allowed; import adds the image', async () => {
    const e = engineWith();
    assert.equal(await e.inspectImage('nginx:1'), undefined);
    await assert.rejects(e.pullImage('nginx:1', undefined), (err: unknown) => err instanceof EngineRequestError && /no such host/.test(err.message));
    e.allowPull('nginx:1', { user: '101' });
    const progress: string[] = [];
    await e.pullImage('nginx:1', { serveraddress: 'docker.io', username: 'u' }, (p) => progress.push(p.status));
    assert.ok(progress.length > 0);
    assert.deepEqual(await e.inspectImage('docker.io/library/nginx:1').then((i) => i?.user), '101');
    assert.equal(e.pulls.length, 2);
    await e.importImage(Buffer.alloc(512), 'runpod/pause:abc', ['ENTRYPOINT ["/pause"]', 'USER 65535']);
    assert.equal((await e.inspectImage('runpod/pause:abc'))?.user, '65535');
  });

  it('volumes: create returns the existing one as is; a volume in use is not removed; missing removal is fine', async () => {
    const e = engineWith();
    const v = await e.createVolume('vol1', { labels: { [Label.managedBy]: 'runpod' } });
    assert.equal(v.mountpoint, '/memory/volumes/vol1/_data');
    assert.deepEqual((await e.createVolume('vol1', { labels: { other: 'x' } })).labels, { [Label.managedBy]: 'runpod' });
    assert.deepEqual(
      (await e.listVolumes([managedSelector])).map((x) => x.name),
      ['vol1'],
    );
    const id = await e.createContainer('ctr-a', { Image: image, HostConfig: { Mounts: [{ Type: 'volume', Source: 'vol1', Target: '/data' }] } });
    assert.equal(e.peek(id)?.Mounts[0]?.Name, 'vol1');
    await assert.rejects(e.removeVolume('vol1'), (err: unknown) => err instanceof EngineRequestError && err.statusCode === 409);
    await e.removeContainer(id);
    await e.removeVolume('vol1');
    await e.removeVolume('vol1');
    assert.equal(await e.inspectVolume('vol1'), undefined);
  });

  it('putArchive records what went in; exec runs the scripted handler and times out when it hangs', async () => {
    const e = engineWith();
    const id = await e.createContainer('ctr-a', { Image: image });
    await e.putArchive(id, '/v', Buffer.alloc(1024));
    assert.deepEqual(e.archivesOf(id), [{ path: '/v', bytes: 1024 }]);
    await assert.rejects(e.execCapture(id, ['true'], 1000), (err: unknown) => err instanceof EngineRequestError && err.statusCode === 409);
    await e.startContainer(id);
    assert.deepEqual(await e.execCapture(id, ['true'], 1000), { exitCode: 0, output: '', timedOut: false });
    e.setExecHandler(({ cmd }) => (cmd[0] === 'hang' ? new Promise(() => undefined) : { exitCode: 3, output: 'no\n' }));
    assert.deepEqual(await e.execCapture(id, ['check'], 1000), { exitCode: 3, output: 'no\n', timedOut: false });
    assert.equal((await e.execCapture(id, ['hang'], 5)).timedOut, true);
  });
});
