// ConfigMaps and Secrets beside a pod: configMap/secret/downwardAPI volumes and env sources, checked from inside
// the containers; a changed value replaces only its consumer; missing references fail before anything starts;
// secret values never appear in runpod's output.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { busybox, checkNothingLeftBehind, cleanupFile, podContainerIds, podContainers, podFile, podObject, runpod, show, sleeper, type Obj } from './run-helpers.js';
import { cleanupPodAndVolumes, inPod, podVolumes } from './volumes-helpers.js';
import { uniqueName } from './harness.js';

checkNothingLeftBehind();

const secretValue = 'pa55-w0rd-7c1f';

function configMap(name: string, data: Record<string, string>): Obj {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
}
function secret(name: string, stringData: Record<string, string>): Obj {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name }, stringData };
}

function webPod(name: string, cmName: string, secName: string): Obj {
  const pod = podObject({
    name,
    labels: { app: 'web' },
    containers: [
      sleeper('web', {
        envFrom: [{ configMapRef: { name: cmName }, prefix: 'CFG_' }],
        env: [
          { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: secName, key: 'password' } } },
          { name: 'DSN', value: 'db://app:$(PASSWORD)@db' },
          { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
          { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'APP', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
          { name: 'OPT', valueFrom: { configMapKeyRef: { name: 'not-there', key: 'k', optional: true } } },
        ],
        volumeMounts: [
          { name: 'config', mountPath: '/etc/web' },
          { name: 'creds', mountPath: '/etc/creds' },
          { name: 'info', mountPath: '/etc/podinfo' },
        ],
      }),
      sleeper('other'),
    ],
  });
  (pod.spec as Obj).volumes = [
    {
      name: 'config',
      configMap: {
        name: cmName,
        items: [
          { key: 'web.conf', path: 'conf.d/web.conf', mode: 0o600 },
          { key: 'level', path: 'level' },
        ],
      },
    },
    { name: 'creds', secret: { secretName: secName, defaultMode: 0o644 } },
    { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
  ];
  return pod;
}

describe('configMap and secret volumes, env sources', () => {
  it('renders files with their modes and paths, secret files not world-readable, env from every source', async (t) => {
    const name = uniqueName('vol-files');
    cleanupPodAndVolumes(t, name);
    const file = podFile([
      configMap(`${name}-cm`, { 'web.conf': 'listen 8080\n', level: 'debug' }),
      secret(`${name}-sec`, { password: secretValue }),
      webPod(name, `${name}-cm`, `${name}-sec`),
    ]);
    cleanupFile(t, file);
    const r = await runpod([file]);
    assert.equal(r.code, 0, show(r));

    assert.equal(inPod(name, 'web', 'cat /etc/web/conf.d/web.conf'), 'listen 8080\n');
    assert.equal(inPod(name, 'web', 'cat /etc/web/level'), 'debug');
    assert.match(inPod(name, 'web', 'ls -l /etc/web/conf.d/web.conf'), /^-rw------- /);
    assert.match(inPod(name, 'web', 'ls -l /etc/web/level'), /^-rw-r--r-- /);
    // defaultMode 0644 on a Secret: the world bits are dropped.
    assert.match(inPod(name, 'web', 'ls -l /etc/creds/password'), /^-rw-r----- /);
    assert.equal(inPod(name, 'web', 'cat /etc/creds/password'), secretValue);
    assert.equal(inPod(name, 'web', 'cat /etc/podinfo/labels'), 'app="web"');
    // Read-only, as Kubernetes mounts these volumes.
    assert.match(inPod(name, 'web', 'touch /etc/web/x 2>&1 || true'), /Read-only file system/);

    const env = inPod(name, 'web', 'env');
    const infraIp = must(podContainers(name).get('POD'));
    assert.match(env, /^CFG_level=debug$/m);
    assert.match(env, new RegExp(`^PASSWORD=${secretValue}$`, 'm'));
    assert.match(env, new RegExp(`^DSN=db://app:${secretValue}@db$`, 'm'));
    assert.match(env, new RegExp(`^POD_NAME=${name}$`, 'm'));
    assert.match(env, /^APP=web$/m);
    assert.doesNotMatch(env, /^OPT=/m);
    const ip = /^POD_IP=(.*)$/m.exec(env)?.[1];
    assert.ok(ip && ip === inspectIp(infraIp), `POD_IP ${ip}`);

    // Secrets never printed: not in the run's output, nor in -o json, -v, or --dry-run of any format.
    for (const args of [
      ['-v', file],
      ['-o', 'json', file],
      ['--dry-run', file],
      ['--dry-run', '-o', 'json', file],
      ['--dry-run', '-o', 'yaml', file],
    ]) {
      const out = await runpod(args);
      assert.equal(out.code, 0, show(out));
      assert.ok(!`${out.stdout}${out.stderr}`.includes(secretValue), `secret printed by runpod ${args.join(' ')}:\n${show(out)}`);
    }
    assert.ok(!`${r.stdout}${r.stderr}`.includes(secretValue));

    const down = await runpod(['down', file]);
    assert.equal(down.code, 0, show(down));
    assert.deepEqual(podVolumes(name), [], "the pod's volumes are removed by down");
  });

  it('a changed ConfigMap value replaces only the container that consumes it', async (t) => {
    const name = uniqueName('vol-change');
    cleanupPodAndVolumes(t, name);
    const pod = (level: string): Obj[] => [
      configMap(`${name}-cm`, { level }),
      podObject({
        name,
        containers: [sleeper('reader', { env: [{ name: 'LEVEL', valueFrom: { configMapKeyRef: { name: `${name}-cm`, key: 'level' } } }] }), sleeper('bystander')],
      }),
    ];
    const one = podFile(pod('info'));
    const two = podFile(pod('debug'));
    cleanupFile(t, one);
    cleanupFile(t, two);
    assert.equal((await runpod([one])).code, 0);
    const before = podContainers(name);
    const r = await runpod([two]);
    assert.equal(r.code, 0, show(r));
    const after = podContainers(name);
    assert.equal(after.get('bystander')!.Id, before.get('bystander')!.Id, 'bystander kept');
    assert.equal(after.get('POD')!.Id, before.get('POD')!.Id, 'the pod is not replaced');
    assert.notEqual(after.get('reader')!.Id, before.get('reader')!.Id, 'reader replaced');
    assert.match(inPod(name, 'reader', 'echo $LEVEL'), /^debug$/m);
  });

  it('a missing ConfigMap is an error (exit 2) before anything starts; an optional one is fine', async (t) => {
    const name = uniqueName('vol-missing');
    cleanupPodAndVolumes(t, name);
    const missing = podFile([podObject({ name, containers: [sleeper('app', { envFrom: [{ configMapRef: { name: 'nowhere' } }] })] })]);
    cleanupFile(t, missing);
    const r = await runpod([missing]);
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /envFrom\[0\]\.configMapRef\.name: ConfigMap "nowhere" is not in the input/);
    assert.deepEqual(podContainerIds(name), []);
    assert.deepEqual(podVolumes(name), []);

    const optional = podFile([podObject({ name, containers: [sleeper('app', { envFrom: [{ configMapRef: { name: 'nowhere', optional: true } }] })] })]);
    cleanupFile(t, optional);
    const ok = await runpod([optional]);
    assert.equal(ok.code, 0, show(ok));
  });
});

function must<T>(v: T | undefined): T {
  assert.ok(v !== undefined);
  return v;
}

function inspectIp(c: { NetworkSettings?: { Networks?: Record<string, { IPAddress: string }> } } | object): string {
  const nets = (c as { NetworkSettings?: { Networks?: Record<string, { IPAddress: string }> } }).NetworkSettings?.Networks ?? {};
  return Object.values(nets)[0]?.IPAddress ?? '';
}

void busybox;
