// Label keys runpod puts on every container it creates (docker-era kubelet conventions, design.md).
export const Label = {
  podName: 'io.kubernetes.pod.name',
  podNamespace: 'io.kubernetes.pod.namespace',
  podUid: 'io.kubernetes.pod.uid',
  containerName: 'io.kubernetes.container.name',
  dockerType: 'io.kubernetes.docker.type',
  containerHash: 'io.kubernetes.container.hash',
  restartCount: 'io.kubernetes.container.restartCount',
  gracePeriod: 'io.kubernetes.pod.terminationGracePeriod',
  managedBy: 'app.kubernetes.io/managed-by',
  /** Where the pod's manifest came from (absolute file or directory); absent for stdin. */
  source: 'io.runpod.source',
  /** The isolation key (kube/project.ts) the object was made under; absent when none was given. */
  project: 'io.runpod.project',
  /** The workload a pod belongs to, as kubectl names it (deployment/web); absent for a bare Pod. */
  owner: 'io.runpod.owner',
  /** "delete": the pod's claims go when its owner is taken down (a StatefulSet's whenDeleted: Delete). */
  claimsWithOwner: 'io.runpod.owner.claims',
  /** On a pod's infra container: its container ports (JSON), so endpoints resolve named targetPorts of any pod. */
  ports: 'io.runpod.ports',
  /** A Job's ttlSecondsAfterFinished (> 0) on its pods: `runpod gc` removes them once it has passed since they finished. */
  jobTtl: 'io.runpod.job.ttl-seconds-after-finished',
} as const;

export const managedByValue = 'runpod';
export const managedSelector = `${Label.managedBy}=${managedByValue}`;
/** Name of the infra container in the container-name label, as the kubelet's dockershim used. */
export const infraContainerName = 'POD';
export const annotationPrefix = 'annotation.';

/**
 * The pod's own labels (metadata.labels) back from its infra container's: without runpod's keys (io.kubernetes.*,
 * io.runpod.*, managed-by) and the annotation.<key> copies of its annotations.
 */
export function podLabelsOf(infraLabels: Readonly<Record<string, string>>): Record<string, string> {
  const own = (k: string): boolean => k.startsWith('io.kubernetes.') || k.startsWith('io.runpod.') || k.startsWith(annotationPrefix) || k === Label.managedBy;
  return Object.fromEntries(Object.entries(infraLabels).filter(([k]) => !own(k)));
}

/** Label selectors (key=value) that find every container of one pod, and only runpod's. */
export function podSelector(namespace: string, name: string): string[] {
  return [managedSelector, `${Label.podNamespace}=${namespace}`, `${Label.podName}=${name}`];
}

/**
 * A container's resource requests (milli-CPU, bytes), on every app and init container runpod creates, so admission
 * can count what the pods already running on the engine requested from one list of containers (admission.ts).
 * Not in any hash: a changed request changes the container's hash through its cgroup settings anyway.
 */
export const RequestLabel = {
  cpu: 'io.runpod.requests.cpu',
  memory: 'io.runpod.requests.memory',
} as const;
