// The result on stdout (-o text|json|yaml) and the failure account on stderr.
import type { Writable } from 'node:stream';
import yaml from 'js-yaml';
import { podLine } from './reporter.js';
import type { PodResult, RunResult } from './result.js';

export type OutputFormat = 'text' | 'json' | 'yaml';

export function writeResult(out: Writable, result: RunResult, format: OutputFormat): void {
  if (format === 'json') out.write(`${JSON.stringify(result, null, 2)}\n`);
  else if (format === 'yaml') out.write(yaml.dump(result, { noRefs: true, lineWidth: -1 }));
  else for (const p of result.pods) out.write(`${podLine(p)}\n`);
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
    lines.push(`  container ${c.name} (${c.image}): ${facts.join(', ')}`);
    lines.push(`    ${c.reason}`);
    if (c.error) lines.push(`    engine error: ${c.error}`);
    if (c.logs && c.logs.length > 0) {
      lines.push(`    last ${c.logs.length} log line${c.logs.length === 1 ? '' : 's'}:`);
      for (const l of c.logs) lines.push(`    | ${l}`);
    }
  }
  return lines;
}
