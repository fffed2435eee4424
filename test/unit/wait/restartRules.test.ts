// A container's restartPolicy and restartPolicyRules (Kubernetes 1.34, KEP-5307) through the run-once loop on the
// in-memory engine: the engine restart policy mirrors the container's restartPolicy, and an exit only a rule
// restarts is restarted by runpod (the next attempt); an exit no rule matches under Never fails the pod. The pure
// answer (kube/restart.ts) is tested table-driven at the end. The real engine: test/engine/restart-rules.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type ContainerRestart, containerRestart, initContainerRestart, restartsAfterExit } from '../../../src/kube/restart.js';
import { translatePod } from '../../../src/plan/translate.js';
import type { LoadedPod } from '../../../src/manifest/types.js';
import type { Container } from 'kubernetes-types/core/v1.js';
import { observePod } from '../../../src/reconcile/observe.js';
import type { PodOutcome } from '../../../src/wait/runOnce.js';
import type { MemoryEngine } from '../support/memoryEngine.js';
import { image, infraImage, memoryEngines, onePodPlan, runUntilRunning } from '../support/loop.js';
import { waitCompleted } from '../../../src/wait/strategies/completed.js';
import type { PodPlan } from '../../../src/plan/types.js';

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
  it("the engine restart policy is the container's own restartPolicy, not the pod's", () => {
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
    assert.deepEqual(
      list.map((c) => [c.attempt, c.state, c.exitCode]),
      [
        [1, 'running', 0],
        [0, 'exited', 42],
      ],
    );
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
    assert.deepEqual(
      list.map((c) => [c.attempt, c.state]),
      [[0, 'exited']],
    );
  });
});

/** A pod with an init container setup (its own fields given) before main, under the pod's restartPolicy. */
function initPlan(name: string, podPolicy: string, setup: Record<string, unknown>): PodPlan {
  const c = (n: string, more: Record<string, unknown>) => ({ name: n, image, imagePullPolicy: 'Never', command: ['sleep', '3600'], ...more }) as Container;
  const loaded = {
    pod: {
      metadata: { name, namespace: 'default' },
      spec: { restartPolicy: podPolicy, terminationGracePeriodSeconds: 0, initContainers: [c('setup', setup)], containers: [c('main', {})] },
    },
    source: { file: '<stdin>' },
    line: 1,
  } as LoadedPod;
  return translatePod(loaded, { infraImage });
}

/** Each instance of setup exits, as soon as it has started, with the next of these codes. */
function setupExits(engine: MemoryEngine, codes: number[]): void {
  engine.onCall('startContainer', async (args, next) => {
    const r = await next(...args);
    const c = engine.peek(args[0]);
    if (c?.Config.Labels?.['io.kubernetes.container.name'] === 'setup' && codes.length > 0) engine.crash(args[0], codes.shift()!);
    return r;
  });
}

describe("an init container's own restartPolicy and restartPolicyRules (Kubernetes 1.34) in the run-once loop", () => {
  it("under the pod's Never, an exit its rule matches (42) runs it again; exit 0 then completes it and main starts", async () => {
    const engine = newEngine();
    const plan = initPlan('init-rule', 'Never', { restartPolicy: 'Never', restartPolicyRules: rule42 });
    assert.deepEqual(plan.initContainers[0]!.restart, { policy: 'Never', rules: [{ operator: 'In', values: [42] }] });
    setupExits(engine, [42, 0]);
    const out = await run(engine, plan);
    assert.equal(out.status, 'succeeded', out.reason);
    const setup = (await observePod(engine, plan.namespace, plan.name)).initContainers.get('setup') ?? [];
    assert.deepEqual(
      setup.map((c) => [c.attempt, c.exitCode]),
      [
        [1, 0],
        [0, 42],
      ],
    );
    const again = out.results.find((r) => r.action.kind === 'create' && r.action.container === 'setup' && r.action.attempt === 1);
    assert.equal(again?.action.reason, 'init container setup exited with code 42; restartPolicyRules (exit code in [42]) runs it again');
  });
  it('an exit its rules do not match fails the pod, saying why', async () => {
    const engine = newEngine();
    setupExits(engine, [3]);
    const out = await run(engine, initPlan('init-miss', 'Never', { restartPolicy: 'Never', restartPolicyRules: rule42 }));
    assert.equal(out.status, 'failed');
    assert.match(out.reason, /exited with code 3 and restartPolicy Never and no restartPolicyRules entry matches exit code 3 will not restart it/);
  });
  it("restartPolicy Never on an init container under the pod's Always: its first failure fails the pod (the documentation's fail-pod-if-init-fails)", async () => {
    const engine = newEngine();
    setupExits(engine, [1]);
    const out = await run(engine, initPlan('init-once', 'Always', { restartPolicy: 'Never' }));
    assert.equal(out.status, 'failed');
    assert.match(out.reason, /exited with code 1 and restartPolicy Never will not restart it/);
  });
  it("without its own restartPolicy, the pod's decides as before (Always and OnFailure run a failure again, Never does not)", () => {
    assert.deepEqual(initContainerRestart('Always'), { policy: 'OnFailure', rules: [] });
    assert.deepEqual(initContainerRestart('Never', {}), { policy: 'Never', rules: [] });
    assert.deepEqual(initContainerRestart('Never', { restartPolicy: 'OnFailure' }), { policy: 'OnFailure', rules: [] });
  });
});

describe("restartsAfterExit (Kubernetes: the first matching rule restarts, else the container's restartPolicy)", () => {
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

  it("the container's own policy overrides the pod's; none set inherits it", () => {
    assert.equal(containerRestart({ restartPolicy: 'Never' }, 'Always').policy, 'Never');
    assert.equal(containerRestart({}, 'OnFailure').policy, 'OnFailure');
  });
});

describe('--wait completed with container restart policies (a pod completes only when no container restarts always)', () => {
  const policies = (entries: [string, 'Always' | 'OnFailure' | 'Never'][]) => new Map(entries);
  it('a pod under Always whose containers keep it: refused as before', () => {
    assert.equal(
      waitCompleted.impossibleFor('Always', policies([['a', 'Always']])),
      'restartPolicy Always restarts containers forever; use restartPolicy Never or OnFailure, or --wait running',
    );
  });
  it('a pod under Always whose every container says Never: it can complete', () => {
    assert.equal(
      waitCompleted.impossibleFor(
        'Always',
        policies([
          ['a', 'Never'],
          ['b', 'OnFailure'],
        ]),
      ),
      undefined,
    );
  });
  it('a pod under Never with one container that says Always: refused, naming it', () => {
    assert.equal(
      waitCompleted.impossibleFor(
        'Never',
        policies([
          ['a', 'Never'],
          ['b', 'Always'],
        ]),
      ),
      'container b restarts forever (restartPolicy Always); set its restartPolicy to Never or OnFailure, or use --wait running',
    );
  });
});
