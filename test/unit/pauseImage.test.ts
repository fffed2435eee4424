import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pauseArch, pauseImageChanges, pauseImageRef, pauseImageRefFor, pauseProgram, pauseRootfsTar, type PauseArch } from '../../src/reconcile/pauseImage.js';
import { ensureInfraImage } from '../../src/reconcile/infraImage.js';
import type { Engine } from '../../src/engine/ports/engine.js';
import type { ImageSummary } from '../../src/engine/ports/images.js';

const ARCHES: { arch: PauseArch; machine: number }[] = [
  { arch: 'amd64', machine: 62 }, // EM_X86_64
  { arch: 'arm64', machine: 183 }, // EM_AARCH64
];

for (const { arch, machine } of ARCHES) {
  test(`${arch}: ELF header and its one PT_LOAD segment parse back`, () => {
    const p = pauseProgram(arch);
    assert.ok(p.length > 120 && p.length < 512, `a few hundred bytes, got ${p.length}`);
    assert.deepEqual([...p.subarray(0, 4)], [0x7f, 0x45, 0x4c, 0x46]);
    assert.equal(p[4], 2, 'ELFCLASS64');
    assert.equal(p[5], 1, 'little-endian');
    assert.equal(p[6], 1, 'EV_CURRENT');
    assert.equal(p.readUInt16LE(16), 2, 'ET_EXEC');
    assert.equal(p.readUInt16LE(18), machine, 'e_machine');
    assert.equal(p.readUInt32LE(20), 1, 'e_version');
    const entry = p.readBigUInt64LE(24);
    const phoff = Number(p.readBigUInt64LE(32));
    assert.equal(p.readUInt16LE(52), 64, 'e_ehsize');
    assert.equal(p.readUInt16LE(54), 56, 'e_phentsize');
    assert.equal(p.readUInt16LE(56), 1, 'e_phnum');
    assert.equal(p.readUInt16LE(60), 0, 'no section headers');
    assert.ok(phoff >= 64 && phoff + 56 <= p.length);

    assert.equal(p.readUInt32LE(phoff), 1, 'PT_LOAD');
    assert.equal(p.readUInt32LE(phoff + 4), 5, 'PF_R | PF_X');
    const offset = p.readBigUInt64LE(phoff + 8);
    const vaddr = p.readBigUInt64LE(phoff + 16);
    const filesz = p.readBigUInt64LE(phoff + 32);
    const memsz = p.readBigUInt64LE(phoff + 40);
    const align = p.readBigUInt64LE(phoff + 48);
    assert.equal(offset, 0n);
    assert.equal(filesz, BigInt(p.length), 'the segment maps the whole file');
    assert.ok(memsz >= filesz);
    assert.equal(vaddr % align, offset % align, 'loadable: vaddr and offset agree modulo the alignment');
    assert.ok(vaddr >= 0x10000n, 'above mmap_min_addr');
    // Entry inside the segment, past the headers, and instruction-aligned on arm64.
    assert.ok(entry >= vaddr + BigInt(phoff + 56) && entry < vaddr + filesz, `entry 0x${entry.toString(16)}`);
    if (arch === 'arm64') assert.equal(entry % 4n, 0n);
  });

  test(`${arch}: rootfs tar holds /pause, 0755, 0:0, valid checksum, deterministic`, () => {
    const tar = pauseRootfsTar(arch);
    const program = pauseProgram(arch);
    assert.equal(tar.length % 512, 0);
    const h = tar.subarray(0, 512);
    const field = (off: number, len: number): string => h.toString('latin1', off, off + len).replace(/\0.*$/s, '');
    const num = (off: number, len: number): number => parseInt(field(off, len).trim(), 8);

    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 0x20 : (h[i] ?? 0);
    assert.equal(num(148, 8), sum, 'header checksum');
    assert.equal(field(0, 100), 'pause');
    assert.equal(num(100, 8), 0o755);
    assert.equal(num(108, 8), 0);
    assert.equal(num(116, 8), 0);
    assert.equal(num(124, 12), program.length);
    assert.ok(num(136, 12) > 0, 'a fixed, non-zero mtime');
    assert.equal(field(156, 1), '0', 'regular file');
    assert.equal(h.toString('latin1', 257, 263), 'ustar\0');
    assert.equal(h.toString('latin1', 263, 265), '00');

    const padded = Math.ceil(program.length / 512) * 512;
    assert.deepEqual(tar.subarray(512, 512 + program.length), program);
    assert.ok(
      tar.subarray(512 + program.length, 512 + padded).every((b) => b === 0),
      'zero padding',
    );
    assert.equal(tar.length, 512 + padded + 1024, 'two zero blocks end the archive');
    assert.ok(tar.subarray(tar.length - 1024).every((b) => b === 0));

    assert.deepEqual(pauseRootfsTar(arch), tar, 'same bytes every time');
  });

  test(`${arch}: GNU tar reads the archive back`, (t) => {
    let listing: string;
    try {
      listing = execFileSync('tar', ['--numeric-owner', '-tvf', '-'], { input: pauseRootfsTar(arch), encoding: 'utf8' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return t.skip('no tar on this machine');
      throw err;
    }
    assert.match(listing.trim(), new RegExp(`^-rwxr-xr-x 0/0 +${pauseProgram(arch).length} .* pause$`));
  });
}

test('the two programs differ, and each ref names its arch and content', () => {
  assert.notDeepEqual(pauseProgram('amd64'), pauseProgram('arm64'));
  const amd = pauseImageRef('amd64');
  const arm = pauseImageRef('arm64');
  assert.match(amd, /^runpod\/pause:amd64-[0-9a-f]{12}$/);
  assert.match(arm, /^runpod\/pause:arm64-[0-9a-f]{12}$/);
  assert.equal(pauseImageRef('x86_64'), amd);
  assert.equal(pauseImageRef('aarch64'), arm);
  assert.equal(pauseImageRef('amd64'), amd, 'stable');
});

test('the ref changes with the program, and with the import changes', () => {
  const program = pauseProgram('amd64');
  const changes = pauseImageChanges();
  const base = pauseImageRefFor('amd64', program, changes);
  assert.equal(base, pauseImageRef('amd64'));
  const patched = Buffer.from(program);
  patched[patched.length - 1] = (patched[patched.length - 1] ?? 0) ^ 1;
  assert.notEqual(pauseImageRefFor('amd64', patched, changes), base);
  assert.notEqual(pauseImageRefFor('amd64', program, [...changes, 'ENV A=1']), base);
});

test('import changes: entrypoint and label, never STOPSIGNAL (Docker 20.10 refuses it)', () => {
  const changes = pauseImageChanges();
  assert.ok(changes.includes('ENTRYPOINT ["/pause"]'));
  assert.ok(changes.includes('LABEL app.kubernetes.io/managed-by=runpod'));
  assert.ok(!changes.some((c) => /^stopsignal/i.test(c)));
});

test('architecture names map to the two supported; others ask for --infra-image', () => {
  const table: [string, PauseArch][] = [
    ['amd64', 'amd64'],
    ['x86_64', 'amd64'],
    ['arm64', 'arm64'],
    ['aarch64', 'arm64'],
  ];
  for (const [given, want] of table) assert.equal(pauseArch(given), want, given);
  for (const other of ['s390x', 'ppc64le', 'arm', 'riscv64', '386', '']) {
    assert.throws(
      () => pauseArch(other),
      (err: Error) => {
        assert.match(err.message, /supports amd64 and arm64/);
        assert.match(err.message, /--infra-image <ref>/);
        assert.match(err.message, /registry\.k8s\.io\/pause:3\.10/);
        return true;
      },
    );
    assert.throws(() => pauseRootfsTar(other), /--infra-image/);
    assert.throws(() => pauseImageRef(other), /--infra-image/);
  }
});

// Disassemble with binutils when it is installed (a developer check, not a dependency): the syscall
// numbers and the branch targets are what the comments in pauseImage.ts say.
const disassemblers: { arch: PauseArch; tool: string; machine: string[]; want: RegExp[] }[] = [
  {
    arch: 'amd64',
    tool: 'objdump',
    machine: ['-m', 'i386:x86-64', '-M', 'intel'],
    want: [/mov\s+eax,0xe\n/, /mov\s+eax,0x80\n/, /mov\s+eax,0x3d\n/, /mov\s+eax,0xe7\n/, /push\s+0x14002/],
  },
  {
    arch: 'arm64',
    tool: 'aarch64-linux-gnu-objdump',
    machine: ['-m', 'aarch64'],
    want: [/mov\s+x8, #0x87\b/, /mov\s+x8, #0x89\b/, /mov\s+x8, #0x104\b/, /mov\s+x8, #0x5e\b/, /movk\s+x1, #0x1, lsl #16/],
  },
];
for (const { arch, tool, machine, want } of disassemblers) {
  test(`${arch}: disassembles to the documented syscalls (${tool}, when installed)`, (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-pause-'));
    try {
      const file = path.join(dir, arch);
      fs.writeFileSync(file, pauseProgram(arch));
      let out: string;
      try {
        out = execFileSync(tool, ['-D', '-b', 'binary', ...machine, '--start-address=120', file], { encoding: 'utf8' });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return t.skip(`${tool} not installed`);
        throw err;
      }
      for (const re of want) assert.match(out, re);
      assert.doesNotMatch(out, /\(bad\)|undefined|\.inst/, 'every word decodes');
      const syscalls = (out.match(/\b(syscall|svc\s+#0x0)\b/g) ?? []).length;
      assert.equal(syscalls, 4, 'rt_sigprocmask, rt_sigtimedwait, exit_group, wait4');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}

/** The two image calls of an Engine, over a set of refs that exist. */
function fakeEngine(present: Set<string>, opts: { importFails?: boolean; raceImports?: boolean } = {}) {
  const imports: { tar: Buffer; ref: string; changes: string[] }[] = [];
  const engine: Pick<Engine, 'inspectImage' | 'importImage'> = {
    inspectImage: async (ref: string): Promise<ImageSummary | undefined> => (present.has(ref) ? { id: `sha256:${ref}` } : undefined),
    importImage: async (tar: Buffer, ref: string, changes: string[]): Promise<void> => {
      imports.push({ tar, ref, changes });
      if (opts.raceImports) present.add(ref); // another runpod's import landed
      if (opts.importFails) throw new Error('import failed');
      present.add(ref);
    },
  };
  return { engine, imports };
}

test('ensureInfraImage reuses an image that is there', async () => {
  const ref = pauseImageRef('amd64');
  const { engine, imports } = fakeEngine(new Set([ref]));
  assert.equal(await ensureInfraImage(engine, 'amd64'), ref);
  assert.equal(imports.length, 0);
});

test('ensureInfraImage imports the rootfs with the changes when missing', async () => {
  const { engine, imports } = fakeEngine(new Set());
  const ref = await ensureInfraImage(engine, 'aarch64');
  assert.equal(ref, pauseImageRef('arm64'));
  assert.equal(imports.length, 1);
  assert.deepEqual(imports[0]?.tar, pauseRootfsTar('arm64'));
  assert.equal(imports[0]?.ref, ref);
  assert.deepEqual(imports[0]?.changes, pauseImageChanges());
  assert.equal(await ensureInfraImage(engine, 'arm64'), ref);
  assert.equal(imports.length, 1, 'the second call reuses it');
});

test('ensureInfraImage: a failed import is fine when the image is there after all, else it throws', async () => {
  const raced = fakeEngine(new Set(), { importFails: true, raceImports: true });
  assert.equal(await ensureInfraImage(raced.engine, 'amd64'), pauseImageRef('amd64'));
  const failed = fakeEngine(new Set(), { importFails: true });
  await assert.rejects(ensureInfraImage(failed.engine, 'amd64'), /import failed/);
});

test('ensureInfraImage refuses an unsupported architecture before calling the engine', async () => {
  const { engine, imports } = fakeEngine(new Set());
  await assert.rejects(ensureInfraImage(engine, 's390x'), /--infra-image/);
  assert.equal(imports.length, 0);
});
