// The engine seen by the rest of runpod: a small interface, so the reconcile and wait layers never import
// dockerode. Its one implementation (docker.ts) talks to a real Docker engine.
import type { ContainerCreateOptions, ContainerInspectInfo } from 'dockerode';
import type { EngineFacts } from './facts.js';

export type CreateOptions = ContainerCreateOptions;
export type ContainerInspect = ContainerInspectInfo;

/** The body of one update: only what changes, in the Engine API's names. */
export interface ResourceUpdate {
  Memory?: number;
  MemorySwap?: number;
  MemoryReservation?: number;
  CpuPeriod?: number;
  CpuQuota?: number;
  CpuShares?: number;
}

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
  /** The image's configured user (Config.User: "", "name", "uid", "uid:gid" …), for runAsNonRoot. */
  user?: string;
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

/** Which of a container's streams a chunk of output came from. */
export type OutputStream = 'stdout' | 'stderr';

export interface LogStreamOptions {
  /** Keep the stream open for new output until the container stops. */
  follow: boolean;
  tail?: number;
  /** Only output after this time (seconds since the epoch, fractions allowed). */
  since?: number;
  timestamps?: boolean;
  /** Aborting ends the stream early (Ctrl-C on `logs -f`). */
  signal?: AbortSignal;
}

export interface ExecOptions {
  cmd: string[];
  /** Allocate a terminal: output arrives raw on stdout, not framed per stream. */
  tty: boolean;
  /** Attach the caller's stdin (docker exec -i). */
  stdin?: NodeJS.ReadableStream;
  /** Terminal size for tty, and a way to hear about later resizes. */
  size?: { rows: number; columns: number };
  onOutput(stream: OutputStream, chunk: Buffer): void;
  /** Called once the command runs: a failure before this is runpod's (exit 125), after it the command's. */
  onStarted?(resize: (size: { rows: number; columns: number }) => void): void;
  /**
   * Aborting closes the connection (the reader of runpod's output went away, or a signal): the command's streams
   * close with it, as when the docker client dies, and no exit code is awaited.
   */
  signal?: AbortSignal;
}

/** The engine's statistics for one container, the fields `runpod stats` reads (GET /containers/{id}/stats). */
export interface ContainerStats {
  read: string;
  cpu: { total: number; system?: number; onlineCpus?: number; perCpu?: number };
  precpu: { total: number; system?: number };
  /** inactiveFile: reclaimable page cache, which `docker stats` leaves out of the usage it shows. */
  memory: { usage?: number; limit?: number; inactiveFile?: number };
  /** Per interface; absent for a container that joined another's network namespace. */
  networks?: Record<string, { rxBytes: number; txBytes: number }>;
  blkio: { op: string; value: number }[];
  pids?: number;
}

export interface ExecCaptureResult {
  /** undefined when the command timed out. */
  exitCode?: number;
  /** stdout and stderr interleaved. */
  output: string;
  timedOut: boolean;
}

export interface VolumeSummary {
  name: string;
  labels: Record<string, string>;
  /** RFC 3339, when the engine says. */
  createdAt?: string;
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
  /**
   * Change a container's cgroup limits in place (POST /containers/{id}/update: `docker update`), running or not; a
   * field left out is unchanged (Docker also leaves a zero unchanged).
   */
  updateResources(id: string, update: ResourceUpdate): Promise<void>;
  inspectImage(ref: string): Promise<ImageSummary | undefined>;
  pullImage(ref: string, auth: RegistryAuth | undefined, onProgress?: (p: PullProgress) => void): Promise<void>;
  /** POST /images/create?fromSrc=- : an image from a root filesystem tarball. */
  importImage(tar: Buffer, ref: string, changes: string[]): Promise<void>;
  /** Last log lines, stdout and stderr interleaved, as text. */
  logs(id: string, options: LogsOptions): Promise<string>;
  /** Container events for containers carrying every given label. */
  subscribeEvents(labels: string[], onEvent: (e: EngineEvent) => void, onError: (err: Error) => void): Promise<EventSubscription>;
  /**
   * Logs as they are written, each chunk to its own stream (frames demultiplexed; a TTY container's output all
   * goes to stdout). Resolves when the stream ends: at once without follow, when the container stops with it.
   */
  streamLogs(id: string, options: LogStreamOptions, onOutput: (stream: OutputStream, chunk: Buffer) => void): Promise<void>;
  /** Run a command in a running container, attached; resolves with its exit code. */
  /** The command's exit code; undefined when options.signal ended the session first. */
  execAttached(id: string, options: ExecOptions): Promise<number | undefined>;
  /** One sample of a container's statistics (with the previous CPU reading); undefined when it is gone. */
  containerStats(id: string): Promise<ContainerStats | undefined>;
  /** Volumes carrying every given label ("key" or "key=value"). */
  listVolumes(labels: string[]): Promise<VolumeSummary[]>;
  /** Remove a volume; a volume that is already gone is not an error. */
  removeVolume(name: string): Promise<void>;
  /**
   * Run a command in a running container and collect its output (an exec probe). Past timeoutMs the result is
   * timedOut and the command is abandoned: the Engine API has no way to kill an exec (design.md).
   */
  execCapture(id: string, cmd: string[], timeoutMs: number): Promise<ExecCaptureResult>;
  /**
   * End a container's main process as a crash would (the kill after a failed liveness probe), so the engine's
   * own restart policy restarts the same instance and counts it in RestartCount. "stopped" when that is not
   * possible from here (a remote engine): the container was stopped through the API instead.
   */
  killForRestart(id: string, gracePeriodSeconds: number): Promise<'signalled' | 'stopped'>;
  /**
   * A regular file from a container's filesystem, running or not (GET /containers/{id}/archive): the termination
   * message of a dead container. At most maxBytes are kept; undefined when there is no such file (or it is not a
   * regular file) or no such container.
   */
  readContainerFile(id: string, path: string, maxBytes: number): Promise<Buffer | undefined>;
  /** True when the engine runs on this machine (a unix socket): host paths mean the same to both. */
  readonly isLocal: boolean;
  /** Create a named volume (local driver); an existing one of that name is returned as it is. */
  createVolume(name: string, options: VolumeCreate): Promise<VolumeInfo>;
  /** undefined when no such volume exists. */
  inspectVolume(name: string): Promise<VolumeInfo | undefined>;
  /** PUT /containers/{id}/archive: extract a tar into a (created, not necessarily started) container at path. */
  putArchive(id: string, path: string, tar: Buffer): Promise<void>;
  /**
   * GET /containers/{id}/archive: what is at path (a directory with everything in it) as a tar, at most maxBytes of
   * it (complete false when there was more); undefined when there is no such path or container.
   */
  readArchive(id: string, path: string, maxBytes: number): Promise<{ tar: Buffer; complete: boolean } | undefined>;
  /** HEAD /containers/{id}/archive: what is at path inside the container (not following a final symlink). */
  statPath(id: string, path: string): Promise<PathStat | undefined>;
  /** The engine host's name and capacity (GET /info): spec.nodeName and a node's allocatable. */
  hostInfo(): Promise<HostInfo>;
  /** Networks carrying every given label, with the containers attached to each. */
  listNetworks(labels: string[]): Promise<NetworkInfo[]>;
  /** undefined when no such network exists. */
  inspectNetwork(idOrName: string): Promise<NetworkInfo | undefined>;
  /** A bridge network; throws NameConflictError when one of that name exists. Resolves with its id. */
  createNetwork(name: string, options: { labels: Record<string, string> }): Promise<string>;
  /** A network that is already gone is not an error. */
  removeNetwork(id: string): Promise<void>;
  /** Attach a container with these DNS aliases; already attached is not an error. */
  connectNetwork(network: string, container: string, aliases: readonly string[]): Promise<void>;
  /** Detach a container; one that is not attached (or gone) is not an error. */
  disconnectNetwork(network: string, container: string): Promise<void>;
  /** Block until the container stops; its exit code (POST /containers/{id}/wait). */
  waitContainer(id: string): Promise<number>;
  /**
   * What the engine can do (GET /version and GET /info, facts.ts), asked once per engine object: a command opens
   * its engine once, so the plan step sees one answer however many pods it plans.
   */
  facts(): Promise<EngineFacts>;
}

export interface NetworkInfo {
  id: string;
  name: string;
  labels: Record<string, string>;
  /** RFC 3339, when the engine says. */
  created?: string;
  /** Attached containers by id: name and IPv4 address (without the prefix length). */
  containers: Record<string, { name: string; ipv4: string }>;
}

export interface VolumeCreate {
  labels: Record<string, string>;
  /** Local driver options: type, device, o (a tmpfs volume). */
  driverOpts?: Record<string, string>;
}

export interface VolumeInfo {
  name: string;
  /** The volume's directory on the engine host. */
  mountpoint: string;
  labels: Record<string, string>;
  driver: string;
  options: Record<string, string>;
}

export interface PathStat {
  name: string;
  size: number;
  /** Go's os.FileMode bits as the engine reports them (type bits high, permissions low). */
  mode: number;
  /** Non-empty for a symlink. */
  linkTarget: string;
}

export interface HostInfo {
  name: string;
  cpus: number;
  memoryBytes: number;
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
