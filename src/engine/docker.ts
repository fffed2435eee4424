// The Engine interface over a real Docker engine, through the Engine API (api.ts): node:http for unix, tcp and
// TLS engines; docker-modem (dockerode's transport) for ssh only. This is the only module that imports it, and only
// for an ssh engine: loading it (ssh2) takes about half of what dockerode took (330–470 ms against 700–870 ms on this machine under load), which every command on a local engine would pay. dockerode
// itself is not loaded: runpod used nothing of it but its modem, and it would bring gRPC and protobufjs (~800 KB,
// for BuildKit sessions) into the single executable's bundle.
import fs from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import type DockerModem from 'docker-modem';
import { type ApiRequest, type ApiTransport, HttpTransport, ModemTransport, readAll } from './api.js';
import { EngineError, EngineUnreachableError } from '../errors.js';
import type { Endpoint } from './connection.js';
import { FrameDemuxer } from './demux.js';
import type { ContainerInspect, ContainerSummary, CreateOptions, PathStat, ResourceUpdate } from './ports/containers.js';
import type { Engine } from './ports/engine.js';
import { EngineRequestError, NameConflictError } from './ports/errors.js';
import { type EngineFacts, type RawInfo, type RawVersion, engineFacts } from './ports/facts.js';
import type { EngineInfo, HostInfo } from './ports/host.js';
import type { ImageSummary, PullProgress, RegistryAuth } from './ports/images.js';
import type { NetworkInfo } from './ports/networks.js';
import type { ContainerStats, EngineEvent, EventSubscription, ExecCaptureResult, ExecOptions, LogsOptions, LogStreamOptions, OutputStream } from './ports/streams.js';
import type { VolumeCreate, VolumeInfo, VolumeSummary } from './ports/volumes.js';

/**
 * docker-modem formats its request URLs for protocol "ssh" with url.format, which Node deprecates for such URLs
 * (DEP0170) with a warning on every ssh:// run that says nothing to a runpod user. Only that one code is dropped.
 */
function hideSshUrlDeprecation(): void {
  const emit = process.emitWarning.bind(process);
  const code = (rest: unknown[]): unknown => (typeof rest[0] === 'object' && rest[0] !== null ? (rest[0] as { code?: unknown }).code : rest[1]);
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]): void => {
    if (code(rest) === 'DEP0170') return;
    (emit as (w: string | Error, ...r: unknown[]) => void)(warning, ...rest);
  }) as typeof process.emitWarning;
}

/** Errors from the socket itself: the engine is not there (or not yet). */
const connectionCodes = new Set([
  'ECONNREFUSED',
  'ENOENT',
  'EACCES',
  'ETIMEDOUT',
  'ECONNRESET',
  'EHOSTUNREACH',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EPROTO',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

/**
 * What a failed request carries: a socket error's code, or the answer's status and JSON (api.ts ApiError, and
 * dockerode's errors over ssh).
 */
interface RequestFailure {
  statusCode?: number;
  code?: string;
  reason?: string;
  message?: string;
  json?: { message?: string } | null;
}

function asRequestFailure(err: unknown): RequestFailure {
  return typeof err === 'object' && err !== null ? (err as RequestFailure) : { message: String(err) };
}

/** The engine's own words for a failed request, without the "(HTTP code 404) unexpected -" prefix of its message. */
function engineMessage(e: RequestFailure): string {
  const fromJson = e.json?.message;
  if (fromJson) return fromJson.trim();
  const m = /^\(HTTP code \d+\)\s*[^-]*-\s*(.*)$/s.exec(e.message ?? '');
  return (m ? m[1]! : (e.message ?? 'unknown error')).trim();
}

const pingTimeoutMs = 5_000;

export class DockerEngine implements Engine {
  readonly address: string;
  private transportPromise: Promise<ApiTransport> | undefined;

  constructor(private readonly endpoint: Endpoint) {
    this.address = endpoint.address;
  }

  private transport(): Promise<ApiTransport> {
    this.transportPromise ??= this.connect();
    return this.transportPromise;
  }

  private async connect(): Promise<ApiTransport> {
    const e = this.endpoint;
    if (e.kind === 'unix') return new HttpTransport({ socketPath: e.socketPath! });
    if (e.kind === 'ssh') return new ModemTransport(await this.sshModem());
    if (e.tls) {
      const { certPath, verify } = e.tls;
      const read = async (f: string): Promise<Buffer | undefined> => fs.readFile(path.join(certPath, f)).catch(() => undefined);
      const [ca, cert, key] = await Promise.all([read('ca.pem'), read('cert.pem'), read('key.pem')]);
      // As the docker CLI: verification checks the server against ca.pem, which must be there; a client
      // certificate is sent when cert.pem and key.pem both exist (an engine started with --tlsverify refuses
      // a client without one, and that refusal is what the user should see).
      if (verify && !ca) throw new EngineUnreachableError(this.address, `TLS verification is on (DOCKER_TLS_VERIFY) but ${path.join(certPath, 'ca.pem')} cannot be read`);
      const https = await import('node:https');
      return new HttpTransport({ host: e.host!, port: e.port! }, { https, options: { ...(ca ? { ca } : {}), ...(cert && key ? { cert, key } : {}), rejectUnauthorized: verify } });
    }
    return new HttpTransport({ host: e.host!, port: e.port! });
  }

  /** The modem for an ssh engine: it runs `docker system dial-stdio` over ssh2 (what dockerode would construct). */
  private async sshModem(): Promise<DockerModem> {
    const { default: Imported } = await import('docker-modem');
    const e = this.endpoint;
    // docker-modem reads DOCKER_HOST by itself when it is constructed; runpod has already resolved the endpoint by
    // the docker CLI's rules, so the constructor must not see it.
    const saved = process.env.DOCKER_HOST;
    delete process.env.DOCKER_HOST;
    try {
      // docker-modem gives ssh2 the agent (SSH_AUTH_SOCK) only when it parses DOCKER_HOST itself, which it
      // must not (above): without it ssh2 has no key to offer and every login fails.
      const agent = process.env.SSH_AUTH_SOCK;
      hideSshUrlDeprecation();
      return new Imported({
        protocol: 'ssh',
        host: e.host!,
        port: e.port!,
        ...(e.username ? { username: e.username } : {}),
        ...(agent ? { sshOptions: { agent } } : {}),
      });
    } finally {
      if (saved !== undefined) process.env.DOCKER_HOST = saved;
    }
  }

  /** Turn a failed request into runpod's error classes. */
  private fail(err: unknown, what: string): never {
    const e = asRequestFailure(err);
    if (e.code !== undefined && connectionCodes.has(e.code)) {
      throw new EngineUnreachableError(this.address, `${what}: ${e.code}${e.message ? ` (${e.message})` : ''}`);
    }
    if (e.code !== undefined && /^ERR_SSL_|CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS_/.test(e.code)) {
      throw new EngineUnreachableError(this.address, `${what}: ${tlsReason(e, this.endpoint)}`);
    }
    // An answer about a container or image, 4xx or 5xx alike (bad mount, port in use on start …), is about
    // that container: the pod's failure, not the engine's.
    if (e.statusCode !== undefined) throw new EngineRequestError(engineMessage(e), e.statusCode);
    throw new EngineUnreachableError(this.address, `${what}: ${e.message ?? String(err)}`);
  }

  /** The answer to a request as a stream; answers with a status in `absent` resolve to undefined. */
  private async open(req: ApiRequest, what: string, absent: readonly number[] = []): Promise<http.IncomingMessage | undefined> {
    try {
      return await (await this.transport()).open(req);
    } catch (err) {
      const code = asRequestFailure(err).statusCode;
      if (code !== undefined && absent.includes(code)) return undefined;
      this.fail(err, what);
    }
  }

  /** The answer's JSON body (undefined when empty, or when its status is in `absent`). */
  private async call<T>(req: ApiRequest, what: string, absent: readonly number[] = []): Promise<T | undefined> {
    const res = await this.open(req, what, absent);
    if (res === undefined) return undefined;
    const body = await readAll(res).catch((err: unknown) => this.fail(err, what));
    if (body.length === 0) return undefined;
    try {
      return JSON.parse(body.toString('utf8')) as T;
    } catch {
      throw new EngineUnreachableError(this.address, `${what}: the answer is not JSON: ${body.toString('utf8').slice(0, 200)}`);
    }
  }

  /** As call, for answers that must have a body. */
  private async must<T>(req: ApiRequest, what: string): Promise<T> {
    const v = await this.call<T>(req, what);
    if (v === undefined) throw new EngineUnreachableError(this.address, `${what}: the engine sent an empty answer`);
    return v;
  }

  async ping(): Promise<EngineInfo> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${pingTimeoutMs / 1000}s`), { code: 'ETIMEDOUT' })), pingTimeoutMs);
    });
    try {
      const res = await Promise.race([(await this.transport()).open({ method: 'GET', path: '/version' }), timeout]);
      const v = JSON.parse((await Promise.race([readAll(res), timeout])).toString('utf8')) as { Version: string; ApiVersion: string; Arch: string; Os: string };
      // The same answer facts() reads: kept, so a command asks /version once (issue 28).
      this.versionAnswer ??= Promise.resolve(v);
      return { version: v.Version, apiVersion: v.ApiVersion, arch: v.Arch, os: v.Os };
    } catch (err) {
      const e = asRequestFailure(err);
      if (e.statusCode !== undefined) throw new EngineError(this.address, engineMessage(e), e.statusCode);
      this.fail(err, 'ping');
    } finally {
      clearTimeout(timer);
    }
  }

  async listContainers(labels: string[]): Promise<ContainerSummary[]> {
    const list = await this.must<RawContainerSummary[]>({ method: 'GET', path: '/containers/json', query: { all: true, filters: { label: labels } } }, 'list containers');
    return list.map((c) => ({
      id: c.Id,
      name: (c.Names?.[0] ?? '').replace(/^\//, ''),
      labels: c.Labels ?? {},
      state: c.State,
      created: c.Created,
    }));
  }

  inspectContainer(id: string): Promise<ContainerInspect | undefined> {
    return this.call<ContainerInspect>({ method: 'GET', path: `/containers/${id}/json` }, 'inspect container', [404]);
  }

  async createContainer(name: string, options: CreateOptions): Promise<string> {
    // 409: the name is taken.
    const created = await this.call<{ Id: string }>({ method: 'POST', path: '/containers/create', query: { name }, body: options }, 'create container', [409]);
    if (created === undefined) throw new NameConflictError(name);
    return created.Id;
  }

  async startContainer(id: string): Promise<void> {
    // 304: already started.
    await this.call({ method: 'POST', path: `/containers/${id}/start` }, 'start container', [304]);
  }

  async stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    // Grace period 0: kill at once (the Pod API's "delete immediately"). Already stopped (304), gone (404), or a
    // kill of a container that is not running (409): nothing to do.
    const req: ApiRequest =
      timeoutSeconds <= 0
        ? { method: 'POST', path: `/containers/${id}/kill`, query: { signal: 'SIGKILL' } }
        : { method: 'POST', path: `/containers/${id}/stop`, query: { t: timeoutSeconds } };
    await this.call(req, 'stop container', [304, 404, 409]);
  }

  async removeContainer(id: string, options: { force?: boolean } = {}): Promise<void> {
    try {
      await readAll(await (await this.transport()).open({ method: 'DELETE', path: `/containers/${id}`, query: { force: options.force ?? false, v: true } }));
    } catch (err) {
      const e = asRequestFailure(err);
      if (e.statusCode === 404) return;
      // 409 "removal already in progress": another runpod is removing it.
      if (e.statusCode === 409 && /already in progress/.test(engineMessage(e))) return;
      this.fail(err, 'remove container');
    }
  }

  async updateResources(id: string, update: ResourceUpdate): Promise<void> {
    await this.call({ method: 'POST', path: `/containers/${id}/update`, body: update }, 'update container resources');
  }

  async updateRestartPolicy(id: string, name: 'no' | 'always' | 'on-failure' | 'unless-stopped'): Promise<void> {
    await this.call({ method: 'POST', path: `/containers/${id}/update`, body: { RestartPolicy: { Name: name, MaximumRetryCount: 0 } } }, 'update container', [404]);
  }

  async inspectImage(ref: string): Promise<ImageSummary | undefined> {
    const info = await this.call<{ Id: string; Architecture?: string; Config?: { User?: unknown } }>({ method: 'GET', path: `/images/${ref}/json` }, 'inspect image', [404]);
    if (info === undefined) return undefined;
    return {
      id: info.Id,
      ...(info.Architecture ? { architecture: info.Architecture } : {}),
      ...(typeof info.Config?.User === 'string' ? { user: info.Config.User } : {}),
    };
  }

  async pullImage(ref: string, auth: RegistryAuth | undefined, onProgress?: (p: PullProgress) => void): Promise<void> {
    const { repo, tag } = splitReference(ref);
    // The credentials travel in X-Registry-Auth, never in the URL: JSON in URL-safe base64 with its padding (the
    // engine decodes it with Go's base64.URLEncoding, which refuses unpadded input: then it pulls with no auth).
    const headers = auth ? { 'X-Registry-Auth': Buffer.from(JSON.stringify(auth)).toString('base64').replace(/\+/g, '-').replace(/\//g, '_') } : undefined;
    const res = (await this.open({ method: 'POST', path: '/images/create', query: { fromImage: repo, tag }, ...(headers ? { headers } : {}) }, `pull ${ref}`))!;
    // The engine reports a failed pull inside the progress stream ({"error": …}) with status 200.
    const events = await progressOf(res, onProgress).catch((err: unknown) => {
      throw new EngineRequestError(`pull ${ref}: ${err instanceof Error ? err.message : String(err)}`, undefined);
    });
    const failed = events.find((o) => o.error !== undefined);
    if (failed) throw new EngineRequestError(`pull ${ref}: ${failed.errorDetail?.message ?? failed.error}`, undefined);
  }

  async importImage(tar: Buffer, ref: string, changes: string[]): Promise<void> {
    const { repo, tag } = splitReference(ref);
    const res = (await this.open(
      { method: 'POST', path: '/images/create', query: { fromSrc: '-', repo, tag, changes }, raw: { data: tar, contentType: 'application/x-tar' } },
      `import ${ref}`,
    ))!;
    const events = await progressOf(res).catch((err: unknown) => {
      throw new EngineRequestError(`import ${ref}: ${err instanceof Error ? err.message : String(err)}`, undefined);
    });
    const failed = events.find((o) => o.error !== undefined);
    if (failed) throw new EngineRequestError(`import ${ref}: ${failed.error}`, undefined);
  }

  async logs(id: string, options: LogsOptions): Promise<string> {
    const info = await this.inspectContainer(id);
    if (info === undefined) return '';
    const query = { stdout: true, stderr: true, follow: false, tail: options.tail, timestamps: options.timestamps ?? false };
    const res = await this.open({ method: 'GET', path: `/containers/${id}/logs`, query }, 'read logs', [404]);
    if (res === undefined) return '';
    const buf = await readAll(res).catch((err: unknown) => this.fail(err, 'read logs'));
    return info.Config.Tty ? buf.toString('utf8') : demultiplex(buf);
  }

  async subscribeEvents(labels: string[], onEvent: (e: EngineEvent) => void, onError: (err: Error) => void): Promise<EventSubscription> {
    const stream = (await this.open({ method: 'GET', path: '/events', query: { filters: { type: ['container'], label: labels } } }, 'subscribe to events'))!;
    let closed = false;
    let pending = '';
    stream.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl).trim();
        pending = pending.slice(nl + 1);
        if (!line) continue;
        try {
          const raw = JSON.parse(line) as { Type?: string; Action?: string; Actor?: { ID?: string; Attributes?: Record<string, string> }; timeNano?: number };
          onEvent({
            type: raw.Type ?? '',
            action: raw.Action ?? '',
            id: raw.Actor?.ID ?? '',
            labels: raw.Actor?.Attributes ?? {},
            timeNano: raw.timeNano ?? 0,
          });
        } catch {
          // A line that is not JSON is not an event; the next check sees the truth anyway.
        }
      }
    });
    const ended = (err?: Error): void => {
      if (closed) return;
      closed = true;
      onError(err ?? new Error('event stream ended'));
    };
    stream.on('error', (err: Error) => ended(err));
    stream.on('end', () => ended());
    return {
      close: () => {
        closed = true;
        stream.destroy();
      },
    };
  }

  async streamLogs(id: string, options: LogStreamOptions, onOutput: (stream: OutputStream, chunk: Buffer) => void): Promise<void> {
    const query = {
      stdout: true,
      stderr: true,
      timestamps: options.timestamps ?? false,
      follow: options.follow ?? false,
      ...(options.tail !== undefined && options.tail >= 0 ? { tail: options.tail } : {}),
      ...(options.since !== undefined ? { since: options.since } : {}),
    };
    let tty: boolean;
    let stream: http.IncomingMessage;
    try {
      const info = await this.inspectContainer(id);
      if (info === undefined) throw Object.assign(new Error(`No such container: ${id}`), { statusCode: 404, json: { message: `No such container: ${id}` } });
      tty = info.Config.Tty;
      stream = await (await this.transport()).open({ method: 'GET', path: `/containers/${id}/logs`, query, ...(options.signal ? { signal: options.signal } : {}) });
    } catch (err) {
      if (options.signal?.aborted) return;
      this.fail(err, 'read logs');
    }
    // A TTY container's output is one raw stream; otherwise frames say which stream each piece is.
    const demux = tty ? undefined : new FrameDemuxer(onOutput);
    const deliver = (chunk: Buffer): void => (demux ? demux.push(chunk) : onOutput('stdout', chunk));
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        stream.destroy();
        resolve();
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const done = (err?: Error): void => {
        options.signal?.removeEventListener('abort', onAbort);
        if (err && !options.signal?.aborted) reject(err);
        else resolve();
      };
      stream.on('data', (c: Buffer) => deliver(c));
      stream.on('end', () => done());
      stream.on('close', () => done());
      stream.on('error', (err: Error) => done(err));
    }).catch((err: unknown) => this.fail(err, 'read logs'));
  }

  /** Create an exec and start it attached: the raw stream both ways (the API's hijacked connection). */
  private async startExec(id: string, cmd: string[], o: { stdin: boolean; tty: boolean }): Promise<{ execId: string; socket: Duplex }> {
    const created = await this.must<{ Id: string }>(
      {
        method: 'POST',
        path: `/containers/${id}/exec`,
        body: { Cmd: cmd, AttachStdin: o.stdin, AttachStdout: true, AttachStderr: true, Tty: o.tty },
      },
      'exec',
    );
    try {
      const socket = await (await this.transport()).upgrade({ method: 'POST', path: `/exec/${created.Id}/start`, body: { Detach: false, Tty: o.tty } });
      return { execId: created.Id, socket };
    } catch (err) {
      this.fail(err, 'exec');
    }
  }

  /** An exec's exit code once the engine has it: the stream can close a moment before the engine records it. */
  private async execExitCode(execId: string, deadline: number): Promise<number | undefined> {
    for (;;) {
      const info = await this.must<{ Running: boolean; ExitCode: number | null }>({ method: 'GET', path: `/exec/${execId}/json` }, 'inspect exec');
      if (!info.Running && info.ExitCode !== null) return info.ExitCode;
      if (Date.now() >= deadline) return undefined;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async execAttached(id: string, o: ExecOptions): Promise<number | undefined> {
    const { execId, socket } = await this.startExec(id, o.cmd, { stdin: o.stdin !== undefined, tty: o.tty });
    const resize = (size: { rows: number; columns: number }): void => {
      // Cosmetic; the command runs on regardless.
      this.call({ method: 'POST', path: `/exec/${execId}/resize`, query: { h: size.rows, w: size.columns } }, 'resize exec').catch(() => undefined);
    };
    if (o.tty && o.size) resize(o.size);
    o.onStarted?.(resize);
    const stdin = o.stdin;
    const forward = (d: Buffer | string): void => {
      socket.write(d);
    };
    // End of our stdin closes the command's (a half-close, as `docker exec -i` does), while its output goes on.
    const endInput = (): void => {
      socket.end();
    };
    let onAbort: (() => void) | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        onAbort = (): void => resolve();
        if (o.signal?.aborted) return resolve();
        o.signal?.addEventListener('abort', onAbort, { once: true });
        const demux = o.tty ? undefined : new FrameDemuxer(o.onOutput);
        socket.on('data', (c: Buffer) => (demux ? demux.push(c) : o.onOutput('stdout', c)));
        socket.on('end', () => resolve());
        socket.on('close', () => resolve());
        socket.on('error', (err: Error) => reject(err));
        if (stdin) {
          stdin.on('data', forward);
          stdin.once('end', endInput);
        }
      });
    } catch (err) {
      this.fail(err, 'exec');
    } finally {
      if (stdin) {
        stdin.removeListener('data', forward);
        stdin.removeListener('end', endInput);
        stdin.pause();
      }
      if (onAbort) o.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
    }
    if (o.signal?.aborted) return undefined;
    const code = await this.execExitCode(execId, Date.now() + 5_000);
    if (code === undefined) throw new EngineError(this.address, `the command's output ended but the engine reports no exit code for it`);
    return code;
  }

  async containerStats(id: string): Promise<ContainerStats | undefined> {
    // stream=false: one sample, taken after the engine has a previous CPU reading to compare with.
    const raw = await this.call<RawStats>({ method: 'GET', path: `/containers/${id}/stats`, query: { stream: false } }, 'read stats', [404]);
    if (raw === undefined) return undefined;
    const mem = raw.memory_stats ?? {};
    // cgroup v1 reports total_inactive_file, v2 inactive_file: what `docker stats` subtracts from usage.
    const inactive = mem.stats?.total_inactive_file ?? mem.stats?.inactive_file;
    const cpu = raw.cpu_stats ?? {};
    return {
      read: raw.read ?? '',
      cpu: {
        total: cpu.cpu_usage?.total_usage ?? 0,
        ...(cpu.system_cpu_usage !== undefined ? { system: cpu.system_cpu_usage } : {}),
        ...(cpu.online_cpus !== undefined ? { onlineCpus: cpu.online_cpus } : {}),
        ...(cpu.cpu_usage?.percpu_usage ? { perCpu: cpu.cpu_usage.percpu_usage.length } : {}),
      },
      precpu: {
        total: raw.precpu_stats?.cpu_usage?.total_usage ?? 0,
        ...(raw.precpu_stats?.system_cpu_usage !== undefined ? { system: raw.precpu_stats.system_cpu_usage } : {}),
      },
      memory: {
        ...(mem.usage !== undefined ? { usage: mem.usage } : {}),
        ...(mem.limit !== undefined ? { limit: mem.limit } : {}),
        ...(inactive !== undefined ? { inactiveFile: inactive } : {}),
      },
      ...(raw.networks ? { networks: Object.fromEntries(Object.entries(raw.networks).map(([k, n]) => [k, { rxBytes: n.rx_bytes ?? 0, txBytes: n.tx_bytes ?? 0 }])) } : {}),
      blkio: (raw.blkio_stats?.io_service_bytes_recursive ?? []).map((b) => ({ op: b.op ?? '', value: b.value ?? 0 })),
      ...(raw.pids_stats?.current !== undefined ? { pids: raw.pids_stats.current } : {}),
    };
  }

  async listVolumes(labels: string[]): Promise<VolumeSummary[]> {
    const res = await this.must<{ Volumes: RawVolume[] | null }>({ method: 'GET', path: '/volumes', query: { filters: { label: labels } } }, 'list volumes');
    return (res.Volumes ?? []).map((v) => ({ name: v.Name, labels: v.Labels ?? {}, ...(v.CreatedAt ? { createdAt: v.CreatedAt } : {}) }));
  }

  async removeVolume(name: string): Promise<void> {
    await this.call({ method: 'DELETE', path: `/volumes/${name}` }, 'remove volume', [404]);
  }

  async execCapture(id: string, cmd: string[], timeoutMs: number): Promise<ExecCaptureResult> {
    const deadline = Date.now() + timeoutMs;
    const { execId, socket } = await this.startExec(id, cmd, { stdin: false, tty: false });
    let output = '';
    const demux = new FrameDemuxer((_stream, payload) => {
      if (output.length < execCaptureLimit) output += payload.toString('utf8');
    });
    const finished = await new Promise<boolean>((resolve) => {
      // No way to kill an exec through the API: on timeout the connection is dropped and the command abandoned.
      const timer = setTimeout(
        () => {
          resolve(false);
          socket.destroy();
        },
        Math.max(0, deadline - Date.now()),
      );
      const end = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      socket.on('data', (c: Buffer) => demux.push(c));
      socket.on('end', end);
      socket.on('close', end);
      socket.on('error', end);
    });
    socket.destroy();
    if (!finished) return { output, timedOut: true };
    const exitCode = await this.execExitCode(execId, deadline);
    return exitCode === undefined ? { output, timedOut: true } : { exitCode, output, timedOut: false };
  }

  async readContainerFile(id: string, filePath: string, maxBytes: number): Promise<Buffer | undefined> {
    const stream = await this.open({ method: 'GET', path: `/containers/${id}/archive`, query: { path: filePath } }, 'read file from container', [404]);
    if (stream === undefined) return undefined;
    // The answer is a tar archive of that one path: its first header says what it is and how long.
    const chunks: Buffer[] = [];
    let size = 0;
    const limit = 512 + maxBytes;
    await new Promise<void>((resolve, reject) => {
      stream.on('data', (c: Buffer) => {
        if (size < limit) chunks.push(c);
        size += c.length;
      });
      stream.on('end', resolve);
      stream.on('error', reject);
    }).catch((err: unknown) => this.fail(err, 'read file from container'));
    return firstTarFile(Buffer.concat(chunks), maxBytes);
  }

  // Volumes and archives (reconcile/volumes.ts): named volumes made and filled through the engine only.

  get isLocal(): boolean {
    return this.endpoint.kind === 'unix';
  }

  async createVolume(name: string, options: VolumeCreate): Promise<VolumeInfo> {
    const body = { Name: name, Driver: 'local', Labels: options.labels, ...(options.driverOpts ? { DriverOpts: options.driverOpts } : {}) };
    return toVolumeInfo(await this.must<RawVolume>({ method: 'POST', path: '/volumes/create', body }, 'create volume'));
  }

  async inspectVolume(name: string): Promise<VolumeInfo | undefined> {
    const v = await this.call<RawVolume>({ method: 'GET', path: `/volumes/${name}` }, 'inspect volume', [404]);
    return v === undefined ? undefined : toVolumeInfo(v);
  }

  async putArchive(id: string, dest: string, tar: Buffer): Promise<void> {
    await this.call(
      { method: 'PUT', path: `/containers/${id}/archive`, query: { path: dest }, raw: { data: tar, contentType: 'application/x-tar' } },
      'write files into a container',
    );
  }

  async readArchive(id: string, target: string, maxBytes: number): Promise<{ tar: Buffer; complete: boolean } | undefined> {
    const stream = await this.open({ method: 'GET', path: `/containers/${id}/archive`, query: { path: target } }, 'read files from a container', [404]);
    if (stream === undefined) return undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    const complete = await new Promise<boolean>((resolve, reject) => {
      stream.on('data', (c: Buffer) => {
        chunks.push(c);
        size += c.length;
        // Enough read: the rest is not wanted (closing the stream frees the socket).
        if (size > maxBytes) {
          stream.destroy();
          resolve(false);
        }
      });
      stream.on('end', () => resolve(true));
      stream.on('error', reject);
    }).catch((err: unknown) => this.fail(err, 'read files from a container'));
    const tar = Buffer.concat(chunks);
    return { tar: complete ? tar : tar.subarray(0, maxBytes), complete };
  }

  async statPath(id: string, target: string): Promise<PathStat | undefined> {
    // HEAD /containers/{id}/archive answers with the stat as base64 JSON in X-Docker-Container-Path-Stat.
    const res = await this.open({ method: 'HEAD', path: `/containers/${id}/archive`, query: { path: target } }, 'stat a path in a container', [404]);
    if (res === undefined) return undefined;
    // A HEAD answer has no body, but the stream must still be drained to free the socket.
    res.resume();
    const raw = res.headers['x-docker-container-path-stat'];
    if (typeof raw !== 'string') return undefined;
    const stat = JSON.parse(Buffer.from(raw, 'base64').toString('utf8')) as { name?: string; size?: number; mode?: number; linkTarget?: string };
    return { name: stat.name ?? '', size: stat.size ?? 0, mode: stat.mode ?? 0, linkTarget: stat.linkTarget ?? '' };
  }

  private factsAnswer: Promise<EngineFacts> | undefined;
  /** The /version answer of this command's ping, when it pinged: facts() does not ask again. */
  private versionAnswer: Promise<RawVersion> | undefined;

  facts(): Promise<EngineFacts> {
    // Held in memory for this engine object only (one command); a failed answer is not kept, so a retry asks again.
    this.factsAnswer ??= Promise.all([
      this.versionAnswer ?? this.must<RawVersion>({ method: 'GET', path: '/version' }, 'engine version'),
      this.must<RawInfo>({ method: 'GET', path: '/info' }, 'engine info'),
    ]).then(([v, i]) => engineFacts(v, i));
    this.factsAnswer.catch(() => {
      this.factsAnswer = undefined;
    });
    return this.factsAnswer;
  }

  async hostInfo(): Promise<HostInfo> {
    const info = await this.must<{ Name?: string; NCPU?: number; MemTotal?: number }>({ method: 'GET', path: '/info' }, 'engine info');
    return { name: info.Name ?? '', cpus: info.NCPU ?? 0, memoryBytes: info.MemTotal ?? 0 };
  }

  async listNetworks(labels: string[]): Promise<NetworkInfo[]> {
    // The list answer leaves Containers empty (Docker 20.10 and later): each network is inspected for them.
    const list = await this.must<RawNetwork[]>({ method: 'GET', path: '/networks', query: { filters: { label: labels } } }, 'list networks');
    const all = await Promise.all(list.map((n) => this.inspectNetwork(n.Id)));
    return all.filter((n): n is NetworkInfo => n !== undefined);
  }

  async inspectNetwork(idOrName: string): Promise<NetworkInfo | undefined> {
    const n = await this.call<RawNetwork>({ method: 'GET', path: `/networks/${encodeURIComponent(idOrName)}` }, 'inspect network', [404]);
    if (n === undefined) return undefined;
    const containers: NetworkInfo['containers'] = {};
    for (const [id, c] of Object.entries(n.Containers ?? {})) containers[id] = { name: c.Name ?? '', ipv4: (c.IPv4Address ?? '').replace(/\/\d+$/, '') };
    return { id: n.Id, name: n.Name, labels: n.Labels ?? {}, ...(n.Created ? { created: n.Created } : {}), containers };
  }

  async createNetwork(name: string, options: { labels: Record<string, string> }): Promise<string> {
    // CheckDuplicate: a second network of one name would split the pods of a namespace in two (409 instead).
    const body = { Name: name, Driver: 'bridge', CheckDuplicate: true, Labels: options.labels };
    const created = await this.call<{ Id: string }>({ method: 'POST', path: '/networks/create', body }, 'create network', [409]);
    if (created === undefined) throw new NameConflictError(name);
    return created.Id;
  }

  async removeNetwork(id: string): Promise<void> {
    await this.call({ method: 'DELETE', path: `/networks/${encodeURIComponent(id)}` }, 'remove network', [404]);
  }

  async connectNetwork(network: string, container: string, aliases: readonly string[]): Promise<void> {
    try {
      await this.call(
        { method: 'POST', path: `/networks/${encodeURIComponent(network)}/connect`, body: { Container: container, EndpointConfig: { Aliases: [...aliases] } } },
        'connect to network',
      );
    } catch (err) {
      // 403 "endpoint with name … already exists in network …": attached already (a concurrent runpod did it).
      if (err instanceof EngineRequestError && err.statusCode === 403 && /already exists/.test(err.message)) return;
      throw err;
    }
  }

  async disconnectNetwork(network: string, container: string): Promise<void> {
    try {
      await this.call(
        { method: 'POST', path: `/networks/${encodeURIComponent(network)}/disconnect`, body: { Container: container, Force: true } },
        'disconnect from network',
        [404],
      );
    } catch (err) {
      // 403 "container … is not connected to the network": nothing to detach.
      if (err instanceof EngineRequestError && err.statusCode === 403 && /not connected/.test(err.message)) return;
      throw err;
    }
  }

  async waitContainer(id: string): Promise<number> {
    const res = await this.must<{ StatusCode: number }>({ method: 'POST', path: `/containers/${id}/wait` }, 'wait for container');
    return res.StatusCode;
  }

  async killForRestart(id: string, gracePeriodSeconds: number): Promise<'signalled' | 'stopped'> {
    const info = await this.inspectContainer(id);
    if (!info?.State.Running) return 'signalled'; // it has ended already; its restart policy has it
    const pid = info.State.Pid;
    // Signalling the process from the host is what a crash looks like to the engine, so its restart policy
    // restarts the same instance and raises RestartCount. The kill API would not do: it marks the container
    // as stopped by hand, which the restart policy leaves alone. Only for a local engine, and only when the
    // pid is the container's own (its cgroup names the container), so a pid from another PID namespace is
    // never signalled.
    if (this.endpoint.kind === 'unix' && process.platform === 'linux' && pid > 0 && (await processOfContainer(pid, info.Id))) {
      try {
        process.kill(pid, gracePeriodSeconds > 0 ? 'SIGTERM' : 'SIGKILL');
        const end = Date.now() + gracePeriodSeconds * 1000;
        while (gracePeriodSeconds > 0 && Date.now() < end) {
          await new Promise((r) => setTimeout(r, 100));
          const now = await this.inspectContainer(id);
          if (!now || now.State.Pid !== pid) return 'signalled';
        }
        if (gracePeriodSeconds > 0) process.kill(pid, 'SIGKILL');
        return 'signalled';
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ESRCH') return 'signalled';
        // EPERM: not allowed to signal it from here; stop it through the engine instead.
      }
    }
    await this.stopContainer(id, gracePeriodSeconds);
    return 'stopped';
  }
}

/** The fields of GET /containers/{id}/stats that runpod reads. */
interface RawStats {
  read?: string;
  cpu_stats?: { cpu_usage?: { total_usage?: number; percpu_usage?: number[] }; system_cpu_usage?: number; online_cpus?: number };
  precpu_stats?: { cpu_usage?: { total_usage?: number }; system_cpu_usage?: number };
  memory_stats?: { usage?: number; limit?: number; stats?: { total_inactive_file?: number; inactive_file?: number } };
  networks?: Record<string, { rx_bytes?: number; tx_bytes?: number }>;
  blkio_stats?: { io_service_bytes_recursive?: { op?: string; value?: number }[] | null };
  pids_stats?: { current?: number };
}

/** A TLS failure in the user's terms: which side refused, and where runpod looked for certificates. */
function tlsReason(e: RequestFailure, endpoint: Endpoint): string {
  const code = e.code ?? '';
  const where = endpoint.tls ? ` (certificates from ${endpoint.tls.certPath})` : '';
  if (/CERTIFICATE_REQUIRED|HANDSHAKE_FAILURE|BAD_CERTIFICATE|UNKNOWN_CA/.test(code)) {
    return `TLS handshake refused by the engine: it requires a client certificate it trusts (cert.pem and key.pem)${where}: ${code}`;
  }
  return `TLS: the engine's certificate could not be verified${where}: ${code}${e.message ? ` (${e.message})` : ''}`;
}

/** A whole multiplexed log body (non-TTY containers) as text, stdout and stderr joined in order. */
function demultiplex(buf: Buffer): string {
  const parts: Buffer[] = [];
  new FrameDemuxer((_stream, payload) => parts.push(payload)).push(buf);
  return Buffer.concat(parts).toString('utf8');
}

/** Output kept from an exec probe (the prober keeps 10 KiB of it). */
const execCaptureLimit = 64 * 1024;

/** Is this host pid the main process of that container? Its cgroup path names the container id. */
async function processOfContainer(pid: number, containerId: string): Promise<boolean> {
  const cgroup = await fs.readFile(`/proc/${pid}/cgroup`, 'utf8').catch(() => '');
  return cgroup.includes(containerId);
}

/**
 * The content of the first entry of a tar archive when it is a regular file (ustar: type '0' or NUL, size as
 * octal at offset 124), cut to maxBytes; undefined for anything else (a directory, a symlink).
 */
export function firstTarFile(tar: Buffer, maxBytes: number): Buffer | undefined {
  if (tar.length < 512) return undefined;
  const type = tar[156];
  if (type !== 0x30 && type !== 0) return undefined;
  const sizeField = tar.subarray(124, 136).toString('ascii').replace(/\0.*$/s, '').trim();
  const size = parseInt(sizeField || '0', 8);
  if (!Number.isFinite(size)) return undefined;
  return tar.subarray(512, 512 + Math.min(size, maxBytes));
}

/** The fields of GET /containers/json that runpod reads. */
interface RawContainerSummary {
  Id: string;
  Names?: string[];
  Labels?: Record<string, string> | null;
  State: string;
  Created: number;
}

/** The fields of a volume (GET /volumes, /volumes/{name}) that runpod reads. */
interface RawNetwork {
  Id: string;
  Name: string;
  Created?: string;
  Labels?: Record<string, string> | null;
  Containers?: Record<string, { Name?: string; IPv4Address?: string }> | null;
}

interface RawVolume {
  Name: string;
  Mountpoint: string;
  Driver: string;
  Labels?: Record<string, string> | null;
  Options?: Record<string, string> | null;
  CreatedAt?: string;
}

/** One line of a pull or import progress stream. */
interface ProgressLine {
  id?: string;
  status?: string;
  progressDetail?: { current?: number; total?: number };
  error?: string;
  errorDetail?: { message?: string };
}

/** Read a progress stream (newline-separated JSON) to its end: every line, each passed to onProgress as it comes. */
function progressOf(res: http.IncomingMessage, onProgress?: (p: PullProgress) => void): Promise<ProgressLine[]> {
  return new Promise((resolve, reject) => {
    const lines: ProgressLine[] = [];
    let pending = '';
    const take = (line: string): void => {
      if (line.trim() === '') return;
      let event: ProgressLine;
      try {
        event = JSON.parse(line) as ProgressLine;
      } catch {
        return; // not a progress line
      }
      lines.push(event);
      if (!onProgress || event.status === undefined) return;
      onProgress({
        status: event.status,
        ...(event.id !== undefined ? { id: event.id } : {}),
        ...(event.progressDetail?.current !== undefined ? { current: event.progressDetail.current } : {}),
        ...(event.progressDetail?.total !== undefined ? { total: event.progressDetail.total } : {}),
      });
    };
    res.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        take(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
      }
    });
    res.on('end', () => {
      take(pending);
      resolve(lines);
    });
    res.on('error', reject);
  });
}

/**
 * An image reference as POST /images/create takes it: the repository, and the tag or digest apart (a digest
 * after '@'; a tag after the last ':' that follows the last '/', else "latest"). Without a tag the engine would
 * pull every tag of the repository.
 */
export function splitReference(ref: string): { repo: string; tag: string } {
  const at = ref.indexOf('@');
  if (at >= 0) return { repo: ref.slice(0, at), tag: ref.slice(at + 1) };
  const colon = ref.lastIndexOf(':');
  if (colon > ref.lastIndexOf('/')) return { repo: ref.slice(0, colon), tag: ref.slice(colon + 1) };
  return { repo: ref, tag: 'latest' };
}

function toVolumeInfo(v: RawVolume): VolumeInfo {
  return { name: v.Name, mountpoint: v.Mountpoint, labels: v.Labels ?? {}, driver: v.Driver, options: v.Options ?? {} };
}
