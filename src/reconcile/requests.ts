// What admission weighs on the engine (plan/admission.ts): the host's CPUs and memory, and what the pods runpod
// already runs there requested, read from the request labels of their live containers in one list call.
import type { ContainerReader } from '../engine/ports/containers.js';
import type { HostPort } from '../engine/ports/host.js';
import type { AdmissionInput } from '../plan/admission.js';
import { Label, RequestLabel, infraContainerName, managedSelector } from '../kube/labels.js';
import { liveStates } from './history.js';
import type { Resources } from '../plan/types.js';

export async function observeAdmission(engine: ContainerReader & HostPort): Promise<AdmissionInput> {
  const [host, containers] = await Promise.all([engine.hostInfo(), engine.listContainers([managedSelector])]);
  const running = new Map<string, Resources>();
  // A pod is on the engine while its infra container lives; its app, sidecar and running init containers count.
  for (const c of containers) {
    if (c.labels[Label.containerName] !== infraContainerName || !liveStates.has(c.state)) continue;
    // By uid: one manifest run under two isolation keys is two pods of one name, each requesting its own.
    running.set(c.labels[Label.podUid] ?? '', { milliCpu: 0, memoryBytes: 0 });
  }
  for (const c of containers) {
    const pod = running.get(c.labels[Label.podUid] ?? '');
    if (pod === undefined || !liveStates.has(c.state) || c.labels[Label.containerName] === infraContainerName) continue;
    // Containers made before runpod labelled requests count as requesting nothing.
    pod.milliCpu += Number(c.labels[RequestLabel.cpu] ?? 0) || 0;
    pod.memoryBytes += Number(c.labels[RequestLabel.memory] ?? 0) || 0;
  }
  return { capacity: { cpus: host.cpus, memoryBytes: host.memoryBytes }, running };
}
