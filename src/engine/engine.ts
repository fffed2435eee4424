// The engine seen by the rest of runpod: a small interface, so the reconcile and wait layers never import
// dockerode. Its one implementation (docker.ts) talks to a real Docker engine.
import type { ContainerCreateOptions, ContainerInspectInfo } from 'dockerode';

export type CreateOptions = ContainerCreateOptions;
export type ContainerInspect = ContainerInspectInfo;

export interface EngineInfo {
  version: string;
  apiVersion: string;
  /** Engine architecture in Go terms: amd64, arm64 … */
  arch: string;
  os: string;
}

export interface ContainerSummary {
  id: string;
  name: string;
  labels: Record<string, string>;
  /** created | running | paused | restarting | removing | exited | dead */
  state: string;
  /** Seconds since the epoch. */
  created: number;
}

export interface ImageSummary {
  id: string;
  /** Go architecture of the image, when the engine says. */
  architecture?: string;
}

/** Registry credentials in the Engine API's X-Registry-Auth form. */
export interface RegistryAuth {
  username?: string;
  password?: string;
  auth?: string;
  identitytoken?: string;
  serveraddress: string;
}

export interface PullProgress {
  id?: string;
  status: string;
  current?: number;
  total?: number;
}

export interface EngineEvent {
  /** container, image, network … */
  type: string;
  /** start, die, destroy, health_status … */
  action: string;
  id: string;
  labels: Record<string, string>;
  /** Nanoseconds since the epoch. */
  timeNano: number;
}

export interface EventSubscription {
  close(): void;
}

export interface LogsOptions {
  tail?: number;
  timestamps?: boolean;
}

export interface Engine {
  /** The address in use, for messages: unix:///var/run/docker.sock, tcp://host:2376 … */
  readonly address: string;
  ping(): Promise<EngineInfo>;
  /** Containers (running or not) carrying every given label ("key" or "key=value"). */
  listContainers(labels: string[]): Promise<ContainerSummary[]>;
  /** undefined when no such container exists. */
  inspectContainer(id: string): Promise<ContainerInspect | undefined>;
  /** Throws NameConflictError when a container of that name exists. */
  createContainer(name: string, options: CreateOptions): Promise<string>;
  startContainer(id: string): Promise<void>;
  /** Stop with the container's stop signal, then SIGKILL after timeoutSeconds (0: SIGKILL at once). */
  stopContainer(id: string, timeoutSeconds: number): Promise<void>;
  removeContainer(id: string, options?: { force?: boolean }): Promise<void>;
  /** Change a container's restart policy (a dead instance kept for `logs --previous` gets "no"). */
  updateRestartPolicy(id: string, name: 'no' | 'always' | 'on-failure' | 'unless-stopped'): Promise<void>;
  inspectImage(ref: string): Promise<ImageSummary | undefined>;
  pullImage(ref: string, auth: RegistryAuth | undefined, onProgress?: (p: PullProgress) => void): Promise<void>;
  /** POST /images/create?fromSrc=- : an image from a root filesystem tarball. */
  importImage(tar: Buffer, ref: string, changes: string[]): Promise<void>;
  /** Last log lines, stdout and stderr interleaved, as text. */
  logs(id: string, options: LogsOptions): Promise<string>;
  /** Container events for containers carrying every given label. */
  subscribeEvents(labels: string[], onEvent: (e: EngineEvent) => void, onError: (err: Error) => void): Promise<EventSubscription>;
}

/** The engine answered 409: a container of that name exists (another runpod got there first). */
export class NameConflictError extends Error {
  override name = 'NameConflictError';
  constructor(readonly containerName: string) {
    super(`a container named ${containerName} already exists`);
  }
}

/**
 * The engine refused a request about one container or image (bad mount, port taken, missing image …).
 * That is the pod's failure (exit 1), not the engine's (exit 3).
 */
export class EngineRequestError extends Error {
  override name = 'EngineRequestError';
  constructor(
    message: string,
    readonly statusCode: number | undefined,
  ) {
    super(message);
  }
}
