// Helpers shared by the run-*.test.ts engine tests: manifests built as objects and dumped to YAML, cleanup
// that every test registers before it touches the engine, free host ports, and polling.
import { after, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';
import { busybox, docker, freePort, inspect, podContainerIds, removePod, runpod, show, writeManifest, type Inspected } from './harness.js';

export { busybox, freePort };

/** Inspect fields the harness type leaves out. */
export type InspectedFull = Inspected & {
  HostConfig: Inspected['HostConfig'] & { CpuQuota: number; CpuPeriod: number; MemoryReservation: number; Privileged: boolean };
};

export type Obj = Record<string, unknown>;

export interface PodSpecInput {
  name: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  restartPolicy?: 'Always' | 'OnFailure' | 'Never';
  /** Default 0: sh and sleep as PID 1 ignore SIGTERM, so a grace period is only waited out. */
  grace?: number;
  initContainers?: Obj[];
  containers: Obj[];
}

export function podObject(p: PodSpecInput): Obj {
  const metadata: Obj = { name: p.name };
  if (p.namespace !== undefined) metadata.namespace = p.namespace;
  if (p.uid !== undefined) metadata.uid = p.uid;
  if (p.labels) metadata.labels = p.labels;
  if (p.annotations) metadata.annotations = p.annotations;
  const spec: Obj = { terminationGracePeriodSeconds: p.grace ?? 0, containers: p.containers };
  if (p.restartPolicy) spec.restartPolicy = p.restartPolicy;
  if (p.initContainers) spec.initContainers = p.initContainers;
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
}

export function toYaml(...docs: Obj[]): string {
  return docs.map((d) => yaml.dump(d, { lineWidth: -1, noRefs: true })).join('---\n');
}

/** A container that just stays up. */
export function sleeper(name: string, extra: Obj = {}): Obj {
  return { name, image: busybox, command: ['sleep', '3600'], ...extra };
}

/** Write a pod manifest (YAML) into a fresh temporary directory; returns the file. */
export function podFile(p: PodSpecInput | Obj[], fileName = 'pod.yaml'): string {
  const docs = Array.isArray(p) ? p : [podObject(p)];
  return writeManifest(toYaml(...docs), fileName);
}

const filesUsed: string[] = [];
const podsUsed: { name: string; namespace: string }[] = [];

/**
 * Register a pod for removal by its labels when the test ends, pass or fail. Also remembered for the file's
 * final check that nothing is left behind.
 */
export function cleanupPod(t: TestContext, name: string, namespace = 'default'): void {
  podsUsed.push({ name, namespace });
  t.after(() => removePod(name, namespace));
}

export function cleanupFile(t: TestContext, file: string): void {
  filesUsed.push(file);
  t.after(() => fs.rmSync(path.dirname(file), { recursive: true, force: true }));
}

/** Each test file calls this once: after all its tests, no container of any pod it used may remain. */
export function checkNothingLeftBehind(): void {
  after(() => {
    const left = podsUsed.filter((p) => podContainerIds(p.name, p.namespace).length > 0);
    for (const p of left) removePod(p.name, p.namespace);
    assert.deepEqual(left, [], 'containers were left behind');
  });
}

/** Inspect every container of a pod, keyed by its io.kubernetes.container.name label (POD for infra). */
export function podContainers(name: string, namespace = 'default'): Map<string, InspectedFull> {
  const byName = new Map<string, InspectedFull>();
  for (const c of inspect(podContainerIds(name, namespace)) as InspectedFull[]) {
    const key = c.Config.Labels['io.kubernetes.container.name']!;
    assert.equal(byName.has(key), false, `two containers named ${key} in pod ${namespace}/${name}`);
    byName.set(key, c);
  }
  return byName;
}

export function must<T>(v: T | undefined, what: string): T {
  assert.ok(v !== undefined, `${what} is missing`);
  return v;
}

export function httpGet(host: string, port: number, urlPath = '/'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path: urlPath, timeout: 2000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Poll fn until it returns a value that is not undefined, or throw after timeoutMs with the last error. */
export async function eventually<T>(what: string, fn: () => T | undefined | Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`${what}: not true after ${timeoutMs}ms${last ? ` (last error: ${String(last)})` : ''}`);
    await sleep(200);
  }
}

/** docker logs, stdout and stderr of the container together. */
export function logsOf(id: string): string {
  const r = dockerTry(['logs', id]);
  return `${r.stdout}${r.stderr}`;
}

/** Any docker command, never throwing: status and combined output. */
export function dockerTry(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('docker', args, { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

export { runpod, docker, inspect, podContainerIds, removePod, show, writeManifest };

export const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A temporary directory removed when the test ends. */
export function tempDir(t: TestContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-test-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}
