// A workload (Deployment, ReplicaSet, ReplicationController, StatefulSet, DaemonSet) → the pods its controller
// would want now, with their names and labels, and how it changes them (pure). The pods are written as Pod objects
// for the loader to default and check like any other; the run-once loop then drives each of them as a bare pod.
import { type Obj, isObj } from '../kube/object.js';
import { type ContainerRestart, containerRestart, initContainerRestart } from '../kube/restart.js';
import { claimName, generatedPodName, ordinalPodName, podSuffix, podTemplateHash, replicaSetName } from './names.js';

export type WorkloadKind = 'Deployment' | 'ReplicaSet' | 'ReplicationController' | 'StatefulSet' | 'DaemonSet' | 'Job';

/** How a template change reaches the pods (each controller's update strategy). */
export type UpdatePlan =
  /** Deployment / DaemonSet: new pods beside old ones, within the surge and unavailability bounds. */
  | { type: 'RollingUpdate'; maxSurge: number; maxUnavailable: number }
  /** Deployment: every old pod goes before the new ones come. */
  | { type: 'Recreate' }
  /** StatefulSet: pods at or above the partition are updated one at a time, highest ordinal first. */
  | { type: 'OrderedRollingUpdate'; partition: number }
  /** StatefulSet / DaemonSet: a pod is updated only when it is deleted. */
  | { type: 'OnDelete' }
  /** ReplicaSet / ReplicationController: the pods are brought to the template where they stand. */
  | { type: 'InPlace' }
  /** Job: pods run to completion, a failed one replaced by a new pod (agent/runJob.ts). */
  | { type: 'RunToCompletion' };

/** A Job's terms (batch/v1 JobSpec, defaulted as SetDefaults_Job does). */
export interface JobTerms {
  /**
   * The Job's slots: completions, the successful pods needed (each slot succeeds once); with no completions set (the
   * work-queue pattern, workQueue), the `parallelism` pods started at once (at least one slot, for the names).
   */
  completions: number;
  /**
   * No completions set: the Job controller starts `parallelism` pods, makes no new one once any has succeeded, and the
   * Job is complete once some pod has succeeded and none is active (pkg/controller/job: completions nil).
   */
  workQueue: boolean;
  /** Pods at once (default 1). */
  parallelism: number;
  /** Indexed: each completion index 0..completions-1 succeeds once; its pods see JOB_COMPLETION_INDEX. */
  indexed: boolean;
  /** Pod failures allowed before the Job fails (default 6). */
  backoffLimit: number;
  /** The Job fails when it has been active this long (DeadlineExceeded). */
  activeDeadlineSeconds?: number;
  /** ttlSecondsAfterFinished 0: the finished Job's pods are removed at once. */
  removeWhenFinished: boolean;
  /** ttlSecondsAfterFinished > 0: the finished Job's pods go once this long has passed since it finished. */
  ttlSecondsAfterFinished?: number;
  /** restartPolicy OnFailure: a failed container restarts in place, and each restart counts against backoffLimit. */
  restartsInPlace: boolean;
  /**
   * restartPolicy Never, and a container (or regular init container) whose own restartPolicy or restartPolicyRules
   * (Kubernetes 1.34) restart it in place: those restarts count toward nothing (the Job controller counts restarts
   * only under the template's OnFailure, pastBackoffLimitOnFailure; KEP-5307: a restart leaves the pod Running, so
   * podFailurePolicy and backoffLimit see only the pod that fails in the end).
   */
  restartsUncounted: boolean;
  /** How each app container of the template restarts (its own restartPolicy and rules over the pod's). */
  containerRestarts: Record<string, ContainerRestart>;
  /** suspend: true: no pods are made, and active ones are removed (the Job controller's suspended Job). */
  suspended: boolean;
  /** Indexed: failures allowed per index before that index fails (backoffLimitPerIndex). */
  backoffLimitPerIndex?: number;
  /** With backoffLimitPerIndex: the Job fails as soon as more indexes than this have failed. */
  maxFailedIndexes?: number;
  /** podFailurePolicy.rules, in order. */
  failureRules: PodFailureRule[];
}

/** One podFailurePolicy rule: on exit codes, or on pod conditions (which never occur on one host). */
export type PodFailureRule =
  | { action: PodFailureAction; on: 'exitCodes'; containerName?: string; operator: 'In' | 'NotIn'; values: number[] }
  | { action: PodFailureAction; on: 'podConditions'; types: string[] };

export type PodFailureAction = 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';

export interface WorkloadPod {
  name: string;
  /** The Pod object to load (not yet defaulted). */
  value: Obj;
  /** A StatefulSet pod's ordinal; a Job pod's completion slot (its index, when Indexed). */
  ordinal?: number;
}

export interface WorkloadPlan {
  kind: WorkloadKind;
  namespace: string;
  name: string;
  /** kind/name as kubectl writes it (deployment/web). */
  ref: string;
  replicas: number;
  /** The template's hash: a Deployment's pod-template-hash; a DaemonSet's controller-revision-hash. */
  revision: string;
  /** The pods wanted now, in order (ordinal order for a StatefulSet). */
  pods: WorkloadPod[];
  update: UpdatePlan;
  /** StatefulSet: OrderedReady starts pod N+1 once pod N is ready (on the way up), and removes highest first. */
  podManagement: 'OrderedReady' | 'Parallel';
  /** A pod is available once ready for this long (kubectl rollout status counts available pods). */
  minReadySeconds: number;
  /** Deployment: a rollout step that makes no progress in this long fails (ProgressDeadlineExceeded). */
  progressDeadlineSeconds?: number;
  /** A Job's terms; its pods are the first attempt of each completion (more are made as pods fail). */
  job?: JobTerms;
  /** StatefulSet claims: the templates' names, and whether a claim goes with a removed ordinal / the workload. */
  claims?: { templates: string[]; deleteWhenScaled: boolean; deleteWhenDeleted: boolean };
}

const obj = (v: unknown): Obj => (isObj(v) ? v : {});
const int = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isInteger(v) ? v : fallback);

/**
 * An int-or-percent of replicas, as the Deployment controller resolves it (intstr.GetScaledValueFromIntOrPercent):
 * maxSurge rounds up, maxUnavailable down; both 0 is made maxUnavailable 1 (deployment util ResolveFenceposts).
 */
export function resolveFenceposts(
  maxSurge: unknown,
  maxUnavailable: unknown,
  replicas: number,
  defaults: [string | number, string | number],
): { maxSurge: number; maxUnavailable: number } {
  const scaled = (v: unknown, fallback: string | number, roundUp: boolean): number => {
    const x = v === undefined || v === null ? fallback : v;
    if (typeof x === 'number') return x;
    const pct = Number(String(x).replace(/%$/, ''));
    const value = (pct * replicas) / 100;
    return roundUp ? Math.ceil(value) : Math.floor(value);
  };
  const surge = scaled(maxSurge, defaults[0], true);
  const unavailable = scaled(maxUnavailable, defaults[1], false);
  return surge === 0 && unavailable === 0 ? { maxSurge: 0, maxUnavailable: 1 } : { maxSurge: surge, maxUnavailable: unavailable };
}

const kubectlName: Record<WorkloadKind, string> = {
  Deployment: 'deployment',
  ReplicaSet: 'replicaset',
  ReplicationController: 'replicationcontroller',
  StatefulSet: 'statefulset',
  DaemonSet: 'daemonset',
  Job: 'job',
};

/** <job>-<suffix> (NonIndexed), <job>-<index>-<suffix> (Indexed): each slot's attempts named apart, stably. */
export function jobPodName(job: string, terms: Pick<JobTerms, 'indexed' | 'completions'>, slot: number, attempt: number): string {
  return terms.indexed ? `${job}-${slot}-${podSuffix(`${job}-${slot}`, attempt)}` : generatedPodName(job, slot + terms.completions * attempt);
}

/**
 * One attempt at a Job's completion slot. The Job controller's labels (batch.kubernetes.io/job-name and the older
 * job-name); Indexed: the completion index as a label and annotation, JOB_COMPLETION_INDEX in every container's
 * environment and the hostname <job>-<index> (pkg/controller/job: indexed_job_utils). A cluster's suffix is random;
 * here it is derived from the slot and attempt, so a re-run finds the same pods.
 */
export function jobPod(job: string, namespace: string | undefined, template: Obj, podSpec: Obj, terms: JobTerms, slot: number, attempt: number): WorkloadPod {
  const name = jobPodName(job, terms, slot, attempt);
  const labels: Record<string, string> = { 'batch.kubernetes.io/job-name': job, 'job-name': job };
  if (!terms.indexed) return { name, ordinal: slot, value: podOf(template, namespace, name, labels, podSpec) };
  const index = String(slot);
  const withIndex = (containers: unknown): unknown =>
    Array.isArray(containers)
      ? containers.map((c) => (isObj(c) ? { ...c, env: [...(Array.isArray(c.env) ? c.env : []), { name: 'JOB_COMPLETION_INDEX', value: index }] } : c))
      : containers;
  const spec: Obj = {
    ...podSpec,
    hostname: `${job}-${index}`,
    containers: withIndex(podSpec.containers),
    ...(podSpec.initContainers !== undefined ? { initContainers: withIndex(podSpec.initContainers) } : {}),
  };
  const value = podOf(template, namespace, name, { ...labels, 'batch.kubernetes.io/job-completion-index': index }, spec);
  const meta = obj(value.metadata);
  meta.annotations = { ...obj(meta.annotations), 'batch.kubernetes.io/job-completion-index': index };
  return { name, ordinal: slot, value };
}

/** kubectl's name of a workload kind (deployment for Deployment), or undefined for a kind that is no workload. */
export function workloadRefName(kind: string): string | undefined {
  return Object.hasOwn(kubectlName, kind) ? kubectlName[kind as WorkloadKind] : undefined;
}

/** kubectl's names and short names of the workload kinds, in a kind/name argument (deploy/web, sts/db). */
const kindAliases = new Map<string, string>(
  Object.values(kubectlName)
    .flatMap(
      (n) =>
        [
          [n, n],
          [`${n}s`, n],
        ] as [string, string][],
    )
    .concat([
      ['deploy', 'deployment'],
      ['rs', 'replicaset'],
      ['rc', 'replicationcontroller'],
      ['sts', 'statefulset'],
      ['ds', 'daemonset'],
    ]),
);

/** deploy/web → deployment/web; undefined when the first part names no workload kind. */
export function parseWorkloadRef(text: string): string | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const kind = kindAliases.get(text.slice(0, slash).toLowerCase());
  return kind !== undefined ? `${kind}/${text.slice(slash + 1)}` : undefined;
}

/** A pod of the template: its metadata's labels and annotations (a template's name and namespace are ignored). */
function podOf(template: Obj, namespace: string | undefined, name: string, labels: Record<string, string>, spec: Obj): Obj {
  const meta = obj(template.metadata);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      ...(namespace !== undefined ? { namespace } : {}),
      labels: { ...obj(meta.labels), ...labels },
      ...(isObj(meta.annotations) ? { annotations: meta.annotations } : {}),
    },
    spec,
  };
}

export function expandWorkload(kind: WorkloadKind, value: Obj, defaultNamespace: string): WorkloadPlan {
  const meta = obj(value.metadata);
  const name = String(meta.name);
  const namespace = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : defaultNamespace;
  const spec = obj(value.spec);
  const template = obj(spec.template);
  const replicas = kind === 'DaemonSet' ? 1 : int(spec.replicas, 1);
  const revision = podTemplateHash(template);
  const minReadySeconds = int(spec.minReadySeconds, 0);
  const w: Workload = {
    base: { kind, namespace, name, ref: `${kubectlName[kind]}/${name}`, replicas, revision, minReadySeconds, podManagement: 'Parallel' as const },
    name,
    ns: typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : undefined,
    spec,
    template,
    podSpec: obj(template.spec),
    indexes: [...Array(replicas).keys()],
  };
  switch (kind) {
    case 'Deployment':
      return deploymentPlan(w);
    case 'ReplicaSet':
    case 'ReplicationController':
      return {
        ...w.base,
        update: { type: 'InPlace' },
        pods: w.indexes.map((i) => {
          const podName = generatedPodName(name, i);
          return { name: podName, value: podOf(template, w.ns, podName, {}, w.podSpec) };
        }),
      };
    case 'DaemonSet':
      return daemonSetPlan(w);
    case 'Job':
      return jobPlan(w);
    case 'StatefulSet':
      return statefulSetPlan(w);
  }
}

/** What every kind's expansion starts from: the plan's common fields and the workload's template. */
interface Workload {
  base: Pick<WorkloadPlan, 'kind' | 'namespace' | 'name' | 'ref' | 'replicas' | 'revision' | 'minReadySeconds' | 'podManagement'>;
  name: string;
  /** The namespace the manifest names, if any (a pod without one takes the default when it is loaded). */
  ns: string | undefined;
  spec: Obj;
  template: Obj;
  podSpec: Obj;
  /** 0 … replicas-1. */
  indexes: number[];
}

function deploymentPlan({ base, name, ns, spec, template, podSpec, indexes }: Workload): WorkloadPlan {
  // The Deployment's pods are its current ReplicaSet's: <deployment>-<pod-template-hash>-<suffix>.
  const rs = replicaSetName(name, base.revision);
  const strategy = obj(spec.strategy);
  const rolling = obj(strategy.rollingUpdate);
  const update: UpdatePlan =
    strategy.type === 'Recreate'
      ? { type: 'Recreate' }
      : // DefaultDeploymentUniqueLabelKey's defaults: maxSurge 25%, maxUnavailable 25% (apps/v1 SetDefaults_Deployment).
        { type: 'RollingUpdate', ...resolveFenceposts(rolling.maxSurge, rolling.maxUnavailable, base.replicas, ['25%', '25%']) };
  return {
    ...base,
    update,
    // apps/v1 SetDefaults_Deployment: progressDeadlineSeconds 600.
    progressDeadlineSeconds: int(spec.progressDeadlineSeconds, 600),
    pods: indexes.map((i) => {
      const podName = generatedPodName(rs, i);
      return { name: podName, value: podOf(template, ns, podName, { 'pod-template-hash': base.revision }, podSpec) };
    }),
  };
}

function daemonSetPlan({ base, name, ns, spec, template, podSpec }: Workload): WorkloadPlan {
  // One node, one pod; named from the revision, so a template change is a new pod beside (or after) the old.
  const revision = base.revision;
  const strategy = obj(spec.updateStrategy);
  const rolling = obj(strategy.rollingUpdate);
  const podName = generatedPodName(`${name}-${revision}`, 0).replace(`${name}-${revision}-`, `${name}-`);
  return {
    ...base,
    update: strategy.type === 'OnDelete' ? { type: 'OnDelete' } : { type: 'RollingUpdate', ...resolveFenceposts(rolling.maxSurge, rolling.maxUnavailable, 1, [0, 1]) },
    pods: [{ name: podName, value: podOf(template, ns, podName, { 'controller-revision-hash': revision, 'pod-template-generation': '1' }, podSpec) }],
  };
}

function jobPlan({ base, name, ns, spec, template, podSpec }: Workload): WorkloadPlan {
  // No completions with parallelism above 1: the work-queue pattern. With at most one pod at a time its rule and
  // completions 1 (SetDefaults_Job leaves completions nil only when parallelism is set) run the same pods.
  const parallelism = int(spec.parallelism, 1);
  const workQueue = typeof spec.completions !== 'number' && parallelism > 1;
  const completions = workQueue ? Math.max(1, parallelism) : int(spec.completions, 1);
  const job: JobTerms = {
    completions,
    workQueue,
    parallelism,
    indexed: spec.completionMode === 'Indexed',
    // batch/v1 SetDefaults_Job: backoffLimit 6, or the largest int32 when backoffLimitPerIndex governs.
    backoffLimit: int(spec.backoffLimit, typeof spec.backoffLimitPerIndex === 'number' ? 2_147_483_647 : 6),
    ...(typeof spec.activeDeadlineSeconds === 'number' ? { activeDeadlineSeconds: spec.activeDeadlineSeconds } : {}),
    removeWhenFinished: spec.ttlSecondsAfterFinished === 0,
    ...(typeof spec.ttlSecondsAfterFinished === 'number' && spec.ttlSecondsAfterFinished > 0 ? { ttlSecondsAfterFinished: spec.ttlSecondsAfterFinished } : {}),
    restartsInPlace: podSpec.restartPolicy === 'OnFailure',
    ...jobRestarts(podSpec),
    suspended: spec.suspend === true,
    ...(typeof spec.backoffLimitPerIndex === 'number' ? { backoffLimitPerIndex: spec.backoffLimitPerIndex } : {}),
    ...(typeof spec.maxFailedIndexes === 'number' ? { maxFailedIndexes: spec.maxFailedIndexes } : {}),
    failureRules: podFailureRules(spec.podFailurePolicy),
  };
  return {
    ...base,
    replicas: completions,
    update: { type: 'RunToCompletion' },
    job,
    pods: [...Array(completions).keys()].map((slot) => jobPod(name, ns, template, podSpec, job, slot, 0)),
  };
}

/** The podFailurePolicy's rules runpod acts on: each by pod conditions or by exit codes. */
function podFailureRules(policy: unknown): PodFailureRule[] {
  return (Array.isArray(obj(policy).rules) ? (obj(policy).rules as unknown[]) : []).flatMap((r): PodFailureRule[] => {
    const action = obj(r).action;
    if (action !== 'FailJob' && action !== 'FailIndex' && action !== 'Ignore' && action !== 'Count') return [];
    const conditions = obj(r).onPodConditions;
    if (Array.isArray(conditions) && conditions.length > 0) return [{ action, on: 'podConditions', types: conditions.map((c) => String(obj(c).type)) }];
    const codes = obj(obj(r).onExitCodes);
    if (codes.operator !== 'In' && codes.operator !== 'NotIn') return [];
    const values = Array.isArray(codes.values) ? codes.values.filter((v): v is number => typeof v === 'number') : [];
    return [{ action, on: 'exitCodes', operator: codes.operator, values, ...(typeof codes.containerName === 'string' ? { containerName: codes.containerName } : {}) }];
  });
}

function statefulSetPlan({ base, name, ns, spec, template, podSpec, indexes }: Workload): WorkloadPlan {
  const strategy = obj(spec.updateStrategy);
  const start = int(obj(spec.ordinals).start, 0);
  const serviceName = typeof spec.serviceName === 'string' && spec.serviceName !== '' ? spec.serviceName : undefined;
  const claimTemplates = (Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates : []).map((t) => String(obj(obj(t).metadata).name));
  const retention = obj(spec.persistentVolumeClaimRetentionPolicy);
  return {
    ...base,
    podManagement: spec.podManagementPolicy === 'Parallel' ? 'Parallel' : 'OrderedReady',
    update: strategy.type === 'OnDelete' ? { type: 'OnDelete' } : { type: 'OrderedRollingUpdate', partition: int(obj(strategy.rollingUpdate).partition, 0) },
    ...(claimTemplates.length > 0
      ? { claims: { templates: claimTemplates, deleteWhenScaled: retention.whenScaled === 'Delete', deleteWhenDeleted: retention.whenDeleted === 'Delete' } }
      : {}),
    pods: indexes.map((i) => {
      const ordinal = start + i;
      const podName = ordinalPodName(name, ordinal);
      // The StatefulSet controller: hostname is the pod's name, subdomain the serviceName, and each claim template
      // becomes a volume of that name bound to <template>-<statefulset>-<ordinal> (replacing one of that name).
      const claimVolumes = claimTemplates.map((t) => ({ name: t, persistentVolumeClaim: { claimName: claimName(t, name, ordinal) } }));
      const volumes = [...(Array.isArray(podSpec.volumes) ? podSpec.volumes : []).filter((v) => !claimTemplates.includes(String(obj(v).name))), ...claimVolumes];
      const ownSpec: Obj = { ...podSpec, hostname: podName, ...(serviceName !== undefined ? { subdomain: serviceName } : {}), ...(volumes.length > 0 ? { volumes } : {}) };
      const labels = { 'statefulset.kubernetes.io/pod-name': podName, 'apps.kubernetes.io/pod-index': String(ordinal) };
      return { name: podName, ordinal, value: podOf(template, ns, podName, labels, ownSpec) };
    }),
  };
}

/**
 * A Job template's container restarts: each app container's (its own restartPolicy and restartPolicyRules over the
 * pod's), and whether, under the pod's Never, some container or regular init container restarts in place anyway.
 */
function jobRestarts(podSpec: Obj): Pick<JobTerms, 'restartsUncounted' | 'containerRestarts'> {
  const podPolicy = podSpec.restartPolicy === 'OnFailure' ? 'OnFailure' : 'Never';
  const containers = (Array.isArray(podSpec.containers) ? podSpec.containers : []).filter(isObj);
  const inits = (Array.isArray(podSpec.initContainers) ? podSpec.initContainers : []).filter(isObj).filter((c) => c.restartPolicy !== 'Always');
  const restarts = [...containers.map((c) => containerRestart(c, podPolicy)), ...inits.map((c) => initContainerRestart(podPolicy, c))];
  return {
    restartsUncounted: podPolicy === 'Never' && restarts.some((r) => r.policy !== 'Never' || r.rules.length > 0),
    containerRestarts: Object.fromEntries(containers.flatMap((c, i) => (typeof c.name === 'string' ? [[c.name, restarts[i]!]] : []))),
  };
}
