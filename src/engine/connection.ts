// Which engine to talk to, by the docker CLI's order of precedence: --host, then DOCKER_HOST (with
// DOCKER_TLS_VERIFY / DOCKER_CERT_PATH for tcp), then the current Docker context, then the default socket.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../errors.js';

export const defaultSocket = '/var/run/docker.sock';

export type EndpointKind = 'unix' | 'tcp' | 'ssh';

export interface Endpoint {
  /** The address as the user would write it, for messages. */
  address: string;
  kind: EndpointKind;
  socketPath?: string;
  host?: string;
  port?: number;
  username?: string;
  tls?: { verify: boolean; certPath: string };
}

/** The Docker config directory: DOCKER_CONFIG, else ~/.docker (the docker CLI's config.Dir()). */
export function dockerConfigDir(env: NodeJS.ProcessEnv, home: string): string {
  return env.DOCKER_CONFIG || path.join(home, '.docker');
}

/**
 * Parse an engine address in DOCKER_HOST form. For tcp, TLS comes from the environment (DOCKER_TLS_VERIFY,
 * DOCKER_TLS, DOCKER_CERT_PATH) unless `contextTls` is given: a context carries its own TLS material and the
 * environment's TLS variables do not apply to it (null: the context has none).
 */
export function parseEngineAddress(address: string, env: NodeJS.ProcessEnv, home: string, contextTls?: Endpoint['tls'] | null): Endpoint {
  if (address.startsWith('unix://')) {
    return { address, kind: 'unix', socketPath: address.slice('unix://'.length) };
  }
  if (address.startsWith('/')) return { address: `unix://${address}`, kind: 'unix', socketPath: address };
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new UsageError(`engine address "${address}" is not valid: expected unix:///path, tcp://host:port or ssh://user@host`);
  }
  if (url.protocol === 'tcp:' || url.protocol === 'http:' || url.protocol === 'https:') {
    // docker CLI: DOCKER_TLS_VERIFY (any non-empty value) turns TLS on and verifies the server, DOCKER_TLS
    // turns it on without verifying; certificates come from DOCKER_CERT_PATH, default the config directory
    // (DOCKER_CONFIG or ~/.docker). Without TLS the default port is 2375, with it 2376.
    const tls: Endpoint['tls'] | undefined =
      contextTls !== undefined
        ? (contextTls ?? undefined)
        : env.DOCKER_TLS_VERIFY || env.DOCKER_TLS || url.protocol === 'https:'
          ? { verify: Boolean(env.DOCKER_TLS_VERIFY), certPath: env.DOCKER_CERT_PATH || dockerConfigDir(env, home) }
          : undefined;
    const port = url.port ? Number(url.port) : tls ? 2376 : 2375;
    return { address, kind: 'tcp', host: url.hostname, port, ...(tls ? { tls } : {}) };
  }
  if (url.protocol === 'ssh:') {
    return {
      address,
      kind: 'ssh',
      host: url.hostname,
      port: url.port ? Number(url.port) : 22,
      ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    };
  }
  throw new UsageError(`engine address "${address}" has an unsupported scheme ${url.protocol}: use unix://, tcp:// or ssh://`);
}

/** The current context's name: DOCKER_CONTEXT, else currentContext in config.json; undefined for "default". */
async function currentContextName(env: NodeJS.ProcessEnv, configDir: string): Promise<string | undefined> {
  let name = env.DOCKER_CONTEXT;
  if (!name) {
    const text = await fs.readFile(path.join(configDir, 'config.json'), 'utf8').catch(() => undefined);
    if (text === undefined) return undefined;
    try {
      name = (JSON.parse(text) as { currentContext?: string }).currentContext;
    } catch {
      return undefined; // a broken config.json is reported where credentials are read
    }
  }
  return name && name !== 'default' ? name : undefined;
}

/**
 * The docker CLI's context store: contexts/meta/<sha256 of the name>/meta.json holds the endpoint
 * ({"Endpoints": {"docker": {"Host": …, "SkipTLSVerify": …}}}), and contexts/tls/<same digest>/docker/ holds
 * ca.pem, cert.pem and key.pem when the endpoint uses TLS.
 */
export async function contextEndpoint(name: string, env: NodeJS.ProcessEnv, home: string): Promise<Endpoint> {
  const configDir = dockerConfigDir(env, home);
  const digest = createHash('sha256').update(name).digest('hex');
  const metaFile = path.join(configDir, 'contexts', 'meta', digest, 'meta.json');
  const meta = await fs.readFile(metaFile, 'utf8').catch(() => undefined);
  if (meta === undefined) throw new UsageError(`Docker context "${name}" not found (${metaFile} is missing)`);
  let docker: { Host?: string; SkipTLSVerify?: boolean } | undefined;
  try {
    docker = (JSON.parse(meta) as { Endpoints?: { docker?: { Host?: string; SkipTLSVerify?: boolean } } }).Endpoints?.docker;
  } catch (err) {
    throw new UsageError(`Docker context "${name}": ${metaFile} is not valid JSON (${(err as Error).message})`);
  }
  if (!docker?.Host) throw new UsageError(`Docker context "${name}" has no docker endpoint host (${metaFile})`);
  const tlsDir = path.join(configDir, 'contexts', 'tls', digest, 'docker');
  const files = await fs.readdir(tlsDir).catch(() => [] as string[]);
  const hasTls = files.some((f) => f === 'ca.pem' || f === 'cert.pem' || f === 'key.pem');
  return parseEngineAddress(docker.Host, env, home, hasTls ? { verify: !docker.SkipTLSVerify, certPath: tlsDir } : null);
}

/**
 * The docker CLI's order: --host, then DOCKER_HOST, then the context named by DOCKER_CONTEXT or by
 * currentContext in config.json, then the default socket. (A set DOCKER_HOST beats DOCKER_CONTEXT, as in the
 * docker CLI, where DOCKER_HOST selects the "default" context.)
 */
export async function resolveEndpoint(flagHost: string | undefined, env: NodeJS.ProcessEnv): Promise<Endpoint> {
  const home = env.HOME || os.homedir();
  if (flagHost) return parseEngineAddress(flagHost, env, home);
  if (env.DOCKER_HOST) return parseEngineAddress(env.DOCKER_HOST, env, home);
  const context = await currentContextName(env, dockerConfigDir(env, home));
  if (context) return contextEndpoint(context, env, home);
  return { address: `unix://${defaultSocket}`, kind: 'unix', socketPath: defaultSocket };
}
