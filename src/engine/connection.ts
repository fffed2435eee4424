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

/** Parse an engine address in DOCKER_HOST form. */
export function parseEngineAddress(address: string, env: NodeJS.ProcessEnv, home: string): Endpoint {
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
    // docker CLI: DOCKER_TLS_VERIFY (any non-empty value) turns TLS on and verifies the server; certificates
    // come from DOCKER_CERT_PATH, default ~/.docker. Without TLS the default port is 2375, with it 2376.
    const tlsOn = Boolean(env.DOCKER_TLS_VERIFY) || url.protocol === 'https:';
    const certPath = env.DOCKER_CERT_PATH || path.join(home, '.docker');
    const port = url.port ? Number(url.port) : tlsOn ? 2376 : 2375;
    return {
      address,
      kind: 'tcp',
      host: url.hostname,
      port,
      ...(tlsOn ? { tls: { verify: Boolean(env.DOCKER_TLS_VERIFY), certPath } } : {}),
    };
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

/** Read the current Docker context's endpoint from the Docker config, as the docker CLI does. */
async function contextHost(env: NodeJS.ProcessEnv, home: string): Promise<string | undefined> {
  const configDir = env.DOCKER_CONFIG || path.join(home, '.docker');
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
  if (!name || name === 'default') return undefined;
  // Context metadata lives under contexts/meta/<sha256 of the name>/meta.json.
  const digest = createHash('sha256').update(name).digest('hex');
  const metaFile = path.join(configDir, 'contexts', 'meta', digest, 'meta.json');
  const meta = await fs.readFile(metaFile, 'utf8').catch(() => undefined);
  if (meta === undefined) throw new UsageError(`Docker context "${name}" not found (${metaFile} is missing)`);
  const parsed = JSON.parse(meta) as { Endpoints?: { docker?: { Host?: string } } };
  return parsed.Endpoints?.docker?.Host;
}

export async function resolveEndpoint(flagHost: string | undefined, env: NodeJS.ProcessEnv): Promise<Endpoint> {
  const home = env.HOME || os.homedir();
  if (flagHost) return parseEngineAddress(flagHost, env, home);
  if (env.DOCKER_HOST) return parseEngineAddress(env.DOCKER_HOST, env, home);
  const fromContext = await contextHost(env, home);
  if (fromContext) return parseEngineAddress(fromContext, env, home);
  return { address: `unix://${defaultSocket}`, kind: 'unix', socketPath: defaultSocket };
}
