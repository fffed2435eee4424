// The claims' engine volumes (reconcile/claims.ts), the pure parts: which mounts use a claim (a subPath is a bind
// into its directory, which the engine does not count), a StatefulSet's claims by their names, and what gc --claims
// may remove.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type ClaimVolume, isClaimVolume, mountUses, ofStatefulSet, unusedClaims } from '../../../src/reconcile/claims.js';

const vol: ClaimVolume = { name: 'pvc_default_data', namespace: 'default', claim: 'data', mountpoint: '/var/lib/docker/volumes/pvc_default_data/_data', createdAt: 0 };

describe('mountUses', () => {
  const cases: [string, Parameters<typeof mountUses>[0], boolean][] = [
    ['a volume mount of it', { Type: 'volume', Name: 'pvc_default_data', Source: vol.mountpoint }, true],
    ['a volume mount of another', { Type: 'volume', Name: 'pvc_default_data2', Source: '/var/lib/docker/volumes/pvc_default_data2/_data' }, false],
    ['a subPath: a bind below its directory', { Type: 'bind', Source: `${vol.mountpoint}/sub/dir` }, true],
    ['a bind of its directory itself', { Type: 'bind', Source: vol.mountpoint }, true],
    ['a bind of a sibling whose name starts alike', { Type: 'bind', Source: '/var/lib/docker/volumes/pvc_default_data/_data2/x' }, false],
    ['a hostPath bind elsewhere', { Type: 'bind', Source: '/srv/data' }, false],
    ['a tmpfs', { Type: 'tmpfs', Source: '' }, false],
  ];
  for (const [what, m, want] of cases) it(what, () => assert.equal(mountUses(m, vol), want));
  it('a volume whose directory is unknown is matched by name only', () => {
    assert.equal(mountUses({ Type: 'bind', Source: '/x' }, { ...vol, mountpoint: '' }), false);
  });
});

describe("isClaimVolume: only runpod's claim labels make one", () => {
  it("runpod's claim", () =>
    assert.equal(isClaimVolume({ 'app.kubernetes.io/managed-by': 'runpod', 'io.runpod.volume.type': 'persistentVolumeClaim', 'io.runpod.pvc.name': 'data' }), true));
  it("an emptyDir of runpod's", () => assert.equal(isClaimVolume({ 'app.kubernetes.io/managed-by': 'runpod', 'io.runpod.volume.type': 'emptyDir' }), false));
  it("someone else's volume with the type label", () => assert.equal(isClaimVolume({ 'io.runpod.volume.type': 'persistentVolumeClaim', 'io.runpod.pvc.name': 'data' }), false));
});

describe('ofStatefulSet', () => {
  const cases: [string, boolean][] = [
    ['data-db-0', true],
    ['data-db-12', true],
    ['wal-db-1', true],
    ['data-db-x-0', false],
    ['data-dbx-0', false],
    ['data-db-', false],
    ['other-db-0', false],
  ];
  for (const [claim, want] of cases) it(`${claim}: ${want}`, () => assert.equal(ofStatefulSet(claim, 'db', ['data', 'wal']), want));
});

describe('unusedClaims (gc --claims)', () => {
  const now = 10 * 60_000;
  const at = (name: string, createdAt: number | undefined, more: Partial<ClaimVolume> = {}): ClaimVolume => ({
    ...vol,
    name,
    claim: name,
    ...(createdAt !== undefined ? { createdAt } : { createdAt: undefined }),
    ...more,
  });
  it('old and unused goes; used, young, of unknown age, or in a busy key and namespace stays', () => {
    const volumes = [
      at('old', 0),
      at('used', 0),
      at('young', now - 30_000),
      { ...at('ageless', 0), createdAt: undefined } as ClaimVolume,
      at('busy', 0, { project: 'ci-1' }),
      at('keyed', 0, { project: 'ci-2' }),
    ];
    const out = unusedClaims(volumes, new Map([['used', ['default/db-0']]]), new Set(['ci-1/default']), now, 60_000);
    assert.deepEqual(
      out.map((u) => [u.volume.name, u.reason]),
      [
        ['old', 'no pod uses claim default/old any more'],
        ['keyed', 'no pod of isolation key ci-2 uses claim default/keyed any more'],
      ],
    );
  });
});
