// Smoke test of the loopback registry support: a push, then pulls with the right and a wrong password.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { request } from 'node:http';
import { busybox } from './harness.js';
import { startRegistry } from './registry.js';
import { resolveRegistryAuth, defaultAuthIO } from '../../src/engine/ports/auth.js';
import type { RegistryAuth } from '../../src/engine/ports/images.js';

function docker(args: string[]): { status: number | null; out: string } {
  const r = spawnSync('docker', args, { encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** POST /images/create on the local engine socket with X-Registry-Auth, as an engine pull does. */
function enginePull(ref: string, auth: RegistryAuth | undefined): Promise<{ ok: boolean; out: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    // URL-safe base64 *with* padding (Go's base64.URLEncoding): Node's 'base64url' drops the padding, and
    // Docker 20.10 then silently pulls anonymously (measured). dockerode encodes it the same way as here.
    if (auth !== undefined) {
      headers['X-Registry-Auth'] = Buffer.from(JSON.stringify(auth)).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
    }
    const req = request({ socketPath: '/var/run/docker.sock', method: 'POST', path: `/images/create?fromImage=${encodeURIComponent(ref)}`, headers }, (res) => {
      let out = '';
      res.on('data', (d: Buffer) => (out += d.toString()));
      res.on('end', () => resolve({ ok: res.statusCode === 200 && !out.includes('"error"'), out }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('registry with auth: push, pull with the right password, refuse a wrong one', async () => {
  // Colons in the password: the auth field must be split at the first one only.
  const password = `pw-${randomBytes(6).toString('hex')}:with:colons`;
  const registry = await startRegistry({ auth: { username: 'tester', password } });
  let ref: string | undefined;
  let configDir: string | undefined;
  try {
    assert.match(registry.host, /^127\.0\.0\.1:\d+$/);
    ref = await registry.push(busybox, 'runpod-test/busybox:1');
    assert.equal(ref, `${registry.host}/runpod-test/busybox:1`);
    // push untags locally, so the pulls below must fetch.
    assert.notEqual(docker(['image', 'inspect', ref]).status, 0, 'pushed tag should be gone locally');

    const wrong = docker(['--config', registry.dockerConfigDir({ password: 'not-the-password' }), 'pull', ref]);
    assert.notEqual(wrong.status, 0, wrong.out);
    assert.match(wrong.out, /unauthorized|authentication required/i);
    assert.notEqual(docker(['image', 'inspect', ref]).status, 0);

    configDir = registry.dockerConfigDir();
    const right = docker(['--config', configDir, 'pull', ref]);
    assert.equal(right.status, 0, right.out);
    assert.equal(docker(['image', 'inspect', ref]).status, 0);
  } finally {
    if (ref !== undefined) docker(['rmi', ref]);
    await registry.stop();
  }
  // Stopped means gone: nothing answers on its port, and its temporary directories are removed.
  await assert.rejects(fetch(`http://${registry.host}/v2/`));
  assert.equal(fs.existsSync(configDir), false);
});

test("credentials resolved from the registry's DOCKER_CONFIG let the engine pull", async () => {
  const password = `pw-${randomBytes(6).toString('hex')}`;
  const registry = await startRegistry({ auth: { username: 'tester', password } });
  let ref: string | undefined;
  try {
    ref = await registry.push(busybox, 'runpod-test/busybox:1');
    const auth = await resolveRegistryAuth(ref, { DOCKER_CONFIG: registry.dockerConfigDir() }, defaultAuthIO);
    assert.deepEqual(auth, { username: 'tester', password, serveraddress: registry.host });

    const bad = await resolveRegistryAuth(ref, { DOCKER_CONFIG: registry.dockerConfigDir({ password: 'nope' }) }, defaultAuthIO);
    // Sent and refused (not silently dropped, which reads "no basic auth credentials").
    const refused = await enginePull(ref, bad);
    assert.equal(refused.ok, false, refused.out);
    assert.match(refused.out, /unauthorized/, refused.out);
    const anonymous = await enginePull(ref, undefined);
    assert.equal(anonymous.ok, false, anonymous.out);
    assert.match(anonymous.out, /no basic auth credentials/, anonymous.out);

    const pulled = await enginePull(ref, auth);
    assert.equal(pulled.ok, true, pulled.out);
    assert.equal(docker(['image', 'inspect', ref]).status, 0);
  } finally {
    if (ref !== undefined) docker(['rmi', ref]);
    await registry.stop();
  }
});
