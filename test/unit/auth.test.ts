// Registry credential look-up, against the docker CLI's rules (cli/config/configfile, credentials/*_store.go),
// over in-memory files and fake credential helpers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveRegistryAuth, registryAuthKey, dockerConfigPath, defaultAuthIO, type AuthIO } from '../../src/engine/ports/auth.js';
import type { RegistryAuth } from '../../src/engine/ports/images.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

interface HelperCall {
  program: string;
  input: string;
}

/** An AuthIO over a map of files and of helper programs (each answering stdout, or throwing its output). */
function fakeIO(files: Record<string, string>, helpers: Record<string, (input: string) => string> = {}): AuthIO & { calls: HelperCall[] } {
  const calls: HelperCall[] = [];
  return {
    calls,
    readFile: (p) => Promise.resolve(files[p]),
    runHelper: (program, input) => {
      calls.push({ program, input });
      const h = helpers[program];
      if (h === undefined) return Promise.reject(new Error(`${program} not found on PATH`));
      try {
        return Promise.resolve(h(input));
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    },
  };
}

const home = { HOME: '/home/u' };
const homeConfig = '/home/u/.docker/config.json';
const cfg = (c: unknown): Record<string, string> => ({ [homeConfig]: JSON.stringify(c) });

test('registryAuthKey: Hub images use the index URL, others their host[:port]', () => {
  const cases: [string, string][] = [
    ['busybox', 'https://index.docker.io/v1/'],
    ['library/busybox:1', 'https://index.docker.io/v1/'],
    ['org/app@sha256:abc', 'https://index.docker.io/v1/'],
    ['docker.io/org/app', 'https://index.docker.io/v1/'],
    ['index.docker.io/org/app', 'https://index.docker.io/v1/'],
    ['ghcr.io/org/app:1', 'ghcr.io'],
    ['127.0.0.1:5000/app:1', '127.0.0.1:5000'],
    ['localhost/app', 'localhost'],
    ['localhost:5000/a/b/c:tag', 'localhost:5000'],
  ];
  for (const [image, key] of cases) assert.equal(registryAuthKey(image), key, image);
});

test('dockerConfigPath: DOCKER_CONFIG wins over HOME', () => {
  const cases: [NodeJS.ProcessEnv, string | undefined][] = [
    [{ HOME: '/home/u' }, '/home/u/.docker/config.json'],
    [{ HOME: '/home/u', DOCKER_CONFIG: '/etc/dc' }, '/etc/dc/config.json'],
    [{ DOCKER_CONFIG: '/etc/dc' }, '/etc/dc/config.json'],
    [{ DOCKER_CONFIG: '', HOME: '/h' }, '/h/.docker/config.json'],
    [{}, undefined],
  ];
  for (const [env, want] of cases) assert.equal(dockerConfigPath(env), want, JSON.stringify(env));
});

interface Case {
  name: string;
  image: string;
  env?: NodeJS.ProcessEnv;
  files: Record<string, string>;
  helpers?: Record<string, (input: string) => string>;
  want: RegistryAuth | undefined;
  /** Helper invocations expected, as "program<-input". */
  helperCalls?: string[];
}

const cases: Case[] = [
  {
    name: 'no config file: anonymous',
    image: 'busybox',
    files: {},
    want: undefined,
  },
  {
    name: 'empty config file: anonymous (the CLI ignores an empty file)',
    image: 'busybox',
    files: { [homeConfig]: '  \n' },
    want: undefined,
  },
  {
    name: 'Hub image uses the index URL key',
    image: 'busybox:1',
    files: cfg({ auths: { 'https://index.docker.io/v1/': { auth: b64('hubuser:hubpass') } } }),
    want: { username: 'hubuser', password: 'hubpass', serveraddress: 'https://index.docker.io/v1/' },
  },
  {
    name: 'Hub credentials are not used for a private registry',
    image: 'registry.example.com/app:1',
    files: cfg({ auths: { 'https://index.docker.io/v1/': { auth: b64('hubuser:hubpass') } } }),
    want: undefined,
  },
  {
    name: 'a "docker.io" key is not Hub\'s key (the CLI matches only the index URL)',
    image: 'busybox',
    files: cfg({ auths: { 'docker.io': { auth: b64('u:p') } } }),
    want: undefined,
  },
  {
    name: 'private registry by host',
    image: 'registry.example.com/team/app:2',
    files: cfg({ auths: { 'registry.example.com': { auth: b64('alice:s3cret') } } }),
    want: { username: 'alice', password: 's3cret', serveraddress: 'registry.example.com' },
  },
  {
    name: 'private registry with port',
    image: '127.0.0.1:5000/app:1',
    files: cfg({ auths: { '127.0.0.1:5000': { auth: b64('bob:pw') }, '127.0.0.1': { auth: b64('wrong:host') } } }),
    want: { username: 'bob', password: 'pw', serveraddress: '127.0.0.1:5000' },
  },
  {
    name: 'a key without the port does not match a registry with one',
    image: '127.0.0.1:5000/app:1',
    files: cfg({ auths: { '127.0.0.1': { auth: b64('bob:pw') } } }),
    want: undefined,
  },
  {
    name: 'key written with https:// and a port',
    image: 'reg.local:8443/app',
    files: cfg({ auths: { 'https://reg.local:8443': { auth: b64('u:p') } } }),
    want: { username: 'u', password: 'p', serveraddress: 'reg.local:8443' },
  },
  {
    name: 'key written with http:// and a trailing path',
    image: 'reg.local/app',
    files: cfg({ auths: { 'http://reg.local/v2/': { auth: b64('u:p') } } }),
    want: { username: 'u', password: 'p', serveraddress: 'reg.local' },
  },
  {
    name: 'an exact key wins over a URL key for the same host',
    image: 'reg.local/app',
    files: cfg({ auths: { 'https://reg.local': { auth: b64('url:form') }, 'reg.local': { auth: b64('exact:form') } } }),
    want: { username: 'exact', password: 'form', serveraddress: 'reg.local' },
  },
  {
    name: 'password holding colons is split at the first colon',
    image: 'reg.local/app',
    files: cfg({ auths: { 'reg.local': { auth: b64('user:pa:ss:word:') } } }),
    want: { username: 'user', password: 'pa:ss:word:', serveraddress: 'reg.local' },
  },
  {
    name: 'non-ASCII password',
    image: 'reg.local/app',
    files: cfg({ auths: { 'reg.local': { auth: b64('user:pässwörd') } } }),
    want: { username: 'user', password: 'pässwörd', serveraddress: 'reg.local' },
  },
  {
    name: 'unpadded base64 is accepted',
    image: 'reg.local/app',
    files: cfg({ auths: { 'reg.local': { auth: b64('ab:c').replace(/=+$/, '') } } }),
    want: { username: 'ab', password: 'c', serveraddress: 'reg.local' },
  },
  {
    name: 'identitytoken passes through',
    image: 'myreg.azurecr.io/app',
    files: cfg({ auths: { 'myreg.azurecr.io': { auth: b64('00000000-0000-0000-0000-000000000000:'), identitytoken: 'refresh-tok' } } }),
    want: { username: '00000000-0000-0000-0000-000000000000', identitytoken: 'refresh-tok', serveraddress: 'myreg.azurecr.io' },
  },
  {
    name: 'identitytoken alone',
    image: 'reg.local/app',
    files: cfg({ auths: { 'reg.local': { identitytoken: 'tok' } } }),
    want: { identitytoken: 'tok', serveraddress: 'reg.local' },
  },
  {
    name: 'explicit username/password fields (no auth)',
    image: 'reg.local/app',
    files: cfg({ auths: { 'reg.local': { username: 'u', password: 'p' } } }),
    want: { username: 'u', password: 'p', serveraddress: 'reg.local' },
  },
  {
    name: 'an empty entry (left by a credential store) means no credentials',
    image: 'reg.local/app',
    files: cfg({ auths: { 'reg.local': {} } }),
    want: undefined,
  },
  {
    name: 'DOCKER_CONFIG is read instead of HOME',
    image: 'reg.local/app',
    env: { HOME: '/home/u', DOCKER_CONFIG: '/etc/dc' },
    files: {
      [homeConfig]: JSON.stringify({ auths: { 'reg.local': { auth: b64('home:pw') } } }),
      '/etc/dc/config.json': JSON.stringify({ auths: { 'reg.local': { auth: b64('dc:pw') } } }),
    },
    want: { username: 'dc', password: 'pw', serveraddress: 'reg.local' },
  },
  {
    name: 'DOCKER_CONFIG without a config.json: anonymous, HOME is not consulted',
    image: 'reg.local/app',
    env: { HOME: '/home/u', DOCKER_CONFIG: '/etc/dc' },
    files: cfg({ auths: { 'reg.local': { auth: b64('home:pw') } } }),
    want: undefined,
  },
  {
    name: 'no HOME and no DOCKER_CONFIG: anonymous',
    image: 'reg.local/app',
    env: {},
    files: cfg({ auths: { 'reg.local': { auth: b64('home:pw') } } }),
    want: undefined,
  },
  {
    name: 'credHelpers for the registry is asked with the registry key on stdin',
    image: 'reg.local/app',
    files: cfg({ credHelpers: { 'reg.local': 'ecr' }, credsStore: 'desktop', auths: { 'reg.local': { auth: b64('file:pw') } } }),
    helpers: {
      'docker-credential-ecr': () => JSON.stringify({ ServerURL: 'reg.local', Username: 'AWS', Secret: 'ecr-pw' }),
      'docker-credential-desktop': () => JSON.stringify({ ServerURL: 'reg.local', Username: 'desk', Secret: 'desk-pw' }),
    },
    want: { username: 'AWS', password: 'ecr-pw', serveraddress: 'reg.local' },
    helperCalls: ['docker-credential-ecr<-reg.local'],
  },
  {
    name: 'credHelpers for another registry: credsStore is used',
    image: 'reg.local/app',
    files: cfg({ credHelpers: { 'other.io': 'ecr' }, credsStore: 'desktop', auths: { 'reg.local': { auth: b64('file:pw') } } }),
    helpers: { 'docker-credential-desktop': () => JSON.stringify({ ServerURL: 'reg.local', Username: 'desk', Secret: 'desk-pw' }) },
    want: { username: 'desk', password: 'desk-pw', serveraddress: 'reg.local' },
    helperCalls: ['docker-credential-desktop<-reg.local'],
  },
  {
    name: 'credsStore for a Hub image is asked with the index URL',
    image: 'busybox',
    files: cfg({ credsStore: 'pass' }),
    helpers: { 'docker-credential-pass': () => JSON.stringify({ ServerURL: 'https://index.docker.io/v1/', Username: 'hu', Secret: 'hp' }) },
    want: { username: 'hu', password: 'hp', serveraddress: 'https://index.docker.io/v1/' },
    helperCalls: ['docker-credential-pass<-https://index.docker.io/v1/'],
  },
  {
    name: 'helper answering "<token>" gives an identity token',
    image: 'reg.local/app',
    files: cfg({ credsStore: 'desktop' }),
    helpers: { 'docker-credential-desktop': () => JSON.stringify({ ServerURL: 'reg.local', Username: '<token>', Secret: 'idtok' }) },
    want: { identitytoken: 'idtok', serveraddress: 'reg.local' },
  },
  {
    name: 'helper "credentials not found": anonymous, and auths are not consulted (the helper is authoritative)',
    image: 'reg.local/app',
    files: cfg({ credsStore: 'desktop', auths: { 'reg.local': { auth: b64('file:pw') } } }),
    helpers: {
      'docker-credential-desktop': () => {
        throw new Error('exit code 1: credentials not found in native keychain');
      },
    },
    want: undefined,
    helperCalls: ['docker-credential-desktop<-reg.local'],
  },
  {
    name: 'an empty credsStore is no store',
    image: 'reg.local/app',
    files: cfg({ credsStore: '', auths: { 'reg.local': { auth: b64('file:pw') } } }),
    want: { username: 'file', password: 'pw', serveraddress: 'reg.local' },
    helperCalls: [],
  },
];

for (const c of cases) {
  test(`resolveRegistryAuth: ${c.name}`, async () => {
    const io = fakeIO(c.files, c.helpers);
    const got = await resolveRegistryAuth(c.image, c.env ?? home, io);
    assert.deepEqual(got, c.want);
    if (c.helperCalls !== undefined) {
      assert.deepEqual(
        io.calls.map((x) => `${x.program}<-${x.input}`),
        c.helperCalls,
      );
    }
  });
}

interface ErrorCase {
  name: string;
  image?: string;
  env?: NodeJS.ProcessEnv;
  files: Record<string, string>;
  helpers?: Record<string, (input: string) => string>;
  readError?: Error;
  /** Every one must appear in the message. */
  mentions: string[];
  /** None may appear in the message. */
  secrets: string[];
}

const errorCases: ErrorCase[] = [
  {
    // V8's own message here quotes the text around the bad token.
    name: 'invalid JSON names the file, not the text',
    files: { [homeConfig]: '{"auths": {"reg.local": {"auth": "c2VjcmV0OmhvcnNl"}}, "password": hunter2-secret}' },
    mentions: [homeConfig, 'not valid JSON'],
    secrets: ['hunter2', 'c2VjcmV0OmhvcnNl', 'secret:horse'],
  },
  {
    name: 'invalid JSON on a later line reports that line',
    files: { [homeConfig]: '{\n  "auths": {\n    "reg.local": {"auth": "dTpzdXBlcnNlY3JldA=="\n  }\n' },
    mentions: [homeConfig, 'not valid JSON', '(line 5, column 1)'],
    secrets: ['dTpzdXBlcnNlY3JldA==', 'supersecret'],
  },
  {
    name: 'invalid JSON in DOCKER_CONFIG names that file',
    env: { HOME: '/home/u', DOCKER_CONFIG: '/etc/dc' },
    files: { '/etc/dc/config.json': "{'auths': 'topsecret'}" },
    mentions: ['/etc/dc/config.json', 'not valid JSON'],
    secrets: ['topsecret'],
  },
  {
    name: 'auth that is not base64',
    files: cfg({ auths: { 'reg.local': { auth: 'not base64! pw=sekrit' } } }),
    mentions: [homeConfig, 'auths["reg.local"].auth'],
    secrets: ['sekrit'],
  },
  {
    name: 'auth without a colon',
    files: cfg({ auths: { 'reg.local': { auth: b64('justapasswordvalue') } } }),
    mentions: [homeConfig, 'auths["reg.local"].auth'],
    secrets: ['justapasswordvalue', b64('justapasswordvalue')],
  },
  {
    name: 'auths of the wrong type',
    files: cfg({ auths: ['reg.local'] }),
    mentions: [homeConfig, 'auths must be an object'],
    secrets: [],
  },
  {
    name: 'a config that is not an object',
    files: { [homeConfig]: '"just a string"' },
    mentions: [homeConfig, 'expected a JSON object'],
    secrets: [],
  },
  {
    name: 'unreadable config file',
    files: {},
    readError: new Error('EACCES: permission denied'),
    mentions: [homeConfig, 'permission denied'],
    secrets: [],
  },
  {
    name: 'helper missing from PATH',
    files: cfg({ credsStore: 'desktop' }),
    mentions: ['docker-credential-desktop', 'not found on PATH', 'reg.local'],
    secrets: [],
  },
  {
    name: 'helper failing otherwise',
    files: cfg({ credHelpers: { 'reg.local': 'pass' } }),
    helpers: {
      'docker-credential-pass': () => {
        throw new Error('exit code 1: gpg: decryption failed: No secret key');
      },
    },
    mentions: ['docker-credential-pass', 'decryption failed'],
    secrets: [],
  },
  {
    name: 'helper answering invalid JSON does not quote it',
    files: cfg({ credsStore: 'desktop' }),
    helpers: { 'docker-credential-desktop': () => '{"Username": "u", "Secret": "leaky-secret"' },
    mentions: ['docker-credential-desktop', 'invalid JSON'],
    secrets: ['leaky-secret'],
  },
  {
    name: 'helper answering the wrong shape',
    files: cfg({ credsStore: 'desktop' }),
    helpers: { 'docker-credential-desktop': () => JSON.stringify({ Username: 'u', Secret: 42 }) },
    mentions: ['docker-credential-desktop', 'unexpected answer'],
    secrets: [],
  },
];

for (const c of errorCases) {
  test(`resolveRegistryAuth error: ${c.name}`, async () => {
    const io = fakeIO(c.files, c.helpers);
    if (c.readError !== undefined) {
      const readError = c.readError;
      io.readFile = () => Promise.reject(readError);
    }
    await assert.rejects(resolveRegistryAuth(c.image ?? 'reg.local/app', c.env ?? home, io), (err: unknown) => {
      assert.ok(err instanceof Error);
      for (const m of c.mentions) assert.ok(err.message.includes(m), `message ${JSON.stringify(err.message)} should mention ${m}`);
      for (const s of c.secrets) assert.ok(!err.message.includes(s), `message ${JSON.stringify(err.message)} leaks ${s}`);
      return true;
    });
  });
}

test('defaultAuthIO: real files and a real helper program', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-auth-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  // A helper in the docker-credential-helpers protocol: server on stdin, JSON on stdout, "not found" on stdout.
  const helper = path.join(dir, 'docker-credential-fake');
  fs.writeFileSync(
    helper,
    [
      '#!/bin/sh',
      '[ "$1" = get ] || exit 2',
      'read -r server',
      'case "$server" in',
      '  reg.local) printf \'{"ServerURL":"%s","Username":"u","Secret":"p:w"}\' "$server" ;;',
      '  *) echo "credentials not found in native keychain"; exit 1 ;;',
      'esac',
    ].join('\n') + '\n',
    { mode: 0o755 },
  );
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ credsStore: 'fake' }));
  const io: AuthIO = { readFile: defaultAuthIO.readFile, runHelper: (program, input) => defaultAuthIO.runHelper(path.join(dir, program), input) };
  const env = { DOCKER_CONFIG: dir };

  assert.deepEqual(await resolveRegistryAuth('reg.local/app', env, io), { username: 'u', password: 'p:w', serveraddress: 'reg.local' });
  assert.equal(await resolveRegistryAuth('other.io/app', env, io), undefined);
  assert.equal(await defaultAuthIO.readFile(path.join(dir, 'absent.json')), undefined);
  assert.equal(await defaultAuthIO.readFile(path.join(dir, 'config.json', 'below-a-file')), undefined);
  await assert.rejects(defaultAuthIO.readFile(dir), /EISDIR/);
  await assert.rejects(defaultAuthIO.runHelper('docker-credential-runpod-absent', 'x'), /docker-credential-runpod-absent not found on PATH/);
  await assert.rejects(
    resolveRegistryAuth('reg.local/app', { DOCKER_CONFIG: dir }, defaultAuthIO),
    /credential helper docker-credential-fake failed for reg\.local: docker-credential-fake not found on PATH/,
  );
});
