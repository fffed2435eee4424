import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LoadedPod } from '../../../src/manifest/types.js';
import { translatePod } from '../../../src/plan/translate.js';
import { allActions, decidePodActions, syncActions, type Decision } from '../../../src/reconcile/decide.js';
import { groupPod, toObservedContainer, type ObservedContainer } from '../../../src/reconcile/observe.js';
import { checkPod, type WaitMode } from '../../../src/wait/check.js';
import type { PodPlan } from '../../../src/plan/types.js';
import type { Action } from '../../../src/reconcile/action.js';

/** A plan of pod "web" in "default" with the given spec, as translatePod makes it. */
function planOf(spec: LoadedPod['pod']['spec']): PodPlan {
  const loaded = { pod: { metadata: { name: 'web', namespace: 'default' }, spec }, source: { file: '<stdin>' }, line: 1 } as LoadedPod;
  return translatePod(loaded, { infraImage: 'pause:test' });
}

function makePlan(restartPolicy: 'Always' | 'OnFailure' | 'Never' = 'Always'): PodPlan {
  return planOf({
    restartPolicy,
    terminationGracePeriodSeconds: 30,
    containers: [
      { name: 'a', image: 'busybox:1', imagePullPolicy: 'IfNotPresent' },
      { name: 'b', image: 'busybox:1', imagePullPolicy: 'IfNotPresent' },
    ],
  });
}

let seq = 0;
function inst(plan: PodPlan, name: string, extra: Partial<ObservedContainer> = {}): ObservedContainer {
  const hash = name === 'POD' ? plan.hash : (plan.containers.find((c) => c.name === name)?.hash ?? 'not-in-plan');
  seq++;
  return {
    id: `${name}-${seq}`,
    dockerName: `k8s_${name}`,
    name,
    attempt: 0,
    hash,
    podUid: plan.uid,
    state: 'running',
    exitCode: 0,
    oomKilled: false,
    error: '',
    startedAt: 1_000,
    restartCount: 0,
    engineRestartPolicy: name === 'POD' ? 'unless-stopped' : 'always',
    image: 'busybox:1',
    imageId: 'sha256:x',
    ...extra,
  };
}

const kind = (a: Action): string => `${a.kind}${'container' in a ? `:${a.container}` : ''}${'attempt' in a ? `#${a.attempt}` : ''}`;
/** The sync's actions in apply's order, then housekeeping marked with ~ (it never blocks success). */
const kinds = (d: Decision): string[] => [...syncActions(d).map(kind), ...d.housekeeping.map((a) => `~${kind(a)}`)];

describe('decidePodActions (after the kubelet computePodActions)', () => {
  const plan = makePlan();
  const healthy = () => [inst(plan, 'POD'), inst(plan, 'a'), inst(plan, 'b')];

  const cases: { title: string; observed: () => ObservedContainer[]; want: string[]; plan?: PodPlan }[] = [
    { title: 'nothing exists: create the sandbox, then every container', observed: () => [], want: ['createInfra#0', 'create:a#0', 'create:b#0'] },
    { title: 'everything running and unchanged: nothing to do', observed: healthy, want: [] },
    {
      title: 'one container missing: create it alone',
      observed: () => [inst(plan, 'POD'), inst(plan, 'a')],
      want: ['create:b#0'],
    },
    {
      title: 'a changed container hash: replace it alone with the next attempt',
      observed: () => [inst(plan, 'POD'), inst(plan, 'a', { hash: 'old' }), inst(plan, 'b')],
      want: ['remove:a', 'create:a#1'],
    },
    {
      title: 'a changed pod hash: replace the whole pod',
      observed: () => [inst(plan, 'POD', { hash: 'old' }), inst(plan, 'a'), inst(plan, 'b')],
      want: ['remove:POD', 'remove:a', 'remove:b', 'createInfra#1', 'create:a#1', 'create:b#1'],
    },
    {
      title: 'infra exited: its namespaces are gone, replace the pod',
      observed: () => [inst(plan, 'POD', { state: 'exited' }), inst(plan, 'a'), inst(plan, 'b')],
      want: ['remove:POD', 'remove:a', 'remove:b', 'createInfra#1', 'create:a#1', 'create:b#1'],
    },
    {
      title: 'infra created but not started: start it',
      observed: () => [inst(plan, 'POD', { state: 'created' }), inst(plan, 'a', { state: 'created' }), inst(plan, 'b', { state: 'created' })],
      want: ['startInfra', 'start:a', 'start:b'],
    },
    {
      title: 'exited and not restarted by the engine under Always: a new instance, the dead one retired',
      observed: () => [inst(plan, 'POD'), inst(plan, 'a', { state: 'exited', exitCode: 137 }), inst(plan, 'b')],
      want: ['create:a#1', '~retire:a'],
    },
    {
      title: 'restarting (engine back-off): leave it to the engine',
      observed: () => [inst(plan, 'POD'), inst(plan, 'a', { state: 'restarting', restartCount: 3 }), inst(plan, 'b')],
      want: [],
    },
    {
      title: 'a container no longer in the manifest is removed',
      observed: () => [...healthy(), inst(plan, 'gone')],
      want: ['remove:gone'],
    },
    {
      title: 'a container started before the infra restarted is outside the pod namespaces: replace it',
      observed: () => [inst(plan, 'POD', { startedAt: 5_000 }), inst(plan, 'a', { startedAt: 1_000 }), inst(plan, 'b', { startedAt: 6_000 })],
      want: ['remove:a', 'create:a#1'],
    },
    {
      title: 'an older instance still running is removed; an older dead one is retired once',
      observed: () => [
        inst(plan, 'POD'),
        inst(plan, 'a', { attempt: 2 }),
        inst(plan, 'a', { attempt: 1, state: 'running' }),
        inst(plan, 'a', { attempt: 0, state: 'exited', engineRestartPolicy: 'always' }),
        inst(plan, 'b'),
      ],
      want: ['remove:a', '~retire:a'],
    },
  ];
  for (const t of cases) {
    it(t.title, () => {
      const d = decidePodActions(t.plan ?? plan, groupPod(t.observed()));
      assert.deepEqual(kinds(d), t.want);
      for (const a of allActions(d)) assert.ok(a.reason.length > 0, 'every action has a reason');
    });
  }

  const policyCases: ['Always' | 'OnFailure' | 'Never', number, string[]][] = [
    ['Never', 0, []],
    ['Never', 3, []],
    ['OnFailure', 0, []],
    ['OnFailure', 3, ['create:a#1', '~retire:a']],
  ];
  for (const [policy, code, want] of policyCases) {
    it(`exited ${code} under ${policy}: ${want.length ? 'restart' : 'leave it'}`, () => {
      const p = makePlan(policy);
      const obs = [inst(p, 'POD'), inst(p, 'a', { state: 'exited', exitCode: code, engineRestartPolicy: policy === 'Never' ? 'no' : 'on-failure' }), inst(p, 'b')];
      assert.deepEqual(kinds(decidePodActions(p, groupPod(obs))), want);
    });
  }
});

// Dead history (issue 11): only an exited instance can be retired (Docker refuses to update a dead or removing
// one), and housekeeping never stands between a pod and success.
describe('decidePodActions: older instances are housekeeping', () => {
  const plan = makePlan();
  const reasons = (d: Decision): string[] => allActions(d).map((a) => `${kind(a)} ${a.reason}`);

  it('the sync after a retire has nothing to do: the retired instance (policy no) stays as history', () => {
    const retired = inst(plan, 'a', { attempt: 0, state: 'exited', exitCode: 137, engineRestartPolicy: 'no' });
    const d = decidePodActions(plan, groupPod([inst(plan, 'POD'), inst(plan, 'a', { attempt: 1 }), retired, inst(plan, 'b')]));
    assert.deepEqual(allActions(d), []);
  });
  it('a retire decided now is housekeeping, with a reason naming the attempt; the sync itself is empty', () => {
    const old = inst(plan, 'a', { attempt: 0, state: 'exited', exitCode: 137, engineRestartPolicy: 'always' });
    const d = decidePodActions(plan, groupPod([inst(plan, 'POD'), inst(plan, 'a', { attempt: 1 }), old, inst(plan, 'b')]));
    assert.deepEqual(syncActions(d), []);
    assert.deepEqual(reasons(d), ['retire:a dead instance (attempt 0) kept for logs --previous']);
    assert.equal(d.housekeeping[0]!.kind === 'retire' && d.housekeeping[0]!.id, old.id);
  });
  it('a dead older instance is removed, not retired (the engine refuses to update it)', () => {
    const dead = inst(plan, 'a', { attempt: 0, state: 'dead', exitCode: 137, engineRestartPolicy: 'always' });
    const d = decidePodActions(plan, groupPod([inst(plan, 'POD'), inst(plan, 'a', { attempt: 1 }), dead, inst(plan, 'b')]));
    assert.deepEqual(syncActions(d), []);
    assert.deepEqual(reasons(d), ['remove:a an older instance (attempt 0) is dead (a removal the engine could not finish)']);
  });
  it('an older instance being removed is left to the engine', () => {
    const removing = inst(plan, 'a', { attempt: 0, state: 'removing', engineRestartPolicy: 'always' });
    assert.deepEqual(allActions(decidePodActions(plan, groupPod([inst(plan, 'POD'), inst(plan, 'a', { attempt: 1 }), removing, inst(plan, 'b')]))), []);
  });
  it("an older instance still running is the sync's business: two instances must not share the pod", () => {
    const d = decidePodActions(plan, groupPod([inst(plan, 'POD'), inst(plan, 'a', { attempt: 1 }), inst(plan, 'a', { attempt: 0 }), inst(plan, 'b')]));
    assert.deepEqual(
      syncActions(d).map((a) => `${kind(a)} ${a.reason}`),
      ['remove:a an older instance (attempt 0) is still running'],
    );
  });
  it('the newest instance dead: a new instance, and the dead one removed as housekeeping at the next sync', () => {
    const dead = inst(plan, 'a', { attempt: 0, state: 'dead', exitCode: 137 });
    const d = decidePodActions(plan, groupPod([inst(plan, 'POD'), dead, inst(plan, 'b')]));
    assert.deepEqual(reasons(d), ['create:a#1 its instance (attempt 0) is dead; restartPolicy Always']);
    const next = decidePodActions(plan, groupPod([inst(plan, 'POD'), inst(plan, 'a', { attempt: 1 }), dead, inst(plan, 'b')]));
    assert.deepEqual(kinds(next), ['~remove:a']);
  });
  it('an exited newest instance without a restart policy is replaced without a retire', () => {
    const d = decidePodActions(plan, groupPod([inst(plan, 'POD'), inst(plan, 'a', { state: 'exited', exitCode: 2, engineRestartPolicy: 'no' }), inst(plan, 'b')]));
    assert.deepEqual(reasons(d), ['create:a#1 it exited (code 2) and the engine will not restart it; restartPolicy Always']);
  });
  it("an empty engine restart policy reads as no (Docker's own reading), in one place", () => {
    const info = {
      Id: 'x',
      Name: '/k8s_a',
      Image: 'sha256:x',
      RestartCount: 0,
      Config: { Labels: {}, Image: 'busybox:1' },
      State: { Status: 'exited', ExitCode: 0, OOMKilled: false, StartedAt: '0001-01-01T00:00:00Z', FinishedAt: '0001-01-01T00:00:00Z' },
      HostConfig: { RestartPolicy: { Name: '', MaximumRetryCount: 0 } },
    } as unknown as Parameters<typeof toObservedContainer>[0];
    assert.equal(toObservedContainer(info).engineRestartPolicy, 'no');
  });
  it('an infra container being removed: the pod is replaced', () => {
    const d = decidePodActions(plan, groupPod([inst(plan, 'POD', { state: 'removing' }), inst(plan, 'a'), inst(plan, 'b')]));
    assert.deepEqual(kinds(d), ['remove:POD', 'remove:a', 'remove:b', 'createInfra#1', 'create:a#1', 'create:b#1']);
    assert.equal(d.sandbox?.reason, "the infra container is removing, so the pod's namespaces are gone");
  });
  it('an infra container restarting or paused: no container is created or started into it; the engine moves first', () => {
    for (const state of ['restarting', 'paused']) {
      const d = decidePodActions(plan, groupPod([inst(plan, 'POD', { state }), inst(plan, 'a', { state: 'created' })]));
      assert.deepEqual(kinds(d), [], state);
      const r = checkPod({
        plan,
        observed: groupPod([inst(plan, 'POD', { state }), inst(plan, 'a', { state: 'created' })]),
        mode: 'running',
        previous: new Map(),
        createdThisRun: new Set(),
        syncErrors: new Map(),
        lastExitCodes: new Map(),
        now: 10_000,
        settleMs: 100,
      });
      assert.deepEqual(
        r.containers.map((v) => `${v.name}: ${v.reason}`),
        [`a: the infra container is ${state}`, `b: the infra container is ${state}`],
      );
    }
  });
  it('a container no longer in the manifest that has exited goes as housekeeping; a running one as part of the sync', () => {
    const d = decidePodActions(plan, groupPod([inst(plan, 'POD'), inst(plan, 'a'), inst(plan, 'b'), inst(plan, 'gone', { state: 'exited' }), inst(plan, 'old')]));
    assert.deepEqual(kinds(d), ['remove:old', '~remove:gone']);
  });
});

describe('checkPod (run-once check)', () => {
  const plan = makePlan();
  const base = {
    plan,
    previous: new Map<string, number>(),
    createdThisRun: new Set<string>(),
    syncErrors: new Map<string, string>(),
    lastExitCodes: new Map<string, number>(),
    now: 10_000,
    settleMs: 100,
  };
  const run = (obs: ObservedContainer[], extra: Partial<typeof base> & { mode?: WaitMode } = {}) => checkPod({ ...base, mode: 'running', observed: groupPod(obs), ...extra });

  it('all running and settled: ok', () => {
    const r = run([inst(plan, 'POD'), inst(plan, 'a'), inst(plan, 'b')]);
    assert.equal(r.ok, true);
  });
  it('up for less than the settle time: not yet, with the time it settles', () => {
    const r = run([inst(plan, 'POD'), inst(plan, 'a', { startedAt: 9_950 }), inst(plan, 'b')]);
    assert.equal(r.ok, false);
    assert.equal(r.settleAt, 10_050);
  });
  it('restart count rose since the previous check: not running at this check', () => {
    const a = inst(plan, 'a', { restartCount: 2 });
    const r = run([inst(plan, 'POD'), a, inst(plan, 'b')], { previous: new Map([[a.id, 1]]) });
    assert.equal(r.ok, false);
    assert.match(r.containers[0]!.reason, /restarted since the previous check/);
  });
  it('a container created in this run starts from a count of 0', () => {
    const a = inst(plan, 'a', { restartCount: 1 });
    const r = run([inst(plan, 'POD'), a, inst(plan, 'b')], { createdThisRun: new Set([a.id]) });
    assert.equal(r.ok, false);
  });
  it('a crashed-once container that stays up passes at the next check', () => {
    const a = inst(plan, 'a', { restartCount: 1 });
    const r = run([inst(plan, 'POD'), a, inst(plan, 'b')], { previous: new Map([[a.id, 1]]) });
    assert.equal(r.ok, true);
  });
  it('Never: exit 0 counts as done, non-zero is terminal', () => {
    const p = makePlan('Never');
    const ok = checkPod({ ...base, plan: p, mode: 'running', observed: groupPod([inst(p, 'POD'), inst(p, 'a', { state: 'exited', exitCode: 0 }), inst(p, 'b')]) });
    assert.equal(ok.ok, true);
    const bad = checkPod({ ...base, plan: p, mode: 'running', observed: groupPod([inst(p, 'POD'), inst(p, 'a', { state: 'exited', exitCode: 4 }), inst(p, 'b')]) });
    assert.equal(bad.failed, true);
    assert.match(bad.containers[0]!.reason, /exited with code 4/);
  });
  it('--wait completed: running is not done yet', () => {
    const p = makePlan('OnFailure');
    const r = checkPod({ ...base, plan: p, mode: 'completed', observed: groupPod([inst(p, 'POD'), inst(p, 'a', { state: 'exited' }), inst(p, 'b')]) });
    assert.equal(r.ok, false);
    assert.equal(r.containers[1]!.healthyRunning, true);
  });
  it('a sync error is the reason shown', () => {
    const r = run([inst(plan, 'POD'), inst(plan, 'b')], { syncErrors: new Map([['a', 'image x is not present']]) });
    assert.equal(r.containers[0]!.reason, 'image x is not present');
  });
  it('a restarted container that reads exit code 0 is reported with the code it last died with', () => {
    const a = inst(plan, 'a', { restartCount: 3, startedAt: 9_990, exitCode: 0 });
    const r = run([inst(plan, 'POD'), a, inst(plan, 'b')], { previous: new Map([[a.id, 3]]), lastExitCodes: new Map([[a.id, 3]]) });
    assert.match(r.containers[0]!.reason, /restarted 3 times, last exited with code 3/);
  });
  it('an infra container of another pod hash means the pod waits for its sync', () => {
    const r = run([inst(plan, 'POD', { hash: 'old' }), inst(plan, 'a'), inst(plan, 'b')]);
    assert.equal(r.ok, false);
  });
  it('OOM kill is reported', () => {
    const r = run([inst(plan, 'POD'), inst(plan, 'a', { state: 'restarting', exitCode: 137, oomKilled: true, restartCount: 2 }), inst(plan, 'b')]);
    assert.match(r.containers[0]!.reason, /OOM-killed/);
  });
});

// Init containers: one at a time, in order, each to exit 0 before any app container (Kubernetes init-containers
// docs and the kubelet's computeInitContainerActions); sidecars (restartPolicy Always) started before the next.
describe('decidePodActions: init containers and sidecars', () => {
  function initPlan(restartPolicy: 'Always' | 'OnFailure' | 'Never' = 'Always', extra: { sidecarStartupProbe?: boolean } = {}): PodPlan {
    return planOf({
      restartPolicy,
      terminationGracePeriodSeconds: 30,
      initContainers: [
        { name: 'i1', image: 'busybox:1', imagePullPolicy: 'IfNotPresent' },
        {
          name: 'side',
          image: 'busybox:1',
          imagePullPolicy: 'IfNotPresent',
          restartPolicy: 'Always',
          ...(extra.sidecarStartupProbe ? { startupProbe: { exec: { command: ['true'] } } } : {}),
        },
        { name: 'i2', image: 'busybox:1', imagePullPolicy: 'IfNotPresent' },
      ],
      containers: [{ name: 'a', image: 'busybox:1', imagePullPolicy: 'IfNotPresent' }],
    });
  }
  const plan = initPlan();
  const never = initPlan('Never');
  const I = (p: PodPlan, name: string, extra: Partial<ObservedContainer> = {}): ObservedContainer => {
    const ic = p.initContainers.find((c) => c.name === name);
    const base = inst(p, name, extra);
    return ic ? { ...base, hash: extra.hash ?? ic.hash, initKind: ic.initKind!, engineRestartPolicy: ic.initKind === 'sidecar' ? 'always' : 'no', ...extra } : base;
  };
  const done = (p: PodPlan, name: string): ObservedContainer => I(p, name, { state: 'exited', exitCode: 0, finishedAt: 2_000 });

  it('translates init containers: engine restart policy no (sidecar: always), a type label, the pod hash covers them', () => {
    const i1 = plan.initContainers[0]!;
    const side = plan.initContainers[1]!;
    assert.equal(i1.create.HostConfig?.RestartPolicy?.Name, 'no');
    assert.equal(side.create.HostConfig?.RestartPolicy?.Name, 'always');
    assert.equal(i1.create.Labels?.['io.runpod.container.type'], 'init');
    assert.equal(side.create.Labels?.['io.runpod.container.type'], 'sidecar');
    assert.equal(plan.containers[0]!.create.Labels?.['io.runpod.container.type'], undefined);
    assert.notEqual(plan.hash, makePlan().hash);
    assert.equal(plan.infra.create.Labels?.['io.kubernetes.container.hash'], plan.hash);
  });

  const cases: { title: string; p?: PodPlan; observed: (p: PodPlan) => ObservedContainer[]; want: string[]; now?: number }[] = [
    { title: 'a new pod starts with its sandbox and the first init container only', observed: () => [], want: ['createInfra#0', 'create:i1#0'] },
    { title: 'the first init container is running: wait', observed: (p) => [inst(p, 'POD'), I(p, 'i1')], want: [] },
    { title: 'the first completed: start the sidecar next', observed: (p) => [inst(p, 'POD'), done(p, 'i1')], want: ['create:side#0'] },
    { title: 'the sidecar runs: the next init container', observed: (p) => [inst(p, 'POD'), done(p, 'i1'), I(p, 'side')], want: ['create:i2#0'] },
    {
      title: 'the sidecar is restarting (crash loop): hold the next init container',
      observed: (p) => [inst(p, 'POD'), done(p, 'i1'), I(p, 'side', { state: 'restarting', restartCount: 2 })],
      want: [],
    },
    {
      title: 'every init container done: the app containers',
      observed: (p) => [inst(p, 'POD'), done(p, 'i1'), I(p, 'side'), done(p, 'i2')],
      want: ['create:a#0'],
    },
    {
      title: 'a re-run of a pod whose init containers succeeded does not run them again',
      observed: (p) => [inst(p, 'POD'), done(p, 'i1'), I(p, 'side'), done(p, 'i2'), inst(p, 'a')],
      want: [],
    },
    {
      title: 'an init record lost (gc) after the app containers ran: not run again',
      observed: (p) => [inst(p, 'POD'), I(p, 'side'), inst(p, 'a')],
      want: [],
    },
    {
      title: 'a failed init container under Always: a new instance once its back-off has passed',
      observed: (p) => [inst(p, 'POD'), I(p, 'i1', { state: 'exited', exitCode: 3, attempt: 0, finishedAt: 5_000 })],
      now: 5_001,
      want: ['create:i1#1'],
    },
    {
      title: 'a failed init container within its back-off (second failure, 1s): wait',
      observed: (p) => [inst(p, 'POD'), I(p, 'i1', { state: 'exited', exitCode: 3, attempt: 1, finishedAt: 5_000 }), I(p, 'i1', { state: 'exited', exitCode: 3, attempt: 0 })],
      now: 5_500,
      want: [],
    },
    {
      title: 'after the back-off the third attempt runs; older dead instances stay as the record',
      observed: (p) => [inst(p, 'POD'), I(p, 'i1', { state: 'exited', exitCode: 3, attempt: 1, finishedAt: 5_000 }), I(p, 'i1', { state: 'exited', exitCode: 3, attempt: 0 })],
      now: 6_001,
      want: ['create:i1#2'],
    },
    {
      title: 'a failed init container under Never: nothing more (the pod has failed)',
      p: never,
      observed: (p) => [inst(p, 'POD'), I(p, 'i1', { state: 'exited', exitCode: 3 })],
      want: [],
    },
    {
      title: 'a changed sidecar after the app containers ran: replaced alone',
      observed: (p) => [inst(p, 'POD'), done(p, 'i1'), I(p, 'side', { hash: 'old' }), done(p, 'i2'), inst(p, 'a')],
      want: ['remove:side', 'create:side#1'],
    },
    {
      title: 'a changed init container changes the pod hash: the pod is replaced and every init runs again',
      observed: (p) => [inst(p, 'POD', { hash: 'old' }), done(p, 'i1'), I(p, 'side'), done(p, 'i2'), inst(p, 'a')],
      want: ['remove:POD', 'remove:a', 'remove:i1', 'remove:side', 'remove:i2', 'createInfra#1', 'create:i1#1'],
    },
    {
      title: 'an init container no longer in the manifest is removed (as housekeeping)',
      observed: (p) => [inst(p, 'POD'), done(p, 'i1'), I(p, 'side'), done(p, 'i2'), inst(p, 'a'), I(p, 'gone', { initKind: 'init', state: 'exited' })],
      want: ['~remove:gone'],
    },
    {
      title: 'an init container created but not started: start it',
      observed: (p) => [inst(p, 'POD'), I(p, 'i1', { state: 'created' })],
      want: ['start:i1'],
    },
  ];
  for (const t of cases) {
    it(t.title, () => {
      const p = t.p ?? plan;
      const d = decidePodActions(p, groupPod(t.observed(p)), new Map(), t.now !== undefined ? { now: t.now } : {});
      assert.deepEqual(kinds(d), t.want);
      for (const a of allActions(d)) assert.ok(a.reason.length > 0, 'every action has a reason');
    });
  }

  it('a sidecar whose startupProbe has not passed holds the next init container', () => {
    const p = initPlan('Always', { sidecarStartupProbe: true });
    const side = I(p, 'side');
    const obs = groupPod([inst(p, 'POD'), done(p, 'i1'), side]);
    assert.deepEqual(kinds(decidePodActions(p, obs, new Map(), { probeStarted: new Map([[side.id, false]]) })), []);
    assert.deepEqual(kinds(decidePodActions(p, obs, new Map(), { probeStarted: new Map([[side.id, true]]) })), ['create:i2#0']);
  });

  it('an app container that keeps exiting (stopped by a failed postStart) is replaced after its back-off', () => {
    const p = makePlan();
    const a = inst(p, 'a', { state: 'exited', exitCode: 137, attempt: 2, finishedAt: 10_000 });
    const obs = groupPod([inst(p, 'POD'), a, inst(p, 'b')]);
    assert.deepEqual(kinds(decidePodActions(p, obs, new Map(), { now: 10_500 })), []);
    assert.deepEqual(kinds(decidePodActions(p, obs, new Map(), { now: 12_001 })), ['create:a#3', '~retire:a']);
  });
});

describe('checkPod: init containers', () => {
  const loaded = (restartPolicy: 'Always' | 'Never') =>
    ({
      pod: {
        metadata: { name: 'web', namespace: 'default' },
        spec: {
          restartPolicy,
          terminationGracePeriodSeconds: 30,
          initContainers: [{ name: 'migrate', image: 'busybox:1', imagePullPolicy: 'IfNotPresent' }],
          containers: [{ name: 'a', image: 'busybox:1', imagePullPolicy: 'IfNotPresent' }],
        },
      },
      source: { file: '<stdin>' },
      line: 1,
    }) as LoadedPod;
  const base = {
    previous: new Map<string, number>(),
    createdThisRun: new Set<string>(),
    syncErrors: new Map<string, string>(),
    lastExitCodes: new Map<string, number>(),
    now: 10_000,
    settleMs: 100,
    mode: 'running' as WaitMode,
  };
  const initOf = (p: PodPlan, extra: Partial<ObservedContainer>): ObservedContainer => ({
    ...inst(p, 'migrate'),
    hash: p.initContainers[0]!.hash,
    initKind: 'init',
    engineRestartPolicy: 'no',
    ...extra,
  });

  it('while an init container runs, the app containers wait for it', () => {
    const p = translatePod(loaded('Always'), { infraImage: 'pause:test' });
    const r = checkPod({ ...base, plan: p, observed: groupPod([inst(p, 'POD'), initOf(p, { state: 'running' })]) });
    assert.equal(r.ok, false);
    assert.equal(r.failed, false);
    assert.deepEqual(
      r.containers.map((v) => `${v.name}: ${v.reason}`),
      ['migrate: waiting for init container migrate (running)', 'a: waiting for init container migrate'],
    );
  });
  it('a failed init container under Never fails the pod, with its exit code', () => {
    const p = translatePod(loaded('Never'), { infraImage: 'pause:test' });
    const r = checkPod({ ...base, plan: p, observed: groupPod([inst(p, 'POD'), initOf(p, { state: 'exited', exitCode: 7 })]) });
    assert.equal(r.failed, true);
    assert.match(r.containers[0]!.reason, /init container migrate exited with code 7 and restartPolicy Never will not restart it/);
  });
  it('a failed init container under Always is not terminal: it is retried', () => {
    const p = translatePod(loaded('Always'), { infraImage: 'pause:test' });
    const r = checkPod({ ...base, plan: p, observed: groupPod([inst(p, 'POD'), initOf(p, { state: 'exited', exitCode: 7, finishedAt: 9_900 })]) });
    assert.equal(r.failed, false);
    assert.match(r.containers[0]!.reason, /exited with code 7/);
  });
  it('once the init container completed, the app containers are checked as usual', () => {
    const p = translatePod(loaded('Always'), { infraImage: 'pause:test' });
    const r = checkPod({ ...base, plan: p, observed: groupPod([inst(p, 'POD'), initOf(p, { state: 'exited', exitCode: 0 }), inst(p, 'a')]) });
    assert.equal(r.ok, true);
  });
});
