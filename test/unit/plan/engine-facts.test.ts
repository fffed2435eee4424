// Fields that depend on the engine: its facts as /version and /info give them (src/engine/ports/facts.ts), the refusals
// and notes for an engine that cannot honour a field (src/plan/engineSupport.ts), and the plan for engines that can
// (security.ts, apparmor.ts, volumes.ts), all from plain data: an AppArmor host and a Docker 28 engine need no
// machine of their own here.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import yaml from 'js-yaml';
import { formatProblem } from '../../../src/errors.js';
import { apiAtLeast, type EngineFacts, engineFacts } from '../../../src/engine/ports/facts.js';
import { parseManifests } from '../../../src/manifest/parse.js';
import type { LoadedPod } from '../../../src/manifest/types.js';
import { engineDependentFields, engineSupport } from '../../../src/plan/engineSupport.js';
import { translatePod } from '../../../src/plan/translate.js';
import type { ContainerPlan } from '../../../src/plan/types.js';

type Obj = Record<string, unknown>;

/** The engine this machine runs: Docker 20.10.24, API 1.41, seccomp and no AppArmor. */
const docker20: EngineFacts = engineFacts(
  { Version: '20.10.24+dfsg1', ApiVersion: '1.41' },
  { SecurityOptions: ['name=seccomp,profile=default'], CgroupVersion: '1', CgroupDriver: 'cgroupfs' },
);
/** Docker 25 on an AppArmor host (API 1.44: recursive read-only, no image mounts). */
const docker25: EngineFacts = engineFacts(
  { Version: '25.0.5', ApiVersion: '1.44' },
  { SecurityOptions: ['name=apparmor', 'name=seccomp,profile=builtin', 'name=cgroupns'], CgroupVersion: '2', CgroupDriver: 'systemd' },
);
/** Docker 28 on an AppArmor host (API 1.48: image mounts). */
const docker28: EngineFacts = engineFacts({ Version: '28.1.1', ApiVersion: '1.48' }, { SecurityOptions: ['name=apparmor', 'name=seccomp,profile=builtin', 'name=cgroupns'] });

/** One pod through the real loader, so problems carry the field's line. */
function load(spec: Obj, metadata: Obj = {}): LoadedPod {
  const doc = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', ...metadata }, spec };
  const r = parseManifests([{ source: { file: 'pod.yaml', origin: '/x/pod.yaml' }, text: yaml.dump(doc) }], { defaultNamespace: 'default' });
  assert.deepEqual(r.problems.map(formatProblem), []);
  return r.pods[0]!;
}
const app = (extra: Obj = {}): Obj => ({ name: 'app', image: 'busybox:1.36', ...extra });
const refusals = (p: LoadedPod, facts: EngineFacts): string[] => engineSupport(p, facts).problems.map(formatProblem);
const container = (p: LoadedPod, facts: EngineFacts | undefined, seccompProfiles?: Map<string, string>): ContainerPlan =>
  translatePod(p, { infraImage: 'runpod/pause:test', ...(facts ? { engine: facts } : {}), ...(seccompProfiles ? { seccompProfiles } : {}) }).containers[0]!;

describe('engineFacts: /version and /info as plain data', () => {
  it('reads the security options, new style (name=…) and old (bare names)', () => {
    assert.deepEqual(docker20.security, { apparmor: false, seccomp: true, selinux: false, rootless: false, cgroupns: false });
    assert.equal(docker20.apiVersion, '1.41');
    assert.equal(docker20.cgroupDriver, 'cgroupfs');
    const old = engineFacts({ Version: '1.12.6', ApiVersion: '1.24' }, { SecurityOptions: ['apparmor', 'seccomp'] });
    assert.deepEqual(old.security, { apparmor: true, seccomp: true, selinux: false, rootless: false, cgroupns: false });
    const rootless = engineFacts(
      { Version: '27.0.1', ApiVersion: '1.46' },
      { SecurityOptions: ['name=seccomp,profile=builtin', 'name=rootless', 'name=cgroupns', 'name=selinux'] },
    );
    assert.deepEqual(rootless.security, { apparmor: false, seccomp: true, selinux: true, rootless: true, cgroupns: true });
    assert.equal(engineFacts({}, { SecurityOptions: null }).security.seccomp, false);
  });
  it('compares API versions as numbers (1.9 < 1.41 < 1.44)', () => {
    assert.equal(apiAtLeast({ apiVersion: '1.41' }, '1.44'), false);
    assert.equal(apiAtLeast({ apiVersion: '1.44' }, '1.44'), true);
    assert.equal(apiAtLeast({ apiVersion: '1.9' }, '1.41'), false);
    assert.equal(apiAtLeast({ apiVersion: '1.51' }, '1.48'), true);
    assert.equal(apiAtLeast({ apiVersion: '2.0' }, '1.48'), true);
  });
});

describe('appArmorProfile: refused without AppArmor, naming the engine; apparmor=<profile> where it is enabled', () => {
  it('refused on a host without AppArmor, at the field and its line', () => {
    const p = load({ containers: [app({ securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } })] });
    assert.deepEqual(refusals(p, docker20), [
      'pod.yaml:11 spec.containers[0].securityContext.appArmorProfile.type: AppArmor profile RuntimeDefault cannot be applied: the engine host has no AppArmor enabled (Docker 20.10.24+dfsg1 (Engine API 1.41) lists no apparmor in its security options); enable AppArmor on the engine host, or use type Unconfined',
    ]);
  });
  it('a pod-level profile is refused once, however many containers inherit it; Unconfined needs no AppArmor', () => {
    const p = load({ securityContext: { appArmorProfile: { type: 'Localhost', localhostProfile: 'k8s-deny-write' } }, containers: [app(), app({ name: 'b' })] });
    const got = refusals(p, docker20);
    assert.equal(got.length, 1);
    assert.match(got[0]!, /spec.securityContext.appArmorProfile.type: AppArmor profile Localhost k8s-deny-write cannot be applied/);
    const unconfined = load({ containers: [app({ securityContext: { appArmorProfile: { type: 'Unconfined' } } })] });
    assert.deepEqual(refusals(unconfined, docker20), []);
    // Nothing to set: a host without AppArmor confines nothing.
    assert.equal(container(unconfined, docker20).create.HostConfig?.SecurityOpt, undefined);
  });
  it('the deprecated annotation is refused at the annotation', () => {
    const p = load({ containers: [app()] }, { annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'runtime/default' } });
    assert.match(
      refusals(p, docker20)[0]!,
      /^pod\.yaml:\d+ metadata\.annotations\["container\.apparmor\.security\.beta\.kubernetes\.io\/app"\]: AppArmor profile RuntimeDefault cannot be applied/,
    );
  });
  const cases: { name: string; spec: Obj; metadata?: Obj; expect: string[] | undefined }[] = [
    {
      name: 'RuntimeDefault -> docker-default',
      spec: { containers: [app({ securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } })] },
      expect: ['apparmor=docker-default'],
    },
    { name: 'Unconfined -> unconfined', spec: { containers: [app({ securityContext: { appArmorProfile: { type: 'Unconfined' } } })] }, expect: ['apparmor=unconfined'] },
    {
      name: 'Localhost -> the named profile',
      spec: { containers: [app({ securityContext: { appArmorProfile: { type: 'Localhost', localhostProfile: 'k8s-deny-write' } } })] },
      expect: ['apparmor=k8s-deny-write'],
    },
    { name: "the pod's profile is inherited", spec: { securityContext: { appArmorProfile: { type: 'Unconfined' } }, containers: [app()] }, expect: ['apparmor=unconfined'] },
    {
      name: "the container's overrides the pod's",
      spec: { securityContext: { appArmorProfile: { type: 'Unconfined' } }, containers: [app({ securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } })] },
      expect: ['apparmor=docker-default'],
    },
    {
      name: "the annotation, when the container sets no field, over the pod's",
      spec: { securityContext: { appArmorProfile: { type: 'RuntimeDefault' } }, containers: [app()] },
      metadata: { annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'localhost/custom' } },
      expect: ['apparmor=custom'],
    },
    // containerd's CRI leaves a privileged container unconfined under the runtime default; Docker does so when none is named.
    {
      name: 'privileged with RuntimeDefault: nothing set',
      spec: { containers: [app({ securityContext: { privileged: true, appArmorProfile: { type: 'RuntimeDefault' } } })] },
      expect: undefined,
    },
    { name: "none set: the engine's default, nothing set", spec: { containers: [app()] }, expect: undefined },
  ];
  for (const t of cases) {
    it(`AppArmor host: ${t.name}`, () => {
      const p = load(t.spec, t.metadata);
      assert.deepEqual(refusals(p, docker25), []);
      assert.deepEqual(container(p, docker25).create.HostConfig?.SecurityOpt, t.expect);
    });
  }
});

describe("seccompProfile Localhost: the profile's JSON in SecurityOpt", () => {
  const profile = JSON.stringify({ defaultAction: 'SCMP_ACT_ALLOW', syscalls: [{ names: ['mkdir', 'mkdirat'], action: 'SCMP_ACT_ERRNO' }] });
  it('seccomp=<json> from the profiles read, for the container or the pod', () => {
    const own = load({ containers: [app({ securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'deny-mkdir.json' } } })] });
    assert.deepEqual(container(own, docker20, new Map([['deny-mkdir.json', profile]])).create.HostConfig?.SecurityOpt, [`seccomp=${profile}`]);
    const pod = load({ securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'deny-mkdir.json' } }, containers: [app()] });
    assert.deepEqual(container(pod, docker20, new Map([['deny-mkdir.json', profile]])).create.HostConfig?.SecurityOpt, [`seccomp=${profile}`]);
  });
  it('a privileged container runs without seccomp, as with any profile', () => {
    const p = load({ containers: [app({ securityContext: { privileged: true, seccompProfile: { type: 'Localhost', localhostProfile: 'deny-mkdir.json' } } })] });
    assert.equal(container(p, docker20, new Map([['deny-mkdir.json', profile]])).create.HostConfig?.SecurityOpt, undefined);
  });
  it("a changed profile changes the container's hash (it is replaced)", () => {
    const p = load({ containers: [app({ securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' } } })] });
    assert.notEqual(container(p, docker20, new Map([['p.json', profile]])).hash, container(p, docker20, new Map([['p.json', '{"defaultAction":"SCMP_ACT_ALLOW"}']])).hash);
  });
  it('refused on an engine without seccomp', () => {
    const p = load({ containers: [app({ securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' } } })] });
    const noSeccomp = engineFacts({ Version: '20.10.24', ApiVersion: '1.41' }, { SecurityOptions: [] });
    assert.match(refusals(p, noSeccomp)[0]!, /seccompProfile.type: a Localhost seccomp profile cannot be applied: Docker 20.10.24 \(Engine API 1.41\) has no seccomp support/);
    assert.deepEqual(refusals(p, docker20), []);
  });
});

describe('recursiveReadOnly per Engine API version (BindOptions since 1.44)', () => {
  const spec = (recursiveReadOnly?: string, readOnly = true): Obj => ({
    volumes: [
      { name: 'host', hostPath: { path: '/srv/data' } },
      { name: 'scratch', emptyDir: {} },
    ],
    containers: [
      app({
        volumeMounts: [
          { name: 'host', mountPath: '/data', readOnly, ...(recursiveReadOnly ? { recursiveReadOnly } : {}) },
          { name: 'scratch', mountPath: '/scratch', readOnly: true },
        ],
      }),
    ],
  });
  const bind = (p: LoadedPod, facts: EngineFacts | undefined): unknown => container(p, facts).create.HostConfig?.Mounts?.[0];
  it('Enabled: refused before 1.44, naming the engine and Docker 25; ReadOnlyForceRecursive from 1.44', () => {
    const p = load(spec('Enabled'));
    assert.deepEqual(refusals(p, docker20), [
      'pod.yaml:19 spec.containers[0].volumeMounts[0].recursiveReadOnly: Enabled needs recursively read-only mounts, which Docker 20.10.24+dfsg1 (Engine API 1.41) does not have; Docker 25 or later (Engine API 1.44) does; use IfPossible to fall back to a read-only mount',
    ]);
    assert.deepEqual(refusals(p, docker25), []);
    assert.deepEqual(bind(p, docker25), { Type: 'bind', Source: '/srv/data', Target: '/data', ReadOnly: true, BindOptions: { ReadOnlyForceRecursive: true } });
  });
  it("IfPossible: a note and a plain read-only mount before 1.44 (the kubelet's fallback); the engine's recursive default from 1.44", () => {
    const p = load(spec('IfPossible'));
    assert.deepEqual(refusals(p, docker20), []);
    const notes = engineSupport(p, docker20).notes;
    assert.equal(notes.length, 1);
    assert.match(notes[0]!.message, /IfPossible: Docker 20.10.24\+dfsg1 \(Engine API 1.41\) has no recursively read-only mounts/);
    assert.deepEqual(bind(p, docker20), { Type: 'bind', Source: '/srv/data', Target: '/data', ReadOnly: true });
    assert.deepEqual(bind(p, docker25), { Type: 'bind', Source: '/srv/data', Target: '/data', ReadOnly: true });
    assert.deepEqual(engineSupport(p, docker25).notes, []);
  });
  it('Disabled or unset: ReadOnlyNonRecursive from 1.44 (Docker 25 would make it recursive); plain read-only, non-recursive already, before', () => {
    for (const rro of ['Disabled', undefined]) {
      const p = load(spec(rro));
      assert.deepEqual(bind(p, docker20), { Type: 'bind', Source: '/srv/data', Target: '/data', ReadOnly: true });
      assert.deepEqual(bind(p, docker25), { Type: 'bind', Source: '/srv/data', Target: '/data', ReadOnly: true, BindOptions: { ReadOnlyNonRecursive: true } });
    }
  });
  it("a named volume's mount carries no BindOptions (the engine refuses them there; it has no mounts under it)", () => {
    const p = load(spec('Disabled'));
    const m = container(p, docker25).create.HostConfig?.Mounts?.[1];
    assert.deepEqual(m && { Type: m.Type, ReadOnly: m.ReadOnly, BindOptions: m.BindOptions }, { Type: 'volume', ReadOnly: true, BindOptions: undefined });
  });
  it('a writable mount has nothing to add', () => {
    const p = load(spec(undefined, false));
    assert.deepEqual(bind(p, docker25), { Type: 'bind', Source: '/srv/data', Target: '/data', ReadOnly: false });
  });
});

describe('image volumes: Mounts of Type image from Engine API 1.48', () => {
  const spec: Obj = {
    volumes: [
      { name: 'tools', image: { reference: 'runpod-test/tools:1', pullPolicy: 'IfNotPresent' } },
      { name: 'latest', image: { reference: 'runpod-test/tools' } },
    ],
    containers: [
      app({
        volumeMounts: [
          { name: 'tools', mountPath: '/tools' },
          { name: 'latest', mountPath: '/bin-tools', subPath: 'bin' },
        ],
      }),
    ],
  };
  it('refused before 1.48, naming the engine and Docker 28, at the field and its line', () => {
    const p = load(spec);
    assert.deepEqual(refusals(p, docker25), [
      'pod.yaml:8 spec.volumes[0].image: Docker 25.0.5 (Engine API 1.44) has no image mounts; Docker 28 or later (Engine API 1.48) does; copy the files in an init container instead',
      'pod.yaml:12 spec.volumes[1].image: Docker 25.0.5 (Engine API 1.44) has no image mounts; Docker 28 or later (Engine API 1.48) does; copy the files in an init container instead',
    ]);
  });
  it('planned as read-only image mounts (a subPath inside the image), each image pulled by its policy first', () => {
    const p = load(spec);
    assert.deepEqual(refusals(p, docker28), []);
    const c = container(p, docker28);
    assert.deepEqual(c.create.HostConfig?.Mounts, [
      { Type: 'image', Source: 'runpod-test/tools:1', Target: '/tools', ReadOnly: true },
      { Type: 'image', Source: 'runpod-test/tools', Target: '/bin-tools', ReadOnly: true, ImageOptions: { Subpath: 'bin' } },
    ]);
    // No tag: Always, as a container's imagePullPolicy defaults.
    assert.deepEqual(c.volumeImages, [
      { image: 'runpod-test/tools:1', pullPolicy: 'IfNotPresent' },
      { image: 'runpod-test/tools', pullPolicy: 'Always' },
    ]);
  });
  it('a volume without a reference is a manifest problem, offline', () => {
    const doc = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { volumes: [{ name: 'tools', image: { pullPolicy: 'Never' } }], containers: [app()] } };
    const r = parseManifests([{ source: { file: 'pod.yaml' }, text: yaml.dump(doc) }], { defaultNamespace: 'default' });
    assert.deepEqual(
      r.problems.map((x) => `${x.path}: ${x.message}`),
      ['spec.volumes[0].image.reference: required'],
    );
  });
});

describe('validate (no engine): each engine-dependent field is said to depend on the engine', () => {
  it('lists AppArmor, Localhost seccomp, recursiveReadOnly and image volumes, with their lines', () => {
    const p = load({
      securityContext: { appArmorProfile: { type: 'RuntimeDefault' }, seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' } },
      volumes: [
        { name: 'host', hostPath: { path: '/srv' } },
        { name: 'tools', image: { reference: 'runpod-test/tools:1' } },
      ],
      containers: [app({ volumeMounts: [{ name: 'host', mountPath: '/srv', readOnly: true, recursiveReadOnly: 'IfPossible' }] })],
    });
    const got = engineDependentFields(p).map((w) => `${w.path}: ${w.message.replace(/;.*/, '')}`);
    assert.deepEqual(got, [
      'spec.securityContext.appArmorProfile.type: depends on the engine: needs AppArmor enabled on the engine host',
      'spec.securityContext.seccompProfile.type: depends on the engine: needs an engine with seccomp',
      'spec.containers[0].volumeMounts[0].recursiveReadOnly: depends on the engine: recursive on Docker 25 or later (Engine API 1.44)',
      'spec.volumes[1].image: depends on the engine: needs Docker 28 or later (Engine API 1.48)',
    ]);
    assert.ok(engineDependentFields(p).every((w) => w.line !== undefined));
  });
});

describe('recursiveReadOnly validation (validateVolumeMounts), offline', () => {
  const problems = (mount: Obj): string[] => {
    const doc = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web' },
      spec: { volumes: [{ name: 'v', hostPath: { path: '/srv' } }], containers: [app({ volumeMounts: [{ name: 'v', mountPath: '/v', ...mount }] })] },
    };
    return parseManifests([{ source: { file: 'pod.yaml' }, text: yaml.dump(doc) }], { defaultNamespace: 'default' }).problems.map((x) => `${x.path}: ${x.message}`);
  };
  it('Enabled and IfPossible only on a read-only mount without propagation; Disabled anywhere', () => {
    assert.deepEqual(problems({ recursiveReadOnly: 'Enabled' }), ['spec.containers[0].volumeMounts[0].recursiveReadOnly: may only be specified when readOnly is true']);
    assert.deepEqual(problems({ readOnly: true, recursiveReadOnly: 'IfPossible', mountPropagation: 'HostToContainer' }), [
      'spec.containers[0].volumeMounts[0].recursiveReadOnly: may only be specified when mountPropagation is None or not specified',
    ]);
    assert.deepEqual(problems({ recursiveReadOnly: 'Disabled' }), []);
    assert.deepEqual(problems({ readOnly: true, recursiveReadOnly: 'Always' }), [
      'spec.containers[0].volumeMounts[0].recursiveReadOnly: must be one of Disabled, IfPossible, Enabled',
    ]);
  });
});
