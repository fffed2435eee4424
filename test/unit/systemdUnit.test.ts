import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { engineIsLocal, escapeUnitWord, execWord, executableProblem, manifestStem, unitCommands, unitName, unitText, type UnitSpec } from '../../src/commands/systemdUnit.js';
import { shellLine } from '../../src/report/env.js';
import { execWords } from './support/execLine.js';

const spec: UnitSpec = {
  runpod: ['/usr/bin/node', '/usr/local/lib/node_modules/runpod/bin/runpod'],
  manifests: ['/etc/runpod/web.yaml'],
  wait: 'ready',
  timeoutMs: 300_000,
};

/** The value of every line `Key=` of a section, in order. */
function settings(text: string, key: string): string[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${key}=`))
    .map((l) => l.slice(key.length + 1));
}

describe('unit name (systemd.unit(5): [A-Za-z0-9:_.-] and \\xNN escapes, at most 255 characters)', () => {
  const cases: [Parameters<typeof unitName>[0], string][] = [
    [{ manifests: ['/etc/runpod/web.yaml'] }, 'runpod-web.service'],
    [{ manifests: ['/srv/k8s/'] }, 'runpod-k8s.service'],
    [{ manifests: ['/srv/web-and-client.yml'] }, 'runpod-web-and-client.service'],
    [{ manifests: ['/srv/pod.JSON'] }, 'runpod-pod.service'],
    [{ manifests: ['/srv/my pod.yaml'] }, 'runpod-my\\x20pod.service'],
    [{ manifests: ['/srv/café.yaml'] }, 'runpod-caf\\xc3\\xa9.service'],
    [{ manifests: ['/srv/web.yaml'], project: 'ci-42' }, 'runpod-ci-42-web.service'],
    [{ manifests: ['/a.yaml', '/b.yaml'], name: 'stack' }, 'stack.service'],
    [{ manifests: ['/a.yaml'], name: 'stack.service' }, 'stack.service'],
  ];
  for (const [input, want] of cases) it(`${JSON.stringify(input)} -> ${want}`, () => assert.deepEqual(unitName(input), { name: want }));

  const refused: [Parameters<typeof unitName>[0], RegExp][] = [
    [{ manifests: ['/a.yaml', '/b.yaml'] }, /2 manifests give no single name.*--name/],
    [{ manifests: ['/a.yaml'], name: 'web@1' }, /template/],
    [{ manifests: ['/a.yaml'], name: 'my unit' }, /not a systemd unit name/],
    [{ manifests: ['/a.yaml'], name: '.service' }, /not a systemd unit name/],
    [{ manifests: ['/a.yaml'], name: 'x'.repeat(250) }, /over systemd's 255: give a shorter --name/],
  ];
  for (const [input, want] of refused) {
    it(`refused: ${JSON.stringify(input).slice(0, 60)}`, () => {
      const got = unitName(input);
      assert.ok('problem' in got, JSON.stringify(got));
      assert.match(got.problem, want);
    });
  }
  it('escapeUnitWord: "/" becomes "-" as in systemd-escape', () => assert.equal(escapeUnitWord('a/b'), 'a-b'));
  it('manifestStem', () => assert.equal(manifestStem('/x/y/web.yaml'), 'web'));
});

describe('Exec*= words (systemd.service(5) "Command lines") read back as given', () => {
  const words = ['/usr/bin/node', 'plain', 'with space', 'per%cent', 'dollar$HOME', 'quote"d', 'back\\slash', ';', '', 'ä'];
  it('execWord, then the test parser, gives every word back', () => {
    const line = words.map((w, i) => execWord(w, i === 0)).join(' ');
    assert.deepEqual(execWords(line), words);
  });
  const cases: [string, boolean, string][] = [
    ['/usr/bin/node', true, '/usr/bin/node'],
    ['/opt/a b/runpod', true, '"/opt/a b/runpod"'],
    ['/opt/50%/runpod', true, '/opt/50%%/runpod'],
    // The executable's path is not expanded: "$" stays single there (systemd 252 looked for "a$$b" otherwise).
    ['/opt/a$b/runpod', true, '/opt/a$b/runpod'],
    ['/srv/a$b.yaml', false, '/srv/a$$b.yaml'],
    ['/srv/"x".yaml', false, '"/srv/\\"x\\".yaml"'],
    [';', false, '";"'],
  ];
  for (const [word, executable, want] of cases) it(`${word}${executable ? ' (executable)' : ''} -> ${want}`, () => assert.equal(execWord(word, executable), want));
  it('an executable path with a quote or backslash is refused with the fix', () => {
    assert.match(executableProblem('/opt/a"b/runpod') ?? '', /quotes, backslashes.*--runpod/);
    assert.match(executableProblem('/opt/a\\b/runpod') ?? '', /--runpod/);
    assert.equal(executableProblem('/opt/a b/runpod'), undefined);
  });
});

describe('the commands the unit runs', () => {
  it("start: run --wait --timeout, then -n and --project, then the manifests; down (on purpose, not the unit's): the same scope", () => {
    const got = unitCommands({ ...spec, namespace: 'ci', project: 'ci-42', skipKinds: ['Service'] });
    assert.deepEqual(got.start, [
      ...spec.runpod,
      'run',
      '--wait',
      'ready',
      '--timeout',
      '300s',
      '-n',
      'ci',
      '--project',
      'ci-42',
      '--skip-kind',
      'Service',
      '/etc/runpod/web.yaml',
    ]);
    assert.deepEqual(got.down, [...spec.runpod, 'down', '-n', 'ci', '--project', 'ci-42', '/etc/runpod/web.yaml']);
  });
  it('a timeout that is not whole seconds is given in ms', () => assert.deepEqual(unitCommands({ ...spec, timeoutMs: 1500 }).start.slice(5, 7), ['--timeout', '1500ms']));
  it('the unit text holds exactly these words at start, and runs nothing at stop (a reboot keeps the pods)', () => {
    const text = unitText({ ...spec, project: 'ci-42' });
    const { start, down } = unitCommands({ ...spec, project: 'ci-42' });
    assert.deepEqual(settings(text, 'ExecStart').map(execWords), [start]);
    assert.deepEqual(settings(text, 'ExecStop'), []);
    assert.deepEqual(settings(text, 'ExecStopPost'), []);
    // How to take them down on purpose is in the unit, as a shell line.
    assert.ok(text.includes(`#   ${shellLine(down)}\n`), text);
  });
  it('shellLine quotes what a shell would split or expand', () => {
    assert.equal(shellLine(['/usr/bin/runpod', 'down', '/srv/my pod.yaml', "it's", '$HOME', '']), "/usr/bin/runpod down '/srv/my pod.yaml' 'it'\\''s' '$HOME' ''");
  });
});

describe('unit settings (systemd.unit(5), systemd.service(5))', () => {
  const text = unitText(spec);
  const cases: [string, string[]][] = [
    // Bound to the local engine: stopped with it, restarted with it, started when it starts.
    ['After', ['network-online.target docker.service']],
    ['BindsTo', ['docker.service']],
    ['Wants', ['network-online.target']],
    ['Type', ['oneshot']],
    ['RemainAfterExit', ['yes']],
    ['Restart', ['on-failure']],
    ['RestartPreventExitStatus', ['2']],
    ['TimeoutStartSec', ['330']],
    ['TimeoutStopSec', []],
    ['WantedBy', ['multi-user.target docker.service']],
    ['Environment', []],
  ];
  for (const [key, want] of cases) it(`${key}=${want.join(',')}`, () => assert.deepEqual(settings(text, key), want));
  it('DOCKER_HOST given: Environment= carries it, quoted when it must be, "%" doubled', () => {
    assert.deepEqual(settings(unitText({ ...spec, dockerHost: 'unix:///run/docker.sock' }), 'Environment'), ['DOCKER_HOST=unix:///run/docker.sock']);
    assert.deepEqual(settings(unitText({ ...spec, dockerHost: 'unix:///run/my docker%1.sock' }), 'Environment'), ['"DOCKER_HOST=unix:///run/my docker%%1.sock"']);
  });
  it('the TLS and context variables follow DOCKER_HOST, in order', () => {
    const text = unitText({
      ...spec,
      dockerHost: 'tcp://10.0.0.5:2376',
      engineEnv: [
        ['DOCKER_TLS_VERIFY', '1'],
        ['DOCKER_CERT_PATH', '/root/certs'],
      ],
    });
    assert.deepEqual(settings(text, 'Environment'), ['DOCKER_HOST=tcp://10.0.0.5:2376', 'DOCKER_TLS_VERIFY=1', 'DOCKER_CERT_PATH=/root/certs']);
  });
  it("a remote engine (tcp://, ssh://) is not bound to this host's docker.service", () => {
    const remote = unitText({ ...spec, dockerHost: 'tcp://10.0.0.5:2376' });
    assert.deepEqual(settings(remote, 'BindsTo'), []);
    assert.deepEqual(settings(remote, 'After'), ['network-online.target']);
    assert.deepEqual(settings(remote, 'WantedBy'), ['multi-user.target']);
    assert.equal(engineIsLocal('ssh://me@box'), false);
    assert.equal(engineIsLocal('unix:///var/run/docker.sock'), true);
    assert.equal(engineIsLocal(undefined), true);
  });
  it('Description= doubles "%" (a specifier otherwise)', () =>
    assert.deepEqual(settings(unitText({ ...spec, manifests: ['/srv/50%.yaml'] }), 'Description'), ['runpod: /srv/50%%.yaml']));
  it('the same spec gives the same text', () => assert.equal(unitText(spec), unitText({ ...spec })));
});
