// The Docker Engine API over HTTP, as small as runpod needs: one request shape, two ways to send it.
//
// Unix sockets, tcp and tcp+TLS go through node:http(s) directly, with a keep-alive agent so that a sync's
// parallel creates and inspects share connections. ssh goes through docker-modem (dockerode's transport), which runs
// `docker system dial-stdio` on the remote host; it (ssh2) is slow to load, so it is
// imported only for an ssh engine. Paths are unversioned: the engine answers in its own API version, as it
// does for dockerode.
import type http from 'node:http';
import type https from 'node:https';
import type { Duplex } from 'node:stream';
import { nodeHttp } from '../lazyBuiltins.js';

/** One API request. Query values: objects (filters) go as JSON, arrays as repeated keys (Engine API rules). */
export interface ApiRequest {
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | string[] | Record<string, unknown> | undefined>;
  /** A JSON body. */
  body?: unknown;
  /** A raw body (a tar archive) and its content type. */
  raw?: { data: Buffer; contentType: string };
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * An answer of 300 or more: statusCode and the engine's JSON ({message}) where it sent one. The shape is the
 * one dockerode's errors have, so one function (docker.ts fail) classifies both.
 */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly statusCode: number,
    readonly json: { message?: string } | null,
    text: string,
  ) {
    super(`(HTTP code ${statusCode}) - ${json?.message ?? text}`);
  }
}

/** How requests reach the engine. open resolves with the response once its status is below 300. */
export interface ApiTransport {
  open(req: ApiRequest): Promise<http.IncomingMessage>;
  /** POST with an upgrade to a raw stream both ways (exec start): the Engine API's "hijack". */
  upgrade(req: ApiRequest): Promise<Duplex>;
}

export function queryString(query: ApiRequest['query']): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const item of v) params.append(k, item);
    else if (typeof v === 'object') params.append(k, JSON.stringify(v));
    else params.append(k, String(v));
  }
  const s = params.toString();
  return s === '' ? '' : `?${s}`;
}

/** The request body and its headers. POST without a body sends none: the engine refuses a body on start. */
function bodyOf(req: ApiRequest): { data?: Buffer; headers: Record<string, string> } {
  if (req.raw) return { data: req.raw.data, headers: { 'Content-Type': req.raw.contentType } };
  if (req.body !== undefined) return { data: Buffer.from(JSON.stringify(req.body), 'utf8'), headers: { 'Content-Type': 'application/json' } };
  return { headers: {} };
}

/** Read a whole response body. */
export function readAll(res: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
  });
}

async function failure(res: http.IncomingMessage): Promise<ApiError> {
  const text = (await readAll(res).catch(() => Buffer.alloc(0))).toString('utf8').trim();
  let json: { message?: string } | null = null;
  try {
    json = JSON.parse(text) as { message?: string };
  } catch {
    // Not JSON (a proxy's page, an empty 304): the text says what there is.
  }
  return new ApiError(res.statusCode ?? 0, json, text || (res.statusMessage ?? ''));
}

type Target = { socketPath: string } | { host: string; port: number };

/** node:http(s) straight to a unix socket or a tcp address. */
export class HttpTransport implements ApiTransport {
  private readonly agent: http.Agent;
  private readonly request: typeof http.request;
  /**
   * Without TLS no server name is sent, so none is worked out: node's agent otherwise derives one from the host
   * on every request and asks net.isIP of it, whose first call compiles node's IPv4 and IPv6 expressions (3-9 ms of
   * every command that reaches the engine, measured in a profile of the no-op re-run). With TLS it stays node's
   * (SNI), as before.
   */
  private readonly servername: { servername?: string };

  constructor(
    private readonly target: Target,
    tls?: { https: typeof https; options: https.AgentOptions },
  ) {
    if (tls) {
      this.agent = new tls.https.Agent({ ...tls.options, keepAlive: true });
      this.request = tls.https.request as typeof http.request;
      this.servername = {};
    } else {
      const { Agent, request } = nodeHttp();
      this.agent = new Agent({ keepAlive: true });
      this.request = request;
      this.servername = { servername: '' };
    }
  }

  private send(req: ApiRequest, extraHeaders: Record<string, string>): http.ClientRequest {
    const { data, headers } = bodyOf(req);
    const r = this.request({
      ...this.target,
      ...this.servername,
      agent: this.agent,
      method: req.method,
      path: req.path + queryString(req.query),
      headers: { ...headers, ...(data ? { 'Content-Length': String(data.length) } : {}), ...req.headers, ...extraHeaders },
      ...(req.signal ? { signal: req.signal } : {}),
    });
    r.end(data);
    return r;
  }

  open(req: ApiRequest): Promise<http.IncomingMessage> {
    return new Promise((resolve, reject) => {
      const r = this.send(req, {});
      r.on('error', reject);
      r.on('response', (res) => {
        if ((res.statusCode ?? 0) < 300) resolve(res);
        else failure(res).then(reject, reject);
      });
    });
  }

  upgrade(req: ApiRequest): Promise<Duplex> {
    return new Promise((resolve, reject) => {
      const r = this.send(req, { Connection: 'Upgrade', Upgrade: 'tcp' });
      r.on('error', reject);
      r.on('upgrade', (_res, socket, head) => {
        if (head.length > 0) socket.unshift(head);
        resolve(socket);
      });
      // An engine that does not switch protocols answers plainly: an error, or (old engines) the stream itself.
      r.on('response', (res) => {
        if ((res.statusCode ?? 0) >= 300) failure(res).then(reject, reject);
        else reject(new Error(`the engine answered ${res.statusCode} instead of switching protocols for ${req.path}`));
      });
    });
  }
}

interface ModemDialOptions {
  path: string;
  method: string;
  options: object;
  statusCodes: Record<number, boolean>;
  isStream?: boolean;
  hijack?: boolean;
  file?: Buffer;
  headers?: Record<string, string>;
  abortSignal?: AbortSignal;
}

/** The part of docker-modem runpod uses for ssh: dial, with a stream or a hijacked socket as the answer. */
export interface ModemDial {
  dial(options: ModemDialOptions, callback: (err: unknown, result: unknown) => void): void;
}

/** Requests through docker-modem (ssh): the same request shape, the modem's errors as they come. */
export class ModemTransport implements ApiTransport {
  constructor(private readonly modem: ModemDial) {}

  private dial<T>(req: ApiRequest, extra: Partial<ModemDialOptions>): Promise<T> {
    const query = queryString(req.query);
    return new Promise((resolve, reject) => {
      this.modem.dial(
        {
          // The modem appends its own query string after a '?'; the request's is already formatted.
          path: req.path + (query === '' ? '?' : `${query}&`),
          method: req.method,
          // `_body: {}` sends no body (the modem drops "{}"); the query travels in the path.
          options: { _query: {}, _body: req.body ?? {} },
          ...(req.raw ? { file: req.raw.data, headers: { 'Content-Type': req.raw.contentType, ...req.headers } } : req.headers ? { headers: req.headers } : {}),
          ...(req.signal ? { abortSignal: req.signal } : {}),
          statusCodes: { 200: true, 201: true, 204: true },
          isStream: true,
          ...extra,
        },
        (err, result) => (err ? reject(err) : resolve(result as T)),
      );
    });
  }

  open(req: ApiRequest): Promise<http.IncomingMessage> {
    return this.retried(() => this.dial<http.IncomingMessage>(req, {}));
  }

  upgrade(req: ApiRequest): Promise<Duplex> {
    return this.retried(() => this.dial<Duplex>(req, { hijack: true }));
  }

  /**
   * An ssh connection the server drops before its handshake has sent nothing, so asking again is safe. sshd drops
   * new connections beyond its MaxStartups (10 by default) while they authenticate, which a run's parallel
   * requests (several pods, networks and Services at once) reach; seen here as "Connection lost before handshake".
   */
  private async retried<T>(attempt: () => Promise<T>): Promise<T> {
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (err) {
        if (n >= 4 || !(err instanceof Error) || !/before handshake/i.test(err.message)) throw err;
        await new Promise((r) => setTimeout(r, 100 * 2 ** n + Math.floor(Math.random() * 100)));
      }
    }
  }
}
