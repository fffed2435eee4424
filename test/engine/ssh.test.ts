// An ssh:// engine address (docker CLI style): a real sshd started by the test on a loopback port, root
// logging in with a key held by an ssh-agent the test starts too, and `docker system dial-stdio` on the far
// side. The far side is this same machine, so its docker CLI reaches the local engine: the pod's containers
// show up there.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { podContainerIds, removePod, runpod, uniqueName } from './harness.js';
import { eventually, freePort, podFile, show, sleeper } from './run-helpers.js';

const sshd = '/usr/sbin/sshd';

let dir = '';
let port = 0;
let sshdProc: ChildProcess | undefined;
let sshdLog = '';
let agentPid: number | undefined;
let agentSock = '';
/** An agent holding a key the server does not know. */
let strangerPid: number | undefined;
let strangerSock = '';
const pods: string[] = [];

/** Start `ssh-agent -a sock` and return its pid (it forks into the background; the pid is in its output). */
function startAgent(sock: string, key: string): number {
  const out = execFileSync('ssh-agent', ['-s', '-a', sock], { encoding: 'utf8' });
  const m = /SSH_AGENT_PID=(\d+)/.exec(out);
  assert.ok(m, `ssh-agent printed no pid: ${out}`);
  const pid = Number(m[1]);
  execFileSync('ssh-add', [key], { env: { ...process.env, SSH_AUTH_SOCK: sock }, stdio: ['ignore', 'pipe', 'pipe'] });
  return pid;
}

function keygen(file: string, type = 'ed25519'): void {
  execFileSync('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', 'runpod-test', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
}

function portOpen(p: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(p, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

const skip = !fs.existsSync(sshd) || process.getuid?.() !== 0 ? 'needs /usr/sbin/sshd (openssh-server) and root' : false;

before(async () => {
  if (skip) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-ssh-'));
  keygen(path.join(dir, 'host_ed25519'));
  keygen(path.join(dir, 'client'));
  keygen(path.join(dir, 'stranger'));
  fs.copyFileSync(path.join(dir, 'client.pub'), path.join(dir, 'authorized_keys'));
  port = await freePort();
  const config = [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${path.join(dir, 'host_ed25519')}`,
    `PidFile ${path.join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
    'PermitRootLogin prohibit-password',
    'PubkeyAuthentication yes',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'UsePAM no',
    'StrictModes no',
    'LogLevel VERBOSE',
    '',
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'sshd_config'), config);
  // sshd wants its privilege-separation directory.
  fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  sshdProc = spawn(sshd, ['-D', '-e', '-f', path.join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  sshdProc.stderr?.on('data', (d: Buffer) => (sshdLog += d.toString()));
  await eventually(`sshd listening on 127.0.0.1:${port}\n${sshdLog}`, async () => ((await portOpen(port)) ? true : undefined), 10_000);
  agentSock = path.join(dir, 'agent.sock');
  agentPid = startAgent(agentSock, path.join(dir, 'client'));
  strangerSock = path.join(dir, 'stranger.sock');
  strangerPid = startAgent(strangerSock, path.join(dir, 'stranger'));
});

after(() => {
  for (const name of pods) {
    try {
      removePod(name);
    } catch {
      // keep cleaning
    }
  }
  for (const pid of [agentPid, strangerPid]) {
    if (pid !== undefined) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  }
  sshdProc?.kill('SIGTERM');
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('engine over ssh://', { skip }, () => {
  test("a pod runs through ssh://root@127.0.0.1:<port> with the agent's key, and down removes it", async () => {
    const name = uniqueName('ssh');
    pods.push(name);
    const file = podFile({ name, containers: [sleeper('main')] });
    const env = { SSH_AUTH_SOCK: agentSock, DOCKER_HOST: undefined, DOCKER_CONTEXT: undefined };
    const host = `ssh://root@127.0.0.1:${port}`;
    try {
      const r = await runpod(['--host', host, '--timeout', '60s', file], { env });
      assert.equal(r.code, 0, `${show(r)}\nsshd:\n${sshdLog}`);
      assert.match(r.stderr, /every container is running/, show(r));
      assert.doesNotMatch(r.stderr, /DeprecationWarning/, `no Node deprecation noise from the ssh transport: ${show(r)}`);
      // The far side's docker CLI is this machine's: the pod is on the local engine.
      assert.equal(podContainerIds(name).length, 2, 'sandbox and main container on the local engine');
      const down = await runpod(['down', '--host', host, file], { env });
      assert.equal(down.code, 0, `${show(down)}\nsshd:\n${sshdLog}`);
      assert.deepEqual(podContainerIds(name), []);
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });

  test('a key the server does not know: exit 3 naming the ssh address', async () => {
    const name = uniqueName('ssh-refused');
    pods.push(name);
    const file = podFile({ name, containers: [sleeper('main')] });
    const host = `ssh://root@127.0.0.1:${port}`;
    try {
      for (const sock of [strangerSock, path.join(dir, 'no-agent.sock')]) {
        const r = await runpod(['--host', host, '--retries', '0', file], { env: { SSH_AUTH_SOCK: sock, DOCKER_HOST: undefined, DOCKER_CONTEXT: undefined } });
        assert.equal(r.code, 3, show(r));
        assert.ok(r.stderr.includes(host), show(r));
        assert.deepEqual(podContainerIds(name), []);
      }
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });
});
