// The controllers' order of work (workloads/rollout.ts, runWorkload.ts), driven by a stand-in for the engine that
// records every pod there at each moment: a rolling update never has more than replicas + maxSurge pods, never
// fewer than replicas - maxUnavailable available; a StatefulSet comes up in order and goes highest first.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expandWorkload, resolveFenceposts, type WorkloadPlan } from '../../../src/workloads/expand.js';
import { generatedPodName, podTemplateHash } from '../../../src/workloads/names.js';
import { runWorkload } from '../../../src/agent/runWorkload.js';
import type { PodOutcome } from '../../../src/wait/runOnce.js';

const template = (image: string, labels: Record<string, string> = { app: 'web' }) => ({ metadata: { labels }, spec: { containers: [{ name: 'main', image }] } });
const deployment = (replicas: number, image: string, strategy: Record<string, unknown> = {}) =>
  expandWorkload('Deployment', { metadata: { name: 'web' }, spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: template(image), strategy } }, 'default');

/** The engine's pods by name: the image each runs and whether it is ready. */
class Stage {
  readonly pods = new Map<string, { image: string; ready: boolean }>();
  readonly log: string[] = [];
  maxPods = 0;
  minAvailable = Number.POSITIVE_INFINITY;
  constructor(private readonly plan: WorkloadPlan) {}
  private measure(): void {
    this.maxPods = Math.max(this.maxPods, this.pods.size);
    this.minAvailable = Math.min(this.minAvailable, [...this.pods.values()].filter((p) => p.ready).length);
  }
  run(desiredImage: string) {
    return runWorkload(this.plan, {
      existing: async () =>
        [...this.pods.keys()].map((name) => ({
          name,
          outdated: this.pods.get(name)!.image !== desiredImage,
          ...(/-(\d+)$/.test(name) ? { ordinal: Number(/-(\d+)$/.exec(name)![1]) } : {}),
        })),
      sync: async (names) => {
        // A pod comes up not ready, then becomes ready: both moments are measured.
        for (const n of names) this.pods.set(n, { image: desiredImage, ready: false });
        this.measure();
        for (const n of names) this.pods.get(n)!.ready = true;
        this.log.push(`up ${names.join(' ')}`);
        return names.map((n) => ({ status: 'succeeded', reason: 'ready', plan: { key: `default/${n}` } }) as unknown as PodOutcome);
      },
      remove: async (names) => {
        for (const n of names) this.pods.delete(n);
        this.log.push(`down ${names.join(' ')}`);
        this.measure();
      },
      sleep: async () => true,
      now: () => 0,
      info: () => undefined,
    });
  }
}

describe('Deployment: names, surge and unavailability', () => {
  it('pods are <deployment>-<pod-template-hash>-<suffix>, stable, labelled with the hash', () => {
    const a = deployment(3, 'nginx:1.14.2');
    const b = deployment(3, 'nginx:1.14.2');
    assert.deepEqual(
      a.pods.map((p) => p.name),
      b.pods.map((p) => p.name),
    );
    assert.match(a.pods[0]!.name, /^web-[bcdfghjklmnpqrstvwxz2456789]{1,10}-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.equal(a.revision, podTemplateHash(template('nginx:1.14.2')));
    assert.equal((a.pods[0]!.value.metadata as { labels: Record<string, string> }).labels['pod-template-hash'], a.revision);
    assert.notEqual(deployment(3, 'nginx:1.16.1').revision, a.revision, 'a new template, a new hash');
    assert.equal(a.pods[1]!.name, generatedPodName(`web-${a.revision}`, 1));
  });
  it('maxSurge rounds up, maxUnavailable down; both zero makes maxUnavailable 1 (ResolveFenceposts)', () => {
    assert.deepEqual(resolveFenceposts(undefined, undefined, 3, ['25%', '25%']), { maxSurge: 1, maxUnavailable: 0 });
    assert.deepEqual(resolveFenceposts(undefined, undefined, 10, ['25%', '25%']), { maxSurge: 3, maxUnavailable: 2 });
    assert.deepEqual(resolveFenceposts(0, '0%', 4, ['25%', '25%']), { maxSurge: 0, maxUnavailable: 1 });
    assert.deepEqual(resolveFenceposts(2, 1, 4, ['25%', '25%']), { maxSurge: 2, maxUnavailable: 1 });
  });
  const cases: [string, Record<string, unknown>, number, number][] = [
    ['the defaults (25%/25% of 4: surge 1, unavailable 1)', {}, 5, 3],
    ['maxSurge 1, maxUnavailable 0: one new ready before each old goes', { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } }, 5, 4],
    ['maxSurge 0, maxUnavailable 1: one old goes before each new', { rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } }, 4, 3],
    ['maxSurge 100%: all new first', { rollingUpdate: { maxSurge: '100%', maxUnavailable: 0 } }, 8, 4],
  ];
  for (const [title, strategy, maxPods, minAvailable] of cases) {
    it(`a template change rolls within bounds: ${title}`, async () => {
      const first = new Stage(deployment(4, 'v1', strategy));
      assert.equal((await first.run('v1')).status, 'succeeded');
      assert.equal(first.pods.size, 4);
      const next = deployment(4, 'v2', strategy);
      const stage = new Stage(next);
      for (const [k, v] of first.pods) stage.pods.set(k, { ...v });
      stage.minAvailable = 4;
      const out = await stage.run('v2');
      assert.equal(out.status, 'succeeded', out.reason);
      assert.deepEqual([...stage.pods.keys()].sort(), next.pods.map((p) => p.name).sort(), 'only the new pods are left');
      assert.ok([...stage.pods.values()].every((p) => p.image === 'v2'));
      assert.ok(stage.maxPods <= maxPods, `at most ${maxPods} pods at once, saw ${stage.maxPods}: ${stage.log.join('; ')}`);
      assert.ok(stage.minAvailable >= minAvailable, `at least ${minAvailable} available, saw ${stage.minAvailable}: ${stage.log.join('; ')}`);
    });
  }
  it('Recreate: every old pod goes before a new one comes', async () => {
    const stage = new Stage(deployment(2, 'v2', { type: 'Recreate' }));
    for (const p of deployment(2, 'v1', { type: 'Recreate' }).pods) stage.pods.set(p.name, { image: 'v1', ready: true });
    await stage.run('v2');
    assert.deepEqual(
      stage.log.map((l) => l.split(' ')[0]),
      ['down', 'up'],
    );
  });
  it('a scale-down removes the pods beyond replicas once the rest are ready; a re-run changes nothing', async () => {
    const stage = new Stage(deployment(3, 'v1'));
    for (const p of deployment(5, 'v1').pods) stage.pods.set(p.name, { image: 'v1', ready: true });
    await stage.run('v1');
    assert.deepEqual(
      [...stage.pods.keys()].sort(),
      deployment(3, 'v1')
        .pods.map((p) => p.name)
        .sort(),
    );
    stage.log.length = 0;
    await stage.run('v1');
    assert.deepEqual(
      stage.log.filter((l) => l.startsWith('down')),
      [],
    );
  });
});

describe('StatefulSet: ordinals, order, partition', () => {
  const sts = (replicas: number, image: string, spec: Record<string, unknown> = {}) =>
    expandWorkload(
      'StatefulSet',
      {
        metadata: { name: 'db' },
        spec: {
          replicas,
          serviceName: 'db',
          selector: { matchLabels: { app: 'db' } },
          template: template(image, { app: 'db' }),
          volumeClaimTemplates: [{ metadata: { name: 'data' } }],
          ...spec,
        },
      },
      'default',
    );
  it('pods <name>-<ordinal> with hostname, subdomain, index labels and a claim per ordinal', () => {
    const plan = sts(2, 'v1');
    assert.deepEqual(
      plan.pods.map((p) => p.name),
      ['db-0', 'db-1'],
    );
    const pod = plan.pods[1]!.value as { metadata: { labels: Record<string, string> }; spec: { hostname: string; subdomain: string; volumes: unknown[] } };
    assert.equal(pod.spec.hostname, 'db-1');
    assert.equal(pod.spec.subdomain, 'db');
    assert.deepEqual(pod.metadata.labels, { app: 'db', 'statefulset.kubernetes.io/pod-name': 'db-1', 'apps.kubernetes.io/pod-index': '1' });
    assert.deepEqual(pod.spec.volumes, [{ name: 'data', persistentVolumeClaim: { claimName: 'data-db-1' } }]);
    assert.deepEqual(
      sts(1, 'v1', { ordinals: { start: 5 } }).pods.map((p) => p.name),
      ['db-5'],
    );
  });
  it('OrderedReady: up one at a time in ordinal order; scale-down highest first, one at a time', async () => {
    const stage = new Stage(sts(3, 'v1'));
    await stage.run('v1');
    assert.deepEqual(stage.log, ['up db-0', 'up db-1', 'up db-2']);
    const down = new Stage(sts(1, 'v1'));
    for (const n of ['db-0', 'db-1', 'db-2']) down.pods.set(n, { image: 'v1', ready: true });
    await down.run('v1');
    assert.deepEqual(down.log, ['up db-0', 'down db-2', 'down db-1']);
  });
  it('RollingUpdate: highest ordinal first, one at a time, not below the partition; OnDelete leaves them', async () => {
    const stage = new Stage(sts(3, 'v2', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } } }));
    for (const n of ['db-0', 'db-1', 'db-2']) stage.pods.set(n, { image: 'v1', ready: true });
    const out = await stage.run('v2');
    assert.deepEqual(stage.log, ['up db-2', 'up db-1']);
    assert.deepEqual(out.leftAlone, ['db-0']);
    const onDelete = new Stage(sts(2, 'v2', { updateStrategy: { type: 'OnDelete' } }));
    for (const n of ['db-0', 'db-1']) onDelete.pods.set(n, { image: 'v1', ready: true });
    assert.deepEqual((await onDelete.run('v2')).leftAlone, ['db-0', 'db-1']);
    assert.deepEqual(onDelete.log, []);
  });
  it('Parallel: all at once', async () => {
    const stage = new Stage(sts(3, 'v1', { podManagementPolicy: 'Parallel' }));
    await stage.run('v1');
    assert.deepEqual(stage.log, ['up db-0 db-1 db-2']);
  });
});
