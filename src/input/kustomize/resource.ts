// The value kustomize's rendering works on: one object of the input, where it came from, and the ids it had
// before a transformer renamed it (kustomize keeps them, resource.go's OrgId and previous ids, so that a patch or
// a name reference written against an earlier name still finds the object). Shared by the rendering pipeline
// and its transformers (patches, replacements, vars); pure values, no I/O.

/** A JSON value as YAML decodes it for a Kubernetes object (no dates, no binary: those are strings). */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** Where an object or a kustomization field was written: the problems a user reads point here. */
export interface Origin {
  file: string;
  /** 1-based line, when known. */
  line?: number;
}

/** Group, version, kind, name and namespace: how kustomize identifies an object (resid.ResId). */
export interface ResId {
  /** '' for the core group. */
  group: string;
  version: string;
  kind: string;
  name: string;
  /** undefined for an object with no namespace written (kustomize's default namespace). */
  namespace?: string;
}

export interface Resource {
  object: JsonObject;
  origin: Origin;
  /** The ids this object had before each rename, oldest first (empty while it was never renamed). */
  previousIds: ResId[];
}
