// Shared helpers for engine tests: run the built CLI as a child process, name pods uniquely, clean up by label.
import { spawn, execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import type { TestContext } from 'node:test';
import net from 'node:net';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const runpodBin = path.join(repoRoot, 'bin', 'runpod');
/**
 * RUNPOD_EXE=<path of the single executable> runs every test that goes through runpod() below against that file
 * instead of `node bin/runpod` (`npm run build:exe`, then `RUNPOD_EXE=dist/runpod-linux-x64 node --test
 * dist/test/engine/`). Tests that start bin/runpod themselves (through runpodBin) still run it with node.
 */
const exeUnderTest = process.env.RUNPOD_EXE ? path.resolve(process.env.RUNPOD_EXE) : undefined;
/** Built by scripts/engine-up.sh from Debian's busybox-static: no registry needed. */
export const busybox = 'runpod-test/busybox:1';

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  /** Called once the child is spawned (e.g. to send it a signal later). */
  onSpawn?: (pid: number) => void;
  timeoutMs?: number;
  /** Working directory of the child (default: this process's). */
  cwd?: string;
  /**
   * Close the read end of the child's stdout once this holds for what it has printed (asked first with '', so
   * `() => true` closes it before the child writes anything): a reader that goes away, as `| head -1` does.
   */
  closeStdoutWhen?: (stdout: string) => boolean;
  /** Told everything the child has written to stderr so far, each time it writes more (a test acting mid-run). */
  onStderr?: (stderr: string) => void;
}

/** Run bin/runpod with args; never throws on a non-zero exit. CI and NO_COLOR are set so output is plain. */
export function runpod(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...process.env, CI: 'true', NO_COLOR: '1', ...options.env })) {
      if (v !== undefined) env[k] = v;
    }
    const [file, argv] = exeUnderTest !== undefined ? [exeUnderTest, args] : [process.execPath, [runpodBin, ...args]];
    const child = spawn(file, argv, { env, stdio: ['pipe', 'pipe', 'pipe'], ...(options.cwd !== undefined ? { cwd: options.cwd } : {}) });
    let stdout = '';
    let stderr = '';
    const closeWhen = options.closeStdoutWhen;
    const closeIfDone = (): void => {
      if (closeWhen?.(stdout) === true && !child.stdout.destroyed) child.stdout.destroy();
    };
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      closeIfDone();
    });
    closeIfDone();
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      options.onStderr?.(stderr);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const empty = emptyReason(stdout, stderr);
      if (empty !== undefined) reject(new Error(`runpod ${args.join(' ')} ended with an empty reason: ${empty}\n--- stderr\n${stderr}\n--- stdout\n${stdout}`));
      else resolve({ code, signal, stdout, stderr });
    });
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    // runpod may stop reading stdin early (a manifest over the size limit): EPIPE here is not the test's failure.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

/**
 * No run may end with an empty reason (issue 11): a pod line whose reason is missing ("failed:  (1 container, …)"
 * or "… retries:  (…)"), or a result document whose pod reason is empty. Returns the offending text, if any.
 */
export function emptyReason(stdout: string, stderr: string): string | undefined {
  const line = `${stdout}\n${stderr}`.split('\n').find((l) => /:\s+\(\d+ containers?, /.test(l) || /: (?:failed|timeout|engine|interrupted):\s*$/.test(l));
  if (line !== undefined) return line;
  if (!stdout.trimStart().startsWith('{')) return undefined;
  try {
    const doc = JSON.parse(stdout) as { kind?: string; pods?: { name?: string; reason?: unknown }[] };
    if (doc.kind !== 'RunResult') return undefined;
    const bad = doc.pods?.find((p) => typeof p.reason !== 'string' || p.reason.trim() === '');
    return bad ? `pod ${bad.name ?? '?'} has reason ${JSON.stringify(bad.reason)}` : undefined;
  } catch {
    return undefined;
  }
}

/** A pod name no other test (or earlier run) uses. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

export function docker(args: string[]): string {
  return execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Ids of every container (running or not) of a runpod pod. */
export function podContainerIds(name: string, namespace = 'default'): string[] {
  const out = docker([
    'ps',
    '-aq',
    '--no-trunc',
    '--filter',
    'label=app.kubernetes.io/managed-by=runpod',
    '--filter',
    `label=io.kubernetes.pod.name=${name}`,
    '--filter',
    `label=io.kubernetes.pod.namespace=${namespace}`,
  ]);
  return out ? out.split('\n').sort() : [];
}

export interface Inspected {
  Id: string;
  Name: string;
  State: { Status: string; Running: boolean; ExitCode: number; OOMKilled: boolean; StartedAt: string };
  RestartCount: number;
  Config: { Labels: Record<string, string>; Env: string[] | null; Cmd: string[] | null; Entrypoint: string[] | null; Hostname: string; Image: string };
  HostConfig: {
    NetworkMode: string;
    IpcMode: string;
    PidMode: string;
    RestartPolicy: { Name: string; MaximumRetryCount: number };
    Memory: number;
    NanoCpus: number;
    CpuShares: number;
    PortBindings: Record<string, { HostIp: string; HostPort: string }[]> | null;
  };
}

export function inspect(ids: string[]): Inspected[] {
  if (ids.length === 0) return [];
  return JSON.parse(docker(['inspect', ...ids])) as Inspected[];
}

/** Remove every container of a pod by its labels: the cleanup every test runs, whatever happened. */
export function removePod(name: string, namespace = 'default'): void {
  const ids = podContainerIds(name, namespace);
  // A volume helper a cut-short run left holds the pod's volumes: it goes too.
  const helpers = docker(['ps', '-aq', '--filter', 'label=app.kubernetes.io/managed-by=runpod', '--filter', `label=io.runpod.helper.pod=${namespace}/${name}`]);
  if (ids.length > 0 || helpers) docker(['rm', '-f', '-v', ...ids, ...(helpers ? helpers.split('\n') : [])]);
  // Then the pod's own volumes (emptyDir, rendered configMap/secret files), found by runpod's volume labels.
  const volumes = docker([
    'volume',
    'ls',
    '-q',
    '--filter',
    'label=app.kubernetes.io/managed-by=runpod',
    '--filter',
    `label=io.kubernetes.pod.name=${name}`,
    '--filter',
    `label=io.kubernetes.pod.namespace=${namespace}`,
  ]);
  if (volumes) docker(['volume', 'rm', '-f', ...volumes.split('\n')]);
  if (namespace !== 'default') removeEmptyNetworks({ namespace });
}

/**
 * runpod's networks that no container is on any more, under an isolation key or (no key) of a namespace: a test
 * that removes its pods by hand leaves the namespace's network, and the engine's address pools hold about thirty.
 * One still in use (another test's pods) stays: the engine refuses to remove it.
 */
export function removeEmptyNetworks(filter: { key: string } | { namespace: string }): void {
  const label = 'key' in filter ? `label=io.runpod.project=${filter.key}` : `label=io.runpod.network.namespace=${filter.namespace}`;
  const ids = docker(['network', 'ls', '-q', '--filter', label, '--filter', 'label=app.kubernetes.io/managed-by=runpod']);
  for (const id of ids.split('\n').filter(Boolean)) spawnSync('docker', ['network', 'rm', id], { stdio: 'ignore' });
}

/** A CLI result for assertion messages: the command's own words. */
export function show(r: CliResult): string {
  return `exit ${r.code}${r.signal ? ` (signal ${r.signal})` : ''}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
}

export interface KeyedWorkspace {
  dir: string;
  key: string;
  file: (name: string) => string;
  /** runpod under the workspace's key (the flag before the command, so a command after -- is left alone). */
  run: (...args: string[]) => Promise<CliResult>;
}

/**
 * A folder of manifests and an isolation key of the test's own: what was made under the key (containers,
 * volumes, networks) and the folder go when the test ends.
 */
export function keyedWorkspace(t: TestContext, prefix: string, files: Record<string, string>): KeyedWorkspace {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `runpod-${prefix}-`));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  const key = uniqueName(prefix);
  t.after(() => {
    const ids = docker(['ps', '-aq', '--filter', `label=io.runpod.project=${key}`]);
    if (ids) docker(['rm', '-f', ...ids.split('\n')]);
    const vols = docker(['volume', 'ls', '-q', '--filter', `label=io.runpod.project=${key}`]);
    if (vols) docker(['volume', 'rm', '-f', ...vols.split('\n')]);
    removeEmptyNetworks({ key });
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { dir, key, file: (name) => path.join(dir, name), run: (...args) => runpod(['--project', key, ...args], { timeoutMs: 240_000 }) };
}

/** Write a manifest into a fresh temporary directory and return its path. */
export function writeManifest(text: string, fileName = 'pod.yaml'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-test-'));
  const file = path.join(dir, fileName);
  fs.writeFileSync(file, text);
  return file;
}

/** A TCP port on 127.0.0.1 nothing listens on right now (bound to port 0 and released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Is a process of that pid alive, not yet reaped (signal 0 checks without sending anything)? */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Containers, networks and volumes carrying an isolation key: what a test's run left under it. */
export function leftUnder(key: string): string[] {
  const ids = (args: string[]): string[] => docker(args).split('\n').filter(Boolean);
  return [
    ...ids(['ps', '-a', '--format', 'container {{.Names}}', '--filter', `label=io.runpod.project=${key}`]),
    ...ids(['network', 'ls', '--format', 'network {{.Name}}', '--filter', `label=io.runpod.project=${key}`]),
    ...ids(['volume', 'ls', '--format', 'volume {{.Name}}', '--filter', `label=io.runpod.project=${key}`]),
  ];
}

/** A port in [first, first + count) that nothing listens on, held by this test until it ends. */
export async function heldPort(t: TestContext, first: number, count: number): Promise<number> {
  for (;;) {
    const port = first + Math.floor(Math.random() * count);
    const holder = net.createServer();
    const held = await new Promise<boolean>((resolve) => {
      holder.once('error', () => resolve(false));
      holder.listen(port, '0.0.0.0', () => resolve(true));
    });
    if (held) {
      t.after(() => holder.close());
      return port;
    }
  }
}
