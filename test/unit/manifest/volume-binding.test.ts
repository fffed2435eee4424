import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ClaimRequest, type VolumeObject, bindClaims, claimRequest, volumeObject } from '../../../src/manifest/volumeBinding.js';
import { parseManifests } from '../../../src/manifest/parse.js';

const pv = (name: string, spec: Record<string, unknown>, labels?: Record<string, string>): VolumeObject =>
  volumeObject(
    { metadata: { name, ...(labels ? { labels } : {}) }, spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/data/${name}` }, ...spec } },
    'in.yaml',
    1,
  );
const claim = (name: string, spec: Record<string, unknown>, namespace = 'default'): ClaimRequest =>
  claimRequest({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '3Gi' } }, ...spec }, namespace, name, { file: 'in.yaml', line: 1, at: 'spec' });
const boundTo = (claims: ClaimRequest[], volumes: VolumeObject[]): Record<string, string> =>
  Object.fromEntries([...bindClaims(claims, volumes).bound].map(([k, b]) => [k, b.volume]));

describe('bindClaims (the PV controller: findByClaim, FindMatchingVolume, checkVolumeSatisfyClaim)', () => {
  it('the tutorial: a 3Gi claim of class manual binds the 10Gi PersistentVolume of class manual, mounted from its hostPath', () => {
    const r = bindClaims([claim('task-pv-claim', { storageClassName: 'manual' })], [pv('task-pv-volume', { storageClassName: 'manual', hostPath: { path: '/mnt/data' } })]);
    assert.deepEqual(r.bound.get('default/task-pv-claim'), { volume: 'task-pv-volume', source: { type: 'hostPath', path: '/mnt/data', hostPathType: '' } });
    assert.deepEqual(r.refused, []);
  });
  it("the smallest volume that fits, of the claim's class; a volume too small or of another class is passed over", () => {
    const vols = [
      pv('big', { storageClassName: 'manual', capacity: { storage: '100Gi' } }),
      pv('small', { storageClassName: 'manual', capacity: { storage: '1Gi' } }),
      pv('mid', { storageClassName: 'manual', capacity: { storage: '5Gi' } }),
      pv('other', { storageClassName: 'fast', capacity: { storage: '4Gi' } }),
    ];
    assert.deepEqual(boundTo([claim('c', { storageClassName: 'manual' })], vols), { 'default/c': 'mid' });
  });
  it('capacity is compared exactly across units (3Gi > 3G)', () => {
    const r = bindClaims([claim('c', { storageClassName: 'm', resources: { requests: { storage: '3Gi' } } })], [pv('v', { storageClassName: 'm', capacity: { storage: '3G' } })]);
    assert.equal(r.bound.size, 0);
    assert.match(r.refused[0]!.message, /capacity 3G, less than the 3Gi requested/);
  });
  it('access modes: the volume must offer every mode of the claim; fewer modes are preferred over a smaller size', () => {
    const vols = [
      pv('rwo', { storageClassName: 'm', capacity: { storage: '4Gi' } }),
      pv('both', { storageClassName: 'm', capacity: { storage: '4Gi' }, accessModes: ['ReadWriteOnce', 'ReadWriteMany'] }),
      pv('rwx', { storageClassName: 'm', capacity: { storage: '20Gi' }, accessModes: ['ReadWriteMany'] }),
    ];
    assert.deepEqual(boundTo([claim('c', { storageClassName: 'm', accessModes: ['ReadWriteMany'] })], vols), { 'default/c': 'rwx' });
    const r = bindClaims([claim('c', { storageClassName: 'm', accessModes: ['ReadOnlyMany'] })], vols);
    assert.match(r.refused[0]!.message, /does not offer access mode ReadOnlyMany/);
  });
  it('one volume binds one claim: the second claim of the class is refused', () => {
    const r = bindClaims([claim('a', { storageClassName: 'm' }), claim('b', { storageClassName: 'm' })], [pv('v', { storageClassName: 'm' })]);
    assert.deepEqual([...r.bound.keys()], ['default/a']);
    assert.equal(r.refused[0]!.claim.name, 'b');
    assert.match(r.refused[0]!.message, /PersistentVolume v is bound to claim default\/a/);
  });
  it('claimRef reserves a volume: it binds that claim whatever its class and selector, and no other claim', () => {
    const vols = [
      pv('reserved', { storageClassName: 'other', claimRef: { name: 'mine', namespace: 'apps' } }),
      pv('free', { storageClassName: 'm', capacity: { storage: '50Gi' } }),
    ];
    assert.deepEqual(boundTo([claim('mine', { storageClassName: 'm' }, 'apps'), claim('theirs', { storageClassName: 'm' }, 'apps')], vols), {
      'apps/mine': 'reserved',
      'apps/theirs': 'free',
    });
    // A claimRef without namespace means "default".
    assert.deepEqual(boundTo([claim('x', {})], [pv('r', { claimRef: { name: 'x' } })]), { 'default/x': 'r' });
    // Reserved for a claim not in the input: nobody else binds it.
    const r = bindClaims([claim('c', { storageClassName: 'm' })], [pv('r', { storageClassName: 'm', claimRef: { name: 'absent' } })]);
    assert.match(r.refused[0]!.message, /is reserved for claim default\/absent/);
  });
  it('volumeName binds that volume only, checked as checkVolumeSatisfyClaim checks it (not the selector); it goes before other claims', () => {
    const vols = [pv('named', { storageClassName: 'm' }, { tier: 'gold' })];
    assert.deepEqual(
      boundTo([claim('greedy', { storageClassName: 'm' }), claim('c', { storageClassName: 'm', volumeName: 'named', selector: { matchLabels: { tier: 'silver' } } })], vols),
      { 'default/c': 'named' },
    );
    const missing = bindClaims([claim('c', { volumeName: 'nope' })], vols);
    assert.equal(missing.refused[0]!.field, 'volumeName');
    assert.match(missing.refused[0]!.message, /the input has no PersistentVolume nope/);
    // An unset class is the default class, which the volume's class is not.
    const wrongClass = bindClaims([claim('c', { volumeName: 'named' })], vols);
    assert.match(wrongClass.refused[0]!.message, /storageClassName "m", the claim the default class/);
  });
  it('a selector picks among the volumes of the class by their labels (matchLabels and matchExpressions)', () => {
    const vols = [pv('gold', { storageClassName: 'm', capacity: { storage: '20Gi' } }, { tier: 'gold' }), pv('silver', { storageClassName: 'm' }, { tier: 'silver' })];
    assert.deepEqual(boundTo([claim('c', { storageClassName: 'm', selector: { matchLabels: { tier: 'gold' } } })], vols), { 'default/c': 'gold' });
    assert.deepEqual(boundTo([claim('c', { storageClassName: 'm', selector: { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['silver'] }] } })], vols), {
      'default/c': 'gold',
    });
    const r = bindClaims([claim('c', { storageClassName: 'other', selector: { matchLabels: { tier: 'bronze' } } })], vols);
    assert.equal(r.refused[0]!.field, 'selector');
  });
  it('class "" binds a volume without a class, and is refused when none fits; an unset class never binds one (the default class), with a warning', () => {
    const vols = [pv('plain', {})];
    assert.deepEqual(boundTo([claim('c', { storageClassName: '' })], vols), { 'default/c': 'plain' });
    const unset = bindClaims([claim('c', {})], vols);
    assert.equal(unset.bound.size, 0);
    assert.deepEqual(unset.refused, []);
    assert.match(unset.warnings[0]!.message, /not bound to PersistentVolume plain .*storageClassName: ""/);
    const none = bindClaims([claim('c', { storageClassName: '' })], []);
    assert.match(none.refused[0]!.message, /nothing provisions class ""/);
  });
  it("a class no PersistentVolume of the input names is runpod's engine volume (warned); a class only PVs name, unmatched, is refused", () => {
    const standard = bindClaims([claim('c', { storageClassName: 'standard' })], [pv('v', { storageClassName: 'manual' })]);
    assert.equal(standard.bound.size, 0);
    assert.deepEqual(standard.refused, []);
    assert.match(standard.warnings[0]!.message, /no PersistentVolume of the input has this class/);
    const manual = bindClaims([claim('c', { storageClassName: 'manual', resources: { requests: { storage: '20Gi' } } })], [pv('v', { storageClassName: 'manual' })]);
    assert.equal(manual.refused[0]!.field, 'storageClassName');
    assert.match(manual.refused[0]!.message, /would stay Pending/);
    // No PersistentVolume at all: a claim of any class is an engine volume, as before.
    assert.deepEqual(bindClaims([claim('c', {})], []), { bound: new Map(), refused: [], warnings: [] });
  });
  it('a local PersistentVolume binds as a hostPath one does; its source is kept', () => {
    const r = bindClaims(
      [claim('c', { storageClassName: 'local-storage' })],
      [
        volumeObject(
          { metadata: { name: 'l' }, spec: { storageClassName: 'local-storage', capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], local: { path: '/disks/a' } } },
          'f',
          1,
        ),
      ],
    );
    assert.deepEqual(r.bound.get('default/c')?.source, { type: 'local', path: '/disks/a' });
  });
});

describe('parseManifests with PersistentVolumes', () => {
  const load = (text: string) => parseManifests([{ source: { file: 'in.yaml' }, text }], { defaultNamespace: 'default' });
  const volume =
    'apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv-a}\nspec:\n  storageClassName: manual\n  capacity: {storage: 10Gi}\n  accessModes: [ReadWriteOnce]\n  hostPath: {path: /srv/a, type: DirectoryOrCreate}\n';
  it("a StatefulSet ordinal's claim binds by its template; its pod carries the binding", () => {
    const r = load(
      `${volume}---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec:\n  serviceName: db\n  replicas: 1\n  selector: {matchLabels: {app: db}}\n  template:\n    metadata: {labels: {app: db}}\n    spec:\n      containers: [{name: c, image: busybox:1, volumeMounts: [{name: data, mountPath: /data}]}]\n  volumeClaimTemplates:\n  - metadata: {name: data}\n    spec: {storageClassName: manual, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n`,
    );
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.pods[0]!.boundClaims?.get('data-db-0'), { volume: 'pv-a', source: { type: 'hostPath', path: '/srv/a', hostPathType: 'DirectoryOrCreate' } });
  });
  it("a second ordinal finds the one volume taken: refused at the template's storageClassName", () => {
    const r = load(
      `${volume}---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec:\n  serviceName: db\n  replicas: 2\n  selector: {matchLabels: {app: db}}\n  template:\n    metadata: {labels: {app: db}}\n    spec:\n      containers: [{name: c, image: busybox:1, volumeMounts: [{name: data, mountPath: /data}]}]\n  volumeClaimTemplates:\n  - metadata: {name: data}\n    spec: {storageClassName: manual, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n`,
    );
    assert.equal(r.problems.length, 1);
    assert.equal(r.problems[0]!.path, 'spec.volumeClaimTemplates[0].spec.storageClassName');
    assert.match(r.problems[0]!.message, /claim default\/data-db-1: .*PersistentVolume pv-a is bound to claim default\/data-db-0/);
  });
  it('other sources are refused by name; Delete and mountOptions are refused; nodeAffinity and a namespace are warned about', () => {
    const r = load(
      'apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: n, namespace: x}\nspec:\n  capacity: {storage: 1Gi}\n  accessModes: [ReadWriteMany]\n  persistentVolumeReclaimPolicy: Delete\n  mountOptions: [hard]\n  nfs: {server: s, path: /e}\n  nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: k, operator: In, values: [a]}]}]}}\n',
    );
    assert.deepEqual(
      r.problems.map((p) => p.path),
      ['spec.persistentVolumeReclaimPolicy', 'spec.mountOptions', 'spec.nfs'],
    );
    assert.match(r.problems[2]!.message, /hostPath and local PersistentVolumes only/);
    assert.deepEqual(r.warnings.map((w) => w.path).sort(), ['metadata.namespace', 'spec.nodeAffinity']);
  });
  it('a PersistentVolume without a source, capacity or access modes is refused', () => {
    const r = load('apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: n}\nspec: {storageClassName: m}\n');
    assert.deepEqual(r.problems.map((p) => p.path).sort(), ['spec', 'spec.accessModes', 'spec.capacity.storage']);
    assert.match(r.problems.find((p) => p.path === 'spec')!.message, /must specify a volume source: hostPath .* or local/);
  });
});
