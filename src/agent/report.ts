// What the user reads of a run's pods, asked of the engine after the wait: each failing container's last log lines
// and termination message, the ports bound, the Services' lines, each workload's. Detail only: an engine that
// stopped answering must not hold the exit, so every question is bounded by a short allowance.
import type { Engine } from '../engine/ports/engine.js';
import { terminationMessage } from '../reconcile/termination.js';
import { type PodResult, type WorkloadResult, podResult } from '../report/result.js';
import type { ServiceResult } from '../services/result.js';
import type { PodOutcome } from '../wait/runOnce.js';
import { Deadline } from '../wait/deadline.js';
import type { WorkloadOutcome } from './runWorkload.js';
import { withPorts } from '../report/endpoints.js';

/** Log lines shown per failing container (design.md). */
const failureLogLines = 20;

/** How long the report may spend asking the engine for detail (logs, termination messages, ports). */
export const reportAllowanceMs = 3_000;

/** work, or the fallback when it has not settled by `by` (ms since the epoch); a failure gives the fallback too. */
export function within<T>(work: Promise<T>, by: number, now: () => number, fallback: T): Promise<T> {
  return Deadline.at(by, 'the report')
    .bound(work, now)
    .catch(() => fallback);
}

/** Each pod's result: its logs and termination messages when it failed, and its ports, by `by` at the latest. */
export async function podResults(engine: Engine, outcomes: readonly PodOutcome[], by: number, now: () => number): Promise<PodResult[]> {
  return Promise.all(
    outcomes.map(async (out) => {
      const result = await resultWithLogs(engine, out, by, now);
      return within(withPorts(engine, out, result), by, now, result);
    }),
  );
}

async function resultWithLogs(engine: Engine, outcome: PodOutcome, by: number, now: () => number): Promise<PodResult> {
  const logs = new Map<string, string[]>();
  // Termination messages of the failing containers (reconcile/termination.ts), as Kubernetes reports them.
  const messages = new Map<string, string>();
  if (outcome.status !== 'succeeded' && outcome.status !== 'engine') {
    await Promise.all(
      (outcome.check?.containers ?? [])
        .filter((v) => !v.ok && v.instance)
        .map(async (v) => {
          const text = await within(engine.logs(v.instance!.id, { tail: failureLogLines }), by, now, '');
          const lines = text.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);
          logs.set(v.name, lines.slice(-failureLogLines));
          const p = [...outcome.plan.initContainers, ...outcome.plan.containers].find((x) => x.name === v.name);
          const m = p ? await within(terminationMessage(engine, p, v.instance!), by, now, undefined) : undefined;
          if (m) messages.set(v.name, m.message);
        }),
    );
  }
  return podResult(outcome, logs, messages);
}

/** service default/db: ClusterIP 172.20.0.2, 5432/TCP → pg, host port 32768 */
export function serviceLine(v: ServiceResult): string {
  const ports = v.ports.map((p) => `${p.port}/${p.protocol} → ${p.targetPort}${p.hostPort !== undefined ? `, host port ${p.hostPort}` : ''}`);
  return `service ${v.namespace}/${v.name}: ${v.type}${v.ip !== undefined ? ` ${v.ip}` : ''}${ports.length > 0 ? `, ${ports.join('; ')}` : ''}`;
}

/** A workload's line in the result: how its rollout ended, and what it removed or left alone. */
export function workloadResult(r: WorkloadOutcome): WorkloadResult {
  return {
    namespace: r.plan.namespace,
    name: r.plan.name,
    kind: r.plan.kind,
    ref: r.plan.ref,
    status: r.status,
    ...(r.suspended ? { suspended: true } : {}),
    reason: r.reason,
    replicas: r.plan.replicas,
    pods: r.plan.pods.map((p) => p.name),
    ...(r.removed.length > 0 ? { removed: r.removed } : {}),
    ...(r.leftAlone.length > 0 ? { leftAlone: r.leftAlone } : {}),
  };
}
