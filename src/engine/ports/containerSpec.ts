// A container as the Engine API describes it, in its own field names (POST /containers/create and
// GET /containers/{id}/json, https://docs.docker.com/reference/api/engine/): runpod's narrowed copy of the shapes,
// holding the fields runpod sets or reads and nothing else, so no adapter's types reach the floors above.

/** One mount (HostConfig.Mounts): a bind, a named volume, a tmpfs or an image. */
export interface Mount {
  Target: string;
  Source: string;
  Type: 'bind' | 'volume' | 'tmpfs' | 'image';
  ReadOnly?: boolean;
  BindOptions?: {
    Propagation?: 'private' | 'rprivate' | 'shared' | 'rshared' | 'slave' | 'rslave';
    /** Engine API 1.44: a read-only bind whose submounts stay writable. */
    ReadOnlyNonRecursive?: boolean;
    /** Engine API 1.44: fail rather than fall back when the kernel cannot make every submount read-only. */
    ReadOnlyForceRecursive?: boolean;
  };
  VolumeOptions?: { NoCopy?: boolean; Labels?: Record<string, string>; DriverConfig?: { Name: string; Options: Record<string, string> }; Subpath?: string };
  TmpfsOptions?: { SizeBytes?: number; Mode?: number };
  ImageOptions?: { Subpath?: string };
}

/** One host binding of a published port (HostConfig.PortBindings, NetworkSettings.Ports). */
export interface PortBinding {
  HostIp?: string;
  HostPort?: string;
}

/** Published ports by "port/protocol". */
export type PortMap = Record<string, PortBinding[]>;

export interface RestartPolicy {
  Name: string;
  MaximumRetryCount?: number;
}

/** A Docker HEALTHCHECK (Config.Healthcheck); durations in nanoseconds. */
export interface HealthConfig {
  Test?: string[];
  Interval?: number;
  Timeout?: number;
  StartPeriod?: number;
  StartInterval?: number;
  Retries?: number;
}

/** How the container is run on the host: namespaces, mounts, limits, security. */
export interface HostConfig {
  Binds?: string[];
  Mounts?: Mount[];
  NetworkMode?: string;
  PortBindings?: PortMap;
  PublishAllPorts?: boolean;
  RestartPolicy?: RestartPolicy;
  AutoRemove?: boolean;
  CapAdd?: string[];
  CapDrop?: string[];
  Dns?: string[];
  DnsOptions?: string[];
  DnsSearch?: string[];
  ExtraHosts?: string[];
  GroupAdd?: string[];
  IpcMode?: string;
  PidMode?: string;
  UTSMode?: string;
  CgroupnsMode?: string;
  Privileged?: boolean;
  ReadonlyRootfs?: boolean;
  SecurityOpt?: string[];
  MaskedPaths?: string[];
  ReadonlyPaths?: string[];
  Tmpfs?: Record<string, string>;
  Sysctls?: Record<string, string>;
  ShmSize?: number;
  Init?: boolean;
  OomScoreAdj?: number;
  CpuShares?: number;
  CpuPeriod?: number;
  CpuQuota?: number;
  Memory?: number;
  MemoryReservation?: number;
  MemorySwap?: number;
  PidsLimit?: number;
}

/** A network endpoint (NetworkingConfig.EndpointsConfig at create, NetworkSettings.Networks at inspect). */
export interface EndpointSettings {
  Aliases?: string[] | null;
  NetworkID?: string;
  EndpointID?: string;
  Gateway?: string;
  IPAddress?: string;
  IPPrefixLen?: number;
  MacAddress?: string;
}

/** The body of POST /containers/create. */
export interface CreateOptions {
  Hostname?: string;
  Domainname?: string;
  User?: string;
  AttachStdin?: boolean;
  AttachStdout?: boolean;
  AttachStderr?: boolean;
  Tty?: boolean;
  OpenStdin?: boolean;
  StdinOnce?: boolean;
  Env?: string[];
  Cmd?: string[];
  Entrypoint?: string | string[];
  Image?: string;
  Labels?: Record<string, string>;
  Volumes?: Record<string, object>;
  WorkingDir?: string;
  NetworkDisabled?: boolean;
  ExposedPorts?: Record<string, object>;
  StopSignal?: string;
  StopTimeout?: number;
  Healthcheck?: HealthConfig;
  HostConfig?: HostConfig;
  NetworkingConfig?: { EndpointsConfig?: Record<string, EndpointSettings> };
}

/** A container's state as the engine keeps it (daemon/container/state.go). */
export interface ContainerState {
  /** created | running | paused | restarting | removing | exited | dead */
  Status: string;
  Running: boolean;
  Paused: boolean;
  Restarting: boolean;
  OOMKilled: boolean;
  Dead: boolean;
  Pid: number;
  ExitCode: number;
  Error: string;
  /** RFC 3339; "0001-01-01T00:00:00Z" before the first start. */
  StartedAt: string;
  FinishedAt: string;
  Health?: { Status: string; FailingStreak: number; Log: Array<{ Start: string; End: string; ExitCode: number; Output: string }> };
}

/** A mount as inspect reports it. */
export interface MountPoint {
  Type: string;
  Name?: string;
  Source: string;
  Destination: string;
  Driver?: string;
  Mode: string;
  RW: boolean;
  Propagation: string;
}

/** GET /containers/{id}/json, the fields runpod reads. */
export interface ContainerInspect {
  Id: string;
  /** "/" followed by the container's name. */
  Name: string;
  /** RFC 3339. */
  Created: string;
  /** The image's id. */
  Image: string;
  RestartCount: number;
  State: ContainerState;
  Config: {
    Hostname: string;
    User: string;
    Tty: boolean;
    OpenStdin: boolean;
    Env: string[];
    Cmd: string[];
    Image: string;
    WorkingDir: string;
    Entrypoint?: string | string[];
    Labels: Record<string, string>;
    Healthcheck?: HealthConfig;
  };
  HostConfig: HostConfig;
  Mounts: MountPoint[];
  NetworkSettings: {
    Ports: Record<string, PortBinding[] | null>;
    Networks: Record<string, EndpointSettings>;
  };
  /** The storage driver's data: UpperDir is the container's writable layer on the engine host (overlay2). */
  GraphDriver?: { Name: string; Data: Record<string, string> };
}
