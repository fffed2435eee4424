// Termination messages for the failure report, as the kubelet fills ContainerStatus.state.terminated.message
// (https://kubernetes.io/docs/tasks/debug/debug-application/determine-reason-pod-failure/):
//  - policy File (the default): the contents of terminationMessagePath, read here from the dead container's
//    filesystem through the engine's archive API; at most 4096 bytes (the kubelet's limit per container);
//  - FallbackToLogsOnError: the same, but when the file is empty and the container exited with an error, the last
//    log lines instead (the kubelet's last 80 lines, at most 2048 bytes).
// On Docker /dev is a tmpfs that goes with the container's process, so a message written to the default
// /dev/termination-log does not survive the container; a path in its own filesystem (or a volume) does.
import type { Engine } from '../engine/engine.js';
import type { ContainerPlan } from '../plan/translate.js';
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
export async function terminationMessage(engine: Engine, p: ContainerPlan, c: ObservedContainer): Promise<TerminationMessage | undefined> {
  // A dead instance, or one the engine is about to restart (its file survives in its own filesystem).
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
