// The pure steps around probes: decide kills a container whose liveness probe failed (Kubernetes: "the kubelet
// kills the container, and the container is subjected to its restart policy"), and check reports, per
// container, the probe condition that is not met with the probe's last output.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LoadedPod } from '../../../src/manifest/types.js';
import { translatePod } from '../../../src/plan/translate.js';
import { allActions, decidePodActions } from '../../../src/reconcile/decide.js';
import { groupPod, type ObservedContainer } from '../../../src/reconcile/observe.js';
import { checkPod } from '../../../src/wait/check.js';
import type { ContainerProbeStatus } from '../../../src/wait/probes/manager.js';
import type { PodPlan } from '../../../src/plan/types.js';

function makePlan(): PodPlan {
  const loaded = {
    pod: {
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 0,
        containers: [
          { name: 'a', image: 'busybox:1', imagePullPolicy: 'IfNotPresent', readinessProbe: { tcpSocket: { port: 80 } }, startupProbe: { exec: { command: ['true'] } } },
          { name: 'b', image: 'busybox:1', imagePullPolicy: 'IfNotPresent' },
        ],
      },
    },
    source: { file: '<stdin>' },
    line: 1,
  } as LoadedPod;
  return translatePod(loaded, { infraImage: 'pause:test' });
}

function inst(plan: PodPlan, name: string, extra: Partial<ObservedContainer> = {}): ObservedContainer {
  const hash = name === 'POD' ? plan.hash : plan.containers.find((c) => c.name === name)!.hash;
  return {
    id: `${name}-id`,
    dockerName: `k8s_${name}`,
    name,
    attempt: 0,
    hash,
    podUid: plan.uid,
    state: 'running',
    exitCode: 0,
    oomKilled: false,
    error: '',
    startedAt: 1000,
    restartCount: 0,
    engineRestartPolicy: name === 'POD' ? 'unless-stopped' : 'always',
    image: 'busybox:1',
    imageId: 'x',
    ...extra,
  };
}

function status(o: Partial<ContainerProbeStatus>): ContainerProbeStatus {
  return { instanceId: 'a-id', startedAt: 1000, started: true, ready: true, results: {}, last: {}, ...o };
}

describe('liveness kill in decide', () => {
  const plan = makePlan();
  const observed = groupPod([inst(plan, 'POD'), inst(plan, 'a'), inst(plan, 'b')]);
  it('kills the running instance named by a failed liveness probe, with its grace period and reason', () => {
    const d = decidePodActions(plan, observed, new Map([['a-id', { reason: 'liveness probe failed: refused', gracePeriodSeconds: 7 }]]));
    assert.deepEqual(allActions(d), [{ kind: 'kill', container: 'a', id: 'a-id', gracePeriodSeconds: 7, reason: 'liveness probe failed: refused' }]);
  });
  it('does nothing without a failure, or for an instance that is no longer running', () => {
    assert.deepEqual(allActions(decidePodActions(plan, observed)), []);
    const restarting = groupPod([inst(plan, 'POD'), inst(plan, 'a', { state: 'restarting' }), inst(plan, 'b')]);
    assert.deepEqual(allActions(decidePodActions(plan, restarting, new Map([['a-id', { reason: 'x', gracePeriodSeconds: 0 }]]))), []);
  });
});

describe('probe conditions in check', () => {
  const plan = makePlan();
  const observed = groupPod([inst(plan, 'POD'), inst(plan, 'a'), inst(plan, 'b')]);
  const base = { plan, observed, previous: new Map(), createdThisRun: new Set<string>(), syncErrors: new Map(), lastExitCodes: new Map(), now: 10_000, settleMs: 100 };
  const rows: Array<{ name: string; mode: 'running' | 'ready'; status?: ContainerProbeStatus; ok: boolean; reason: RegExp }> = [
    { name: 'ready mode, probes not run yet', mode: 'ready', ok: false, reason: /its probes have not run yet/ },
    {
      name: 'ready mode, startup not passed',
      mode: 'ready',
      status: status({ started: false, ready: false, last: { startup: { ok: false, output: 'exit 1' } } }),
      ok: false,
      reason: /^not started: startup probe \(exec \[true\]\) failed: exit 1$/,
    },
    {
      name: 'ready mode, readiness failing',
      mode: 'ready',
      status: status({ ready: false, last: { readiness: { ok: false, output: 'ECONNREFUSED' } } }),
      ok: false,
      reason: /^not ready: readiness probe \(tcpSocket <pod>:80\) failed: ECONNREFUSED$/,
    },
    { name: 'ready mode, ready', mode: 'ready', status: status({}), ok: true, reason: /^ready$/ },
    { name: 'a status of an older start does not count', mode: 'ready', status: status({ startedAt: 500 }), ok: false, reason: /not run yet/ },
    { name: 'running mode ignores readiness', mode: 'running', status: status({ ready: false }), ok: true, reason: /^running$/ },
    {
      name: 'running mode, liveness failed: being restarted',
      mode: 'running',
      status: status({ kill: { kind: 'liveness', output: 'timeout', gracePeriodSeconds: 0 } }),
      ok: false,
      reason: /liveness probe \(\?\) failed: timeout; restarting it/,
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const probes = new Map(row.status ? [['a', row.status]] : []);
      const c = checkPod({ ...base, mode: row.mode, probes }).containers.find((v) => v.name === 'a')!;
      assert.equal(c.ok, row.ok, c.reason);
      assert.match(c.reason, row.reason);
    });
  }
});
