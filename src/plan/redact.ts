// What a person or a script may see of a plan (--dry-run, -o json|yaml): the create options with every value that
// holds Secret data masked, and runtime markers shown readably. Secrets are never printed (README). Pure.
import type { CreateOptions } from '../engine/ports/containers.js';
import { showRuntime } from './runtime.js';
import type { ContainerPlan } from './types.js';
import type { PlannedVolume } from './volumes.js';

export const masked = '<secret>';

/** A container's create options, fit to print. */
export function printableCreate(c: Pick<ContainerPlan, 'create' | 'secrets'>): CreateOptions {
  const s = c.secrets;
  let create = c.create;
  if (s !== undefined) {
    const env = new Set(s.env);
    const maskList = (list: string | string[] | undefined, indexes: number[]): string | string[] | undefined =>
      Array.isArray(list) ? list.map((v, i) => (indexes.includes(i) ? masked : v)) : list;
    create = {
      ...create,
      ...(create.Env ? { Env: create.Env.map((e) => (env.has(e.slice(0, e.indexOf('='))) ? `${e.slice(0, e.indexOf('='))}=${masked}` : e)) } : {}),
      ...(create.Entrypoint !== undefined ? { Entrypoint: maskList(create.Entrypoint, s.command) } : {}),
      ...(create.Cmd !== undefined ? { Cmd: maskList(create.Cmd, s.args) as string[] } : {}),
    };
  }
  return showRuntime(create);
}

export interface PrintableVolume {
  name: string;
  type: PlannedVolume['type'];
  engineVolume?: string;
  hostPath?: string;
  hostPathType?: string;
  medium?: string;
  sizeBytes?: number;
  /** Files of a configMap, secret, downwardAPI or projected volume: path, mode (octal) and size; no content. */
  files?: { path: string; mode: string; bytes: number }[];
}

/** The pod's volumes, fit to print: file names and modes, never contents (a projected volume may mix in Secrets). */
export function printableVolumes(volumes: readonly PlannedVolume[]): PrintableVolume[] {
  return volumes.map((v) => {
    const base: PrintableVolume = { name: v.name, type: v.type };
    if (v.type === 'hostPath') return { ...base, hostPath: v.path, ...(v.hostPathType ? { hostPathType: v.hostPathType } : {}) };
    base.engineVolume = v.engineName;
    if (v.type === 'emptyDir') return { ...base, ...(v.medium ? { medium: v.medium } : {}), ...(v.sizeBytes !== undefined ? { sizeBytes: v.sizeBytes } : {}) };
    if (v.type === 'persistentVolumeClaim') return base;
    return { ...base, files: v.files.map((f) => ({ path: f.path, mode: `0${f.mode.toString(8)}`, bytes: Buffer.from(f.content, 'base64').length })) };
  });
}
