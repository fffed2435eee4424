// Which engine runpod talks to: the docker CLI's precedence (--host, DOCKER_HOST, the current context, the
// default socket) and its context store layout (contexts/meta/<sha256(name)>/meta.json, contexts/tls/…).
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveEndpoint } from '../../src/engine/connection.js';

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-conn-'));
after(() => fs.rmSync(home, { recursive: true, force: true }));

/** A Docker config directory holding contexts as `docker context create` writes them. */
function configDir(contexts: Record<string, { host: string; skipTlsVerify?: boolean; tls?: boolean }>, current?: string): string {
  const dir = fs.mkdtempSync(path.join(home, 'cfg-'));
  if (current !== undefined) fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ currentContext: current }));
  for (const [name, c] of Object.entries(contexts)) {
    const digest = createHash('sha256').update(name).digest('hex');
    const meta = path.join(dir, 'contexts', 'meta', digest);
    fs.mkdirSync(meta, { recursive: true });
    fs.writeFileSync(path.join(meta, 'meta.json'), JSON.stringify({ Name: name, Metadata: {}, Endpoints: { docker: { Host: c.host, SkipTLSVerify: c.skipTlsVerify ?? false } } }));
    if (c.tls) {
      const tls = path.join(dir, 'contexts', 'tls', digest, 'docker');
      fs.mkdirSync(tls, { recursive: true });
      for (const f of ['ca.pem', 'cert.pem', 'key.pem']) fs.writeFileSync(path.join(tls, f), 'x');
    }
  }
  return dir;
}

describe('engine endpoint precedence (docker CLI order)', () => {
  const cfg = configDir({ remote: { host: 'tcp://ctx.example:2376', tls: true }, other: { host: 'unix:///run/other.sock' } }, 'remote');
  const base = { HOME: home, DOCKER_CONFIG: cfg };
  const cases: [string, string | undefined, NodeJS.ProcessEnv, string][] = [
    ['--host beats everything', 'unix:///flag.sock', { ...base, DOCKER_HOST: 'tcp://env:2375', DOCKER_CONTEXT: 'other' }, 'unix:///flag.sock'],
    ['DOCKER_HOST beats DOCKER_CONTEXT and currentContext', undefined, { ...base, DOCKER_HOST: 'tcp://env:2375', DOCKER_CONTEXT: 'other' }, 'tcp://env:2375'],
    ['DOCKER_CONTEXT beats currentContext', undefined, { ...base, DOCKER_CONTEXT: 'other' }, 'unix:///run/other.sock'],
    ['currentContext from config.json', undefined, base, 'tcp://ctx.example:2376'],
    ['an empty DOCKER_HOST counts as unset', undefined, { ...base, DOCKER_HOST: '' }, 'tcp://ctx.example:2376'],
    ['the "default" context is the default socket', undefined, { ...base, DOCKER_CONTEXT: 'default' }, 'unix:///var/run/docker.sock'],
    ['no config at all: the default socket', undefined, { HOME: home, DOCKER_CONFIG: path.join(home, 'none') }, 'unix:///var/run/docker.sock'],
  ];
  for (const [what, flag, env, want] of cases) {
    it(what, async () => assert.equal((await resolveEndpoint(flag, env)).address, want));
  }

  it("a context brings its own TLS material; the environment's TLS variables do not apply to it", async () => {
    const e = await resolveEndpoint(undefined, { ...base, DOCKER_CERT_PATH: '/elsewhere', DOCKER_TLS_VERIFY: '' });
    const digest = createHash('sha256').update('remote').digest('hex');
    assert.deepEqual(e, {
      address: 'tcp://ctx.example:2376',
      kind: 'tcp',
      host: 'ctx.example',
      port: 2376,
      tls: { verify: true, certPath: path.join(cfg, 'contexts', 'tls', digest, 'docker') },
    });
  });

  it('SkipTLSVerify in the context turns verification off', async () => {
    const dir = configDir({ lax: { host: 'tcp://lax:2376', tls: true, skipTlsVerify: true } }, 'lax');
    assert.equal((await resolveEndpoint(undefined, { HOME: home, DOCKER_CONFIG: dir })).tls?.verify, false);
  });

  it('a tcp context without TLS material is plain HTTP, even with DOCKER_TLS_VERIFY set', async () => {
    const dir = configDir({ plain: { host: 'tcp://plain:2375' } }, 'plain');
    assert.equal((await resolveEndpoint(undefined, { HOME: home, DOCKER_CONFIG: dir, DOCKER_TLS_VERIFY: '1' })).tls, undefined);
  });

  it('a context that does not exist is a usage error naming the file', async () => {
    await assert.rejects(resolveEndpoint(undefined, { ...base, DOCKER_CONTEXT: 'nope' }), /Docker context "nope" not found .*meta\.json is missing/);
  });

  it('a context whose meta.json is not JSON is a usage error, not a crash', async () => {
    const dir = configDir({ broken: { host: 'tcp://x:1' } }, 'broken');
    const digest = createHash('sha256').update('broken').digest('hex');
    fs.writeFileSync(path.join(dir, 'contexts', 'meta', digest, 'meta.json'), '{');
    await assert.rejects(resolveEndpoint(undefined, { HOME: home, DOCKER_CONFIG: dir }), /not valid JSON/);
  });
});

describe('DOCKER_HOST forms and TLS variables', () => {
  it('DOCKER_CERT_PATH defaults to the config directory (DOCKER_CONFIG)', async () => {
    const e = await resolveEndpoint(undefined, { HOME: home, DOCKER_HOST: 'tcp://h:2376', DOCKER_TLS_VERIFY: '1', DOCKER_CONFIG: '/cfg' });
    assert.deepEqual(e.tls, { verify: true, certPath: '/cfg' });
  });
  it('DOCKER_TLS alone: TLS without verification', async () => {
    const e = await resolveEndpoint(undefined, { HOME: home, DOCKER_HOST: 'tcp://h', DOCKER_TLS: '1' });
    assert.deepEqual(e.tls, { verify: false, certPath: path.join(home, '.docker') });
    assert.equal(e.port, 2376);
  });
  it('ssh with user and port', async () => {
    const e = await resolveEndpoint('ssh://me@box:2222', { HOME: home });
    assert.deepEqual(e, { address: 'ssh://me@box:2222', kind: 'ssh', host: 'box', port: 2222, username: 'me' });
  });
  it('a bare path is a unix socket', async () => assert.equal((await resolveEndpoint('/tmp/d.sock', { HOME: home })).socketPath, '/tmp/d.sock'));
});
