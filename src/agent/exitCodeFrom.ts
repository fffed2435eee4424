// --exit-code-from [pod/]container (compose's flag): runpod exits with that container's own exit code once it has
// terminated, for --wait completed and scoped runs. A failure is never hidden: the container's code replaces the
// run's only when it is not 0; a container that exited 0 leaves the run's own code (1 if another pod failed).
// Which container, and its code once terminated, are here; the code's place in the run's verdict is verdict.ts's.
import type { ContainerReader } from '../engine/ports/containers.js';
import { UsageError } from '../errors.js';
import { type WaitMode, waitStrategy } from '../wait/strategies/index.js';
import type { LoadedPod } from '../manifest/types.js';
import { observePod } from '../reconcile/observe.js';
import { currentAttempt, ownedPods } from '../reconcile/pods.js';

export interface ExitCodeSource {
  namespace: string;
  pod: string;
  container: string;
  /** A Job's container: the code is its current attempt's (a running one, else the newest), whichever pod that is. */
  job?: string;
}

/**
 * Which container of the input the flag names: `container` when exactly one pod has a container of that name,
 * else `pod/container` or `namespace/pod/container`. Checked before anything touches the engine (exit 2).
 */
export function resolveExitCodeFrom(spec: string, pods: readonly LoadedPod[]): ExitCodeSource {
  const parts = spec.split('/');
  const container = parts[parts.length - 1]!;
  const podName = parts.length >= 2 ? parts[parts.length - 2] : undefined;
  const namespace = parts.length === 3 ? parts[0] : undefined;
  if (parts.length > 3 || parts.some((p) => p === '')) throw new UsageError(`--exit-code-from ${spec}: expected container, pod/container or namespace/pod/container`);
  const candidates = pods.flatMap((p): ExitCodeSource[] => {
    const m = p.pod.metadata;
    if ((podName !== undefined && m.name !== podName) || (namespace !== undefined && m.namespace !== namespace)) return [];
    const names = [...(p.pod.spec.initContainers ?? []), ...p.pod.spec.containers].map((c) => c.name);
    return names.includes(container) ? [{ namespace: m.namespace, pod: m.name, container, ...(p.owner?.startsWith('job/') ? { job: p.owner } : {}) }] : [];
  });
  // A Job's pods (its completions, its parallel slots) are one source: the Job's.
  const oneJob = candidates.length > 1 && candidates.every((c) => c.job !== undefined && c.job === candidates[0]!.job && c.namespace === candidates[0]!.namespace);
  if (candidates.length === 1 || oneJob) return candidates[0]!;
  const all = pods.flatMap((p) => [...(p.pod.spec.initContainers ?? []), ...p.pod.spec.containers].map((c) => `${p.pod.metadata.name}/${c.name}`));
  if (candidates.length === 0) throw new UsageError(`--exit-code-from ${spec}: no such container in the input; its containers: ${all.join(', ') || 'none'}`);
  throw new UsageError(
    `--exit-code-from ${spec}: ${candidates.length} pods have a container ${container} (${candidates.map((c) => `${c.namespace}/${c.pod}`).join(', ')}); name one as pod/${container}`,
  );
}

/**
 * Whether the flag can be met by this run: the container must end before runpod does. A Job is always awaited to
 * completion, whatever --wait says; a bare pod's container ends before runpod only under --wait completed, and any
 * container can have ended once a command has run. Refused before anything touches the engine (exit 2).
 */
export function checkExitCodeFromWait(spec: string, from: ExitCodeSource, wait: WaitMode, scoped: boolean): void {
  if (scoped || waitStrategy(wait).runsToCompletion || from.job !== undefined) return;
  throw new UsageError(
    `--exit-code-from ${spec} needs --wait completed, or a command after --: only then does the container end before runpod does (a Job's container needs neither: a Job is awaited until it completes)`,
  );
}

/**
 * The exit code of the container's newest instance when it has terminated; undefined while it runs (or never
 * ran, or the engine cannot say), which warn is told, since runpod's exit code is then its own. A Job's
 * container is read in its current attempt (findPodArg's choice for logs job/X too).
 */
export async function terminatedExitCode(engine: ContainerReader, from: ExitCodeSource, warn: (message: string) => void): Promise<number | undefined> {
  const podName = from.job !== undefined ? ((await ownedPods(engine, from.namespace, from.job).then(currentAttempt, () => undefined))?.name ?? from.pod) : from.pod;
  const pod = await observePod(engine, from.namespace, podName).catch(() => undefined);
  const newest = pod ? (pod.containers.get(from.container) ?? pod.initContainers.get(from.container) ?? [])[0] : undefined;
  if (newest && (newest.state === 'exited' || newest.state === 'dead')) return newest.exitCode;
  warn(`--exit-code-from: container ${from.container} of pod ${from.namespace}/${podName} has not terminated; runpod's exit code is its own`);
  return undefined;
}
