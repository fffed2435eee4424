// The one pure translation from a Pod to what the engine must run (the role of podman's kube.go): names,
// labels, spec hashes and the exact create options of the infra container and each container. The same Pod
// always gives the same plan: no I/O, no clock, no randomness.
import type { Container, ContainerPort, PodSpec } from 'kubernetes-types/core/v1.js';
import type { CreateOptions } from '../engine/ports/containers.js';
import { type LoadedPod, type ServiceObject, configKey } from '../manifest/types.js';
import { endpointPorts, serviceLinkEnv, serviceSelects } from './serviceEnv.js';
import { namespaceNetwork, podDnsNames, serviceDnsNames } from '../kube/serviceNames.js';
import { legacyPullSecretKey, pullSecretKey } from '../manifest/configs.js';
import { expandVars } from './expand.js';
import { type EnvContext, containerEnv, expandsSecret } from './env.js';
import { hasRuntimeRef } from './runtime.js';
import {
  type MountContext,
  type PlannedVolume,
  type VolumeImage,
  imageVolumes,
  containerMounts,
  infraMounts,
  infraTerminationMount,
  planVolumes,
  terminationFile,
  terminationLogVolume,
  terminationMount,
  type Mount,
  podFileDir,
  podFileMount,
  resolvConfFile,
} from './volumes.js';
import { Label, RequestLabel, annotationPrefix, infraContainerName, managedByValue } from '../kube/labels.js';
import { dockerContainerName, podUid, specHash } from '../kube/names.js';
import { projectLabels } from '../kube/project.js';
import { memoryBytes, milliCpu } from '../kube/quantity.js';
import { podRequests } from './admission.js';
import { type ContainerRestart, type RestartPolicy, containerRestart, initContainerRestart } from '../kube/restart.js';
import { type ResizePolicy, engineResources, hashedCreate, resizePolicyOf } from './resize.js';
import { asInitContainer, lifecycleHashPart, lifecycleLabels, lifecycleOf, podHashWithInit, terminationMessageOf } from './lifecycle.js';
import { containerProbes, engineHealthcheck } from './probes.js';
import { probeLabels } from './probeLabels.js';
import { type SecurityPlanContext, appNamespaceModes, containerSecurity, infraPodSettings, podNamespaces } from './security.js';
import type { PullOverride, PullPolicy, PlanOptions, PodPlan, ContainerPlan, PortPlan, PullSecretPlan, ClusterPlan, SecretParts, Resources } from './types.js';

const replaceOnResize: ResizePolicy = { cpu: 'RestartContainer', memory: 'RestartContainer' };

import { type NodeResolvConf, parseResolvConf } from './dns.js';
import { podFiles, serviceAccountDir } from './podFiles.js';
/** What every container of the pod is planned with besides its own spec. */
interface PodContext {
  env: EnvContext;
  volumes: readonly PlannedVolume[];
  images: ReadonlyMap<string, VolumeImage>;
  security: SecurityPlanContext;
  mounts: MountContext;
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
  const project = options.project;
  const uid = podUid(namespace, name, pod.metadata.uid, project);
  const restartPolicy = (pod.spec.restartPolicy ?? 'Always') as RestartPolicy;
  const gracePeriodSeconds = pod.spec.terminationGracePeriodSeconds ?? 30;

  const commonLabels: Record<string, string> = {
    [Label.podName]: name,
    [Label.podNamespace]: namespace,
    [Label.podUid]: uid,
    [Label.gracePeriod]: String(gracePeriodSeconds),
    [Label.managedBy]: managedByValue,
    ...projectLabels(project),
    // A workload's pods carry its kind/name, so its controller finds them on the engine (workloads/expand.ts).
    ...(loaded.owner !== undefined ? { [Label.owner]: loaded.owner } : {}),
    ...(loaded.claimsGoWithOwner === true ? { [Label.claimsWithOwner]: 'delete' } : {}),
    ...(loaded.jobTtlSeconds !== undefined ? { [Label.jobTtl]: String(loaded.jobTtlSeconds) } : {}),
  };

  // ConfigMaps, Secrets and the pod's own fields feed env and volume files; volumes are rendered once.
  // Service variables (enableServiceLinks, default true): those of the pod's namespace, as the kubelet sets them.
  const cluster = options.cluster;
  const serviceEnv =
    cluster !== undefined && pod.spec.enableServiceLinks !== false ? serviceLinkEnv(cluster.services, namespace, (s) => cluster.hosts.get(`${s.namespace}/${s.name}`)) : [];
  const envCtx: EnvContext = {
    pod,
    uid,
    configs: loaded.configs ?? new Map(),
    ...(loaded.boundClaims !== undefined ? { boundClaims: loaded.boundClaims } : {}),
    ...(project !== undefined ? { project } : {}),
    ...(serviceEnv.length > 0 ? { serviceEnv } : {}),
  };
  const volumes = planVolumes(envCtx);
  // The node's resolv.conf (Default's file, ClusterFirst's trailing searches), when runpod could read it.
  const node = options.engine?.resolvConf !== undefined && 'text' in options.engine.resolvConf ? options.engine.resolvConf : undefined;
  const podCtx: PodContext = {
    env: envCtx,
    volumes,
    images: imageVolumes(pod),
    security: {
      ...(options.engine ? { facts: options.engine } : {}),
      ...(options.seccompProfiles ? { seccompProfiles: options.seccompProfiles } : {}),
      ...(pod.metadata.annotations ? { annotations: pod.metadata.annotations } : {}),
    },
    mounts: options.engine ? { facts: options.engine } : {},
  };
  // An init container's create options are planned under the pod's policy (asInitContainer sets its engine
  // policy); a sidecar restarts always (KEP-753), any other init container as initContainerRestart says.
  const initContainers = (pod.spec.initContainers ?? []).map((c): ContainerPlan => {
    const planned = asInitContainer(translateContainer(c, { policy: restartPolicy, rules: [] }, false, gracePeriodSeconds, commonLabels, options.pull, pod.spec, podCtx), c);
    return { ...planned, restart: planned.initKind === 'sidecar' ? { policy: 'Always', rules: [] } : initContainerRestart(restartPolicy, c) };
  });
  const infra = withPodHash(
    translateInfra(loaded, options.infraImage, commonLabels, gracePeriodSeconds, options.publishAll ?? false, volumes, project, options.cluster, node),
    initContainers,
  );
  const containers = pod.spec.containers.map((c) =>
    translateContainer(c, containerRestart(c, restartPolicy), true, gracePeriodSeconds, commonLabels, options.pull, pod.spec, podCtx),
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
    ...(project !== undefined ? { project } : {}),
    ...(loaded.owner !== undefined ? { owner: loaded.owner } : {}),
    ports: pod.spec.containers.flatMap((c) =>
      (c.ports ?? []).map(
        (p): PortPlan => ({
          container: c.name,
          ...(p.name !== undefined ? { name: p.name } : {}),
          containerPort: p.containerPort,
          protocol: (p.protocol ?? 'TCP') as PortPlan['protocol'],
          ...(p.hostPort ? { hostPort: p.hostPort } : {}),
          ...(p.hostIP !== undefined ? { hostIP: p.hostIP } : {}),
        }),
      ),
    ),
    infra,
    initContainers,
    containers,
    requests: podRequests(initContainers, containers),
    namespaces: podNamespaces(pod.spec),
    volumes,
    terminationLog: terminationLogVolume(pod, uid, project),
    podFiles: podFiles(pod.spec, pod.metadata.namespace, node),
    pullSecrets: pullSecretsOf(loaded),
  };
}

/** spec.imagePullSecrets resolved against the input's Secrets (validation made sure each one is there). */
function pullSecretsOf(loaded: LoadedPod): PullSecretPlan[] {
  return (loaded.pod.spec.imagePullSecrets ?? []).flatMap((ref): PullSecretPlan[] => {
    const secret = ref.name !== undefined ? loaded.configs?.get(configKey('Secret', ref.name)) : undefined;
    if (!secret) return [];
    const current = secret.files[pullSecretKey];
    const legacy = secret.files[legacyPullSecretKey];
    const b64 = current ?? legacy;
    if (b64 === undefined) return [];
    return [{ name: ref.name!, config: Buffer.from(b64, 'base64').toString('utf8'), legacy: current === undefined }];
  });
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
  publishAll: boolean,
  volumes: readonly PlannedVolume[],
  project: string | undefined,
  cluster: ClusterPlan | undefined,
  node: NodeResolvConf | undefined,
): ContainerPlan {
  const { pod } = loaded;
  const exposed: Record<string, Record<string, never>> = {};
  const bindings: Record<string, { HostIp: string; HostPort: string }[]> = {};
  // Init containers' (sidecars') ports are the pod's too: the sandbox publishes them.
  for (const c of [...(pod.spec.initContainers ?? []), ...pod.spec.containers]) {
    for (const p of c.ports ?? []) {
      // Only ports with a hostPort are published: a bare containerPort is informational in Kubernetes and
      // reachable on the pod's own address anyway.
      if (!p.hostPort) continue;
      const key = portKey(p);
      exposed[key] = {};
      (bindings[key] ??= []).push({ HostIp: p.hostIP ?? '', HostPort: String(p.hostPort) });
    }
  }
  // --publish-all: every other declared port on a host port the engine chooses (an empty HostPort, as
  // `docker run -P`), so parallel CI jobs on one host never collide on fixed hostPorts. It changes the pod
  // hash: switching it on or off replaces the pod, as a changed hostPort would.
  if (publishAll) {
    for (const c of pod.spec.containers) {
      for (const p of c.ports ?? []) {
        const key = portKey(p);
        if (bindings[key]) continue;
        exposed[key] = {};
        bindings[key] = [{ HostIp: p.hostIP ?? '', HostPort: '' }];
      }
    }
  }
  // Hostname (spec.hostname, else metadata.name; subdomain, setHostnameAsFQDN), namespaces, hostAliases, DNS and
  // sysctls: the pod-level settings the sandbox holds (security.ts).
  const podLevel = infraPodSettings(pod.spec, pod.metadata.name, pod.metadata.namespace, node !== undefined ? parseResolvConf(node.text) : undefined);
  const hostNetwork = podLevel.hostConfig.NetworkMode === 'host';
  // The pod network: its namespace's network, where the engine's DNS answers the names of the pod (as an endpoint
  // of a headless Service) and of the Services (kube/serviceNames.ts).
  const network = hostNetwork ? undefined : namespaceNetwork(pod.metadata.namespace, project);
  if (network !== undefined) podLevel.hostConfig.NetworkMode = network;
  const create: CreateOptions = {
    Image: image,
    ...podLevel.config,
    // A hostNetwork pod's ports are the host's own: nothing to publish (hostPort equals containerPort).
    ExposedPorts: hostNetwork ? {} : exposed,
    StopTimeout: gracePeriodSeconds,
    ...(network !== undefined ? { NetworkingConfig: { EndpointsConfig: { [network]: { Aliases: podAliases(loaded, cluster?.services ?? []) } } } } : {}),
    HostConfig: {
      PortBindings: hostNetwork ? {} : bindings,
      ...podLevel.hostConfig,
      // The sandbox lives until `runpod down`, as the kubelet keeps it until the pod is deleted (design.md).
      RestartPolicy: { Name: 'unless-stopped' },
      ...(infraMounts(volumes).length > 0 ? { Mounts: infraMounts(volumes) } : {}),
    },
  };
  // shareProcessNamespace changes nothing on the infra container itself, but the pod's containers must be made
  // again in one PID namespace: a pod-level field, so it is in the pod hash (design.md: what replaces what).
  // The network's name carries the isolation key, which is no part of what the pod is (kube/project.ts): hashed as the
  // namespace's network without a key.
  // The node's search domains are the node's, not the pod's (the kubelet writes them once, when it makes the sandbox):
  // hashed without them, so a changed host resolv.conf, or one runpod cannot read, replaces no pod.
  const keyless = network === undefined ? create : keylessNetwork(create, network, namespaceNetwork(pod.metadata.namespace, undefined));
  const hashed = withoutNodeSearches(keyless, infraPodSettings(pod.spec, pod.metadata.name, pod.metadata.namespace).hostConfig.DnsSearch);
  const hash = specHash(pod.spec.shareProcessNamespace === true ? { create: hashed, shareProcessNamespace: true } : hashed);
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(pod.metadata.annotations ?? {})) labels[`${annotationPrefix}${k}`] = v;
  Object.assign(labels, pod.metadata.labels ?? {}, commonLabels, {
    [Label.containerName]: infraContainerName,
    [Label.dockerType]: 'podsandbox',
    [Label.containerHash]: hash,
    ...(loaded.source.origin !== undefined ? { [Label.source]: loaded.source.origin } : {}),
    // Endpoints resolve a Service's named targetPort against these, for pods of any run (services/endpoints.ts).
    [Label.ports]: JSON.stringify(endpointPorts(pod.spec)),
  });
  return {
    name: infraContainerName,
    image,
    pullPolicy: 'IfNotPresent',
    hash,
    create: { ...create, Labels: labels },
    requests: { milliCpu: 0, memoryBytes: 0 },
    restart: { policy: 'Always', rules: [] },
    resources: engineResources(create.HostConfig),
    resize: replaceOnResize,
  };
}

function withoutNodeSearches(create: CreateOptions, podSearches: string[] | undefined): CreateOptions {
  return podSearches === undefined ? create : { ...create, HostConfig: { ...create.HostConfig, DnsSearch: podSearches } };
}

function keylessNetwork(create: CreateOptions, network: string, keyless: string): CreateOptions {
  if (network === keyless) return create;
  const endpoint = create.NetworkingConfig?.EndpointsConfig?.[network];
  return {
    ...create,
    HostConfig: { ...create.HostConfig, NetworkMode: keyless },
    ...(endpoint !== undefined ? { NetworkingConfig: { EndpointsConfig: { [keyless]: endpoint } } } : {}),
  };
}

/**
 * The names the pod answers to on its network: every headless Service selecting it gives it that Service's names
 * (a headless name lists its endpoints' own addresses), and with hostname and subdomain, when the headless Service
 * named like the subdomain selects it, <hostname>.<subdomain>… (dns-pod-service/#pod-hostname-and-subdomain-field).
 * Docker fixes a container's names when it joins the network, so these are given at creation, ready or not.
 */
function podAliases(loaded: LoadedPod, services: readonly ServiceObject[]): string[] {
  const { pod } = loaded;
  const ns = pod.metadata.namespace;
  const aliases: string[] = [];
  for (const s of services) {
    if (!s.headless || !serviceSelects(s, ns, pod.metadata.labels ?? {})) continue;
    aliases.push(...serviceDnsNames(s.name, ns, true));
    if (pod.spec.subdomain === s.name) aliases.push(...podDnsNames(pod.spec.hostname ?? pod.metadata.name, s.name, ns));
  }
  return aliases;
}

function portKey(p: ContainerPort): string {
  return `${p.containerPort}/${(p.protocol ?? 'TCP').toLowerCase()}`;
}

function translateContainer(
  c: Container,
  restart: ContainerRestart,
  /** An app container: its resizePolicy may apply resource changes in place (init containers: replaced). */
  inPlace: boolean,
  gracePeriodSeconds: number,
  commonLabels: Record<string, string>,
  pull: PullOverride | undefined,
  spec: PodSpec,
  podCtx: PodContext,
): ContainerPlan {
  const image = c.image!;
  const pullPolicy: PullPolicy = pull ? pullOverride[pull] : ((c.imagePullPolicy ?? 'IfNotPresent') as PullPolicy);
  // Env values expand $(VAR) from earlier entries; command and args expand from the whole env
  // (https://kubernetes.io/docs/tasks/inject-data-application/define-interdependent-environment-variables/).
  // envFrom, then env with valueFrom sources (env.ts), so the hash covers resolved values: a changed ConfigMap
  // value replaces only the containers that read it (design.md).
  const resolved = containerEnv(c, podCtx.env);
  const env = resolved.env;
  const lookup = (n: string): string | undefined => env.get(n);
  const mounts = containerMounts(c.volumeMounts, podCtx.volumes, podCtx.images, podCtx.mounts);
  // The pod's and the container's securityContext, merged (security.ts).
  const security = containerSecurity(spec, c, podCtx.security);
  const create: CreateOptions = {
    Image: image,
    Env: [...env].map(([k, v]) => `${k}=${v}`),
    Tty: c.tty ?? false,
    OpenStdin: c.stdin ?? false,
    StdinOnce: c.stdinOnce ?? false,
    StopTimeout: gracePeriodSeconds,
    HostConfig: {
      // The container's own restartPolicy, else the pod's (kube/restart.ts): the engine keeps it after runpod exits.
      RestartPolicy: engineRestartPolicy[restart.policy],
      ...resourceLimits(c),
      ...security.hostConfig,
      ...(mounts.mounts.length > 0 ? { Mounts: mounts.mounts } : {}),
    },
  };
  if (security.user !== undefined) create.User = security.user;
  // Kubernetes: command replaces the image ENTRYPOINT and args its CMD. Docker keeps the image CMD only when
  // no Entrypoint is given, so command without args drops the image CMD, as Kubernetes documents
  // (https://kubernetes.io/docs/tasks/inject-data-application/define-command-argument-container/#notes).
  if (c.command !== undefined) create.Entrypoint = c.command.map((s) => expandVars(s, lookup));
  if (c.args !== undefined) create.Cmd = c.args.map((s) => expandVars(s, lookup));
  if (c.workingDir) create.WorkingDir = c.workingDir;
  // Probes are not in the hash (only an exec liveness probe's health check is): they run from the host.
  // An exec livenessProbe is also the engine's health check (`docker ps` shows health after runpod exits); as
  // part of the create options it is in the hash, so changing it replaces the container.
  const healthcheck = engineHealthcheck(c);
  if (healthcheck) create.Healthcheck = healthcheck;
  // resizePolicy (resize.ts): the resources a NotRequired policy covers are applied in place, so not hashed.
  const resize = inPlace ? resizePolicyOf(c.resizePolicy) : replaceOnResize;
  const hashed = withoutServiceLinks(create, c, podCtx.env);
  const fullHash = specHash({ create: hashed, image, ...lifecycleHashPart(c) });
  const hash = specHash({ create: hashedCreate(hashed, resize), image, ...lifecycleHashPart(c) });
  const requests = requestsOf(c);
  const probes = containerProbes(c, gracePeriodSeconds);
  const labels = {
    ...commonLabels,
    [RequestLabel.cpu]: String(requests.milliCpu),
    [RequestLabel.memory]: String(requests.memoryBytes),
    [Label.containerName]: c.name,
    [Label.dockerType]: 'container',
    [Label.containerHash]: hash,
    ...lifecycleLabels(c),
    // The readiness and startup probes as planned, for `status` without the manifest (probeLabels.ts); labels
    // are outside the hash, which is computed above from the create options without them.
    ...probeLabels(probes),
  };
  return {
    name: c.name,
    image,
    pullPolicy,
    hash,
    create: { ...create, Labels: labels },
    ...(security.imageUserCheck !== undefined ? { imageUserCheck: security.imageUserCheck } : {}),
    ...(probes ? { probes } : {}),
    ...(lifecycleOf(c) ? { lifecycle: lifecycleOf(c)! } : {}),
    terminationMessage: terminationMessageOf(c),
    ...secretPartsOf(c, resolved),
    ...(mounts.subPaths.length > 0 ? { subPaths: mounts.subPaths } : {}),
    ...(mounts.volumeImages.length > 0 ? { volumeImages: mounts.volumeImages } : {}),
    ...(hasRuntimeRef(create) ? { runtime: true } : {}),
    requests,
    restart,
    resources: engineResources(create.HostConfig),
    resize,
    ...(fullHash !== hash ? { fullHash } : {}),
  };
}

/**
 * The create options as the container's hash sees them: without the Service variables (enableServiceLinks). The
 * kubelet's container hash covers the container's spec, not the Service variables it adds to the environment when
 * it starts an instance (kubelet_pods.go makeEnvironmentVariables, at each start): a Service made, changed or given
 * a new address never restarts a pod, and the next instance of a container reads the values current then. So env and
 * command/args are resolved again here with no Service variables (a $(FOO_SERVICE_HOST) stays as written, as
 * Kubernetes leaves a reference it cannot resolve); the container is still created with the values of now.
 */
function withoutServiceLinks(create: CreateOptions, c: Container, envCtx: EnvContext): CreateOptions {
  if (envCtx.serviceEnv === undefined || envCtx.serviceEnv.length === 0) return create;
  const { serviceEnv: _links, ...rest } = envCtx;
  const env = containerEnv(c, rest).env;
  const lookup = (n: string): string | undefined => env.get(n);
  return {
    ...create,
    Env: [...env].map(([k, v]) => `${k}=${v}`),
    ...(c.command !== undefined ? { Entrypoint: c.command.map((s) => expandVars(s, lookup)) } : {}),
    ...(c.args !== undefined ? { Cmd: c.args.map((s) => expandVars(s, lookup)) } : {}),
  };
}

function requestsOf(c: Container): Resources {
  const r = c.resources?.requests ?? {};
  return { milliCpu: r.cpu !== undefined ? (milliCpu(r.cpu) ?? 0) : 0, memoryBytes: r.memory !== undefined ? (memoryBytes(r.memory) ?? 0) : 0 };
}

function secretPartsOf(c: Container, env: ReturnType<typeof containerEnv>): { secrets?: SecretParts } {
  const indexes = (list: string[] | undefined): number[] => (list ?? []).flatMap((s, i) => (expandsSecret(s, env) ? [i] : []));
  const parts: SecretParts = { env: [...env.secret].filter((n) => env.env.has(n)), command: indexes(c.command), args: indexes(c.args) };
  return parts.env.length + parts.command.length + parts.args.length > 0 ? { secrets: parts } : {};
}

/** The infra plan with the pod hash that covers the init containers (lifecycle.ts podHashWithInit). */
function withPodHash(infra: ContainerPlan, inits: ContainerPlan[]): ContainerPlan {
  const hash = podHashWithInit(infra.hash, inits);
  if (hash === infra.hash) return infra;
  return { ...infra, hash, create: { ...infra.create, Labels: { ...infra.create.Labels, [Label.containerHash]: hash } } };
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
 * The options for one instance of a container: the attempt number goes in its name and restartCount label, an
 * app container joins the infra container's network and IPC namespaces, and the instance's own termination-message
 * file is bound at its terminationMessagePath; the infra container holds the volume of those files.
 *
 * None of these is in the container's hash: they belong to the instance, not the spec. The kubelet likewise adds
 * the termination-message mount when it creates each instance, outside the spec its container hash covers; and
 * so a container made before runpod bound these files is not replaced for the lack of one.
 */
export function instanceCreateOptions(plan: PodPlan, c: ContainerPlan, attempt: number, infraId?: string): { name: string; options: CreateOptions } {
  const name = dockerContainerName(c.name, plan.name, plan.namespace, plan.uid, attempt, plan.project);
  const labels = { ...c.create.Labels, [Label.restartCount]: String(attempt) };
  const options: CreateOptions = { ...c.create, Labels: labels };
  if (infraId !== undefined) {
    // Network always from the infra container; IPC and PID as hostIPC, hostPID and shareProcessNamespace say.
    options.HostConfig = { ...c.create.HostConfig, ...appNamespaceModes(plan.namespaces, infraId) };
  }
  // The infra container holds the termination-log volume (volumes.ts infraTerminationMount).
  if (c.name === infraContainerName) options.HostConfig = { ...options.HostConfig, Mounts: [...(options.HostConfig?.Mounts ?? []), infraTerminationMount(plan.terminationLog)] };
  const tm = c.terminationMessage;
  if (tm?.bound) {
    const file = terminationFile(c.name, c.initKind !== undefined, attempt);
    const mounts = [...(options.HostConfig?.Mounts ?? []), terminationMount(plan.terminationLog, file, tm.path)];
    options.HostConfig = { ...options.HostConfig, Mounts: mounts };
  }
  // The pod's files (podFiles.ts), read-only as the kubelet mounts them: its namespace file, its resolv.conf.
  if (c.name !== infraContainerName) {
    const files: Mount[] = [];
    if (plan.podFiles.namespace !== undefined) files.push(podFileMount(plan.terminationLog, podFileDir, serviceAccountDir));
    if (plan.podFiles.resolvConf !== undefined) files.push(podFileMount(plan.terminationLog, resolvConfFile, '/etc/resolv.conf'));
    if (files.length > 0) options.HostConfig = { ...options.HostConfig, Mounts: [...(options.HostConfig?.Mounts ?? []), ...files] };
  }
  return { name, options };
}
