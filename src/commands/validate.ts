// runpod validate: the manifest checks of `run`, offline; no engine needed.
import { ExitCode } from '../errors.js';
import { loadManifests } from '../manifest/load.js';
import { type CommandContext, readAll } from './context.js';

export interface ValidateOptions {
  manifests: string[];
  namespace: string;
  quiet: boolean;
  /** --skip-kind: kinds to skip on purpose. */
  skipKinds?: string[];
  /** --from-cronjob: CronJobs whose job template is checked as the Job a run would make. */
  fromCronJobs?: string[];
}

export async function validateCommand(o: ValidateOptions, ctx: CommandContext): Promise<number> {
  const { pods, warnings, skipped } = await loadManifests(o.manifests, { defaultNamespace: o.namespace, ...(o.skipKinds ? { skipKinds: o.skipKinds } : {}), ...(o.fromCronJobs ? { fromCronJobs: o.fromCronJobs } : {}) }, () => readAll(ctx.stdin));
  for (const w of warnings) ctx.stderr.write(`warning: ${w.line !== undefined ? `${w.file}:${w.line}` : w.file} ${w.path}: ${w.message}\n`);
  if (!o.quiet) {
    for (const p of pods) ctx.stdout.write(`${p.source.file}: pod ${p.pod.metadata.namespace}/${p.pod.metadata.name} is valid\n`);
    for (const k of skipped) ctx.stdout.write(`${k.file}:${k.line}: ${k.kind}${k.name !== undefined ? ` ${k.name}` : ''} would be skipped\n`);
  }
  return ExitCode.ok;
}
