// The Engine interface over a real Docker engine, through dockerode. The only module that imports
// dockerode, and it does so lazily: loading it costs ~170-200 ms (ssh2, gRPC), which commands that never
// reach the engine (validate, --help, a manifest error) should not pay.
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type Dockerode from 'dockerode';
import { EngineError, EngineUnreachableError } from '../errors.js';
import type { Endpoint } from './connection.js';
import {
  type ContainerInspect,
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
    const { default: DockerodeCtor } = await import('dockerode');
    const e = this.endpoint;
    if (e.kind === 'unix') return new DockerodeCtor({ socketPath: e.socketPath! });
    if (e.kind === 'ssh') {
      return new DockerodeCtor({ protocol: 'ssh', host: e.host!, port: e.port!, ...(e.username ? { username: e.username } : {}) });
    }
    if (e.tls) {
      const read = async (f: string): Promise<Buffer | undefined> =>
        fs.readFile(path.join(e.tls!.certPath, f)).catch(() => undefined);
      const [ca, cert, key] = await Promise.all([read('ca.pem'), read('cert.pem'), read('key.pem')]);
      // Verification (DOCKER_TLS_VERIFY) checks the server against ca.pem; without it, TLS without checking.
      return new DockerodeCtor({
        protocol: 'https',
        host: e.host!,
        port: e.port!,
        ...(ca && e.tls.verify ? { ca } : {}),
        ...(cert ? { cert } : {}),
        ...(key ? { key } : {}),
        ...(e.tls.verify ? {} : { rejectUnauthorized: false }),
      } as Dockerode.DockerOptions);
    }
    return new DockerodeCtor({ protocol: 'http', host: e.host!, port: e.port! });
  }

  /** Turn a dockerode failure into runpod's error classes. */
  private fail(err: unknown, what: string): never {
    const e = asDockerodeError(err);
    if (e.code !== undefined && connectionCodes.has(e.code)) {
      throw new EngineUnreachableError(this.address, `${what}: ${e.code}${e.message ? ` (${e.message})` : ''}`);
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
      return { id: info.Id, ...(info.Architecture ? { architecture: info.Architecture } : {}) };
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
}

/**
 * Split the Engine API's multiplexed log stream (non-TTY containers): frames of an 8-byte header — stream
 * type, three zero bytes, big-endian length — then the payload. stdout and stderr are joined in order.
 */
export function demultiplex(buf: Buffer): string {
  const parts: Buffer[] = [];
  let i = 0;
  while (i + 8 <= buf.length) {
    const size = buf.readUInt32BE(i + 4);
    parts.push(buf.subarray(i + 8, i + 8 + size));
    i += 8 + size;
  }
  return Buffer.concat(parts).toString('utf8');
}
