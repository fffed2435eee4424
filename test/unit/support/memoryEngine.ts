// MemoryEngine: an in-memory Engine that answers as Docker Engine 20.10 does (through DockerEngine, docker.ts),
// so the observe → decide → apply loop can be unit-tested, with the races it must survive reproduced on purpose:
// a container that crashes between observe and apply, a removal the engine refuses, an engine that goes away.
//
// What it mirrors, and where from (moby v20.10 unless said otherwise):
//  - container state as daemon/container/state.go keeps it: Status is derived from the flags (StateString), a
//    "restarting" container has Running true, times are RFC 3339 with "0001-01-01T00:00:00Z" for never;
//  - the restart manager (restartmanager/restartmanager.go, daemon/monitor.go): on an exit the process did not
//    get from the API, the policy decides; RestartCount is raised when the restart is decided (state
//    "restarting"), not when it happens; a restart whose start fails leaves the container exited for good;
//  - daemon/start.go: a start via the API resets RestartCount to 0 (ResetRestartManager(true)); a container that
//    joins another's network needs that one running (initializeNetworking); a failed start sets State.Error and,
//    when ExitCode is 0, ExitCode 128, and leaves the status as it was;
//  - daemon/kill.go, stop.go: a stop or kill through the API marks the container "manually stopped" and cancels
//    its restart manager, so no policy brings it back;
//  - daemon/delete.go, update.go: the errors and status codes for removing a running container, a removal that
//    fails (the container is then "dead"), and updating a dead or removing one;
//  - DockerEngine's own answers on top: which statuses are "absent" (404 on inspect/remove/update/stop, 304 on
//    start/stop, 409 "removal already in progress"), and its error classes (EngineRequestError, NameConflictError,
//    EngineUnreachableError).
//
// Every Engine call is logged (calls), can be made to fail (failNext), observed or replaced (onCall), and fails as
// an unreachable engine after goDown(). Test-side controls (crash, setState, …) are not Engine calls: they are
// never logged, never fail, and work while the engine is "down" (the containers go on; only the API is gone).
import { createHash } from 'node:crypto';
import type { ContainerInspect, ContainerSummary, CreateOptions, PathStat, ResourceUpdate } from '../../../src/engine/ports/containers.js';
import type { Engine } from '../../../src/engine/ports/engine.js';
import { EngineRequestError, NameConflictError } from '../../../src/engine/ports/errors.js';
import type { EngineInfo, HostInfo } from '../../../src/engine/ports/host.js';
import type { ImageSummary, PullProgress, RegistryAuth } from '../../../src/engine/ports/images.js';
import type { NetworkInfo } from '../../../src/engine/ports/networks.js';
import type {
  ContainerStats,
  EngineEvent,
  EventSubscription,
  ExecCaptureResult,
  ExecOptions,
  LogStreamOptions,
  LogsOptions,
  OutputStream,
} from '../../../src/engine/ports/streams.js';
import type { VolumeCreate, VolumeInfo, VolumeSummary } from '../../../src/engine/ports/volumes.js';
import { EngineUnreachableError } from '../../../src/errors.js';
import type { EngineFacts } from '../../../src/engine/ports/facts.js';
import { parseImageRef } from '../../../src/imageRef.js';

// ---------------------------------------------------------------------------------------------------------------
// Public types

/** The names of Engine's methods (not its address and isLocal properties). */
export type EngineMethod = { [K in keyof Engine]-?: Engine[K] extends (...args: never[]) => unknown ? K : never }[keyof Engine];
type EngineFn<M extends EngineMethod> = Extract<Engine[M], (...args: never[]) => unknown>;
export type EngineArgs<M extends EngineMethod> = Parameters<EngineFn<M>>;
export type EngineResult<M extends EngineMethod> = Awaited<ReturnType<EngineFn<M>>>;

/**
 * Wraps one method's calls: `next` is the engine's own handling (with goDown and failNext applied); call it to
 * let the call through (with these or other arguments), or answer without it. Later hooks wrap earlier ones.
 */
export type CallHook<M extends EngineMethod> = (args: EngineArgs<M>, next: (...args: EngineArgs<M>) => Promise<EngineResult<M>>) => Promise<EngineResult<M>>;

export type ContainerStatus = 'created' | 'running' | 'paused' | 'restarting' | 'removing' | 'exited' | 'dead';
export type RestartPolicyName = 'no' | 'always' | 'on-failure' | 'unless-stopped';

/** What an image says about itself (GET /images/{ref}/json), and what create takes from it. */
export interface ImageSpec {
  /** Config.User; default "" (root). */
  user?: string;
  /** Default amd64. */
  architecture?: string;
  /** Merged into a container's labels at create (the container's own win), as Docker merges them. */
  labels?: Record<string, string>;
  /** Default [PATH=…]; merged under the container's Env at create. */
  env?: string[];
  entrypoint?: string[];
  cmd?: string[];
}

export interface MemoryEngineOptions {
  /** The clock, milliseconds since the epoch: StartedAt, FinishedAt, Created, event times, call times. */
  now?: () => number;
  /**
   * How long a container the restart manager restarts stays "restarting" (Docker: 100 ms doubling to 1 min).
   * 0 (the default): the restart happens within the crash itself, so the next inspect sees it running.
   */
  restartDelayMs?: number | ((c: { id: string; restartCount: number }) => number);
  /** Images present from the start. */
  images?: (string | ({ ref: string } & ImageSpec))[];
  /** Default memory://test. */
  address?: string;
  /** What facts() answers; default a Docker 20.10 engine (API 1.41) with seccomp and without AppArmor. */
  facts?: EngineFacts;
  /**
   * Network creation as Docker 20.10 does it under load: the duplicate check (CheckDuplicate) and the creation
   * are two steps with a turn of the event loop between them, so two creates of one name at once both succeed.
   * Default false: a second create of a taken name is refused at once (409).
   */
  racyNetworkCreate?: boolean;
}

/** A container's state set directly (setState): no events, no checks; a pending restart is cancelled. */
export interface StatePatch {
  status?: ContainerStatus;
  /** Shorthand for status "dead". */
  dead?: boolean;
  exitCode?: number;
  oomKilled?: boolean;
  error?: string;
  restartPolicy?: RestartPolicyName | '' | { Name: string; MaximumRetryCount?: number };
  /** Milliseconds since the epoch, or an RFC 3339 string ("0001-01-01T00:00:00Z": never). */
  startedAt?: number | string;
  finishedAt?: number | string;
  restartCount?: number;
  /** Stopped through the API: the restart policy leaves it alone until the next API start. */
  manuallyStopped?: boolean;
}

export interface CallRecord {
  method: EngineMethod;
  /** The id, name, ref or labels the call was about. */
  target?: string;
  /** A word about the rest: a restart policy, t=<seconds>, force=<bool>, a command, a path. */
  detail?: string;
  /** The clock when the call was made. */
  at: number;
}

export interface ExecCall {
  id: string;
  cmd: string[];
  tty: boolean;
  container: ContainerInspect;
}
export interface ExecOutcome {
  /** Default 0. */
  exitCode?: number;
  output?: string;
}
/** Runs a scripted exec; a promise that never settles is a command that hangs (execCapture then times out). */
export type ExecHandler = (call: ExecCall) => ExecOutcome | Promise<ExecOutcome>;

export interface PullRecord {
  ref: string;
  auth: RegistryAuth | undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Internals

/** Docker's zero time.Time, which inspect shows for "never". */
export const neverTime = '0001-01-01T00:00:00Z';
const GiB = 1024 ** 3;
const defaultEnv = ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'];

type HostConfig = NonNullable<CreateOptions['HostConfig']>;
// The engine keeps more than runpod reads (Domainname, AttachStdin …): kept here as Docker answers them.
type InspectConfig = ContainerInspect['Config'] & { [field: string]: unknown };
type InspectMount = ContainerInspect['Mounts'][number];
type NetworkEntry = ContainerInspect['NetworkSettings']['Networks'][string] & { [field: string]: unknown };
type PortMap = ContainerInspect['NetworkSettings']['Ports'];

interface ImageRecord {
  id: string;
  spec: ImageSpec;
}

interface Attachment {
  network: string;
  host: number;
  ip: string;
  gateway: string;
  endpointId: string;
  mac: string;
}

interface Box {
  id: string;
  name: string;
  seq: number;
  created: number;
  config: InspectConfig;
  hostConfig: HostConfig;
  imageId: string;
  path: string;
  args: string[];
  stopSignal: number;
  networkDisabled: boolean;
  /** The aliases asked for at create (NetworkingConfig), which inspect shows under the endpoint, as Docker's does. */
  aliases: string[];
  // State, as daemon/container/state.go keeps it: flags, from which Status is derived.
  running: boolean;
  paused: boolean;
  restarting: boolean;
  dead: boolean;
  removing: boolean;
  oomKilled: boolean;
  pid: number;
  exitCode: number;
  error: string;
  startedAt: string;
  finishedAt: string;
  restartCount: number;
  manuallyStopped: boolean;
  restartTimer: NodeJS.Timeout | undefined;
  /** The exit a pending restart follows (for runPendingRestarts). */
  pendingExit: number | undefined;
  attachment: Attachment | undefined;
  ports: PortMap;
  // Scripts and records.
  stopExitCode: number | undefined;
  logs: string;
  files: Map<string, Buffer>;
  archives: { path: string; bytes: number }[];
  refusal: string | undefined;
}

interface Subscription {
  filters: string[];
  onEvent: (e: EngineEvent) => void;
  onError: (err: Error) => void;
  open: boolean;
}

interface Fault {
  make: (args: readonly unknown[]) => Error;
  left: number;
}

type HookTable = { [M in EngineMethod]?: CallHook<M>[] };

function hex64(seed: string): string {
  return createHash('sha256').update(seed).digest('hex');
}

function iso(t: number | string): string {
  return typeof t === 'string' ? t : new Date(t).toISOString();
}

/** "key" or "key=value" filters (Docker's label filter), all of which must hold. */
function matchesLabels(labels: Record<string, string>, filters: readonly string[]): boolean {
  return filters.every((f) => {
    const eq = f.indexOf('=');
    if (eq < 0) return Object.hasOwn(labels, f);
    return labels[f.slice(0, eq)] === f.slice(eq + 1);
  });
}

/** The key images are stored under: docker.io/library/busybox:latest, as the engine resolves short names. */
function imageKey(ref: string): string {
  const p = parseImageRef(ref);
  return `${p.domain}/${p.path}${p.digest !== undefined ? `@${p.digest}` : `:${p.tag ?? 'latest'}`}`;
}

/**
 * The network a container has an endpoint on (inspect's NetworkSettings.Networks key); undefined when it has none
 * of its own: it joined another's (container:<id>), or was created with NetworkDisabled.
 */
function networkOf(c: { hostConfig: HostConfig; networkDisabled: boolean }): string | undefined {
  const mode = c.hostConfig.NetworkMode ?? '';
  if (mode.startsWith('container:') || c.networkDisabled) return undefined;
  if (mode === '' || mode === 'default') return 'bridge';
  return mode;
}

const signals: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGUSR1: 10, SIGUSR2: 12, SIGTERM: 15 };
function signalNumber(s: string | undefined): number {
  if (!s) return 15;
  if (/^\d+$/.test(s)) return Number(s);
  return signals[s.toUpperCase().startsWith('SIG') ? s.toUpperCase() : `SIG${s.toUpperCase()}`] ?? 15;
}

interface WantedPort {
  key: string;
  proto: string;
  hostIp: string;
  hostPort: string;
}

/** HostConfig.PortBindings (typed any by dockerode) read defensively. */
function wantedPorts(raw: unknown): WantedPort[] {
  if (typeof raw !== 'object' || raw === null) return [];
  const out: WantedPort[] = [];
  for (const [key, list] of Object.entries(raw as Record<string, unknown>)) {
    if (!Array.isArray(list)) continue;
    const proto = key.split('/')[1] ?? 'tcp';
    for (const b of list as unknown[]) {
      const o = typeof b === 'object' && b !== null ? (b as { HostIp?: unknown; HostPort?: unknown }) : {};
      out.push({ key, proto, hostIp: typeof o.HostIp === 'string' ? o.HostIp : '', hostPort: typeof o.HostPort === 'string' ? o.HostPort : '' });
    }
  }
  return out;
}

function summarize(method: EngineMethod, args: readonly unknown[]): { target?: string; detail?: string } {
  const [a, b] = args;
  const t = method === 'importImage' ? b : a;
  const out: { target?: string; detail?: string } = {};
  if (typeof t === 'string') out.target = t;
  else if (Array.isArray(t)) out.target = t.join(',');
  switch (method) {
    case 'updateRestartPolicy':
    case 'putArchive':
    case 'statPath':
    case 'readArchive':
    case 'readContainerFile':
      out.detail = String(b);
      break;
    case 'stopContainer':
    case 'killForRestart':
      out.detail = `t=${String(b)}`;
      break;
    case 'removeContainer':
      out.detail = `force=${typeof b === 'object' && b !== null && 'force' in b && b.force === true}`;
      break;
    case 'execCapture':
      if (Array.isArray(b)) out.detail = b.join(' ');
      break;
    case 'execAttached':
      if (typeof b === 'object' && b !== null && 'cmd' in b && Array.isArray(b.cmd)) out.detail = b.cmd.join(' ');
      break;
    default:
      break;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The engine

export class MemoryEngine implements Engine {
  readonly address: string;
  readonly isLocal = false;
  private readonly engineFacts: EngineFacts;

  /** Every Engine call, in order, failed ones too. */
  readonly calls: CallRecord[] = [];
  /** Every event the engine produced, whether or not a subscription took it. */
  readonly eventsSent: EngineEvent[] = [];
  /** Every pullImage call, with the credentials it carried. */
  readonly pulls: PullRecord[] = [];

  private readonly now: () => number;
  private readonly restartDelay: NonNullable<MemoryEngineOptions['restartDelayMs']>;
  private readonly containers = new Map<string, Box>();
  private readonly images = new Map<string, ImageRecord>();
  private readonly pullable = new Map<string, ImageSpec>();
  private readonly volumes = new Map<string, VolumeInfo & { createdAt: string }>();
  private readonly networks = new Map<string, NetworkInfo>();
  private networkSerial = 0;
  private readonly racyNetworkCreate: boolean;
  private readonly subscriptions = new Set<Subscription>();
  private readonly faults = new Map<EngineMethod, Fault[]>();
  private readonly hooks: HookTable = {};
  private execHandler: ExecHandler = () => ({ exitCode: 0, output: '' });
  private down = false;
  private seq = 0;
  private execSeq = 0;
  private nextPid = 4000;
  private nextEphemeralPort = 49153;
  /** The second octet of each network's 172.x.0.0/16: bridge 17, others 18, 19 … in the order first used. */
  private readonly subnets = new Map<string, number>([['bridge', 17]]);

  constructor(options: MemoryEngineOptions = {}) {
    this.now = options.now ?? Date.now;
    this.restartDelay = options.restartDelayMs ?? 0;
    this.address = options.address ?? 'memory://test';
    this.racyNetworkCreate = options.racyNetworkCreate ?? false;
    this.engineFacts = options.facts ?? {
      version: '20.10.24',
      apiVersion: '1.41',
      security: { apparmor: false, seccomp: true, selinux: false, rootless: false, cgroupns: false },
      cgroupVersion: '1',
      cgroupDriver: 'cgroupfs',
    };
    for (const i of options.images ?? []) {
      if (typeof i === 'string') this.addImage(i);
      else this.addImage(i.ref, i);
    }
  }

  // -------------------------------------------------------------------------------------------------------------
  // Test controls: images

  /** Make an image present (replacing one of that ref). */
  addImage(ref: string, spec: ImageSpec = {}): void {
    const key = imageKey(ref);
    this.images.set(key, { id: `sha256:${hex64(`image:${key}`)}`, spec: { ...spec } });
  }

  removeImage(ref: string): void {
    this.images.delete(imageKey(ref));
  }

  /** Let pullImage of this ref succeed (it then adds the image); without this every pull fails as with no registry. */
  allowPull(ref: string, spec: ImageSpec = {}): void {
    this.pullable.set(imageKey(ref), spec);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Test controls: a container's process

  /**
   * The container's main process exits on its own (a crash; oom: the kernel's OOM killer) — not through the API,
   * so the restart policy applies: event die (exitCode), then for always / unless-stopped, or on-failure with a
   * non-zero code, RestartCount+1 and "restarting", then after restartDelayMs "running" and event start.
   */
  crash(ref: string, exitCode: number, options: { oom?: boolean } = {}): void {
    const c = this.must(ref);
    if (!c.running || c.restarting) throw new Error(`MemoryEngine.crash: container ${c.name} is ${statusOf(c)}, it has no process to exit`);
    this.processExit(c, exitCode, options.oom === true);
  }

  /** The container's process finishes by itself with this code (default 0); the restart policy applies as in crash. */
  exitNow(ref: string, exitCode = 0): void {
    this.crash(ref, exitCode);
  }

  /**
   * The exit code the process gives on its stop signal (a stop with a grace period, killForRestart with one).
   * Unset, it ignores the signal and is SIGKILLed when the grace period ends: 137. Grace periods take no time here.
   */
  exitOnStopSignal(ref: string, exitCode: number | undefined): void {
    this.must(ref).stopExitCode = exitCode;
  }

  /** Put a container into an exact state (see StatePatch). No events; the restart manager is not consulted. */
  setState(ref: string, patch: StatePatch): void {
    const c = this.must(ref);
    const status = patch.dead === true ? 'dead' : patch.status;
    if (status !== undefined) {
      this.cancelRestart(c);
      const wasRunning = c.running && !c.restarting;
      c.running = status === 'running' || status === 'paused' || status === 'restarting';
      c.paused = status === 'paused';
      c.restarting = status === 'restarting';
      c.dead = status === 'dead';
      c.removing = status === 'removing';
      if (status === 'created') {
        c.startedAt = neverTime;
        c.finishedAt = neverTime;
      } else if (c.startedAt === neverTime) {
        c.startedAt = iso(this.now());
      }
      if ((status === 'exited' || status === 'dead') && c.finishedAt === neverTime) c.finishedAt = iso(this.now());
      if (c.running && !c.restarting) {
        if (!wasRunning) {
          c.pid = this.nextPid++;
          c.exitCode = 0;
          this.attach(c);
        }
      } else {
        c.pid = 0;
        this.detach(c);
      }
    }
    if (patch.exitCode !== undefined) c.exitCode = patch.exitCode;
    if (patch.oomKilled !== undefined) c.oomKilled = patch.oomKilled;
    if (patch.error !== undefined) c.error = patch.error;
    if (patch.startedAt !== undefined) c.startedAt = iso(patch.startedAt);
    if (patch.finishedAt !== undefined) c.finishedAt = iso(patch.finishedAt);
    if (patch.restartCount !== undefined) c.restartCount = patch.restartCount;
    if (patch.manuallyStopped !== undefined) c.manuallyStopped = patch.manuallyStopped;
    if (patch.restartPolicy !== undefined) {
      const p = patch.restartPolicy;
      c.hostConfig.RestartPolicy = typeof p === 'string' ? { Name: p, MaximumRetryCount: 0 } : { Name: p.Name, MaximumRetryCount: p.MaximumRetryCount ?? 0 };
    }
  }

  /**
   * Every removal of this container fails as when Docker cannot delete its root filesystem: EngineRequestError 500,
   * and the container is left "dead" (daemon/delete.go SetRemovalError). Until allowRemoval.
   */
  refuseRemoval(ref: string, message?: string): void {
    const c = this.must(ref);
    c.refusal =
      message ??
      `container ${c.id}: driver "overlay2" failed to remove root filesystem: unlinkat /var/lib/docker/overlay2/${hex64(`layer:${c.id}`)}/merged: device or resource busy`;
  }

  allowRemoval(ref: string): void {
    this.must(ref).refusal = undefined;
  }

  /** What logs() and streamLogs() give for this container. */
  setLogs(ref: string, text: string): void {
    this.must(ref).logs = text;
  }

  /** A regular file readContainerFile finds (a termination message). */
  setContainerFile(ref: string, path: string, content: string | Buffer): void {
    this.must(ref).files.set(path, Buffer.from(content));
  }

  /** How execCapture and execAttached run commands (default: exit 0, no output). */
  setExecHandler(handler: ExecHandler): void {
    this.execHandler = handler;
  }

  /** Restarts waiting out restartDelayMs happen now. Returns how many. */
  runPendingRestarts(): number {
    let n = 0;
    for (const c of this.containers.values()) {
      if (c.restartTimer === undefined || c.pendingExit === undefined) continue;
      const exit = c.pendingExit;
      this.cancelRestart(c);
      this.finishRestart(c, exit);
      n++;
    }
    return n;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Test controls: faults

  /** The next `times` calls of `method` throw this error (or the one the function makes from their arguments). */
  failNext<M extends EngineMethod>(method: M, err: Error | ((...args: EngineArgs<M>) => Error), times = 1): void {
    const make = typeof err === 'function' ? (args: readonly unknown[]): Error => err(...(args as EngineArgs<M>)) : (): Error => err;
    const list = this.faults.get(method) ?? [];
    list.push({ make, left: times });
    this.faults.set(method, list);
  }

  /** Wrap every call of `method` (see CallHook). Returns a function that removes the hook. */
  onCall<M extends EngineMethod>(method: M, hook: CallHook<M>): () => void {
    const list: CallHook<M>[] = this.hooks[method] ?? [];
    list.push(hook);
    (this.hooks as Record<string, unknown>)[method] = list;
    return () => {
      const i = list.indexOf(hook);
      if (i >= 0) list.splice(i, 1);
    };
  }

  /**
   * The engine stops answering: every call throws EngineUnreachableError, and every event subscription ends
   * through its onError (after the events already sent to it), as DockerEngine reports a stream that ended.
   */
  goDown(): void {
    this.down = true;
    this.dropEventStreams();
  }

  comeBack(): void {
    this.down = false;
  }

  get isDown(): boolean {
    return this.down;
  }

  /** End every event subscription through its onError, the engine staying up (a proxy that cut the stream). */
  dropEventStreams(): void {
    for (const s of this.subscriptions) {
      if (!s.open) continue;
      s.open = false;
      setImmediate(() => s.onError(new Error('event stream ended')));
    }
    this.subscriptions.clear();
  }

  /** Clear restart timers and end subscriptions silently, so a test leaves nothing running. */
  dispose(): void {
    for (const c of this.containers.values()) this.cancelRestart(c);
    for (const s of this.subscriptions) s.open = false;
    this.subscriptions.clear();
  }

  // -------------------------------------------------------------------------------------------------------------
  // Test controls: looking without calling

  /** How many calls of `method` there were (about `target`, when given: an id, name, ref or labels). */
  callCount(method: EngineMethod, target?: string): number {
    return this.calls.filter((c) => c.method === method && (target === undefined || c.target === target)).length;
  }

  /** The inspect document of a container, without an Engine call (not logged, works while down). */
  peek(ref: string): ContainerInspect | undefined {
    const c = this.find(ref);
    return c === undefined ? undefined : this.inspectOf(c);
  }

  /** Every container, oldest first. */
  peekAll(): ContainerInspect[] {
    return [...this.containers.values()].sort((a, b) => a.seq - b.seq).map((c) => this.inspectOf(c));
  }

  peekVolume(name: string): VolumeInfo | undefined {
    const v = this.volumes.get(name);
    return v === undefined ? undefined : toVolumeInfo(v);
  }

  /** The archives putArchive extracted into this container: path and size. */
  archivesOf(ref: string): { path: string; bytes: number }[] {
    return [...(this.find(ref)?.archives ?? [])];
  }

  /** Resolves once the events sent so far have been delivered (each delivery is its own setImmediate). */
  flushEvents(): Promise<void> {
    return new Promise((resolve) => setImmediate(resolve));
  }

  // -------------------------------------------------------------------------------------------------------------
  // Engine: the engine itself

  facts(): Promise<EngineFacts> {
    return this.dispatch('facts', [], async () => this.engineFacts);
  }

  ping(): Promise<EngineInfo> {
    return this.dispatch('ping', [], async () => ({ version: '20.10.24', apiVersion: '1.41', arch: 'amd64', os: 'linux' }));
  }

  listNetworks(labels: string[]): Promise<NetworkInfo[]> {
    return this.dispatch('listNetworks', [labels], async (l) => [...this.networks.values()].filter((n) => matchesLabels(n.labels, l)).map((n) => structuredClone(n)));
  }

  inspectNetwork(idOrName: string): Promise<NetworkInfo | undefined> {
    return this.dispatch('inspectNetwork', [idOrName], async (x) => {
      const byId = this.networks.get(x);
      if (byId !== undefined) return structuredClone(byId);
      // daemon/network.go FindNetwork: a name that several networks carry is refused, not resolved.
      const named = [...this.networks.values()].filter((v) => v.name === x);
      if (named.length > 1) throw new EngineRequestError(`network ${x} is ambiguous (${named.length} matches found based on name)`, 400);
      return named[0] === undefined ? undefined : structuredClone(named[0]);
    });
  }

  createNetwork(name: string, options: { labels: Record<string, string> }): Promise<string> {
    return this.dispatch('createNetwork', [name, options], async (n, o) => {
      if ([...this.networks.values()].some((v) => v.name === n)) throw new NameConflictError(n);
      if (this.racyNetworkCreate) await new Promise<void>((resolve) => setImmediate(resolve));
      const id = `net${++this.networkSerial}`;
      this.networks.set(id, { id, name: n, labels: { ...o.labels }, containers: {} });
      return id;
    });
  }

  removeNetwork(id: string): Promise<void> {
    return this.dispatch('removeNetwork', [id], async (x) => {
      const n = [...this.networks.values()].find((v) => v.id === x || v.name === x);
      if (n === undefined) return;
      if (Object.keys(n.containers).length > 0) throw new EngineRequestError(`error while removing network: network ${n.name} id ${n.id} has active endpoints`, 403);
      this.networks.delete(n.id);
    });
  }

  connectNetwork(network: string, container: string, aliases: readonly string[]): Promise<void> {
    return this.dispatch('connectNetwork', [network, container, aliases], async (x, c) => {
      const n = [...this.networks.values()].find((v) => v.id === x || v.name === x);
      if (n === undefined) throw new EngineRequestError(`network ${x} not found`, 404);
      n.containers[c] = { name: c, ipv4: `10.0.${this.networks.size}.${Object.keys(n.containers).length + 2}` };
    });
  }

  disconnectNetwork(network: string, container: string): Promise<void> {
    return this.dispatch('disconnectNetwork', [network, container], async (x, c) => {
      const n = [...this.networks.values()].find((v) => v.id === x || v.name === x);
      if (n !== undefined) delete n.containers[c];
    });
  }

  waitContainer(id: string): Promise<number> {
    return this.dispatch('waitContainer', [id], async (x) => {
      const info = await this.inspectContainer(x);
      if (info === undefined) throw new EngineRequestError(`No such container: ${x}`, 404);
      return info.State.ExitCode;
    });
  }

  hostInfo(): Promise<HostInfo> {
    return this.dispatch('hostInfo', [], async () => ({ name: 'memory', cpus: 2, memoryBytes: 8 * GiB }));
  }

  // -------------------------------------------------------------------------------------------------------------
  // Engine: containers

  listContainers(labels: string[]): Promise<ContainerSummary[]> {
    return this.dispatch('listContainers', [labels], async (filters) =>
      [...this.containers.values()]
        .filter((c) => matchesLabels(c.config.Labels, filters))
        // GET /containers/json lists the newest first.
        .sort((a, b) => b.seq - a.seq)
        .map((c) => ({ id: c.id, name: c.name, labels: { ...c.config.Labels }, state: statusOf(c), created: Math.floor(c.created / 1000) })),
    );
  }

  inspectContainer(id: string): Promise<ContainerInspect | undefined> {
    return this.dispatch('inspectContainer', [id], async (ref) => {
      const c = this.find(ref);
      return c === undefined ? undefined : this.inspectOf(c);
    });
  }

  createContainer(name: string, options: CreateOptions): Promise<string> {
    return this.dispatch('createContainer', [name, options], async (n, o) => this.create(n, o));
  }

  startContainer(id: string): Promise<void> {
    return this.dispatch('startContainer', [id], async (ref) => {
      const c = this.find(ref);
      if (c === undefined) throw new EngineRequestError(`No such container: ${ref}`, 404);
      // daemon/start.go ContainerStart's validateState, in its order.
      if (c.paused) throw new EngineRequestError('cannot start a paused container, try unpause instead', 409);
      // Running (a restarting container is Running too): 304, which DockerEngine takes as done.
      if (c.running) return;
      if (c.removing || c.dead) throw new EngineRequestError('container is marked for removal and cannot be started', 409);
      const err = this.tryStart(c, true);
      if (err !== undefined) throw err;
    });
  }

  stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    return this.dispatch('stopContainer', [id, timeoutSeconds], async (ref, t) => {
      const c = this.find(ref);
      // Gone (404), not running (304 from stop, 409 from kill): DockerEngine resolves.
      if (c === undefined || !c.running) return;
      this.stop(c, t);
    });
  }

  removeContainer(id: string, options?: { force?: boolean }): Promise<void> {
    return this.dispatch('removeContainer', [id, options], async (ref, o) => {
      const c = this.find(ref);
      if (c === undefined) return; // 404: DockerEngine treats it as removed
      if (c.removing) return; // 409 "removal of container … is already in progress": DockerEngine resolves
      const force = o?.force === true;
      if (c.running && !force) {
        // daemon/delete.go cleanupContainer.
        const state = statusOf(c);
        const procedure =
          state === 'paused' ? 'Unpause and then stop the container before attempting removal or force remove' : 'Stop the container before attempting removal or force remove';
        throw new EngineRequestError(`You cannot remove a ${state} container ${c.id}. ${procedure}`, 409);
      }
      if (c.running) {
        // Force: daemon.Kill (SIGKILL, which cancels the restart manager), then the removal.
        c.manuallyStopped = true;
        if (c.restarting) this.stopRestarting(c);
        else {
          this.emit(c, 'kill', { signal: '9' });
          this.processExit(c, 137, false);
        }
      }
      if (c.refusal !== undefined) {
        // SetRemovalError: RemovalInProgress false, Dead true; the answer is a 500.
        c.dead = true;
        throw new EngineRequestError(c.refusal, 500);
      }
      this.cancelRestart(c);
      this.containers.delete(c.id);
      this.emit(c, 'destroy');
    });
  }

  updateRestartPolicy(id: string, name: RestartPolicyName): Promise<void> {
    return this.dispatch('updateRestartPolicy', [id, name], async (ref, policy) => {
      const c = this.find(ref);
      if (c === undefined) return; // 404: DockerEngine resolves
      // daemon/update.go: errCannotUpdate carries no errdefs class, so this is a 500.
      if (c.removing || c.dead) throw new EngineRequestError(`Cannot update container ${c.id}: container is marked for removal and cannot be "update"`, 500);
      // The restart manager takes the new policy (UpdateMonitor → SetPolicy), but a restart it has already decided
      // (a "restarting" container) still happens: SetPolicy does not cancel the pending timer.
      c.hostConfig.RestartPolicy = { Name: policy, MaximumRetryCount: 0 };
      this.emit(c, 'update');
    });
  }

  updateResources(id: string, update: ResourceUpdate): Promise<void> {
    return this.dispatch('updateResources', [id, update], async (ref, u) => {
      const c = this.find(ref);
      if (c === undefined) throw new EngineRequestError(`No such container: ${ref}`, 404);
      if (c.removing || c.dead) throw new EngineRequestError(`Cannot update container ${c.id}: container is marked for removal and cannot be "update"`, 500);
      // daemon/update.go (verifyContainerResources): the smallest memory limit, and a limit above the swap limit
      // needs the swap limit with it; a zero leaves the setting unchanged.
      if (u.Memory !== undefined && u.Memory !== 0 && u.Memory < 6 * 1024 * 1024) throw new EngineRequestError('Minimum memory limit allowed is 6MB', 400);
      const swap = u.MemorySwap ?? c.hostConfig.MemorySwap ?? 0;
      if (u.Memory !== undefined && u.Memory !== 0 && swap > 0 && u.Memory > swap) {
        throw new EngineRequestError(
          `Cannot update container ${c.id}: Memory limit should be smaller than already set memoryswap limit, update the memoryswap at the same time`,
          500,
        );
      }
      for (const [k, v] of Object.entries(u) as [keyof ResourceUpdate, number | undefined][]) if (v !== undefined && v !== 0) c.hostConfig[k] = v;
      this.emit(c, 'update');
    });
  }

  killForRestart(id: string, gracePeriodSeconds: number): Promise<'signalled' | 'stopped'> {
    return this.dispatch('killForRestart', [id, gracePeriodSeconds], async (ref, grace) => {
      const c = this.find(ref);
      // As DockerEngine: not running (or gone) means it has ended already; its restart policy has it.
      if (c === undefined || !c.running) return 'signalled';
      // A restarting container has no pid to signal: DockerEngine stops it through the API instead.
      if (c.restarting) {
        this.stop(c, grace);
        return 'stopped';
      }
      // A signal from the host is a crash to the engine: no kill event, not manually stopped, the policy applies.
      this.processExit(c, grace > 0 ? (c.stopExitCode ?? 137) : 137, false);
      return 'signalled';
    });
  }

  logs(id: string, options: LogsOptions): Promise<string> {
    return this.dispatch('logs', [id, options], async (ref, o) => {
      const c = this.find(ref);
      if (c === undefined) return '';
      if (o.tail === undefined || o.tail < 0) return c.logs;
      const lines = c.logs.split(/(?<=\n)/);
      return lines.slice(Math.max(0, lines.length - o.tail)).join('');
    });
  }

  streamLogs(id: string, options: LogStreamOptions, onOutput: (stream: OutputStream, chunk: Buffer) => void): Promise<void> {
    return this.dispatch('streamLogs', [id, options, onOutput], async (ref, o, out) => {
      if (o.signal?.aborted) return;
      const c = this.find(ref);
      if (c === undefined) throw new EngineRequestError(`No such container: ${ref}`, 404);
      if (c.logs !== '') out('stdout', Buffer.from(c.logs));
    });
  }

  execCapture(id: string, cmd: string[], timeoutMs: number): Promise<ExecCaptureResult> {
    return this.dispatch('execCapture', [id, cmd, timeoutMs], async (ref, command, timeout) => {
      const { c, execId, run } = this.startExec(ref, command, false);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), Math.max(0, timeout));
      });
      try {
        const r = await Promise.race([run, timedOut]);
        if (r === 'timeout') return { output: '', timedOut: true };
        const exitCode = r.exitCode ?? 0;
        this.emitExecDie(c, execId, exitCode);
        return { exitCode, output: r.output ?? '', timedOut: false };
      } finally {
        clearTimeout(timer);
      }
    });
  }

  execAttached(id: string, options: ExecOptions): Promise<number | undefined> {
    return this.dispatch('execAttached', [id, options], async (ref, o) => {
      const { c, execId, run } = this.startExec(ref, o.cmd, o.tty);
      o.onStarted?.(() => undefined);
      const aborted = new Promise<undefined>((resolve) => {
        if (o.signal?.aborted) resolve(undefined);
        o.signal?.addEventListener('abort', () => resolve(undefined), { once: true });
      });
      const r = await Promise.race([run, aborted]);
      if (r === undefined) return undefined;
      if (r.output) o.onOutput('stdout', Buffer.from(r.output));
      const exitCode = r.exitCode ?? 0;
      this.emitExecDie(c, execId, exitCode);
      return exitCode;
    });
  }

  containerStats(id: string): Promise<ContainerStats | undefined> {
    return this.dispatch('containerStats', [id], async () => undefined);
  }

  readContainerFile(id: string, path: string, maxBytes: number): Promise<Buffer | undefined> {
    return this.dispatch('readContainerFile', [id, path, maxBytes], async (ref, p, max) => {
      const f = this.find(ref)?.files.get(p);
      return f === undefined ? undefined : Buffer.from(f.subarray(0, max));
    });
  }

  putArchive(id: string, path: string, tar: Buffer): Promise<void> {
    return this.dispatch('putArchive', [id, path, tar], async (ref, p, data) => {
      const c = this.find(ref);
      if (c === undefined) throw new EngineRequestError(`No such container: ${ref}`, 404);
      c.archives.push({ path: p, bytes: data.length });
    });
  }

  readArchive(id: string, path: string, maxBytes: number): Promise<{ tar: Buffer; complete: boolean } | undefined> {
    return this.dispatch('readArchive', [id, path, maxBytes], async () => undefined);
  }

  statPath(id: string, path: string): Promise<PathStat | undefined> {
    return this.dispatch('statPath', [id, path], async () => undefined);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Engine: events

  subscribeEvents(labels: string[], onEvent: (e: EngineEvent) => void, onError: (err: Error) => void): Promise<EventSubscription> {
    return this.dispatch('subscribeEvents', [labels, onEvent, onError], async (filters, on, err) => {
      const s: Subscription = { filters: [...filters], onEvent: on, onError: err, open: true };
      this.subscriptions.add(s);
      return {
        close: () => {
          s.open = false;
          this.subscriptions.delete(s);
        },
      };
    });
  }

  // -------------------------------------------------------------------------------------------------------------
  // Engine: images

  inspectImage(ref: string): Promise<ImageSummary | undefined> {
    return this.dispatch('inspectImage', [ref], async (r) => {
      const img = this.image(r);
      if (img === undefined) return undefined;
      return { id: img.id, architecture: img.spec.architecture ?? 'amd64', user: img.spec.user ?? '' };
    });
  }

  pullImage(ref: string, auth: RegistryAuth | undefined, onProgress?: (p: PullProgress) => void): Promise<void> {
    return this.dispatch('pullImage', [ref, auth, onProgress], async (r, a, progress) => {
      this.pulls.push({ ref: r, auth: a });
      const key = imageKey(r);
      const spec = this.pullable.get(key);
      const p = parseImageRef(r);
      if (spec === undefined) {
        // What a daemon with no way to the registry answers (a 500 before any progress).
        const registry = p.domain === 'docker.io' ? 'registry-1.docker.io' : p.domain;
        throw new EngineRequestError(`Get "https://${registry}/v2/": dial tcp: lookup ${registry}: no such host`, 500);
      }
      const layer = hex64(`layer:${key}`).slice(0, 12);
      for (const line of [
        { status: `Pulling from ${p.path}`, id: p.tag ?? 'latest' },
        { status: 'Pulling fs layer', id: layer },
        { status: 'Downloading', id: layer, current: 512, total: 1024 },
        { status: 'Pull complete', id: layer },
        { status: `Digest: sha256:${hex64(`digest:${key}`)}` },
        { status: `Status: Downloaded newer image for ${r}` },
      ])
        progress?.(line);
      this.addImage(r, spec);
    });
  }

  importImage(tar: Buffer, ref: string, changes: string[]): Promise<void> {
    return this.dispatch('importImage', [tar, ref, changes], async (_tar, r, ch) => {
      const spec: ImageSpec = {};
      for (const line of ch) {
        const m = /^(\w+)\s+(.*)$/s.exec(line.trim());
        const instr = m?.[1] ?? '';
        const rest = m?.[2] ?? '';
        // The exec form is JSON; the shell form runs under /bin/sh -c, as a Dockerfile's does.
        const list = (): string[] | undefined => {
          try {
            const v: unknown = JSON.parse(rest);
            return Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : undefined;
          } catch {
            return ['/bin/sh', '-c', rest];
          }
        };
        switch (instr.toUpperCase()) {
          case 'USER':
            spec.user = rest.trim();
            break;
          case 'LABEL': {
            const eq = rest.indexOf('=');
            if (eq > 0) spec.labels = { ...spec.labels, [rest.slice(0, eq).trim()]: rest.slice(eq + 1).trim() };
            break;
          }
          case 'ENV':
            spec.env = [...(spec.env ?? defaultEnv), rest.trim()];
            break;
          case 'ENTRYPOINT': {
            const v = list();
            if (v !== undefined) spec.entrypoint = v;
            break;
          }
          case 'CMD': {
            const v = list();
            if (v !== undefined) spec.cmd = v;
            break;
          }
          default:
            break;
        }
      }
      this.addImage(r, spec);
    });
  }

  // -------------------------------------------------------------------------------------------------------------
  // Engine: volumes

  createVolume(name: string, options: VolumeCreate): Promise<VolumeInfo> {
    return this.dispatch('createVolume', [name, options], async (n, o) => {
      // An existing volume of that name is returned as it is (labels and options unchanged), as Docker does.
      const existing = this.volumes.get(n) ?? this.makeVolume(n, o.labels, o.driverOpts ?? {});
      return toVolumeInfo(existing);
    });
  }

  inspectVolume(name: string): Promise<VolumeInfo | undefined> {
    return this.dispatch('inspectVolume', [name], async (n) => {
      const v = this.volumes.get(n);
      return v === undefined ? undefined : toVolumeInfo(v);
    });
  }

  listVolumes(labels: string[]): Promise<VolumeSummary[]> {
    return this.dispatch('listVolumes', [labels], async (filters) =>
      [...this.volumes.values()].filter((v) => matchesLabels(v.labels, filters)).map((v) => ({ name: v.name, labels: { ...v.labels }, createdAt: v.createdAt })),
    );
  }

  removeVolume(name: string): Promise<void> {
    return this.dispatch('removeVolume', [name], async (n) => {
      if (!this.volumes.has(n)) return; // 404: DockerEngine resolves
      // A volume any container refers to (whatever its state) stays: 409, as the volume store answers.
      const users = [...this.containers.values()].filter((c) => this.volumesOf(c).includes(n)).map((c) => c.id);
      if (users.length > 0) throw new EngineRequestError(`remove ${n}: volume is in use - [${users.join(', ')}]`, 409);
      this.volumes.delete(n);
    });
  }

  // -------------------------------------------------------------------------------------------------------------
  // Dispatch: the call log, hooks, goDown and failNext around every Engine method

  private dispatch<M extends EngineMethod>(method: M, args: EngineArgs<M>, impl: (...args: EngineArgs<M>) => Promise<EngineResult<M>>): Promise<EngineResult<M>> {
    this.calls.push({ method, ...summarize(method, args), at: this.now() });
    const guarded = (...a: EngineArgs<M>): Promise<EngineResult<M>> => {
      if (this.down) return Promise.reject(new EngineUnreachableError(this.address, 'connect ECONNREFUSED'));
      const fault = this.takeFault(method, a);
      if (fault !== undefined) return Promise.reject(fault);
      try {
        return impl(...a);
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    };
    let next = guarded;
    for (const hook of this.hooks[method] ?? []) {
      const inner = next;
      next = (...a: EngineArgs<M>) => hook(a, inner);
    }
    return next(...args);
  }

  private takeFault(method: EngineMethod, args: readonly unknown[]): Error | undefined {
    const list = this.faults.get(method);
    const f = list?.[0];
    if (list === undefined || f === undefined) return undefined;
    f.left--;
    if (f.left <= 0) list.shift();
    return f.make(args);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Containers: lookup, create, the state machine

  /** Docker's GetContainer: a full id, then a name (with or without "/"), then a unique id prefix. */
  private find(ref: string): Box | undefined {
    const byId = this.containers.get(ref);
    if (byId !== undefined) return byId;
    const name = ref.replace(/^\//, '');
    for (const c of this.containers.values()) if (c.name === name) return c;
    if (/^[0-9a-f]+$/.test(ref)) {
      const matches = [...this.containers.values()].filter((c) => c.id.startsWith(ref));
      if (matches.length === 1) return matches[0];
    }
    return undefined;
  }

  private must(ref: string): Box {
    const c = this.find(ref);
    if (c === undefined) throw new Error(`MemoryEngine: no container ${ref}`);
    return c;
  }

  private image(ref: string): ImageRecord | undefined {
    if (ref.startsWith('sha256:')) return [...this.images.values()].find((i) => i.id === ref);
    return this.images.get(imageKey(ref));
  }

  private create(name: string, o: CreateOptions): string {
    if (!/^\/?[a-zA-Z0-9][a-zA-Z0-9_.-]+$/.test(name)) {
      throw new EngineRequestError(`Invalid container name (${name}), only [a-zA-Z0-9][a-zA-Z0-9_.-] are allowed`, 400);
    }
    const bare = name.replace(/^\//, '');
    // The name is taken for as long as its container exists, dead or being removed included.
    if ([...this.containers.values()].some((c) => c.name === bare)) throw new NameConflictError(bare);
    const ref = o.Image ?? '';
    const img = this.image(ref);
    if (img === undefined) throw new EngineRequestError(`No such image: ${ref.includes(':') || ref.includes('@') ? ref : `${ref}:latest`}`, 404);
    const seq = ++this.seq;
    const id = hex64(`memory-engine-container-${seq}`);
    const now = this.now();
    // What create takes from the image (daemon/commit.go merge): env under the container's, labels under its own,
    // the image's entrypoint and cmd when the container names none.
    const envKeys = new Set((o.Env ?? []).map((e) => e.split('=')[0]));
    const env = [...(img.spec.env ?? defaultEnv).filter((e) => !envKeys.has(e.split('=')[0])), ...(o.Env ?? [])];
    const entrypoint = o.Entrypoint === undefined ? img.spec.entrypoint : typeof o.Entrypoint === 'string' ? [o.Entrypoint] : o.Entrypoint;
    const cmd = o.Cmd ?? (o.Entrypoint === undefined ? img.spec.cmd : undefined) ?? [];
    const exposed: Record<string, object> = { ...(o.ExposedPorts ?? {}) };
    for (const p of wantedPorts(o.HostConfig?.PortBindings)) exposed[p.key] = {};
    const config: InspectConfig = {
      Hostname: o.Hostname ?? id.slice(0, 12),
      Domainname: o.Domainname ?? '',
      User: o.User ?? img.spec.user ?? '',
      AttachStdin: o.AttachStdin ?? false,
      AttachStdout: o.AttachStdout ?? false,
      AttachStderr: o.AttachStderr ?? false,
      ExposedPorts: exposed,
      Tty: o.Tty ?? false,
      OpenStdin: o.OpenStdin ?? false,
      StdinOnce: o.StdinOnce ?? false,
      Env: env,
      Cmd: [...cmd],
      Image: ref,
      Volumes: { ...(o.Volumes ?? {}) },
      WorkingDir: o.WorkingDir ?? '',
      ...(entrypoint !== undefined ? { Entrypoint: [...entrypoint] } : {}),
      Labels: { ...(img.spec.labels ?? {}), ...(o.Labels ?? {}) },
      ...(o.Healthcheck !== undefined ? { Healthcheck: structuredClone(o.Healthcheck) } : {}),
    };
    const hostConfig: HostConfig = structuredClone(o.HostConfig ?? {});
    // A memory limit without a swap setting gets swap of twice the limit (what Docker's create gives, measured).
    if ((hostConfig.Memory ?? 0) > 0 && (hostConfig.MemorySwap ?? 0) === 0) hostConfig.MemorySwap = hostConfig.Memory! * 2;
    hostConfig.NetworkMode ??= 'default';
    hostConfig.RestartPolicy ??= { Name: '', MaximumRetryCount: 0 };
    const argv = [...(entrypoint ?? []), ...cmd];
    const c: Box = {
      id,
      name: bare,
      seq,
      created: now,
      config,
      hostConfig,
      imageId: img.id,
      path: argv[0] ?? '',
      args: argv.slice(1),
      stopSignal: signalNumber(o.StopSignal),
      networkDisabled: o.NetworkDisabled === true,
      aliases: [...(Object.values(o.NetworkingConfig?.EndpointsConfig ?? {})[0]?.Aliases ?? [])],
      running: false,
      paused: false,
      restarting: false,
      dead: false,
      removing: false,
      oomKilled: false,
      pid: 0,
      exitCode: 0,
      error: '',
      startedAt: neverTime,
      finishedAt: neverTime,
      restartCount: 0,
      manuallyStopped: false,
      restartTimer: undefined,
      pendingExit: undefined,
      attachment: undefined,
      ports: {},
      stopExitCode: undefined,
      logs: '',
      files: new Map(),
      archives: [],
      refusal: undefined,
    };
    // A named volume a mount refers to is made (bare, no labels) when missing, as create does.
    for (const v of this.volumesOf(c)) if (!this.volumes.has(v)) this.makeVolume(v, {}, {});
    this.containers.set(id, c);
    this.emit(c, 'create');
    return id;
  }

  /**
   * daemon/start.go containerStart: the network (and its ports) first; a failure sets State.Error, ExitCode 128
   * when it was 0, and changes nothing else (a created container stays "created"). resetRestartManager is the API
   * start: RestartCount back to 0, no longer manually stopped.
   */
  private tryStart(c: Box, resetRestartManager: boolean): EngineRequestError | undefined {
    const err = this.joinCheck(c) ?? this.portCheck(c);
    if (err !== undefined) {
      c.error = err.message;
      if (c.exitCode === 0) c.exitCode = 128;
      return err;
    }
    if (resetRestartManager) {
      this.cancelRestart(c);
      c.restartCount = 0;
      c.manuallyStopped = false;
    }
    // SetRunning: OOMKilled is left as it was (20.10; later versions reset it), FinishedAt too.
    c.error = '';
    c.paused = false;
    c.running = true;
    c.restarting = false;
    c.exitCode = 0;
    c.pid = this.nextPid++;
    c.startedAt = iso(this.now());
    this.attach(c);
    this.emit(c, 'start');
    return undefined;
  }

  /**
   * daemon/container_operations.go getNetworkedContainer, messages as it words them (with the reference as the
   * joining container names it). The IPC and PID joins are checked after it, so with runpod's containers (all three
   * from the same infra container) the network's answer is the one seen.
   */
  private joinCheck(c: Box): EngineRequestError | undefined {
    const mode = c.hostConfig.NetworkMode ?? '';
    if (!mode.startsWith('container:')) return undefined;
    const ref = mode.slice('container:'.length);
    const target = this.find(ref);
    if (target === undefined) return new EngineRequestError(`No such container: ${ref}`, 404);
    if (target.id === c.id) return new EngineRequestError('cannot join own network', 500);
    if (!target.running) return new EngineRequestError(`cannot join network of a non running container: ${ref}`, 409);
    if (target.restarting) return new EngineRequestError(`Container ${ref} is restarting, wait until the container is running`, 409);
    return undefined;
  }

  /** A published host port another running container holds: the start fails (libnetwork's port mapper). */
  private portCheck(c: Box): EngineRequestError | undefined {
    if (networkOf(c) === undefined) return undefined;
    for (const w of wantedPorts(c.hostConfig.PortBindings)) {
      if (w.hostPort === '' || w.hostPort === '0') continue;
      for (const other of this.containers.values()) {
        if (other === c || !other.running) continue;
        for (const [key, bound] of Object.entries(other.ports)) {
          if ((key.split('/')[1] ?? 'tcp') !== w.proto) continue;
          const clash = (bound ?? []).some((b) => b.HostPort === w.hostPort && (w.hostIp === '' || w.hostIp === '0.0.0.0' || b.HostIp === '0.0.0.0' || b.HostIp === w.hostIp));
          if (clash) {
            return new EngineRequestError(
              `driver failed programming external connectivity on endpoint ${c.name} (${hex64(`endpoint:${c.id}`)}): Bind for ${w.hostIp || '0.0.0.0'}:${w.hostPort} failed: port is already allocated`,
              500,
            );
          }
        }
      }
    }
    return undefined;
  }

  /**
   * The process ended (daemon/monitor.go handleContainerExit): the restart manager decides; RestartCount is raised
   * and the state is "restarting" when it restarts; then the die event; then the restart, after restartDelayMs.
   */
  private processExit(c: Box, exitCode: number, oom: boolean): void {
    if (oom) this.emit(c, 'oom');
    const restart = !c.manuallyStopped && shouldRestart(c.hostConfig.RestartPolicy, exitCode, c.restartCount);
    c.running = restart;
    c.restarting = restart;
    c.paused = false;
    c.pid = 0;
    c.exitCode = exitCode;
    c.oomKilled = oom;
    c.finishedAt = iso(this.now());
    this.detach(c);
    if (restart) c.restartCount++;
    this.emit(c, 'die', { exitCode: String(exitCode) });
    if (!restart) return;
    const delay = typeof this.restartDelay === 'function' ? this.restartDelay({ id: c.id, restartCount: c.restartCount }) : this.restartDelay;
    if (delay <= 0) {
      this.finishRestart(c, exitCode);
      return;
    }
    c.pendingExit = exitCode;
    c.restartTimer = setTimeout(() => {
      c.restartTimer = undefined;
      c.pendingExit = undefined;
      this.finishRestart(c, exitCode);
    }, delay);
  }

  /** The restart manager's start (containerStart without reset); a failure leaves it exited for good (SetStopped). */
  private finishRestart(c: Box, exitCode: number): void {
    if (!this.containers.has(c.id) || !c.restarting) return;
    if (this.tryStart(c, false) === undefined) return;
    c.running = false;
    c.restarting = false;
    c.pid = 0;
    c.exitCode = exitCode;
  }

  private cancelRestart(c: Box): void {
    if (c.restartTimer !== undefined) clearTimeout(c.restartTimer);
    c.restartTimer = undefined;
    c.pendingExit = undefined;
  }

  /** A restarting container stopped or killed through the API: the pending restart is cancelled, it stays exited. */
  private stopRestarting(c: Box): void {
    this.cancelRestart(c);
    c.running = false;
    c.restarting = false;
  }

  /**
   * Stop through the API (DockerEngine: /stop with t > 0, /kill SIGKILL with t <= 0): manually stopped, so the
   * policy does not restart it. Events as Docker sends them: kill (the stop signal), kill (SIGKILL, when the
   * process ignored the stop signal), die, and stop for /stop only. A restarting container gets no kill event.
   */
  private stop(c: Box, t: number): void {
    c.manuallyStopped = true;
    if (c.restarting) {
      this.stopRestarting(c);
      if (t > 0) this.emit(c, 'stop');
      return;
    }
    if (t <= 0) {
      this.emit(c, 'kill', { signal: '9' });
      this.processExit(c, 137, false);
      return;
    }
    this.emit(c, 'kill', { signal: String(c.stopSignal) });
    if (c.stopExitCode === undefined) this.emit(c, 'kill', { signal: '9' });
    this.processExit(c, c.stopExitCode ?? 137, false);
    this.emit(c, 'stop');
  }

  // -------------------------------------------------------------------------------------------------------------
  // Exec

  /** The checks of POST /containers/{id}/exec, then the exec_create and exec_start events, then the handler. */
  private startExec(ref: string, cmd: string[], tty: boolean): { c: Box; execId: string; run: Promise<ExecOutcome> } {
    const c = this.find(ref);
    if (c === undefined) throw new EngineRequestError(`No such container: ${ref}`, 404);
    if (!c.running) throw new EngineRequestError(`Container ${c.id} is not running`, 409);
    if (c.paused) throw new EngineRequestError(`Container ${c.id} is paused, unpause the container before exec`, 409);
    if (c.restarting) throw new EngineRequestError(`Container ${c.id} is restarting, wait until the container is running`, 409);
    const execId = hex64(`exec:${++this.execSeq}`);
    this.emit(c, `exec_create: ${cmd.join(' ')}`, { execID: execId });
    this.emit(c, `exec_start: ${cmd.join(' ')}`, { execID: execId });
    const call: ExecCall = { id: c.id, cmd: [...cmd], tty, container: this.inspectOf(c) };
    return { c, execId, run: Promise.resolve().then(() => this.execHandler(call)) };
  }

  private emitExecDie(c: Box, execId: string, exitCode: number): void {
    this.emit(c, 'exec_die', { execID: execId, exitCode: String(exitCode) });
  }

  // -------------------------------------------------------------------------------------------------------------
  // Networks and volumes

  /** An address on the container's network while it runs (the lowest free one), and its published ports. */
  private attach(c: Box): void {
    const net = networkOf(c);
    c.ports = {};
    if (net === undefined) return;
    if (net !== 'host' && net !== 'none') {
      let index = this.subnets.get(net);
      if (index === undefined) {
        index = 17 + this.subnets.size;
        this.subnets.set(net, index);
      }
      const used = new Set([...this.containers.values()].filter((o) => o !== c && o.attachment?.network === net).map((o) => o.attachment!.host));
      let host = 2;
      while (used.has(host)) host++;
      const o3 = Math.floor(host / 256);
      const o4 = host % 256;
      const hexes = [172, index, o3, o4].map((n) => n.toString(16).padStart(2, '0'));
      c.attachment = {
        network: net,
        host,
        ip: `172.${index}.${o3}.${o4}`,
        gateway: `172.${index}.0.1`,
        endpointId: hex64(`endpoint:${c.id}:${c.startedAt}`),
        mac: `02:42:${hexes.join(':')}`,
      };
    }
    if (net === 'none') return;
    for (const w of wantedPorts(c.hostConfig.PortBindings)) {
      const port = w.hostPort === '' || w.hostPort === '0' ? String(this.nextEphemeralPort++) : w.hostPort;
      (c.ports[w.key] ??= []).push({ HostIp: w.hostIp || '0.0.0.0', HostPort: port });
    }
  }

  /** Released when the process ends (daemon.Cleanup), restarting included. */
  private detach(c: Box): void {
    c.attachment = undefined;
    c.ports = {};
  }

  /** Named volumes a container's mounts refer to: Mounts of type volume, and Binds whose source is not a path. */
  private volumesOf(c: Box): string[] {
    const names: string[] = [];
    for (const m of c.hostConfig.Mounts ?? []) if (m.Type === 'volume' && m.Source) names.push(m.Source);
    for (const b of c.hostConfig.Binds ?? []) {
      const src = b.split(':')[0] ?? '';
      if (src !== '' && !src.startsWith('/')) names.push(src);
    }
    return names;
  }

  private makeVolume(name: string, labels: Record<string, string>, options: Record<string, string>): VolumeInfo & { createdAt: string } {
    const v = { name, mountpoint: `/memory/volumes/${name}/_data`, labels: { ...labels }, driver: 'local', options: { ...options }, createdAt: iso(this.now()) };
    this.volumes.set(name, v);
    return v;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Inspect and events

  private inspectOf(c: Box): ContainerInspect {
    const net = networkOf(c);
    const a = c.attachment;
    const networks: Record<string, NetworkEntry> = {};
    if (net !== undefined) {
      networks[net] = {
        IPAMConfig: null,
        Links: null,
        Aliases: c.aliases.length > 0 ? [...c.aliases] : null,
        NetworkID: hex64(`network:${net}`),
        EndpointID: a?.endpointId ?? '',
        Gateway: a?.gateway ?? '',
        IPAddress: a?.ip ?? '',
        IPPrefixLen: a !== undefined ? 16 : 0,
        IPv6Gateway: '',
        GlobalIPv6Address: '',
        GlobalIPv6PrefixLen: 0,
        MacAddress: a?.mac ?? '',
      };
    }
    const live = c.running && !c.restarting;
    const dir = `/memory/containers/${c.id}`;
    const inspect = {
      Id: c.id,
      Created: iso(c.created),
      Path: c.path,
      Args: [...c.args],
      State: {
        Status: statusOf(c),
        Running: c.running,
        Paused: c.paused,
        Restarting: c.restarting,
        OOMKilled: c.oomKilled,
        Dead: c.dead,
        Pid: c.pid,
        ExitCode: c.exitCode,
        Error: c.error,
        StartedAt: c.startedAt,
        FinishedAt: c.finishedAt,
      },
      Image: c.imageId,
      ResolvConfPath: `${dir}/resolv.conf`,
      HostnamePath: `${dir}/hostname`,
      HostsPath: `${dir}/hosts`,
      LogPath: `${dir}/${c.id}-json.log`,
      Name: `/${c.name}`,
      RestartCount: c.restartCount,
      Driver: 'overlay2',
      Platform: 'linux',
      MountLabel: '',
      ProcessLabel: '',
      AppArmorProfile: 'docker-default',
      HostConfig: structuredClone(c.hostConfig),
      GraphDriver: { Name: 'overlay2', Data: { DeviceId: '', DeviceName: '', DeviceSize: '' } },
      Mounts: this.mountsOf(c),
      Config: structuredClone(c.config),
      NetworkSettings: {
        SandboxID: live ? hex64(`sandbox:${c.id}`) : '',
        Ports: structuredClone(c.ports),
        SandboxKey: live ? `/var/run/docker/netns/${c.id.slice(0, 12)}` : '',
        Networks: networks,
      },
    };
    return inspect;
  }

  private mountsOf(c: Box): InspectMount[] {
    const out: InspectMount[] = [];
    for (const m of c.hostConfig.Mounts ?? []) {
      const rw = m.ReadOnly !== true;
      switch (m.Type) {
        case 'volume':
          out.push({ Type: 'volume', Name: m.Source, Source: `/memory/volumes/${m.Source}/_data`, Destination: m.Target, Driver: 'local', Mode: 'z', RW: rw, Propagation: '' });
          break;
        case 'bind':
          out.push({ Type: 'bind', Source: m.Source, Destination: m.Target, Mode: '', RW: rw, Propagation: m.BindOptions?.Propagation ?? 'rprivate' });
          break;
        case 'tmpfs':
          out.push({ Type: 'tmpfs', Source: '', Destination: m.Target, Mode: '', RW: rw, Propagation: '' });
          break;
        default:
          out.push({ Type: m.Type, Source: m.Source, Destination: m.Target, Mode: '', RW: rw, Propagation: '' });
      }
    }
    for (const b of c.hostConfig.Binds ?? []) {
      const [src = '', dst = '', opts = ''] = b.split(':');
      const rw = !opts.split(',').includes('ro');
      if (src.startsWith('/')) out.push({ Type: 'bind', Source: src, Destination: dst, Mode: opts, RW: rw, Propagation: 'rprivate' });
      else out.push({ Type: 'volume', Name: src, Source: `/memory/volumes/${src}/_data`, Destination: dst, Driver: 'local', Mode: opts || 'z', RW: rw, Propagation: '' });
    }
    return out;
  }

  /**
   * A container event: its Actor.Attributes are the container's labels plus name (no "/") and image, and the
   * action's own (exitCode for die, signal for kill), which is what DockerEngine hands on as labels. Delivered to
   * each open subscription whose label filters they match, each in its own setImmediate.
   */
  private emit(c: Box, action: string, extra: Record<string, string> = {}): void {
    const e: EngineEvent = {
      type: 'container',
      action,
      id: c.id,
      labels: { ...c.config.Labels, image: c.config.Image, name: c.name, ...extra },
      timeNano: this.now() * 1_000_000,
    };
    this.eventsSent.push(e);
    for (const s of this.subscriptions) {
      if (!s.open || !matchesLabels(e.labels, s.filters)) continue;
      const copy: EngineEvent = { ...e, labels: { ...e.labels } };
      setImmediate(() => {
        if (s.open) s.onEvent(copy);
      });
    }
  }
}

/** daemon/container/state.go StateString. */
function statusOf(c: Box): ContainerStatus {
  if (c.running) {
    if (c.paused) return 'paused';
    if (c.restarting) return 'restarting';
    return 'running';
  }
  if (c.removing) return 'removing';
  if (c.dead) return 'dead';
  if (c.startedAt === neverTime) return 'created';
  return 'exited';
}

/** restartmanager.ShouldRestart (for a container not stopped by hand): MaximumRetryCount 0 means no limit. */
function shouldRestart(policy: HostConfig['RestartPolicy'], exitCode: number, restartCount: number): boolean {
  switch (policy?.Name) {
    case 'always':
    case 'unless-stopped':
      return true;
    case 'on-failure': {
      const max = policy.MaximumRetryCount ?? 0;
      return exitCode !== 0 && (max === 0 || restartCount < max);
    }
    default:
      return false;
  }
}

function toVolumeInfo(v: VolumeInfo): VolumeInfo {
  return { name: v.name, mountpoint: v.mountpoint, labels: { ...v.labels }, driver: v.driver, options: { ...v.options } };
}
