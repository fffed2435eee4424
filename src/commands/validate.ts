// runpod validate: the manifest checks of `run`, offline; no engine needed. Fields whose fate depends on the
// engine (AppArmor, recursive read-only mounts, image volumes) are accepted and said to depend on it: `validate`
// never asks an engine, so it gives the same answer on any machine (and `run --dry-run` asks the engine).
// Localhost seccomp profiles are files on this machine, so they are read and checked here as a run would.
import { ExitCode, ManifestError } from '../errors.js';
import { loadManifests } from '../manifest/load.js';
import { unmatchedSkipKinds } from '../manifest/validate.js';
import { defaultSeccompProfileRoot, readProfileFile, readSeccompProfiles } from '../manifest/seccompProfiles.js';
import { engineDependentFields } from '../plan/engineSupport.js';
import { type CommandContext, readAll } from './context.js';

export interface ValidateOptions {
  manifests: string[];
  namespace: string;
  quiet: boolean;
  /** --skip-kind: kinds to skip on purpose. */
  skipKinds?: string[];
  /** --from-cronjob: CronJobs whose job template is checked as the Job a run would make. */
  fromCronJobs?: string[];
  /** --seccomp-profile-root: where Localhost seccomp profiles are read. */
  seccompProfileRoot?: string;
}

export async function validateCommand(o: ValidateOptions, ctx: CommandContext): Promise<number> {
  const { pods, warnings, skipped, notes } = await loadManifests(
    o.manifests,
    { defaultNamespace: o.namespace, ...(o.skipKinds ? { skipKinds: o.skipKinds } : {}), ...(o.fromCronJobs ? { fromCronJobs: o.fromCronJobs } : {}) },
    () => readAll(ctx.stdin),
  );
  const seccomp = await readSeccompProfiles(pods, o.seccompProfileRoot ?? defaultSeccompProfileRoot, readProfileFile);
  if (seccomp.problems.length > 0) throw new ManifestError(seccomp.problems);
  // -q leaves out what is said of the input at every run (README, Output), as a run's -q does.
  if (!o.quiet) {
    for (const n of notes ?? []) ctx.stderr.write(`note: ${n}\n`);
    for (const w of warnings) ctx.stderr.write(`warning: ${w.line !== undefined ? `${w.file}:${w.line}` : w.file} ${w.path}: ${w.message}\n`);
    for (const n of unmatchedSkipKinds(o.skipKinds ?? [], skipped)) ctx.stderr.write(`warning: ${n}\n`);
    for (const n of pods.flatMap(engineDependentFields)) ctx.stderr.write(`note: ${n.line !== undefined ? `${n.file}:${n.line}` : n.file} ${n.path}: ${n.message}\n`);
  }
  if (!o.quiet) {
    for (const p of pods) ctx.stdout.write(`${p.source.file}: pod ${p.pod.metadata.namespace}/${p.pod.metadata.name} is valid\n`);
    for (const k of skipped) ctx.stdout.write(`${k.file}:${k.line}: ${k.kind}${k.name !== undefined ? ` ${k.name}` : ''} would be skipped\n`);
  }
  return ExitCode.ok;
}
