// The one pure translation from a Pod to what the engine must run (the role of podman's kube.go): names,
// labels, spec hashes and the exact create options of the infra container and each container. The same Pod
// always gives the same plan: no I/O, no clock, no randomness.
import type { Container, ContainerPort } from 'kubernetes-types/core/v1.js';
import type { CreateOptions } from '../engine/engine.js';
import type { LoadedPod } from '../manifest/types.js';
import { expandVars, resolveEnv } from './expand.js';
import { Label, annotationPrefix, infraContainerName, managedByValue } from './labels.js';
import { dockerContainerName, podUid, specHash } from './names.js';
import { memoryBytes, milliCpu } from './quantity.js';

export type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';
export type RestartPolicy = 'Always' | 'OnFailure' | 'Never';
/** --pull: overrides every container's imagePullPolicy. */
export type PullOverride = 'always' | 'missing' | 'never';

export interface ContainerPlan {
  /** The container's name in the pod; "POD" for the infra container. */
  name: string;
  image: string;
  pullPolicy: PullPolicy;
  /** Hex digest of everything that, when changed, replaces this container. */
  hash: string;
  /** Create options, less the per-instance parts (attempt label, infra reference): see instanceCreateOptions. */
  create: CreateOptions;
}

export interface PodPlan {
  /** namespace/name: a pod's identity. */
  key: string;
  namespace: string;
  name: string;
  uid: string;
  /** Hash of the pod-level fields that live on the infra container; when it changes the pod is replaced. */
  hash: string;
  restartPolicy: RestartPolicy;
  gracePeriodSeconds: number;
  /** Absolute file or directory the manifest came from; undefined for stdin. */
  source?: string;
  infra: ContainerPlan;
  containers: ContainerPlan[];
}

export interface PlanOptions {
  infraImage: string;
  pull?: PullOverride;
}

const pullOverride: Record<PullOverride, PullPolicy> = { always: 'Always', missing: 'IfNotPresent', never: 'Never' };

/**
 * Docker restart policy for a Pod restartPolicy, so the pod keeps its policy after runpod exits and across an
 * engine restart (design.md). Always -> always; OnFailure -> on-failure with no retry limit; Never -> no.
 */
const engineRestartPolicy: Record<RestartPolicy, { Name: string; MaximumRetryCount?: number }> = {
  Always: { Name: 'always' },
  OnFailure: { Name: 'on-failure', MaximumRetryCount: 0 },
  Never: { Name: 'no' },
};

export function translatePod(loaded: LoadedPod, options: PlanOptions): PodPlan {
  const { pod } = loaded;
  const namespace = pod.metadata.namespace;
  const name = pod.metadata.name;
  const uid = podUid(namespace, name, pod.metadata.uid);
  const restartPolicy = (pod.spec.restartPolicy ?? 'Always') as RestartPolicy;
  const gracePeriodSeconds = pod.spec.terminationGracePeriodSeconds ?? 30;

  const commonLabels: Record<string, string> = {
    [Label.podName]: name,
    [Label.podNamespace]: namespace,
    [Label.podUid]: uid,
    [Label.gracePeriod]: String(gracePeriodSeconds),
    [Label.managedBy]: managedByValue,
  };

  const infra = translateInfra(loaded, options.infraImage, commonLabels, gracePeriodSeconds);
  const containers = pod.spec.containers.map((c) =>
    translateContainer(c, restartPolicy, gracePeriodSeconds, commonLabels, options.pull),
  );
  return {
    key: `${namespace}/${name}`,
    namespace,
    name,
    uid,
    hash: infra.hash,
    restartPolicy,
    gracePeriodSeconds,
    ...(loaded.source.origin !== undefined ? { source: loaded.source.origin } : {}),
    infra,
    containers,
  };
}

/**
 * The infra ("pause") container holds what the kubelet's sandbox holds: the network and IPC namespaces, the
 * hostname and the published host ports. Pod labels go on it; annotations as annotation.<key> labels.
 */
function translateInfra(
  loaded: LoadedPod,
  image: string,
  commonLabels: Record<string, string>,
  gracePeriodSeconds: number,
): ContainerPlan {
  const { pod } = loaded;
  const exposed: Record<string, Record<string, never>> = {};
  const bindings: Record<string, { HostIp: string; HostPort: string }[]> = {};
  for (const c of pod.spec.containers) {
    for (const p of c.ports ?? []) {
      // Only ports with a hostPort are published: a bare containerPort is informational in Kubernetes and
      // reachable on the pod's own address anyway.
      if (!p.hostPort) continue;
      const key = portKey(p);
      exposed[key] = {};
      (bindings[key] ??= []).push({ HostIp: p.hostIP ?? '', HostPort: String(p.hostPort) });
    }
  }
  const create: CreateOptions = {
    Image: image,
    // Kubernetes: the pod's hostname is spec.hostname when set, else metadata.name.
    Hostname: pod.spec.hostname ?? pod.metadata.name,
    ExposedPorts: exposed,
    StopTimeout: gracePeriodSeconds,
    HostConfig: {
      PortBindings: bindings,
      // Other containers join this IPC namespace, which Docker allows only from a "shareable" one.
      IpcMode: 'shareable',
      // The sandbox lives until `runpod down`, as the kubelet keeps it until the pod is deleted (design.md).
      RestartPolicy: { Name: 'unless-stopped' },
    },
  };
  const hash = specHash(create);
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(pod.metadata.annotations ?? {})) labels[`${annotationPrefix}${k}`] = v;
  Object.assign(labels, pod.metadata.labels ?? {}, commonLabels, {
    [Label.containerName]: infraContainerName,
    [Label.dockerType]: 'podsandbox',
    [Label.containerHash]: hash,
    ...(loaded.source.origin !== undefined ? { [Label.source]: loaded.source.origin } : {}),
  });
  return { name: infraContainerName, image, pullPolicy: 'IfNotPresent', hash, create: { ...create, Labels: labels } };
}

function portKey(p: ContainerPort): string {
  return `${p.containerPort}/${(p.protocol ?? 'TCP').toLowerCase()}`;
}

function translateContainer(
  c: Container,
  restartPolicy: RestartPolicy,
  gracePeriodSeconds: number,
  commonLabels: Record<string, string>,
  pull: PullOverride | undefined,
): ContainerPlan {
  const image = c.image!;
  const pullPolicy: PullPolicy = pull ? pullOverride[pull] : ((c.imagePullPolicy ?? 'IfNotPresent') as PullPolicy);
  // Env values expand $(VAR) from earlier entries; command and args expand from the whole env
  // (https://kubernetes.io/docs/tasks/inject-data-application/define-interdependent-environment-variables/).
  const env = resolveEnv((c.env ?? []).map((e) => ({ name: e.name, ...(e.value !== undefined ? { value: e.value } : {}) })));
  const lookup = (n: string): string | undefined => env.get(n);
  const create: CreateOptions = {
    Image: image,
    Env: [...env].map(([k, v]) => `${k}=${v}`),
    Tty: c.tty ?? false,
    OpenStdin: c.stdin ?? false,
    StdinOnce: c.stdinOnce ?? false,
    StopTimeout: gracePeriodSeconds,
    HostConfig: {
      RestartPolicy: engineRestartPolicy[restartPolicy],
      ...resourceLimits(c),
    },
  };
  // Kubernetes: command replaces the image ENTRYPOINT and args its CMD. Docker keeps the image CMD only when
  // no Entrypoint is given, so command without args drops the image CMD, as Kubernetes documents
  // (https://kubernetes.io/docs/tasks/inject-data-application/define-command-argument-container/#notes).
  if (c.command !== undefined) create.Entrypoint = c.command.map((s) => expandVars(s, lookup));
  if (c.args !== undefined) create.Cmd = c.args.map((s) => expandVars(s, lookup));
  if (c.workingDir) create.WorkingDir = c.workingDir;
  const hash = specHash({ create, image });
  const labels = {
    ...commonLabels,
    [Label.containerName]: c.name,
    [Label.dockerType]: 'container',
    [Label.containerHash]: hash,
  };
  return { name: c.name, image, pullPolicy, hash, create: { ...create, Labels: labels } };
}

/**
 * resources -> cgroup settings, as the kubelet computes them (pkg/kubelet/cm/helpers_linux.go):
 * memory limit -> memory.max; memory request -> a soft reservation; cpu limit -> CFS quota over a 100 ms
 * period (quota = milliCPU * period / 1000, at least 1 ms); cpu request -> shares = milliCPU * 1024 / 1000,
 * at least 2 (MinShares), which is also what a container without a cpu request gets.
 */
function resourceLimits(c: Container): NonNullable<CreateOptions['HostConfig']> {
  const limits = c.resources?.limits ?? {};
  const requests = c.resources?.requests ?? {};
  const out: NonNullable<CreateOptions['HostConfig']> = {};
  const memLimit = limits.memory !== undefined ? memoryBytes(limits.memory) : undefined;
  if (memLimit !== undefined) out.Memory = memLimit;
  const memRequest = requests.memory !== undefined ? memoryBytes(requests.memory) : undefined;
  if (memRequest !== undefined) out.MemoryReservation = memRequest;
  const cpuLimit = limits.cpu !== undefined ? milliCpu(limits.cpu) : undefined;
  if (cpuLimit !== undefined) {
    const period = 100_000;
    out.CpuPeriod = period;
    out.CpuQuota = Math.max(1000, Math.floor((cpuLimit * period) / 1000));
  }
  const cpuRequest = requests.cpu !== undefined ? milliCpu(requests.cpu) : undefined;
  out.CpuShares = Math.max(2, Math.floor(((cpuRequest ?? 0) * 1024) / 1000));
  return out;
}

/**
 * The options for one instance of a container: the attempt number goes in its name and restartCount label,
 * and an app container joins the infra container's network and IPC namespaces.
 */
export function instanceCreateOptions(plan: PodPlan, c: ContainerPlan, attempt: number, infraId?: string): { name: string; options: CreateOptions } {
  const name = dockerContainerName(c.name, plan.name, plan.namespace, plan.uid, attempt);
  const labels = { ...c.create.Labels, [Label.restartCount]: String(attempt) };
  const options: CreateOptions = { ...c.create, Labels: labels };
  if (infraId !== undefined) {
    options.HostConfig = {
      ...c.create.HostConfig,
      NetworkMode: `container:${infraId}`,
      IpcMode: `container:${infraId}`,
    };
  }
  return { name, options };
}
