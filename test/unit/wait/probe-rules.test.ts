// Probe validation, one Kubernetes rule per row (pkg/apis/core/validation validateProbe and friends, and the
// kubelet's FindPort for named ports), plus the defaults and the engine health check the plan derives.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Container } from 'kubernetes-types/core/v1.js';
import { formatProblem } from '../../../src/errors.js';
import { parseManifests } from '../../../src/manifest/parse.js';
import { containerProbes, engineHealthcheck } from '../../../src/plan/probes.js';

function problems(containerLines: string): string[] {
  const text = [
    'apiVersion: v1',
    'kind: Pod',
    'metadata:',
    '  name: web',
    'spec:',
    '  containers:',
    '  - name: app',
    '    image: busybox',
    '    ports:',
    '    - {name: http, containerPort: 8080}',
    containerLines,
  ].join('\n');
  return parseManifests([{ source: { file: 'pod.yaml', origin: '/x/pod.yaml' }, text }], { defaultNamespace: 'default' }).problems.map(formatProblem);
}

describe('probe validation', () => {
  const rows: Array<{ name: string; lines: string; expect: RegExp[] }> = [
    { name: 'an httpGet probe on a named port', lines: '    readinessProbe: {httpGet: {port: http, path: /healthz}}', expect: [] },
    {
      name: 'every handler and timing field',
      lines:
        '    livenessProbe: {grpc: {port: 9090, service: x}, initialDelaySeconds: 1, periodSeconds: 2, timeoutSeconds: 3, successThreshold: 1, failureThreshold: 4, terminationGracePeriodSeconds: 5}',
      expect: [],
    },
    { name: 'no handler', lines: '    readinessProbe: {periodSeconds: 1}', expect: [/spec\.containers\[0\]\.readinessProbe: must specify a handler type/] },
    {
      name: 'two handlers',
      lines: '    readinessProbe: {exec: {command: ["true"]}, tcpSocket: {port: 80}}',
      expect: [/readinessProbe\.tcpSocket: may not specify more than 1 handler type \(exec is already given\)/],
    },
    {
      name: 'a port name the container does not declare',
      lines: '    readinessProbe: {tcpSocket: {port: web}}',
      expect: [/readinessProbe\.tcpSocket\.port: port name "web" is not among the container's ports \(http\)/],
    },
    { name: 'a port number out of range', lines: '    readinessProbe: {httpGet: {port: 70000}}', expect: [/httpGet\.port: must be between 1 and 65535/] },
    {
      name: 'successThreshold above 1 on liveness',
      lines: '    livenessProbe: {exec: {command: ["true"]}, successThreshold: 2}',
      expect: [/livenessProbe\.successThreshold: must be 1 for a livenessProbe/],
    },
    {
      name: 'successThreshold above 1 on startup',
      lines: '    startupProbe: {exec: {command: ["true"]}, successThreshold: 3}',
      expect: [/startupProbe\.successThreshold: must be 1 for a startupProbe/],
    },
    { name: 'successThreshold above 1 on readiness is fine', lines: '    readinessProbe: {exec: {command: ["true"]}, successThreshold: 3}', expect: [] },
    {
      name: 'a negative threshold',
      lines: '    readinessProbe: {exec: {command: ["true"]}, failureThreshold: -1}',
      expect: [/failureThreshold: must be greater than or equal to 0/],
    },
    {
      name: 'terminationGracePeriodSeconds on readiness',
      lines: '    readinessProbe: {exec: {command: ["true"]}, terminationGracePeriodSeconds: 5}',
      expect: [/must not be set for readinessProbes/],
    },
    { name: 'an empty exec command', lines: '    livenessProbe: {exec: {command: []}}', expect: [/livenessProbe\.exec\.command: required/] },
    { name: 'a bad scheme', lines: '    readinessProbe: {httpGet: {port: 80, scheme: FTP}}', expect: [/httpGet\.scheme/] },
    {
      name: 'a bad header name',
      lines: '    readinessProbe: {httpGet: {port: 80, httpHeaders: [{name: "a b", value: x}]}}',
      expect: [/httpHeaders\[0\]\.name: must be a valid HTTP header name/],
    },
    { name: 'an unknown probe field', lines: '    readinessProbe: {exec: {command: ["true"]}, period: 1}', expect: [/readinessProbe\.period: unknown field "period"/] },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const got = problems(row.lines);
      assert.equal(got.length, row.expect.length, got.join('\n'));
      row.expect.forEach((re, i) => assert.match(got[i]!, re));
    });
  }
});

describe('probe defaults (SetDefaults_Probe) and the engine health check', () => {
  const c: Container = {
    name: 'app',
    image: 'busybox',
    ports: [{ name: 'http', containerPort: 8080 }],
    readinessProbe: { httpGet: { port: 'http' } },
    livenessProbe: { exec: { command: ['cat', '/ok'] }, periodSeconds: 5, failureThreshold: 0 },
  };
  it('fills in the defaults and resolves named ports', () => {
    const p = containerProbes(c, 30)!;
    assert.deepEqual(p.readiness, {
      kind: 'readiness',
      handler: { type: 'httpGet', scheme: 'HTTP', host: '', path: '/', port: 8080, headers: [] },
      initialDelayMs: 0,
      periodMs: 10_000,
      timeoutMs: 1000,
      successThreshold: 1,
      failureThreshold: 3,
      gracePeriodSeconds: 30,
    });
    assert.equal(p.liveness?.periodMs, 5000);
    assert.equal(p.liveness?.failureThreshold, 3, '0 means the default');
    assert.equal(p.startup, undefined);
  });
  it('an exec livenessProbe becomes the engine HEALTHCHECK; other handlers do not', () => {
    assert.deepEqual(engineHealthcheck(c), { Test: ['CMD', 'cat', '/ok'], Interval: 5e9, Timeout: 1e9, Retries: 3, StartPeriod: 0 });
    assert.equal(engineHealthcheck({ ...c, livenessProbe: { tcpSocket: { port: 80 } } }), undefined);
  });
});
