import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseDuration } from '../../src/cli/duration.js';
import { Backoff } from '../../src/wait/backoff.js';
import { runExitCode } from '../../src/agent/verdict.js';
import { PassThrough } from 'node:stream';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../engine/harness.js';
import { commandFirst, runCli } from '../../src/cli/cli.js';
import type { CommandContext } from '../../src/commands/context.js';
import { UsageError } from '../../src/errors.js';
import { looksLikeCommand, suggestCommand } from '../../src/cli/suggest.js';
import { parseEngineAddress } from '../../src/engine/connection.js';
import { defaultPullPolicy, parseImageRef } from '../../src/imageRef.js';

describe('parseDuration (Go/kubectl style)', () => {
  const cases: [string, number | undefined][] = [
    ['500ms', 500],
    ['90s', 90_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['1.5s', 1500],
    ['2', 2000],
    ['0', 0],
    ['', undefined],
    ['5x', undefined],
    ['m5', undefined],
    ['1h 30m', undefined],
    ['-1s', undefined],
  ];
  for (const [text, want] of cases) it(`${JSON.stringify(text)} -> ${want}`, () => assert.equal(parseDuration(text), want));
});

describe('Backoff (runOnce schedule)', () => {
  it('the kubelet defaults: 1s doubling, 10 retries, capped at max delay', () => {
    const b = new Backoff({ retries: 10, retryDelayMs: 1000, factor: 2, maxDelayMs: 30_000 });
    const delays: number[] = [];
    for (let d = b.next(); d !== undefined; d = b.next()) delays.push(d);
    assert.deepEqual(delays, [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000, 30000]);
  });
  it('fork continues from the same point', () => {
    const b = new Backoff({ retries: 3, retryDelayMs: 100, factor: 2, maxDelayMs: 1000 });
    b.next();
    const f = b.fork();
    assert.equal(f.next(), 200);
    assert.equal(b.next(), 200);
    assert.equal(f.retriesUsed, 2);
  });
  it('zero retries: no sleep at all', () => assert.equal(new Backoff({ retries: 0, retryDelayMs: 1, factor: 2, maxDelayMs: 1 }).next(), undefined));
});

describe('exit code of several pods: the first that applies of 130/143, 3, 124, 1', () => {
  const cases: [Parameters<typeof runExitCode>[0], Parameters<typeof runExitCode>[1], number][] = [
    [['succeeded', 'succeeded'], undefined, 0],
    [['succeeded', 'failed'], undefined, 1],
    [['failed', 'timeout'], undefined, 124],
    [['timeout', 'engine', 'failed'], undefined, 3],
    [['engine', 'interrupted'], 'SIGINT', 130],
    [['interrupted'], 'SIGTERM', 143],
  ];
  for (const [statuses, signal, want] of cases) it(`${statuses.join(',')} ${signal ?? ''} -> ${want}`, () => assert.equal(runExitCode(statuses, signal), want));
});

describe('engine address (docker CLI rules)', () => {
  it('unix', () => assert.equal(parseEngineAddress('unix:///tmp/d.sock', {}, '/root').socketPath, '/tmp/d.sock'));
  it('tcp without TLS defaults to 2375', () =>
    assert.deepEqual(parseEngineAddress('tcp://10.0.0.1', {}, '/root'), { address: 'tcp://10.0.0.1', kind: 'tcp', host: '10.0.0.1', port: 2375 }));
  it('tcp with DOCKER_TLS_VERIFY: 2376, certs from DOCKER_CERT_PATH', () => {
    const e = parseEngineAddress('tcp://h', { DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: '/certs' }, '/root');
    assert.equal(e.port, 2376);
    assert.deepEqual(e.tls, { verify: true, certPath: '/certs' });
  });
  it('ssh with user', () => assert.equal(parseEngineAddress('ssh://me@host', {}, '/root').username, 'me'));
  it('an unknown scheme is a usage error', () => assert.throws(() => parseEngineAddress('ftp://x', {}, '/root'), /unsupported scheme/));
});

describe('image references and pull policy defaults', () => {
  const refs: [string, ReturnType<typeof parseImageRef>][] = [
    ['busybox', { domain: 'docker.io', path: 'library/busybox' }],
    ['busybox:1.36', { domain: 'docker.io', path: 'library/busybox', tag: '1.36' }],
    ['127.0.0.1:5000/x/y:t', { domain: '127.0.0.1:5000', path: 'x/y', tag: 't' }],
    ['localhost/app', { domain: 'localhost', path: 'app' }],
    ['org/app@sha256:abc', { domain: 'docker.io', path: 'org/app', digest: 'sha256:abc' }],
  ];
  for (const [ref, want] of refs) it(ref, () => assert.deepEqual(parseImageRef(ref), want));
  // https://kubernetes.io/docs/concepts/containers/images/#imagepullpolicy-defaulting
  const policies: [string, string][] = [
    ['busybox', 'Always'],
    ['busybox:latest', 'Always'],
    ['busybox:1.36', 'IfNotPresent'],
    ['busybox@sha256:abc', 'IfNotPresent'],
    ['host:5000/x', 'Always'],
  ];
  for (const [ref, want] of policies) it(`${ref} -> ${want}`, () => assert.equal(defaultPullPolicy(ref), want));
});

describe('commandFirst: options every command has may come before its name', () => {
  const cases: [string[], string[]][] = [
    [
      ['-q', 'down', 'pod.yaml'],
      ['down', '-q', 'pod.yaml'],
    ],
    [
      ['-n', 'ci', '--host', 'unix:///x.sock', 'status'],
      ['status', '-n', 'ci', '--host', 'unix:///x.sock'],
    ],
    [
      ['--namespace=ci', '-v', 'logs', 'web', '-c', 'app'],
      ['logs', '--namespace=ci', '-v', 'web', '-c', 'app'],
    ],
    // Already first, no command at all, or an option only run has before it: as given.
    [
      ['down', '-q', 'pod.yaml'],
      ['down', '-q', 'pod.yaml'],
    ],
    [
      ['-q', 'pod.yaml'],
      ['-q', 'pod.yaml'],
    ],
    [
      ['--wait', 'ready', 'down'],
      ['--wait', 'ready', 'down'],
    ],
    // The value of -n is never taken for a command.
    [
      ['-n', 'down', 'pod.yaml'],
      ['-n', 'down', 'pod.yaml'],
    ],
  ];
  for (const [given, want] of cases) it(given.join(' '), () => assert.deepEqual(commandFirst(given), want));
});

describe('a first word that is no command and no file (kubectl and docker habits)', () => {
  const commands = new Set(['run', 'down', 'validate', 'status', 'ps', 'logs', 'exec', 'stats', 'gc', 'completion']);
  const cases: [string, string | undefined][] = [
    ['get', 'status'],
    ['describe', 'status'],
    ['delete', 'down'],
    ['rm', 'down'],
    ['apply', 'run'],
    ['log', 'logs'],
    ['top', 'stats'],
    ['stauts', 'status'],
    ['dwon', 'down'],
    ['valdate', 'validate'],
    ['banana', undefined],
  ];
  for (const [word, want] of cases) it(`${word} -> ${want ?? 'no suggestion'}`, () => assert.equal(suggestCommand(word, commands), want));
  it('only words are taken for commands; paths are manifests', () => {
    assert.deepEqual(['get', 'k8s', 'pod.yaml', './pods', 'manifests/', '-'].map(looksLikeCommand), [true, false, false, false, false, false]);
  });
});

describe('an option value that fails its own check', () => {
  const ctx = (): CommandContext => {
    const sink = new PassThrough();
    return { stdout: sink, stderr: sink, stdin: new PassThrough(), env: {}, signal: new AbortController().signal, interruptedBy: () => undefined, now: () => 0 };
  };
  for (const [args, said] of [
    [['pod.yaml', '--retries', '-1'], /^--retries -1: expected a whole number, 0 or more; see runpod --help$/],
    [['pod.yaml', '--timeout', '5x'], /^--timeout 5x: expected a duration such as 500ms, 90s, 5m or 1h30m; see runpod --help$/],
  ] as const) {
    it(`${args.slice(1).join(' ')}: a usage error (exit 2) saying what was expected, before anything is read`, async () => {
      await assert.rejects(runCli([...args], ctx()), (err: unknown) => err instanceof UsageError && err.exitCode === 2 && said.test(err.message));
    });
  }
});

describe('--help says what a first-time user needs, and only the options a command uses', () => {
  const help = (...args: string[]): string => {
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'runpod'), ...args, '--help'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };
  it('runpod --help: the -- <command> form, the exit codes and examples', () => {
    const text = help();
    assert.match(text, /runpod \[run\] <manifest\.\.\.> \[flags\] -- <command> \[args\.\.\.\]/);
    for (const code of ['0', '1', '2', '3', '124', '130/143', '141']) assert.match(text, new RegExp(`^  ${code.replace('/', '\\/')}\\s{2,}\\S`, 'm'), `exit code ${code}`);
    assert.match(text, /^Examples:\n  runpod k8s\//m);
    assert.match(text, /-- npm test/);
  });
  it('run --help has the command form and exit codes too; down --help has neither', () => {
    assert.match(help('run'), /-- <command> \[args\.\.\.\][\s\S]*Exit codes:/);
    assert.doesNotMatch(help('down'), /Exit codes:|-- <command>/);
  });
  it('validate --help lists no engine options; systemd --help says --host and --project go into the unit', () => {
    const validate = help('validate');
    for (const flag of ['--host', '--project', '--verbose']) assert.doesNotMatch(validate, new RegExp(`${flag}\\b`), flag);
    const systemd = help('systemd');
    assert.doesNotMatch(systemd, /--verbose/);
    assert.match(systemd, /--host\s+the engine the unit's commands use/);
    assert.match(systemd, /--project\s+the isolation key the unit's commands run under/);
  });
  it('gc --help has --project', () => assert.match(help('gc'), /--project\s+only what was made under this isolation key/));
  it('options every command has still come before any command name, used or not', () => {
    for (const args of [
      ['--host', 'unix:///nowhere.sock', 'validate', '--help'],
      ['-v', 'systemd', '--help'],
      ['-n', 'ci', 'gc', '--help'],
    ]) {
      const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'runpod'), ...args], { encoding: 'utf8' });
      assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
    }
  });
});

describe('--skip-kind takes comma lists, as kubectl list flags do, and says which kind matched nothing', () => {
  it('validate - --skip-kind NetworkPolicy,Ingress,Foo: two skipped, a warning for Foo; -q leaves the notes out', async () => {
    const input = [
      'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: deny}\nspec: {podSelector: {}}',
      'apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\nspec: {defaultBackend: {service: {name: web, port: {number: 80}}}}',
      'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: main, image: busybox:1}]',
    ].join('\n---\n');
    const run = async (...extra: string[]): Promise<{ code: number; out: string; err: string }> => {
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      let out = '';
      let err = '';
      stdout.on('data', (d: Buffer) => (out += d.toString()));
      stderr.on('data', (d: Buffer) => (err += d.toString()));
      const stdin = new PassThrough();
      stdin.end(input);
      const code = await runCli(['validate', '-', '--skip-kind', 'NetworkPolicy,Ingress', '--skip-kind', 'Foo', ...extra], {
        stdout,
        stderr,
        stdin,
        env: {},
        signal: new AbortController().signal,
        interruptedBy: () => undefined,
        now: () => 0,
      });
      return { code, out, err };
    };
    const r = await run();
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /NetworkPolicy deny would be skipped/);
    assert.match(r.out, /Ingress web would be skipped/);
    assert.match(r.err, /^warning: --skip-kind Foo: no document of the input is of kind Foo, so nothing was skipped for it$/m);
    const quiet = await run('-q');
    assert.equal(quiet.code, 0, quiet.err);
    assert.equal(quiet.err, '', 'notes about the input are left out under -q');
  });
});
