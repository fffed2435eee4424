// fsGroup on a claim's volume, as the kubelet's SetVolumeOwnership does it (pkg/volume/volume_linux.go), pure: every
// file and directory gets the fsGroup as its group, read-write for the group (read-only for a read-only mount),
// directories also group-searchable and setgid so what is made in them stays the group's; symlinks get only the
// group. fsGroupChangePolicy OnRootMismatch skips the walk when the volume's root has that group, setgid and the
// group's permissions already; Always (the default) walks every time.
import type { ReadEntry, TarEntry } from './tar.js';

export type ChangePolicy = 'Always' | 'OnRootMismatch';

const rwMask = 0o660;
const roMask = 0o440;
const execMask = 0o110;
const setgid = 0o2000;

/** A file's or directory's mode once owned: the mask OR'd in, as changeFilePermission does. */
export function ownedMode(type: 'file' | 'dir', mode: number, readOnly: boolean): number {
  const mask = (readOnly ? roMask : rwMask) | (type === 'dir' ? setgid | execMask : 0);
  return (mode & 0o7777) | mask;
}

/** OnRootMismatch's check (requiresPermissionChange): the root has the group, setgid and the group's bits. */
export function rootOwned(root: Pick<TarEntry, 'gid' | 'mode'>, gid: number, readOnly: boolean): boolean {
  if (root.gid !== gid) return false;
  if ((root.mode & setgid) === 0) return false;
  const want = (readOnly ? roMask : rwMask) | execMask;
  return (root.mode & want) === want;
}

/** The entries to write back so the volume is owned (dirs, files with their content, symlinks); others are left. */
export function ownershipRewrite(entries: readonly ReadEntry[], gid: number, readOnly: boolean): TarEntry[] {
  return entries.flatMap((e): TarEntry[] => {
    if (e.type === 'other') return [];
    if (e.type === 'symlink') return [{ ...e, gid }];
    return [{ ...e, gid, mode: ownedMode(e.type, e.mode, readOnly) }];
  });
}
