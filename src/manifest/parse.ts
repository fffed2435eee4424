// The pure part of loading: the text of each input → validated, defaulted Pods, with every problem and warning
// across all inputs. load.ts reads files and stdin and hands their text here.

import type { ManifestProblem } from '../errors.js';
import { resolveReferences, toConfigObject } from './configs.js';
import { applyDefaults } from './defaults.js';
import { formatPath } from '../kube/path.js';
import {
  type ConfigObject,
  type LoadedPod,
  type LoadOptions,
  type ManifestSource,
  type ManifestWarning,
  type SkippedObject,
  type ClaimObject,
  type ServiceObject,
  configKey,
} from './types.js';
import { toServiceObject } from './serviceRules.js';
import { type ValidConfig, type ValidPod, type ValidService, type ValidWorkload, validateDocument } from './validate.js';
import { lineOf, type ParsedYaml, parseYaml } from '../input/yaml.js';
import { expandWorkload, type WorkloadPlan } from '../workloads/expand.js';
import { isObj } from '../kube/object.js';
import { type HostPortUse, hostPortsOf, hostPortsCollide } from './pod.js';
import { type BoundVolume, type ClaimRequest, type VolumeObject, bindClaims, claimRequest, volumeObject } from './volumeBinding.js';

export interface ManifestText {
  source: ManifestSource;
  text: string;
  /** The text already read as parseYaml(text, source.file) would read it (a rendered kustomization's, from its printing). */
  parsed?: ParsedYaml;
}

export interface ParseResult {
  pods: LoadedPod[];
  skipped: SkippedObject[];
  workloads: WorkloadPlan[];
  claims: ClaimObject[];
  /** The PersistentVolumes of every input. */
  volumes: VolumeObject[];
  /** The Services of every input, in input order, each namespace/name once. */
  services: ServiceObject[];
  warnings: ManifestWarning[];
  problems: ManifestProblem[];
}

/** Parse, validate and default every document of every input; check names and host ports across all pods. */
export function parseManifests(inputs: readonly ManifestText[], options: LoadOptions): ParseResult {
  const c = newCollection(options);
  for (const input of inputs) collectInput(c, input, options);
  const bound = bindVolumes(c);
  const { pods, hostPorts } = loadPods(c, options, bound);
  checkNodePortsAgainstHostPorts(c, hostPorts);
  // --from-cronjob names a CronJob the input must hold.
  for (const name of c.fromCronJobs) {
    if (!c.cronJobsRun.has(name))
      c.problems.push({ file: inputs[0]?.source.file ?? '', path: '', message: `--from-cronjob ${name}: no CronJob named ${name} (batch/v1) in the input` });
  }
  const fileOrder = inputs.map((i) => i.source.file);
  const { skipped, workloads, claims, volumes, services, warnings } = c;
  return { pods, skipped, workloads, claims, volumes, services, warnings: sortByFileAndLine(warnings, fileOrder), problems: sortByFileAndLine(sayOnce(c.problems), fileOrder) };
}

/** Where in a file a problem is: its file, the line of the path when the document's lines know it, the path. */
type Where = { file: string; line?: number; path: string };

/** A pod found in the input (a Pod, or one of a workload's), waiting for the checks across all pods. */
interface FoundPod {
  valid: ValidPod;
  source: ManifestSource;
  owner?: string;
  claimsGo?: boolean;
  ttl?: number;
}

interface NodePortUse {
  service: ServiceObject;
  port: number;
  protocol: string;
  where: Where;
}

/** What the first stage gathers from every document of every input, in input order. */
interface Collection {
  readonly problems: ManifestProblem[];
  readonly warnings: ManifestWarning[];
  readonly found: FoundPod[];
  readonly skipped: SkippedObject[];
  readonly workloads: WorkloadPlan[];
  readonly claims: ClaimObject[];
  readonly services: ServiceObject[];
  /** The PersistentVolumes, and the claims to bind to them (PersistentVolumeClaims, StatefulSet ordinals' claims). */
  readonly volumes: VolumeObject[];
  readonly claimRequests: ClaimRequest[];
  /** Where a field of a claim's spec is written. */
  readonly claimField: Map<ClaimRequest, (field: string) => Where>;
  /** Where each workload and claim (by namespace/kind/name) and each Service (by namespace/name) was first defined. */
  readonly workloadAt: Map<string, string>;
  readonly serviceAt: Map<string, string>;
  /** Node ports of the input's Services: the API server's allocator hands each port number to one Service. */
  readonly nodePorts: Map<number, { service: ServiceObject; path: string }>;
  readonly nodePortUses: NodePortUse[];
  readonly skipKinds: Set<string>;
  readonly fromCronJobs: Set<string>;
  readonly cronJobsRun: Set<string>;
  /** ConfigMaps and Secrets of every input by namespace/kind/name: they feed the pods of the whole invocation. */
  readonly configs: Map<string, ConfigObject>;
  readonly configAt: Map<string, string>;
}

function newCollection(options: LoadOptions): Collection {
  return {
    problems: [],
    warnings: [],
    found: [],
    skipped: [],
    workloads: [],
    claims: [],
    services: [],
    volumes: [],
    claimRequests: [],
    claimField: new Map(),
    workloadAt: new Map(),
    serviceAt: new Map(),
    nodePorts: new Map(),
    nodePortUses: [],
    skipKinds: new Set(options.skipKinds ?? []),
    fromCronJobs: new Set(options.fromCronJobs ?? []),
    cronJobsRun: new Set(),
    configs: new Map(),
    configAt: new Map(),
  };
}

/** The first stage: parse one input and sort each of its documents into the collection. */
function collectInput(c: Collection, { source, text, parsed: given }: ManifestText, options: LoadOptions): void {
  const parsed = given ?? parseYaml(text, source.file);
  c.problems.push(...parsed.problems);
  for (const doc of parsed.documents) {
    const result = validateDocument(doc, source.file, { skipKinds: c.skipKinds, fromCronJobs: c.fromCronJobs });
    for (const name of result.cronJobsRun) c.cronJobsRun.add(name);
    c.problems.push(...result.problems);
    c.skipped.push(...result.skipped);
    c.warnings.push(...result.warnings);
    for (const valid of result.pods) c.found.push({ valid, source });
    for (const w of result.workloads) {
      if (w.kind === 'PersistentVolume') collectVolume(c, w, source);
      else if (w.kind === 'PersistentVolumeClaim') collectClaim(c, w, source, options);
      else collectWorkload(c, w.kind, w, source, options);
    }
    for (const sv of result.services) collectService(c, sv, source, options);
    for (const config of result.configs) collectConfig(c, config, source, options);
  }
}

/** A problem at the metadata.name of a document: the place a duplicate is reported. */
function atName(file: string, d: { lines: ValidWorkload['lines']; at: readonly (string | number)[] }, message: string): ManifestProblem {
  const path = [...d.at, 'metadata', 'name'];
  const l = lineOf(d.lines, path);
  return { file, ...(l !== undefined ? { line: l } : {}), path: formatPath(path), message };
}

function collectVolume(c: Collection, w: ValidWorkload, source: ManifestSource): void {
  const v = volumeObject(w.value, source.file, w.line);
  const first = c.workloadAt.get(`persistentvolume/${v.name}`);
  if (first !== undefined) {
    c.problems.push(atName(source.file, w, `PersistentVolume ${v.name} is already defined at ${first}`));
    return;
  }
  c.workloadAt.set(`persistentvolume/${v.name}`, `${source.file}:${w.line}`);
  c.volumes.push(v);
}

/** A claim to bind, written at `path` of the document's spec (its fields are where a refusal points). */
function requestClaim(
  c: Collection,
  w: ValidWorkload,
  source: ManifestSource,
  spec: Record<string, unknown>,
  namespace: string,
  name: string,
  path: readonly (string | number)[],
): void {
  const at = [...w.at, ...path];
  const r = claimRequest(spec, namespace, name, { file: source.file, line: lineOf(w.lines, at) ?? w.line, at: formatPath(at) });
  c.claimRequests.push(r);
  c.claimField.set(r, (field) => ({ file: source.file, line: lineOf(w.lines, [...at, field]) ?? r.line, path: formatPath([...at, field]) }));
}

function collectClaim(c: Collection, w: ValidWorkload, source: ManifestSource, options: LoadOptions): void {
  const meta = isObj(w.value.metadata) ? w.value.metadata : {};
  const ns = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : options.defaultNamespace;
  const id = `${ns}/persistentvolumeclaim/${String(meta.name)}`;
  const first = c.workloadAt.get(id);
  if (first !== undefined) {
    c.problems.push(atName(source.file, w, `PersistentVolumeClaim ${ns}/${String(meta.name)} is already defined at ${first}`));
    return;
  }
  c.workloadAt.set(id, `${source.file}:${w.line}`);
  c.claims.push({ namespace: ns, name: String(meta.name), file: source.file, line: w.line });
  requestClaim(c, w, source, isObj(w.value.spec) ? w.value.spec : {}, ns, String(meta.name), ['spec']);
}

/**
 * A workload's pods are Pods of its template (workloads/expand.ts), loaded and checked as any other, each pointing
 * back at the template for its problems.
 */
function collectWorkload(
  c: Collection,
  kind: Exclude<ValidWorkload['kind'], 'PersistentVolumeClaim' | 'PersistentVolume'>,
  w: ValidWorkload,
  source: ManifestSource,
  options: LoadOptions,
): void {
  const plan = expandWorkload(kind, w.value, options.defaultNamespace);
  const id = `${plan.namespace}/${plan.ref}`;
  const first = c.workloadAt.get(id);
  if (first !== undefined) {
    c.problems.push(atName(source.file, w, `${plan.ref} in namespace ${plan.namespace} is already defined at ${first}`));
    return;
  }
  c.workloadAt.set(id, `${source.file}:${w.line}`);
  c.workloads.push(plan);
  // A StatefulSet ordinal's claims (<template>-<name>-<ordinal>) bind as any claim, each with its template's spec.
  const templates = kind === 'StatefulSet' && isObj(w.value.spec) && Array.isArray(w.value.spec.volumeClaimTemplates) ? w.value.spec.volumeClaimTemplates : [];
  for (const p of plan.pods) {
    templates.forEach((t, i) => {
      const spec = isObj(t) && isObj(t.spec) ? t.spec : {};
      const claim =
        isObj(p.value.spec) && Array.isArray(p.value.spec.volumes)
          ? p.value.spec.volumes.find((v) => isObj(v) && isObj(t) && isObj(t.metadata) && v.name === t.metadata.name)
          : undefined;
      const claimName = isObj(claim) && isObj(claim.persistentVolumeClaim) ? String(claim.persistentVolumeClaim.claimName) : undefined;
      if (claimName !== undefined) requestClaim(c, w, source, spec, plan.namespace, claimName, ['spec', 'volumeClaimTemplates', i, 'spec']);
    });
  }
  const ttl = plan.job?.ttlSecondsAfterFinished;
  for (const p of plan.pods) {
    const valid: ValidPod = { value: p.value, at: [...w.at, 'spec', 'template'], line: w.line, lines: w.lines };
    c.found.push({ valid, source, owner: plan.ref, claimsGo: plan.claims?.deleteWhenDeleted === true, ...(ttl !== undefined ? { ttl } : {}) });
  }
}

function collectService(c: Collection, sv: ValidService, source: ManifestSource, options: LoadOptions): void {
  const line = lineOf(sv.lines, sv.at) ?? sv.line;
  const obj = toServiceObject(sv.value, options.defaultNamespace, source.file, line);
  const id = `${obj.namespace}/${obj.name}`;
  const where = (path: readonly (string | number)[]): Where => {
    const l = lineOf(sv.lines, path);
    return { file: source.file, ...(l !== undefined ? { line: l } : {}), path: formatPath(path) };
  };
  const first = c.serviceAt.get(id);
  if (first !== undefined) {
    c.problems.push({ ...where([...sv.at, 'metadata', 'name']), message: `Service ${id} is already defined at ${first}` });
    return;
  }
  let clash = false;
  obj.ports.forEach((p, i) => {
    if (p.nodePort === undefined) return;
    const other = c.nodePorts.get(p.nodePort);
    // One Service may use one node port for TCP and UDP; two Services may not share it (whatever the protocols).
    if (other !== undefined && other.service !== obj) {
      c.problems.push({
        ...where([...sv.at, 'spec', 'ports', i, 'nodePort']),
        message: `nodePort ${p.nodePort} is already used by Service ${other.service.namespace}/${other.service.name} (${other.service.file}:${other.service.line}, ${other.path}); choose another, or leave it out for runpod to choose`,
      });
      clash = true;
    }
  });
  if (clash) return;
  obj.ports.forEach((p, i) => {
    if (p.nodePort === undefined) return;
    if (!c.nodePorts.has(p.nodePort)) c.nodePorts.set(p.nodePort, { service: obj, path: formatPath(['spec', 'ports', i, 'nodePort']) });
    c.nodePortUses.push({ service: obj, port: p.nodePort, protocol: p.protocol, where: where([...sv.at, 'spec', 'ports', i, 'nodePort']) });
  });
  c.serviceAt.set(id, `${source.file}:${line}`);
  c.services.push(obj);
}

function collectConfig(c: Collection, config: ValidConfig, source: ManifestSource, options: LoadOptions): void {
  const obj = toConfigObject(config.value, config.kind, options.defaultNamespace);
  const key = `${obj.namespace}/${configKey(obj.kind, obj.name)}`;
  const line = lineOf(config.lines, config.at) ?? config.line;
  const first = c.configAt.get(key);
  if (first !== undefined) {
    c.problems.push(atName(source.file, config, `${obj.kind} ${obj.namespace}/${obj.name} is already defined at ${first}`));
    return;
  }
  c.configAt.set(key, `${source.file}:${line}`);
  c.configs.set(key, obj);
}

/** Host port bindings by port and protocol, so checking thousands of pods stays linear. */
type HostPorts = Map<string, Array<{ use: HostPortUse; pod: LoadedPod }>>;

function portKey(u: HostPortUse): string {
  return `${u.hostPort}/${u.protocol}`;
}

/**
 * The PV controller's binding (manifest/volumeBinding.ts) of every claim of the input: a claim that would stay
 * Pending is refused here. The claims bound get their volume; the binding is returned for the pods' claims.
 */
function bindVolumes(c: Collection): ReadonlyMap<string, BoundVolume> {
  const binding = bindClaims(c.claimRequests, c.volumes);
  const at = (r: ClaimRequest, field: string | undefined): Where => (field !== undefined ? c.claimField.get(r)?.(field) : undefined) ?? { file: r.file, line: r.line, path: r.at };
  for (const r of binding.refused) c.problems.push({ ...at(r.claim, r.field), message: `claim ${r.claim.namespace}/${r.claim.name}: ${r.message}` });
  for (const w of binding.warnings) c.warnings.push({ ...at(w.claim, w.field), message: `claim ${w.claim.namespace}/${w.claim.name}: ${w.message}` });
  for (const claim of c.claims) {
    const b = binding.bound.get(`${claim.namespace}/${claim.name}`);
    if (b !== undefined) claim.boundTo = b;
  }
  return binding.bound;
}

/** A pod's claims that bind a PersistentVolume of the input, by claim name. */
function boundClaimsOf(pod: LoadedPod['pod'], bound: ReadonlyMap<string, BoundVolume>): Map<string, BoundVolume> {
  return new Map(
    (pod.spec.volumes ?? []).flatMap((v) => {
      const b = v.persistentVolumeClaim ? bound.get(`${pod.metadata.namespace}/${v.persistentVolumeClaim.claimName}`) : undefined;
      return v.persistentVolumeClaim && b !== undefined ? [[v.persistentVolumeClaim.claimName, b] as const] : [];
    }),
  );
}

/** The second stage: default each pod found, resolve its references, and check it against the pods before it. */
function loadPods(c: Collection, options: LoadOptions, boundVolumes: ReadonlyMap<string, BoundVolume>): { pods: LoadedPod[]; hostPorts: HostPorts } {
  const pods: LoadedPod[] = [];
  const byName = new Map<string, LoadedPod>();
  const hostPorts: HostPorts = new Map();
  for (const { valid, source, owner, claimsGo, ttl } of c.found) {
    dropNulls(valid.value);
    const pod = applyDefaults(valid.value, options);
    const where = (path: readonly (string | number)[]): Where => {
      const line = lineOf(valid.lines, path);
      return { file: source.file, ...(line !== undefined ? { line } : {}), path: formatPath(path) };
    };
    // Every ConfigMap and Secret the pod needs must be in the input, before anything starts (unless optional).
    const refs = resolveReferences(valid.value, pod.metadata.namespace, c.configs, (p) => where([...valid.at, ...p]), options.checkReferences !== false);
    if (refs.problems.length > 0) {
      c.problems.push(...refs.problems);
      continue;
    }
    const bound = boundClaimsOf(pod, boundVolumes);
    // The kubelet gives a local PersistentVolume to the pod's fsGroup (SetVolumeOwnership; a hostPath one it leaves
    // alone); runpod does not change the owner of a host directory, and says so.
    const fsGroup = (pod.spec.securityContext as { fsGroup?: number } | undefined)?.fsGroup;
    for (const [claim, b] of bound) {
      if (fsGroup !== undefined && b.source.type === 'local')
        c.warnings.push({
          ...where([...valid.at, 'spec', 'securityContext', 'fsGroup']),
          message: `not applied to claim ${claim}'s local PersistentVolume ${b.volume} (${b.source.path}): runpod does not change the owner of a host directory; give it to group ${fsGroup} yourself (chgrp -R ${fsGroup}, chmod -R g+rwX, setgid directories)`,
        });
    }
    const loaded: LoadedPod = {
      pod,
      source,
      line: valid.line,
      ...(bound.size > 0 ? { boundClaims: bound } : {}),
      locate: (p) => where([...valid.at, ...p]),
      ...(refs.configs.size > 0 ? { configs: refs.configs } : {}),
      ...(owner !== undefined ? { owner } : {}),
      ...(claimsGo === true ? { claimsGoWithOwner: true } : {}),
      ...(ttl !== undefined ? { jobTtlSeconds: ttl } : {}),
    };
    // A pod is identified by namespace/name: two in one invocation would fight over the same containers.
    const id = `${pod.metadata.namespace}/${pod.metadata.name}`;
    const first = byName.get(id);
    if (first !== undefined) {
      c.problems.push({ ...where([...valid.at, 'metadata', 'name']), message: `pod ${id} is already defined at ${at(first)}` });
      continue;
    }
    byName.set(id, loaded);
    if (!hostPortsFree(c, hostPorts, loaded, valid.at, where)) continue;
    for (const use of hostPortsOf(pod, valid.at)) {
      const bucket = hostPorts.get(portKey(use));
      if (bucket === undefined) hostPorts.set(portKey(use), [{ use, pod: loaded }]);
      else bucket.push({ use, pod: loaded });
    }
    pods.push(loaded);
  }
  return { pods, hostPorts };
}

/**
 * Pods on one host share its ports: a host port bound by one pod cannot be bound by another (the scheduler's
 * NodePorts filter keeps such pods off one node). Says every clash of the pod's host ports; true when there is none.
 */
function hostPortsFree(c: Collection, hostPorts: HostPorts, loaded: LoadedPod, podAt: ValidPod['at'], where: (path: readonly (string | number)[]) => Where): boolean {
  const { pod, owner } = loaded;
  let clash = false;
  for (const use of hostPortsOf(pod, podAt)) {
    const other = hostPorts.get(portKey(use))?.find((h) => hostPortsCollide(h.use, use));
    if (other === undefined) continue;
    // Two replicas of one workload: the template's hostPort cannot serve more than one pod on one host.
    const replicas = owner !== undefined && other.pod.owner === owner ? c.workloads.find((w) => w.ref === owner && w.namespace === pod.metadata.namespace) : undefined;
    c.problems.push({
      ...where(use.path),
      message: replicas
        ? `host port ${use.hostPort}/${use.protocol}: the ${replicas.replicas} replicas of ${replicas.ref} cannot all bind it on one host; use 1 replica, or drop hostPort (--publish-all gives each pod a port of its own)`
        : `host port ${use.hostPort}/${use.protocol} is already used by pod ${other.pod.pod.metadata.namespace}/${other.pod.pod.metadata.name} (${at(other.pod)})`,
    });
    clash = true;
  }
  return !clash;
}

/**
 * A node port is published on every address of the host, so a pod's hostPort of the same number and protocol could
 * not be bound beside it.
 */
function checkNodePortsAgainstHostPorts(c: Collection, hostPorts: HostPorts): void {
  for (const use of c.nodePortUses) {
    const other = hostPorts.get(`${use.port}/${use.protocol}`)?.[0];
    if (other !== undefined) {
      c.problems.push({
        ...use.where,
        message: `nodePort ${use.port}/${use.protocol} is already used as a host port by pod ${other.pod.pod.metadata.namespace}/${other.pod.pod.metadata.name} (${at(other.pod)}); choose another, or leave it out for runpod to choose`,
      });
    }
  }
}

/** A workload's replicas share its template: one problem of the template is said once, not once per replica. */
function sayOnce(problems: readonly ManifestProblem[]): ManifestProblem[] {
  const said = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.file}\u0000${p.line}\u0000${p.path}\u0000${p.message}`;
    if (said.has(key)) return false;
    said.add(key);
    return true;
  });
}

function at(p: LoadedPod): string {
  return `${p.source.file}:${p.line}`;
}

/**
 * Order problems (or warnings) by file, in the order the inputs were given, then by line; a problem without a
 * line (a missing file) comes first in its file. Stable otherwise, so problems on one line keep field order.
 */
export function sortByFileAndLine<T extends { file: string; line?: number }>(items: readonly T[], fileOrder: readonly string[]): T[] {
  const rank = new Map<string, number>();
  fileOrder.forEach((f, i) => {
    if (!rank.has(f)) rank.set(f, i);
  });
  const fileRank = (f: string): number => rank.get(f) ?? fileOrder.length;
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => fileRank(a.item.file) - fileRank(b.item.file) || a.item.file.localeCompare(b.item.file) || (a.item.line ?? 0) - (b.item.line ?? 0) || a.i - b.i)
    .map(({ item }) => item);
}

/**
 * A field written as null ("command: ~", "args:") is a field not given, as the API server reads JSON null for an
 * optional field; the schema allows it, so it is removed before defaulting, and later steps never meet a null
 * where they expect a list or a mapping. In place; shared (aliased) nodes are visited once.
 */
export function dropNulls(value: unknown, seen = new Set<object>()): void {
  if (value === null || typeof value !== 'object' || seen.has(value)) return;
  seen.add(value);
  if (Array.isArray(value)) {
    for (const item of value) dropNulls(item, seen);
    return;
  }
  const obj = value as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (obj[key] === null) delete obj[key];
    else dropNulls(obj[key], seen);
  }
}
