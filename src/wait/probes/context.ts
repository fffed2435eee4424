// What a handler needs besides its spec: the engine (exec), the container instance, where the pod is reachable
// from the host, and the time it may take.
import type { Engine } from '../../engine/engine.js';
import type { ProbeAddress } from './types.js';

export interface ProbeContext {
  engine: Engine;
  containerId: string;
  /** Where a connection to this container port goes; throws with the reason when the pod is not reachable. */
  address(port: number, host: string): ProbeAddress;
  timeoutMs: number;
}

/** Cut a probe's output to the kubelet's limit, as text. */
export function limitOutput(s: string, max: number): string {
  return s.length > max ? s.slice(0, max) : s;
}
