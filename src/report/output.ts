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
  const failed = [...new Set(p.actions.filter((a) => !a.ok && !a.housekeeping && a.error !== undefined && !shown.has(a.error)).map((a) => `${a.action} ${a.container}: ${a.error}`))];
  if (failed.length > 0) {
    lines.push('  failed actions:');
    for (const f of failed.slice(-maxFailedActions)) lines.push(`    ${f}`);
  }
  return lines;
}

/** Failed actions listed in a failure's detail. */
const maxFailedActions = 5;
