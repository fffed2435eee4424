// Property (issue 11): from any state the engine may hold for a pod — instances of every state, stale hashes,
// restart policies an engine restart left, removals and updates the engine refuses — repeated decide -> apply on
// the in-memory engine reaches success or a named failure within a bounded number of syncs, and never ends with
// an empty reason.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { LoadedPod } from '../../../src/manifest/types.js';
import { instanceCreateOptions, translatePod } from '../../../src/plan/translate.js';
import { Label } from '../../../src/kube/labels.js';
import { ImagePuller } from '../../../src/reconcile/images.js';
import { VolumeWork } from '../../../src/reconcile/volumes.js';
import { Backoff } from '../../../src/wait/backoff.js';
import { runPod } from '../../../src/wait/runOnce.js';
import { MemoryEngine, type ContainerStatus, type RestartPolicyName } from '../support/memoryEngine.js';
import type { PodPlan } from '../../../src/plan/types.js';

const image = 'busybox:1';
const retries = 6;

function planOf(restartPolicy: 'Always' | 'OnFailure' | 'Never', containers: number): PodPlan {
  const names = ['a', 'b', 'c'].slice(0, containers);
  const loaded = {
    pod: {
      metadata: { name: 'prop', namespace: 'default' },
      spec: { restartPolicy, terminationGracePeriodSeconds: 0, containers: names.map((name) => ({ name, image, imagePullPolicy: 'Never', command: ['sleep', '3600'] })) },
    },
    source: { file: '<stdin>' },
    line: 1,
  } as LoadedPod;
  return translatePod(loaded, { infraImage: 'pause:test' });
}

const status = fc.constantFrom<ContainerStatus>('created', 'running', 'restarting', 'exited', 'dead', 'removing');
const policy = fc.constantFrom<RestartPolicyName | ''>('no', 'always', 'on-failure', '');
const instance = fc.record({
  status,
  exitCode: fc.constantFrom(0, 1, 137),
  policy,
  stale: fc.boolean(),
  refuseRemoval: fc.boolean(),
});
const scenario = fc.record({
  restartPolicy: fc.constantFrom<'Always' | 'OnFailure' | 'Never'>('Always', 'OnFailure', 'Never'),
  containers: fc.integer({ min: 1, max: 2 }),
  infra: fc.option(fc.record({ status, stale: fc.boolean(), refuseRemoval: fc.boolean() }), { nil: undefined }),
  instances: fc.array(fc.array(instance, { maxLength: 3 }), { minLength: 2, maxLength: 2 }),
  updatesIgnored: fc.boolean(),
});

const engines: MemoryEngine[] = [];
afterEach(() => {
  for (const e of engines.splice(0)) e.dispose();
});

describe('the run-once loop converges or names why not (property, in-memory engine)', () => {
  it('from random engine states: success or a named failure, within the retry budget, never an empty reason', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const engine = new MemoryEngine({ images: [image, 'pause:test'] });
        engines.push(engine);
        const plan = planOf(s.restartPolicy, s.containers);
        let infraId: string | undefined;
        // As a run before made them: the pod's volumes first (runpod's own, labelled), then its containers.
        await new VolumeWork(engine, plan).ensureInfraVolumes();
        if (s.infra) {
          const { name, options } = instanceCreateOptions(plan, plan.infra, 0);
          if (s.infra.stale) options.Labels = { ...options.Labels, [Label.containerHash]: 'stale' };
          infraId = await engine.createContainer(name, options);
          engine.setState(infraId, { status: s.infra.status, startedAt: 1_000 });
          if (s.infra.refuseRemoval) engine.refuseRemoval(infraId);
        }
        for (const [i, c] of plan.containers.entries()) {
          // Attempts newest first: the first generated instance is the newest.
          const list = s.instances[i] ?? [];
          for (const [k, inst] of list.entries()) {
            const { name, options } = instanceCreateOptions(plan, c, list.length - 1 - k, infraId);
            if (inst.stale) options.Labels = { ...options.Labels, [Label.containerHash]: 'stale' };
            const id = await engine.createContainer(name, options);
            engine.setState(id, { status: inst.status, exitCode: inst.exitCode, restartPolicy: inst.policy, manuallyStopped: true, startedAt: 2_000, finishedAt: 3_000 });
            if (inst.refuseRemoval) engine.refuseRemoval(id);
          }
        }
        if (s.updatesIgnored) engine.onCall('updateRestartPolicy', () => Promise.resolve());

        const out = await runPod(plan, {
          engine,
          images: new ImagePuller(engine, () => Promise.resolve(undefined)),
          mode: 'running',
          backoff: new Backoff({ retries, retryDelayMs: 1, factor: 2, maxDelayMs: 4 }),
          settleMs: 0,
          signal: new AbortController().signal,
          now: Date.now,
        });
        assert.ok(out.status === 'succeeded' || out.status === 'failed', `${out.status}: ${out.reason}`);
        assert.ok(out.reason.trim().length > 0, 'the reason is never empty');
        assert.doesNotMatch(out.reason, /:\s*$|:\s*;/, `no empty part in: ${out.reason}`);
        assert.ok(out.retriesUsed <= retries);
        // Bounded: each retry allows the immediate checks after a sync, and no more.
        assert.ok(out.checks <= (retries + 1) * 5, `${out.checks} checks`);
        if (out.status === 'succeeded') {
          // Success means it, even across a later engine restart: per container, at most one instance runs or would
          // be started again by the daemon (Docker restarts "always" containers at daemon start even when stopped by
          // hand, "on-failure" ones that failed; never dead ones, nor ones never started). This holds even when the
          // engine ignores runpod's updates and refuses its removals: a refused removal leaves the instance dead.
          const wouldRun = new Map<string, number>();
          for (const c of engine.peekAll()) {
            const name = c.Config.Labels?.[Label.containerName];
            if (name === undefined || name === 'POD') continue;
            const policy = c.HostConfig.RestartPolicy?.Name || 'no';
            const started = !c.State.StartedAt.startsWith('0001-');
            const revives = c.State.Status === 'exited' && started && (policy === 'always' || (policy === 'on-failure' && c.State.ExitCode !== 0));
            if (c.State.Status === 'running' || revives) wouldRun.set(name, (wouldRun.get(name) ?? 0) + 1);
          }
          for (const [name, n] of wouldRun) assert.ok(n <= 1, `${name}: ${n} instances would run after an engine restart`);
          for (const c of plan.containers) assert.ok(s.restartPolicy !== 'Always' || (wouldRun.get(c.name) ?? 0) >= 1, `${c.name} runs`);
        }
      }),
      { numRuns: 150 },
    );
  });
});
