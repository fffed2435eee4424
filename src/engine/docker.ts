// The Engine interface over a real Docker engine, through dockerode. The only module that imports
// dockerode, and it does so lazily: loading it costs ~170-200 ms (ssh2, gRPC), which commands that never
// reach the engine (validate, --help, a manifest error) should not pay.
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Duplex } from 'node:stream';
import type Dockerode from 'dockerode';
import { EngineError, EngineUnreachableError } from '../errors.js';
import type { Endpoint } from './connection.js';
import { FrameDemuxer } from './demux.js';
import type { ExecCaptureResult } from './engine.js';
import type { HostInfo, PathStat, VolumeCreate, VolumeInfo } from './engine.js';
import {
  type ContainerInspect,
  type ContainerStats,
  type ExecOptions,
  type LogStreamOptions,
  type OutputStream,
  type VolumeSummary,
  type ContainerSummary,
  type CreateOptions,
  type Engine,
  type EngineEvent,
  type EngineInfo,
  type EventSubscription,
  type ImageSummary,
  type LogsOptions,
  type PullProgress,
  type RegistryAuth,
  EngineRequestError,
  NameConflictError,
} from './engine.js';

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
const connectionCodes = new Set(['ECONNREFUSED', 'ENOENT', 'EACCES', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EPROTO', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'ERR_SSL_WRONG_VERSION_NUMBER']);

interface DockerodeError {
  statusCode?: number;
  code?: string;
  reason?: string;
  message?: string;
  json?: { message?: string } | null;
}

function asDockerodeError(err: unknown): DockerodeError {
  return typeof err === 'object' && err !== null ? (err as DockerodeError) : { message: String(err) };
}

/** The engine's own words for a failed request, without dockerode's "(HTTP code 404) unexpected -" prefix. */
function engineMessage(e: DockerodeError): string {
  const fromJson = e.json?.message;
  if (fromJson) return fromJson.trim();
  const m = /^\(HTTP code \d+\)\s*[^-]*-\s*(.*)$/s.exec(e.message ?? '');
  return (m ? m[1]! : (e.message ?? 'unknown error')).trim();
}

const pingTimeoutMs = 5_000;

export class DockerEngine implements Engine {
  readonly address: string;
  private clientPromise: Promise<Dockerode> | undefined;

  constructor(private readonly endpoint: Endpoint) {
    this.address = endpoint.address;
  }

  private client(): Promise<Dockerode> {
    this.clientPromise ??= this.connect();
    return this.clientPromise;
  }

  private async connect(): Promise<Dockerode> {
    const { default: Imported } = await import('dockerode');
    // docker-modem reads DOCKER_HOST and DOCKER_CERT_PATH from process.env by itself when it is constructed, and
    // throws when a certificate file there is missing (before runpod could say so with exit 3). runpod has
    // already resolved the endpoint by the docker CLI's rules, so the constructor must not see them.
    const DockerodeCtor = function (options: Dockerode.DockerOptions): Dockerode {
      const saved = process.env.DOCKER_HOST;
      delete process.env.DOCKER_HOST;
      try {
        return new Imported(options);
      } finally {
        if (saved !== undefined) process.env.DOCKER_HOST = saved;
      }
    } as unknown as new (options: Dockerode.DockerOptions) => Dockerode;
    const e = this.endpoint;
    if (e.kind === 'unix') return new DockerodeCtor({ socketPath: e.socketPath! });
    if (e.kind === 'ssh') {
      // docker-modem gives ssh2 the agent (SSH_AUTH_SOCK) only when it parses DOCKER_HOST itself, which it
      // must not (above): without it ssh2 has no key to offer and every login fails.
      const agent = process.env.SSH_AUTH_SOCK;
      hideSshUrlDeprecation();
      return new DockerodeCtor({
        protocol: 'ssh', host: e.host!, port: e.port!,
        ...(e.username ? { username: e.username } : {}),
        ...(agent ? { sshOptions: { agent } } : {}),
      });
    }
    if (e.tls) {
      const { certPath, verify } = e.tls;
      const read = async (f: string): Promise<Buffer | undefined> => fs.readFile(path.join(certPath, f)).catch(() => undefined);
      const [ca, cert, key] = await Promise.all([read('ca.pem'), read('cert.pem'), read('key.pem')]);
      // As the docker CLI: verification checks the server against ca.pem, which must be there; a client
      // certificate is sent when cert.pem and key.pem both exist (an engine started with --tlsverify refuses
      // a client without one, and that refusal is what the user should see).
      if (verify && !ca) throw new EngineUnreachableError(this.address, `TLS verification is on (DOCKER_TLS_VERIFY) but ${path.join(certPath, 'ca.pem')} cannot be read`);
      // docker-modem passes no rejectUnauthorized of its own, so the TLS settings travel in an agent; an
      // agent's options take precedence over the request's.
      const { Agent } = await import('node:https');
      const agent = new Agent({ ...(ca ? { ca } : {}), ...(cert && key ? { cert, key } : {}), rejectUnauthorized: verify });
      // docker-modem honours `agent`, which the dockerode typings leave out.
      const options: Dockerode.DockerOptions & { agent: InstanceType<typeof Agent> } = { protocol: 'https', host: e.host!, port: e.port!, agent };
      return new DockerodeCtor(options);
    }
    return new DockerodeCtor({ protocol: 'http', host: e.host!, port: e.port! });
  }

  /** Turn a dockerode failure into runpod's error classes. */
  private fail(err: unknown, what: string): never {
    const e = asDockerodeError(err);
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

  async ping(): Promise<EngineInfo> {
    const docker = await this.client();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${pingTimeoutMs / 1000}s`), { code: 'ETIMEDOUT' })), pingTimeoutMs);
    });
    try {
      const v = await Promise.race([docker.version(), timeout]);
      return { version: v.Version, apiVersion: v.ApiVersion, arch: v.Arch, os: v.Os };
    } catch (err) {
      const e = asDockerodeError(err);
      if (e.statusCode !== undefined) throw new EngineError(this.address, engineMessage(e), e.statusCode);
      this.fail(err, 'ping');
    } finally {
      clearTimeout(timer);
    }
  }

  async listContainers(labels: string[]): Promise<ContainerSummary[]> {
    const docker = await this.client();
    try {
      const list = await docker.listContainers({ all: true, filters: { label: labels } });
      return list.map((c) => ({
        id: c.Id,
        name: (c.Names[0] ?? '').replace(/^\//, ''),
        labels: c.Labels ?? {},
        state: c.State,
        created: c.Created,
      }));
    } catch (err) {
      this.fail(err, 'list containers');
    }
  }

  async inspectContainer(id: string): Promise<ContainerInspect | undefined> {
    const docker = await this.client();
    try {
      return await docker.getContainer(id).inspect();
    } catch (err) {
      if (asDockerodeError(err).statusCode === 404) return undefined;
      this.fail(err, 'inspect container');
    }
  }

  async createContainer(name: string, options: CreateOptions): Promise<string> {
    const docker = await this.client();
    try {
      const c = await docker.createContainer({ ...options, name });
      return c.id;
    } catch (err) {
      if (asDockerodeError(err).statusCode === 409) throw new NameConflictError(name);
      this.fail(err, 'create container');
    }
  }

  async startContainer(id: string): Promise<void> {
    const docker = await this.client();
    try {
      await docker.getContainer(id).start();
    } catch (err) {
      if (asDockerodeError(err).statusCode === 304) return; // already started
      this.fail(err, 'start container');
    }
  }

  async stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    const docker = await this.client();
    try {
      if (timeoutSeconds <= 0) {
        // Grace period 0: kill at once (the Pod API's "delete immediately").
        await docker.getContainer(id).kill({ signal: 'SIGKILL' });
      } else {
        await docker.getContainer(id).stop({ t: timeoutSeconds });
      }
    } catch (err) {
      const code = asDockerodeError(err).statusCode;
      if (code === 304 || code === 404) return; // already stopped, or gone
      if (code === 409) return; // kill of a container that is not running
      this.fail(err, 'stop container');
    }
  }

  async removeContainer(id: string, options: { force?: boolean } = {}): Promise<void> {
    const docker = await this.client();
    try {
      await docker.getContainer(id).remove({ force: options.force ?? false, v: true });
    } catch (err) {
      const e = asDockerodeError(err);
      if (e.statusCode === 404) return;
      // 409 "removal already in progress": another runpod is removing it.
      if (e.statusCode === 409 && /already in progress/.test(engineMessage(e))) return;
      this.fail(err, 'remove container');
    }
  }

  async updateRestartPolicy(id: string, name: 'no' | 'always' | 'on-failure' | 'unless-stopped'): Promise<void> {
    const docker = await this.client();
    try {
      await docker.getContainer(id).update({ RestartPolicy: { Name: name, MaximumRetryCount: 0 } });
    } catch (err) {
      if (asDockerodeError(err).statusCode === 404) return;
      this.fail(err, 'update container');
    }
  }

  async inspectImage(ref: string): Promise<ImageSummary | undefined> {
    const docker = await this.client();
    try {
      const info = await docker.getImage(ref).inspect();
      return {
        id: info.Id,
        ...(info.Architecture ? { architecture: info.Architecture } : {}),
        ...(typeof info.Config?.User === 'string' ? { user: info.Config.User } : {}),
      };
    } catch (err) {
      if (asDockerodeError(err).statusCode === 404) return undefined;
      this.fail(err, 'inspect image');
    }
  }

  async pullImage(ref: string, auth: RegistryAuth | undefined, onProgress?: (p: PullProgress) => void): Promise<void> {
    const docker = await this.client();
    let stream: NodeJS.ReadableStream;
    try {
      stream = (await docker.pull(ref, auth ? { authconfig: auth } : {})) as NodeJS.ReadableStream;
    } catch (err) {
      this.fail(err, `pull ${ref}`);
    }
    // The engine reports a failed pull inside the progress stream ({"error": …}) with status 200.
    await new Promise<void>((resolve, reject) => {
      docker.modem.followProgress(
        stream,
        (err: Error | null, output: { error?: string; errorDetail?: { message?: string } }[]) => {
          if (err) return reject(new EngineRequestError(`pull ${ref}: ${err.message}`, undefined));
          const failed = output.find((o) => o.error !== undefined);
          if (failed) return reject(new EngineRequestError(`pull ${ref}: ${failed.errorDetail?.message ?? failed.error}`, undefined));
          resolve();
        },
        (event: { id?: string; status?: string; progressDetail?: { current?: number; total?: number } }) => {
          if (!onProgress || event.status === undefined) return;
          onProgress({
            status: event.status,
            ...(event.id !== undefined ? { id: event.id } : {}),
            ...(event.progressDetail?.current !== undefined ? { current: event.progressDetail.current } : {}),
            ...(event.progressDetail?.total !== undefined ? { total: event.progressDetail.total } : {}),
          });
        },
      );
    });
  }

  async importImage(tar: Buffer, ref: string, changes: string[]): Promise<void> {
    const docker = await this.client();
    const colon = ref.lastIndexOf(':');
    const repo = colon > ref.lastIndexOf('/') ? ref.slice(0, colon) : ref;
    const tag = colon > ref.lastIndexOf('/') ? ref.slice(colon + 1) : 'latest';
    try {
      const stream = await docker.importImage(Readable.from([tar]), { repo, tag, changes });
      await new Promise<void>((resolve, reject) => {
        docker.modem.followProgress(stream, (err: Error | null, output: { error?: string }[]) => {
          const failed = output?.find((o) => o.error !== undefined);
          if (err || failed) reject(new EngineRequestError(`import ${ref}: ${err?.message ?? failed?.error}`, undefined));
          else resolve();
        });
      });
    } catch (err) {
      if (err instanceof EngineRequestError) throw err;
      this.fail(err, `import ${ref}`);
    }
  }

  async logs(id: string, options: LogsOptions): Promise<string> {
    const docker = await this.client();
    try {
      const container = docker.getContainer(id);
      const info = await container.inspect();
      const buf = (await container.logs({
        stdout: true,
        stderr: true,
        follow: false,
        ...(options.tail !== undefined ? { tail: options.tail } : {}),
        timestamps: options.timestamps ?? false,
      })) as unknown as Buffer;
      return info.Config.Tty ? buf.toString('utf8') : demultiplex(buf);
    } catch (err) {
      if (asDockerodeError(err).statusCode === 404) return '';
      this.fail(err, 'read logs');
    }
  }

  async subscribeEvents(
    labels: string[],
    onEvent: (e: EngineEvent) => void,
    onError: (err: Error) => void,
  ): Promise<EventSubscription> {
    const docker = await this.client();
    let stream: NodeJS.ReadableStream & { destroy?: () => void };
    try {
      stream = (await docker.getEvents({ filters: { type: ['container'], label: labels } })) as NodeJS.ReadableStream & {
        destroy?: () => void;
      };
    } catch (err) {
      this.fail(err, 'subscribe to events');
    }
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
        stream.destroy?.();
      },
    };
  }

  async streamLogs(id: string, options: LogStreamOptions, onOutput: (stream: OutputStream, chunk: Buffer) => void): Promise<void> {
    const docker = await this.client();
    const container = docker.getContainer(id);
    const common = {
      stdout: true,
      stderr: true,
      timestamps: options.timestamps ?? false,
      ...(options.tail !== undefined && options.tail >= 0 ? { tail: options.tail } : {}),
      ...(options.since !== undefined ? { since: options.since } : {}),
    };
    let tty: boolean;
    let source: Buffer | NodeJS.ReadableStream;
    try {
      tty = (await container.inspect()).Config.Tty;
      source = options.follow
        ? await container.logs({ ...common, follow: true, ...(options.signal ? { abortSignal: options.signal } : {}) })
        : ((await container.logs({ ...common, follow: false })) as unknown as Buffer);
    } catch (err) {
      if (options.signal?.aborted) return;
      this.fail(err, 'read logs');
    }
    // A TTY container's output is one raw stream; otherwise frames say which stream each piece is.
    const demux = tty ? undefined : new FrameDemuxer(onOutput);
    const deliver = (chunk: Buffer): void => (demux ? demux.push(chunk) : onOutput('stdout', chunk));
    if (Buffer.isBuffer(source)) {
      deliver(source);
      return;
    }
    const stream = source as NodeJS.ReadableStream & { destroy?: () => void };
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        stream.destroy?.();
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

  async execAttached(id: string, o: ExecOptions): Promise<number> {
    const docker = await this.client();
    let exec: Dockerode.Exec;
    let socket: Duplex;
    try {
      exec = await docker.getContainer(id).exec({ Cmd: o.cmd, AttachStdin: o.stdin !== undefined, AttachStdout: true, AttachStderr: true, Tty: o.tty });
      // hijack: the HTTP connection becomes the command's stdin and output, both ways at once.
      socket = (await exec.start({ hijack: true, stdin: o.stdin !== undefined, Detach: false, Tty: o.tty })) as unknown as Duplex;
    } catch (err) {
      this.fail(err, 'exec');
    }
    const resize = (size: { rows: number; columns: number }): void => {
      exec.resize({ h: size.rows, w: size.columns }).catch(() => undefined); // cosmetic; the command runs on regardless
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
    try {
      await new Promise<void>((resolve, reject) => {
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
    }
    // The stream can close a moment before the engine records the exit code.
    for (let i = 0; ; i++) {
      let info: { Running: boolean; ExitCode: number | null };
      try {
        info = (await exec.inspect()) as { Running: boolean; ExitCode: number | null };
      } catch (err) {
        this.fail(err, 'inspect exec');
      }
      if (!info.Running && info.ExitCode !== null) return info.ExitCode;
      if (i >= 100) throw new EngineError(this.address, `the command's output ended but the engine reports no exit code for it`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async containerStats(id: string): Promise<ContainerStats | undefined> {
    const docker = await this.client();
    let raw: RawStats;
    try {
      // stream=false: one sample, taken after the engine has a previous CPU reading to compare with.
      raw = (await docker.getContainer(id).stats({ stream: false })) as unknown as RawStats;
    } catch (err) {
      if (asDockerodeError(err).statusCode === 404) return undefined;
      this.fail(err, 'read stats');
    }
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
      ...(raw.networks
        ? { networks: Object.fromEntries(Object.entries(raw.networks).map(([k, n]) => [k, { rxBytes: n.rx_bytes ?? 0, txBytes: n.tx_bytes ?? 0 }])) }
        : {}),
      blkio: (raw.blkio_stats?.io_service_bytes_recursive ?? []).map((b) => ({ op: b.op ?? '', value: b.value ?? 0 })),
      ...(raw.pids_stats?.current !== undefined ? { pids: raw.pids_stats.current } : {}),
    };
  }

  async listVolumes(labels: string[]): Promise<VolumeSummary[]> {
    const docker = await this.client();
    try {
      const res = await docker.listVolumes({ filters: { label: labels } });
      return (res.Volumes ?? []).map((v) => {
        const createdAt = (v as { CreatedAt?: string }).CreatedAt;
        return { name: v.Name, labels: (v.Labels as Record<string, string> | null) ?? {}, ...(createdAt ? { createdAt } : {}) };
      });
    } catch (err) {
      this.fail(err, 'list volumes');
    }
  }

  async removeVolume(name: string): Promise<void> {
    const docker = await this.client();
    try {
      await docker.getVolume(name).remove();
    } catch (err) {
      if (asDockerodeError(err).statusCode === 404) return;
      this.fail(err, 'remove volume');
    }
  }

  async execCapture(id: string, cmd: string[], timeoutMs: number): Promise<ExecCaptureResult> {
    const docker = await this.client();
    const deadline = Date.now() + timeoutMs;
    let exec: Dockerode.Exec;
    let stream: Duplex;
    try {
      exec = await docker.getContainer(id).exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true, Tty: false });
      stream = (await exec.start({ hijack: true, stdin: false, Detach: false })) as unknown as Duplex;
    } catch (err) {
      this.fail(err, 'exec');
    }
    let output = '';
    const demux = new FrameDemuxer((_stream, payload) => {
      if (output.length < execCaptureLimit) output += payload.toString('utf8');
    });
    const finished = await new Promise<boolean>((resolve) => {
      // No way to kill an exec through the API: on timeout the connection is dropped and the command abandoned.
      const timer = setTimeout(() => {
        resolve(false);
        stream.destroy();
      }, Math.max(0, deadline - Date.now()));
      const end = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      stream.on('data', (c: Buffer) => demux.push(c));
      stream.on('end', end);
      stream.on('close', end);
      stream.on('error', end);
    });
    if (!finished) return { output, timedOut: true };
    // The stream can close a moment before the engine records the exit code.
    for (;;) {
      let info: { Running: boolean; ExitCode: number | null };
      try {
        info = (await exec.inspect()) as { Running: boolean; ExitCode: number | null };
      } catch (err) {
        this.fail(err, 'inspect exec');
      }
      if (!info.Running && info.ExitCode !== null) return { exitCode: info.ExitCode, output, timedOut: false };
      if (Date.now() >= deadline) return { output, timedOut: true };
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async readContainerFile(id: string, filePath: string, maxBytes: number): Promise<Buffer | undefined> {
    const docker = await this.client();
    let stream: NodeJS.ReadableStream;
    try {
      stream = await docker.getContainer(id).getArchive({ path: filePath });
    } catch (err) {
      if (asDockerodeError(err).statusCode === 404) return undefined;
      this.fail(err, 'read file from container');
    }
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
    const tar = Buffer.concat(chunks);
    return firstTarFile(tar, maxBytes);
  }

  // Volumes and archives (reconcile/volumes.ts): named volumes made and filled through the engine only.

  get isLocal(): boolean {
    return this.endpoint.kind === 'unix';
  }

  async createVolume(name: string, options: VolumeCreate): Promise<VolumeInfo> {
    const docker = await this.client();
    try {
      const v = (await docker.createVolume({
        Name: name,
        Driver: 'local',
        Labels: options.labels,
        ...(options.driverOpts ? { DriverOpts: options.driverOpts } : {}),
      })) as unknown as Dockerode.VolumeInspectInfo;
      return toVolumeInfo(v);
    } catch (err) {
      this.fail(err, 'create volume');
    }
  }

  async inspectVolume(name: string): Promise<VolumeInfo | undefined> {
    const docker = await this.client();
    try {
      return toVolumeInfo(await docker.getVolume(name).inspect());
    } catch (err) {
      if (asDockerodeError(err).statusCode === 404) return undefined;
      this.fail(err, 'inspect volume');
    }
  }

  async putArchive(id: string, dest: string, tar: Buffer): Promise<void> {
    const docker = await this.client();
    try {
      await docker.getContainer(id).putArchive(tar, { path: dest });
    } catch (err) {
      this.fail(err, 'write files into a container');
    }
  }

  async statPath(id: string, target: string): Promise<PathStat | undefined> {
    const docker = await this.client();
    try {
      // HEAD /containers/{id}/archive answers with the stat as base64 JSON in X-Docker-Container-Path-Stat.
      const res = (await docker.getContainer(id).infoArchive({ path: target })) as unknown as { headers?: Record<string, string> } | Record<string, string>;
      const headers = ('headers' in res && res.headers ? res.headers : res) as Record<string, string>;
      // A HEAD answer has no body, but the stream must still be drained to free the socket.
      (res as { resume?: () => void }).resume?.();
      const raw = headers['x-docker-container-path-stat'];
      if (raw === undefined) return undefined;
      const stat = JSON.parse(Buffer.from(raw, 'base64').toString('utf8')) as { name?: string; size?: number; mode?: number; linkTarget?: string };
      return { name: stat.name ?? '', size: stat.size ?? 0, mode: stat.mode ?? 0, linkTarget: stat.linkTarget ?? '' };
    } catch (err) {
      if (asDockerodeError(err).statusCode === 404) return undefined;
      this.fail(err, 'stat a path in a container');
    }
  }

  async hostInfo(): Promise<HostInfo> {
    const docker = await this.client();
    try {
      const info = (await docker.info()) as { Name?: string; NCPU?: number; MemTotal?: number };
      return { name: info.Name ?? '', cpus: info.NCPU ?? 0, memoryBytes: info.MemTotal ?? 0 };
    } catch (err) {
      this.fail(err, 'engine info');
    }
  }

  async killForRestart(id: string, gracePeriodSeconds: number): Promise<'signalled' | 'stopped'> {
    const info = await this.inspectContainer(id);
    if (!info || !info.State.Running) return 'signalled'; // it has ended already; its restart policy has it
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
function tlsReason(e: DockerodeError, endpoint: Endpoint): string {
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

function toVolumeInfo(v: Dockerode.VolumeInspectInfo): VolumeInfo {
  return { name: v.Name, mountpoint: v.Mountpoint, labels: v.Labels ?? {}, driver: v.Driver, options: v.Options ?? {} };
}
