// RUNPOD_* variables for scoped runs and -o env: naming, collisions, and quoting that survives eval in sh.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { envPart, exportLines, podEnvironment, shellQuote, type EnvPod } from '../../src/report/env.js';

const web: EnvPod = {
  namespace: 'default',
  name: 'web-api.v2',
  ip: '172.17.0.5',
  source: '/srv/pods',
  ports: [
    { container: 'httpd', name: 'http', containerPort: 8080, protocol: 'TCP', hostPort: 32768, hostIP: '0.0.0.0' },
    { container: 'dns', containerPort: 53, protocol: 'UDP' },
  ],
};

describe('envPart: upper-case, every other character to _', () => {
  const cases: [string, string][] = [
    ['web', 'WEB'],
    ['web-api.v2', 'WEB_API_V2'],
    ['db_1', 'DB_1'],
    ['a..b', 'A__B'],
  ];
  for (const [input, want] of cases) it(`${input} -> ${want}`, () => assert.equal(envPart(input), want));
});

describe('podEnvironment', () => {
  it('one pod: long names, then the short forms', () => {
    assert.deepEqual(podEnvironment([web]).vars, [
      ['RUNPOD_WEB_API_V2_IP', '172.17.0.5'],
      ['RUNPOD_WEB_API_V2_SOURCE', '/srv/pods'],
      ['RUNPOD_WEB_API_V2_PORT_8080', '8080'],
      ['RUNPOD_WEB_API_V2_HTTP_PORT', '8080'],
      ['RUNPOD_WEB_API_V2_HOST_PORT_8080', '32768'],
      ['RUNPOD_WEB_API_V2_PORT_53_UDP', '53'],
      ['RUNPOD_IP', '172.17.0.5'],
      ['RUNPOD_SOURCE', '/srv/pods'],
      ['RUNPOD_PORT_8080', '8080'],
      ['RUNPOD_HTTP_PORT', '8080'],
      ['RUNPOD_HOST_PORT_8080', '32768'],
      ['RUNPOD_PORT_53_UDP', '53'],
    ]);
  });

  it('several pods: no short forms; pods without an address or source get no such variable', () => {
    const db: EnvPod = { namespace: 'default', name: 'db', ports: [{ container: 'pg', containerPort: 5432, protocol: 'TCP' }] };
    const names = podEnvironment([web, db]).vars.map(([k]) => k);
    assert.ok(names.includes('RUNPOD_DB_PORT_5432'));
    assert.ok(!names.includes('RUNPOD_DB_IP'));
    assert.ok(!names.includes('RUNPOD_DB_SOURCE'));
    assert.ok(!names.some((k) => k === 'RUNPOD_IP' || k === 'RUNPOD_PORT_5432'));
  });

  it('pods whose names meet (same name in two namespaces, or web-1 and web.1) are named with their namespace', () => {
    const env = podEnvironment([
      { namespace: 'a', name: 'web', ip: '10.0.0.1' },
      { namespace: 'b', name: 'web', ip: '10.0.0.2' },
    ]);
    assert.deepEqual(env.vars, [
      ['RUNPOD_A_WEB_IP', '10.0.0.1'],
      ['RUNPOD_B_WEB_IP', '10.0.0.2'],
    ]);
    assert.deepEqual(env.warnings, []);
  });

  it('a name two pods would give different values is left out, with a warning; never silently one of them', () => {
    const env = podEnvironment([
      { namespace: 'default', name: 'web-1', ip: '10.0.0.1' },
      { namespace: 'default', name: 'web.1', ip: '10.0.0.2' },
    ]);
    // Both are in "default": the namespace cannot tell them apart.
    assert.deepEqual(env.vars, []);
    assert.equal(env.warnings.length, 1);
    assert.match(env.warnings[0]!, /RUNPOD_DEFAULT_WEB_1_IP left out/);
  });

  it('a short form never displaces a long name: a pod called "host"', () => {
    const env = podEnvironment([{ namespace: 'default', name: 'host', ports: [{ container: 'c', containerPort: 80, protocol: 'TCP', hostPort: 30080 }] }]);
    const map = new Map(env.vars);
    assert.equal(map.get('RUNPOD_HOST_PORT_80'), '80');
    assert.equal(map.get('RUNPOD_HOST_HOST_PORT_80'), '30080');
  });
});

describe('shellQuote and exportLines', () => {
  const nasty = ['', 'plain', "it's", 'two  spaces', '$HOME `id` $(id) \\ "dq"', 'line1\nline2\n', "'''", '*; rm -rf / #', 'ünïcødé ✓'];
  for (const v of nasty)
    it(`round-trips ${JSON.stringify(v)} through sh eval`, () => {
      const text = exportLines({ vars: [['RUNPOD_X_SOURCE', v]], warnings: ['a warning'] });
      const r = spawnSync('sh', ['-c', 'eval "$1"; printf %s "$RUNPOD_X_SOURCE"', 'sh', text], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout, v);
    });
  it('single quotes, with an embedded quote closed and escaped', () => assert.equal(shellQuote("a'b"), `'a'\\''b'`));
  it('warnings are comments', () => assert.equal(exportLines({ vars: [['A', '1']], warnings: ['x\ny'] }), "# runpod: x y\nexport A='1'\n"));
});
