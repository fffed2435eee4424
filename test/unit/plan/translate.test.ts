import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Container } from 'kubernetes-types/core/v1.js';
import type { LoadedPod } from '../../../src/manifest/types.js';
import { translatePod, instanceCreateOptions } from '../../../src/plan/translate.js';
import { podUid, dockerContainerName } from '../../../src/kube/names.js';
import { expandVars, resolveEnv } from '../../../src/plan/expand.js';

function pod(containers: Container[], spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): LoadedPod {
  return {
    pod: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'default', ...metadata },
      spec: { containers, restartPolicy: 'Always', terminationGracePeriodSeconds: 30, ...spec },
    },
    source: { file: 'pod.yaml', origin: '/srv/pods/pod.yaml' },
    line: 1,
  } as LoadedPod;
}

const c = (extra: Partial<Container> = {}): Container => ({ name: 'app', image: 'busybox:1.36', imagePullPolicy: 'IfNotPresent', ...extra });
const plan1 = (p: LoadedPod) => translatePod(p, { infraImage: 'runpod/pause:test' });

describe('translatePod: command and args (Kubernetes ENTRYPOINT/CMD rules)', () => {
  // https://kubernetes.io/docs/tasks/inject-data-application/define-command-argument-container/#notes
  const cases: { title: string; command?: string[]; args?: string[]; entrypoint?: string[]; cmd?: string[] }[] = [
    { title: 'neither: image ENTRYPOINT and CMD run' },
    { title: 'command only: replaces ENTRYPOINT, drops the image CMD', command: ['/bin/app'], entrypoint: ['/bin/app'] },
    { title: 'args only: image ENTRYPOINT runs with these args', args: ['-v'], cmd: ['-v'] },
    { title: 'both: command with args', command: ['/bin/app'], args: ['-v'], entrypoint: ['/bin/app'], cmd: ['-v'] },
    { title: 'empty command array still replaces ENTRYPOINT', command: [], entrypoint: [] },
  ];
  for (const t of cases) {
    it(t.title, () => {
      const create = plan1(pod([c({ ...(t.command ? { command: t.command } : {}), ...(t.args ? { args: t.args } : {}) })])).containers[0]!.create;
      assert.deepEqual(create.Entrypoint, t.entrypoint);
      assert.deepEqual(create.Cmd, t.cmd);
    });
  }
});

describe('$(VAR) expansion (third_party/forked/golang/expansion)', () => {
  const env = new Map([
    ['A', 'x'],
    ['EMPTY', ''],
  ]);
  const cases: [string, string][] = [
    ['$(A)', 'x'],
    ['pre-$(A)-post', 'pre-x-post'],
    ['$(MISSING)', '$(MISSING)'],
    ['$$(A)', '$(A)'],
    ['$$', '$'],
    ['$', '$'],
    ['a$b', 'a$b'],
    ['$(A', '$(A'],
    ['$()', '$()'],
    ['$(EMPTY)|', '|'],
    ['$(A)$(A)', 'xx'],
  ];
  for (const [input, want] of cases)
    it(`${JSON.stringify(input)} -> ${JSON.stringify(want)}`, () =>
      assert.equal(
        expandVars(input, (n) => env.get(n)),
        want,
      ));

  it('env values see only earlier entries', () => {
    const r = resolveEnv([
      { name: 'B', value: '$(A)' },
      { name: 'A', value: '1' },
      { name: 'C', value: '$(A)-$(B)' },
    ]);
    assert.deepEqual(
      [...r],
      [
        ['B', '$(A)'],
        ['A', '1'],
        ['C', '1-$(A)'],
      ],
    );
  });

  it('command and args expand from the whole env', () => {
    const p = plan1(pod([c({ env: [{ name: 'PORT', value: '8080' }], command: ['serve', '--port=$(PORT)'], args: ['$$(PORT)', '$(NOPE)'] })]));
    assert.deepEqual(p.containers[0]!.create.Entrypoint, ['serve', '--port=8080']);
    assert.deepEqual(p.containers[0]!.create.Cmd, ['$(PORT)', '$(NOPE)']);
    assert.deepEqual(p.containers[0]!.create.Env, ['PORT=8080']);
  });
});

describe('restartPolicy -> engine restart policy', () => {
  const cases = [
    ['Always', { Name: 'always' }],
    ['OnFailure', { Name: 'on-failure', MaximumRetryCount: 0 }],
    ['Never', { Name: 'no' }],
  ] as const;
  for (const [policy, want] of cases) {
    it(policy, () => {
      const p = plan1(pod([c()], { restartPolicy: policy }));
      assert.deepEqual(p.containers[0]!.create.HostConfig?.RestartPolicy, want);
      // The sandbox lives until `down`, whatever the pod's policy.
      assert.deepEqual(p.infra.create.HostConfig?.RestartPolicy, { Name: 'unless-stopped' });
    });
  }
});

describe('resources (pkg/kubelet/cm/helpers_linux.go)', () => {
  const cases: { title: string; resources: Container['resources']; want: Record<string, number | undefined> }[] = [
    { title: 'no resources: minimum shares', resources: undefined, want: { CpuShares: 2, Memory: undefined, CpuQuota: undefined } },
    { title: 'memory limit 64Mi', resources: { limits: { memory: '64Mi' } }, want: { Memory: 64 * 1024 * 1024 } },
    { title: 'memory 1G decimal', resources: { limits: { memory: '1G' } }, want: { Memory: 1e9 } },
    { title: 'memory request is a reservation', resources: { requests: { memory: '32Mi' } }, want: { MemoryReservation: 32 * 1024 * 1024 } },
    { title: 'cpu limit 500m -> quota 50000 of 100000', resources: { limits: { cpu: '500m' } }, want: { CpuQuota: 50000, CpuPeriod: 100000 } },
    { title: 'cpu limit 2 -> quota 200000', resources: { limits: { cpu: '2' } }, want: { CpuQuota: 200000 } },
    { title: 'cpu limit 1m -> minimum quota 1000', resources: { limits: { cpu: '1m' } }, want: { CpuQuota: 1000 } },
    { title: 'cpu request 250m -> 256 shares', resources: { requests: { cpu: '250m' } }, want: { CpuShares: 256 } },
    { title: 'cpu request 0.1 -> 102 shares', resources: { requests: { cpu: '0.1' } }, want: { CpuShares: 102 } },
  ];
  for (const t of cases) {
    it(t.title, () => {
      const hc = plan1(pod([c({ ...(t.resources ? { resources: t.resources } : {}) })])).containers[0]!.create.HostConfig as Record<string, unknown>;
      for (const [k, v] of Object.entries(t.want)) assert.equal(hc[k], v, k);
    });
  }
});

describe('infra container', () => {
  it('publishes host ports with protocol and host IP, hostname is the pod name', () => {
    const p = plan1(
      pod([
        c({
          ports: [{ containerPort: 80, hostPort: 8080, protocol: 'TCP' }, { containerPort: 53, hostPort: 5353, protocol: 'UDP', hostIP: '127.0.0.1' }, { containerPort: 9000 }],
        }),
      ]),
    );
    assert.equal(p.infra.create.Hostname, 'web');
    assert.deepEqual(p.infra.create.ExposedPorts, { '80/tcp': {}, '53/udp': {} });
    assert.deepEqual(p.infra.create.HostConfig?.PortBindings, {
      '80/tcp': [{ HostIp: '', HostPort: '8080' }],
      '53/udp': [{ HostIp: '127.0.0.1', HostPort: '5353' }],
    });
    assert.equal(p.infra.create.HostConfig?.IpcMode, 'shareable');
  });

  it('spec.hostname overrides the pod name', () => {
    assert.equal(plan1(pod([c()], { hostname: 'box' })).infra.create.Hostname, 'box');
  });

  it('carries pod labels, annotations as annotation.<key>, and runpod labels win', () => {
    const p = plan1(pod([c()], {}, { labels: { app: 'web', 'app.kubernetes.io/managed-by': 'helm' }, annotations: { note: 'hi' } }));
    const l = p.infra.create.Labels!;
    assert.equal(l.app, 'web');
    assert.equal(l['annotation.note'], 'hi');
    assert.equal(l['app.kubernetes.io/managed-by'], 'runpod');
    assert.equal(l['io.kubernetes.container.name'], 'POD');
    assert.equal(l['io.kubernetes.docker.type'], 'podsandbox');
    assert.equal(l['io.runpod.source'], '/srv/pods/pod.yaml');
    assert.match(l['io.kubernetes.container.hash']!, /^[0-9a-f]{16}$/);
  });
});

describe('hashes: what replaces what (design.md)', () => {
  const base = () => pod([c({ env: [{ name: 'A', value: '1' }] }), c({ name: 'side' })]);
  it('the same pod gives the same plan', () => assert.deepEqual(plan1(base()), plan1(base())));
  it('a changed env value changes that container hash only', () => {
    const a = plan1(base());
    const changed = base();
    changed.pod.spec.containers[0]!.env = [{ name: 'A', value: '2' }];
    const b = plan1(changed);
    assert.notEqual(a.containers[0]!.hash, b.containers[0]!.hash);
    assert.equal(a.containers[1]!.hash, b.containers[1]!.hash);
    assert.equal(a.hash, b.hash);
  });
  it('labels and annotations alone replace nothing', () => {
    const a = plan1(base());
    const b = plan1(pod(base().pod.spec.containers, {}, { labels: { x: 'y' }, annotations: { z: 'w' } }));
    assert.equal(a.hash, b.hash);
    assert.deepEqual(
      a.containers.map((x) => x.hash),
      b.containers.map((x) => x.hash),
    );
  });
  it('a changed host port changes the pod hash', () => {
    const a = plan1(base());
    const p = base();
    p.pod.spec.containers[1]!.ports = [{ containerPort: 80, hostPort: 8080 }];
    assert.notEqual(a.hash, plan1(p).hash);
  });
  it('--pull changes no hash', () => {
    const a = plan1(base());
    const b = translatePod(base(), { infraImage: 'runpod/pause:test', pull: 'never' });
    assert.equal(b.containers[0]!.pullPolicy, 'Never');
    assert.equal(a.containers[0]!.hash, b.containers[0]!.hash);
  });
});

describe('names and instances', () => {
  it('uid: metadata.uid when given, else a stable UUID-shaped hash', () => {
    assert.equal(podUid('default', 'web', 'given-uid'), 'given-uid');
    const u = podUid('default', 'web');
    assert.equal(u, podUid('default', 'web'));
    assert.notEqual(u, podUid('other', 'web'));
    assert.match(u, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
  it('instance options: attempt in the name and label, joined to the infra namespaces', () => {
    const p = plan1(pod([c()]));
    const { name, options } = instanceCreateOptions(p, p.containers[0]!, 3, 'abc123');
    assert.equal(name, dockerContainerName('app', 'web', 'default', p.uid, 3));
    assert.equal(name, `k8s_app_web_default_${p.uid}_3`);
    assert.equal(options.Labels!['io.kubernetes.container.restartCount'], '3');
    assert.equal(options.HostConfig?.NetworkMode, 'container:abc123');
    assert.equal(options.HostConfig?.IpcMode, 'container:abc123');
    assert.deepEqual(options.HostConfig?.RestartPolicy, { Name: 'always' });
    // The plan itself is not mutated.
    assert.equal(p.containers[0]!.create.HostConfig?.NetworkMode, undefined);
  });
});
