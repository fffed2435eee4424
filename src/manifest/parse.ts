// The pure part of loading: the text of each input → validated, defaulted Pods, with every problem and warning
// across all inputs. load.ts reads files and stdin and hands their text here.

import type { ManifestProblem } from '../errors.js';
import { resolveReferences, toConfigObject } from './configs.js';
import { applyDefaults } from './defaults.js';
import { formatPath } from '../kube/path.js';
import { type ConfigObject, type LoadedPod, type LoadOptions, type ManifestSource, type ManifestWarning, type SkippedObject, type ClaimObject, type ServiceObject, configKey } from './types.js';
import { toServiceObject } from './serviceRules.js';
import { type ValidPod, validateDocument } from './validate.js';
import { lineOf, parseYaml } from '../input/yaml.js';
import { expandWorkload, type WorkloadPlan } from '../workloads/expand.js';
import { isObj } from '../kube/object.js';
import { type HostPortUse, hostPortsOf, hostPortsCollide } from './pod.js';
import { type ClaimRequest, type VolumeObject, bindClaims, claimRequest, volumeObject } from './volumeBinding.js';

export interface ManifestText {
  source: ManifestSource;
  text: string;
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
  const problems: ManifestProblem[] = [];
  const warnings: ManifestWarning[] = [];
  const found: Array<{ valid: ValidPod; source: ManifestSource; owner?: string; claimsGo?: boolean; ttl?: number }> = [];
  const workloadAt = new Map<string, string>();
  const skipped: SkippedObject[] = [];
  const workloads: WorkloadPlan[] = [];
  const claims: ClaimObject[] = [];
  // The claims to bind (PersistentVolumeClaims, StatefulSet ordinals' claims) and the PersistentVolumes they may bind.
  const claimRequests: ClaimRequest[] = [];
  const volumes: VolumeObject[] = [];
  /** Where a field of a claim's spec is written. */
  const claimField = new Map<ClaimRequest, (field: string) => { file: string; line: number; path: string }>();
  const services: ServiceObject[] = [];
  const serviceAt = new Map<string, string>();
  // Node ports of the input's Services: the API server's allocator hands each port number to one Service.
  const nodePorts = new Map<number, { service: ServiceObject; path: string }>();
  const nodePortUses: Array<{ service: ServiceObject; port: number; protocol: string; where: { file: string; line?: number; path: string } }> = [];
  const skipKinds = new Set(options.skipKinds ?? []);
  const fromCronJobs = new Set(options.fromCronJobs ?? []);
  const cronJobsRun = new Set<string>();
  // ConfigMaps and Secrets of every input by namespace/kind/name: they feed the pods of the whole invocation.
  const configs = new Map<string, ConfigObject>();
  const configAt = new Map<string, string>();
  for (const { source, text } of inputs) {
    const parsed = parseYaml(text, source.file);
    problems.push(...parsed.problems);
    for (const doc of parsed.documents) {
      const result = validateDocument(doc, source.file, { skipKinds, fromCronJobs });
      for (const c of result.cronJobsRun) cronJobsRun.add(c);
      problems.push(...result.problems);
      skipped.push(...result.skipped);
      warnings.push(...result.warnings);
      for (const valid of result.pods) found.push({ valid, source });
      // A workload's pods are Pods of its template (workloads/expand.ts), loaded and checked as any other, each
      // pointing back at the template for its problems.
      for (const w of result.workloads) {
        const specAt = (path: readonly (string | number)[]): { file: string; line: number; at: string } => ({ file: source.file, line: lineOf(w.lines, [...w.at, ...path]) ?? w.line, at: formatPath([...w.at, ...path]) });
        const requested = (r: ClaimRequest, path: readonly (string | number)[]): void => {
          claimRequests.push(r);
          claimField.set(r, (field) => ({ file: source.file, line: lineOf(w.lines, [...w.at, ...path, field]) ?? r.line, path: formatPath([...w.at, ...path, field]) }));
        };
        if (w.kind === 'PersistentVolume') {
          const v = volumeObject(w.value, source.file, w.line);
          const first = workloadAt.get(`persistentvolume/${v.name}`);
          if (first !== undefined) {
            const l = lineOf(w.lines, [...w.at, 'metadata', 'name']);
            problems.push({ file: source.file, ...(l !== undefined ? { line: l } : {}), path: formatPath([...w.at, 'metadata', 'name']), message: `PersistentVolume ${v.name} is already defined at ${first}` });
          } else {
            workloadAt.set(`persistentvolume/${v.name}`, `${source.file}:${w.line}`);
            volumes.push(v);
          }
          continue;
        }
        if (w.kind === 'PersistentVolumeClaim') {
          const meta = isObj(w.value.metadata) ? w.value.metadata : {};
          const ns = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : options.defaultNamespace;
          const id = `${ns}/persistentvolumeclaim/${String(meta.name)}`;
          const first = workloadAt.get(id);
          if (first !== undefined) {
            const l = lineOf(w.lines, [...w.at, 'metadata', 'name']);
            problems.push({ file: source.file, ...(l !== undefined ? { line: l } : {}), path: formatPath([...w.at, 'metadata', 'name']), message: `PersistentVolumeClaim ${ns}/${String(meta.name)} is already defined at ${first}` });
          } else {
            workloadAt.set(id, `${source.file}:${w.line}`);
            claims.push({ namespace: ns, name: String(meta.name), file: source.file, line: w.line });
            requested(claimRequest(isObj(w.value.spec) ? w.value.spec : {}, ns, String(meta.name), specAt(['spec'])), ['spec']);
          }
          continue;
        }
        const plan = expandWorkload(w.kind, w.value, options.defaultNamespace);
        const id = `${plan.namespace}/${plan.ref}`;
        const first = workloadAt.get(id);
        if (first !== undefined) {
          const l = lineOf(w.lines, [...w.at, 'metadata', 'name']);
          problems.push({ file: source.file, ...(l !== undefined ? { line: l } : {}), path: formatPath([...w.at, 'metadata', 'name']), message: `${plan.ref} in namespace ${plan.namespace} is already defined at ${first}` });
          continue;
        }
        workloadAt.set(id, `${source.file}:${w.line}`);
        workloads.push(plan);
        // A StatefulSet ordinal's claims (<template>-<name>-<ordinal>) bind as any claim, each with its template's spec.
        const templates = w.kind === 'StatefulSet' && isObj(w.value.spec) && Array.isArray(w.value.spec.volumeClaimTemplates) ? w.value.spec.volumeClaimTemplates : [];
        for (const p of plan.pods) {
          templates.forEach((t, i) => {
            const spec = isObj(t) && isObj(t.spec) ? t.spec : {};
            const claim = isObj(p.value.spec) && Array.isArray(p.value.spec.volumes) ? p.value.spec.volumes.find((v) => isObj(v) && isObj(t) && isObj(t.metadata) && v.name === t.metadata.name) : undefined;
            const claimName = isObj(claim) && isObj(claim.persistentVolumeClaim) ? String(claim.persistentVolumeClaim.claimName) : undefined;
            if (claimName !== undefined) requested(claimRequest(spec, plan.namespace, claimName, specAt(['spec', 'volumeClaimTemplates', i, 'spec'])), ['spec', 'volumeClaimTemplates', i, 'spec']);
          });
        }
        for (const p of plan.pods) found.push({ valid: { value: p.value, at: [...w.at, 'spec', 'template'], line: w.line, lines: w.lines }, source, owner: plan.ref, claimsGo: plan.claims?.deleteWhenDeleted === true, ...(plan.job?.ttlSecondsAfterFinished !== undefined ? { ttl: plan.job.ttlSecondsAfterFinished } : {}) });
      }
      for (const sv of result.services) {
        const line = lineOf(sv.lines, sv.at) ?? sv.line;
        const obj = toServiceObject(sv.value, options.defaultNamespace, source.file, line);
        const id = `${obj.namespace}/${obj.name}`;
        const where = (path: readonly (string | number)[]): { file: string; line?: number; path: string } => {
          const l = lineOf(sv.lines, path);
          return { file: source.file, ...(l !== undefined ? { line: l } : {}), path: formatPath(path) };
        };
        const first = serviceAt.get(id);
        if (first !== undefined) {
          problems.push({ ...where([...sv.at, 'metadata', 'name']), message: `Service ${id} is already defined at ${first}` });
          continue;
        }
        let clash = false;
        obj.ports.forEach((p, i) => {
          if (p.nodePort === undefined) return;
          const other = nodePorts.get(p.nodePort);
          // One Service may use one node port for TCP and UDP; two Services may not share it (whatever the protocols).
          if (other !== undefined && other.service !== obj) {
            problems.push({ ...where([...sv.at, 'spec', 'ports', i, 'nodePort']), message: `nodePort ${p.nodePort} is already used by Service ${other.service.namespace}/${other.service.name} (${other.service.file}:${other.service.line}, ${other.path}); choose another, or leave it out for runpod to choose` });
            clash = true;
          }
        });
        if (clash) continue;
        obj.ports.forEach((p, i) => {
          if (p.nodePort === undefined) return;
          if (!nodePorts.has(p.nodePort)) nodePorts.set(p.nodePort, { service: obj, path: formatPath(['spec', 'ports', i, 'nodePort']) });
          nodePortUses.push({ service: obj, port: p.nodePort, protocol: p.protocol, where: where([...sv.at, 'spec', 'ports', i, 'nodePort']) });
        });
        serviceAt.set(id, `${source.file}:${line}`);
        services.push(obj);
      }
      for (const c of result.configs) {
        const obj = toConfigObject(c.value, c.kind, options.defaultNamespace);
        const key = `${obj.namespace}/${configKey(obj.kind, obj.name)}`;
        const line = lineOf(c.lines, c.at) ?? c.line;
        const first = configAt.get(key);
        if (first !== undefined) {
          const l = lineOf(c.lines, [...c.at, 'metadata', 'name']);
          problems.push({ file: source.file, ...(l !== undefined ? { line: l } : {}), path: formatPath([...c.at, 'metadata', 'name']), message: `${obj.kind} ${obj.namespace}/${obj.name} is already defined at ${first}` });
          continue;
        }
        configAt.set(key, `${source.file}:${line}`);
        configs.set(key, obj);
      }
    }
  }

  // The PV controller's binding (manifest/volumeBinding.ts): a claim that would stay Pending is refused here.
  const binding = bindClaims(claimRequests, volumes);
  for (const r of binding.refused) problems.push({ ...(r.field !== undefined ? (claimField.get(r.claim)?.(r.field) ?? { file: r.claim.file, line: r.claim.line, path: r.claim.at }) : { file: r.claim.file, line: r.claim.line, path: r.claim.at }), message: `claim ${r.claim.namespace}/${r.claim.name}: ${r.message}` });
  for (const w of binding.warnings) warnings.push({ ...(claimField.get(w.claim)?.(w.field) ?? { file: w.claim.file, line: w.claim.line, path: w.claim.at }), message: `claim ${w.claim.namespace}/${w.claim.name}: ${w.message}` });
  for (const c of claims) {
    const b = binding.bound.get(`${c.namespace}/${c.name}`);
    if (b !== undefined) c.boundTo = b;
  }

  const pods: LoadedPod[] = [];
  const byName = new Map<string, LoadedPod>();
  // Bindings by port and protocol, so checking thousands of pods stays linear.
  const hostPorts = new Map<string, Array<{ use: HostPortUse; pod: LoadedPod }>>();
  const portKey = (u: HostPortUse): string => `${u.hostPort}/${u.protocol}`;
  for (const { valid, source, owner, claimsGo, ttl } of found) {
    dropNulls(valid.value);
    const pod = applyDefaults(valid.value, options);
    const where = (path: readonly (string | number)[]): { file: string; line?: number; path: string } => {
      const line = lineOf(valid.lines, path);
      return { file: source.file, ...(line !== undefined ? { line } : {}), path: formatPath(path) };
    };
    // Every ConfigMap and Secret the pod needs must be in the input, before anything starts (unless optional).
    const refs = resolveReferences(valid.value, pod.metadata.namespace, configs, (p) => where([...valid.at, ...p]), options.checkReferences !== false);
    if (refs.problems.length > 0) {
      problems.push(...refs.problems);
      continue;
    }
    const bound = new Map((pod.spec.volumes ?? []).flatMap((v) => {
      const b = v.persistentVolumeClaim ? binding.bound.get(`${pod.metadata.namespace}/${v.persistentVolumeClaim.claimName}`) : undefined;
      return b !== undefined ? [[v.persistentVolumeClaim!.claimName, b] as const] : [];
    }));
    // The kubelet gives a local PersistentVolume to the pod's fsGroup (SetVolumeOwnership; a hostPath one it leaves
    // alone); runpod does not change the owner of a host directory, and says so.
    const fsGroup = (pod.spec.securityContext as { fsGroup?: number } | undefined)?.fsGroup;
    for (const [claim, b] of bound) {
      if (fsGroup !== undefined && b.source.type === 'local') warnings.push({ ...where([...valid.at, 'spec', 'securityContext', 'fsGroup']), message: `not applied to claim ${claim}'s local PersistentVolume ${b.volume} (${b.source.path}): runpod does not change the owner of a host directory; give it to group ${fsGroup} yourself (chgrp -R ${fsGroup}, chmod -R g+rwX, setgid directories)` });
    }
    const loaded: LoadedPod = { pod, source, line: valid.line, ...(bound.size > 0 ? { boundClaims: bound } : {}), locate: (p) => where([...valid.at, ...p]), ...(refs.configs.size > 0 ? { configs: refs.configs } : {}), ...(owner !== undefined ? { owner } : {}), ...(claimsGo === true ? { claimsGoWithOwner: true } : {}), ...(ttl !== undefined ? { jobTtlSeconds: ttl } : {}) };
    // A pod is identified by namespace/name: two in one invocation would fight over the same containers.
    const id = `${pod.metadata.namespace}/${pod.metadata.name}`;
    const first = byName.get(id);
    if (first !== undefined) {
      problems.push({ ...where([...valid.at, 'metadata', 'name']), message: `pod ${id} is already defined at ${at(first)}` });
      continue;
    }
    byName.set(id, loaded);
    // Pods on one host share its ports: a host port bound by one pod cannot be bound by another (the scheduler's
    // NodePorts filter keeps such pods off one node).
    let clash = false;
    for (const use of hostPortsOf(pod, valid.at)) {
      const other = hostPorts.get(portKey(use))?.find((h) => hostPortsCollide(h.use, use));
      if (other !== undefined) {
        // Two replicas of one workload: the template's hostPort cannot serve more than one pod on one host.
        const replicas = owner !== undefined && other.pod.owner === owner ? workloads.find((w) => w.ref === owner && w.namespace === pod.metadata.namespace) : undefined;
        problems.push({
          ...where(use.path),
          message: replicas
            ? `host port ${use.hostPort}/${use.protocol}: the ${replicas.replicas} replicas of ${replicas.ref} cannot all bind it on one host; use 1 replica, or drop hostPort (--publish-all gives each pod a port of its own)`
            : `host port ${use.hostPort}/${use.protocol} is already used by pod ${other.pod.pod.metadata.namespace}/${other.pod.pod.metadata.name} (${at(other.pod)})`,
        });
        clash = true;
      }
    }
    if (clash) continue;
    for (const use of hostPortsOf(pod, valid.at)) {
      const bucket = hostPorts.get(portKey(use));
      if (bucket === undefined) hostPorts.set(portKey(use), [{ use, pod: loaded }]);
      else bucket.push({ use, pod: loaded });
    }
    pods.push(loaded);
  }
  // A node port is published on every address of the host, so a pod's hostPort of the same number and protocol
  // could not be bound beside it.
  for (const use of nodePortUses) {
    const other = hostPorts.get(`${use.port}/${use.protocol}`)?.[0];
    if (other !== undefined) {
      problems.push({ ...use.where, message: `nodePort ${use.port}/${use.protocol} is already used as a host port by pod ${other.pod.pod.metadata.namespace}/${other.pod.pod.metadata.name} (${at(other.pod)}); choose another, or leave it out for runpod to choose` });
    }
  }
  const fileOrder = inputs.map((i) => i.source.file);
  // --from-cronjob names a CronJob the input must hold.
  for (const c of fromCronJobs) {
    if (!cronJobsRun.has(c)) problems.push({ file: inputs[0]?.source.file ?? '', path: '', message: `--from-cronjob ${c}: no CronJob named ${c} (batch/v1) in the input` });
  }
  // A workload's replicas share its template: one problem of the template is said once, not once per replica.
  const said = new Set<string>();
  const once = problems.filter((p) => {
    const key = `${p.file}\u0000${p.line}\u0000${p.path}\u0000${p.message}`;
    if (said.has(key)) return false;
    said.add(key);
    return true;
  });
  return { pods, skipped, workloads, claims, volumes, services, warnings: sortByFileAndLine(warnings, fileOrder), problems: sortByFileAndLine(once, fileOrder) };
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
