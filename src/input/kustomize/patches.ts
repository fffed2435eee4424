// TEMPORARY (branch kcore only): the signature the kpatch branch implements; its real file replaces this one.
import { KustomizeError } from './errors.js';
import type { JsonObject, JsonValue, Origin, Resource } from './resource.js';

export interface PatchTarget {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  labelSelector?: string;
  annotationSelector?: string;
}

export interface PatchEntry {
  patch: JsonObject | JsonValue[];
  kind: 'strategicMerge' | 'json6902';
  target?: PatchTarget;
  options?: PatchOptions;
  origin: Origin;
  field?: string;
}

export interface PatchOptions {
  allowNameChange?: boolean;
  allowKindChange?: boolean;
}

export function applyPatches(resources: Resource[], patches: PatchEntry[]): Resource[] {
  if (patches.length === 0) return resources;
  throw new KustomizeError(patches[0]!.origin, 'patches', 'not implemented in this build (TEMPORARY stub until the patch transformers are merged)');
}
