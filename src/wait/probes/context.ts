// What a handler needs besides its spec: the engine (exec), the container instance, where the pod is reachable
// from the host, and the time it may take.
import type { ExecPort } from '../../engine/ports/streams.js';
import type { ProbeAddress } from '../../kube/probes.js';

export interface ProbeContext {
  engine: ExecPort;
  containerId: string;
  /** Where a connection to this container port goes; throws with the reason when the pod is not reachable. */
  address(port: number, host: string): ProbeAddress;
  timeoutMs: number;
}

/** Cut a probe's output to the kubelet's limit, as text. */
export function limitOutput(s: string, max: number): string {
  return s.length > max ? s.slice(0, max) : s;
}

/** How many characters of a probe's output its one line keeps. */
export const probeLineLength = 200;

/**
 * A probe's output as one line: its runs of whitespace (an HTML page's line breaks, a command's several lines) made
 * single spaces, cut to probeLineLength characters with "…". It goes into a container's reason, so into progress
 * lines, the heartbeat, status's NOT READY column and a failure's headline, each one line per fact (the kubelet's
 * own HTTP failure message is one line too).
 */
export function outputLine(s: string): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > probeLineLength ? `${line.slice(0, probeLineLength - 1)}…` : line;
}
