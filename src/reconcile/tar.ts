// A minimal ustar writer (POSIX.1-1988): directories and regular files with mode, owner and group, enough to
// hand rendered volume files to the engine's archive endpoint. Pure.

export interface TarEntry {
  /** Relative path; a directory's without a trailing slash. */
  path: string;
  type: 'file' | 'dir' | 'symlink';
  mode: number;
  uid: number;
  gid: number;
  content?: Buffer;
  /** A symlink's target. */
  linkTarget?: string;
  /** Seconds since the epoch; else the archive's. */
  mtime?: number;
}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

/** Split a path into ustar's prefix (155) and name (100), at a '/'. */
function splitName(path: string): { name: string; prefix: string } {
  if (Buffer.byteLength(path) <= 100) return { name: path, prefix: '' };
  for (let i = path.length - 1; i > 0; i--) {
    if (path[i] !== '/') continue;
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100 && name !== '') return { name, prefix };
  }
  throw new Error(`path too long for a volume file: ${path.slice(0, 60)}…`);
}

function header(e: TarEntry, mtime: number): Buffer {
  const h = Buffer.alloc(512);
  const { name, prefix } = splitName(e.type === 'dir' ? `${e.path}/` : e.path);
  const size = e.type === 'file' ? (e.content?.length ?? 0) : 0;
  h.write(name, 0, 100, 'utf8');
  h.write(octal(e.mode & 0o7777, 8), 100, 'latin1');
  h.write(octal(e.uid, 8), 108, 'latin1');
  h.write(octal(e.gid, 8), 116, 'latin1');
  h.write(octal(size, 12), 124, 'latin1');
  h.write(octal(e.mtime ?? mtime, 12), 136, 'latin1');
  h.write('        ', 148, 'latin1'); // checksum counted as spaces
  h.write(e.type === 'dir' ? '5' : e.type === 'symlink' ? '2' : '0', 156, 'latin1');
  if (e.type === 'symlink') h.write(e.linkTarget ?? '', 157, 100, 'utf8');
  h.write('ustar\0', 257, 'latin1');
  h.write('00', 263, 'latin1');
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'latin1');
  return h;
}

/** mtime: seconds since the epoch for every entry (the time the files are written, as the kubelet's are). */
export function tarArchive(entries: readonly TarEntry[], mtime = Math.floor(Date.now() / 1000)): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    parts.push(header(e, mtime));
    if (e.type === 'file' && e.content && e.content.length > 0) {
      parts.push(e.content);
      const pad = (512 - (e.content.length % 512)) % 512;
      if (pad > 0) parts.push(Buffer.alloc(pad));
    }
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** An entry read from an archive: what tarArchive writes, or another kind of entry (kept out of a rewrite). */
export type ReadEntry = TarEntry | { path: string; type: 'other' };

/**
 * The entries of an archive as the engine's archive endpoint writes it (Go's archive/tar: ustar headers, PAX 'x'
 * records for long names and links, GNU 'L'/'K' long names): path, type, mode, owner, mtime, a file's content, a
 * link's target. Hard links, devices and fifos are 'other'. Pure.
 */
export function readTar(tar: Buffer): ReadEntry[] {
  const out: ReadEntry[] = [];
  let at = 0;
  let longName: string | undefined;
  let longLink: string | undefined;
  const field = (h: Buffer, from: number, len: number): string =>
    h
      .subarray(from, from + len)
      .toString('utf8')
      .replace(/\0.*$/s, '');
  const num = (h: Buffer, from: number, len: number): number => parseInt(field(h, from, len).trim() || '0', 8);
  while (at + 512 <= tar.length) {
    const h = tar.subarray(at, at + 512);
    if (h.every((b) => b === 0)) break;
    const size = num(h, 124, 12);
    const body = tar.subarray(at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
    const type = String.fromCharCode(h[156] ?? 0);
    if (type === 'x') {
      // PAX records: "<len> <key>=<value>\n".
      for (const rec of body.toString('utf8').split('\n')) {
        const m = /^\d+ ([^=]+)=(.*)$/s.exec(rec);
        if (m?.[1] === 'path') longName = m[2];
        else if (m?.[1] === 'linkpath') longLink = m[2];
      }
      continue;
    }
    if (type === 'L' || type === 'K') {
      const v = body.toString('utf8').replace(/\0.*$/s, '');
      if (type === 'L') longName = v;
      else longLink = v;
      continue;
    }
    const prefix = field(h, 345, 155);
    const path = (longName ?? (prefix !== '' ? `${prefix}/${field(h, 0, 100)}` : field(h, 0, 100))).replace(/\/+$/, '');
    const linkTarget = longLink ?? field(h, 157, 100);
    longName = undefined;
    longLink = undefined;
    const common = { path, mode: num(h, 100, 8), uid: num(h, 108, 8), gid: num(h, 116, 8), mtime: num(h, 136, 12) };
    if (type === '5') out.push({ ...common, type: 'dir' });
    else if (type === '0' || type === '\0') out.push({ ...common, type: 'file', content: Buffer.from(body) });
    else if (type === '2') out.push({ ...common, type: 'symlink', linkTarget });
    else out.push({ path, type: 'other' });
  }
  return out;
}
