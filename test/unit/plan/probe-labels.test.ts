// The readiness and startup probes as labels (plan/probeLabels.ts): what the plan writes reads back as the very
// ProbeSpec the run's prober uses, no hash moves for them, and no Secret value gets into them.
import { hashedCreate } from '../../../src/plan/resize.js';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Container } from 'kubernetes-types/core/v1.js';
import type { ConfigObject, LoadedPod } from '../../../src/manifest/types.js';
import { translatePod } from '../../../src/plan/translate.js';
import { ProbeLabel, probeLabels, probesFromLabels } from '../../../src/plan/probeLabels.js';
import { specHash } from '../../../src/kube/names.js';

function pod(containers: Container[], spec: Record<string, unknown> = {}, configs?: Map<string, ConfigObject>): LoadedPod {
  return {
    pod: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'default' },
      spec: { containers, restartPolicy: 'Always', terminationGracePeriodSeconds: 30, ...spec },
    },
    source: { file: 'pod.yaml', origin: '/srv/pods/pod.yaml' },
    line: 1,
    ...(configs ? { configs } : {}),
  } as LoadedPod;
}

const plan = (p: LoadedPod) => translatePod(p, { infraImage: 'runpod/pause:test' });

const probed = (): Container => ({
  name: 'app',
  image: 'busybox:1.36',
  imagePullPolicy: 'IfNotPresent',
  ports: [{ name: 'web', containerPort: 8080 }],
  readinessProbe: { httpGet: { path: 'health', port: 'web', httpHeaders: [{ name: 'X-Probe', value: 'runpod' }] }, periodSeconds: 2, timeoutSeconds: 3, successThreshold: 2 },
  startupProbe: { exec: { command: ['cat', '/tmp/started'] }, failureThreshold: 30, periodSeconds: 1, initialDelaySeconds: 1 },
  livenessProbe: { tcpSocket: { port: 8080 } },
});

const bare = (): Container => {
  const { readinessProbe: _r, startupProbe: _s, livenessProbe: _l, ...rest } = probed();
  return rest;
};

describe('probe labels: the round trip', () => {
  it('readiness and startup go on the container as planned and read back the same; liveness does not', () => {
    const c = plan(pod([probed()])).containers[0]!;
    const labels = c.create.Labels!;
    assert.ok(labels[ProbeLabel.readiness]);
    assert.ok(labels[ProbeLabel.startup]);
    assert.equal(Object.keys(labels).filter((k) => k.startsWith('io.runpod.probe.')).length, 2);
    const back = probesFromLabels(labels);
    assert.deepEqual(back, { readiness: c.probes!.readiness, startup: c.probes!.startup });
    // Defaults applied and the named port resolved, as the run's prober has them.
    assert.deepEqual(back.readiness!.handler, { type: 'httpGet', scheme: 'HTTP', host: '', path: '/health', port: 8080, headers: [{ name: 'X-Probe', value: 'runpod' }] });
    assert.equal(back.readiness!.timeoutMs, 3000);
    assert.equal(back.startup!.initialDelayMs, 1000);
  });

  it('tcpSocket and grpc handlers read back too', () => {
    for (const readinessProbe of [{ tcpSocket: { port: 5432 } }, { grpc: { port: 9090, service: 'db' } }]) {
      const c = plan(pod([{ ...bare(), readinessProbe }])).containers[0]!;
      assert.deepEqual(probesFromLabels(c.create.Labels!), { readiness: c.probes!.readiness });
    }
  });

  it('a sidecar carries its probes; a container without probes carries none', () => {
    const p = plan(pod([bare()], { initContainers: [{ ...probed(), name: 'proxy', restartPolicy: 'Always' }] }));
    assert.deepEqual(probesFromLabels(p.initContainers[0]!.create.Labels!), { readiness: p.initContainers[0]!.probes!.readiness, startup: p.initContainers[0]!.probes!.startup });
    assert.deepEqual(probesFromLabels(p.containers[0]!.create.Labels!), {});
    assert.deepEqual(probeLabels(undefined), {});
  });

  it('a label runpod did not write (edited by hand) is no probe', () => {
    const good = probeLabels(plan(pod([probed()])).containers[0]!.probes);
    const spec = JSON.parse(good[ProbeLabel.readiness]!) as Record<string, unknown>;
    const bad = [
      'not json',
      '[]',
      JSON.stringify({ ...spec, kind: 'liveness' }),
      JSON.stringify({ ...spec, timeoutMs: 0 }),
      JSON.stringify({ ...spec, handler: { type: 'exec', command: 'cat /tmp/ready' } }),
      JSON.stringify({ ...spec, handler: { type: 'tcpSocket', host: '', port: 70000 } }),
      JSON.stringify({ ...spec, handler: { type: 'shell' } }),
    ];
    for (const raw of bad) assert.deepEqual(probesFromLabels({ [ProbeLabel.readiness]: raw }), {}, raw);
  });
});

describe('probe labels: no hash moves for them', () => {
  it('the container and pod hashes are the same with and without readiness and startup probes', () => {
    // A tcp liveness probe is outside the hash too (only an exec one is the engine's health check).
    const a = plan(pod([probed()], { initContainers: [{ ...probed(), name: 'proxy', restartPolicy: 'Always' }] }));
    const b = plan(pod([bare()], { initContainers: [{ ...bare(), name: 'proxy', restartPolicy: 'Always' }] }));
    assert.equal(a.hash, b.hash);
    assert.equal(a.containers[0]!.hash, b.containers[0]!.hash);
    assert.equal(a.initContainers[0]!.hash, b.initContainers[0]!.hash);
    assert.notDeepEqual(a.containers[0]!.create.Labels, b.containers[0]!.create.Labels);
  });

  it('the hash label is the hash of the create options without labels, as before probe labels', () => {
    const c = plan(pod([probed()])).containers[0]!;
    const { Labels, ...create } = c.create;
    // Less the resources resizePolicy NotRequired applies in place (resize.ts); the full hash is the one before.
    assert.equal(Labels!['io.kubernetes.container.hash'], specHash({ create: hashedCreate(create, c.resize), image: c.image }));
    assert.equal(c.fullHash, specHash({ create, image: c.image }));
  });
});

describe('probe labels: no Secret data', () => {
  it('a probe beside Secret-fed env and command holds only spec text', () => {
    const secret: ConfigObject = {
      kind: 'Secret',
      namespace: 'default',
      name: 'creds',
      strings: { password: 'hunter2' },
      files: { password: Buffer.from('hunter2').toString('base64') },
    };
    const c: Container = {
      ...bare(),
      env: [{ name: 'P', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } }],
      command: ['sh', '-c', 'serve --password=$(P)'],
      readinessProbe: { exec: { command: ['sh', '-c', 'test -n "$(P)" && test -n "$P"'] } },
      startupProbe: { httpGet: { port: 8080, httpHeaders: [{ name: 'Authorization', value: 'Bearer $(P)' }] } },
    };
    const p = plan(pod([c], {}, new Map([['Secret/creds', secret]])));
    const labels = p.containers[0]!.create.Labels!;
    assert.ok(p.containers[0]!.create.Env!.includes('P=hunter2'), 'the env holds the secret (and is masked elsewhere)');
    for (const k of [ProbeLabel.readiness, ProbeLabel.startup]) {
      assert.ok(labels[k], k);
      assert.doesNotMatch(labels[k]!, /hunter2/, k);
    }
    assert.match(labels[ProbeLabel.readiness]!, /\$\(P\)/, 'the command as written, not expanded');
  });
});
