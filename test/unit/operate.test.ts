// Pure parts of the operating commands: stream framing, the kubelet's GC policy, pod phases, docker stats math.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FrameDemuxer } from '../../src/engine/demux.js';
import { LineSplitter } from '../../src/engine/ports/streams.js';
import { type GcContainer, type GcPolicy, planGc } from '../../src/reconcile/gcPolicy.js';
import { podPhase } from '../../src/reconcile/podSummary.js';
import type { ObservedContainer } from '../../src/reconcile/observe.js';
import { cpuPercent, memoryUsed } from '../../src/commands/stats.js';
import { formatAge } from '../../src/report/tables.js';

function frame(type: number, text: string): Buffer {
  const payload = Buffer.from(text);
  const h = Buffer.alloc(8);
  h[0] = type;
  h.writeUInt32BE(payload.length, 4);
  return Buffer.concat([h, payload]);
}

describe('FrameDemuxer: the Engine API stream framing, across any chunk boundary', () => {
  const stream = Buffer.concat([frame(1, 'out one\n'), frame(2, 'err one\n'), frame(1, 'out two\n'), frame(0, 'stdin echo\n'), frame(2, 'é\n')]);
  for (const size of [1, 3, 7, 8, 9, 13, stream.length]) {
    it(`chunks of ${size} bytes`, () => {
      const got = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
      const d = new FrameDemuxer((s, p) => got[s].push(Buffer.from(p)));
      for (let i = 0; i < stream.length; i += size) d.push(stream.subarray(i, i + size));
      assert.equal(Buffer.concat(got.stdout).toString(), 'out one\nout two\nstdin echo\n');
      assert.equal(Buffer.concat(got.stderr).toString(), 'err one\né\n');
      assert.equal(d.leftover, 0);
    });
  }
  it('a truncated frame is held back, not printed', () => {
    const d = new FrameDemuxer(() => assert.fail('no frame is complete'));
    d.push(frame(1, 'abcdef').subarray(0, 10));
    assert.equal(d.leftover, 10);
  });
});

describe('LineSplitter (--prefix)', () => {
  it('whole lines only; a multi-byte character split across chunks survives; the last line is flushed', () => {
    const lines: string[] = [];
    const s = new LineSplitter((l) => lines.push(l));
    const bytes = Buffer.from('ab\ncé\nlast');
    for (const b of bytes) s.push(Buffer.from([b]));
    s.flush();
    assert.deepEqual(lines, ['ab\n', 'cé\n', 'last\n']);
  });
});

const minute = 60_000;
const now = 100 * minute;
let seq = 0;
function ctr(p: Partial<GcContainer> & { podUid: string; container: string; attempt: number; state: string }): GcContainer {
  seq++;
  return {
    id: `id${seq}`,
    dockerName: `k8s_${p.container}_${p.podUid}_${p.attempt}`,
    namespace: 'default',
    pod: p.podUid,
    infra: p.container === 'POD',
    createdAt: now - (50 - p.attempt) * minute,
    ...p,
  };
}
const policy = (o: Partial<GcPolicy> = {}): GcPolicy => ({ minAgeMs: minute, maxPerContainer: 1, maxContainers: -1, ...o });
const ids = (plan: ReturnType<typeof planGc>): string[] => plan.containers.map((r) => r.item.dockerName);

describe("planGc: the kubelet's container GC policy", () => {
  const live = ctr({ podUid: 'a', container: 'POD', attempt: 0, state: 'running' });
  const dead = [0, 1, 2].map((attempt) => ctr({ podUid: 'a', container: 'web', attempt, state: 'exited' }));
  const running = ctr({ podUid: 'a', container: 'web', attempt: 3, state: 'running' });

  it('keeps the newest dead instance per container, removes the older ones oldest first, never the running one', () => {
    assert.deepEqual(ids(planGc([live, ...dead, running], [], policy(), now)), ['k8s_web_a_0', 'k8s_web_a_1']);
  });
  it('--max-per-container 0 removes every dead instance but still not the running one or the live sandbox', () => {
    assert.deepEqual(ids(planGc([live, ...dead, running], [], policy({ maxPerContainer: 0 }), now)), ['k8s_web_a_0', 'k8s_web_a_1', 'k8s_web_a_2']);
  });
  it('-1: no per-container limit', () => assert.deepEqual(ids(planGc([live, ...dead, running], [], policy({ maxPerContainer: -1 }), now)), []));
  it('--min-age leaves young dead containers (by creation, as the kubelet)', () => {
    const young = ctr({ podUid: 'a', container: 'web', attempt: 4, state: 'exited', createdAt: now - 10_000 });
    assert.deepEqual(ids(planGc([live, ...dead, young], [], policy({ maxPerContainer: 0 }), now)), ['k8s_web_a_0', 'k8s_web_a_1', 'k8s_web_a_2']);
  });
  it('--max-containers: an equal share per unit (at least one), then the oldest overall', () => {
    const other = [0, 1].map((attempt) => ctr({ podUid: 'a', container: 'side', attempt, state: 'exited', createdAt: now - (20 - attempt) * minute }));
    const plan = planGc([live, ...dead, ...other], [], policy({ maxPerContainer: -1, maxContainers: 1 }), now);
    // Share: max(1/2, 1) = 1 each -> web keeps 2, side keeps 1; then 2 > 1: the older (web 2) goes.
    assert.deepEqual(ids(plan), ['k8s_web_a_0', 'k8s_web_a_1', 'k8s_side_a_0', 'k8s_web_a_2']);
  });
  it('a pod with no live sandbox no longer exists: all its dead containers, its infra and its volumes go', () => {
    const gone = [ctr({ podUid: 'g', container: 'POD', attempt: 0, state: 'exited' }), ctr({ podUid: 'g', container: 'web', attempt: 0, state: 'exited' })];
    const plan = planGc([live, running, ...gone], [{ name: 'g-vol', podUid: 'g' }, { name: 'a-vol', podUid: 'a' }, { name: 'claim' }], policy(), now);
    assert.deepEqual(ids(plan), ['k8s_web_g_0', 'k8s_POD_g_0']);
    assert.deepEqual(
      plan.volumes.map((v) => v.item.name),
      ['g-vol'],
    );
  });
  it('a gone pod with a container still running keeps its infra and volumes', () => {
    const gone = [ctr({ podUid: 'g', container: 'POD', attempt: 0, state: 'exited' }), ctr({ podUid: 'g', container: 'web', attempt: 0, state: 'running' })];
    const plan = planGc(gone, [{ name: 'g-vol', podUid: 'g' }], policy(), now);
    assert.deepEqual(ids(plan), []);
    assert.deepEqual(plan.volumes, []);
  });
  it('an older dead infra container of a live pod goes', () => {
    const old = ctr({ podUid: 'a', container: 'POD', attempt: 0, state: 'exited', createdAt: now - 90 * minute });
    assert.deepEqual(ids(planGc([old, live, running], [], policy(), now)), ['k8s_POD_a_0']);
  });
  it('created and restarting containers are never candidates', () => {
    const c = [ctr({ podUid: 'g', container: 'web', attempt: 0, state: 'created' }), ctr({ podUid: 'g', container: 'web', attempt: 1, state: 'restarting' })];
    assert.deepEqual(ids(planGc(c, [], policy({ maxPerContainer: 0 }), now)), []);
  });
});

function obs(state: string, o: Partial<ObservedContainer> = {}): ObservedContainer {
  return {
    id: 'x',
    dockerName: 'x',
    name: 'c',
    attempt: 0,
    hash: '',
    podUid: 'u',
    state,
    exitCode: 0,
    oomKilled: false,
    error: '',
    restartCount: 0,
    engineRestartPolicy: 'always',
    image: 'i',
    imageId: 'i',
    ...o,
  };
}

describe('podPhase (Kubernetes pod phases from engine states)', () => {
  const infra = obs('running');
  const cases: [string, ObservedContainer | undefined, ObservedContainer[], string][] = [
    ['all running', infra, [obs('running'), obs('running')], 'Running'],
    ['one being restarted by the engine', infra, [obs('running'), obs('restarting')], 'Running'],
    ['all exited 0, policy no', infra, [obs('exited', { engineRestartPolicy: 'no' })], 'Succeeded'],
    ['one exited 1 under on-failure: the engine restarts it', infra, [obs('exited', { engineRestartPolicy: 'on-failure', exitCode: 1 }), obs('running')], 'Running'],
    ['one exited 1, policy no', infra, [obs('exited', { engineRestartPolicy: 'no', exitCode: 1 }), obs('exited', { engineRestartPolicy: 'no' })], 'Failed'],
    ['a container not started yet', infra, [obs('created'), obs('running')], 'Pending'],
    ['no sandbox', undefined, [obs('running')], 'Pending'],
    ['no containers yet', infra, [], 'Pending'],
  ];
  for (const [what, i, cs, want] of cases) it(what, () => assert.equal(podPhase(i, cs), want));
});

describe('docker stats arithmetic', () => {
  it('CPU %: container delta over system delta, times online CPUs', () => {
    assert.equal(cpuPercent({ read: '', cpu: { total: 300, system: 2000, onlineCpus: 4 }, precpu: { total: 100, system: 1000 }, memory: {}, blkio: [] }), 80);
    assert.equal(cpuPercent({ read: '', cpu: { total: 300, system: 1000, perCpu: 2 }, precpu: { total: 100, system: 1000 }, memory: {}, blkio: [] }), 0);
  });
  it('memory: usage without the inactive page cache', () => {
    assert.equal(memoryUsed({ read: '', cpu: { total: 0 }, precpu: { total: 0 }, memory: { usage: 1000, inactiveFile: 300 }, blkio: [] }), 700);
    assert.equal(memoryUsed({ read: '', cpu: { total: 0 }, precpu: { total: 0 }, memory: { usage: 100, inactiveFile: 300 }, blkio: [] }), 100);
  });
  it('ages as kubectl prints them', () => {
    assert.deepEqual([5_000, 119_000, 5 * minute, 125 * minute, 60 * minute, 50 * 60 * minute].map(formatAge), ['5s', '119s', '5m', '2h5m', '1h', '2d']);
  });
});
