// Admission (plan/admission.ts), table-driven: the kubelet's effective pod requests with init containers and
// sidecars, and the NodeResourcesFit rule against the host, in the input's order.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LoadedPod } from '../../../src/manifest/types.js';
import { translatePod } from '../../../src/plan/translate.js';
import { admitPods, memoryQuantity, podRequests } from '../../../src/plan/admission.js';
import type { Resources } from '../../../src/plan/types.js';

const r = (cpu: number, mem = 0): { requests: Resources } => ({ requests: { milliCpu: cpu, memoryBytes: mem } });
const Gi = 2 ** 30;

describe('podRequests (Kubernetes PodRequests, init containers and sidecars)', () => {
  const cases: { title: string; init: ({ initKind?: 'init' | 'sidecar' } & { requests: Resources })[]; apps: { requests: Resources }[]; want: Resources }[] = [
    { title: 'app containers add up', init: [], apps: [r(100, Gi), r(250, Gi)], want: { milliCpu: 350, memoryBytes: 2 * Gi } },
    {
      title: 'a larger init container wins over the apps (it runs alone)',
      init: [{ initKind: 'init', ...r(2000) }],
      apps: [r(100), r(100)],
      want: { milliCpu: 2000, memoryBytes: 0 },
    },
    { title: 'a smaller init container is hidden by the apps', init: [{ initKind: 'init', ...r(100) }], apps: [r(500)], want: { milliCpu: 500, memoryBytes: 0 } },
    { title: 'a sidecar adds to the apps', init: [{ initKind: 'sidecar', ...r(200) }], apps: [r(500)], want: { milliCpu: 700, memoryBytes: 0 } },
    {
      title: 'an init container after a sidecar runs beside it; one before does not',
      init: [
        { initKind: 'init', ...r(900) },
        { initKind: 'sidecar', ...r(200) },
        { initKind: 'init', ...r(800) },
      ],
      apps: [r(100)],
      want: { milliCpu: 1000, memoryBytes: 0 },
    },
    { title: 'each resource on its own', init: [{ initKind: 'init', ...r(0, 4 * Gi) }], apps: [r(300, Gi)], want: { milliCpu: 300, memoryBytes: 4 * Gi } },
  ];
  for (const t of cases) it(t.title, () => assert.deepEqual(podRequests(t.init, t.apps), t.want));
});

function plan(name: string, cpu?: string, memory?: string, project?: string) {
  const requests = { ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) };
  const loaded = {
    pod: { metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'a', image: 'busybox:1', resources: { requests } }] } },
    source: { file: '<stdin>' },
    line: 1,
  } as unknown as LoadedPod;
  return translatePod(loaded, { infraImage: 'pause:test', ...(project !== undefined ? { project } : {}) });
}

describe("admitPods (the kubelet's NodeResourcesFit, OutOfcpu / OutOfmemory)", () => {
  const host = { cpus: 2, memoryBytes: 8 * Gi };
  it('a pod that requests more CPU than the host has is refused with the numbers', () => {
    const refused = admitPods([plan('big', '100')], { capacity: host, running: new Map([['default/other', { milliCpu: 500, memoryBytes: 0 }]]) });
    assert.equal(refused.get('default/big'), 'OutOfcpu: requests 100 CPUs, the engine has 2 CPUs, 0.5 already requested');
  });
  it('memory likewise', () => {
    const refused = admitPods([plan('mem', undefined, '1000Gi')], { capacity: host, running: new Map() });
    assert.equal(refused.get('default/mem'), 'OutOfmemory: requests 1000Gi of memory, the engine has 8Gi, 0 already requested');
  });
  it('two pods that fit alone but not together: the second in the input is refused, the first admitted', () => {
    const refused = admitPods([plan('one', '1500m'), plan('two', '1')], { capacity: host, running: new Map() });
    assert.deepEqual([...refused.keys()], ['default/two']);
    assert.match(refused.get('default/two')!, /already requested$/);
    assert.match(refused.get('default/two')!, /, 1.5 already requested$/);
  });
  it('a pod already on the engine was admitted before: it only counts, and is not refused again', () => {
    const one = plan('one', '1500m');
    const refused = admitPods([one, plan('two', '1')], { capacity: host, running: new Map([[one.uid, { milliCpu: 1500, memoryBytes: 0 }]]) });
    assert.deepEqual([...refused.keys()], ['default/two']);
  });
  it('the same pod name under another isolation key is another pod: it is admitted on its own requests', () => {
    const mine = plan('db', '3', undefined, 'b');
    const theirs = plan('db', '3', undefined, 'a');
    const refused = admitPods([mine], { capacity: { cpus: 4, memoryBytes: 8 * Gi }, running: new Map([[theirs.uid, { milliCpu: 3000, memoryBytes: 0 }]]) });
    assert.deepEqual([...refused.keys()], ['default/db'], "not taken for the other key's pod, which already holds 3 CPUs");
  });
  it('a pod that requests nothing always fits, even on a full host; limits are not admission', () => {
    const full = new Map([['default/x', { milliCpu: 5000, memoryBytes: 100 * Gi }]]);
    assert.equal(admitPods([plan('free')], { capacity: host, running: full }).size, 0);
  });
  it('exactly the capacity fits', () => {
    assert.equal(admitPods([plan('all', '2', '8Gi')], { capacity: host, running: new Map() }).size, 0);
  });
  it("the plan carries each container's requests and labels them for the next run's count", () => {
    const p = plan('lab', '250m', '64Mi');
    assert.deepEqual(p.requests, { milliCpu: 250, memoryBytes: 64 * 2 ** 20 });
    assert.equal(p.containers[0]!.create.Labels?.['io.runpod.requests.cpu'], '250');
    assert.equal(p.containers[0]!.create.Labels?.['io.runpod.requests.memory'], String(64 * 2 ** 20));
  });
  it('formats bytes as Kubernetes writes them', () => {
    assert.deepEqual([memoryQuantity(512), memoryQuantity(1536), memoryQuantity(64 * 2 ** 20), memoryQuantity(23.4 * Gi)], ['512', '1.5Ki', '64Mi', '23.4Gi']);
  });
});
