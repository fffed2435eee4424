// Volumes, mounts and env sources: the pure path from manifest text (ConfigMaps and Secrets beside the pod) through
// validation to the plan. Each case cites the Kubernetes rule it follows.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseManifests } from '../../../src/manifest/parse.js';
import { instanceCreateOptions, translatePod } from '../../../src/plan/translate.js';
import { printableCreate, printableVolumes } from '../../../src/plan/redact.js';
import { runtimeRef } from '../../../src/plan/runtime.js';
import { type PlannedVolume, infraTerminationLogPath, terminationFile } from '../../../src/plan/volumes.js';
import type { PodPlan, ContainerPlan } from '../../../src/plan/types.js';

const cm = `apiVersion: v1
kind: ConfigMap
metadata: {name: cfg}
data: {app.conf: "port 80\\n", mode: fast}
binaryData: {blob: AAEC}
`;
const secret = `apiVersion: v1
kind: Secret
metadata: {name: creds}
data: {user: YWRtaW4=}
stringData: {password: hunter2-secret}
`;

function load(text: string, checkReferences = true) {
  return parseManifests([{ source: { file: 'pod.yaml', origin: '/x/pod.yaml' }, text }], { defaultNamespace: 'default', checkReferences });
}

function podYaml(spec: string, meta = ''): string {
  return `apiVersion: v1\nkind: Pod\nmetadata: {name: web${meta}}\nspec:\n${spec}`;
}

function plan(...docs: string[]): PodPlan {
  const r = load(docs.join('---\n'));
  assert.deepEqual(r.problems, []);
  assert.equal(r.pods.length, 1);
  return translatePod(r.pods[0]!, { infraImage: 'runpod/pause:test' });
}

function problems(...docs: string[]): string[] {
  return load(docs.join('---\n')).problems.map((p) => `${p.path}: ${p.message}`);
}

function volume(p: PodPlan, name: string): PlannedVolume {
  const v = p.volumes.find((x) => x.name === name);
  assert.ok(v, `volume ${name}`);
  return v;
}

const files = (v: PlannedVolume): Record<string, { mode: string; text: string }> => {
  assert.ok('files' in v);
  return Object.fromEntries(v.files.map((f) => [f.path, { mode: `0${f.mode.toString(8)}`, text: Buffer.from(f.content, 'base64').toString('utf8') }]));
};

const sleeper = (extra = ''): string => `  containers:\n  - name: app\n    image: busybox:1\n${extra}`;

describe('configMap and secret volumes: files as the kubelet writes them', () => {
  it('every key, defaultMode 0644 (SetDefaults_ConfigMapVolumeSource), binaryData decoded', () => {
    const p = plan(cm, podYaml(`  volumes: [{name: c, configMap: {name: cfg}}]\n${sleeper('    volumeMounts: [{name: c, mountPath: /etc/c}]\n')}`));
    assert.deepEqual(files(volume(p, 'c')), {
      'app.conf': { mode: '0644', text: 'port 80\n' },
      blob: { mode: '0644', text: '\u0000\u0001\u0002' },
      mode: { mode: '0644', text: 'fast' },
    });
  });
  it('items pick keys into paths with their own mode; YAML 1.1 octal 0600 is 384 as Kubernetes reads it', () => {
    const p = plan(
      cm,
      podYaml(`  volumes: [{name: c, configMap: {name: cfg, defaultMode: 0400, items: [{key: app.conf, path: sub/a.conf, mode: 0600}, {key: mode, path: m}]}}]\n${sleeper()}`),
    );
    assert.deepEqual(files(volume(p, 'c')), { m: { mode: '0400', text: 'fast' }, 'sub/a.conf': { mode: '0600', text: 'port 80\n' } });
  });
  it('secret files are never world-readable: default 0644 becomes 0640; stringData merges over data', () => {
    const p = plan(secret, podYaml(`  volumes: [{name: s, secret: {secretName: creds}}]\n${sleeper()}`));
    assert.deepEqual(files(volume(p, 's')), { password: { mode: '0640', text: 'hunter2-secret' }, user: { mode: '0640', text: 'admin' } });
  });
  it('an explicit world-readable secret mode is warned about and applied without the o= bits', () => {
    const r = load([secret, podYaml(`  volumes: [{name: s, secret: {secretName: creds, defaultMode: 0755}}]\n${sleeper()}`)].join('---\n'));
    assert.deepEqual(r.problems, []);
    assert.match(r.warnings.map((w) => w.message).join('\n'), /never world-readable.*0755.*0750/);
  });
  it('fsGroup owns the files and makes them group-readable (SetVolumeOwnership)', () => {
    const r = load([secret, podYaml(`  securityContext: {fsGroup: 2000}\n  volumes: [{name: s, secret: {secretName: creds, defaultMode: 0600}}]\n${sleeper()}`)].join('---\n'));
    if (r.problems.length > 0) return; // securityContext not yet accepted by the field table: nothing to check
    const v = volume(translatePod(r.pods[0]!, { infraImage: 'p' }), 's');
    assert.ok('files' in v);
    assert.deepEqual(
      v.files.map((f) => [f.gid, f.mode.toString(8)]),
      [
        [2000, '640'],
        [2000, '640'],
      ],
    );
  });
  it('a missing optional ConfigMap gives an empty volume; a missing optional key is skipped', () => {
    const p = plan(
      cm,
      podYaml(
        `  volumes: [{name: a, configMap: {name: nope, optional: true}}, {name: b, configMap: {name: cfg, optional: true, items: [{key: gone, path: g}, {key: mode, path: m}]}}]\n${sleeper()}`,
      ),
    );
    assert.deepEqual(files(volume(p, 'a')), {});
    assert.deepEqual(Object.keys(files(volume(p, 'b'))), ['m']);
  });
  it('configMap, secret, downwardAPI and projected mounts are read-only whatever readOnly says', () => {
    const p = plan(cm, podYaml(`  volumes: [{name: c, configMap: {name: cfg}}]\n${sleeper('    volumeMounts: [{name: c, mountPath: /etc/c, readOnly: false}]\n')}`));
    assert.equal(p.containers[0]!.create.HostConfig?.Mounts?.[0]?.ReadOnly, true);
  });
  it('the volume is content-addressed: changed data, new engine volume name', () => {
    const spec = podYaml(`  volumes: [{name: c, configMap: {name: cfg}}]\n${sleeper('    volumeMounts: [{name: c, mountPath: /etc/c}]\n')}`);
    const a = plan(cm, spec);
    const b = plan(cm.replace('fast', 'slow'), spec);
    assert.notEqual((volume(a, 'c') as { engineName: string }).engineName, (volume(b, 'c') as { engineName: string }).engineName);
  });
});

describe('downwardAPI and projected volumes', () => {
  it('metadata fields as files; labels as sorted key="value" lines (fieldpath.FormatMap)', () => {
    const p = plan(
      podYaml(
        `  volumes: [{name: d, downwardAPI: {items: [{path: name, fieldRef: {fieldPath: metadata.name}}, {path: labels, fieldRef: {fieldPath: metadata.labels}}, {path: one, fieldRef: {fieldPath: "metadata.labels['b']"}}, {path: mem, resourceFieldRef: {containerName: app, resource: limits.memory, divisor: 1Mi}}]}}]\n${sleeper('    resources: {limits: {memory: 64Mi}}\n')}`,
        ', labels: {b: "2", a: "1"}',
      ),
    );
    assert.deepEqual(files(volume(p, 'd')), {
      labels: { mode: '0644', text: 'a="1"\nb="2"' },
      mem: { mode: '0644', text: '64' },
      name: { mode: '0644', text: 'web' },
      one: { mode: '0644', text: '2' },
    });
  });
  it('projected: sources together, defaultMode for all, secret files still not world-readable', () => {
    const p = plan(
      cm,
      secret,
      podYaml(
        `  volumes: [{name: p, projected: {defaultMode: 0444, sources: [{configMap: {name: cfg, items: [{key: mode, path: mode}]}}, {secret: {name: creds, items: [{key: user, path: u}]}}, {downwardAPI: {items: [{path: ns, fieldRef: {fieldPath: metadata.namespace}}]}}]}}]\n${sleeper()}`,
      ),
    );
    assert.deepEqual(files(volume(p, 'p')), { mode: { mode: '0444', text: 'fast' }, ns: { mode: '0444', text: 'default' }, u: { mode: '0440', text: 'admin' } });
  });
  it('projected paths must be unique across sources', () => {
    assert.deepEqual(
      problems(
        cm,
        podYaml(
          `  volumes: [{name: p, projected: {sources: [{configMap: {name: cfg, items: [{key: mode, path: x}]}}, {downwardAPI: {items: [{path: x, fieldRef: {fieldPath: metadata.name}}]}}]}}]\n${sleeper()}`,
        ),
      ),
      ['spec.volumes[0].projected.sources[1].downwardAPI.items[0].path: conflicting duplicate path "x"'],
    );
  });
});

describe('emptyDir, hostPath, persistentVolumeClaim and mounts', () => {
  it('emptyDir: a pod-owned engine volume, also mounted on the infra container (pod lifetime); Memory is tmpfs with sizeLimit', () => {
    const p = plan(
      podYaml(
        `  volumes: [{name: s, emptyDir: {}}, {name: m, emptyDir: {medium: Memory, sizeLimit: 1Mi}}]\n${sleeper('    volumeMounts: [{name: s, mountPath: /s}, {name: m, mountPath: /m}]\n')}`,
      ),
    );
    const s = volume(p, 's');
    const m = volume(p, 'm');
    assert.ok(s.type === 'emptyDir' && m.type === 'emptyDir');
    assert.equal(m.medium, 'Memory');
    assert.equal(m.sizeBytes, 1024 * 1024);
    assert.match(s.engineName, new RegExp(`^runpod_${p.uid}_s_[0-9a-f]{12}$`));
    assert.equal(s.labels['io.kubernetes.pod.uid'], p.uid);
    assert.deepEqual(
      p.infra.create.HostConfig?.Mounts?.map((x) => x.Source),
      [s.engineName, m.engineName],
    );
    assert.deepEqual(
      p.containers[0]!.create.HostConfig?.Mounts?.map((x) => [x.Type, x.Source, x.Target, x.ReadOnly]),
      [
        ['volume', s.engineName, '/s', false],
        ['volume', m.engineName, '/m', false],
      ],
    );
  });
  it('emptyDir with a pod fsGroup belongs to that group (SetVolumeOwnership); without one, to nobody in particular', () => {
    const withGroup = plan(podYaml(`  securityContext: {fsGroup: 2000}\n  volumes: [{name: s, emptyDir: {}}]\n${sleeper('    volumeMounts: [{name: s, mountPath: /s}]\n')}`));
    const without = plan(podYaml(`  volumes: [{name: s, emptyDir: {}}]\n${sleeper('    volumeMounts: [{name: s, mountPath: /s}]\n')}`));
    const g = volume(withGroup, 's');
    const n = volume(without, 's');
    assert.ok(g.type === 'emptyDir' && n.type === 'emptyDir');
    assert.equal(g.gid, 2000);
    assert.equal(n.gid, undefined);
    assert.notEqual(g.engineName, n.engineName, 'the group is part of the volume spec');
  });

  it('a disk emptyDir with sizeLimit is accepted with a warning: Docker cannot enforce it', () => {
    const r = load(podYaml(`  volumes: [{name: s, emptyDir: {sizeLimit: 1Gi}}]\n${sleeper()}`));
    assert.deepEqual(r.problems, []);
    assert.match(r.warnings[0]!.message, /not enforced/);
  });
  it('hostPath: a bind mount; subPath joins it; propagation HostToContainer is rslave', () => {
    const p = plan(
      podYaml(
        `  volumes: [{name: h, hostPath: {path: /srv/data, type: DirectoryOrCreate}}]\n${sleeper('    volumeMounts: [{name: h, mountPath: /d, readOnly: true, mountPropagation: HostToContainer}, {name: h, mountPath: /e, subPath: logs}]\n')}`,
      ),
    );
    assert.deepEqual(p.containers[0]!.create.HostConfig?.Mounts, [
      { Type: 'bind', Source: '/srv/data', Target: '/d', ReadOnly: true, BindOptions: { Propagation: 'rslave' } },
      { Type: 'bind', Source: '/srv/data/logs', Target: '/e', ReadOnly: false },
    ]);
  });
  it('subPath in a named volume binds its host directory, resolved at apply (Docker before 26 has no volume subpath)', () => {
    const p = plan(podYaml(`  volumes: [{name: s, emptyDir: {}}]\n${sleeper('    volumeMounts: [{name: s, mountPath: /x, subPath: a/b}]\n')}`));
    const s = volume(p, 's') as { engineName: string };
    const c = p.containers[0]!;
    assert.equal(c.create.HostConfig?.Mounts?.[0]?.Source, `${runtimeRef(`mountpoint/${s.engineName}`)}/a/b`);
    assert.deepEqual(c.subPaths, [{ engineName: s.engineName, subPath: 'a/b', mode: 0o777 }]);
    assert.equal(c.runtime, true);
  });
  it("persistentVolumeClaim: pvc_<namespace>_<claim>, not labelled as the pod's (it outlives the pod)", () => {
    const p = plan(podYaml(`  volumes: [{name: d, persistentVolumeClaim: {claimName: db, readOnly: true}}]\n${sleeper('    volumeMounts: [{name: d, mountPath: /d}]\n')}`));
    const v = volume(p, 'd');
    assert.ok(v.type === 'persistentVolumeClaim');
    assert.equal(v.engineName, 'pvc_default_db');
    assert.equal(v.labels['io.kubernetes.pod.uid'], undefined);
    assert.equal(p.containers[0]!.create.HostConfig?.Mounts?.[0]?.ReadOnly, true);
  });
});

describe('termination-message files (the kubelet binds one per container instance at terminationMessagePath)', () => {
  const withInit = podYaml(
    `  initContainers:\n  - {name: setup, image: busybox:1, command: ["true"]}\n  - {name: proxy, image: busybox:1, restartPolicy: Always}\n${sleeper('    securityContext: {runAsUser: 1000, readOnlyRootFilesystem: true}\n')}`,
  );
  // The service account's namespace bind (podFiles.ts, tested in podFiles.test.ts) is left out here.
  const mountsOf = (p: PodPlan, c: ContainerPlan, attempt: number) =>
    (instanceCreateOptions(p, c, attempt, 'infra123').options.HostConfig?.Mounts ?? []).filter((m) => m.Target !== '/var/run/secrets/kubernetes.io/serviceaccount');

  it("one volume per pod, runpod_<uid>_termination-log, labelled as the pod's so down, gc and prune find it", () => {
    const p = plan(withInit);
    assert.deepEqual(p.terminationLog, {
      type: 'terminationLog',
      engineName: `runpod_${p.uid}_termination-log`,
      labels: {
        'app.kubernetes.io/managed-by': 'runpod',
        'io.kubernetes.pod.namespace': 'default',
        'io.kubernetes.pod.name': 'web',
        'io.kubernetes.pod.uid': p.uid,
        'io.runpod.volume.type': 'terminationLog',
      },
    });
  });
  it('every app, init and sidecar instance binds its own file at the default /dev/termination-log; the infra holds the volume', () => {
    const p = plan(withInit);
    const vol = runtimeRef(`mountpoint/${p.terminationLog.engineName}`);
    const [setup, proxy] = p.initContainers as [ContainerPlan, ContainerPlan];
    assert.deepEqual(mountsOf(p, p.containers[0]!, 3), [{ Type: 'bind', Source: `${vol}/app_app_3`, Target: '/dev/termination-log' }]);
    assert.deepEqual(mountsOf(p, setup, 0), [{ Type: 'bind', Source: `${vol}/init_setup_0`, Target: '/dev/termination-log' }]);
    assert.deepEqual(mountsOf(p, proxy, 1), [{ Type: 'bind', Source: `${vol}/init_proxy_1`, Target: '/dev/termination-log' }]);
    // The infra container holds the volume (the files are written through it), and binds no file itself.
    assert.deepEqual(instanceCreateOptions(p, p.infra, 0).options.HostConfig?.Mounts, [{ Type: 'volume', Source: p.terminationLog.engineName, Target: infraTerminationLogPath }]);
  });
  it('an init and an app container of one name never share a file', () => {
    assert.notEqual(terminationFile('x', true, 0), terminationFile('x', false, 0));
  });
  it('a terminationMessagePath of its own is bound after the volumeMounts, which keep their order', () => {
    const p = plan(podYaml(`  volumes: [{name: s, emptyDir: {}}]\n${sleeper('    terminationMessagePath: /s/why\n    volumeMounts: [{name: s, mountPath: /s}]\n')}`));
    assert.deepEqual(
      mountsOf(p, p.containers[0]!, 0).map((m) => m.Target),
      ['/s', '/s/why'],
    );
  });
  it('a volumeMount at that very path holds the message instead: no second mount there (Docker refuses it)', () => {
    const p = plan(podYaml(`  volumes: [{name: s, emptyDir: {}}]\n${sleeper('    terminationMessagePath: /msg/\n    volumeMounts: [{name: s, mountPath: /msg}]\n')}`));
    const c = p.containers[0]!;
    assert.equal(c.terminationMessage?.bound, false);
    assert.deepEqual(
      mountsOf(p, c, 0).map((m) => m.Target),
      ['/msg'],
    );
  });
  it('the bind is per instance, outside what the hash covers: hashes are those runpod computed before it bound these files', () => {
    // Computed by the commit before termination files (f9c877d) for this very pod: an upgrade replaces nothing. The
    // pod's own hash was computed again when pods moved to their namespace's network (issue 13), which replaces them.
    // An app container's hash now leaves out the resources resizePolicy applies in place (resize.ts); the hash it
    // had is its fullHash, and an instance carrying that is as specified (names.ts sameSpec): still no replacement.
    const p = plan(withInit);
    assert.deepEqual(
      { pod: p.hash, init: p.initContainers.map((c) => c.hash), app: p.containers.map((c) => c.fullHash ?? c.hash) },
      {
        pod: '1970ceaa75be3c90',
        init: ['0a0897717f014186', 'd6090ff4464fca79'],
        app: ['ed160ba4032ed061'],
      },
    );
    assert.equal(p.containers[0]!.create.HostConfig?.Mounts, undefined, "the plan's create options, which the hash covers, hold no bind");
  });
});

describe('validation of volumes and mounts (pkg/apis/core/validation)', () => {
  const cases: { title: string; spec: string; want: string[] }[] = [
    {
      title: 'a mount naming an undeclared volume',
      spec: sleeper('    volumeMounts: [{name: nope, mountPath: /x}]\n'),
      want: ['spec.containers[0].volumeMounts[0].name: no volume named "nope" in spec.volumes'],
    },
    {
      title: 'a subPath that escapes the volume',
      spec: `  volumes: [{name: s, emptyDir: {}}]\n${sleeper('    volumeMounts: [{name: s, mountPath: /x, subPath: ../etc}]\n')}`,
      want: ["spec.containers[0].volumeMounts[0].subPath: must not contain '..'"],
    },
    {
      title: 'an absolute subPath',
      spec: `  volumes: [{name: s, emptyDir: {}}]\n${sleeper('    volumeMounts: [{name: s, mountPath: /x, subPath: /etc}]\n')}`,
      want: ['spec.containers[0].volumeMounts[0].subPath: must be a relative path'],
    },
    {
      title: 'a relative mountPath',
      spec: `  volumes: [{name: s, emptyDir: {}}]\n${sleeper('    volumeMounts: [{name: s, mountPath: x}]\n')}`,
      want: ['spec.containers[0].volumeMounts[0].mountPath: must be an absolute path'],
    },
    {
      title: 'two mounts at one path',
      spec: `  volumes: [{name: s, emptyDir: {}}]\n${sleeper('    volumeMounts: [{name: s, mountPath: /x}, {name: s, mountPath: /x/}]\n')}`,
      want: ['spec.containers[0].volumeMounts[1].mountPath: must be unique (also volumeMounts[0])'],
    },
    {
      title: 'Bidirectional propagation without privileged',
      spec: `  volumes: [{name: h, hostPath: {path: /mnt}}]\n${sleeper('    volumeMounts: [{name: h, mountPath: /x, mountPropagation: Bidirectional}]\n')}`,
      want: ['spec.containers[0].volumeMounts[0].mountPropagation: Bidirectional mount propagation is available only to privileged containers'],
    },
    {
      title: 'duplicate volume names',
      spec: `  volumes: [{name: s, emptyDir: {}}, {name: s, emptyDir: {}}]\n${sleeper()}`,
      want: ['spec.volumes[1].name: duplicate volume name "s"'],
    },
    {
      title: 'two sources in one volume',
      spec: `  volumes: [{name: s, emptyDir: {}, hostPath: {path: /x}}]\n${sleeper()}`,
      want: ['spec.volumes[0].hostPath: may not specify more than one volume source (also emptyDir)'],
    },
    { title: 'a relative hostPath', spec: `  volumes: [{name: h, hostPath: {path: srv}}]\n${sleeper()}`, want: ['spec.volumes[0].hostPath.path: must be an absolute path'] },
    {
      title: 'an unknown hostPath type',
      spec: `  volumes: [{name: h, hostPath: {path: /srv, type: Dir}}]\n${sleeper()}`,
      want: ['spec.volumes[0].hostPath.type: must be one of , BlockDevice, CharDevice, Directory, DirectoryOrCreate, File, FileOrCreate, Socket, got "Dir"'],
    },
    {
      title: 'a mode above 0777',
      spec: `  volumes: [{name: d, downwardAPI: {defaultMode: 01000, items: [{path: n, fieldRef: {fieldPath: metadata.name}}]}}]\n${sleeper()}`,
      want: ['spec.volumes[0].downwardAPI.defaultMode: must be a number between 0 and 0777 (octal), both inclusive'],
    },
    {
      title: 'status fields in a downwardAPI volume',
      spec: `  volumes: [{name: d, downwardAPI: {items: [{path: ip, fieldRef: {fieldPath: status.podIP}}]}}]\n${sleeper()}`,
      want: [
        "spec.volumes[0].downwardAPI.items[0].fieldRef.fieldPath: not supported: \"status.podIP\"; supported values: metadata.name, metadata.namespace, metadata.uid, metadata.labels, metadata.annotations, metadata.labels['<key>'], metadata.annotations['<key>']",
      ],
    },
    {
      title: 'a cluster volume source is refused',
      spec: `  volumes: [{name: n, nfs: {server: x, path: /}}]\n${sleeper()}`,
      want: ['spec.volumes[0].nfs: not supported by runpod (needs a cluster or a volume plugin; use hostPath or persistentVolumeClaim)'],
    },
  ];
  for (const t of cases) it(t.title, () => assert.deepEqual(problems(podYaml(t.spec)), t.want));
});

describe('env sources (makeEnvironmentVariables)', () => {
  const env = (p: PodPlan): string[] => p.containers[0]!.create.Env ?? [];
  it('envFrom first with its prefix, then env entries override; configMapKeyRef reads data', () => {
    const p = plan(
      cm,
      podYaml(
        sleeper(
          '    envFrom: [{configMapRef: {name: cfg}, prefix: C_}]\n    env: [{name: C_mode, value: slow}, {name: K, valueFrom: {configMapKeyRef: {name: cfg, key: mode}}}]\n',
        ),
      ),
    );
    assert.deepEqual(env(p), ['C_app.conf=port 80\n', 'C_mode=slow', 'K=fast']);
  });
  it('values from valueFrom are literal; only value is $(VAR)-expanded', () => {
    const p = plan(podYaml(sleeper('    env: [{name: A, value: x}, {name: N, valueFrom: {fieldRef: {fieldPath: metadata.name}}}, {name: B, value: "$(N)-$(A)-$(Z)"}]\n')));
    assert.deepEqual(env(p), ['A=x', 'N=web', 'B=web-x-$(Z)']);
  });
  it('fieldRef: uid, namespace, labels[k] (missing reads ""), serviceAccountName defaults to "default"', () => {
    const p = plan(
      podYaml(
        sleeper(
          `    env:\n    - {name: U, valueFrom: {fieldRef: {fieldPath: metadata.uid}}}\n    - {name: NS, valueFrom: {fieldRef: {fieldPath: metadata.namespace}}}\n    - {name: L, valueFrom: {fieldRef: {fieldPath: "metadata.labels['app']"}}}\n    - {name: M, valueFrom: {fieldRef: {fieldPath: "metadata.annotations['gone']"}}}\n    - {name: SA, valueFrom: {fieldRef: {fieldPath: spec.serviceAccountName}}}\n`,
        ),
        ', labels: {app: shop}',
      ),
    );
    assert.deepEqual(env(p), [`U=${p.uid}`, 'NS=default', 'L=shop', 'M=', 'SA=default']);
  });
  it('status.podIP, status.hostIP and spec.nodeName are resolved at apply time; the hash covers the reference', () => {
    const p = plan(
      podYaml(
        sleeper(
          '    env: [{name: IP, valueFrom: {fieldRef: {fieldPath: status.podIP}}}, {name: H, valueFrom: {fieldRef: {fieldPath: status.hostIP}}}, {name: NN, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}]\n',
        ),
      ),
    );
    assert.deepEqual(env(p), [`IP=${runtimeRef('status.podIP')}`, `H=${runtimeRef('status.hostIP')}`, `NN=${runtimeRef('spec.nodeName')}`]);
    assert.equal(p.containers[0]!.runtime, true);
    assert.deepEqual(printableCreate(p.containers[0]!).Env, ['IP=$(runpod:status.podIP)', 'H=$(runpod:status.hostIP)', 'NN=$(runpod:spec.nodeName)']);
  });
  it('resourceFieldRef: ceil(value / divisor); an unset limit reads the node (apply time), an unset request 0', () => {
    const p = plan(
      podYaml(
        sleeper(
          `    resources: {limits: {cpu: 1500m}}\n    env:\n    - {name: C, valueFrom: {resourceFieldRef: {resource: limits.cpu}}}\n    - {name: CM, valueFrom: {resourceFieldRef: {resource: limits.cpu, divisor: 1m}}}\n    - {name: M, valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: 1Mi}}}\n    - {name: RM, valueFrom: {resourceFieldRef: {resource: requests.memory}}}\n`,
        ),
      ),
    );
    assert.deepEqual(env(p), ['C=2', 'CM=1500', `M=${runtimeRef(`node.memory/${1024 * 1024}`)}`, 'RM=0']);
  });
  it('a secret value, and anything expanded from it, is masked in printable output', () => {
    const p = plan(
      secret,
      podYaml(
        sleeper(
          '    command: [sh, -c, "echo $(P)"]\n    args: ["$(P)", plain]\n    envFrom: [{secretRef: {name: creds}, prefix: S_}]\n    env: [{name: P, valueFrom: {secretKeyRef: {name: creds, key: password}}}, {name: URL, value: "db://$(P)@h"}, {name: PLAIN, value: ok}]\n',
        ),
      ),
    );
    const c = p.containers[0]!;
    assert.ok(env(p).includes('P=hunter2-secret'), 'the engine gets the value');
    const shown = JSON.stringify({ create: printableCreate(c), volumes: printableVolumes(p.volumes) });
    assert.ok(!shown.includes('hunter2'), shown);
    assert.ok(!shown.includes('admin'), shown);
    assert.deepEqual(printableCreate(c).Env, ['S_password=<secret>', 'S_user=<secret>', 'P=<secret>', 'URL=<secret>', 'PLAIN=ok']);
    assert.deepEqual(printableCreate(c).Entrypoint, ['sh', '-c', '<secret>']);
    assert.deepEqual(printableCreate(c).Cmd, ['<secret>', 'plain']);
  });
  it('a changed ConfigMap value changes only the hash of the container that reads it, not the pod hash', () => {
    const spec = podYaml(
      `  containers:\n  - {name: a, image: busybox:1, env: [{name: M, valueFrom: {configMapKeyRef: {name: cfg, key: mode}}}]}\n  - {name: b, image: busybox:1}\n`,
    );
    const one = plan(cm, spec);
    const two = plan(cm.replace('fast', 'slow'), spec);
    assert.equal(one.hash, two.hash);
    assert.notEqual(one.containers[0]!.hash, two.containers[0]!.hash);
    assert.equal(one.containers[1]!.hash, two.containers[1]!.hash);
  });
});

describe('references to ConfigMaps and Secrets (an error before anything starts, unless optional)', () => {
  const cases: { title: string; docs: string[]; want: string[] }[] = [
    {
      title: 'a missing ConfigMap',
      docs: [podYaml(sleeper('    env: [{name: X, valueFrom: {configMapKeyRef: {name: nope, key: k}}}]\n'))],
      want: [
        'spec.containers[0].env[0].valueFrom.configMapKeyRef.name: ConfigMap "nope" is not in the input (namespace default); runpod reads ConfigMaps and Secrets only from its input: add it, or mark the reference optional: true',
      ],
    },
    {
      title: 'a missing optional ConfigMap is fine',
      docs: [podYaml(sleeper('    env: [{name: X, valueFrom: {configMapKeyRef: {name: nope, key: k, optional: true}}}]\n'))],
      want: [],
    },
    {
      title: 'a missing key',
      docs: [cm, podYaml(sleeper('    env: [{name: X, valueFrom: {configMapKeyRef: {name: cfg, key: gone}}}]\n'))],
      want: ['spec.containers[0].env[0].valueFrom.configMapKeyRef.name: ConfigMap "cfg" has no key "gone"; add it, or mark the reference optional: true'],
    },
    {
      title: 'a missing Secret volume',
      docs: [podYaml(`  volumes: [{name: s, secret: {secretName: creds}}]\n${sleeper()}`)],
      want: [
        'spec.volumes[0].secret.secretName: Secret "creds" is not in the input (namespace default); runpod reads ConfigMaps and Secrets only from its input: add it, or mark the reference optional: true',
      ],
    },
    {
      title: 'a ConfigMap in another namespace does not count',
      docs: [cm.replace('name: cfg}', 'name: cfg, namespace: other}'), podYaml(sleeper('    envFrom: [{configMapRef: {name: cfg}}]\n'))],
      want: [
        'spec.containers[0].envFrom[0].configMapRef.name: ConfigMap "cfg" is not in the input (namespace default); runpod reads ConfigMaps and Secrets only from its input: add it, or mark the reference optional: true',
      ],
    },
    {
      title: 'value and valueFrom together',
      docs: [podYaml(sleeper('    env: [{name: X, value: a, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]\n'))],
      want: ['spec.containers[0].env[0].valueFrom: may not be specified when `value` is not empty'],
    },
    {
      title: 'an env fieldPath Kubernetes does not offer',
      docs: [podYaml(sleeper('    env: [{name: X, valueFrom: {fieldRef: {fieldPath: metadata.labels}}}]\n'))],
      want: [
        "spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: not supported: \"metadata.labels\"; supported values: metadata.name, metadata.namespace, metadata.uid, spec.nodeName, spec.serviceAccountName, status.hostIP, status.hostIPs, status.podIP, status.podIPs, metadata.labels['<key>'], metadata.annotations['<key>']",
      ],
    },
    {
      title: 'a cpu divisor other than 1 or 1m',
      docs: [podYaml(sleeper('    env: [{name: X, valueFrom: {resourceFieldRef: {resource: limits.cpu, divisor: 2}}}]\n'))],
      want: ['spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor: only divisor 1m or 1 is allowed for cpu'],
    },
    { title: 'a duplicate ConfigMap', docs: [cm, cm], want: ['metadata.name: ConfigMap default/cfg is already defined at pod.yaml:1'] },
  ];
  for (const t of cases) it(t.title, () => assert.deepEqual(problems(...t.docs), t.want));

  it('runpod down does not need the references (checkReferences: false)', () => {
    const r = load(podYaml(sleeper('    envFrom: [{secretRef: {name: gone}}]\n')), false);
    assert.deepEqual(r.problems, []);
    assert.equal(r.pods.length, 1);
  });
  it('a Secret value is never echoed in a problem', () => {
    const msgs = problems('apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {k: "not base64 TOPSECRET!"}\nstringData: {n: 42}\n').join('\n');
    assert.match(msgs, /data\.k: expected format byte/);
    assert.match(msgs, /stringData\.n: expected string/);
    assert.ok(!msgs.includes('TOPSECRET') && !msgs.includes('42'), msgs);
  });
  it('ConfigMap keys must be valid config keys', () => {
    assert.deepEqual(problems('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {"a/b": x}\n'), [
      `data["a/b"]: invalid key: a valid config key must consist of letters, digits, '-', '_' or '.'`,
    ]);
  });
});
