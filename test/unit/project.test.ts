// Isolation keys (issue 14), the exit code of a container, and exec's word split: the pure parts, and a run-once
// loop under two keys on the in-memory engine.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execCommandWords } from '../../src/cli/cli.js';
import { projectOf } from '../../src/cli/operate.js';
import { checkExitCodeFromWait, resolveExitCodeFrom } from '../../src/agent/exitCodeFrom.js';
import { withContainerCode } from '../../src/agent/verdict.js';
import { sourcesElsewhere } from '../../src/reconcile/otherKeys.js';
import { projectEngine } from '../../src/engine/ports/project.js';
import { ForwardedExitError, InterruptedError, PodFailedError, UsageError } from '../../src/errors.js';
import type { LoadedPod } from '../../src/manifest/types.js';
import { podLabelsOf } from '../../src/kube/labels.js';
import { dockerContainerName, podUid } from '../../src/kube/names.js';
import { inProject, projectProblem } from '../../src/kube/project.js';
import { translatePod } from '../../src/plan/translate.js';
import { podEnvironment } from '../../src/report/env.js';
import { ImagePuller } from '../../src/reconcile/images.js';
import { observePod } from '../../src/reconcile/observe.js';
import { Backoff } from '../../src/wait/backoff.js';
import { runPod } from '../../src/wait/runOnce.js';
import { MemoryEngine } from './support/memoryEngine.js';

const image = 'busybox:1';
const infraImage = 'pause:test';

function loaded(name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): LoadedPod {
  return {
    pod: {
      metadata: { name, namespace: 'default', ...metadata },
      spec: { restartPolicy: 'Always', terminationGracePeriodSeconds: 0, containers: [{ name: 'main', image, imagePullPolicy: 'Never', command: ['sleep', '3600'] }], ...spec },
    },
    source: { file: '<stdin>' },
    line: 1,
  } as LoadedPod;
}

describe('isolation keys: names, uids, labels', () => {
  it('a key is a DNS-1123 label of at most 40 characters', () => {
    for (const ok of ['ci-1234', '42', 'a']) assert.equal(projectProblem(ok), undefined, ok);
    for (const bad of ['', 'Job', 'job_1', '-job', 'job-', 'a.b', 'x'.repeat(41)]) assert.notEqual(projectProblem(bad), undefined, bad);
  });
  it('--project, else $RUNPOD_PROJECT (empty counts as unset), else none; a bad one names its source', () => {
    assert.deepEqual(projectOf('ci-1', { RUNPOD_PROJECT: 'other' }), { project: 'ci-1' });
    assert.deepEqual(projectOf(undefined, { RUNPOD_PROJECT: 'job-7' }), { project: 'job-7' });
    assert.deepEqual(projectOf(undefined, { RUNPOD_PROJECT: '' }), {});
    assert.deepEqual(projectOf(undefined, {}), {});
    assert.throws(
      () => projectOf('CI_1', {}),
      (e: unknown) => e instanceof UsageError && /^--project CI_1: not an isolation key/.test(e.message),
    );
    assert.throws(() => projectOf(undefined, { RUNPOD_PROJECT: 'CI_1' }), /RUNPOD_PROJECT=CI_1: not an isolation key/);
  });
  it('the uid, engine names and claim volumes differ by key; without a key they are as before', () => {
    assert.equal(podUid('default', 'web'), podUid('default', 'web', undefined, undefined));
    assert.notEqual(podUid('default', 'web', undefined, 'a'), podUid('default', 'web', undefined, 'b'));
    assert.notEqual(podUid('default', 'web', undefined, 'a'), podUid('default', 'web'));
    // A uid the manifest gives is kept without a key, and made the key's own with one.
    assert.equal(podUid('default', 'web', 'u-1'), 'u-1');
    assert.notEqual(podUid('default', 'web', 'u-1', 'a'), 'u-1');
    assert.equal(dockerContainerName('main', 'web', 'default', 'U', 0, 'ci-1'), 'k8s_main_web_default.ci-1_U_0');
    const spec = { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'db' } }] };
    const plain = translatePod(loaded('web', spec), { infraImage });
    const keyed = translatePod(loaded('web', spec), { infraImage, project: 'ci-1' });
    assert.equal(plain.volumes[0]!.type === 'persistentVolumeClaim' && plain.volumes[0]!.engineName, 'pvc_default_db');
    assert.equal(keyed.volumes[0]!.type === 'persistentVolumeClaim' && keyed.volumes[0]!.engineName, 'pvc_default.ci-1_db');
    assert.equal(keyed.infra.create.Labels?.['io.runpod.project'], 'ci-1');
    assert.equal(keyed.containers[0]!.create.Labels?.['io.runpod.project'], 'ci-1');
    assert.equal(plain.infra.create.Labels?.['io.runpod.project'], undefined);
    assert.equal(keyed.hash, plain.hash, 'the key is no part of what the pod is');
  });
  it('without a key only what was made without one belongs; with one, only its own', () => {
    assert.equal(inProject({}, undefined), true);
    assert.equal(inProject({ 'io.runpod.project': 'a' }, undefined), false);
    assert.equal(inProject({ 'io.runpod.project': 'a' }, 'a'), true);
    assert.equal(inProject({}, 'a'), false);
  });
  it("the pod's labels come back from its infra container without runpod's own keys", () => {
    const infra = translatePod(loaded('web', {}, { labels: { app: 'web', 'example.com/tier': 'front' }, annotations: { note: 'x' } }), { infraImage, project: 'k' }).infra;
    assert.deepEqual(podLabelsOf(infra.create.Labels ?? {}), { app: 'web', 'example.com/tier': 'front' });
  });
  it('-o env and a scoped command get RUNPOD_PROJECT first, so runpod commands run with them follow the key', () => {
    const env = podEnvironment([{ namespace: 'default', name: 'db', ip: '172.17.0.2', ports: [] }], 'run-1a2b3c4d');
    assert.deepEqual(env.vars.slice(0, 2), [
      ['RUNPOD_PROJECT', 'run-1a2b3c4d'],
      ['RUNPOD_DB_IP', '172.17.0.2'],
    ]);
    assert.equal(
      podEnvironment([{ namespace: 'default', name: 'db', ip: '1.2.3.4', ports: [] }]).vars.some(([k]) => k === 'RUNPOD_PROJECT'),
      false,
    );
  });
});

describe('an engine confined to a key (engine/ports/project.ts), on the in-memory engine', () => {
  const engines: MemoryEngine[] = [];
  afterEach(() => {
    for (const e of engines.splice(0)) e.dispose();
  });
  const up = (engine: MemoryEngine, project: string | undefined) => {
    const confined = projectEngine(engine, project);
    const plan = translatePod(loaded('web'), { infraImage, ...(project !== undefined ? { project } : {}) });
    return runPod(plan, {
      engine: confined,
      images: new ImagePuller(confined, () => Promise.resolve(undefined)),
      mode: 'running',
      backoff: new Backoff({ retries: 5, retryDelayMs: 5, factor: 2, maxDelayMs: 20 }),
      settleMs: 0,
      signal: new AbortController().signal,
      now: Date.now,
    });
  };

  it('one pod name under no key and two keys gives three pods, each seeing only its own', async () => {
    const engine = new MemoryEngine({ images: [image, infraImage] });
    engines.push(engine);
    const outcomes = await Promise.all([up(engine, undefined), up(engine, 'a'), up(engine, 'b')]);
    for (const o of outcomes) assert.equal(o.status, 'succeeded', o.reason);
    assert.equal(engine.peekAll().length, 6, 'an infra and an app container per key');
    for (const key of [undefined, 'a', 'b']) {
      const observed = await observePod(projectEngine(engine, key), 'default', 'web');
      assert.equal(observed.infra.length, 1, `key ${key}`);
      assert.equal(observed.containers.get('main')?.length, 1, `key ${key}`);
      const labels = (await projectEngine(engine, key).listContainers([])).map((c) => c.labels['io.runpod.project']);
      assert.deepEqual(labels, [key, key]);
    }
    // A re-run under a key changes nothing of it, and nothing of the others'.
    const again = await up(engine, 'a');
    assert.equal(again.status, 'succeeded');
    assert.deepEqual(again.actions, []);
    assert.equal(engine.peekAll().length, 6);
  });
  it('creates carry the key even when the options leave it out; volumes too', async () => {
    const engine = new MemoryEngine({ images: [image] });
    engines.push(engine);
    const confined = projectEngine(engine, 'k');
    await confined.createContainer('k8s_x', { Image: image, Labels: { 'app.kubernetes.io/managed-by': 'runpod' } });
    await confined.createVolume('vol', { labels: { 'app.kubernetes.io/managed-by': 'runpod' } });
    assert.equal(engine.peekAll()[0]!.Config.Labels?.['io.runpod.project'], 'k');
    assert.equal(engine.peekVolume('vol')?.labels['io.runpod.project'], 'k');
    assert.equal((await projectEngine(engine, undefined).listVolumes([])).length, 0, 'unkeyed lists never see it');
  });
});

describe('--exit-code-from', () => {
  const pods = [
    loaded('web', {
      containers: [
        { name: 'main', image },
        { name: 'tests', image },
      ],
    }),
    loaded('api', { containers: [{ name: 'main', image }], initContainers: [{ name: 'migrate', image }] }),
  ];
  it('names one container of the input: container, pod/container or namespace/pod/container', () => {
    assert.deepEqual(resolveExitCodeFrom('tests', pods), { namespace: 'default', pod: 'web', container: 'tests' });
    assert.deepEqual(resolveExitCodeFrom('api/main', pods), { namespace: 'default', pod: 'api', container: 'main' });
    assert.deepEqual(resolveExitCodeFrom('default/api/migrate', pods), { namespace: 'default', pod: 'api', container: 'migrate' });
    assert.throws(() => resolveExitCodeFrom('main', pods), /2 pods have a container main \(default\/web, default\/api\); name one as pod\/main/);
    assert.throws(() => resolveExitCodeFrom('nope', pods), /no such container in the input; its containers: web\/main, web\/tests, api\/migrate, api\/main/);
    assert.throws(() => resolveExitCodeFrom('a/b/c/d', pods), UsageError);
  });
  it("a Job's container is the Job's, whichever pod runs it; it needs no --wait completed, a bare pod's does", () => {
    const job = [
      { ...loaded('pi-abcde', { containers: [{ name: 'main', image }] }), owner: 'job/pi' },
      { ...loaded('pi-fghjk', { containers: [{ name: 'main', image }] }), owner: 'job/pi' },
    ];
    const fromJob = resolveExitCodeFrom('main', job);
    assert.deepEqual(fromJob, { namespace: 'default', pod: 'pi-abcde', container: 'main', job: 'job/pi' });
    assert.doesNotThrow(() => checkExitCodeFromWait('main', fromJob, 'running', false));
    const bare = resolveExitCodeFrom('tests', pods);
    assert.throws(() => checkExitCodeFromWait('tests', bare, 'running', false), /--exit-code-from tests needs --wait completed, or a command after --/);
    assert.doesNotThrow(() => checkExitCodeFromWait('tests', bare, 'completed', false));
    assert.doesNotThrow(() => checkExitCodeFromWait('tests', bare, 'ready', true));
  });
  const from = { namespace: 'default', pod: 'web', container: 'tests' };
  it("a non-zero code replaces a success, a pod's failure and a scoped command's code", () => {
    assert.equal(withContainerCode(3, from, undefined)?.exitCode, 3);
    const failed = withContainerCode(3, from, new PodFailedError('pod default/web failed: tests exited 3'));
    assert.equal(failed?.exitCode, 3);
    assert.deepEqual(failed?.detail(), ['pod default/web failed: tests exited 3'], "the run's account stays as detail");
    assert.equal(withContainerCode(3, from, new ForwardedExitError('the command exited with code 1', 1))?.exitCode, 3);
  });
  it('a code of 0 or none never hides a failure; a signal or timeout stands', () => {
    assert.equal(withContainerCode(0, from, undefined), undefined);
    assert.equal(withContainerCode(0, from, new PodFailedError('x'))?.exitCode, 1);
    assert.equal(withContainerCode(undefined, from, new ForwardedExitError('y', 5))?.exitCode, 5);
    assert.equal(withContainerCode(3, from, new InterruptedError('SIGINT'))?.exitCode, 130);
  });
});

describe("exec's words, as kubectl exec reads them", () => {
  const cases: [string[], string[]][] = [
    [
      ['exec', 'web', 'sh', '-c', 'ls -l'],
      ['exec', 'web', '--', 'sh', '-c', 'ls -l'],
    ],
    [
      ['exec', 'web', '-c', 'side', 'sh', '-c', 'x'],
      ['exec', 'web', '-c', 'side', '--', 'sh', '-c', 'x'],
    ],
    [
      ['exec', '-it', '-n', 'ci', 'web', 'sh'],
      ['exec', '-it', '-n', 'ci', 'web', '--', 'sh'],
    ],
    [
      ['exec', '--container=side', 'web', 'ls', '-la'],
      ['exec', '--container=side', 'web', '--', 'ls', '-la'],
    ],
    [
      ['exec', 'web', '--', 'sh', '-c', 'x'],
      ['exec', 'web', '--', 'sh', '-c', 'x'],
    ],
    [
      ['exec', 'web'],
      ['exec', 'web'],
    ],
    [
      ['status', 'web', 'x'],
      ['status', 'web', 'x'],
    ],
  ];
  for (const [given, want] of cases) it(given.join(' '), () => assert.deepEqual(execCommandWords(given), want));
});

describe("a pod argument: name, namespace/name, kubectl's kind/name", () => {
  it('deploy/web is the workload, pod/web a pod, ns/name a pod in ns; pod/a/b is refused', async () => {
    const { parsePodArg } = await import('../../src/reconcile/pods.js');
    assert.deepEqual(parsePodArg('deploy/web', 'ci'), { namespace: 'ci', owner: 'deployment/web' });
    assert.deepEqual(parsePodArg('sts/db', 'ci'), { namespace: 'ci', owner: 'statefulset/db' });
    assert.deepEqual(parsePodArg('job/pi', 'default'), { namespace: 'default', owner: 'job/pi' });
    assert.deepEqual(parsePodArg('pod/web', 'ci'), { namespace: 'ci', name: 'web' });
    assert.deepEqual(parsePodArg('shop/web', 'ci'), { namespace: 'shop', name: 'web' });
    assert.throws(() => parsePodArg('pod/a/b', 'ci'), /"pod\/a\/b" is not a pod: expected pod\/<name>/);
  });
});

describe('a source already running under another key', () => {
  const infra = (source: string, project: string | undefined, pod: string, state = 'running') => ({
    id: `${pod}-${project ?? 'none'}`,
    name: `k8s_POD_${pod}`,
    state,
    created: 0,
    labels: {
      'io.kubernetes.pod.namespace': 'default',
      'io.kubernetes.pod.name': pod,
      'io.runpod.source': source,
      ...(project !== undefined ? { 'io.runpod.project': project } : {}),
    },
  });
  it("is said when this run's key has no pod of it yet, naming the key that has and how to reach it", () => {
    const list = [infra('/k8s', 'ci-42', 'db-0'), infra('/k8s', 'ci-42', 'api'), infra('/other', undefined, 'x')];
    assert.deepEqual(sourcesElsewhere(new Set(['/k8s']), undefined, list), [
      '/k8s already runs under isolation key ci-42 (2 pods: default/api, default/db-0); this run, without an isolation key, makes a second copy beside it (its own pods, claims and host ports). To act on the one there, run with --project ci-42 (or RUNPOD_PROJECT=ci-42)',
    ]);
    assert.match(
      sourcesElsewhere(new Set(['/other']), 'ci-42', list)[0]!,
      /^\/other already runs without an isolation key \(1 pod: default\/x\); this run, under isolation key ci-42, .* run with no --project and no RUNPOD_PROJECT$/,
    );
  });
  it('is not said once this key has pods of it, nor for pods that no longer run', () => {
    assert.deepEqual(sourcesElsewhere(new Set(['/k8s']), undefined, [infra('/k8s', 'ci-42', 'db-0'), infra('/k8s', undefined, 'db-0', 'exited')]), []);
    assert.deepEqual(sourcesElsewhere(new Set(['/k8s']), undefined, [infra('/k8s', 'ci-42', 'db-0', 'exited')]), []);
  });
});
