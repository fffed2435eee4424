// Termination messages for the failure report, as the kubelet fills ContainerStatus.state.terminated.message
// (https://kubernetes.io/docs/tasks/debug/debug-application/determine-reason-pod-failure/):
//  - policy File (the default): the contents of terminationMessagePath, read here from the dead container's
//    filesystem through the engine's archive API; at most 4096 bytes (the kubelet's limit per container);
//  - FallbackToLogsOnError: the same, but when the file is empty and the container exited with an error, the last
//    log lines instead (the kubelet's last 80 lines, at most 2048 bytes).
// On Docker /dev is a tmpfs that goes with the container's process, so a message written to the default
// /dev/termination-log would not survive the container. As the kubelet does, every instance gets a file of its
// own bound at terminationMessagePath, default or not (plan/volumes.ts terminationFile, made by
// reconcile/volumes.ts in the pod's termination-log volume, which the infra container holds); the engine's
// archive API mounts a dead container's binds before reading, so the file is read through the container as any
// other path. A container made before
// runpod bound these files, or one with a volumeMount at that path, is read from its own filesystem or volume.
// An instance the engine restarts in place (its restart policy) keeps its file: a message from an earlier run
// stays until the new run overwrites it.
import type { ContainerFiles } from '../engine/ports/containers.js';
import type { LogPort } from '../engine/ports/streams.js';
import type { ContainerPlan } from '../plan/types.js';
import type { ObservedContainer } from './observe.js';

export const maxTerminationMessageBytes = 4096;
const fallbackLogLines = 80;
const fallbackLogBytes = 2048;

export interface TerminationMessage {
  message: string;
  /** Where it came from: the file, or the logs (FallbackToLogsOnError). */
  from: 'file' | 'logs';
}

/** The termination message of a dead instance, or undefined when it left none. */
export async function terminationMessage(engine: ContainerFiles & LogPort, p: ContainerPlan, c: ObservedContainer): Promise<TerminationMessage | undefined> {
  // A dead instance, or one the engine is about to restart (its file survives: bound, or in its own filesystem).
  if (c.state !== 'exited' && c.state !== 'dead' && c.state !== 'restarting') return undefined;
  const tm = p.terminationMessage;
  if (!tm) return undefined;
  const file = await engine.readContainerFile(c.id, tm.path, maxTerminationMessageBytes).catch(() => undefined);
  const text = file?.toString('utf8') ?? '';
  if (text.trim() !== '') return { message: text.trimEnd(), from: 'file' };
  if (tm.policy === 'FallbackToLogsOnError' && c.exitCode !== 0) {
    const logs = await engine.logs(c.id, { tail: fallbackLogLines }).catch(() => '');
    const tail = Buffer.from(logs, 'utf8');
    const cut = tail.length > fallbackLogBytes ? tail.subarray(tail.length - fallbackLogBytes).toString('utf8') : logs;
    if (cut.trim() !== '') return { message: cut.trimEnd(), from: 'logs' };
  }
  return undefined;
}
