// READY as kubectl counts it (podSummary.ts): the pure rule of what status probes and what the results mean, the
// summary with the results given, and status's prober (commands/readiness.ts) on the in-memory engine, which
// shows that finding pods without a prober (logs, exec, stats, completion) runs nothing in a container.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Container } from 'kubernetes-types/core/v1.js';
import type { LoadedPod } from '../../../src/manifest/types.js';
import { instanceCreateOptions, translatePod } from '../../../src/plan/translate.js';
import { type ContainerInstance, type ReadinessCheck, readinessVerdict, readinessWork, startupBudgetMs, summarizePods } from '../../../src/reconcile/podSummary.js';
import type { ProbeSpec } from '../../../src/kube/probes.js';
import { findPods } from '../../../src/reconcile/pods.js';
import { probeReadiness } from '../../../src/wait/probes/readinessOnce.js';
import { statusDocument, statusTable } from '../../../src/report/tables.js';
import { MemoryEngine } from '../support/memoryEngine.js';
import type { PodPlan } from '../../../src/plan/types.js';

const image = 'busybox:1.36';
const infraImage = 'pause:test';

const spec = (kind: 'readiness' | 'startup', extra: Partial<ProbeSpec> = {}): ProbeSpec => ({
  kind,
  handler: { type: 'exec', command: ['cat', `/tmp/${kind}`] },
  initialDelayMs: 0,
  periodMs: 10_000,
  timeoutMs: 1000,
  successThreshold: 1,
  failureThreshold: 3,
  gracePeriodSeconds: 30,
  ...extra,
});

function inst(probes: ContainerInstance['probes'], extra: Partial<ContainerInstance> = {}): ContainerInstance {
  return {
    id: 'c1',
    dockerName: 'k8s_app',
    name: 'app',
    attempt: 0,
    hash: 'h',
    podUid: 'u',
    state: 'running',
    exitCode: 0,
    oomKilled: false,
    error: '',
    startedAt: 1_000_000,
    restartCount: 0,
    engineRestartPolicy: 'always',
    image,
    imageId: 'sha256:x',
    createdAt: 1_000_000,
    probes,
    ...extra,
  };
}

describe('readinessWork: what status runs for one container', () => {
  const t0 = 1_000_000;
  it('nothing for a container that is not running or has no readiness or startup probe', () => {
    assert.equal(readinessWork(inst({}), t0 + 5000), undefined);
    assert.equal(readinessWork(inst({ readiness: spec('readiness') }, { state: 'exited' }), t0 + 5000), undefined);
  });
  it('the readiness probe, once past its initial delay; before it, not ready without probing', () => {
    const readiness = spec('readiness', { initialDelayMs: 10_000 });
    assert.deepEqual(readinessWork(inst({ readiness }), t0 + 20_000), { run: [readiness] });
    const early = readinessWork(inst({ readiness }), t0 + 5000);
    assert.ok(early && 'verdict' in early);
    assert.equal(early.verdict.ok, false);
    assert.match(early.verdict.message, /not ready: readiness probe \(exec \[cat \/tmp\/readiness\]\) waits its initialDelaySeconds \(10s\)/);
  });
  it('a startup probe within its budget runs first, then readiness; past the budget the container is taken as started', () => {
    const startup = spec('startup', { periodMs: 1000, failureThreshold: 5 });
    const readiness = spec('readiness');
    assert.equal(startupBudgetMs(startup), 5000);
    assert.deepEqual(readinessWork(inst({ startup, readiness }), t0 + 4000), { run: [startup, readiness] });
    assert.deepEqual(readinessWork(inst({ startup, readiness }), t0 + 6000), { run: [readiness] });
    const past = readinessWork(inst({ startup }), t0 + 6000);
    assert.ok(past && 'verdict' in past);
    assert.equal(past.verdict.ok, true);
    assert.match(past.verdict.message, /^started: up for 6s, past its startup probe's budget$/);
  });
  it("before a startup probe's initial delay the container is not started", () => {
    const w = readinessWork(inst({ startup: spec('startup', { initialDelayMs: 3000 }) }), t0 + 1000);
    assert.ok(w && 'verdict' in w);
    assert.deepEqual(w.verdict.ok, false);
    assert.match(w.verdict.message, /^not started: startup probe/);
  });
});

describe('readinessVerdict', () => {
  const startup = spec('startup');
  const readiness = spec('readiness');
  it('the first failure decides, named by its probe', () => {
    assert.deepEqual(readinessVerdict([startup, readiness], [{ ok: false, output: 'command exited with code 1' }]), {
      ok: false,
      message: 'not started: startup probe (exec [cat /tmp/startup]) failed: command exited with code 1',
    });
    assert.deepEqual(
      readinessVerdict(
        [startup, readiness],
        [
          { ok: true, output: '' },
          { ok: false, output: 'nope' },
        ],
      ),
      {
        ok: false,
        message: 'not ready: readiness probe (exec [cat /tmp/readiness]) failed: nope',
      },
    );
  });
  it('all passed: the last probe says so', () => {
    assert.deepEqual(
      readinessVerdict(
        [startup, readiness],
        [
          { ok: true, output: '' },
          { ok: true, output: 'yes' },
        ],
      ),
      { ok: true, message: 'readiness probe (exec [cat /tmp/readiness]) passed: yes' },
    );
    assert.deepEqual(readinessVerdict([startup], [{ ok: true, output: '' }]), { ok: true, message: 'startup probe (exec [cat /tmp/startup]) passed' });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// On the in-memory engine: a plan's containers created as apply would, then summarized.

function plan(containers: Container[], initContainers: Container[] = []): PodPlan {
  const loaded = {
    pod: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'default' },
      spec: { containers, initContainers, restartPolicy: 'Always', terminationGracePeriodSeconds: 0 },
    },
    source: { file: 'pod.yaml' },
    line: 1,
  } as LoadedPod;
  return translatePod(loaded, { infraImage });
}

const engines: MemoryEngine[] = [];
afterEach(() => {
  for (const e of engines.splice(0)) e.dispose();
});

/** Create and start the infra container, the sidecars and the containers; their ids by name. */
async function up(p: PodPlan): Promise<{ engine: MemoryEngine; ids: Map<string, string> }> {
  const engine = new MemoryEngine({ images: [image, infraImage] });
  engines.push(engine);
  const ids = new Map<string, string>();
  const infra = instanceCreateOptions(p, p.infra, 0);
  const infraId = await engine.createContainer(infra.name, infra.options);
  await engine.startContainer(infraId);
  for (const c of [...p.initContainers, ...p.containers]) {
    const { name, options } = instanceCreateOptions(p, c, 0, infraId);
    const id = await engine.createContainer(name, options);
    await engine.startContainer(id);
    ids.set(c.name, id);
  }
  return { engine, ids };
}

const execReady = (file: string): Container['readinessProbe'] => ({ exec: { command: ['cat', file] } });
const sleeper = (name: string, extra: Partial<Container> = {}): Container => ({ name, image, command: ['sleep', '3600'], ...extra });

describe('summarizePods: READY with the probe results given', () => {
  it('a running container with a readiness probe is ready only with a passing result; one without, when running', async () => {
    const p = plan([sleeper('probed', { readinessProbe: execReady('/tmp/ready') }), sleeper('plain')]);
    const { engine, ids } = await up(p);
    const inspected = engine.peekAll();

    // No results (every command but status): unknown is not ready.
    const [none] = summarizePods(inspected);
    assert.equal(none!.readyCount, 1);
    assert.equal(none!.readyTotal, 2);
    assert.deepEqual(
      none!.containers.map((c) => [c.name, c.ready, c.readiness]),
      [
        ['plain', true, undefined],
        ['probed', false, undefined],
      ],
    );
    assert.deepEqual(none!.containers.find((c) => c.name === 'probed')!.current.probes, { readiness: p.containers[0]!.probes!.readiness });

    const fail: ReadinessCheck = { ok: false, message: 'not ready: readiness probe (exec [cat /tmp/ready]) failed: command exited with code 1' };
    const [failing] = summarizePods(inspected, new Map([[ids.get('probed')!, fail]]));
    assert.equal(failing!.readyCount, 1);
    assert.deepEqual(failing!.containers.find((c) => c.name === 'probed')!.readiness, fail);
    assert.match(statusTable([failing!], Date.now(), false), /Running\s+1\/2\s/);
    const wide = statusTable([failing!], Date.now(), true);
    assert.match(wide, /NOT READY$/m);
    assert.match(wide, /probed: not ready: readiness probe \(exec \[cat \/tmp\/ready\]\) failed: command exited with code 1$/m);
    const doc = statusDocument(failing!, Date.now()) as { ready: string; containers: { name: string; ready: boolean; readiness?: ReadinessCheck }[] };
    assert.equal(doc.ready, '1/2');
    assert.deepEqual(
      doc.containers.map((c) => [c.name, c.ready, c.readiness]),
      [
        ['plain', true, undefined],
        ['probed', false, fail],
      ],
    );

    const [passing] = summarizePods(inspected, new Map([[ids.get('probed')!, { ok: true, message: 'passed' }]]));
    assert.equal(passing!.readyCount, 2);
    assert.match(statusTable([passing!], Date.now(), false), /Running\s+2\/2\s/);
    assert.match(statusTable([passing!], Date.now(), true), /\s-$/m);
  });

  it('a result for a container that is not running does not make it ready', async () => {
    const p = plan([sleeper('probed', { readinessProbe: execReady('/tmp/ready') })]);
    const { engine, ids } = await up(p);
    engine.setState(ids.get('probed')!, { status: 'exited', exitCode: 1 });
    const [pod] = summarizePods(engine.peekAll(), new Map([[ids.get('probed')!, { ok: true, message: 'passed' }]]));
    assert.equal(pod!.readyCount, 0);
    assert.equal(pod!.containers[0]!.readiness, undefined);
  });

  it('sidecars count in READY, regular init containers do not', async () => {
    const p = plan([sleeper('app')], [{ name: 'migrate', image, command: ['true'] }, sleeper('proxy', { restartPolicy: 'Always', readinessProbe: execReady('/tmp/proxy') })]);
    const { engine, ids } = await up(p);
    engine.setState(ids.get('migrate')!, { status: 'exited', exitCode: 0 });
    const [pod] = summarizePods(engine.peekAll());
    assert.deepEqual(
      pod!.sidecars.map((c) => c.name),
      ['proxy'],
    );
    assert.deepEqual(
      pod!.containers.map((c) => c.name),
      ['app'],
    );
    assert.equal(`${pod!.readyCount}/${pod!.readyTotal}`, '1/2');
    const [ready] = summarizePods(engine.peekAll(), new Map([[ids.get('proxy')!, { ok: true, message: 'passed' }]]));
    assert.equal(`${ready!.readyCount}/${ready!.readyTotal}`, '2/2');
    assert.deepEqual(
      (statusDocument(ready!, Date.now()) as { sidecars: { name: string }[] }).sidecars.map((s) => s.name),
      ['proxy'],
    );
  });
});

describe("status's prober on the engine; other commands probe nothing", () => {
  it('runs each readiness probe once, in its container, and the summary counts what they said', async () => {
    const p = plan([sleeper('a', { readinessProbe: execReady('/tmp/a') }), sleeper('b', { readinessProbe: execReady('/tmp/b') }), sleeper('c')]);
    const { engine, ids } = await up(p);
    const execs: { id: string; cmd: string[] }[] = [];
    engine.setExecHandler(({ id, cmd }) => {
      execs.push({ id, cmd });
      return cmd[1] === '/tmp/a' ? { exitCode: 0, output: 'ok' } : { exitCode: 1, output: `cat: can't open '${cmd[1]}': No such file or directory` };
    });

    // logs, exec, stats and completion find pods without a prober: no exec at all.
    const plain = await findPods(engine);
    assert.equal(plain.length, 1);
    assert.equal(engine.callCount('execCapture'), 0);

    const pods = await findPods(engine, undefined, { probe: (found) => probeReadiness(engine, found, Date.now()) });
    assert.equal(engine.callCount('execCapture'), 2);
    assert.deepEqual(execs.map((e) => e.id).sort(), [ids.get('a')!, ids.get('b')!].sort());
    const pod = pods[0]!;
    assert.equal(`${pod.readyCount}/${pod.readyTotal}`, '2/3');
    const b = pod.containers.find((c) => c.name === 'b')!;
    assert.equal(b.ready, false);
    assert.equal(b.readiness!.message, "not ready: readiness probe (exec [cat /tmp/b]) failed: command exited with code 1: cat: can't open '/tmp/b': No such file or directory");
    assert.deepEqual(pod.containers.find((c) => c.name === 'a')!.readiness, { ok: true, message: 'readiness probe (exec [cat /tmp/a]) passed: ok' });
  });

  it('judges a readinessProbe as the run does: successThreshold passes in a row, and a failure among them is not ready', async () => {
    const p = plan([
      sleeper('a', { readinessProbe: { ...execReady('/tmp/a'), successThreshold: 3 } }),
      sleeper('b', { readinessProbe: { ...execReady('/tmp/b'), successThreshold: 3 } }),
    ]);
    const { engine } = await up(p);
    const looks = new Map<string, number>();
    engine.setExecHandler(({ cmd }) => {
      const n = (looks.get(cmd[1]!) ?? 0) + 1;
      looks.set(cmd[1]!, n);
      // b passes once, then fails: not three in a row.
      return cmd[1] === '/tmp/a' || n === 1 ? { exitCode: 0, output: 'ok' } : { exitCode: 1, output: 'gone' };
    });
    const pods = await findPods(engine, undefined, { probe: (found) => probeReadiness(engine, found, Date.now()) });
    assert.equal(looks.get('/tmp/a'), 3);
    assert.equal(looks.get('/tmp/b'), 2);
    const pod = pods[0]!;
    assert.equal(`${pod.readyCount}/${pod.readyTotal}`, '1/2');
    assert.match(pod.containers.find((c) => c.name === 'b')!.readiness!.message, /^not ready: readiness probe \(exec \[cat \/tmp\/b\]\) failed: command exited with code 1: gone/);
  });

  it('a probe that does not answer fails within its timeout, and the probes run side by side', async () => {
    const p = plan([
      sleeper('a', { readinessProbe: { ...execReady('/tmp/a'), timeoutSeconds: 1 } }),
      sleeper('b', { readinessProbe: { ...execReady('/tmp/b'), timeoutSeconds: 1 } }),
    ]);
    const { engine } = await up(p);
    engine.setExecHandler(() => new Promise(() => undefined));
    const started = Date.now();
    const pods = await findPods(engine, undefined, { probe: (found) => probeReadiness(engine, found, Date.now()) });
    const took = Date.now() - started;
    assert.ok(took < 1900, `took ${took} ms: the two 1 s probes ran one after the other`);
    for (const c of pods[0]!.containers) assert.match(c.readiness!.message, /failed: command timed out after 1s/);
  });
});
