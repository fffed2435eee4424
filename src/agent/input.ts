// A run's input, read and checked before the engine is touched (step 1), and the options each pod is planned with.
import { ManifestError } from '../errors.js';
import type { EngineFacts } from '../engine/ports/facts.js';
import { loadManifests } from '../manifest/load.js';
import { sortByFileAndLine } from '../manifest/parse.js';
import { defaultSeccompProfileRoot, readProfileFile, readSeccompProfiles } from '../manifest/seccompProfiles.js';
import type { LoadedPod, LoadResult } from '../manifest/types.js';
import { unmatchedSkipKinds } from '../manifest/validate.js';
import { engineSupport } from '../plan/engineSupport.js';
import type { ClusterPlan, PlanOptions } from '../plan/types.js';
import type { Reporter } from '../report/reporter.js';
import type { WaitStrategy } from '../wait/strategies/index.js';
import { checkExitCodeFromWait, type ExitCodeSource, resolveExitCodeFrom } from './exitCodeFrom.js';
import type { RunOptions } from './options.js';
import { refuseImpossibleWaits } from './waits.js';

export interface RunInput extends LoadResult {
  /** Localhost seccomp profiles, read on the client as the kubelet reads them on its node. */
  seccompProfiles: ReadonlyMap<string, string>;
  exitFrom?: ExitCodeSource;
}

/** Load and validate every manifest; nothing touches the engine before this passes. */
export async function loadRunInput(o: RunOptions, wait: WaitStrategy, stdin: () => Promise<Buffer>, reporter: Reporter): Promise<RunInput> {
  const loaded = await loadManifests(
    o.manifests,
    { defaultNamespace: o.namespace, ...(o.skipKinds ? { skipKinds: o.skipKinds } : {}), ...(o.fromCronJobs ? { fromCronJobs: o.fromCronJobs } : {}) },
    stdin,
  );
  for (const n of loaded.notes ?? []) reporter.note(n);
  for (const w of loaded.warnings) reporter.note(`${w.line !== undefined ? `${w.file}:${w.line}` : w.file} ${w.path}: ${w.message}`);
  for (const n of unmatchedSkipKinds(o.skipKinds ?? [], loaded.skipped)) reporter.note(n);
  refuseImpossibleWaits(loaded.pods, wait);
  const exitFrom = o.exitCodeFrom !== undefined ? resolveExitCodeFrom(o.exitCodeFrom, loaded.pods) : undefined;
  if (exitFrom) checkExitCodeFromWait(o.exitCodeFrom!, exitFrom, o.wait, o.scoped !== undefined);
  const seccomp = await readSeccompProfiles(loaded.pods, o.seccompProfileRoot ?? defaultSeccompProfileRoot, readProfileFile);
  if (seccomp.problems.length > 0) throw new ManifestError(seccomp.problems);
  return { ...loaded, seccompProfiles: seccomp.profiles, ...(exitFrom ? { exitFrom } : {}) };
}

/**
 * The fields that depend on the engine (plan/engineSupport.ts), against its facts: one it cannot honour is a
 * manifest problem (exit 2) with nothing made; one it honours in a lesser way is a warning.
 */
export function checkEngineSupport(pods: readonly LoadedPod[], facts: EngineFacts, reporter: Reporter): void {
  const checked = pods.map((p) => engineSupport(p, facts));
  // A workload's replicas share a template: a problem of it is said once.
  const once = <T extends { file: string; line?: number; path: string; message: string }>(items: T[]): T[] =>
    items.filter((x, i) => items.findIndex((y) => y.file === x.file && y.line === x.line && y.path === x.path && y.message === x.message) === i);
  const files = pods.map((p) => p.source.file);
  const problems = sortByFileAndLine(once(checked.flatMap((c) => c.problems)), files);
  if (problems.length > 0) throw new ManifestError(problems);
  for (const n of sortByFileAndLine(once(checked.flatMap((c) => c.notes)), files))
    reporter.note(`${n.line !== undefined ? `${n.file}:${n.line}` : n.file} ${n.path}: ${n.message}`);
}

export function planOptions(
  o: RunOptions,
  infraImage: string,
  project: string | undefined,
  engine: { facts?: EngineFacts; seccompProfiles: ReadonlyMap<string, string> },
  cluster: ClusterPlan,
): PlanOptions {
  return {
    infraImage,
    ...(o.pull ? { pull: o.pull } : {}),
    ...(o.publishAll ? { publishAll: true } : {}),
    ...(project !== undefined ? { project } : {}),
    ...(engine.facts ? { engine: engine.facts } : {}),
    seccompProfiles: engine.seccompProfiles,
    cluster,
  };
}
