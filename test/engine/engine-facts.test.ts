// Fields that depend on the engine (issue 16), on this machine's engine: what it can do is asked of it (/version,
// /info) and a field it cannot honour is refused before anything is made (exit 2, naming the engine's version);
// what it can do is checked from inside the containers. Every run is under an isolation key of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { uniqueName } from './harness.js';
import { checkNothingLeftBehind, cleanupFile, cleanupPod, docker, dockerTry, must, podContainers, podFile, podObject, runpod, show, sleeper, tempDir } from './run-helpers.js';

checkNothingLeftBehind();

/** What the engine says about itself, as a test reads it (not through runpod). */
const info = JSON.parse(docker(['info', '--format', '{{json .}}'])) as { SecurityOptions?: string[]; ServerVersion: string };
const version = JSON.parse(docker(['version', '--format', '{{json .Server}}'])) as { ApiVersion: string; Version: string };
const hasAppArmor = (info.SecurityOptions ?? []).some((o) => o === 'name=apparmor' || o === 'apparmor');
const hasSeccomp = (info.SecurityOptions ?? []).some((o) => o.startsWith('name=seccomp') || o === 'seccomp');
const api = version.ApiVersion.split('.').map(Number) as [number, number];
const apiAtLeast = (minor: number): boolean => api[0] > 1 || api[1] >= minor;
const engineName = `Docker ${version.Version} (Engine API ${version.ApiVersion})`;

/** Nothing of the key exists on the engine: no container, no volume. */
function nothingUnder(key: string): void {
  assert.equal(docker(['ps', '-aq', '--filter', `label=io.runpod.project=${key}`]), '', `no container under ${key}`);
  assert.equal(docker(['volume', 'ls', '-q', '--filter', `label=io.runpod.project=${key}`]), '', `no volume under ${key}`);
}

/** A run under its own key, taken down afterwards (pass or fail). */
function keyed(t: Parameters<typeof cleanupPod>[0], name: string): string {
  const key = uniqueName('engv').replace('-', '');
  cleanupPod(t, name);
  t.after(async () => {
    await runpod(['down', '--project', key, '--all', '--grace', '0s']);
  });
  return key;
}

test('appArmorProfile: refused on a host without AppArmor, naming the engine; nothing is created', { skip: hasAppArmor ? 'this engine host has AppArmor' : false }, async (t) => {
  const name = uniqueName('engv-aa');
  const key = keyed(t, name);
  const file = podFile({ name, containers: [sleeper('app', { securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } })] });
  cleanupFile(t, file);
  const r = await runpod(['--project', key, '--timeout', '60s', file]);
  assert.equal(r.code, 2, show(r));
  const line = `${file}:\\d+ spec\\.containers\\[0\\]\\.securityContext\\.appArmorProfile\\.type: AppArmor profile RuntimeDefault cannot be applied: the engine host has no AppArmor enabled \\(${engineName.replace(/[.()+]/g, '\\$&')} lists no apparmor in its security options\\)`;
  assert.match(r.stderr, new RegExp(line), show(r));
  nothingUnder(key);
  // Unconfined needs no AppArmor: the same pod with it runs.
  const ok = podFile({ name, containers: [sleeper('app', { securityContext: { appArmorProfile: { type: 'Unconfined' } } })] });
  cleanupFile(t, ok);
  const r2 = await runpod(['--project', key, '--timeout', '60s', ok]);
  assert.equal(r2.code, 0, show(r2));
});

test('appArmorProfile on an AppArmor host: apparmor=<profile> on the container', { skip: hasAppArmor ? false : 'this engine host has no AppArmor' }, async (t) => {
  const name = uniqueName('engv-aa');
  const key = keyed(t, name);
  const file = podFile({ name, containers: [sleeper('app', { securityContext: { appArmorProfile: { type: 'Unconfined' } } })] });
  cleanupFile(t, file);
  const r = await runpod(['--project', key, '--timeout', '60s', file]);
  assert.equal(r.code, 0, show(r));
  const c = must(podContainers(name).get('app'), 'app') as unknown as { HostConfig: { SecurityOpt: string[] | null } };
  assert.ok(c.HostConfig.SecurityOpt?.includes('apparmor=unconfined'), JSON.stringify(c.HostConfig.SecurityOpt));
});

test('seccompProfile Localhost: a profile from --seccomp-profile-root that denies mkdir, and one that allows all', {
  skip: hasSeccomp ? false : 'this engine has no seccomp',
}, async (t) => {
  const name = uniqueName('engv-sc');
  const key = keyed(t, name);
  const root = tempDir(t);
  fs.mkdirSync(path.join(root, 'profiles'));
  // SCMP_ACT_ERRNO answers the call with EPERM ("Operation not permitted"); busybox mkdir uses mkdir or mkdirat.
  fs.writeFileSync(
    path.join(root, 'profiles', 'deny-mkdir.json'),
    JSON.stringify({ defaultAction: 'SCMP_ACT_ALLOW', syscalls: [{ names: ['mkdir', 'mkdirat'], action: 'SCMP_ACT_ERRNO' }] }, null, 2),
  );
  fs.writeFileSync(path.join(root, 'allow-all.json'), JSON.stringify({ defaultAction: 'SCMP_ACT_ALLOW' }));
  const pod = podObject({
    name,
    containers: [sleeper('denied', { securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/deny-mkdir.json' } } }), sleeper('allowed')],
  });
  // The pod's profile reaches the containers that set none.
  (pod.spec as Record<string, unknown>).securityContext = { seccompProfile: { type: 'Localhost', localhostProfile: 'allow-all.json' } };
  const file = podFile([pod]);
  cleanupFile(t, file);
  const r = await runpod(['--project', key, '--seccomp-profile-root', root, '--timeout', '60s', file]);
  assert.equal(r.code, 0, show(r));
  const byName = podContainers(name);
  const denied = dockerTry(['exec', must(byName.get('denied'), 'denied').Id, 'mkdir', '/tmp/made']);
  assert.notEqual(denied.status, 0, 'mkdir is denied');
  assert.match(denied.stderr, /Operation not permitted/);
  const allowed = dockerTry(['exec', must(byName.get('allowed'), 'allowed').Id, 'mkdir', '/tmp/made']);
  assert.equal(allowed.status, 0, allowed.stderr);
});

test('seccompProfile Localhost: a missing or non-JSON profile is a manifest problem naming the file; nothing starts', async (t) => {
  const name = uniqueName('engv-sc');
  const key = keyed(t, name);
  const root = tempDir(t);
  fs.writeFileSync(path.join(root, 'broken.json'), '{ "defaultAction": ');
  const file = podFile({
    name,
    containers: [
      sleeper('a', { securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'missing.json' } } }),
      sleeper('b', { securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'broken.json' } } }),
    ],
  });
  cleanupFile(t, file);
  const r = await runpod(['--project', key, '--seccomp-profile-root', root, file]);
  assert.equal(r.code, 2, show(r));
  assert.match(
    r.stderr,
    new RegExp(`${file}:\\d+ spec\\.containers\\[0\\]\\.securityContext\\.seccompProfile\\.localhostProfile: seccomp profile ${path.join(root, 'missing.json')}: no such file`),
    show(r),
  );
  assert.match(r.stderr, new RegExp(`spec\\.containers\\[1\\].*${path.join(root, 'broken.json')}: not JSON`), show(r));
  nothingUnder(key);
  // validate reads the profiles too (they are files on this machine), and refuses alike.
  const v = await runpod(['validate', '--seccomp-profile-root', root, file]);
  assert.equal(v.code, 2, show(v));
  assert.match(v.stderr, /missing\.json: no such file/);
});

test('recursiveReadOnly on this engine: Enabled refused before Engine API 1.44; IfPossible a read-only mount, with a note', async (t) => {
  const name = uniqueName('engv-rro');
  const key = keyed(t, name);
  const dir = tempDir(t);
  const mount = (rro: string): Record<string, unknown> =>
    podObject({
      name,
      containers: [sleeper('app', { volumeMounts: [{ name: 'host', mountPath: '/data', readOnly: true, recursiveReadOnly: rro }] })],
    });
  const withVolume = (p: Record<string, unknown>): Record<string, unknown> => {
    (p.spec as Record<string, unknown>).volumes = [{ name: 'host', hostPath: { path: dir } }];
    return p;
  };
  const enabled = podFile([withVolume(mount('Enabled'))]);
  cleanupFile(t, enabled);
  const r = await runpod(['--project', key, '--timeout', '60s', enabled]);
  if (apiAtLeast(44)) {
    // Docker 25+: a recursively read-only bind (the kernel may still refuse it: then the pod fails, exit 1).
    assert.ok(r.code === 0 || r.code === 1, show(r));
  } else {
    assert.equal(r.code, 2, show(r));
    assert.match(
      r.stderr,
      /recursiveReadOnly: Enabled needs recursively read-only mounts, which Docker .* \(Engine API 1\.\d+\) does not have; Docker 25 or later \(Engine API 1\.44\) does/,
      show(r),
    );
    nothingUnder(key);
  }
  await runpod(['down', '--project', key, '--all', '--grace', '0s']);
  const ifPossible = podFile([withVolume(mount('IfPossible'))]);
  cleanupFile(t, ifPossible);
  const r2 = await runpod(['--project', key, '--timeout', '60s', ifPossible]);
  assert.equal(r2.code, 0, show(r2));
  if (!apiAtLeast(44)) assert.match(r2.stderr, /recursiveReadOnly: IfPossible: Docker .* has no recursively read-only mounts/, show(r2));
  const c = must(podContainers(name).get('app'), 'app');
  const touch = dockerTry(['exec', c.Id, 'touch', '/data/x']);
  assert.notEqual(touch.status, 0);
  assert.match(touch.stderr, /Read-only file system/);
});

test('image volumes: refused before Engine API 1.48, naming the engine and Docker 28; nothing is created', {
  skip: apiAtLeast(48) ? 'this engine has image mounts' : false,
}, async (t) => {
  const name = uniqueName('engv-img');
  const key = keyed(t, name);
  const p = podObject({ name, containers: [sleeper('app', { volumeMounts: [{ name: 'tools', mountPath: '/tools' }] })] });
  (p.spec as Record<string, unknown>).volumes = [{ name: 'tools', image: { reference: 'runpod-test/busybox:1', pullPolicy: 'Never' } }];
  const file = podFile([p]);
  cleanupFile(t, file);
  const r = await runpod(['--project', key, file]);
  assert.equal(r.code, 2, show(r));
  assert.match(
    r.stderr,
    new RegExp(`${file}:\\d+ spec\\.volumes\\[0\\]\\.image: ${engineName.replace(/[.()+]/g, '\\$&')} has no image mounts; Docker 28 or later \\(Engine API 1\\.48\\) does`),
    show(r),
  );
  nothingUnder(key);
  // validate asks no engine: it accepts the field and says it depends on one.
  const v = await runpod(['validate', file]);
  assert.equal(v.code, 0, show(v));
  assert.match(v.stderr, /spec\.volumes\[0\]\.image: depends on the engine: needs Docker 28 or later \(Engine API 1\.48\)/);
});
