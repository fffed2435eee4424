// runpod stats: CPU, memory, network and block I/O of a pod's running containers, from the engine's own
// statistics, computed as `docker stats` computes them. --watch samples again until Ctrl-C.
import type { ContainerStats, Engine } from '../engine/engine.js';
import { ExitCode, NotFoundError } from '../errors.js';
import type { PodSummary } from '../reconcile/podSummary.js';
import { formatBytes, renderTable } from '../report/tables.js';
import { Waker } from '../wait/waker.js';
import type { CommandContext } from './context.js';
import { connectEngine, openEngine } from './engineSession.js';
import { findPod, findPods, parsePodRef, type PodRef } from './pods.js';

export interface StatsOptions {
  pod: string;
  watch: boolean;
  output: 'text' | 'json';
  namespace: string;
  host?: string;
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

async function sample(engine: Engine, pod: PodSummary): Promise<ContainerUsage[]> {
  const running = pod.containers.filter((c) => c.current.state === 'running');
  const [net, ...each] = await Promise.all([
    pod.infra ? engine.containerStats(pod.infra.id) : Promise.resolve(undefined),
    ...running.map((c) => engine.containerStats(c.current.id)),
  ]);
  return running.flatMap((c, i) => (each[i] ? [usage(c.name, c.current.id, each[i]!, net)] : []));
}

function table(pod: PodSummary, rows: ContainerUsage[]): string {
  if (rows.length === 0) return `${pod.namespace}/${pod.name}: no running containers\n`;
  return renderTable(
    ['POD', 'CONTAINER', 'CPU %', 'MEM USAGE / LIMIT', 'MEM %', 'NET I/O (pod)', 'BLOCK I/O', 'PIDS'],
    rows.map((r) => [
      `${pod.namespace}/${pod.name}`,
      r.container,
      `${r.cpuPercent.toFixed(2)}%`,
      `${formatBytes(r.memoryBytes, true)} / ${formatBytes(r.memoryLimitBytes, true)}`,
      `${r.memoryPercent.toFixed(2)}%`,
      `${formatBytes(r.netRxBytes, false)} / ${formatBytes(r.netTxBytes, false)}`,
      `${formatBytes(r.blockReadBytes, false)} / ${formatBytes(r.blockWriteBytes, false)}`,
      r.pids !== undefined ? String(r.pids) : '-',
    ]),
  );
}

export async function statsCommand(o: StatsOptions, ctx: CommandContext): Promise<number> {
  const ref: PodRef = parsePodRef(o.pod, o.namespace);
  const engine = await openEngine(o.host, ctx.env);
  await connectEngine(engine, ctx);
  let pod = await findPod(engine, ref);
  const clear = o.watch && o.output === 'text' && ctx.stdout.isTTY === true;
  for (;;) {
    const rows = await sample(engine, pod);
    if (ctx.signal.aborted) break;
    const at = new Date(ctx.now()).toISOString();
    if (o.output === 'json') {
      // --watch -o json: one document per line (NDJSON), so a reader can parse each sample as it comes.
      const doc = { apiVersion: 'runpod/v1', kind: 'PodStats', namespace: pod.namespace, name: pod.name, time: at, containers: rows };
      ctx.stdout.write(o.watch ? `${JSON.stringify(doc)}\n` : `${JSON.stringify(doc, null, 2)}\n`);
    } else {
      // On a terminal the table is redrawn in place; in a pipe each sample follows the last.
      ctx.stdout.write(`${clear ? '\u001b[H\u001b[2J' : ''}${table(pod, rows)}${o.watch && !clear ? '\n' : ''}`);
    }
    if (!o.watch) break;
    // Nothing to sample takes no time: wait a second rather than spin.
    if (rows.length === 0) await new Waker().sleep(1000, ctx.signal);
    // The engine's one-shot sample already spans a collection cycle (about a second), so no extra sleep.
    const [again] = await findPods(engine, [ref]);
    if (!again) throw new NotFoundError(`pod ${ref.namespace}/${ref.name} is gone`);
    pod = again;
    if (ctx.signal.aborted) break;
  }
  if (ctx.signal.aborted) return ctx.interruptedBy() === 'SIGTERM' ? ExitCode.sigterm : ExitCode.sigint;
  return ExitCode.ok;
}
