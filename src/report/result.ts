// The result document of a run (pure): what `-o json|yaml` prints and what the text report reads.
import { type ActionResult, actionContainer } from '../reconcile/apply.js';
import type { PodOutcome, PodOutcomeStatus } from '../wait/runOnce.js';
import type { ServiceResult } from '../services/result.js';
import type { Action } from '../reconcile/action.js';
import type { PrunedPod } from '../reconcile/prune.js';

export interface ContainerResult {
  name: string;
  id?: string;
  image: string;
  state: string;
  ok: boolean;
  reason: string;
  restartCount: number;
  attempt?: number;
  exitCode?: number;
  /** For a container that restarted: the code it last died with (the engine resets it on restart). */
  lastExitCode?: number;
  oomKilled?: boolean;
  error?: string;
  startedAt?: string;
  /** Last log lines, for a container that did not meet the condition. */
  logs?: string[];
  /** An init container (init) or a sidecar; absent for app containers. */
  init?: 'init' | 'sidecar';
  /** The termination message of a failed container (terminationMessagePath, or its logs under FallbackToLogsOnError). */
  message?: string;
}

export interface PodResult {
  namespace: string;
  name: string;
  uid: string;
  source?: string;
  /** The workload whose pod this is, kubectl's kind/name (deployment/web). */
  owner?: string;
  status: PodOutcomeStatus;
  /** The Kubernetes pod phase as observed: Pending, Running, Succeeded or Failed. */
  phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  reason: string;
  /** false when the run changed nothing on the engine. */
  changed: boolean;
  /** What each action came to (apply's results, in order); a failed one carries the engine's answer. */
  actions: ActionEntry[];
  /** Housekeeping that failed, and other warnings that did not fail the pod. */
  warnings?: string[];
  ip?: string;
  /** The pod's declared container ports, with the host port each is published on (chosen by the engine under --publish-all). */
  ports?: PortResult[];
  containers: ContainerResult[];
  checks: number;
  retries: number;
  durationMs: number;
}

export interface ActionEntry {
  action: Action['kind'];
  container: string;
  reason: string;
  ok: boolean;
  /** The instance acted on or created. */
  instance?: string;
  /** What was done instead, when it differs (a refused retire carried out as a removal). */
  outcome?: string;
  error?: string;
  /** Housekeeping (retiring dead instances): never fails the pod. */
  housekeeping?: boolean;
}

export interface PortResult {
  container: string;
  name?: string;
  containerPort: number;
  protocol: 'TCP' | 'UDP' | 'SCTP';
  hostIP?: string;
  hostPort?: number;
}

/** A pod taken down by --prune / --prune-all (or, under --dry-run, one that would be): reconcile/prune.ts. */
export type { PrunedPod };

/** A workload's rollout in this run (agent/runWorkload.ts). */
export interface WorkloadResult {
  namespace: string;
  name: string;
  kind: string;
  /** kubectl's kind/name: deployment/web. */
  ref: string;
  status: PodOutcomeStatus;
  /** A suspended Job (spec.suspend): status succeeded, nothing run. */
  suspended?: boolean;
  reason: string;
  replicas: number;
  /** The pods the template wants now. */
  pods: string[];
  /** Its pods this run took down (an older template, or beyond replicas). */
  removed?: string[];
  /** Outdated pods left as they are (OnDelete, or below a StatefulSet's partition). */
  leftAlone?: string[];
}

export interface RunResult {
  apiVersion: 'runpod/v1';
  kind: 'RunResult';
  exitCode: number;
  /** The isolation key the pods run under (kube/project.ts), when there is one. */
  project?: string;
  pods: PodResult[];
  /** The input's workloads, when it has any. */
  workloads?: WorkloadResult[];
  /** Present when the run was asked to prune. */
  pruned?: PrunedPod[];
  /** The input's Services, when it has any. */
  services?: ServiceResult[];
}

function actionEntry(r: ActionResult): ActionEntry {
  return {
    action: r.action.kind,
    container: actionContainer(r.action),
    reason: r.action.reason,
    ok: r.ok,
    ...(r.instance !== undefined ? { instance: r.instance } : {}),
    ...(r.outcome !== undefined ? { outcome: r.outcome } : {}),
    ...(r.error !== undefined ? { error: r.error } : {}),
    ...(r.housekeeping ? { housekeeping: true } : {}),
  };
}

export function podResult(outcome: PodOutcome, logs: ReadonlyMap<string, string[]>, messages: ReadonlyMap<string, string> = new Map()): PodResult {
  const { plan } = outcome;
  const verdicts = new Map((outcome.check?.containers ?? []).map((v) => [v.name, v]));
  // Init containers come first, as they ran: those that have run (or that the pod waits for).
  const initInstance = (name: string) => outcome.observed?.initContainers.get(name)?.[0];
  const inits = plan.initContainers.filter((p) => verdicts.has(p.name) || initInstance(p.name) !== undefined);
  const containers: ContainerResult[] = [...inits, ...plan.containers].map((p) => {
    const v = verdicts.get(p.name);
    const c = v?.instance ?? (p.initKind !== undefined ? initInstance(p.name) : outcome.observed?.containers.get(p.name)?.[0]);
    // An init container without a verdict is one the pod no longer waits for: it completed (or, a sidecar, runs).
    const settled = p.initKind !== undefined && v === undefined;
    const result: ContainerResult = {
      name: p.name,
      image: p.image,
      state: c?.state ?? 'absent',
      ok: v?.ok ?? settled,
      reason:
        v?.reason ??
        (settled
          ? p.initKind === 'sidecar'
            ? 'sidecar'
            : `completed (exit code ${c?.exitCode ?? 0})`
          : outcome.admission !== undefined
            ? 'not created: the pod was not admitted'
            : 'not checked'),
      restartCount: c?.restartCount ?? 0,
      ...(p.initKind !== undefined ? { init: p.initKind } : {}),
    };
    if (c) {
      result.id = c.id;
      result.attempt = c.attempt;
      if (c.state !== 'running' && c.state !== 'created') {
        result.exitCode = c.exitCode;
        result.oomKilled = c.oomKilled;
      }
      const last = outcome.lastExitCodes.get(c.id);
      if (last !== undefined && result.exitCode === undefined) result.lastExitCode = last;
      if (c.error) result.error = c.error;
      if (c.startedAt !== undefined) result.startedAt = new Date(c.startedAt).toISOString();
    }
    const l = logs.get(p.name);
    if (l && l.length > 0) result.logs = l;
    const m = messages.get(p.name);
    if (m !== undefined) result.message = m;
    return result;
  });
  const ip = outcome.observed?.infra[0]?.ip;
  const verdictList = outcome.check?.containers ?? [];
  // Kubernetes pod phases: Failed when a container terminated in failure and will not be restarted;
  // Succeeded when all terminated in success; Running when the sandbox is up and containers run.
  const phase: PodResult['phase'] =
    outcome.admission !== undefined || verdictList.some((v) => v.terminal)
      ? 'Failed'
      : verdictList.length > 0 && verdictList.every((v) => v.ok && v.instance?.state !== 'running')
        ? 'Succeeded'
        : outcome.observed?.infra[0]?.state === 'running' && containers.some((c) => c.state === 'running')
          ? 'Running'
          : 'Pending';
  return {
    namespace: plan.namespace,
    name: plan.name,
    uid: plan.uid,
    ...(plan.source !== undefined ? { source: plan.source } : {}),
    ...(plan.owner !== undefined ? { owner: plan.owner } : {}),
    status: outcome.status,
    phase,
    reason: outcome.reason,
    changed: outcome.actions.length > 0,
    actions: outcome.results.map(actionEntry),
    ...(outcome.warnings.length > 0 ? { warnings: outcome.warnings } : {}),
    ...(ip ? { ip } : {}),
    containers,
    checks: outcome.checks,
    retries: outcome.retriesUsed,
    durationMs: outcome.endedAt - outcome.startedAt,
  };
}
