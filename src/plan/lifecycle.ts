// Init containers, lifecycle hooks and termination messages in the plan (pure): what the kubelet keeps per
// container for them, as plain data, and the labels that carry it on the engine so `runpod down` (which may
// have no manifest) can still run a container's preStop hook.
import { posix } from 'node:path';
import type { Container, LifecycleHandler } from 'kubernetes-types/core/v1.js';
import type { CreateOptions } from '../engine/ports/containers.js';
import { type HttpGetHandler, httpGetHandler } from '../kube/handlers.js';
import { Label } from '../kube/labels.js';
import { specHash } from '../kube/names.js';

/** A lifecycle handler with Kubernetes' defaults applied and a named port resolved (pkg/kubelet/lifecycle). */
export type HookHandler = { type: 'exec'; command: string[] } | HttpGetHandler | { type: 'sleep'; seconds: number };

export interface LifecyclePlan {
  postStart?: HookHandler;
  preStop?: HookHandler;
}

export type TerminationMessagePolicy = 'File' | 'FallbackToLogsOnError';

export interface TerminationMessagePlan {
  /** Default /dev/termination-log (SetDefaults_Container). */
  path: string;
  /** Default File (SetDefaults_Container). */
  policy: TerminationMessagePolicy;
  /**
   * Each instance gets a file of the pod's termination-log volume bound at path (plan/volumes.ts), so a message
   * outlives the container even under /dev, a tmpfs on Docker. False when one of the container's volumeMounts is
   * at that very path: that volume holds the message, and Docker refuses two mounts at one path.
   */
  bound: boolean;
}

/** What kind of init container an instance is, in the type label; app containers carry no such label. */
export type InitKind = 'init' | 'sidecar';

/** Labels for what observe and down must know without the manifest. */
export const LifecycleLabel = {
  /** init | sidecar; absent on app containers (and on everything runpod made before init containers). */
  containerType: 'io.runpod.container.type',
  /** The preStop handler as JSON, as the docker-era kubelet kept it (io.kubernetes.container.preStopHandler). */
  preStopHandler: 'io.kubernetes.container.preStopHandler',
} as const;

export const defaultTerminationMessagePath = '/dev/termination-log';

function handlerOf(c: Container, h: LifecycleHandler | undefined): HookHandler | undefined {
  if (!h) return undefined;
  if (h.exec) return { type: 'exec', command: h.exec.command ?? [] };
  if (h.httpGet) return httpGetHandler(c, h.httpGet);
  // The API types lag the feature: sleep is a LifecycleHandler field since Kubernetes 1.29 (KEP-3960).
  const sleep = (h as LifecycleHandler & { sleep?: { seconds?: number } }).sleep;
  if (sleep) return { type: 'sleep', seconds: sleep.seconds ?? 0 };
  return undefined;
}

export function lifecycleOf(c: Container): LifecyclePlan | undefined {
  const postStart = handlerOf(c, c.lifecycle?.postStart);
  const preStop = handlerOf(c, c.lifecycle?.preStop);
  if (!postStart && !preStop) return undefined;
  return { ...(postStart ? { postStart } : {}), ...(preStop ? { preStop } : {}) };
}

export function terminationMessageOf(c: Container): TerminationMessagePlan {
  const path = c.terminationMessagePath !== undefined && c.terminationMessagePath !== '' ? c.terminationMessagePath : defaultTerminationMessagePath;
  const policy: TerminationMessagePolicy = c.terminationMessagePolicy === 'FallbackToLogsOnError' ? 'FallbackToLogsOnError' : 'File';
  const bound = !(c.volumeMounts ?? []).some((m) => cleanPath(m.mountPath) === cleanPath(path));
  return { path, policy, bound };
}

/** The path Docker compares mount points by (filepath.Clean): no '.', '..', doubled or trailing '/'. */
function cleanPath(p: string): string {
  return posix.resolve('/', p);
}

/**
 * The part of a container's hash its hooks add: nothing without hooks, so the hashes of containers made before
 * hooks existed do not change. A changed hook replaces the container, as any changed spec does (the instance
 * that goes runs its own preStop, read from its label).
 */
export function lifecycleHashPart(c: Container): { lifecycle?: LifecyclePlan } {
  const l = lifecycleOf(c);
  return l ? { lifecycle: l } : {};
}

/** The labels a container's hooks add (the preStop handler, for `down` without a manifest). */
export function lifecycleLabels(c: Container): Record<string, string> {
  const preStop = lifecycleOf(c)?.preStop;
  return preStop ? { [LifecycleLabel.preStopHandler]: JSON.stringify(preStop) } : {};
}

/** Read a preStop handler back from its label; undefined when absent or not one runpod wrote. */
export function preStopFromLabels(labels: Record<string, string>): HookHandler | undefined {
  const raw = labels[LifecycleLabel.preStopHandler];
  if (raw === undefined) return undefined;
  try {
    const h = JSON.parse(raw) as HookHandler;
    if (h.type === 'exec' && Array.isArray(h.command)) return h;
    if (h.type === 'sleep' && typeof h.seconds === 'number') return h;
    if (h.type === 'httpGet' && typeof h.port === 'number' && typeof h.path === 'string') return { ...h, headers: Array.isArray(h.headers) ? h.headers : [], host: h.host ?? '' };
  } catch {
    // A label someone edited by hand: no hook rather than a failed down.
  }
  return undefined;
}

/** An init container with restartPolicy Always is a sidecar (KEP-753, "restartable init container"). */
export function initKindOf(c: Container): InitKind {
  return c.restartPolicy === 'Always' ? 'sidecar' : 'init';
}

/** The plan fields this module adds to a ContainerPlan. */
export interface ContainerLifecycleFields {
  /** Set on init containers only. */
  initKind?: InitKind;
  lifecycle?: LifecyclePlan;
  terminationMessage: TerminationMessagePlan;
}

interface PlanLike {
  hash: string;
  create: CreateOptions;
}

/**
 * Turn a container's plan into an init container's. Engine restart policy: a regular init container runs once
 * per instance ("no"); runpod itself makes a new instance after a failure when the pod's restartPolicy restarts
 * (the kubelet restarts a failed init container unless restartPolicy is Never), and the dead instances are the
 * record that the init container ran. A sidecar is restarted whatever the pod's restartPolicy (KEP-753), so
 * "always". The hash is recomputed over the changed options; the type label tells observe init from app.
 */
export function asInitContainer<T extends PlanLike>(plan: T, c: Container): T {
  const kind = initKindOf(c);
  const { Labels: labels, ...rest } = plan.create;
  const create: CreateOptions = { ...rest, HostConfig: { ...rest.HostConfig, RestartPolicy: kind === 'sidecar' ? { Name: 'always' } : { Name: 'no' } } };
  // Derived from the container's own hash (which covers everything translate put in it) and the init kind.
  const hash = specHash({ container: plan.hash, init: kind });
  return {
    ...plan,
    hash,
    create: { ...create, Labels: { ...labels, [Label.containerHash]: hash, [LifecycleLabel.containerType]: kind } },
    initKind: kind,
  };
}

/**
 * The pod hash with the init containers in it. Kubernetes: "Altering an init container image field is
 * equivalent to restarting the Pod" (concepts/workloads/pods/init-containers), and init containers run again
 * only when the pod restarts; so a changed, added or removed regular init container replaces the pod (and runs
 * every init container again). A sidecar's own spec is not in it: a changed sidecar is replaced alone, as the
 * kubelet restarts a restartable init container whose spec changed. Without init containers the pod hash is
 * the sandbox's, as before.
 */
export function podHashWithInit(sandboxHash: string, inits: readonly { name: string; hash: string; initKind?: InitKind }[]): string {
  if (inits.length === 0) return sandboxHash;
  return specHash({ sandbox: sandboxHash, init: inits.map((c) => (c.initKind === 'sidecar' ? { name: c.name, sidecar: true } : { name: c.name, hash: c.hash })) });
}
