// An in-memory file tree for the kustomize rendering (its I/O is passed in): paths under root, text contents.
import path from 'node:path';
import type { KustomizeIo } from '../../../src/input/kustomize/render.js';

export function memoryIo(root: string, files: Record<string, string | Uint8Array>): KustomizeIo {
  const byPath = new Map<string, Uint8Array>();
  const dirs = new Set<string>([path.resolve(root)]);
  for (const [rel, content] of Object.entries(files)) {
    const full = path.resolve(root, rel);
    byPath.set(full, typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
    for (let d = path.dirname(full); !dirs.has(d); d = path.dirname(d)) dirs.add(d);
  }
  return {
    readFile: (file) => {
      const b = byPath.get(path.resolve(file));
      if (b === undefined) throw Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' });
      return b;
    },
    readDir: (dir) => [...byPath.keys(), ...dirs].filter((p) => path.dirname(p) === path.resolve(dir)).map((p) => path.basename(p)),
    stat: (file) => {
      const full = path.resolve(file);
      if (byPath.has(full)) return { isDirectory: false, isFile: true };
      if (dirs.has(full)) return { isDirectory: true, isFile: false };
      return undefined;
    },
  };
}
