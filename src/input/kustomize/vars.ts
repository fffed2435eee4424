// TEMPORARY (branch kcore only): the signature the kpatch branch implements; its real file replaces this one.
import { KustomizeError } from './errors.js';
import type { JsonObject, Origin, Resource } from './resource.js';

export function applyVars(resources: Resource[], vars: JsonObject[], origin: Origin): Resource[] {
  if (vars.length === 0) return resources;
  throw new KustomizeError(origin, 'vars', 'not implemented in this build (TEMPORARY stub until the patch transformers are merged)');
}
