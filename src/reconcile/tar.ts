// A minimal ustar writer (POSIX.1-1988): directories and regular files with mode, owner and group, enough to
// hand rendered volume files to the engine's archive endpoint. Pure.

export interface TarEntry {
  /** Relative path; a directory's without a trailing slash. */
  path: string;
  type: 'file' | 'dir';
  mode: number;
  uid: number;
  gid: number;
  content?: Buffer;
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
  h.write(octal(mtime, 12), 136, 'latin1');
  h.write('        ', 148, 'latin1'); // checksum counted as spaces
  h.write(e.type === 'dir' ? '5' : '0', 156, 'latin1');
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
