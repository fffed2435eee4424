// Which kinds a folder that `kubectl apply -f` would take may hold, and what runpod does with each (pure). A kind
// runpod runs is read; a kind that only means something to a cluster is skipped with one warning naming why; a kind
// that promises security or isolation is never skipped unasked; anything else is refused. `--skip-kind <Kind>`
// skips a kind on purpose (the user has said so), with the same warning.

export type KindVerdict =
  | { action: 'read' }
  | { action: 'skip'; why: string }
  /** Refused unless --skip-kind names it; why says what it would have promised, hint what to do. */
  | { action: 'refuse'; why: string; hint: string };

/** group/Kind (core kinds without a group) → why it means nothing on one Docker host. */
const clusterOnly = new Map<string, string>([
  ['Namespace', 'a namespace is only a name on one host; runpod creates nothing for it'],
  ['ServiceAccount', 'there is no API server on one host, so no account to act as (pods get no token)'],
  ['rbac.authorization.k8s.io/Role', 'there is no API server on one host to authorize requests'],
  ['rbac.authorization.k8s.io/ClusterRole', 'there is no API server on one host to authorize requests'],
  ['rbac.authorization.k8s.io/RoleBinding', 'there is no API server on one host to authorize requests'],
  ['rbac.authorization.k8s.io/ClusterRoleBinding', 'there is no API server on one host to authorize requests'],
  ['autoscaling/HorizontalPodAutoscaler', 'there is no metrics pipeline on one host; the workload keeps its own replicas'],
  ['policy/PodDisruptionBudget', 'nothing evicts pods on one host'],
  ['networking.k8s.io/Ingress', 'there is no ingress controller on one host; publish ports with hostPort or --publish-all'],
  ['networking.k8s.io/IngressClass', 'there is no ingress controller on one host'],
  ['scheduling.k8s.io/PriorityClass', 'there is no scheduler on one host to order pods'],
  ['storage.k8s.io/StorageClass', 'a claim binds a PersistentVolume of the input or is a local engine volume on one host; there is no provisioner to choose'],
  ['ResourceQuota', 'there is no API server on one host to enforce a quota; admission checks the host capacity instead'],
  ['LimitRange', 'there is no API server on one host to default or bound resources; give them in each container'],
]);

/** Kinds that promise isolation or security: skipping them silently would run something less safe than asked. */
const promises = new Map<string, string>([['networking.k8s.io/NetworkPolicy', 'it restricts which pods may talk to which, and runpod cannot enforce that on one Docker host']]);

/** The kinds runpod knows it does not run (skipped for being a cluster's, refused, or CronJob), by Kind. */
export const kindsNotRun: readonly string[] = [...clusterOnly.keys(), ...promises.keys(), 'batch/CronJob'].map((k) => k.slice(k.indexOf('/') + 1));

/**
 * apiVersions of the kinds runpod knows that the API server no longer serves (the Kubernetes deprecated API
 * migration guide, "Removed APIs by release"): `<apiVersion> <Kind>` → the release that removed it and the apiVersion
 * to use. kubectl apply refuses them on a current cluster, so runpod does too, saying which and what to write.
 */
const removed = new Map<string, { removedIn: string; use: string }>([
  ...['extensions/v1beta1', 'apps/v1beta1', 'apps/v1beta2'].map((v) => [`${v} Deployment`, { removedIn: '1.16', use: 'apps/v1' }] as const),
  ...['extensions/v1beta1', 'apps/v1beta1', 'apps/v1beta2'].map((v) => [`${v} ReplicaSet`, { removedIn: '1.16', use: 'apps/v1' }] as const),
  ...['extensions/v1beta1', 'apps/v1beta2'].map((v) => [`${v} DaemonSet`, { removedIn: '1.16', use: 'apps/v1' }] as const),
  ...['apps/v1beta1', 'apps/v1beta2'].map((v) => [`${v} StatefulSet`, { removedIn: '1.16', use: 'apps/v1' }] as const),
  ['extensions/v1beta1 NetworkPolicy', { removedIn: '1.16', use: 'networking.k8s.io/v1' }],
  ['extensions/v1beta1 Ingress', { removedIn: '1.22', use: 'networking.k8s.io/v1' }],
  ['networking.k8s.io/v1beta1 Ingress', { removedIn: '1.22', use: 'networking.k8s.io/v1' }],
  ['networking.k8s.io/v1beta1 IngressClass', { removedIn: '1.22', use: 'networking.k8s.io/v1' }],
  ...['v1alpha1', 'v1beta1'].flatMap((v) =>
    ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'].map(
      (k) => [`rbac.authorization.k8s.io/${v} ${k}`, { removedIn: '1.22', use: 'rbac.authorization.k8s.io/v1' }] as const,
    ),
  ),
  ['scheduling.k8s.io/v1beta1 PriorityClass', { removedIn: '1.22', use: 'scheduling.k8s.io/v1' }],
  ['storage.k8s.io/v1beta1 StorageClass', { removedIn: '1.22', use: 'storage.k8s.io/v1' }],
  ['batch/v1beta1 CronJob', { removedIn: '1.25', use: 'batch/v1' }],
  ['policy/v1beta1 PodDisruptionBudget', { removedIn: '1.25', use: 'policy/v1' }],
  ['autoscaling/v2beta1 HorizontalPodAutoscaler', { removedIn: '1.25', use: 'autoscaling/v2' }],
  ['autoscaling/v2beta2 HorizontalPodAutoscaler', { removedIn: '1.26', use: 'autoscaling/v2' }],
]);

/** Why this apiVersion of a kind is refused when the API server no longer serves it; undefined when it is served. */
export function removedApiVersion(apiVersion: string, kind: string): string | undefined {
  const r = removed.get(`${apiVersion} ${kind}`);
  return r && `${apiVersion} ${kind} was removed in Kubernetes ${r.removedIn} (no API server serves it any more); use apiVersion ${r.use}`;
}

/** The group of an apiVersion: "" for v1, "apps" for apps/v1. */
export function apiGroup(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

function key(apiVersion: string, kind: string): string {
  const group = apiGroup(apiVersion);
  return group === '' ? kind : `${group}/${kind}`;
}

/**
 * What runpod does with a document of this apiVersion and kind. readKinds: the kinds (core kinds by name, others
 * as group/Kind) that runpod runs; skipKinds: what the user said to skip (by Kind).
 */
export function kindVerdict(apiVersion: string, kind: string, readKinds: ReadonlySet<string>, skipKinds: ReadonlySet<string>): KindVerdict | undefined {
  const k = key(apiVersion, kind);
  // Asked for, any kind is skipped, one runpod would run too (--skip-kind Deployment runs the rest of a folder).
  if (skipKinds.has(kind)) return { action: 'skip', why: 'skipped as asked (--skip-kind)' };
  if (readKinds.has(k)) return { action: 'read' };
  const skip = clusterOnly.get(k);
  if (skip !== undefined) return { action: 'skip', why: skip };
  const promise = promises.get(k);
  if (promise !== undefined) return { action: 'refuse', why: promise, hint: `to run the rest without it, pass --skip-kind ${kind}` };
  if (k === 'batch/CronJob') {
    return {
      action: 'refuse',
      why: 'there is no scheduler on one host to run it on its schedule',
      hint: `to run its job template once, pass --from-cronjob <name> (as kubectl create job --from=cronjob/<name>); to skip it, --skip-kind ${kind}`,
    };
  }
  return undefined;
}
