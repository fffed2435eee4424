// Finding runpod's pods on the engine for the commands that operate them (status, logs, exec, stats,
// completion): by runpod's labels only, so nothing else on the host is ever seen or touched.
import type { ContainerInspect, ContainerReader } from '../engine/ports/containers.js';
import { NotFoundError, UsageError } from '../errors.js';
import { Label, infraContainerName, managedSelector, podSelector } from '../kube/labels.js';
import { type Selector, selectorMatches } from '../kube/selector.js';
import { parseWorkloadRef } from '../workloads/expand.js';
import { type ContainerSummary, type PodSummary, type ReadinessResults, summarizePods } from './podSummary.js';

export interface PodRef {
  namespace: string;
  name: string;
}

const dns1123 = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** A `<pod>` argument: name, namespace/name, or kubectl's kind/name of a workload (deploy/web) or pod (pod/web). */
export type PodArg = PodRef | { namespace: string; owner: string };

export function parsePodArg(text: string, namespace: string): PodArg {
  const owner = parseWorkloadRef(text);
  if (owner !== undefined) return { namespace, owner };
  if (/^(po|pods?)\//.test(text)) {
    const name = text.slice(text.indexOf('/') + 1);
    if (!dns1123.test(name)) throw new UsageError(`"${text}" is not a pod: expected pod/<name> (the namespace comes from -n)`);
    return { namespace, name };
  }
  return parsePodRef(text, namespace);
}

/**
 * The pod an argument names; for a workload, as kubectl logs/exec pick one, its first pod (by name), said on
 * stderr. A Job's attempts are not replicas: its running pod, else its newest attempt (the one that decided how it
 * ended), where kubectl would take the oldest. A workload with no pods on the engine is exit 1.
 */
export async function findPodArg(engine: ContainerReader, arg: PodArg, say: (line: string) => void): Promise<PodSummary> {
  if ('owner' in arg && arg.owner.startsWith('job/')) {
    const attempts = await ownedPodsOf(engine, arg);
    const chosen = currentAttempt(attempts)!;
    if (attempts.length > 1) say(`Found ${attempts.length} pods, using pod/${chosen.name} (${chosen.running ? 'running' : 'the newest attempt'})`);
    return findPod(engine, { namespace: arg.namespace, name: chosen.name });
  }
  const refs = await podArgRefs(engine, arg);
  if (refs.length > 1) say(`Found ${refs.length} pods, using pod/${refs[0]!.name}`);
  return findPod(engine, refs[0]!);
}

/** The pods an argument names: the pod, or every pod of the workload on the engine now (none is exit 1). */
export async function podArgRefs(engine: ContainerReader, arg: PodArg): Promise<PodRef[]> {
  if (!('owner' in arg)) return [arg];
  return (await ownedPodsOf(engine, arg)).map((p) => ({ namespace: arg.namespace, name: p.name }));
}

/** A workload's pods on the engine; none is exit 1. */
async function ownedPodsOf(engine: ContainerReader, arg: { namespace: string; owner: string }): Promise<OwnedPod[]> {
  const owned = await ownedPods(engine, arg.namespace, arg.owner);
  if (owned.length === 0) throw new NotFoundError(`${arg.owner} has no pods in namespace ${arg.namespace} (runpod status lists the pods runpod manages)`);
  return owned;
}

/** A `<pod>` argument: name, or namespace/name. */
export function parsePodRef(text: string, namespace: string): PodRef {
  const parts = text.split('/');
  if (parts.length > 2 || parts.some((p) => !dns1123.test(p))) {
    throw new UsageError(`"${text}" is not a pod name: expected name or namespace/name`);
  }
  return parts.length === 2 ? { namespace: parts[0]!, name: parts[1]! } : { namespace, name: parts[0]! };
}

async function inspectAll(engine: ContainerReader, labels: string[]): Promise<ContainerInspect[]> {
  const list = await engine.listContainers(labels);
  const inspected = await Promise.all(list.map((c) => engine.inspectContainer(c.id)));
  return inspected.filter((i): i is ContainerInspect => i !== undefined);
}

/** Runs the readiness probes of pods found (status's wait/probes/readinessOnce.ts); the results by instance id. */
export type ReadinessProber = (pods: readonly PodSummary[]) => Promise<ReadinessResults>;

/** Summarize, and with a prober summarize again with what the probes said (only status probes). */
async function summarize(inspected: ContainerInspect[], probe: ReadinessProber | undefined): Promise<PodSummary[]> {
  const pods = summarizePods(inspected);
  if (!probe) return pods;
  const results = await probe(pods);
  return results.size > 0 ? summarizePods(inspected, results) : pods;
}

export interface FindOptions {
  /** Only the pods whose labels (the manifest's metadata.labels) match. */
  selector?: Selector;
  /** status's readiness prober; without it (logs, exec, stats, completion) nothing runs in the containers. */
  probe?: ReadinessProber;
}

/** Every pod runpod manages, or only those named (in the order given; missing ones left out). */
export async function findPods(engine: ContainerReader, refs?: PodRef[], options: FindOptions = {}): Promise<PodSummary[]> {
  const { selector, probe } = options;
  // The selector first, so that only the pods it keeps are probed.
  if (selector) {
    const kept = new Set((await findPods(engine, refs)).filter((p) => selectorMatches(selector, p.labels)).map((p) => `${p.namespace}/${p.name}`));
    return probe
      ? findPods(
          engine,
          [...kept].map((k) => ({ namespace: k.slice(0, k.indexOf('/')), name: k.slice(k.indexOf('/') + 1) })),
          { probe },
        )
      : (await findPods(engine, refs)).filter((p) => kept.has(`${p.namespace}/${p.name}`));
  }
  if (!refs) return summarize(await inspectAll(engine, [managedSelector]), probe);
  const found = await Promise.all(refs.map(async (r) => (await summarize(await inspectAll(engine, podSelector(r.namespace, r.name)), probe))[0]));
  return found.filter((p): p is PodSummary => p !== undefined);
}

/** One named pod; a pod that does not exist is exit 1 (design.md, "Exit codes of the other commands"). */
export async function findPod(engine: ContainerReader, ref: PodRef): Promise<PodSummary> {
  const [pod] = await findPods(engine, [ref]);
  if (!pod) throw new NotFoundError(`pod ${ref.namespace}/${ref.name} not found (runpod status lists the pods runpod manages)`);
  return pod;
}

/**
 * The container a command acts on: the one named by -c (an app container, or an init container or sidecar, as
 * kubectl takes them), or the pod's only app container. Several and no -c is a usage error (exit 2) listing the
 * names; a name the pod does not have is exit 1, also listing them.
 */
export function pickContainer(pod: PodSummary, name: string | undefined, command: string): ContainerSummary {
  const names = pod.containers.map((c) => c.name).join(', ');
  const inits = pod.initContainers.map((c) => c.name).join(', ');
  if (name === undefined) {
    if (pod.containers.length === 1) return pod.containers[0]!;
    if (pod.containers.length === 0) throw new NotFoundError(`pod ${pod.namespace}/${pod.name} has no containers yet`);
    throw new UsageError(`pod ${pod.namespace}/${pod.name} has ${pod.containers.length} containers: choose one with -c (${names})`).withDetail([
      `e.g. runpod ${command} ${pod.namespace}/${pod.name} -c ${pod.containers[0]!.name}`,
    ]);
  }
  const c = pod.containers.find((x) => x.name === name) ?? pod.initContainers.find((x) => x.name === name);
  if (!c)
    throw new NotFoundError(`container ${name} not found in pod ${pod.namespace}/${pod.name}; its containers: ${names || 'none'}${inits ? `; its init containers: ${inits}` : ''}`);
  return c;
}

/** A workload's pod as its containers' list entries tell: its ordinal, when it was last made, whether it runs. */
export interface OwnedPod {
  name: string;
  ordinal?: number;
  /** Its newest container's creation (seconds since the epoch). */
  created: number;
  /** An app or init container of it is running (its infra container does not count). */
  running: boolean;
}

/** A Job's attempt that says how it stands: one that is running, else the newest (undefined: none). */
export function currentAttempt(attempts: readonly OwnedPod[]): OwnedPod | undefined {
  return [...attempts].sort((a, b) => Number(b.running) - Number(a.running) || b.created - a.created || a.name.localeCompare(b.name))[0];
}

/** The workload's pods on the engine: every runpod container carrying its owner label, by pod name. */
export async function ownedPods(engine: ContainerReader, namespace: string, ref: string): Promise<OwnedPod[]> {
  const containers = await engine.listContainers([managedSelector, `${Label.podNamespace}=${namespace}`, `${Label.owner}=${ref}`]);
  const byName = new Map<string, OwnedPod>();
  for (const c of containers) {
    const name = c.labels[Label.podName];
    if (name === undefined) continue;
    const index = Number(c.labels['apps.kubernetes.io/pod-index']);
    const was = byName.get(name);
    const ordinal = Number.isInteger(index) ? index : was?.ordinal;
    const running = (was?.running ?? false) || (c.state === 'running' && c.labels[Label.containerName] !== infraContainerName);
    byName.set(name, { name, ...(ordinal !== undefined ? { ordinal } : {}), created: Math.max(was?.created ?? 0, c.created), running });
  }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}
