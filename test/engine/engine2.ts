// A second Docker engine for tests that must not touch the shared one: the same dockerd binary with its own
// data root, exec root, pid file, containerd namespace and unix socket, optionally a loopback TCP listener with
// TLS (certificates made here with openssl), and a bridge of its own (made here, on a subnet nothing else
// routes) with iptables, masquerading and IP forwarding left alone, so it never competes with the main engine.
// Pods on it need no external network.
//
// Not --bridge=none: a dockerd started with it deletes the host's docker0 interface at start-up (it assumes
// docker0 is its own), which cuts the main engine's containers off — measured, on Docker 20.10.
//
//   const e = await startEngine2({ tls: true });   // in before(); e.stop() in after(), even on failure
//   e.docker(['ps', '-a']); e.socket; e.tcpAddress; e.certDir; e.env()
//   await e.restart();                              // stop and start the daemon again, state kept
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { busybox, freePort } from './harness.js';

export interface Engine2Options {
  /** Also listen on tcp://127.0.0.1:<free port> with --tlsverify, and make CA, server and client certificates. */
  tls?: boolean;
  /** Images copied from the main engine (docker save | docker load); default the test busybox image. */
  images?: string[];
}

export interface Engine2 {
  /** The state directory: data, exec root, pid file, socket, certificates, dockerd.log. */
  readonly dir: string;
  /** unix:///…/docker.sock */
  readonly socket: string;
  /** tcp://127.0.0.1:<port> with TLS; undefined without tls. */
  readonly tcpAddress: string | undefined;
  /** DOCKER_CERT_PATH for a client the engine trusts: ca.pem, cert.pem, key.pem. */
  readonly certDir: string | undefined;
  /** A DOCKER_CERT_PATH with only ca.pem: the server is verified, but there is no client certificate. */
  readonly caOnlyDir: string | undefined;
  /** The daemon's pid while it runs. */
  pid(): number | undefined;
  /** The docker CLI against this engine (its unix socket); throws on a non-zero exit. */
  docker(args: string[], input?: Buffer): string;
  /** Environment that points a client at the TLS listener with verification on. */
  env(): Record<string, string>;
  /** Stop the daemon and start it again with the same flags and state (for engine-restart tests). */
  restart(): Promise<void>;
  /** Remove every container, stop the daemon (by pid), remove the pid file and all state. Safe to repeat. */
  stop(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A CA, a server certificate for 127.0.0.1 and a client certificate, as dockerd's TLS guide has them. */
function makeCertificates(dir: string): { server: string; client: string; caOnly: string } {
  const ca = path.join(dir, 'ca');
  fs.mkdirSync(ca, { recursive: true });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(['req', '-x509', ...ec, '-keyout', 'ca-key.pem', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=runpod-test-ca'], ca);
  const issue = (name: string, ext: string): void => {
    openssl(['req', '-new', ...ec, '-keyout', `${name}-key.pem`, '-out', `${name}.csr`, '-subj', `/CN=${name}`], ca);
    fs.writeFileSync(path.join(ca, `${name}.ext`), ext);
    openssl(
      ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-days', '2', '-extfile', `${name}.ext`, '-out', `${name}-cert.pem`],
      ca,
    );
  };
  // The server name the client checks is the address it dials: 127.0.0.1.
  issue('server', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  issue('client', 'extendedKeyUsage=clientAuth\n');
  const client = path.join(dir, 'client');
  const caOnly = path.join(dir, 'client-without-cert');
  fs.mkdirSync(client);
  fs.mkdirSync(caOnly);
  fs.copyFileSync(path.join(ca, 'ca.pem'), path.join(client, 'ca.pem'));
  fs.copyFileSync(path.join(ca, 'client-cert.pem'), path.join(client, 'cert.pem'));
  fs.copyFileSync(path.join(ca, 'client-key.pem'), path.join(client, 'key.pem'));
  fs.copyFileSync(path.join(ca, 'ca.pem'), path.join(caOnly, 'ca.pem'));
  return { server: ca, client, caOnly };
}

/** Subnets already routed on this host (the main engine's 172.17/16 among them). */
function routedPrefixes(): string[] {
  return spawnSync('ip', ['-4', 'route'], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((l) => l.split(' ')[0] ?? '');
}

/** A bridge interface for the second engine alone, on a /24 in 10.213.0.0/16 that no route uses yet. */
function makeBridge(tag: string): string {
  const name = `rp2${tag.slice(-8)}`.slice(0, 15);
  const taken = routedPrefixes();
  const free = Array.from({ length: 256 }, (_, i) => i).filter((n) => !taken.includes(`10.213.${n}.0/24`));
  const n = free[Math.floor(Math.random() * free.length)];
  if (n === undefined) throw new Error('no free /24 in 10.213.0.0/16 for the second engine');
  for (const args of [
    ['link', 'add', name, 'type', 'bridge'],
    ['addr', 'add', `10.213.${n}.1/24`, 'dev', name],
    ['link', 'set', name, 'up'],
  ]) {
    const r = spawnSync('ip', args, { encoding: 'utf8' });
    if (r.status !== 0) {
      spawnSync('ip', ['link', 'del', name]);
      throw new Error(`ip ${args.join(' ')}: ${r.stderr}`);
    }
  }
  return name;
}

export async function startEngine2(options: Engine2Options = {}): Promise<Engine2> {
  const check = spawnSync('openssl', ['version']);
  if (options.tls && check.status !== 0) throw new Error('openssl is needed for the TLS engine: run scripts/engine-up.sh (it installs it)');
  // Short path: unix socket paths are limited to 108 bytes, and containerd's live under the exec root.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rp-e2-'));
  const sock = path.join(dir, 'docker.sock');
  const pidFile = path.join(dir, 'dockerd.pid');
  const logFile = path.join(dir, 'dockerd.log');
  const tag = path.basename(dir).replace(/[^a-zA-Z0-9]/g, '');
  const certs = options.tls ? makeCertificates(dir) : undefined;
  const port = options.tls ? await freePort() : undefined;
  const bridge = makeBridge(tag);
  const args = [
    '--data-root',
    path.join(dir, 'data'),
    '--exec-root',
    path.join(dir, 'exec'),
    '--pidfile',
    pidFile,
    '-H',
    `unix://${sock}`,
    // Its own containerd namespaces, so even a shared containerd could not mix its containers with the main one's.
    '--containerd-namespace',
    `runpod-${tag}`,
    '--containerd-plugins-namespace',
    `runpod-${tag}-plugins`,
    '--bridge',
    bridge,
    '--iptables=false',
    '--ip-masq=false',
    '--ip-forward=false',
    '--log-level',
    'warn',
    ...(certs && port
      ? [
          '-H',
          `tcp://127.0.0.1:${port}`,
          '--tlsverify',
          '--tlscacert',
          path.join(certs.server, 'ca.pem'),
          '--tlscert',
          path.join(certs.server, 'server-cert.pem'),
          '--tlskey',
          path.join(certs.server, 'server-key.pem'),
        ]
      : []),
  ];
  let pid: number | undefined;

  const docker = (dargs: string[], input?: Buffer): string =>
    execFileSync('docker', ['-H', `unix://${sock}`, ...dargs], {
      encoding: 'utf8',
      input,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, DOCKER_HOST: '', DOCKER_CONTEXT: '' },
    }).trim();

  const launch = async (): Promise<void> => {
    const log = fs.openSync(logFile, 'a');
    const child = spawn('dockerd', args, { stdio: ['ignore', log, log], detached: true });
    fs.closeSync(log);
    child.unref();
    pid = child.pid;
    const until = Date.now() + 60_000;
    for (;;) {
      const exited = child.exitCode !== null;
      try {
        docker(['version', '--format', '{{.Server.Version}}']);
        return;
      } catch {
        if (exited || Date.now() > until) {
          const tail = fs.readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n');
          throw new Error(`the second dockerd did not answer on ${sock}:\n${tail}`);
        }
      }
      await sleep(200);
    }
  };

  const halt = async (): Promise<void> => {
    if (pid === undefined) return;
    const p = pid;
    try {
      process.kill(p, 'SIGTERM');
    } catch {
      pid = undefined;
      return;
    }
    // dockerd stops its containers and containerd before it exits; SIGKILL only if it hangs.
    const until = Date.now() + 30_000;
    while (Date.now() < until) {
      try {
        process.kill(p, 0);
      } catch {
        break;
      }
      await sleep(100);
    }
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // already gone
    }
    pid = undefined;
    fs.rmSync(pidFile, { force: true });
  };

  const engine: Engine2 = {
    dir,
    socket: `unix://${sock}`,
    tcpAddress: port ? `tcp://127.0.0.1:${port}` : undefined,
    certDir: certs?.client,
    caOnlyDir: certs?.caOnly,
    pid: () => pid,
    docker,
    env: () => {
      if (!port || !certs) throw new Error('this engine was started without tls');
      return { DOCKER_HOST: `tcp://127.0.0.1:${port}`, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: certs.client, DOCKER_CONTEXT: '' };
    },
    restart: async () => {
      await halt();
      await launch();
    },
    stop: async () => {
      if (pid !== undefined) {
        try {
          const ids = docker(['ps', '-aq']);
          if (ids) docker(['rm', '-f', '-v', ...ids.split('\n')]);
        } catch {
          // the daemon may be down already; its state goes with the directory
        }
      }
      await halt();
      // Anything still mounted under the state directory (a daemon that died hard) would make rm fail.
      const mounts = fs
        .readFileSync('/proc/mounts', 'utf8')
        .split('\n')
        .map((l) => l.split(' ')[1] ?? '')
        .filter((m) => m.startsWith(`${dir}/`));
      for (const m of mounts.sort().reverse()) spawnSync('umount', ['-l', m]);
      fs.rmSync(dir, { recursive: true, force: true });
      spawnSync('ip', ['link', 'del', bridge]);
    },
  };

  try {
    await launch();
    for (const image of options.images ?? [busybox]) {
      const saved = execFileSync('docker', ['save', image], { maxBuffer: 1 << 30 });
      docker(['load', '-q'], saved);
    }
  } catch (err) {
    await engine.stop();
    throw err;
  }
  return engine;
}
