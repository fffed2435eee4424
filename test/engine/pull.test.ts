// Image pulls on a real engine from a real registry on loopback (Debian's docker-registry): imagePullPolicy
// Always / IfNotPresent / Never and their defaults, the --pull override, registry credentials from
// DOCKER_CONFIG, pull progress on stderr, and the infra image (runpod's own, or --infra-image pulled).
//
// Images are told apart by content: each test commits its own busybox-based images holding a marker file,
// so "which image runs" is checked by the engine's image id and by reading the marker in the container.
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { busybox, docker, inspect, podContainerIds, removePod, runpod, show, uniqueName, writeManifest, type CliResult } from './harness.js';
import { startRegistry, type Registry } from './registry.js';
import { pauseImageRef } from '../../src/reconcile/pauseImage.js';

// A run expected to succeed returns as soon as the pod runs: a budget that outlasts any pull here (0.5 s,
// doubling, 5 retries: ~15 s) keeps a slow pull from failing it. A run expected to fail (a refused or failed
// pull is retried within the budget, design.md) gets a small one so it ends quickly.
const OK = ['--retries', '5', '--retry-delay', '500ms', '--timeout', '60s'];
const FAIL = ['--retries', '1', '--retry-delay', '100ms', '--timeout', '60s'];

/** A short random suffix for image repositories and tags no other test (or earlier run) uses. */
function rand(): string {
  return randomBytes(4).toString('hex');
}

/** The engine's id of an image (sha256:…), or undefined when no image has that ref. */
function imageId(ref: string): string | undefined {
  try {
    return docker(['image', 'inspect', '--format', '{{.Id}}', ref]);
  } catch {
    return undefined;
  }
}

/** Remove images by exact ref, ignoring those already gone; never throws (cleanup must go on). */
function removeImages(refs: string[]): void {
  for (const ref of refs) {
    if (imageId(ref) === undefined) continue;
    try {
      docker(['rmi', ref]);
    } catch (err) {
      // Reported, not thrown: the other refs still have to go.
      console.error(`cleanup: docker rmi ${ref}: ${(err as Error).message}`);
    }
  }
}

/** What a test made, removed in its t.after whatever happened: pods, image refs, and committed image ids. */
interface Made {
  pods: string[];
  refs: string[];
  ids: string[];
}

/**
 * Registers the cleanup first, so anything the test records afterwards is removed even when it fails: the
 * pods' containers, then the refs it pulled or tagged, then whatever still holds the images it committed.
 */
function made(t: TestContext): Made {
  const m: Made = { pods: [], refs: [], ids: [] };
  t.after(() => {
    for (const p of m.pods) {
      try {
        removePod(p);
      } catch (err) {
        console.error(`cleanup: remove pod ${p}: ${(err as Error).message}`);
      }
    }
    removeImages(m.refs);
    removeImageIds(m.ids);
  });
  return m;
}

/**
 * A busybox image holding /marker with `marker` in it, committed locally as `runpod-test/pull-marker:<rand>`
 * and recorded for cleanup. Every call gives a new image id (new content), whatever the marker.
 */
function markerImage(m: Made, marker: string, cmd = '["sh"]'): { ref: string; id: string } {
  const ref = `runpod-test/pull-marker:${rand()}`;
  const cid = docker(['create', busybox, 'sh', '-c', `echo ${marker} > /marker`]);
  try {
    docker(['start', '-a', cid]);
    docker(['commit', '--change', `CMD ${cmd}`, cid, ref]);
  } finally {
    docker(['rm', '-f', cid]);
  }
  const id = imageId(ref);
  assert.ok(id, `committed ${ref}`);
  m.refs.push(ref);
  m.ids.push(id);
  return { ref, id };
}

/** A pod of one long-running container; `policy` undefined leaves imagePullPolicy to Kubernetes defaulting. */
function podManifest(name: string, image: string, policy?: 'Always' | 'IfNotPresent' | 'Never'): string {
  return [
    'apiVersion: v1',
    'kind: Pod',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    '  terminationGracePeriodSeconds: 0',
    '  containers:',
    '    - name: main',
    `      image: ${image}`,
    ...(policy !== undefined ? [`      imagePullPolicy: ${policy}`] : []),
    '      command: ["sleep", "3600"]',
    '',
  ].join('\n');
}

interface PodContainers {
  infra: ReturnType<typeof inspect>[number];
  main: ReturnType<typeof inspect>[number];
}

function podContainers(name: string): PodContainers {
  const all = inspect(podContainerIds(name));
  const infra = all.filter((c) => c.Config.Labels['io.kubernetes.container.name'] === 'POD');
  const main = all.filter((c) => c.Config.Labels['io.kubernetes.container.name'] === 'main');
  assert.equal(infra.length, 1, `one infra container for ${name}, got ${all.map((c) => c.Name).join(', ')}`);
  assert.equal(main.length, 1, `one main container for ${name}, got ${all.map((c) => c.Name).join(', ')}`);
  return { infra: infra[0]!, main: main[0]! };
}

/** The image id a container was created from (inspect .Image, not the ref in .Config.Image). */
function containerImageId(id: string): string {
  return docker(['inspect', '--format', '{{.Image}}', id]);
}

/** What a running container of the pod reads in /marker. */
function markerIn(containerId: string): string {
  return docker(['exec', containerId, 'cat', '/marker']);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Remove what is left of images this file committed (each unique to one test): every tag and digest reference
 * still on them, by exact ref. A pull that moved a tag away leaves the old image held by a digest reference
 * only (repo@sha256:…), which removing its tags does not remove.
 */
function removeImageIds(ids: string[]): void {
  for (const id of ids) {
    let refs: string[];
    try {
      const out = docker(['image', 'inspect', '--format', '{{json .RepoTags}}\n{{json .RepoDigests}}', id]);
      refs = out.split('\n').flatMap((line) => (JSON.parse(line) as string[] | null) ?? []);
    } catch {
      continue; // gone already
    }
    removeImages(refs);
    if (imageId(id) !== undefined) {
      try {
        docker(['rmi', id]);
      } catch (err) {
        console.error(`cleanup: docker rmi ${id}: ${(err as Error).message}`);
      }
    }
  }
}

describe('image pulls from a loopback registry', () => {
  let registry: Registry;

  before(async () => {
    registry = await startRegistry();
  });
  after(async () => {
    await registry?.stop();
  });

  /**
   * Push A under `repoTag`, run (A is pulled); push B under the same tag and put the local tag back on A, so
   * the engine holds a *stale* copy; `down`, run again: a pulling policy must fetch B.
   */
  async function pullsNewContentEachRun(t: TestContext, manifestImage: (ref: string) => string, repoTag: string, policy?: 'Always'): Promise<void> {
    const m = made(t);
    const name = uniqueName('pull-always');
    const ref = `${registry.host}/${repoTag}`;
    // The ref the engine stores the pull under: an untagged image is pulled as :latest.
    const pulledRef = repoTag.includes(':') ? ref : `${ref}:latest`;
    m.pods.push(name);
    m.refs.push(pulledRef);
    const a = markerImage(m, 'A');
    const b = markerImage(m, 'B');

    await registry.push(a.ref, repoTag);
    const image = manifestImage(ref);
    const file = writeManifest(podManifest(name, image, policy));

    const first = await runpod([file, ...OK]);
    assert.equal(first.code, 0, show(first));
    assert.match(first.stderr, new RegExp(`pulling ${escapeRe(image)}`), show(first));
    let main = podContainers(name).main;
    assert.equal(containerImageId(main.Id), a.id, 'first run uses the image A pulled from the registry');
    assert.equal(markerIn(main.Id), 'A');

    await registry.push(b.ref, repoTag);
    // push untagged the ref locally; tag A again so the engine has the ref, but stale.
    docker(['tag', a.ref, pulledRef]);
    assert.equal(imageId(pulledRef), a.id);

    const down = await runpod(['down', file]);
    assert.equal(down.code, 0, show(down));
    assert.deepEqual(podContainerIds(name), [], 'down removed the pod');

    const second = await runpod([file, ...OK]);
    assert.equal(second.code, 0, show(second));
    assert.match(second.stderr, new RegExp(`pulling ${escapeRe(image)}`), show(second));
    main = podContainers(name).main;
    assert.equal(containerImageId(main.Id), b.id, 'second run pulled B although a stale A was present locally');
    assert.equal(markerIn(main.Id), 'B');
    assert.equal(imageId(pulledRef), b.id, 'the local tag now names B');
  }

  test('imagePullPolicy Always pulls on every run, even when the tag is present locally', async (t) => {
    await pullsNewContentEachRun(t, (ref) => ref, `runpod-test/always-${rand()}:v1`, 'Always');
  });

  test('an untagged image defaults to imagePullPolicy Always', async (t) => {
    await pullsNewContentEachRun(t, (ref) => ref, `runpod-test/untagged-${rand()}`);
  });

  test('an image tagged :latest defaults to imagePullPolicy Always', async (t) => {
    await pullsNewContentEachRun(t, (ref) => ref, `runpod-test/latest-${rand()}:latest`);
  });

  test("a fixed tag defaults to IfNotPresent: the local image is used, not the registry's", async (t) => {
    const m = made(t);
    const name = uniqueName('pull-ifnp');
    const repoTag = `runpod-test/ifnp-${rand()}:v1`;
    const ref = `${registry.host}/${repoTag}`;
    m.pods.push(name);
    m.refs.push(ref);
    const a = markerImage(m, 'A');
    const b = markerImage(m, 'B');

    // The registry holds A under the tag; the engine holds B under the same ref.
    await registry.push(a.ref, repoTag);
    docker(['tag', b.ref, ref]);

    const file = writeManifest(podManifest(name, ref));
    const r = await runpod([file, ...OK]);
    assert.equal(r.code, 0, show(r));
    assert.doesNotMatch(r.stderr, /pulling/, show(r));
    const main = podContainers(name).main;
    assert.equal(containerImageId(main.Id), b.id, 'the local image is used');
    assert.equal(markerIn(main.Id), 'B');
    assert.equal(imageId(ref), b.id, 'the local tag was not moved by a pull');
  });

  test('IfNotPresent with no registry reachable runs the local image', async (t) => {
    const m = made(t);
    const name = uniqueName('pull-ifnp-offline');
    // Nothing listens on port 1: any pull attempt would fail.
    const ref = `127.0.0.1:1/runpod-test/offline-${rand()}:v1`;
    m.pods.push(name);
    m.refs.push(ref);
    const a = markerImage(m, 'A');
    docker(['tag', a.ref, ref]);

    const file = writeManifest(podManifest(name, ref, 'IfNotPresent'));
    const r = await runpod([file, ...OK]);
    assert.equal(r.code, 0, show(r));
    assert.doesNotMatch(r.stderr, /pulling/, show(r));
    const main = podContainers(name).main;
    assert.equal(containerImageId(main.Id), a.id);
    assert.equal(markerIn(main.Id), 'A');
  });

  test('an untagged image (so Always) with no registry reachable runs the image the engine has, with a warning; --pull always fails naming --pull missing', async (t) => {
    const m = made(t);
    const name = uniqueName('pull-always-offline');
    // Nothing listens on port 1: the pull cannot reach a registry, as on an offline host.
    const repo = `127.0.0.1:1/runpod-test/offline-${rand()}`;
    m.pods.push(name);
    m.refs.push(`${repo}:latest`);
    const a = markerImage(m, 'A');
    docker(['tag', a.ref, `${repo}:latest`]);
    const file = writeManifest(podManifest(name, repo));

    const strict = await runpod([file, '--pull', 'always', ...FAIL]);
    assert.equal(strict.code, 1, show(strict));
    assert.match(
      strict.stderr,
      new RegExp(`cannot pull image ${escapeRe(repo)}: .*connection refused; image ${escapeRe(repo)} is on the engine: --pull missing runs it without asking the registry`),
      show(strict),
    );
    removePod(name);

    const r = await runpod([file, ...OK]);
    assert.equal(r.code, 0, show(r));
    assert.match(r.stderr, new RegExp(`warning: image ${escapeRe(repo)}: the registry is out of reach \\(.*connection refused\\); running the image the engine has`), show(r));
    assert.equal(containerImageId(podContainers(name).main.Id), a.id);
    // Shown under -q too: the run did otherwise than the policy asked.
    removePod(name);
    const quiet = await runpod([file, '-q', ...OK]);
    assert.equal(quiet.code, 0, show(quiet));
    assert.match(quiet.stderr, /the registry is out of reach/, show(quiet));
  });

  test('IfNotPresent pulls an absent image, and says so on stderr (no ANSI codes when not a TTY)', async (t) => {
    const m = made(t);
    const name = uniqueName('pull-progress');
    const repoTag = `runpod-test/progress-${rand()}:v1`;
    const ref = `${registry.host}/${repoTag}`;
    m.pods.push(name);
    m.refs.push(ref);
    const a = markerImage(m, 'A');
    await registry.push(a.ref, repoTag);
    assert.equal(imageId(ref), undefined, 'absent before the run');

    const file = writeManifest(podManifest(name, ref, 'IfNotPresent'));
    const r = await runpod([file, ...OK]);
    assert.equal(r.code, 0, show(r));
    assert.match(r.stderr, new RegExp(`pulling ${escapeRe(ref)}(\\s|$)`, 'm'), show(r));
    // One "pulling" line per image, however many progress messages the engine sent.
    assert.equal(r.stderr.split('\n').filter((l) => l.includes(`pulling ${ref}`)).length, 1, show(r));
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(r.stderr, /\x1b\[/, 'plain output has no ANSI escapes');
    assert.equal(imageId(ref), a.id, 'pulled');
    assert.equal(containerImageId(podContainers(name).main.Id), a.id);
  });

  test('a pull slower than --retry-delay does not use up the retries of a healthy pod', async (t) => {
    // The kubelet's run-once (pkg/kubelet/runonce.go runPod) syncs, *then* sleeps the retry delay, then checks:
    // with one retry, the container has been up for the whole delay at that check. A pull that takes longer
    // than the delay must not leave the last check inside the container's settle time.
    const m = made(t);
    const name = uniqueName('pull-slow');
    const repoTag = `runpod-test/slow-${rand()}:v1`;
    const ref = `${registry.host}/${repoTag}`;
    m.pods.push(name);
    m.refs.push(ref);
    const a = markerImage(m, 'A');
    await registry.push(a.ref, repoTag);

    const file = writeManifest(podManifest(name, ref, 'IfNotPresent'));
    // A settle time under the delay: after the sync and a full delay, the container has been up long enough.
    const r = await runpod([file, '--retries', '1', '--retry-delay', '100ms', '--settle', '80ms', '--timeout', '60s']);
    assert.match(r.stderr, new RegExp(`pulling ${escapeRe(ref)}`), show(r));
    assert.equal(r.code, 0, show(r));
    assert.equal(containerImageId(podContainers(name).main.Id), a.id);
  });

  /** A run that must refuse to pull: exit 1, the reason names the image and the Never policy, nothing pulled. */
  async function refusesAbsent(t: TestContext, policy: 'Always' | 'IfNotPresent' | 'Never', extra: string[]): Promise<void> {
    const m = made(t);
    const name = uniqueName('pull-never');
    const repoTag = `runpod-test/never-${rand()}:v1`;
    const ref = `${registry.host}/${repoTag}`;
    m.pods.push(name);
    m.refs.push(ref);
    const a = markerImage(m, 'A');
    // In the registry, so a pull would succeed: only the policy can stop it.
    await registry.push(a.ref, repoTag);

    const file = writeManifest(podManifest(name, ref, policy));
    const r = await runpod([file, ...FAIL, ...extra]);
    assert.equal(r.code, 1, show(r));
    assert.match(r.stderr, new RegExp(`${escapeRe(ref)}.*not present`), show(r));
    assert.match(r.stderr, /Never/, show(r));
    assert.doesNotMatch(r.stderr, /pulling/, show(r));
    assert.equal(imageId(ref), undefined, 'nothing was pulled');
    const main = inspect(podContainerIds(name)).filter((c) => c.Config.Labels['io.kubernetes.container.name'] === 'main');
    assert.deepEqual(main, [], 'no container was created from the image');
  }

  test('imagePullPolicy Never with the image absent: exit 1 naming the image and the policy', async (t) => {
    await refusesAbsent(t, 'Never', []);
  });

  test("--pull never overrides a manifest's Always", async (t) => {
    await refusesAbsent(t, 'Always', ['--pull', 'never']);
  });

  test('--pull missing overrides Never (pulls an absent image) and Always (keeps a present one)', async (t) => {
    const m = made(t);
    const absentPod = uniqueName('pull-missing-a');
    const presentPod = uniqueName('pull-missing-b');
    const absentTag = `runpod-test/missing-${rand()}:v1`;
    const presentTag = `runpod-test/missing-${rand()}:v1`;
    const absentRef = `${registry.host}/${absentTag}`;
    const presentRef = `${registry.host}/${presentTag}`;
    m.pods.push(absentPod, presentPod);
    m.refs.push(absentRef, presentRef);
    const a = markerImage(m, 'A');
    const b = markerImage(m, 'B');
    await registry.push(a.ref, absentTag);
    await registry.push(a.ref, presentTag);
    docker(['tag', b.ref, presentRef]);

    const never = writeManifest(podManifest(absentPod, absentRef, 'Never'));
    const r1 = await runpod([never, ...OK, '--pull', 'missing']);
    assert.equal(r1.code, 0, show(r1));
    assert.match(r1.stderr, new RegExp(`pulling ${escapeRe(absentRef)}`), show(r1));
    assert.equal(containerImageId(podContainers(absentPod).main.Id), a.id);

    const always = writeManifest(podManifest(presentPod, presentRef, 'Always'));
    const r2 = await runpod([always, ...OK, '--pull', 'missing']);
    assert.equal(r2.code, 0, show(r2));
    assert.doesNotMatch(r2.stderr, /pulling/, show(r2));
    assert.equal(containerImageId(podContainers(presentPod).main.Id), b.id, "the local image, not the registry's");
  });

  test("--pull always overrides IfNotPresent and Never: a stale local image is replaced by the registry's", async (t) => {
    const m = made(t);
    const ifnpPod = uniqueName('pull-always-o1');
    const neverPod = uniqueName('pull-always-o2');
    const tag1 = `runpod-test/override-${rand()}:v1`;
    const tag2 = `runpod-test/override-${rand()}:v1`;
    const ref1 = `${registry.host}/${tag1}`;
    const ref2 = `${registry.host}/${tag2}`;
    m.pods.push(ifnpPod, neverPod);
    m.refs.push(ref1, ref2);
    const a = markerImage(m, 'A');
    const b = markerImage(m, 'B');
    // Registry: A. Engine: B under the same refs (stale).
    await registry.push(a.ref, tag1);
    await registry.push(a.ref, tag2);
    docker(['tag', b.ref, ref1]);
    docker(['tag', b.ref, ref2]);

    for (const [pod, ref, policy] of [
      [ifnpPod, ref1, 'IfNotPresent'],
      [neverPod, ref2, 'Never'],
    ] as const) {
      const file = writeManifest(podManifest(pod, ref, policy));
      const r = await runpod([file, ...OK, '--pull', 'always']);
      assert.equal(r.code, 0, `${policy}: ${show(r)}`);
      assert.match(r.stderr, new RegExp(`pulling ${escapeRe(ref)}`), show(r));
      const main = podContainers(pod).main;
      assert.equal(containerImageId(main.Id), a.id, `${policy} overridden: the registry's image runs`);
      assert.equal(markerIn(main.Id), 'A');
    }
  });
});

describe('registry credentials from DOCKER_CONFIG', () => {
  const username = 'runpod-tester';
  // Colons and a plus: the password must survive the config's "user:password" base64 form intact.
  const password = `pw-${rand()}:${rand()}+x`;
  const wrongPassword = `wrong-${rand()}`;
  let registry: Registry | undefined;
  let ref: string;
  let local: { ref: string; id: string };
  const suiteMade: Made = { pods: [], refs: [], ids: [] };
  // A config with no credentials, so the host's own ~/.docker/config.json cannot lend any.
  const emptyConfig = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-dockercfg-empty-'));

  before(async () => {
    registry = await startRegistry({ auth: { username, password } });
    local = markerImage(suiteMade, 'AUTH');
    ref = `${registry.host}/runpod-test/private-${rand()}:v1`;
    suiteMade.refs.push(ref);
    await registry.push(local.ref, ref.slice(registry.host.length + 1));
  });
  after(async () => {
    removeImages(suiteMade.refs);
    removeImageIds(suiteMade.ids);
    await registry?.stop();
    fs.rmSync(emptyConfig, { recursive: true, force: true });
  });

  /** Secrets of a config: the passwords and the base64 `auth` strings the config file holds. */
  function secrets(): string[] {
    const b64 = (p: string): string => Buffer.from(`${username}:${p}`).toString('base64');
    return [password, wrongPassword, b64(password), b64(wrongPassword)];
  }

  async function failsToPull(t: TestContext, dockerConfig: string): Promise<CliResult> {
    const m = made(t);
    const name = uniqueName('pull-auth-bad');
    m.pods.push(name);
    m.refs.push(ref);
    assert.equal(imageId(ref), undefined, 'absent before the run');
    const file = writeManifest(podManifest(name, ref, 'IfNotPresent'));
    const r = await runpod([file, ...FAIL], { env: { DOCKER_CONFIG: dockerConfig } });
    assert.equal(r.code, 1, show(r));
    // The one line that says what failed names the image and why.
    assert.match(r.stderr, new RegExp(`${escapeRe(ref)}.*(unauthorized|authentication required|no basic auth credentials)`, 'i'), show(r));
    for (const s of secrets()) {
      assert.equal(r.stdout.includes(s), false, `stdout must not hold a secret: ${show(r)}`);
      assert.equal(r.stderr.includes(s), false, `stderr must not hold a secret: ${show(r)}`);
    }
    assert.equal(imageId(ref), undefined, 'nothing pulled');
    return r;
  }

  test('a wrong password fails with a clear reason and never shows the password', async (t) => {
    await failsToPull(t, registry!.dockerConfigDir({ password: wrongPassword }));
  });

  test('no credentials at all fails with a clear reason', async (t) => {
    await failsToPull(t, emptyConfig);
  });

  test('the right credentials pull the image', async (t) => {
    const m = made(t);
    const name = uniqueName('pull-auth-ok');
    m.pods.push(name);
    m.refs.push(ref);
    assert.equal(imageId(ref), undefined, 'absent before the run');
    const file = writeManifest(podManifest(name, ref, 'IfNotPresent'));
    const r = await runpod([file, ...OK], { env: { DOCKER_CONFIG: registry!.dockerConfigDir() } });
    assert.equal(r.code, 0, show(r));
    assert.match(r.stderr, new RegExp(`pulling ${escapeRe(ref)}`), show(r));
    for (const s of secrets()) assert.equal(`${r.stdout}${r.stderr}`.includes(s), false, `output must not hold a secret: ${show(r)}`);
    const main = podContainers(name).main;
    assert.equal(containerImageId(main.Id), local.id);
    assert.equal(markerIn(main.Id), 'AUTH');
  });
  test('an imagePullSecret in the input (kubernetes.io/dockerconfigjson) pulls with no Docker config credentials', async (t) => {
    const m = made(t);
    const name = uniqueName('pull-secret');
    m.pods.push(name);
    m.refs.push(ref);
    assert.equal(imageId(ref), undefined, 'absent before the run');
    const config = JSON.stringify({ auths: { [registry!.host]: { auth: Buffer.from(`${username}:${password}`).toString('base64') } } });
    const secret = [
      'apiVersion: v1',
      'kind: Secret',
      'metadata:',
      '  name: regcred',
      'type: kubernetes.io/dockerconfigjson',
      'data:',
      `  .dockerconfigjson: ${Buffer.from(config).toString('base64')}`,
    ].join('\n');
    const pod = podManifest(name, ref, 'IfNotPresent').replace('spec:\n', 'spec:\n  imagePullSecrets:\n    - name: regcred\n');
    const file = writeManifest(`${secret}\n---\n${pod}`);
    const r = await runpod([file, ...OK], { env: { DOCKER_CONFIG: emptyConfig } });
    assert.equal(r.code, 0, show(r));
    for (const s of [...secrets(), Buffer.from(config).toString('base64')]) {
      assert.equal(`${r.stdout}${r.stderr}`.includes(s), false, `output must not hold a secret: ${show(r)}`);
    }
    assert.equal(markerIn(podContainers(name).main.Id), 'AUTH');
  });

  test('an imagePullSecret that is not in the input is a manifest error (exit 2, nothing created)', async (t) => {
    const m = made(t);
    const name = uniqueName('pull-secret-missing');
    m.pods.push(name);
    const pod = podManifest(name, ref, 'IfNotPresent').replace('spec:\n', 'spec:\n  imagePullSecrets:\n    - name: nowhere\n');
    const r = await runpod([writeManifest(pod), ...FAIL], { env: { DOCKER_CONFIG: emptyConfig } });
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /spec\.imagePullSecrets\[0\]\.name: Secret "nowhere" is not in the input/, show(r));
    assert.deepEqual(podContainerIds(name), []);
  });
});

describe('the infra image', () => {
  test("by default it is runpod's own pause image, labelled as runpod's", async (t) => {
    const m = made(t);
    const name = uniqueName('pull-infra-default');
    m.pods.push(name);
    const file = writeManifest(podManifest(name, busybox));
    const r = await runpod([file, ...OK]);
    assert.equal(r.code, 0, show(r));
    const { infra } = podContainers(name);
    assert.match(infra.Config.Image, /^runpod\/pause:(amd64|arm64)-[0-9a-f]{12}$/);
    const arch = docker(['version', '--format', '{{.Server.Arch}}']);
    assert.equal(infra.Config.Image, pauseImageRef(arch));
    const labels = JSON.parse(docker(['image', 'inspect', '--format', '{{json .Config.Labels}}', infra.Config.Image])) as Record<string, string> | null;
    assert.equal(labels?.['app.kubernetes.io/managed-by'], 'runpod');
    assert.equal(containerImageId(infra.Id), imageId(infra.Config.Image));
    // Built locally: no pull.
    assert.doesNotMatch(r.stderr, /pulling/, show(r));
  });

  test('--infra-image pulls an absent image from the registry and runs the infra container from it', async (t) => {
    const m = made(t);
    const registry = await startRegistry();
    t.after(() => registry.stop());
    const name = uniqueName('pull-infra');
    const repoTag = `runpod-test/infra-${rand()}:3.10`;
    const ref = `${registry.host}/${repoTag}`;
    m.pods.push(name);
    m.refs.push(ref);
    // An infra image that stays up: busybox sleeping (killed at once by down and cleanup: grace period 0).
    const local = markerImage(m, 'INFRA', '["sleep", "3600"]');
    await registry.push(local.ref, repoTag);
    assert.equal(imageId(ref), undefined, 'absent before the run');

    const file = writeManifest(podManifest(name, busybox));
    const r = await runpod([file, ...OK, '--infra-image', ref]);
    assert.equal(r.code, 0, show(r));
    assert.match(r.stderr, new RegExp(`pulling ${escapeRe(ref)}`), show(r));
    const { infra, main } = podContainers(name);
    assert.equal(infra.Config.Image, ref);
    assert.equal(containerImageId(infra.Id), local.id);
    assert.equal(markerIn(infra.Id), 'INFRA');
    assert.equal(main.HostConfig.NetworkMode, `container:${infra.Id}`, 'the container joins the pulled infra container');
  });
});
