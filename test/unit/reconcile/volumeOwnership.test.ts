// fsGroup on a claim (reconcile/volumeOwnership.ts, SetVolumeOwnership's rule) and the archive reader it uses.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ownedMode, ownershipRewrite, rootOwned } from '../../../src/reconcile/volumeOwnership.js';
import { readTar, tarArchive } from '../../../src/reconcile/tar.js';

describe('fsGroup on a claim', () => {
  it('files get the group read-write, directories also search and setgid; read-only mounts only read', () => {
    assert.equal(ownedMode('file', 0o600, false).toString(8), '660');
    assert.equal(ownedMode('dir', 0o755, false).toString(8), '2775');
    assert.equal(ownedMode('file', 0o600, true).toString(8), '640');
    assert.equal(ownedMode('dir', 0o700, true).toString(8), '2750');
  });
  it('OnRootMismatch: a root with the group, setgid and the group bits is owned; anything less is not', () => {
    assert.equal(rootOwned({ gid: 1000, mode: 0o2775 }, 1000, false), true);
    assert.equal(rootOwned({ gid: 0, mode: 0o2775 }, 1000, false), false);
    assert.equal(rootOwned({ gid: 1000, mode: 0o775 }, 1000, false), false, 'no setgid');
    assert.equal(rootOwned({ gid: 1000, mode: 0o2755 }, 1000, false), false, 'the group cannot write');
    assert.equal(rootOwned({ gid: 1000, mode: 0o2750 }, 1000, true), true, 'read-only: reading is enough');
  });
  it('an archive read back: every dir, file and symlink gets the group, content and targets unchanged; other entries are left', () => {
    const tar = tarArchive(
      [
        { path: '0', type: 'dir', mode: 0o755, uid: 0, gid: 0 },
        { path: '0/a', type: 'file', mode: 0o600, uid: 0, gid: 0, content: Buffer.from('hello') },
        { path: '0/l', type: 'symlink', mode: 0o777, uid: 0, gid: 0, linkTarget: 'a' },
        { path: `0/${'d'.repeat(120)}/f`, type: 'file', mode: 0o644, uid: 7, gid: 7, content: Buffer.alloc(700, 1) },
      ],
      1_700_000_000,
    );
    const read = readTar(tar);
    assert.deepEqual(
      read.map((e) => e.path),
      ['0', '0/a', '0/l', `0/${'d'.repeat(120)}/f`],
    );
    const out = ownershipRewrite(read, 1000, false);
    assert.deepEqual(
      out.map((e) => [e.path.slice(0, 12), e.type, e.mode.toString(8), e.uid, e.gid, e.content?.length ?? e.linkTarget, e.mtime]),
      [
        ['0', 'dir', '2775', 0, 1000, undefined, 1_700_000_000],
        ['0/a', 'file', '660', 0, 1000, 5, 1_700_000_000],
        ['0/l', 'symlink', '777', 0, 1000, 'a', 1_700_000_000],
        ['0/dddddddddd', 'file', '664', 7, 1000, 700, 1_700_000_000],
      ],
    );
    assert.deepEqual(ownershipRewrite([{ path: '0/fifo', type: 'other' }], 1000, false), []);
  });
});
