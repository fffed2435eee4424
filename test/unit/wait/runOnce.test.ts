// The run-once loop and the apply step on an in-memory engine (test/unit/support/memoryEngine.ts), so the races an
// engine restart or a concurrent user causes are built on purpose (issue 11): a retire the engine refuses or does
// not keep, a container gone before the update, a die during a sleep, the engine lost in the middle of a sync.
// The same behaviour is tested on a real engine in test/engine/converge.test.ts.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LoadedPod } from '../../../src/manifest/types.js';
import { translatePod } from '../../../src/plan/translate.js';
import { applyActions } from '../../../src/reconcile/apply.js';
import { decidePodActions } from '../../../src/reconcile/decide.js';
import { ImagePuller } from '../../../src/reconcile/images.js';
import { observePod } from '../../../src/reconcile/observe.js';
import { Backoff } from '../../../src/wait/backoff.js';
import { OwnEvents } from '../../../src/wait/ownEvents.js';
import { type PodOutcome, runPod } from '../../../src/wait/runOnce.js';
import { Deadline } from '../../../src/wait/deadline.js';
import type { WaitMode } from '../../../src/wait/strategies/index.js';
import { MemoryEngine } from '../support/memoryEngine.js';
import type { PodPlan } from '../../../src/plan/types.js';

const image = 'busybox:1';
const infraImage = 'pause:test';

function planOf(name: string, spec: Partial<LoadedPod['pod']['spec']> = {}): PodPlan {
  const loaded = {
    pod: {
      metadata: { name, namespace: 'default' },
      spec: { restartPolicy: 'Always', terminationGracePeriodSeconds: 0, containers: [{ name: 'main', image, imagePullPolicy: 'Never', command: ['sleep', '3600'] }], ...spec },
    },
    source: { file: '<stdin>' },
    line: 1,
  } as LoadedPod;
  return translatePod(loaded, { infraImage });
}

const engines: MemoryEngine[] = [];
afterEach(() => {
  for (const e of engines.splice(0)) e.dispose();
});

function newEngine(): MemoryEngine {
  const e = new MemoryEngine({ images: [image, infraImage] });
  engines.push(e);
  return e;
}

interface RunOptions {
  mode?: WaitMode;
  retries?: number;
  retryDelayMs?: number;
  settleMs?: number;
  deadlineMs?: number;
  deadlineBy?: string;
  warnings?: string[];
  restartsBounded?: (restarts: number) => string | undefined;
}

function run(engine: MemoryEngine, plan: PodPlan, o: RunOptions = {}): Promise<PodOutcome> {
  const now = Date.now;
  return runPod(plan, {
    engine,
    images: new ImagePuller(engine, () => Promise.resolve(undefined)),
    mode: o.mode ?? 'running',
    backoff: new Backoff({ retries: o.retries ?? 10, retryDelayMs: o.retryDelayMs ?? 5, factor: 2, maxDelayMs: 40 }),
    settleMs: o.settleMs ?? 0,
    ...(o.deadlineMs !== undefined ? { deadline: Deadline.after(now(), o.deadlineMs, o.deadlineBy ?? '--timeout') } : {}),
    signal: new AbortController().signal,
    now,
    onWarning: (_p, m) => o.warnings?.push(m),
    ...(o.restartsBounded ? { restartsBounded: o.restartsBounded } : {}),
  });
}

/** The instances of one container, newest attempt first. */
async function instances(engine: MemoryEngine, plan: PodPlan, container: string) {
  const observed = await observePod(engine, plan.namespace, plan.name);
  return container === 'POD' ? observed.infra : (observed.containers.get(container) ?? []);
}

/** Up the pod, then leave main's instance exited 137 with restart policy always (an engine restart's leftover). */
async function podWithKilledInstance(engine: MemoryEngine, plan: PodPlan): Promise<string> {
  const up = await run(engine, plan);
  assert.equal(up.status, 'succeeded', up.reason);
  const id = (await instances(engine, plan, 'main'))[0]!.id;
  engine.setState(id, { status: 'exited', exitCode: 137, manuallyStopped: true, restartPolicy: 'always' });
  return id;
}

describe('runPod on an in-memory engine', () => {
  it('a new pod: the sandbox and the container are created, every action has a result, the reason is said', async () => {
    const engine = newEngine();
    const plan = planOf('fresh');
    const out = await run(engine, plan);
    assert.equal(out.status, 'succeeded');
    assert.equal(out.reason, 'every container is running');
    assert.deepEqual(
      out.results.map((r) => `${r.action.kind}:${r.ok}`),
      ['createInfra:true', 'create:true'],
    );
    for (const r of out.results) assert.match(r.instance ?? '', /^[0-9a-f]{64}$/);
    const again = await run(engine, plan);
    assert.equal(again.status, 'succeeded');
    assert.deepEqual(again.results, [], 'a second run changes nothing');
  });

  it('the retire of a killed instance: a new instance, the old one retired, and the next sync has nothing to do', async () => {
    const engine = newEngine();
    const plan = planOf('killed');
    const old = await podWithKilledInstance(engine, plan);
    const out = await run(engine, plan);
    assert.equal(out.status, 'succeeded', out.reason);
    assert.deepEqual(out.results.map((r) => `${r.action.kind}:${r.ok}${r.housekeeping ? ':housekeeping' : ''}`).sort(), ['create:true', 'retire:true:housekeeping']);
    assert.equal(engine.peek(old)!.HostConfig.RestartPolicy?.Name, 'no');
    assert.equal(engine.callCount('updateRestartPolicy', old), 1);
    const again = await run(engine, plan);
    assert.deepEqual(again.results, []);
  });

  it('an update the engine refuses (the instance is dead): the instance is removed instead, and the pod succeeds', async () => {
    const engine = newEngine();
    const plan = planOf('refused');
    const old = await podWithKilledInstance(engine, plan);
    // Between observe and apply the engine marks it dead: decide planned a retire, the engine refuses it.
    const unhook = engine.onCall('updateRestartPolicy', async (args, next) => {
      engine.setState(old, { dead: true });
      return next(...args);
    });
    const out = await run(engine, plan);
    unhook();
    assert.equal(out.status, 'succeeded', out.reason);
    const retire = out.results.find((r) => r.action.kind === 'retire')!;
    assert.equal(retire.ok, true);
    assert.match(retire.outcome ?? '', /^removed: the engine refused to retire it \(.*marked for removal/);
    assert.equal(engine.peek(old), undefined, 'no instance is left that an engine restart could start beside the new one');
  });

  it('an update the engine accepts but does not keep: removed instead', async () => {
    const engine = newEngine();
    const plan = planOf('noop');
    const old = await podWithKilledInstance(engine, plan);
    engine.onCall('updateRestartPolicy', () => Promise.resolve());
    const out = await run(engine, plan);
    assert.equal(out.status, 'succeeded', out.reason);
    assert.match(out.results.find((r) => r.action.kind === 'retire')!.outcome ?? '', /accepted the update, but the restart policy is still always/);
    assert.equal(engine.peek(old), undefined);
  });

  it('an update answered 404 (the instance went meanwhile): done, nothing to repeat', async () => {
    const engine = newEngine();
    const plan = planOf('gone');
    const old = await podWithKilledInstance(engine, plan);
    engine.onCall('updateRestartPolicy', async (args, next) => {
      await engine.removeContainer(old, { force: true });
      return next(...args);
    });
    const out = await run(engine, plan);
    assert.equal(out.status, 'succeeded', out.reason);
    assert.equal(out.results.find((r) => r.action.kind === 'retire')!.outcome, 'the instance is gone');
  });

  it('a retire that never sticks (no update kept, removal refused): the pod still succeeds at once, with a warning', async () => {
    const engine = newEngine();
    const plan = planOf('stuck');
    const old = await podWithKilledInstance(engine, plan);
    engine.onCall('updateRestartPolicy', () => Promise.resolve());
    engine.refuseRemoval(old);
    const warnings: string[] = [];
    const out = await run(engine, plan, { warnings });
    assert.equal(out.status, 'succeeded', out.reason);
    assert.equal(out.retriesUsed, 0, 'housekeeping costs no retry');
    // The retire failed, and the refused removal left the instance dead, which the success pass tries to remove.
    assert.equal(warnings.length, 2, warnings.join('\n'));
    assert.match(
      warnings[0]!,
      /keeping main's dead instance without a restart policy .* failed: the engine accepted the update, but the restart policy is still always, and could not remove it \(.*failed to remove root filesystem/,
    );
    assert.match(warnings[1]!, /removing container main \(an older instance \(attempt 0\) is dead .*\) failed: .*failed to remove root filesystem/);
    assert.deepEqual(out.warnings, warnings);
  });

  it('housekeeping that never sticks while the pod is not there yet: given up after a few syncs with "cannot converge", not repeated for ever', async () => {
    const engine = newEngine();
    // --wait completed of a pod that keeps running: the wait never holds, and spends no retries, until the deadline.
    const plan = planOf('stuck-waiting', { restartPolicy: 'OnFailure' });
    const old = await podWithKilledInstance(engine, plan);
    engine.onCall('updateRestartPolicy', () => Promise.resolve());
    engine.refuseRemoval(old);
    const warnings: string[] = [];
    // The deadline only ends the wait: it is long enough for the few syncs (back-off 5 to 40 ms) on a loaded machine.
    const out = await run(engine, plan, { warnings, mode: 'completed', deadlineMs: 2000 });
    assert.equal(out.status, 'timeout');
    assert.match(out.reason, /^--timeout passed before the pod was completed: main: still running/);
    // One retire (refused in effect, so a removal, refused too: the instance is dead), then the dead instance's
    // removal, three times, and given up.
    assert.equal(engine.callCount('updateRestartPolicy', old), 1);
    assert.equal(engine.callCount('removeContainer', old), 4);
    assert.ok(
      warnings.some((w) =>
        /^cannot converge: removing container main \(an older instance \(attempt 0\) is dead .*failed to remove root filesystem.*; given up for this run$/.test(w),
      ),
      warnings.join('\n'),
    );
  });

  it('a start that keeps failing the same way ends with "cannot converge" and the engine\'s answer, not the whole budget', async () => {
    const engine = newEngine();
    const plan = planOf('port');
    engine.onCall('startContainer', async (args, next) => {
      const info = engine.peek(args[0]);
      if (info?.Config.Labels?.['io.kubernetes.container.name'] === 'POD') {
        throw new (await import('../../../src/engine/ports/errors.js')).EngineRequestError(
          'driver failed programming external connectivity on endpoint x: Bind for 0.0.0.0:28081 failed: port is already allocated',
          500,
        );
      }
      return next(...args);
    });
    const out = await run(engine, plan, { retries: 10 });
    assert.equal(out.status, 'failed');
    assert.match(
      out.reason,
      /^cannot converge: starting infra container \(the infra container was created but not started\): host port 28081 is taken on the engine host by another container or process \(.*port is already allocated\) \(tried 3 times/,
    );
    assert.ok(out.retriesUsed < 10, `${out.retriesUsed} retries`);
    const failed = out.results.filter((r) => !r.ok);
    assert.ok(failed.some((r) => r.action.kind === 'create' && r.error === 'not attempted: the infra container did not start'));
  });

  it('an image absent under Never: "cannot converge" naming the image, within a few syncs', async () => {
    const engine = newEngine();
    const plan = planOf('image', { containers: [{ name: 'main', image: 'absent:1', imagePullPolicy: 'Never' }] });
    const out = await run(engine, plan);
    assert.equal(out.status, 'failed');
    assert.match(out.reason, /^cannot converge: creating container main, attempt 0 \(the container does not exist\): image absent:1 is not present on the engine/);
  });

  it('a die during a sleep wakes the loop: restartPolicy Never, the exit is seen at once, not at the next tick', { timeout: 10_000 }, async () => {
    const engine = newEngine();
    const plan = planOf('die', { restartPolicy: 'Never' });
    // An hour of settle time and of retry delay: only the die event can end this run within the test's time.
    const running = run(engine, plan, { settleMs: 3_600_000, retryDelayMs: 3_600_000 });
    await waitFor(async () => (await instances(engine, plan, 'main'))[0]?.state === 'running');
    await engine.flushEvents();
    await new Promise((r) => setTimeout(r, 20));
    engine.crash((await instances(engine, plan, 'main'))[0]!.id, 3);
    const out = await running;
    assert.equal(out.status, 'failed');
    assert.match(out.reason, /main: exited with code 3 and restartPolicy Never will not restart it/);
  });

  it('the engine lost in the middle of a sync and back: the run goes on within its budget and succeeds', async () => {
    const engine = newEngine();
    const plan = planOf('lost');
    let once = true;
    engine.onCall('createContainer', async (args, next) => {
      if (once && args[1].Labels?.['io.kubernetes.container.name'] === 'main') {
        once = false;
        engine.goDown();
        setTimeout(() => engine.comeBack(), 30);
      }
      return next(...args);
    });
    const out = await run(engine, plan, { retryDelayMs: 10 });
    assert.equal(out.status, 'succeeded', out.reason);
    assert.equal(out.engineError, undefined);
    const mains = await instances(engine, plan, 'main');
    assert.equal(mains.filter((c) => c.state === 'running').length, 1);
  });

  it('a timeout names what is not right, never an empty reason', async () => {
    const engine = newEngine();
    const plan = planOf('slow');
    const out = await run(engine, plan, { settleMs: 3_600_000, retryDelayMs: 3_600_000, deadlineMs: 200 });
    assert.equal(out.status, 'timeout');
    assert.match(out.reason, /^--timeout passed before the pod was running: main: running for \d+ms, less than the settle time/);
  });
});

describe('applyActions on an in-memory engine', () => {
  it("returns one result per action, in the kubelet's order, with the instance each made", async () => {
    const engine = newEngine();
    const plan = planOf('apply');
    const d = decidePodActions(plan, await observePod(engine, plan.namespace, plan.name));
    const { results } = await applyActions(plan, d, { engine, images: new ImagePuller(engine, () => Promise.resolve(undefined)) });
    assert.deepEqual(
      results.map((r) => r.action.kind),
      ['createInfra', 'create'],
    );
    assert.ok(results.every((r) => r.ok && r.instance !== undefined && !r.housekeeping));
  });

  it('an instance adopted from a concurrent runpod (409) is started but its postStart hook is not run again', async () => {
    const engine = newEngine();
    const plan = planOf('adopt', {
      containers: [{ name: 'main', image, imagePullPolicy: 'Never', command: ['sleep', '3600'], lifecycle: { postStart: { exec: { command: ['touch', '/started'] } } } }],
    });
    const execs: string[][] = [];
    engine.setExecHandler((call) => {
      execs.push(call.cmd);
      return { exitCode: 0 };
    });
    const images = new ImagePuller(engine, () => Promise.resolve(undefined));
    const d = decidePodActions(plan, await observePod(engine, plan.namespace, plan.name));
    // Another runpod made the same pod a moment earlier: the same deterministic names answer 409.
    await applyActions(plan, d, { engine, images });
    assert.equal(execs.length, 1, 'the first runpod ran postStart');
    const again = await applyActions(plan, { ...d, sandbox: { kind: 'startInfra', id: (await instances(engine, plan, 'POD'))[0]!.id, reason: 'x' } }, { engine, images });
    const create = again.results.find((r) => r.action.kind === 'create')!;
    assert.equal(create.ok, true);
    assert.equal(create.outcome, 'adopted: a concurrent runpod created it');
    assert.equal(execs.length, 1, 'postStart ran once per start');
  });
});

describe("OwnEvents: runpod's own requests do not wake the loop", () => {
  const e = (action: string, id = 'c1') => ({ type: 'container', action, id, labels: {}, timeNano: 0 });
  it('an expected start is consumed; the same event again, a die nobody asked for, wake', () => {
    const own = new OwnEvents(() => 1_000);
    own.expect('c1', ['start']);
    assert.equal(own.wakes(e('start')), false);
    assert.equal(own.wakes(e('start')), true);
    assert.equal(own.wakes(e('die')), true);
  });
  it('exec, archive and update events never wake; an expectation expires', () => {
    let now = 0;
    const own = new OwnEvents(() => now);
    for (const action of ['exec_create: sh -c true', 'exec_die', 'extract-to-dir', 'archive-path', 'update', 'kill']) assert.equal(own.wakes(e(action)), false, action);
    own.expect('c1', ['die']);
    now = 60_000;
    assert.equal(own.wakes(e('die')), true);
  });
});

async function waitFor(fn: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error('condition not met');
}

describe('a Job under restartPolicy OnFailure bounds the restarts, not the run-once retries', () => {
  it('a crash-looping container spends no retry; the pod ends failed when the bound says so, with its restarts counted', async () => {
    const engine = newEngine();
    const plan = planOf('onfailure', { restartPolicy: 'OnFailure' });
    const seen: number[] = [];
    const running = run(engine, plan, {
      mode: 'completed',
      retries: 1,
      restartsBounded: (n) => {
        seen.push(n);
        return n >= 3 ? `the Job failed: ${n} restarts` : undefined;
      },
    });
    for (let crashes = 0; crashes < 3; ) {
      await new Promise((r) => setTimeout(r, 20));
      const main = (await instances(engine, plan, 'main'))[0];
      if (main?.state !== 'running') continue;
      engine.crash(main.id, 3);
      crashes++;
    }
    const out = await running;
    assert.equal(out.status, 'failed', out.reason);
    assert.match(out.reason, /^the Job failed: 3 restarts; main: /);
    assert.ok(
      seen.every((n, i) => i === 0 || n >= seen[i - 1]!),
      `told the restarts as they rose: ${seen.join(', ')}`,
    );
    assert.equal(seen.at(-1), 3);
    assert.equal(out.retriesUsed, 0, 'the crash loop spent no run-once retry');
  });
});

describe('a deadline a workload set', () => {
  it("the pod's reason names what set it (a Job's activeDeadlineSeconds), not --timeout", async () => {
    const engine = newEngine();
    const out = await run(engine, planOf('job-deadline', { restartPolicy: 'Never' }), { mode: 'completed', deadlineMs: 200, deadlineBy: "job/slow's deadline" });
    assert.equal(out.status, 'timeout');
    assert.match(out.reason, /^job\/slow's deadline passed before the pod was completed: main: still running/);
  });
});
