// A container's restartPolicy and restartPolicyRules (Kubernetes 1.34, KEP-5307) through the run-once loop on the
// in-memory engine: the engine restart policy mirrors the container's restartPolicy, and an exit only a rule
// restarts is restarted by runpod (the next attempt); an exit no rule matches under Never fails the pod. The pure
// answer (plan/restart.ts) is tested table-driven at the end. The real engine: test/engine/restart-rules.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PodPlan } from '../../../src/plan/translate.js';
import { type ContainerRestart, containerRestart, restartsAfterExit } from '../../../src/plan/restart.js';
import { observePod } from '../../../src/reconcile/observe.js';
import type { PodOutcome } from '../../../src/wait/runOnce.js';
import type { MemoryEngine } from '../support/memoryEngine.js';
import { memoryEngines, onePodPlan, runUntilRunning } from '../support/loop.js';
import { waitCompleted } from '../../../src/wait/strategies/completed.js';

const newEngine = memoryEngines();
const planOf = onePodPlan;
const run = (engine: MemoryEngine, plan: PodPlan): Promise<PodOutcome> => runUntilRunning(engine, plan, 10);

/** The first instance of main exits with this code as soon as it has started (its process ends on its own). */
function firstStartExits(engine: MemoryEngine, code: number): void {
  let first = true;
  engine.onCall('startContainer', async (args, next) => {
    const r = await next(...args);
    const c = engine.peek(args[0]);
    if (first && c?.Config.Labels?.['io.kubernetes.container.name'] === 'main') {
      first = false;
      engine.crash(args[0], code);
    }
    return r;
  });
}

const rule42 = [{ action: 'Restart', exitCodes: { operator: 'In', values: [42] } }];

describe('container restartPolicyRules in the run-once loop', () => {
  it('the engine restart policy is the container\'s own restartPolicy, not the pod\'s', () => {
    const plan = planOf('own', 'Always', { restartPolicy: 'Never', restartPolicyRules: rule42 });
    assert.deepEqual(plan.containers[0]!.create.HostConfig?.RestartPolicy, { Name: 'no' });
    assert.deepEqual(plan.containers[0]!.restart, { policy: 'Never', rules: [{ operator: 'In', values: [42] }] });
    const inherited = planOf('inherited', 'OnFailure', {});
    assert.deepEqual(inherited.containers[0]!.create.HostConfig?.RestartPolicy, { Name: 'on-failure', MaximumRetryCount: 0 });
  });

  it('an exit a rule matches (42 under Never) is restarted by runpod: the next attempt runs and the pod succeeds', async () => {
    const engine = newEngine();
    const plan = planOf('rule-match', 'Never', { restartPolicy: 'Never', restartPolicyRules: rule42 });
    firstStartExits(engine, 42);
    const out = await run(engine, plan);
    assert.equal(out.status, 'succeeded', out.reason);
    const list = (await observePod(engine, plan.namespace, plan.name)).containers.get('main') ?? [];
    assert.deepEqual(list.map((c) => [c.attempt, c.state, c.exitCode]), [[1, 'running', 0], [0, 'exited', 42]]);
    const create = out.results.find((r) => r.action.kind === 'create' && r.action.attempt === 1);
    assert.ok(create, 'a create of attempt 1');
    assert.equal(create.action.reason, 'it exited (code 42) and the engine will not restart it; restartPolicyRules (exit code in [42])');
  });

  it('an exit no rule matches (1 under Never) fails the pod at once, saying why', async () => {
    const engine = newEngine();
    const plan = planOf('rule-miss', 'Always', { restartPolicy: 'Never', restartPolicyRules: rule42 });
    firstStartExits(engine, 1);
    const out = await run(engine, plan);
    assert.equal(out.status, 'failed');
    assert.match(out.reason, /main: exited with code 1 and restartPolicy Never and no restartPolicyRules entry matches exit code 1 will not restart it/);
    const list = (await observePod(engine, plan.namespace, plan.name)).containers.get('main') ?? [];
    assert.equal(list.length, 1, 'no other attempt was made');
  });

  it('NotIn [0, 3] under OnFailure: exit 0 is listed, so no rule matches, and OnFailure leaves it final: completed', async () => {
    const engine = newEngine();
    const plan = planOf('not-in', 'Never', { restartPolicy: 'OnFailure', restartPolicyRules: [{ action: 'Restart', exitCodes: { operator: 'NotIn', values: [0, 3] } }] });
    firstStartExits(engine, 0);
    const out = await run(engine, plan);
    assert.equal(out.status, 'succeeded', out.reason);
    const list = (await observePod(engine, plan.namespace, plan.name)).containers.get('main') ?? [];
    assert.deepEqual(list.map((c) => [c.attempt, c.state]), [[0, 'exited']]);
  });
});

describe('restartsAfterExit (Kubernetes: the first matching rule restarts, else the container\'s restartPolicy)', () => {
  const r = (policy: ContainerRestart['policy'], rules: ContainerRestart['rules'] = []): ContainerRestart => ({ policy, rules });
  const cases: Array<[string, ContainerRestart, number, boolean]> = [
    ['Always restarts 0', r('Always'), 0, true],
    ['OnFailure does not restart 0', r('OnFailure'), 0, false],
    ['OnFailure restarts 1', r('OnFailure'), 1, true],
    ['Never restarts nothing', r('Never'), 1, false],
    ['Never with In [42]: 42 restarts', r('Never', [{ operator: 'In', values: [42] }]), 42, true],
    ['Never with In [42]: 43 does not', r('Never', [{ operator: 'In', values: [42] }]), 43, false],
    ['Never with NotIn [0]: 7 restarts', r('Never', [{ operator: 'NotIn', values: [0] }]), 7, true],
    ['Never with NotIn [0]: 0 does not', r('Never', [{ operator: 'NotIn', values: [0] }]), 0, false],
    ['OnFailure with In [0]: 0 restarts', r('OnFailure', [{ operator: 'In', values: [0] }]), 0, true],
    ['Never with NotIn []: any exit restarts', r('Never', [{ operator: 'NotIn', values: [] }]), 0, true],
  ];
  for (const [name, restart, code, want] of cases) it(name, () => assert.equal(restartsAfterExit(restart, code), want));

  it('the container\'s own policy overrides the pod\'s; none set inherits it', () => {
    assert.equal(containerRestart({ restartPolicy: 'Never' }, 'Always').policy, 'Never');
    assert.equal(containerRestart({}, 'OnFailure').policy, 'OnFailure');
  });
});

describe('--wait completed with container restart policies (a pod completes only when no container restarts always)', () => {
  const policies = (entries: [string, 'Always' | 'OnFailure' | 'Never'][]) => new Map(entries);
  it('a pod under Always whose containers keep it: refused as before', () => {
    assert.equal(waitCompleted.impossibleFor('Always', policies([['a', 'Always']])), 'restartPolicy Always restarts containers forever; use restartPolicy Never or OnFailure, or --wait running');
  });
  it('a pod under Always whose every container says Never: it can complete', () => {
    assert.equal(waitCompleted.impossibleFor('Always', policies([['a', 'Never'], ['b', 'OnFailure']])), undefined);
  });
  it('a pod under Never with one container that says Always: refused, naming it', () => {
    assert.equal(waitCompleted.impossibleFor('Never', policies([['a', 'Never'], ['b', 'Always']])), 'container b restarts forever (restartPolicy Always); set its restartPolicy to Never or OnFailure, or use --wait running');
  });
});
