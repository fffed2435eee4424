// The containers port: create, start, stop, inspect and remove the containers a pod runs as, and reach into their
// filesystems (the termination message, a volume's seed, a kept instance's files).
import type { ContainerInspect, CreateOptions } from './containerSpec.js';

export type { ContainerInspect, CreateOptions } from './containerSpec.js';

/** The body of one update: only what changes, in the Engine API's names. */
export interface ResourceUpdate {
  Memory?: number;
  MemorySwap?: number;
  MemoryReservation?: number;
  CpuPeriod?: number;
  CpuQuota?: number;
  CpuShares?: number;
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

export interface PathStat {
  name: string;
  size: number;
  /** Go's os.FileMode bits as the engine reports them (type bits high, permissions low). */
  mode: number;
  /** Non-empty for a symlink. */
  linkTarget: string;
}

/** Finding containers by label and reading their state. */
export interface ContainerReader {
  /** Containers (running or not) carrying every given label ("key" or "key=value"). */
  listContainers(labels: string[]): Promise<ContainerSummary[]>;
  /** undefined when no such container exists. */
  inspectContainer(id: string): Promise<ContainerInspect | undefined>;
}

/** A container's life: create, start, stop, restart, change and remove. */
export interface ContainerLifecycle {
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
  /** Block until the container stops; its exit code (POST /containers/{id}/wait). */
  waitContainer(id: string): Promise<number>;
  /**
   * End a container's main process as a crash would (the kill after a failed liveness probe), so the engine's
   * own restart policy restarts the same instance and counts it in RestartCount. "stopped" when that is not
   * possible from here (a remote engine): the container was stopped through the API instead.
   */
  killForRestart(id: string, gracePeriodSeconds: number): Promise<'signalled' | 'stopped'>;
}

/** A container's filesystem, running or not (GET/PUT/HEAD /containers/{id}/archive). */
export interface ContainerFiles {
  /**
   * A regular file from a container's filesystem, running or not: the termination message of a dead container. At
   * most maxBytes are kept; undefined when there is no such file (or it is not a regular file) or no such container.
   */
  readContainerFile(id: string, path: string, maxBytes: number): Promise<Buffer | undefined>;
  /** Extract a tar into a (created, not necessarily started) container at path. */
  putArchive(id: string, path: string, tar: Buffer): Promise<void>;
  /**
   * What is at path (a directory with everything in it) as a tar, at most maxBytes of it (complete false when there
   * was more); undefined when there is no such path or container.
   */
  readArchive(id: string, path: string, maxBytes: number): Promise<{ tar: Buffer; complete: boolean } | undefined>;
  /** What is at path inside the container (not following a final symlink). */
  statPath(id: string, path: string): Promise<PathStat | undefined>;
}

export interface ContainerPort extends ContainerReader, ContainerLifecycle, ContainerFiles {}
