// --prune selection (pure): which runpod pods a run takes down, by the source recorded on the infra container.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ContainerSummary } from '../../src/engine/ports/containers.js';
import { selectPrunable } from '../../src/reconcile/prune.js';
import { publishedPorts } from '../../src/report/endpoints.js';

let seq = 0;
function container(namespace: string, name: string, containerName: string, source?: string, managed = true): ContainerSummary {
  const labels: Record<string, string> = {
    'io.kubernetes.pod.namespace': namespace,
    'io.kubernetes.pod.name': name,
    'io.kubernetes.container.name': containerName,
  };
  if (managed) labels['app.kubernetes.io/managed-by'] = 'runpod';
  if (source !== undefined) labels['io.runpod.source'] = source;
  return { id: `id${seq++}`, name: `k8s_${containerName}_${name}`, labels, state: 'running', created: 0 };
}

const engineState: ContainerSummary[] = [
  container('default', 'a', 'POD', '/srv/one'),
  container('default', 'a', 'web'),
  container('default', 'b', 'POD', '/srv/one'),
  container('default', 'b', 'web'),
  container('default', 'gone', 'POD', '/srv/one'),
  container('default', 'gone', 'web'),
  container('other', 'gone', 'POD', '/srv/one'),
  container('default', 'elsewhere', 'POD', '/srv/two'),
  container('default', 'file', 'POD', '/srv/one/a.yaml'),
  container('default', 'stdin', 'POD'),
  container('default', 'orphan', 'web'), // its infra container was removed by hand: no source to go by
];

describe('selectPrunable', () => {
  const keep = new Set(['default/a', 'default/b']);
  it('--prune: the pods from the same source this run does not name, in every namespace', () => {
    assert.deepEqual(selectPrunable(engineState, keep, 'source', new Set(['/srv/one'])), [
      { namespace: 'default', name: 'gone', source: '/srv/one' },
      { namespace: 'other', name: 'gone', source: '/srv/one' },
    ]);
  });
  it('a directory and a file in it are different sources; another directory is never touched', () => {
    const names = selectPrunable(engineState, keep, 'source', new Set(['/srv/one'])).map((p) => p.name);
    assert.ok(!names.includes('file'));
    assert.ok(!names.includes('elsewhere'));
  });
  it('stdin pods and pods without an infra container have no source and go only under --prune-all', () => {
    const bySource = selectPrunable(engineState, keep, 'source', new Set(['/srv/one'])).map((p) => p.name);
    assert.ok(!bySource.includes('stdin') && !bySource.includes('orphan'));
    assert.deepEqual(
      selectPrunable(engineState, keep, 'all', new Set(['/srv/one'])).map((p) => `${p.namespace}/${p.name}`),
      ['default/elsewhere', 'default/file', 'default/gone', 'default/orphan', 'default/stdin', 'other/gone'],
    );
  });
  it("this run's pods are never pruned, even when nothing else matches", () => {
    assert.deepEqual(selectPrunable(engineState.slice(0, 4), keep, 'all', new Set()), []);
  });
  it("containers without runpod's label are not runpod's to prune", () => {
    assert.deepEqual(selectPrunable([container('default', 'x', 'POD', '/srv/one', false)], new Set(), 'all', new Set(['/srv/one'])), []);
  });
  it('no source from this run: nothing by source', () => assert.deepEqual(selectPrunable(engineState, keep, 'source', new Set()), []));
});

describe('publishedPorts: declared ports joined with what the engine bound', () => {
  it('takes the IPv4 binding of an engine-chosen port; an unpublished port has no host port', () => {
    const ports = publishedPorts(
      [
        { container: 'web', name: 'http', containerPort: 80, protocol: 'TCP' },
        { container: 'dns', containerPort: 53, protocol: 'UDP' },
        { container: 'web', containerPort: 9090, protocol: 'TCP' },
      ],
      {
        '80/tcp': [
          { HostIp: '::', HostPort: '49153' },
          { HostIp: '0.0.0.0', HostPort: '49153' },
        ],
        '53/udp': [{ HostIp: '127.0.0.1', HostPort: '5353' }],
        '9090/tcp': null,
      },
    );
    assert.deepEqual(ports, [
      { container: 'web', name: 'http', containerPort: 80, protocol: 'TCP', hostPort: 49153, hostIP: '0.0.0.0' },
      { container: 'dns', containerPort: 53, protocol: 'UDP', hostPort: 5353, hostIP: '127.0.0.1' },
      { container: 'web', containerPort: 9090, protocol: 'TCP' },
    ]);
  });
});
