// The plan of one pod: what translate.ts makes of a Pod and what reconcile, wait and the agent act on. Types only.

import type { CreateOptions } from '../engine/ports/containers.js';
import type { EngineFacts } from '../engine/ports/facts.js';
import type { ContainerProbes } from '../kube/probes.js';
import type { ContainerRestart, RestartPolicy } from '../kube/restart.js';
import type { ServiceObject } from '../manifest/types.js';
import type { InitKind, LifecyclePlan, TerminationMessagePlan } from './lifecycle.js';
import type { ImageUserCheck, PodNamespaces } from './security.js';
import type { VolumeImage, SubPathNeed, PlannedVolume, TerminationLogVolume } from './volumes.js';
import type { EngineResources, ResizePolicy } from './resize.js';
import type { PodFiles } from './podFiles.js';

export type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';

/** --pull: overrides every container's imagePullPolicy. */
export type PullOverride = 'always' | 'missing' | 'never';

export interface ContainerPlan {
  /** The container's name in the pod; "POD" for the infra container. */
  name: string;
  image: string;
  pullPolicy: PullPolicy;
  /** Hex digest of everything that, when changed, replaces this container. */
  hash: string;
  /** Create options, less the per-instance parts (attempt label, infra reference): see instanceCreateOptions. */
  create: CreateOptions;
  /** runAsNonRoot / runAsGroup alone: checked against the image's user before each create (security.ts). */
  imageUserCheck?: ImageUserCheck;
  /** startup, readiness and liveness probes, with Kubernetes' defaults (run from the host by src/wait/probes). */
  probes?: ContainerProbes;
  /** init | sidecar for init containers; undefined for app containers (lifecycle.ts). */
  initKind?: InitKind;
  /** postStart and preStop handlers (run by src/reconcile/hooks.ts). */
  lifecycle?: LifecyclePlan;
  /** Where the failure report reads the container's termination message from. */
  terminationMessage?: TerminationMessagePlan;
  /** What in `create` holds Secret data, for every output to mask (redact.ts). */
  secrets?: SecretParts;
  /** Images of the image volumes it mounts: made present (by their pull policy) before each create (apply.ts). */
  volumeImages?: VolumeImage[];
  /** subPaths inside named volumes that apply must prepare (reconcile/volumes.ts). */
  subPaths?: SubPathNeed[];
  /** `create` holds runtime markers (runtime.ts) that apply resolves before the create. */
  runtime?: boolean;
  /** resources.requests (cpu, memory) for admission (admission.ts); zero when none; the infra container's are zero. */
  requests: Resources;
  /**
   * Which exits are followed by a restart (kube/restart.ts): the container's restartPolicy (else the pod's) and its
   * restartPolicyRules; an init container's is initContainerRestart's. The infra container's is Always.
   */
  restart: ContainerRestart;
  /** The cgroup settings its resources give (resize.ts), compared with what the engine reports. */
  resources: EngineResources;
  /**
   * Per resource, whether a change is applied in place (NotRequired: out of the hash, `docker update`) or replaces
   * the container (RestartContainer: in the hash). Init containers and the infra container: RestartContainer.
   */
  resize: ResizePolicy;
  /**
   * The hash with every resource in it, as runpod computed it before in-place resize: an instance made then that
   * carries it is as specified. Absent when it is the hash.
   */
  fullHash?: string;
}

/** Env variable names, and Entrypoint and Cmd indexes, whose values hold Secret data. */
export interface SecretParts {
  env: string[];
  command: number[];
  args: number[];
}

export interface PullSecretPlan {
  name: string;
  /** The Docker config JSON: {"auths": …} for .dockerconfigjson, the bare auths map for legacy .dockercfg. */
  config: string;
  legacy: boolean;
}

export interface PodPlan {
  /** namespace/name: a pod's identity. */
  key: string;
  namespace: string;
  name: string;
  uid: string;
  /** Hash of the pod-level fields that live on the infra container; when it changes the pod is replaced. */
  hash: string;
  restartPolicy: RestartPolicy;
  gracePeriodSeconds: number;
  /** Absolute file or directory the manifest came from; undefined for stdin. */
  source?: string;
  /** The isolation key the pod runs under (kube/project.ts); undefined for none. */
  project?: string;
  /** The workload whose pod this is (deployment/web); undefined for a bare Pod. */
  owner?: string;
  /** Every container port the pod declares, for the addresses handed to scripts (RUNPOD_* variables). */
  ports: PortPlan[];
  infra: ContainerPlan;
  /** spec.initContainers in order: run one at a time, each to exit 0 (sidecars: to started), before containers. */
  initContainers: ContainerPlan[];
  containers: ContainerPlan[];
  /** The pod's effective resource requests, what admission weighs (admission.ts). */
  requests: Resources;
  /** hostNetwork, hostPID / shareProcessNamespace, hostIPC: how app containers join the infra container. */
  namespaces: PodNamespaces;
  /** spec.volumes as the engine holds them (volumes.ts); made real by reconcile/volumes.ts. */
  volumes: PlannedVolume[];
  /** runpod's volume for the containers' termination-message files (volumes.ts), created when first needed. */
  terminationLog: TerminationLogVolume;
  /** The service account's namespace file and a dnsPolicy None resolv.conf, bound into each instance (podFiles.ts). */
  podFiles: PodFiles;
  /**
   * Registry credentials from spec.imagePullSecrets, in order: each Secret's Docker config (JSON). Credentials,
   * not spec: no hash covers them and no plan output prints them.
   */
  pullSecrets: PullSecretPlan[];
}

export interface PlanOptions {
  infraImage: string;
  pull?: PullOverride;
  /** --publish-all: publish every container port without a hostPort on a host port the engine chooses. */
  publishAll?: boolean;
  /** The isolation key (kube/project.ts): part of the pod's uid, engine names and labels. */
  project?: string;
  /**
   * What the engine can do (engine/ports/facts.ts), asked once per command; engineSupport.ts has refused what it cannot.
   * undefined (a dry run with no engine answering): options that depend on the engine's version are left out.
   */
  engine?: EngineFacts;
  /** Localhost seccomp profiles by localhostProfile: their JSON, read by the command (manifest/seccompProfiles.ts). */
  seccompProfiles?: ReadonlyMap<string, string>;
  /** The Services the pods may be behind or look up (services/): their DNS names and environment variables. */
  cluster?: ClusterPlan;
}

export interface ClusterPlan {
  /** Every Service known for the pods' namespaces: the input's, and those a run before made. */
  services: readonly ServiceObject[];
  /** namespace/name → the address of the Service's container (its cluster IP on one host); absent in a dry run. */
  hosts: ReadonlyMap<string, string>;
}

export interface PortPlan {
  container: string;
  name?: string;
  containerPort: number;
  protocol: 'TCP' | 'UDP' | 'SCTP';
  hostPort?: number;
  hostIP?: string;
}

export interface Resources {
  milliCpu: number;
  memoryBytes: number;
}
