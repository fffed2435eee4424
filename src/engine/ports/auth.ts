// Registry credentials for a pull, found the way the docker CLI finds them (cli/config): the config file
// ($DOCKER_CONFIG/config.json or ~/.docker/config.json), a per-registry credential helper, the default
// credential store, then the file's own `auths`. The look-up is pure over AuthIO so tests need no files.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseImageRef, dockerHubDomain } from '../../imageRef.js';
import type { RegistryAuth } from './images.js';

export interface AuthIO {
  /** The file's text, or undefined when it does not exist. Other failures (permissions …) throw. */
  readFile(path: string): Promise<string | undefined>;
  /**
   * Run `<program> get` with `input` on stdin and resolve with its stdout. A non-zero exit rejects with an
   * Error whose message holds the helper's output (helpers report "credentials not found" that way).
   */
  runHelper(program: string, input: string): Promise<string>;
}

/** The key the docker CLI files Docker Hub's credentials under (registry.IndexServer). */
export const dockerHubAuthKey = 'https://index.docker.io/v1/';

/** The message docker-credential-helpers prints (and exits non-zero) when it holds nothing for a server. */
const notFoundMessage = 'credentials not found';

/** Helpers answer this user name when the secret is an identity (refresh) token, not a password. */
const tokenUsername = '<token>';

/** Where the docker CLI reads its config file: $DOCKER_CONFIG/config.json, else $HOME/.docker/config.json. */
export function dockerConfigPath(env: NodeJS.ProcessEnv): string | undefined {
  if (env.DOCKER_CONFIG) return path.join(env.DOCKER_CONFIG, 'config.json');
  if (env.HOME) return path.join(env.HOME, '.docker', 'config.json');
  return undefined;
}

/** The config key for an image's registry: Hub's legacy index URL, otherwise the host[:port]. */
export function registryAuthKey(image: string): string {
  const { domain } = parseImageRef(image);
  return domain === dockerHubDomain ? dockerHubAuthKey : domain;
}

/**
 * Credentials for pulling `image`, or undefined for an anonymous pull. Throws an Error naming the config file
 * or the helper when either is broken; no message ever carries a secret.
 */
export async function resolveRegistryAuth(image: string, env: NodeJS.ProcessEnv, io: AuthIO): Promise<RegistryAuth | undefined> {
  const file = dockerConfigPath(env);
  if (file === undefined) return undefined;
  let text: string | undefined;
  try {
    text = await io.readFile(file);
  } catch (err) {
    throw new Error(`cannot read docker config ${file}: ${errorText(err)}`);
  }
  // An empty file is an empty config to the docker CLI too (it ignores io.EOF).
  if (text === undefined || text.trim() === '') return undefined;
  const config = parseConfig(text, file);
  const key = registryAuthKey(image);

  // The CLI's getConfiguredCredentialStore: a per-registry helper wins over the default store. Either one is
  // authoritative: the file's auths are not consulted when a helper is configured.
  const helper = config.credHelpers[key] ?? (config.credsStore !== '' ? config.credsStore : undefined);
  if (helper !== undefined) return fromHelper(helper, key, io);
  return fromAuths(config, key, file);
}

/**
 * Credentials for `image` from an image pull secret's Docker config (the kubelet reads the same `auths` map,
 * pkg/credentialprovider). The legacy .dockercfg form is the bare map, without the "auths" wrapper. Errors name
 * the Secret, never a value.
 */
export function authFromPullSecret(config: string, legacy: boolean, image: string, secretName: string): RegistryAuth | undefined {
  const where = `imagePullSecret ${secretName}`;
  let text = config;
  if (legacy) {
    let inner: unknown;
    try {
      inner = JSON.parse(config);
    } catch {
      throw new Error(`docker config ${where} is not valid JSON`);
    }
    text = JSON.stringify({ auths: inner });
  }
  return fromAuths(parseConfig(text, where), registryAuthKey(image), where);
}

interface AuthEntry {
  auth?: string;
  username?: string;
  password?: string;
  identitytoken?: string;
}

interface DockerConfig {
  /** Keys in file order, so a scheme-form match is deterministic when several keys name one host. */
  auths: [string, AuthEntry][];
  credHelpers: Record<string, string>;
  credsStore: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseConfig(text: string, file: string): DockerConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    // V8's message quotes the text around the error, which may be a password: report only the position.
    const position = /position (\d+)/.exec(errorText(err))?.[1];
    const where = position !== undefined ? ` (${lineColumn(text, Number(position))})` : '';
    throw new Error(`docker config ${file} is not valid JSON${where}`);
  }
  if (!isObject(raw)) throw new Error(`docker config ${file}: expected a JSON object`);

  const credsStore = raw.credsStore ?? '';
  if (typeof credsStore !== 'string') throw new Error(`docker config ${file}: credsStore must be a string`);

  const credHelpers: Record<string, string> = {};
  if (raw.credHelpers !== undefined) {
    if (!isObject(raw.credHelpers)) throw new Error(`docker config ${file}: credHelpers must be an object`);
    for (const [k, v] of Object.entries(raw.credHelpers)) {
      if (typeof v !== 'string') throw new Error(`docker config ${file}: credHelpers["${k}"] must be a string`);
      credHelpers[k] = v;
    }
  }

  const auths: [string, AuthEntry][] = [];
  if (raw.auths !== undefined && raw.auths !== null) {
    if (!isObject(raw.auths)) throw new Error(`docker config ${file}: auths must be an object`);
    for (const [k, v] of Object.entries(raw.auths)) {
      if (!isObject(v)) throw new Error(`docker config ${file}: auths["${k}"] must be an object`);
      const entry: AuthEntry = {};
      for (const field of ['auth', 'username', 'password', 'identitytoken'] as const) {
        const value = v[field];
        if (value === undefined || value === null) continue;
        if (typeof value !== 'string') throw new Error(`docker config ${file}: auths["${k}"].${field} must be a string`);
        entry[field] = value;
      }
      auths.push([k, entry]);
    }
  }
  return { auths, credHelpers, credsStore };
}

function lineColumn(text: string, position: number): string {
  const before = text.slice(0, position).split('\n');
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

/** The CLI's ConvertToHostname: drop an http(s):// scheme and anything after the host. */
function toHostname(key: string): string {
  const stripped = key.replace(/^https?:\/\//, '');
  const slash = stripped.indexOf('/');
  return slash >= 0 ? stripped.slice(0, slash) : stripped;
}

function fromAuths(config: DockerConfig, key: string, file: string): RegistryAuth | undefined {
  // Exact key first; then keys written as URLs (https://host:port/v1/), as the CLI's file store does. Hub's
  // key is itself a URL, so it only matches exactly, as in the CLI.
  const match = config.auths.find(([k]) => k === key) ?? config.auths.find(([k]) => toHostname(k) === key);
  if (match === undefined) return undefined;
  const [matchedKey, entry] = match;
  let username = entry.username;
  let password = entry.password;
  if (entry.auth !== undefined && entry.auth !== '') {
    [username, password] = decodeAuth(entry.auth, file, matchedKey);
  }
  const identitytoken = entry.identitytoken !== undefined && entry.identitytoken !== '' ? entry.identitytoken : undefined;
  if (!username && !password && identitytoken === undefined) return undefined;
  return {
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
    ...(identitytoken !== undefined ? { identitytoken } : {}),
    serveraddress: key,
  };
}

/** `auth` is base64 of "user:password"; the password may itself hold colons, so split at the first. */
function decodeAuth(auth: string, file: string, key: string): [string, string] {
  const fail = (): never => {
    throw new Error(`docker config ${file}: auths["${key}"].auth is not base64 of "user:password"`);
  };
  // Buffer.from accepts any text, silently dropping bad characters; Go's decoder (and so the CLI) refuses it.
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(auth) || auth.length % 4 === 1) fail();
  const decoded = Buffer.from(auth, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) fail();
  return [decoded.slice(0, colon), decoded.slice(colon + 1)];
}

async function fromHelper(name: string, key: string, io: AuthIO): Promise<RegistryAuth | undefined> {
  const program = `docker-credential-${name}`;
  let out: string;
  try {
    out = await io.runHelper(program, key);
  } catch (err) {
    const text = errorText(err);
    if (text.toLowerCase().includes(notFoundMessage)) return undefined;
    throw new Error(`credential helper ${program} failed for ${key}: ${text}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(out);
  } catch {
    // Not quoted: the output of a half-working helper may hold the secret.
    throw new Error(`credential helper ${program} gave invalid JSON for ${key}`);
  }
  if (!isObject(raw) || typeof raw.Secret !== 'string' || (raw.Username !== undefined && typeof raw.Username !== 'string')) {
    throw new Error(`credential helper ${program} gave an unexpected answer for ${key} (want {"Username", "Secret"})`);
  }
  const username = typeof raw.Username === 'string' ? raw.Username : '';
  if (raw.Secret === '' && username === '') return undefined;
  if (username === tokenUsername) return { identitytoken: raw.Secret, serveraddress: key };
  return { username, password: raw.Secret, serveraddress: key };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The real IO: the file system and credential helper programs on PATH. */
export const defaultAuthIO: AuthIO = {
  async readFile(file: string): Promise<string | undefined> {
    try {
      return await readFile(file, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw err;
    }
  },

  runHelper(program: string, input: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = spawn(program, ['get'], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', (err: NodeJS.ErrnoException) => {
        reject(new Error(err.code === 'ENOENT' ? `${program} not found on PATH` : err.message));
      });
      child.on('close', (code, signal) => {
        if (code === 0) return resolve(stdout);
        // Helpers print their error (e.g. "credentials not found in native keychain") on stdout.
        const said = `${stdout.trim()} ${stderr.trim()}`.trim().slice(0, 500);
        reject(new Error(`${signal !== null ? `killed by ${signal}` : `exit code ${code}`}${said ? `: ${said}` : ''}`));
      });
      // A helper that exits without reading stdin makes the write fail with EPIPE; its exit status tells more.
      child.stdin.on('error', () => undefined);
      child.stdin.end(input);
    });
  },
};
