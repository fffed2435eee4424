// runpod stats: CPU, memory, network and block I/O of the running containers of the pods named (or all pods), from the engine's own
// statistics, computed as `docker stats` computes them. --watch samples again until Ctrl-C.
import type { ContainerReader } from '../engine/ports/containers.js';
import type { ContainerStats, StatsPort } from '../engine/ports/streams.js';
import { ExitCode, NotFoundError } from '../errors.js';
import type { PodSummary } from '../reconcile/podSummary.js';
import { formatBytes, renderTable } from '../report/tables.js';
import { Waker } from '../wait/waker.js';
import { abortedExitCode, type CommandContext } from './context.js';
import { connectEngine, openEngine } from './engineSession.js';
import { findPods, parsePodArg, podArgRefs, type PodRef } from '../reconcile/pods.js';

export interface StatsOptions {
  /** name or namespace/name each; none: every pod. */
  pods: string[];
  watch: boolean;
  output: 'text' | 'json';
  namespace: string;
  host?: string;
  /** The isolation key (kube/project.ts): only pods made under it are seen. */
  project?: string;
}

export interface ContainerUsage {
  container: string;
  id: string;
  cpuPercent: number;
  memoryBytes: number;
  memoryLimitBytes: number;
  memoryPercent: number;
  /** The pod's network namespace, shared by all its containers: counted once, on the infra container. */
  netRxBytes: number;
  netTxBytes: number;
  blockReadBytes: number;
  blockWriteBytes: number;
  pids?: number;
}

/** docker stats' CPU %: the container's share of the host's CPU time since the previous reading, times CPUs. */
export function cpuPercent(s: ContainerStats): number {
  const cpuDelta = s.cpu.total - s.precpu.total;
  const systemDelta = (s.cpu.system ?? 0) - (s.precpu.system ?? 0);
  const cpus = s.cpu.onlineCpus || s.cpu.perCpu || 1;
  return systemDelta > 0 && cpuDelta > 0 ? (cpuDelta / systemDelta) * cpus * 100 : 0;
}

/** docker stats' memory: usage without the inactive page cache the kernel can reclaim. */
export function memoryUsed(s: ContainerStats): number {
  const usage = s.memory.usage ?? 0;
  const inactive = s.memory.inactiveFile ?? 0;
  return inactive < usage ? usage - inactive : usage;
}

export function usage(container: string, id: string, s: ContainerStats, net: ContainerStats | undefined): ContainerUsage {
  const limit = s.memory.limit ?? 0;
  const used = memoryUsed(s);
  const nets = Object.values(net?.networks ?? s.networks ?? {});
  const blk = (op: string): number => s.blkio.filter((b) => b.op.toLowerCase() === op).reduce((n, b) => n + b.value, 0);
  return {
    container,
    id,
    cpuPercent: Math.round(cpuPercent(s) * 100) / 100,
    memoryBytes: used,
    memoryLimitBytes: limit,
    memoryPercent: limit > 0 ? Math.round((used / limit) * 10000) / 100 : 0,
    netRxBytes: nets.reduce((n, x) => n + x.rxBytes, 0),
    netTxBytes: nets.reduce((n, x) => n + x.txBytes, 0),
    blockReadBytes: blk('read'),
    blockWriteBytes: blk('write'),
    ...(s.pids !== undefined ? { pids: s.pids } : {}),
  };
}

async function sample(engine: StatsPort, pod: PodSummary): Promise<ContainerUsage[]> {
  const running = pod.containers.filter((c) => c.current.state === 'running');
  const [net, ...each] = await Promise.all([
    pod.infra ? engine.containerStats(pod.infra.id) : Promise.resolve(undefined),
    ...running.map((c) => engine.containerStats(c.current.id)),
  ]);
  return running.flatMap((c, i) => (each[i] ? [usage(c.name, c.current.id, each[i]!, net)] : []));
}

interface PodUsage {
  pod: PodSummary;
  rows: ContainerUsage[];
}

function table(samples: PodUsage[]): string {
  const rows = samples.flatMap(({ pod, rows: r }) => r.map((u) => ({ pod, u })));
  const idle = samples.filter((x) => x.rows.length === 0).map(({ pod }) => `${pod.namespace}/${pod.name}: no running containers\n`);
  if (rows.length === 0) return idle.join('') || 'no pods: runpod manages none on this engine\n';
  return (
    renderTable(
      ['POD', 'CONTAINER', 'CPU %', 'MEM USAGE / LIMIT', 'MEM %', 'NET I/O (pod)', 'BLOCK I/O', 'PIDS'],
      rows.map(({ pod, u: r }) => [
        `${pod.namespace}/${pod.name}`,
        r.container,
        `${r.cpuPercent.toFixed(2)}%`,
        `${formatBytes(r.memoryBytes, true)} / ${formatBytes(r.memoryLimitBytes, true)}`,
        `${r.memoryPercent.toFixed(2)}%`,
        `${formatBytes(r.netRxBytes, false)} / ${formatBytes(r.netTxBytes, false)}`,
        `${formatBytes(r.blockReadBytes, false)} / ${formatBytes(r.blockWriteBytes, false)}`,
        r.pids !== undefined ? String(r.pids) : '-',
      ]),
    ) + idle.join('')
  );
}

/** The pods named (each must exist: exit 1 otherwise), or every pod runpod manages when none is. */
async function podsToSample(engine: ContainerReader, refs: PodRef[] | undefined): Promise<PodSummary[]> {
  if (!refs) return findPods(engine);
  const found = await findPods(engine, refs);
  const missing = refs.filter((r) => !found.some((p) => p.namespace === r.namespace && p.name === r.name));
  if (missing.length > 0)
    throw new NotFoundError(
      `${missing.length === 1 ? 'pod' : 'pods'} ${missing.map((r) => `${r.namespace}/${r.name}`).join(', ')} not found (runpod status lists the pods runpod manages)`,
    );
  return found;
}

export async function statsCommand(o: StatsOptions, ctx: CommandContext): Promise<number> {
  // As docker stats: the pods named, or every pod (runpod's, under the isolation key) when none is.
  const engine = await openEngine(o.host, ctx.env, o.project);
  await connectEngine(engine, ctx);
  // deploy/web: every pod of the workload, as on the engine now.
  const refs = o.pods.length > 0 ? (await Promise.all(o.pods.map((p) => podArgRefs(engine, parsePodArg(p, o.namespace))))).flat() : undefined;
  let pods = await podsToSample(engine, refs);
  const clear = o.watch && o.output === 'text' && ctx.stdout.isTTY === true;
  for (;;) {
    const samples = await Promise.all(pods.map(async (pod) => ({ pod, rows: await sample(engine, pod) })));
    if (ctx.signal.aborted) break;
    const at = new Date(ctx.now()).toISOString();
    if (o.output === 'json') {
      // One pod named: its PodStats document; otherwise a list. --watch: one document per line (NDJSON).
      const one = refs?.length === 1 ? samples[0] : undefined;
      const doc = one
        ? { apiVersion: 'runpod/v1', kind: 'PodStats', namespace: one.pod.namespace, name: one.pod.name, time: at, containers: one.rows }
        : { apiVersion: 'runpod/v1', kind: 'PodStatsList', time: at, pods: samples.map((x) => ({ namespace: x.pod.namespace, name: x.pod.name, containers: x.rows })) };
      ctx.stdout.write(o.watch ? `${JSON.stringify(doc)}\n` : `${JSON.stringify(doc, null, 2)}\n`);
    } else {
      // On a terminal the table is redrawn in place; in a pipe each sample follows the last.
      ctx.stdout.write(`${clear ? '\u001b[H\u001b[2J' : ''}${table(samples)}${o.watch && !clear ? '\n' : ''}`);
    }
    if (!o.watch) break;
    // Nothing to sample takes no time: wait a second rather than spin.
    if (samples.every((x) => x.rows.length === 0)) await new Waker().sleep(1000, ctx.signal);
    if (ctx.signal.aborted) break;
    // The engine's one-shot sample already spans a collection cycle (about a second), so no extra sleep.
    pods = await podsToSample(engine, refs);
  }
  if (ctx.signal.aborted) return abortedExitCode(ctx);
  return ExitCode.ok;
}
