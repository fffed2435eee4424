import type { WorkloadPlan } from '../workloads/expand.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { BoundVolume, VolumeObject } from './volumeBinding.js';

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
  /**
   * Where a field of this pod is in its manifest, for problems found after loading (an engine that cannot do what
   * a field asks: plan/engineSupport.ts). The path is from the Pod (["spec", "containers", 0, …]); a workload's pod
   * points into its template.
   */
  locate?: (path: readonly (string | number)[]) => { file: string; line?: number; path: string };
  /**
   * The ConfigMaps and Secrets of the input that this pod refers to (keyed by configKey), for the plan step.
   * A reference missing here was optional.
   */
  configs?: ReadonlyMap<string, ConfigObject>;
  /** The workload whose pod this is (kubectl's kind/name, e.g. deployment/web); none for a bare Pod. */
  owner?: string;
  /** A StatefulSet's pod whose claims go when the StatefulSet does (persistentVolumeClaimRetentionPolicy.whenDeleted). */
  claimsGoWithOwner?: boolean;
  /** A Job's pod: its ttlSecondsAfterFinished when > 0 (labelled, for runpod gc). */
  jobTtlSeconds?: number;
  /** The claims of this pod bound to a PersistentVolume of the input (by claim name): mounted from the host. */
  boundClaims?: ReadonlyMap<string, BoundVolume>;
}

/**
 * A ConfigMap or Secret from the input, its values normalized: `strings` holds what env may read (a ConfigMap's
 * data; a Secret's data decoded as text, with stringData merged over it), `files` every key's bytes as base64
 * (a ConfigMap's data and binaryData; a Secret's data and stringData), as a volume renders them.
 */
export interface ConfigObject {
  kind: 'ConfigMap' | 'Secret';
  namespace: string;
  name: string;
  strings: Readonly<Record<string, string>>;
  files: Readonly<Record<string, string>>;
}

/** The key under which LoadedPod.configs holds an object: "ConfigMap/name" or "Secret/name". */
export function configKey(kind: 'ConfigMap' | 'Secret', name: string): string {
  return `${kind}/${name}`;
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
  /**
   * Check that every ConfigMap and Secret a pod needs is in the input (default true). Off for a caller that
   * needs the pods but not their configuration (`runpod down` and `status` go further: manifest/podNames.ts).
   */
  checkReferences?: boolean;
  /** --skip-kind: kinds to skip on purpose, with a warning each (manifest/kinds.ts). */
  skipKinds?: readonly string[];
  /** --from-cronjob: CronJobs (by name) whose job template runs once, as the Job <name>-manual. */
  fromCronJobs?: readonly string[];
}

/** An object of the input runpod does not run, on purpose (manifest/kinds.ts), each also a warning. */
export interface SkippedObject {
  file: string;
  line: number;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name?: string;
  why: string;
}

export interface LoadResult {
  pods: LoadedPod[];
  warnings: ManifestWarning[];
  /** What was skipped, in input order (also among the warnings). */
  skipped: SkippedObject[];
  /** The workloads of the input (their pods are among pods, each with its owner). */
  workloads: WorkloadPlan[];
  /** The input's PersistentVolumeClaims: each a named engine volume made by the run, or bound to a PersistentVolume. */
  claims: ClaimObject[];
  /** The input's PersistentVolumes (manifest/volumeBinding.ts). */
  volumes?: VolumeObject[];
  /** The input's Services, validated and defaulted, in input order (namespace/name unique). */
  services: ServiceObject[];
  /** One line each about how an input was read (a directory rendered as a kustomization). */
  notes?: string[];
}

export interface ClaimObject {
  namespace: string;
  name: string;
  file: string;
  line: number;
  /** The PersistentVolume of the input it is bound to (then it has no engine volume). */
  boundTo?: BoundVolume;
}

/** One port of a Service (spec.ports[]), defaulted: protocol TCP, targetPort = port. */
export interface ServicePortSpec {
  /** Required when the Service has more than one port (a DNS-1123 label). */
  name?: string;
  protocol: 'TCP' | 'UDP';
  port: number;
  /** A number, or the name of a container port of the endpoint pods (resolved per pod, as kube-proxy does). */
  targetPort: number | string;
  /** NodePort and LoadBalancer only: the host port to publish on (else the engine chooses one). */
  nodePort?: number;
}

/** A validated, defaulted v1 Service of the input (services/ runs it). */
export interface ServiceObject {
  namespace: string;
  name: string;
  file: string;
  line: number;
  type: 'ClusterIP' | 'NodePort' | 'LoadBalancer';
  /** clusterIP: None: the name gives the endpoint pods' own addresses, no forwarding. */
  headless: boolean;
  /** undefined: a Service without a selector (no endpoints runpod could find). */
  selector?: Readonly<Record<string, string>>;
  ports: readonly ServicePortSpec[];
  publishNotReadyAddresses: boolean;
  sessionAffinity: 'None' | 'ClientIP';
  /** sessionAffinityConfig.clientIP.timeoutSeconds (ClientIP only; default 10800). */
  affinityTimeoutSeconds?: number;
}

/** The kinds that run pods through a controller, and the claims they (and pods) mount. */
export type WorkloadKind = 'Deployment' | 'ReplicaSet' | 'ReplicationController' | 'StatefulSet' | 'DaemonSet' | 'Job' | 'PersistentVolumeClaim' | 'PersistentVolume';
