// Test support: a real registry (Debian's docker-registry, distribution 2.8) on loopback, so pull tests run
// without the network. Docker treats 127.0.0.0/8 as an insecure registry by default, so plain HTTP works
// with no engine configuration (`docker info` lists it under Insecure Registries).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { freePort } from './harness.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface RegistryCredentials {
  username: string;
  password: string;
}

export interface Registry {
  /** 127.0.0.1:<port> */
  host: string;
  /** Push a local image as host/repoTag, then untag it locally so later pulls are real. Returns host/repoTag. */
  push(localImage: string, repoTag: string): Promise<string>;
  /** A fresh directory for DOCKER_CONFIG holding `auths` for this registry (the password can be overridden). */
  dockerConfigDir(options?: { password?: string }): string;
  stop(): Promise<void>;
}

/** Debian installs the registry under this name (`dpkg -L docker-registry`); upstream calls it `registry`. */
const registryBinaries = ['/usr/bin/docker-registry', '/usr/bin/registry'];

function registryBinary(): string {
  const found = registryBinaries.find((p) => fs.existsSync(p));
  if (found === undefined) throw new Error(`no registry binary (${registryBinaries.join(', ')}): run scripts/engine-up.sh`);
  return found;
}

function httpStatus(url: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = request(url, { timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

function run(args: string[], input?: string): string {
  try {
    return execFileSync('docker', args, { encoding: 'utf8', input: input ?? '', stdio: ['pipe', 'pipe', 'pipe'] }).trim();
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? '';
    throw new Error(`docker ${args.join(' ')} failed: ${stderr.trim()}`);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface Started {
  child: ChildProcess;
  port: number;
}

/** Start the registry on a free port and wait until GET /v2/ answers (401 is an answer when auth is on). */
async function launch(dir: string, htpasswdFile: string | undefined, output: { text: string }): Promise<Started> {
  const port = await freePort();
  const config = [
    'version: 0.1',
    'log:',
    '  level: warn',
    '  accesslog:',
    '    disabled: true',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${path.join(dir, 'data')}`,
    '  delete:',
    '    enabled: true',
    'http:',
    `  addr: 127.0.0.1:${port}`,
    // A fixed secret keeps the registry from warning that it made one up.
    `  secret: ${randomBytes(16).toString('hex')}`,
    ...(htpasswdFile !== undefined ? ['auth:', '  htpasswd:', '    realm: runpod-test', `    path: ${htpasswdFile}`] : []),
    '',
  ].join('\n');
  const configFile = path.join(dir, 'config.yml');
  fs.writeFileSync(configFile, config);

  const child = spawn(registryBinary(), ['serve', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d: Buffer) => (output.text += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output.text += d.toString()));
  let exited = false;
  child.once('exit', () => (exited = true));
  child.once('error', (err) => {
    exited = true;
    output.text += `${err.message}\n`;
  });

  const ok = htpasswdFile !== undefined ? [200, 401] : [200];
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline && !exited) {
    const status = await httpStatus(`http://127.0.0.1:${port}/v2/`);
    if (status !== undefined && ok.includes(status)) return { child, port };
    await sleep(50);
  }
  if (!exited) child.kill('SIGKILL');
  throw new Error(`registry on 127.0.0.1:${port} did not come up${exited ? ' (it exited)' : ''}: ${output.text.trim().slice(-2000)}`);
}

export async function startRegistry(options: { auth?: RegistryCredentials } = {}): Promise<Registry> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-registry-'));
  const tempDirs = [dir];
  const cleanup = (): void => {
    for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
  };

  let htpasswdFile: string | undefined;
  const auth = options.auth;
  try {
    if (auth !== undefined) {
      // The registry accepts only bcrypt entries in its htpasswd file.
      htpasswdFile = path.join(dir, 'htpasswd');
      const line = execFileSync('htpasswd', ['-Bbn', auth.username, auth.password], { encoding: 'utf8' });
      fs.writeFileSync(htpasswdFile, line.trim() + '\n');
    }
  } catch (err) {
    cleanup();
    throw err;
  }

  const output = { text: '' };
  let started: Started | undefined;
  // The port is free when chosen but could be taken before the registry binds it: try again a few times.
  for (let attempt = 1; started === undefined; attempt++) {
    try {
      started = await launch(dir, htpasswdFile, output);
    } catch (err) {
      if (attempt >= 3 || !output.text.includes('address already in use')) {
        cleanup();
        throw err;
      }
      output.text = '';
    }
  }
  const { child } = started;
  const host = `127.0.0.1:${started.port}`;

  const configDir = (password: string | undefined): string => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-dockercfg-'));
    tempDirs.push(d);
    const auths: Record<string, { auth: string }> = {};
    if (auth !== undefined) {
      auths[host] = { auth: Buffer.from(`${auth.username}:${password ?? auth.password}`).toString('base64') };
    }
    fs.writeFileSync(path.join(d, 'config.json'), JSON.stringify({ auths }, null, 2));
    return d;
  };

  return {
    host,

    push(localImage: string, repoTag: string): Promise<string> {
      const ref = `${host}/${repoTag}`;
      // A config dir of our own: login must not touch the user's ~/.docker.
      const pushConfig = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-dockercfg-'));
      tempDirs.push(pushConfig);
      run(['tag', localImage, ref]);
      try {
        if (auth !== undefined) {
          run(['--config', pushConfig, 'login', '--username', auth.username, '--password-stdin', host], auth.password);
        }
        run(['--config', pushConfig, 'push', ref]);
      } finally {
        // Untag (the local image keeps its own name), so a later pull has to fetch from the registry.
        run(['rmi', ref]);
      }
      return Promise.resolve(ref);
    },

    dockerConfigDir(opts: { password?: string } = {}): string {
      return configDir(opts.password);
    },

    async stop(): Promise<void> {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        process.kill(child.pid, 'SIGTERM');
        const timer = setTimeout(() => {
          if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGKILL');
        }, 5000);
        await exited;
        clearTimeout(timer);
      }
      cleanup();
    },
  };
}
