// The run's verdict, and the one place where an outcome becomes an exit code (design.md, "Exit codes"): each pod's
// and workload's status, a signal, a scoped command's exit and --exit-code-from's container come together here as
// the error runpod ends with (its class carries the code: errors.ts) or none (0). Nothing else picks a code.
import { constants } from 'node:os';
import { DeadlineError, ExitCode, ForwardedExitError, InterruptedError, PodFailedError, type RunpodError } from '../errors.js';
import { failureDetail, failureHeadline, workloadName } from '../report/output.js';
import type { PodResult } from '../report/result.js';
import type { PodOutcome, PodOutcomeStatus } from '../wait/runOnce.js';
import type { WorkloadOutcome } from './runWorkload.js';
import type { ExitCodeSource } from './exitCodeFrom.js';
import { downLine } from './made.js';

/** How a run ended, the first that applies of: interrupted, engine lost, --timeout, a pod failed, ok. */
export type RunEnding = 'interrupted' | 'engine' | 'timeout' | 'failed' | 'ok';

export type Signal = 'SIGINT' | 'SIGTERM';

/** Several pods and workloads: the first that applies of 130/143, 3, 124, 1 (design.md). */
export function runEnding(statuses: readonly PodOutcomeStatus[], signal: Signal | undefined): RunEnding {
  if (statuses.includes('interrupted') || signal) return 'interrupted';
  if (statuses.includes('engine')) return 'engine';
  if (statuses.includes('timeout')) return 'timeout';
  if (statuses.includes('failed')) return 'failed';
  return 'ok';
}

/** The code of an ending, as the error it becomes carries it. */
export function endingCode(ending: RunEnding, signal: Signal | undefined): number {
  if (ending === 'interrupted') return signal === 'SIGTERM' ? ExitCode.sigterm : ExitCode.sigint;
  return { engine: ExitCode.engine, timeout: ExitCode.timeout, failed: ExitCode.podFailed, ok: ExitCode.ok }[ending];
}

/** Several pods: the first that applies of 130/143, 3, 124, 1 (design.md). */
export function runExitCode(statuses: PodOutcomeStatus[], signal: Signal | undefined): number {
  return endingCode(runEnding(statuses, signal), signal);
}

/** What the run's failure account is told. */
export interface FailureAccount {
  ending: RunEnding;
  outcomes: readonly PodOutcome[];
  results: readonly PodResult[];
  rollouts: readonly WorkloadOutcome[];
  signal: Signal | undefined;
  /** The --wait mode, as the --timeout line says what the pods were not. */
  waitedFor: string;
  /** The manifests, shell-quoted, for the how-to lines; undefined when one was stdin. */
  manifests: string;
  fromStdin: boolean;
  project: string | undefined;
  /** ` --host <address>` when the run was given --host: the how-to lines reach the same engine. */
  hostWords?: string;
  /** Whether what runpod made is still there (not taken down). */
  leftInPlace: boolean;
}

/** The one line that says what failed, then the detail and how to clean up; undefined for a run that ended ok. */
export function runFailure(a: FailureAccount): RunpodError | undefined {
  if (a.ending === 'ok') return undefined;
  // A pod of a workload that succeeded (a Job's failed attempt, retried) is no failure of the run.
  const fine = new Set(a.rollouts.filter((r) => r.status === 'succeeded').map((r) => `${r.plan.namespace}/${r.plan.ref}`));
  const bad = a.results.filter((r) => r.status !== 'succeeded' && !(r.owner !== undefined && fine.has(`${r.namespace}/${r.owner}`)));
  // A rollout can fail with no pod of its own failing (its progress deadline passed): then it is named itself.
  const rolloutOnly = a.rollouts.filter((r) => r.status !== 'succeeded' && !bad.some((b) => b.namespace === r.plan.namespace && r.outcomes.has(b.name)));
  const names = [...bad.map((r) => `${r.namespace}/${r.name}`), ...rolloutOnly.map((r) => workloadName(r.plan))].join(', ');
  const detail = [...bad.flatMap((r) => failureDetail(r, bad.length > 1)), ...cleanUpLines(a, bad, rolloutOnly, names)];
  const lost = a.outcomes.find((x) => x.engineError)?.engineError;
  let err: RunpodError;
  if (a.ending === 'interrupted') err = new InterruptedError(a.signal ?? 'SIGINT');
  else if (a.ending === 'engine' && lost) err = lost;
  else if (a.ending === 'timeout') err = new DeadlineError(`--timeout passed before ${names} ${bad.length === 1 ? 'was' : 'were'} ${a.waitedFor}`);
  else {
    // A failed workload speaks for the pods that failed on its way; the others (bare pods) for themselves.
    const failedWorkloads = a.rollouts.filter((r) => r.status !== 'succeeded');
    const ofFailed = (r: PodResult): boolean => r.owner !== undefined && failedWorkloads.some((w) => w.plan.namespace === r.namespace && w.plan.ref === r.owner);
    err = new PodFailedError(
      failureHeadline(
        bad.filter((r) => !ofFailed(r)),
        failedWorkloads.map((r) => ({ namespace: r.plan.namespace, ref: r.plan.ref, reason: r.reason })),
      ),
    );
  }
  return err.withDetail(detail);
}

/** What is left of a failed run and how to clean it up (or run it again). */
function cleanUpLines(a: FailureAccount, bad: readonly PodResult[], rolloutOnly: readonly WorkloadOutcome[], names: string): string[] {
  const lines: string[] = [];
  const key = `${a.hostWords ?? ''}${a.project !== undefined ? ` --project ${a.project}` : ''}`;
  // A Job that failed in an earlier run ran nothing now: its pods are there to read, and --replace runs it again.
  const before = rolloutOnly.filter((r) => r.finishedBefore === true);
  for (const r of before) {
    const ns = r.plan.namespace === 'default' ? '' : ` -n ${r.plan.namespace}`;
    lines.push(
      `${r.plan.ref} failed in an earlier run and does not run again; its pods are kept for runpod logs${key}${ns} ${r.plan.ref}; to run it again: runpod --replace${key} ${a.manifests}`,
    );
  }
  if (before.length > 0 && before.length === rolloutOnly.length && bad.length === 0) {
    // Nothing was made now: the lines above say what is there and what to run.
  } else if (a.outcomes.length > 0 && a.outcomes.every((x) => x.status === 'succeeded' || x.admission !== undefined)) {
    // Pods admission refused have nothing on the engine to inspect or take down.
    lines.push(`nothing was created for ${names}`);
  } else if (!a.leftInPlace) {
    lines.push('the pods were taken down (--keep leaves them for inspection)');
  } else if (!a.fromStdin) {
    // The manifests name what is left; the account knows no claims, so the line takes none along.
    const down = downLine({
      project: a.project,
      ...(a.hostWords !== undefined ? { hostWords: a.hostWords } : {}),
      ownKey: false,
      pods: [],
      keepClaims: true,
      claimVolumes: [],
      manifestWords: a.manifests,
    });
    lines.push(`what runpod made is left for inspection (runpod status${key}, runpod logs${key}); remove it with: ${down}`);
  }
  return lines;
}

/** --exit-code-from: the container's own code in place of the run's 0 or 1 (exitCodeFrom.ts). */
export function withContainer(failure: RunpodError | undefined, from: ExitCodeSource | undefined, code: number | undefined): RunpodError | undefined {
  return from ? withContainerCode(code, from, failure) : failure;
}

/**
 * The run's error (or success) under --exit-code-from: a non-zero code of the container replaces a run's 0, a
 * pod failure's 1 or a scoped command's code, keeping the run's account as detail; usage, engine, timeout and
 * signal codes stand.
 */
export function withContainerCode(code: number | undefined, from: ExitCodeSource, runError: RunpodError | undefined): RunpodError | undefined {
  // A pod's failure or a scoped command's own code gives way; a usage, engine, timeout or signal error does not.
  const replaceable = runError === undefined || runError instanceof PodFailedError || runError instanceof ForwardedExitError;
  if (code === undefined || code === 0 || !replaceable) return runError;
  const err = new ForwardedExitError(`container ${from.container} of pod ${from.namespace}/${from.pod} exited with code ${code} (--exit-code-from)`, code);
  return runError ? err.withDetail([runError.message, ...runError.detail()]) : err;
}

/** The code runpod exits with for a verdict: the error's, or 0. */
export function finalCode(error: RunpodError | undefined): number {
  return error?.exitCode ?? ExitCode.ok;
}

/** How a scoped run's command ended (runpod ran it as a child). */
export type CommandExit = { code: number | null; signal: NodeJS.Signals | null } | { error: NodeJS.ErrnoException };

export function describeCommandExit(exit: CommandExit): string {
  if ('error' in exit) return `could not be started: ${exit.error.message}`;
  return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
}

/** The command's own account, as a shell gives its code: undefined when it exited 0. */
export function commandFailure(file: string, exit: CommandExit, takenDown: boolean, signal: Signal | undefined): RunpodError | undefined {
  if (signal) return new InterruptedError(signal).withDetail([`the command ${describeCommandExit(exit)}`, ...(takenDown ? ['the pods were taken down'] : [])]);
  if ('error' in exit) {
    // As a shell says it: 127 for a command that does not exist, 126 for one that cannot be executed.
    const code = exit.error.code === 'ENOENT' ? 127 : 126;
    return new ForwardedExitError(`cannot run ${file}: ${exit.error.code === 'ENOENT' ? 'command not found' : exit.error.message}`, code);
  }
  if (exit.signal) {
    // A shell's convention for a command killed by signal N: 128+N.
    const n = constants.signals[exit.signal] ?? 0;
    return new ForwardedExitError(`the command ${describeCommandExit(exit)}`, 128 + n);
  }
  if (exit.code !== 0) return new ForwardedExitError(`the command ${describeCommandExit(exit)}`, exit.code ?? 1);
  return undefined;
}
