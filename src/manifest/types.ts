import type { Pod } from 'kubernetes-types/core/v1.js';

/** Where a document came from: a file path (as given), or "-" for stdin. */
export interface ManifestSource {
  /** The name used in messages: the path as the user gave it (or joined with the directory), "<stdin>" for stdin. */
  file: string;
  /** Absolute path of the file or of the directory it was found in; undefined for stdin. */
  origin?: string;
}

/** A validated, defaulted Pod ready for the plan step. */
export interface LoadedPod {
  /** The Pod with Kubernetes defaults applied (restartPolicy, imagePullPolicy, protocol, grace period, namespace). */
  pod: Pod & { metadata: NonNullable<Pod['metadata']> & { name: string; namespace: string }; spec: NonNullable<Pod['spec']> };
  source: ManifestSource;
  /** 1-based line of the document's start in its file. */
  line: number;
}

/** A one-line warning: an accepted field that means nothing on one host (scheduling fields). */
export interface ManifestWarning {
  file: string;
  line?: number;
  path: string;
  message: string;
}

export interface LoadOptions {
  /** Namespace for pods whose manifest names none (-n); default "default". */
  defaultNamespace: string;
}

export interface LoadResult {
  pods: LoadedPod[];
  warnings: ManifestWarning[];
}
