// runpod's own infra ("pause") image, generated in memory so runpod works with no registry, compiler or
// network: a tiny static ELF executable per architecture, wrapped in a one-file ustar root filesystem that
// the engine imports (POST /images/create?fromSrc=-). Pure: no I/O.
//
// What the program does, and why this way:
//   It runs as PID 1 of the pod's namespaces. The kernel drops signals sent to PID 1 whose action is the
//   default, so doing nothing would make `docker stop` wait for SIGKILL. Instead of installing handlers
//   (on x86-64 a handler needs SA_RESTORER and a restorer calling rt_sigreturn, or the process dies with
//   SIGSEGV), it blocks SIGINT, SIGTERM and SIGCHLD and takes them synchronously with rt_sigtimedwait:
//   blocked signals are queued even for init, there is no signal frame to get wrong, and the code is
//   straight-line.
//     rt_sigprocmask(SIG_BLOCK, {INT, TERM, CHLD}, NULL, 8)
//     loop: sig = rt_sigtimedwait({INT, TERM, CHLD}, NULL, NULL, 8)
//           SIGCHLD  -> while (wait4(-1, NULL, WNOHANG, NULL) > 0);   (orphans of a shared PID namespace
//                       are reparented to it; pending SIGCHLDs coalesce, hence the loop)
//           > 0      -> exit_group(0)   (only SIGINT or SIGTERM can be left)
//           < 0      -> try again       (-EINTR, e.g. after SIGSTOP/SIGCONT)
import { createHash } from 'node:crypto';

export type PauseArch = 'amd64' | 'arm64';

/** Map the engine's architecture name (Go or uname form) to one runpod ships a program for. */
export function pauseArch(arch: string): PauseArch {
  switch (arch) {
    case 'amd64':
    case 'x86_64':
      return 'amd64';
    case 'arm64':
    case 'aarch64':
      return 'arm64';
    default:
      throw new Error(`runpod's built-in infra image supports amd64 and arm64, not ${JSON.stringify(arch)}; ` + 'pass --infra-image <ref> (e.g. registry.k8s.io/pause:3.10)');
  }
}

// Signal numbers are the same on x86-64 and arm64 Linux.
const SIGINT = 2;
const SIGTERM = 15;
const SIGCHLD = 17;
/** The sigset {SIGINT, SIGTERM, SIGCHLD}: bit (n - 1) for signal n. */
const WAIT_SET = (1 << (SIGINT - 1)) | (1 << (SIGTERM - 1)) | (1 << (SIGCHLD - 1));
if (WAIT_SET !== 0x14002) throw new Error('pause: sigset constant out of step with the machine code');

/**
 * x86-64. Syscall numbers: rt_sigprocmask 14, rt_sigtimedwait 128, wait4 61, exit_group 231.
 * Arguments in rdi, rsi, rdx, r10; `syscall` clobbers only rax, rcx, r11. Offsets are from the entry.
 */
const AMD64_CODE = Buffer.from([
  // 0x00: the sigset, kept on the stack
  0x68,
  0x02,
  0x40,
  0x01,
  0x00, //       push   0x14002
  // 0x05: rt_sigprocmask(SIG_BLOCK, rsp, NULL, 8)
  0x31,
  0xff, //                         xor    edi, edi          ; SIG_BLOCK = 0
  0x48,
  0x89,
  0xe6, //                   mov    rsi, rsp
  0x31,
  0xd2, //                         xor    edx, edx
  0x41,
  0xba,
  0x08,
  0x00,
  0x00,
  0x00, // mov    r10d, 8           ; sizeof(sigset_t)
  0xb8,
  0x0e,
  0x00,
  0x00,
  0x00, //       mov    eax, 14
  0x0f,
  0x05, //                         syscall
  // 0x19 wait: rt_sigtimedwait(rsp, NULL, NULL, 8)
  0x48,
  0x89,
  0xe7, //                   mov    rdi, rsp
  0x31,
  0xf6, //                         xor    esi, esi
  0x31,
  0xd2, //                         xor    edx, edx          ; no timeout: wait for ever
  0x41,
  0xba,
  0x08,
  0x00,
  0x00,
  0x00, // mov    r10d, 8           ; reap clears r10, so set it each time
  0xb8,
  0x80,
  0x00,
  0x00,
  0x00, //       mov    eax, 128
  0x0f,
  0x05, //                         syscall
  0x83,
  0xf8,
  0x11, //                   cmp    eax, 17           ; SIGCHLD
  0x74,
  0x0d, //                         je     reap (0x3f)
  0x85,
  0xc0, //                         test   eax, eax
  0x7e,
  0xe3, //                         jle    wait (0x19)       ; -errno: wait again
  // 0x36: SIGINT or SIGTERM: exit_group(0)
  0x31,
  0xff, //                         xor    edi, edi
  0xb8,
  0xe7,
  0x00,
  0x00,
  0x00, //       mov    eax, 231
  0x0f,
  0x05, //                         syscall
  // 0x3f reap: wait4(-1, NULL, WNOHANG, NULL)
  0x48,
  0x83,
  0xcf,
  0xff, //             or     rdi, -1
  0x31,
  0xf6, //                         xor    esi, esi
  0xba,
  0x01,
  0x00,
  0x00,
  0x00, //       mov    edx, 1            ; WNOHANG
  0x45,
  0x31,
  0xd2, //                   xor    r10d, r10d
  0xb8,
  0x3d,
  0x00,
  0x00,
  0x00, //       mov    eax, 61
  0x0f,
  0x05, //                         syscall
  0x85,
  0xc0, //                         test   eax, eax
  0x7f,
  0xe7, //                         jg     reap (0x3f)       ; reaped one: there may be more
  0xeb,
  0xbf, //                         jmp    wait (0x19)       ; 0: none left; <0: no children
]);

/**
 * aarch64. Syscall numbers (asm-generic): rt_sigprocmask 135, rt_sigtimedwait 137, wait4 260,
 * exit_group 94. Number in x8, arguments in x0..x3, `svc #0`. Each instruction is one 32-bit word,
 * stored little-endian; offsets are from the entry.
 */
const ARM64_WORDS: readonly number[] = [
  // 0x00: the sigset, on the stack (sp stays 16-byte aligned, as the architecture checks)
  0xd2880041, //  movz  x1, #0x4002
  0xf2a00021, //  movk  x1, #0x1, lsl #16          ; x1 = 0x14002
  0xf81f0fe1, //  str   x1, [sp, #-16]!
  // 0x0c: rt_sigprocmask(SIG_BLOCK, sp, NULL, 8)
  0xd2800000, //  mov   x0, #0                     ; SIG_BLOCK = 0
  0x910003e1, //  mov   x1, sp
  0xd2800002, //  mov   x2, #0
  0xd2800103, //  mov   x3, #8                     ; sizeof(sigset_t)
  0xd28010e8, //  mov   x8, #135
  0xd4000001, //  svc   #0
  // 0x24 wait: rt_sigtimedwait(sp, NULL, NULL, 8)
  0x910003e0, //  mov   x0, sp
  0xd2800001, //  mov   x1, #0
  0xd2800002, //  mov   x2, #0                     ; no timeout: wait for ever
  0xd2800103, //  mov   x3, #8
  0xd2801128, //  mov   x8, #137
  0xd4000001, //  svc   #0
  0xf100441f, //  cmp   x0, #17                    ; SIGCHLD
  0x540000c0, //  b.eq  reap (0x58)
  0xf100001f, //  cmp   x0, #0
  0x54fffeed, //  b.le  wait (0x24)                ; -errno: wait again
  // 0x4c: SIGINT or SIGTERM: exit_group(0)
  0xd2800000, //  mov   x0, #0
  0xd2800bc8, //  mov   x8, #94
  0xd4000001, //  svc   #0
  // 0x58 reap: wait4(-1, NULL, WNOHANG, NULL)
  0x92800000, //  mov   x0, #-1                    ; movn x0, #0
  0xd2800001, //  mov   x1, #0
  0xd2800022, //  mov   x2, #1                     ; WNOHANG
  0xd2800003, //  mov   x3, #0
  0xd2802088, //  mov   x8, #260
  0xd4000001, //  svc   #0
  0xf100001f, //  cmp   x0, #0
  0x54ffff2c, //  b.gt  reap (0x58)                ; reaped one: there may be more
  0x17ffffeb, //  b     wait (0x24)                ; 0: none left; <0: no children
];

function words(ws: readonly number[]): Buffer {
  const b = Buffer.alloc(ws.length * 4);
  ws.forEach((w, i) => b.writeUInt32LE(w, i * 4));
  return b;
}

const ARM64_CODE = words(ARM64_WORDS);

// ELF constants (System V gABI and the x86-64 / AArch64 supplements).
const EM_X86_64 = 62;
const EM_AARCH64 = 183;
const ET_EXEC = 2;
const PT_LOAD = 1;
const PF_X = 1;
const PF_R = 4;
const ELF_HEADER_SIZE = 64;
const PROGRAM_HEADER_SIZE = 56;
/** Where the file is mapped: the customary base for non-PIE executables, far above mmap_min_addr. */
const LOAD_ADDRESS = 0x400000n;
const PAGE = 0x1000n;

/**
 * One PT_LOAD segment maps the whole file (headers included) read+execute; the code follows the program
 * header. No sections, no PT_GNU_STACK: nothing needs them and the kernel does not ask for them.
 */
function elf(machine: number, code: Buffer): Buffer {
  const codeOffset = ELF_HEADER_SIZE + PROGRAM_HEADER_SIZE;
  const fileSize = codeOffset + code.length;
  const out = Buffer.alloc(fileSize);

  // ELF header (Elf64_Ehdr)
  out.write('\x7fELF', 0, 'latin1'); //             e_ident[EI_MAG0..3]
  out[4] = 2; //                                    EI_CLASS = ELFCLASS64
  out[5] = 1; //                                    EI_DATA = ELFDATA2LSB (both targets are little-endian)
  out[6] = 1; //                                    EI_VERSION = EV_CURRENT
  out[7] = 0; //                                    EI_OSABI = ELFOSABI_SYSV; bytes 8..15 are padding
  out.writeUInt16LE(ET_EXEC, 16); //                e_type
  out.writeUInt16LE(machine, 18); //                e_machine
  out.writeUInt32LE(1, 20); //                      e_version
  out.writeBigUInt64LE(LOAD_ADDRESS + BigInt(codeOffset), 24); // e_entry
  out.writeBigUInt64LE(BigInt(ELF_HEADER_SIZE), 32); // e_phoff
  out.writeBigUInt64LE(0n, 40); //                  e_shoff: no section headers
  out.writeUInt32LE(0, 48); //                      e_flags
  out.writeUInt16LE(ELF_HEADER_SIZE, 52); //        e_ehsize
  out.writeUInt16LE(PROGRAM_HEADER_SIZE, 54); //    e_phentsize
  out.writeUInt16LE(1, 56); //                      e_phnum
  out.writeUInt16LE(0, 58); //                      e_shentsize
  out.writeUInt16LE(0, 60); //                      e_shnum
  out.writeUInt16LE(0, 62); //                      e_shstrndx = SHN_UNDEF

  // Program header (Elf64_Phdr)
  const ph = ELF_HEADER_SIZE;
  out.writeUInt32LE(PT_LOAD, ph + 0); //            p_type
  out.writeUInt32LE(PF_R | PF_X, ph + 4); //        p_flags
  out.writeBigUInt64LE(0n, ph + 8); //              p_offset
  out.writeBigUInt64LE(LOAD_ADDRESS, ph + 16); //   p_vaddr
  out.writeBigUInt64LE(LOAD_ADDRESS, ph + 24); //   p_paddr
  out.writeBigUInt64LE(BigInt(fileSize), ph + 32); // p_filesz
  out.writeBigUInt64LE(BigInt(fileSize), ph + 40); // p_memsz: no bss
  out.writeBigUInt64LE(PAGE, ph + 48); //           p_align

  code.copy(out, codeOffset);
  return out;
}

/** The pause executable for an architecture: a static ELF64 of a few hundred bytes. */
export function pauseProgram(arch: PauseArch): Buffer {
  return arch === 'amd64' ? elf(EM_X86_64, AMD64_CODE) : elf(EM_AARCH64, ARM64_CODE);
}

/** Fixed mtime (2024-01-01T00:00:00Z) so the archive, and so the imported layer, is byte-for-byte stable. */
const TAR_MTIME = 1704067200;
const BLOCK = 512;

/** A NUL-terminated octal field of `width` bytes, as ustar wants. */
function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

/** A ustar archive holding one regular file, then the two zero blocks that end an archive. */
function ustarOneFile(name: string, mode: number, mtime: number, content: Buffer): Buffer {
  const header = Buffer.alloc(BLOCK);
  header.write(name, 0, 100, 'utf8'); //                 name
  header.write(octal(mode, 8), 100, 'latin1'); //        mode
  header.write(octal(0, 8), 108, 'latin1'); //           uid
  header.write(octal(0, 8), 116, 'latin1'); //           gid
  header.write(octal(content.length, 12), 124, 'latin1'); // size
  header.write(octal(mtime, 12), 136, 'latin1'); //      mtime
  header.write('        ', 148, 'latin1'); //            chksum: spaces while summing
  header.write('0', 156, 'latin1'); //                   typeflag: regular file
  header.write('ustar\0', 257, 'latin1'); //             magic
  header.write('00', 263, 'latin1'); //                  version
  header.write('root', 265, 'latin1'); //                uname
  header.write('root', 297, 'latin1'); //                gname
  let sum = 0;
  for (const byte of header) sum += byte;
  // Six octal digits, NUL, space: the form tar itself writes.
  header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'latin1');

  const padded = Math.ceil(content.length / BLOCK) * BLOCK;
  const body = Buffer.alloc(padded);
  content.copy(body);
  return Buffer.concat([header, body, Buffer.alloc(2 * BLOCK)]);
}

/** The root filesystem to import: only /pause, mode 0755, owned by 0:0. */
export function pauseRootfsTar(arch: string): Buffer {
  return ustarOneFile('pause', 0o755, TAR_MTIME, pauseProgram(pauseArch(arch)));
}

/** Dockerfile-style changes for the import. Docker 20.10 refuses STOPSIGNAL here; SIGTERM is the default. */
export function pauseImageChanges(): string[] {
  return ['ENTRYPOINT ["/pause"]', 'LABEL app.kubernetes.io/managed-by=runpod'];
}

/**
 * The tag names its content: a hash of the program and the import changes, so a changed program (or
 * image config) gets a new tag, and an image imported earlier, by this or another runpod, is reused.
 */
export function pauseImageRefFor(arch: PauseArch, program: Buffer, changes: readonly string[]): string {
  const hash = createHash('sha256').update(program);
  for (const c of changes) hash.update('\0' + c);
  return `runpod/pause:${arch}-${hash.digest('hex').slice(0, 12)}`;
}

export function pauseImageRef(arch: string): string {
  const a = pauseArch(arch);
  return pauseImageRefFor(a, pauseProgram(a), pauseImageChanges());
}
