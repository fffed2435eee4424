// The result on stdout (-o text|json|yaml) and the failure account on stderr.
import type { Writable } from 'node:stream';
import yaml from 'js-yaml';
import { podLine } from './reporter.js';
import type { PodResult, RunResult } from './result.js';
import { exportLines, podEnvironment } from './env.js';

/** env: the pods' RUNPOD_* variables as `export` lines for eval, printed only when every pod came up. */
export type OutputFormat = 'text' | 'json' | 'yaml' | 'env';

export function writeResult(out: Writable, result: RunResult, format: OutputFormat): void {
  if (format === 'json') out.write(`${JSON.stringify(result, null, 2)}\n`);
  else if (format === 'yaml') out.write(yaml.dump(result, { noRefs: true, lineWidth: -1 }));
  else if (format === 'env') {
    // A failed run prints nothing to eval; its exit code and stderr say why.
    if (result.exitCode === 0) out.write(exportLines(podEnvironment(result.pods, result.project, result.services)));
  } else {
    for (const p of result.pods) out.write(`${podLine(p)}\n`);
    for (const p of result.pruned ?? []) out.write(`${p.namespace}/${p.name}: pruned${p.source !== undefined ? ` (source ${p.source})` : ''}\n`);
  }
}

/** A workload as a user names it: kubectl's kind/name, and its namespace when it is not the default one. */
export function workloadName(w: { namespace: string; ref: string }): string {
  return w.namespace === 'default' ? w.ref : `${w.ref} (namespace ${w.namespace})`;
}

/**
 * The one line a failed run starts with: what failed, and why, each reason once. Pods that failed for the same
 * reason are named together (three attempts that each exited 3: one reason, not three); a failed workload is named
 * itself, with its own reason (a Job's BackoffLimitExceeded), and the pods that failed on its way are left to the
 * detail below (pods: those not of a failed workload). A workload's reason begins with its kind/name, which the
 * headline says once.
 */
export function failureHeadline(
  pods: readonly { namespace: string; name: string; reason: string }[],
  workloads: readonly { namespace: string; ref: string; reason: string }[],
): string {
  const groups = new Map<string, { pods: string[]; workloads: string[] }>();
  const group = (why: string): { pods: string[]; workloads: string[] } => {
    const g = groups.get(why) ?? { pods: [], workloads: [] };
    groups.set(why, g);
    return g;
  };
  for (const p of pods) group(p.reason).pods.push(`${p.namespace}/${p.name}`);
  for (const w of workloads) {
    const own = [`${w.ref} failed: `, `${w.ref}: `, `${w.ref} `].find((prefix) => w.reason.startsWith(prefix));
    group(own !== undefined ? w.reason.slice(own.length) : w.reason).workloads.push(workloadName(w));
  }
  return [...groups]
    .map(([why, g]) => {
      const who = [...(g.pods.length > 0 ? [`${g.pods.length === 1 ? 'pod' : 'pods'} ${g.pods.join(', ')}`] : []), ...g.workloads].join(', ');
      return `${who} failed: ${why}`;
    })
    .join('; ');
}

/** Per failing container: its state, exit code, OOM kill, engine error and last log lines. */
export function failureDetail(p: PodResult, withHeadline: boolean): string[] {
  const lines: string[] = withHeadline ? [`pod ${p.namespace}/${p.name} ${p.status}: ${p.reason}`] : [];
  for (const c of p.containers) {
    if (c.ok) continue;
    const facts = [`state ${c.state}`];
    if (c.exitCode !== undefined) facts.push(`exit code ${c.exitCode}`);
    if (c.lastExitCode !== undefined) facts.push(`last exit code ${c.lastExitCode}`);
    if (c.oomKilled) facts.push('OOM-killed');
    facts.push(`restarts ${c.restartCount}`);
    lines.push(`  ${c.init === 'init' ? 'init container' : c.init === 'sidecar' ? 'sidecar' : 'container'} ${c.name} (${c.image}): ${facts.join(', ')}`);
    lines.push(`    ${c.reason}`);
    if (c.error) lines.push(`    engine error: ${c.error}`);
    if (c.message !== undefined) {
      const msg = c.message.split('\n');
      lines.push(`    termination message:${msg.length === 1 ? ` ${msg[0]}` : ''}`);
      if (msg.length > 1) for (const l of msg) lines.push(`    > ${l}`);
    }
    if (c.logs && c.logs.length > 0) {
      lines.push(`    last ${c.logs.length} log line${c.logs.length === 1 ? '' : 's'}:`);
      for (const l of c.logs) lines.push(`    | ${l}`);
    }
  }
  // The engine's answers to the sync's actions that failed, each once (the last few: a repeating plan says the same).
  const shown = new Set(p.containers.filter((c) => !c.ok).map((c) => c.reason));
  const failed = [
    ...new Set(p.actions.filter((a) => !a.ok && !a.housekeeping && a.error !== undefined && !shown.has(a.error)).map((a) => `${a.action} ${a.container}: ${a.error}`)),
  ];
  if (failed.length > 0) {
    lines.push('  failed actions:');
    for (const f of failed.slice(-maxFailedActions)) lines.push(`    ${f}`);
  }
  return lines;
}

/** Failed actions listed in a failure's detail. */
const maxFailedActions = 5;
