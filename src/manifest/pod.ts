// Validation of one Pod object, a Pod document's or a workload's pod template: the field table, the schema, and
// the API server's and kubelet's rules the schema leaves to code (pkg/apis/core/validation ValidatePod). Pure.

import { type FieldPlaces, podFields, walkFields } from './fields.js';
import { probeRules } from './probeRules.js';
import { report } from './ruleHelpers.js';
import { type PathSegment, formatPath } from '../kube/path.js';
import { compareQuantities, dns1123Label, envVarName, ipAddress, parseQuantity, portName, portNumber, quantityExample, type Quantity } from '../kube/syntax.js';
import { envSourceRules, mountRules, volumeRules } from './volumeRules.js';
import { securityRules } from './securityRules.js';
import { containerRestartRules } from './restartRules.js';
import { describe, type Obj, isObj } from '../kube/object.js';
import { type ProblemSink, schemaProblems, metadataRules } from './problems.js';

/** How a Pod is validated when it is not a Pod document but a workload's pod template (workloadRules.ts). */
export interface PodOptions {
  /** Where the Pod's levels are, for "belongs in" hints: podTemplatePlaces for a template. */
  places?: FieldPlaces;
  /** Names a volumeMount may refer to besides spec.volumes: a StatefulSet's volumeClaimTemplates. */
  claimVolumes?: ReadonlySet<string>;
}

/** Validate one Pod object found at `at` in its document. True when it has no problem. */
export function validatePod(pod: Obj, at: PathSegment[], sink: ProblemSink, options: PodOptions = {}): boolean {
  const before = sink.problems.length;
  // 1. The field table: unknown and unsupported fields, warnings for scheduling and read-only fields.
  const walk = walkFields(pod, podFields, at, options.places);
  for (const p of walk.problems) sink.add(p.path, p.message);
  for (const s of walk.settled) sink.settle(s);
  for (const w of walk.warnings) sink.warn(w.path, w.message);
  // 2. The Kubernetes schema: types, enums and formats.
  for (const p of schemaProblems(pod)) {
    const path = [...at, ...p.path];
    sink.add(path, p.message);
    // A value of the wrong type has no fields of its own to check.
    if (p.wrongType) sink.settle(path);
  }
  // 3. The rules the schema leaves to validation code.
  podRules(pod, at, sink, options.claimVolumes);
  return sink.problems.length === before;
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Host ports in use, for conflicts within a pod and across pods (AccumulateUniqueHostPorts). */
export interface HostPortUse {
  hostPort: number;
  protocol: string;
  hostIP: string;
  path: PathSegment[];
}

/** Two bindings of one host port and protocol collide when their addresses overlap: equal, or either is any-address. */
export function hostPortsCollide(a: HostPortUse, b: HostPortUse): boolean {
  if (a.hostPort !== b.hostPort || a.protocol !== b.protocol) return false;
  const anyAddress = (ip: string): boolean => ip === '' || ip === '0.0.0.0' || ip === '::';
  return anyAddress(a.hostIP) || anyAddress(b.hostIP) || a.hostIP === b.hostIP;
}

/** The host ports a (raw or defaulted) pod binds; protocol defaults to TCP (SetDefaults_ContainerPort). */
export function hostPortsOf(pod: unknown, at: PathSegment[]): HostPortUse[] {
  const out: HostPortUse[] = [];
  const spec = isObj(pod) ? pod.spec : undefined;
  if (!isObj(spec)) return out;
  // Init containers' ports are the pod's too (published on the sandbox like the containers' ones).
  for (const field of ['initContainers', 'containers'] as const) {
    list(spec[field]).forEach((c, ci) => {
      if (!isObj(c)) return;
      list(c.ports).forEach((p, pi) => {
        if (!isObj(p) || typeof p.hostPort !== 'number' || p.hostPort === 0) return;
        out.push({
          hostPort: p.hostPort,
          protocol: typeof p.protocol === 'string' ? p.protocol : 'TCP',
          hostIP: typeof p.hostIP === 'string' ? p.hostIP : '',
          path: [...at, 'spec', field, ci, 'ports', pi, 'hostPort'],
        });
      });
    });
  }
  return out;
}

function podRules(pod: Obj, at: PathSegment[], sink: ProblemSink, claimVolumes: ReadonlySet<string> = new Set()): void {
  metadataRules(pod.metadata, at, sink);
  const s = [...at, 'spec'];
  const spec = pod.spec;
  if (spec === undefined || spec === null) {
    sink.add(s, 'required (a Pod needs spec.containers)');
    return;
  }
  if (!isObj(spec)) return;
  // ValidatePodSpec: at least one container.
  if (Array.isArray(spec.containers) && spec.containers.length === 0) sink.add([...s, 'containers'], 'must have at least one container');
  // ValidatePodSpec: terminationGracePeriodSeconds must be non-negative.
  const grace = spec.terminationGracePeriodSeconds;
  if (typeof grace === 'number' && grace < 0) sink.add([...s, 'terminationGracePeriodSeconds'], 'must be greater than or equal to 0');
  if (typeof spec.hostname === 'string') report(sink, [...s, 'hostname'], dns1123Label(spec.hostname));

  // validateInitContainers + validateContainers: names are unique among init containers and containers together,
  // and port names among all of them (init containers are checked first, as the API server does).
  const containerNames = new Map<string, string>();
  const portNames = new Map<string, PathSegment[]>();
  list(spec.initContainers).forEach((c, i) => {
    if (!isObj(c)) return;
    const p = [...s, 'initContainers', i];
    containerRules(c, p, containerNames, portNames, sink);
    initContainerRules(c, p, sink);
  });
  list(spec.containers).forEach((c, i) => {
    if (!isObj(c)) return;
    containerRules(c, [...s, 'containers', i], containerNames, portNames, sink);
    containerRestartRules(c, [...s, 'containers', i], sink);
  });
  // Volumes, then every container's mounts (which must name a declared volume) and env sources.
  const declared = volumeRules(spec, s, sink);
  // A StatefulSet's claim templates are volumes of its pods too (the controller adds one per template).
  for (const name of claimVolumes) if (!declared.has(name)) declared.set(name, 'persistentVolumeClaim');
  const names = new Set(containerNames.keys());
  for (const field of ['initContainers', 'containers'] as const) {
    list(spec[field]).forEach((c, i) => {
      if (!isObj(c)) return;
      mountRules(c, [...s, field, i], sink, declared);
      envSourceRules(c, [...s, field, i], sink, names);
    });
  }

  // Security contexts, host namespaces, hostname, hostAliases and DNS (securityRules.ts).
  const meta = isObj(pod.metadata) ? pod.metadata : {};
  securityRules(spec, s, sink, meta.name, meta.namespace, meta.annotations);

  // AccumulateUniqueHostPorts: one pod cannot bind the same host port and protocol twice.
  const used: HostPortUse[] = [];
  for (const use of hostPortsOf(pod, at)) {
    if (sink.has(use.path)) continue;
    const clash = used.find((u) => hostPortsCollide(u, use));
    if (clash !== undefined) sink.add(use.path, `host port ${use.hostPort}/${use.protocol} is already used by ${formatPath(clash.path.slice(at.length))}`);
    else used.push(use);
  }
}

function containerRules(c: Obj, p: PathSegment[], names: Map<string, string>, portNames: Map<string, PathSegment[]>, sink: ProblemSink): void {
  // validateContainers: the name is a DNS-1123 label, unique among the pod's containers.
  if (typeof c.name === 'string') {
    const at = [...p, 'name'];
    if (c.name === '') sink.add(at, 'required');
    else if (!report(sink, at, dns1123Label(c.name))) {
      const first = names.get(c.name);
      if (first !== undefined) sink.add(at, `duplicate container name "${c.name}" (also ${first})`);
      else names.set(c.name, formatPath(p.slice(p.indexOf('spec'))));
    }
  }
  // validateContainers: image is required (the API schema leaves it optional for controllers that fill it in),
  // and must not have leading or trailing whitespace.
  const image = c.image;
  if (image === undefined || image === null || image === '') sink.add([...p, 'image'], 'required');
  else if (typeof image === 'string' && image.trim() !== image) sink.add([...p, 'image'], 'must not have leading or trailing whitespace');

  // ValidateEnv: each name a valid environment variable name.
  list(c.env).forEach((e, i) => {
    if (isObj(e) && typeof e.name === 'string') report(sink, [...p, 'env', i, 'name'], envVarName(e.name));
  });

  // validateContainerPorts: port numbers in range, IANA port names unique in the pod, a valid host IP.
  list(c.ports).forEach((port, i) => {
    if (!isObj(port)) return;
    const pp = [...p, 'ports', i];
    if (typeof port.containerPort === 'number') report(sink, [...pp, 'containerPort'], portNumber(port.containerPort));
    if (typeof port.hostPort === 'number' && port.hostPort !== 0) report(sink, [...pp, 'hostPort'], portNumber(port.hostPort));
    if (typeof port.hostIP === 'string' && port.hostIP !== '') report(sink, [...pp, 'hostIP'], ipAddress(port.hostIP));
    if (typeof port.name === 'string' && port.name !== '') {
      const at = [...pp, 'name'];
      if (!report(sink, at, portName(port.name))) {
        const first = portNames.get(port.name);
        if (first !== undefined) sink.add(at, `duplicate port name "${port.name}" (also ${formatPath(first.slice(first.indexOf('spec')))})`);
        else portNames.set(port.name, pp);
      }
    }
  });

  resourceRules(c.resources, [...p, 'resources'], sink);
  resizePolicyRules(c.resizePolicy, [...p, 'resizePolicy'], sink);
  probeRules(c, p, sink);
  lifecycleRules(c, p, sink);
  // validateContainers: terminationMessagePolicy File or FallbackToLogsOnError; the path is absolute (runpod reads
  // it from the container's filesystem).
  const tmp = c.terminationMessagePolicy;
  if (typeof tmp === 'string' && tmp !== 'File' && tmp !== 'FallbackToLogsOnError')
    sink.add([...p, 'terminationMessagePolicy'], `must be File or FallbackToLogsOnError, got ${describe(tmp)}`);
  const tpath = c.terminationMessagePath;
  if (typeof tpath === 'string' && tpath !== '' && !tpath.startsWith('/')) sink.add([...p, 'terminationMessagePath'], 'must be an absolute path');
}

/**
 * validateResizePolicy (ContainerResizePolicy: "Supported values: cpu, memory"; restartPolicy NotRequired or
 * RestartContainer, "If not specified, it defaults to NotRequired"): one entry per resource.
 */
function resizePolicyRules(v: unknown, p: PathSegment[], sink: ProblemSink): void {
  const seen = new Map<string, number>();
  list(v).forEach((e, i) => {
    if (!isObj(e)) return;
    const name = e.resourceName;
    if (typeof name === 'string') {
      if (name !== 'cpu' && name !== 'memory')
        sink.add([...p, i, 'resourceName'], `must be cpu or memory (the resources a running container can be resized in), got ${describe(name)}`);
      else if (seen.has(name)) sink.add([...p, i, 'resourceName'], `duplicate resourceName "${name}" (also resizePolicy[${seen.get(name)}])`);
      else seen.set(name, i);
    }
    const policy = e.restartPolicy;
    if (typeof policy === 'string' && policy !== 'NotRequired' && policy !== 'RestartContainer') {
      sink.add([...p, i, 'restartPolicy'], `must be NotRequired (apply the change to the running container) or RestartContainer (replace it), got ${describe(policy)}`);
    }
  });
}

/**
 * validateInitContainers: restartPolicy on an init container is Always (a sidecar, KEP-753) or, from Kubernetes 1.34
 * (ContainerRestartRules), OnFailure or Never, which override the pod's restartPolicy for that init container; its
 * restartPolicyRules need that restartPolicy, and a sidecar "does not support restartPolicyRules" (pod lifecycle,
 * "Individual container restart policy and rules"; Kubernetes 1.35's RestartAllContainers allows them there). An init
 * container that is not a sidecar runs to completion, so lifecycle hooks and probes mean nothing for it and are
 * refused ("may not be set for init containers without restartPolicy=Always"). terminationMessagePolicy is one of
 * the two values (validateContainers; checked here for containers too, below).
 */
function initContainerRules(c: Obj, p: PathSegment[], sink: ProblemSink): void {
  const policy = c.restartPolicy;
  if (policy !== undefined && policy !== null && policy !== 'Always' && policy !== 'OnFailure' && policy !== 'Never') {
    sink.add(
      [...p, 'restartPolicy'],
      `must be Always (a sidecar), OnFailure or Never (they override the pod's restartPolicy for this init container), or unset, got ${describe(policy)}`,
    );
    return;
  }
  if (policy === 'Always') {
    if (c.restartPolicyRules !== undefined && c.restartPolicyRules !== null)
      sink.add([...p, 'restartPolicyRules'], 'may not be set on a sidecar (an init container with restartPolicy: Always, which always restarts)');
    // A sidecar's startupProbe gates the next init container; its liveness and readiness probes are not run by
    // runpod yet, and a probe that is accepted but never run would be a silent lie.
    for (const f of ['livenessProbe', 'readinessProbe']) {
      if (c[f] !== undefined && c[f] !== null) sink.add([...p, f], 'not supported by runpod on sidecars (startupProbe is)');
    }
    return;
  }
  containerRestartRules(c, p, sink, true);
  for (const f of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe']) {
    if (c[f] !== undefined && c[f] !== null) sink.add([...p, f], 'may not be set for init containers without restartPolicy: Always');
  }
}

/** validateLifecycle / validateHandler: exactly one handler each; a sleep's seconds non-negative. */
function lifecycleRules(c: Obj, p: PathSegment[], sink: ProblemSink): void {
  const lifecycle = c.lifecycle;
  if (!isObj(lifecycle)) return;
  for (const hook of ['postStart', 'preStop'] as const) {
    const h = lifecycle[hook];
    if (!isObj(h)) continue;
    const at = [...p, 'lifecycle', hook];
    const set = ['exec', 'httpGet', 'sleep', 'tcpSocket'].filter((k) => h[k] !== undefined && h[k] !== null);
    if (set.length === 0) sink.add(at, 'must specify a handler type (exec, httpGet or sleep)');
    else if (set.length > 1) sink.add([...at, set[1]!], `may not specify more than one handler type (also ${set[0]})`);
    const exec = h.exec;
    if (isObj(exec) && (!Array.isArray(exec.command) || exec.command.length === 0)) sink.add([...at, 'exec', 'command'], 'required');
    const sleep = h.sleep;
    if (isObj(sleep) && typeof sleep.seconds === 'number' && sleep.seconds < 0) sink.add([...at, 'sleep', 'seconds'], 'must be greater than or equal to 0');
    const http = h.httpGet;
    if (isObj(http)) {
      const port = http.port;
      if (port === undefined || port === null || port === '') sink.add([...at, 'httpGet', 'port'], 'required');
      else if (typeof port === 'number') report(sink, [...at, 'httpGet', 'port'], portNumber(port));
      else if (typeof port === 'string' && !/^[0-9]+$/.test(port)) {
        // A named port must be one of the container's own (the kubelet resolves it against them).
        const names = list(c.ports)
          .filter(isObj)
          .map((x) => x.name);
        if (!names.includes(port)) sink.add([...at, 'httpGet', 'port'], `no port named "${port}" in this container`);
      }
    }
  }
}

/** ValidateResourceRequirements: quantities parse and are non-negative; a request does not exceed its limit. */
function resourceRules(resources: unknown, p: PathSegment[], sink: ProblemSink): void {
  if (!isObj(resources)) return;
  const read = (which: 'limits' | 'requests'): Map<string, Quantity> => {
    const out = new Map<string, Quantity>();
    const rl = resources[which];
    if (!isObj(rl)) return out;
    for (const [name, v] of Object.entries(rl)) {
      const at = [...p, which, name];
      if (sink.has(at)) continue;
      const q = parseQuantity(v);
      if (q === undefined) sink.add(at, `${quantityExample}, got ${describe(v)}`);
      else if (q.negative) sink.add(at, 'must be greater than or equal to 0');
      else out.set(name, q);
    }
    return out;
  };
  const limits = read('limits');
  const requests = read('requests');
  for (const [name, req] of requests) {
    const lim = limits.get(name);
    if (lim !== undefined && compareQuantities(req, lim) > 0) {
      const raw = (resources.limits as Obj)[name];
      sink.add([...p, 'requests', name], `must be less than or equal to ${name} limit of ${String(raw)}`);
    }
  }
}
