// The API server's rules for volumes, volume mounts and env sources (pkg/apis/core/validation: validateVolumes,
// validateVolumeMounts, validateEnv, validateEnvFrom, validateDownwardAPIVolumeFile …) that the OpenAPI schema does
// not express, plus runpod's own limits on one host. Pure: values in, problems and warnings out.

import type { Obj } from '../kube/object.js';
import type { PathSegment } from '../kube/path.js';
import { compareQuantities, dns1123Label, dns1123Subdomain, envVarName, parseQuantity, qualifiedName, quantityExample } from '../kube/syntax.js';
import type { ProblemSink } from './problems.js';

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}
function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
function set(v: unknown): boolean {
  return v !== undefined && v !== null;
}
function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** The volume sources runpod makes on the engine; the others are refused by the field table. */
export const volumeSourceKinds = ['emptyDir', 'hostPath', 'configMap', 'secret', 'downwardAPI', 'projected', 'persistentVolumeClaim', 'image'] as const;
export type VolumeSourceKind = (typeof volumeSourceKinds)[number];
/** Every source Kubernetes defines (for "exactly one source"). */
const allVolumeSources = [
  ...volumeSourceKinds,
  'awsElasticBlockStore',
  'azureDisk',
  'azureFile',
  'cephfs',
  'cinder',
  'csi',
  'ephemeral',
  'fc',
  'flexVolume',
  'flocker',
  'gcePersistentDisk',
  'gitRepo',
  'glusterfs',
  'iscsi',
  'nfs',
  'photonPersistentDisk',
  'portworxVolume',
  'quobyte',
  'rbd',
  'scaleIO',
  'storageos',
  'vsphereVolume',
];

/** HostPathType (pkg/apis/core/types.go); "" does no check. */
export const hostPathTypes = ['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice'];

/** validateEnvVarValueFrom's validEnvDownwardAPIFieldPathExpressions (and the labels/annotations subscripts). */
const envFieldPaths = new Set([
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
]);
/** validDownwardAPIFieldPathExpressions for volume files: metadata only (status is not known when files are written). */
const volumeFieldPaths = new Set(['metadata.name', 'metadata.namespace', 'metadata.uid', 'metadata.labels', 'metadata.annotations']);

/** The resources a resourceFieldRef may read; runpod limits only cpu and memory, so only those are known. */
export const resourceFieldResources = ['limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory'];

/** metadata.labels['key'] / metadata.annotations['key'] → the map and the key. */
export function fieldSubscript(path: string): { map: 'labels' | 'annotations'; key: string } | undefined {
  const m = /^metadata\.(labels|annotations)\['(.*)'\]$/.exec(path);
  return m ? { map: m[1] as 'labels' | 'annotations', key: m[2]! } : undefined;
}

/** IsConfigMapKey: at most 253 characters of [-._a-zA-Z0-9], not "." or "..", not starting with "..". */
export function configKeyProblem(k: string): string | undefined {
  if (k === '') return 'must not be empty';
  if (k.length > 253) return `must be no more than 253 characters (has ${k.length})`;
  if (!/^[-._a-zA-Z0-9]+$/.test(k)) return "a valid config key must consist of letters, digits, '-', '_' or '.'";
  if (k === '.' || k === '..' || k.startsWith('..')) return "must not be '.' or '..', nor start with '..'";
  return undefined;
}

/** validateLocalDescendingPath: relative, and no ".." element (a path that could leave the volume). */
export function descendingPathProblem(p: string): string | undefined {
  if (p.startsWith('/')) return 'must be a relative path';
  if (p.split('/').includes('..')) return "must not contain '..'";
  return undefined;
}

/** A file mode: 0-0777 (validation: "must be a number between 0 and 0777 (octal)"). */
function modeProblem(v: unknown): string | undefined {
  if (typeof v !== 'number') return undefined;
  return Number.isInteger(v) && v >= 0 && v <= 0o777 ? undefined : 'must be a number between 0 and 0777 (octal), both inclusive';
}

/** validateContainerResourceDivisor: cpu divides by 1m or 1; memory by 1, 1k … 1E, 1Ki … 1Ei. */
function divisorProblem(resource: string, divisor: unknown): string | undefined {
  if (!set(divisor)) return undefined;
  const q = parseQuantity(divisor);
  if (q === undefined) return quantityExample;
  const oneOf = (values: string[]): boolean => values.some((v) => compareQuantities(q, parseQuantity(v)!) === 0);
  if (resource.endsWith('.cpu')) return oneOf(['1m', '1']) ? undefined : 'only divisor 1m or 1 is allowed for cpu';
  const ok = oneOf(['1', '1k', '1M', '1G', '1T', '1P', '1E', '1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei']);
  return ok ? undefined : 'only divisor 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi or 1Ei is allowed for memory';
}

function add(sink: ProblemSink, path: PathSegment[], problem: string | undefined): boolean {
  if (problem === undefined) return false;
  sink.add(path, problem);
  return true;
}

/** The declared volumes by name, with their source kind, for the mount checks. */
export type DeclaredVolumes = Map<string, VolumeSourceKind | undefined>;

export function volumeRules(spec: Obj, s: PathSegment[], sink: ProblemSink): DeclaredVolumes {
  const declared: DeclaredVolumes = new Map();
  const containerNames = new Set(
    list(spec.containers)
      .map((c) => (isObj(c) ? str(c.name) : undefined))
      .filter((n): n is string => n !== undefined),
  );
  list(spec.volumes).forEach((v, i) => {
    if (!isObj(v)) return;
    const p = [...s, 'volumes', i];
    // validateVolumes: a DNS-1123 label name, unique in the pod.
    const name = str(v.name);
    if (name === undefined || name === '') sink.add([...p, 'name'], 'required');
    else if (!add(sink, [...p, 'name'], dns1123Label(name)) && declared.has(name)) sink.add([...p, 'name'], `duplicate volume name "${name}"`);
    // validateVolumeSource: exactly one source.
    const sources = allVolumeSources.filter((k) => set(v[k]));
    if (sources.length === 0) sink.add(p, `must specify a volume source (one of ${volumeSourceKinds.join(', ')})`);
    else if (sources.length > 1) sink.add([...p, sources[1]!], `may not specify more than one volume source (also ${sources[0]})`);
    const kind = volumeSourceKinds.find((k) => k === sources[0]);
    if (name !== undefined && name !== '' && !declared.has(name)) declared.set(name, kind);
    if (sources.length !== 1 || kind === undefined) return;
    const src = v[kind];
    if (!isObj(src)) return;
    const sp = [...p, kind];
    switch (kind) {
      case 'emptyDir': {
        const medium = src.medium ?? '';
        if (medium !== '' && medium !== 'Memory') {
          sink.add([...sp, 'medium'], typeof medium === 'string' && medium.startsWith('HugePages') ? 'not supported by runpod (HugePages)' : 'must be "" or "Memory"');
        }
        if (set(src.sizeLimit)) {
          const q = parseQuantity(src.sizeLimit);
          if (q === undefined) sink.add([...sp, 'sizeLimit'], quantityExample);
          else if (q.negative) sink.add([...sp, 'sizeLimit'], 'must be greater than or equal to 0');
          // Docker's local volumes on disk have no size limit (the kubelet enforces this one by evicting the pod).
          else if (medium === '') sink.warn([...sp, 'sizeLimit'], 'not enforced: a disk-backed emptyDir on Docker has no size limit (medium: Memory is limited)');
        }
        break;
      }
      case 'hostPath': {
        const path = str(src.path);
        if (path === undefined || path === '') sink.add([...sp, 'path'], 'required');
        else if (!path.startsWith('/')) sink.add([...sp, 'path'], 'must be an absolute path');
        else if (path.split('/').includes('..')) sink.add([...sp, 'path'], "must not contain '..'");
        if (set(src.type) && !hostPathTypes.includes(String(src.type))) {
          sink.add([...sp, 'type'], `must be one of ${hostPathTypes.map((t) => JSON.stringify(t)).join(', ')}`);
        }
        break;
      }
      case 'configMap':
        objectName(src.name, [...sp, 'name'], sink);
        keyToPaths(src.items, [...sp, 'items'], sink, new Set());
        add(sink, [...sp, 'defaultMode'], modeProblem(src.defaultMode));
        break;
      case 'secret':
        objectName(src.secretName, [...sp, 'secretName'], sink);
        keyToPaths(src.items, [...sp, 'items'], sink, new Set(), true);
        if (!add(sink, [...sp, 'defaultMode'], modeProblem(src.defaultMode))) secretModeWarning(src.defaultMode, [...sp, 'defaultMode'], sink);
        break;
      case 'downwardAPI':
        downwardFiles(src.items, [...sp, 'items'], sink, containerNames, new Set());
        add(sink, [...sp, 'defaultMode'], modeProblem(src.defaultMode));
        break;
      case 'projected': {
        add(sink, [...sp, 'defaultMode'], modeProblem(src.defaultMode));
        // validateProjectedVolumeSource: each source exactly one kind; every path unique across all sources.
        const paths = new Set<string>();
        list(src.sources).forEach((ps, j) => {
          if (!isObj(ps)) return;
          const pp = [...sp, 'sources', j];
          const kinds = ['configMap', 'secret', 'downwardAPI', 'serviceAccountToken', 'clusterTrustBundle', 'podCertificate'].filter((k) => set(ps[k]));
          if (kinds.length === 0) sink.add(pp, 'must specify one source (configMap, secret or downwardAPI)');
          else if (kinds.length > 1) sink.add([...pp, kinds[1]!], `may not specify more than one source (also ${kinds[0]})`);
          if (isObj(ps.configMap)) {
            objectName(ps.configMap.name, [...pp, 'configMap', 'name'], sink);
            keyToPaths(ps.configMap.items, [...pp, 'configMap', 'items'], sink, paths);
          }
          if (isObj(ps.secret)) {
            objectName(ps.secret.name, [...pp, 'secret', 'name'], sink);
            keyToPaths(ps.secret.items, [...pp, 'secret', 'items'], sink, paths, true);
          }
          if (isObj(ps.downwardAPI)) downwardFiles(ps.downwardAPI.items, [...pp, 'downwardAPI', 'items'], sink, containerNames, paths);
        });
        break;
      }
      case 'persistentVolumeClaim':
        objectName(src.claimName, [...sp, 'claimName'], sink);
        break;
      case 'image':
        // validateImageVolumeSource: a Pod's image volume names its image (a workload may leave it to a controller,
        // but runpod runs the pod as written). Whether the engine can mount it is asked of the engine at run time.
        if (str(src.reference) === undefined || src.reference === '') sink.add([...sp, 'reference'], 'required');
        break;
    }
  });
  return declared;
}

function objectName(v: unknown, p: PathSegment[], sink: ProblemSink): void {
  if (v === undefined || v === null || v === '') sink.add(p, 'required');
  else if (typeof v === 'string') add(sink, p, dns1123Subdomain(v));
}

function secretModeWarning(mode: unknown, p: PathSegment[], sink: ProblemSink): void {
  if (typeof mode === 'number' && (mode & 0o007) !== 0) {
    sink.warn(p, `secret files are never world-readable on runpod: mode 0${mode.toString(8)} is applied as 0${(mode & 0o770).toString(8)}`);
  }
}

function keyToPaths(items: unknown, p: PathSegment[], sink: ProblemSink, paths: Set<string>, secret = false): void {
  list(items).forEach((it, i) => {
    if (!isObj(it)) return;
    const ip = [...p, i];
    const key = str(it.key);
    if (key === undefined || key === '') sink.add([...ip, 'key'], 'required');
    else add(sink, [...ip, 'key'], configKeyProblem(key));
    filePath(it.path, [...ip, 'path'], sink, paths);
    if (!add(sink, [...ip, 'mode'], modeProblem(it.mode)) && secret) secretModeWarning(it.mode, [...ip, 'mode'], sink);
  });
}

function filePath(v: unknown, p: PathSegment[], sink: ProblemSink, paths: Set<string>): void {
  const path = str(v);
  if (path === undefined || path === '') {
    sink.add(p, 'required');
    return;
  }
  if (add(sink, p, descendingPathProblem(path))) return;
  const norm = path
    .split('/')
    .filter((x) => x !== '' && x !== '.')
    .join('/');
  if (paths.has(norm)) sink.add(p, `conflicting duplicate path "${path}"`);
  paths.add(norm);
}

function downwardFiles(items: unknown, p: PathSegment[], sink: ProblemSink, containers: Set<string>, paths: Set<string>): void {
  list(items).forEach((it, i) => {
    if (!isObj(it)) return;
    const ip = [...p, i];
    filePath(it.path, [...ip, 'path'], sink, paths);
    add(sink, [...ip, 'mode'], modeProblem(it.mode));
    // validateDownwardAPIVolumeFile: exactly one of fieldRef and resourceFieldRef.
    if (set(it.fieldRef) === set(it.resourceFieldRef)) {
      sink.add(ip, 'must specify exactly one of fieldRef and resourceFieldRef');
      return;
    }
    if (isObj(it.fieldRef)) fieldRefRules(it.fieldRef, [...ip, 'fieldRef'], sink, volumeFieldPaths);
    // In a volume there is no "this container": containerName is required.
    if (isObj(it.resourceFieldRef)) resourceFieldRefRules(it.resourceFieldRef, [...ip, 'resourceFieldRef'], sink, containers, true);
  });
}

function fieldRefRules(ref: Obj, p: PathSegment[], sink: ProblemSink, allowed: Set<string>): void {
  if (set(ref.apiVersion) && ref.apiVersion !== 'v1') sink.add([...p, 'apiVersion'], 'must be v1');
  const path = str(ref.fieldPath);
  if (path === undefined || path === '') {
    sink.add([...p, 'fieldPath'], 'required');
    return;
  }
  const sub = fieldSubscript(path);
  if (sub !== undefined) {
    const bad = qualifiedName(sub.key);
    if (bad !== undefined) sink.add([...p, 'fieldPath'], `invalid key in ${path}: ${bad}`);
    return;
  }
  if (!allowed.has(path)) {
    sink.add([...p, 'fieldPath'], `not supported: "${path}"; supported values: ${[...allowed].join(', ')}, metadata.labels['<key>'], metadata.annotations['<key>']`);
  }
}

function resourceFieldRefRules(ref: Obj, p: PathSegment[], sink: ProblemSink, containers: Set<string>, requireContainer: boolean): void {
  const cn = str(ref.containerName);
  if (cn === undefined || cn === '') {
    if (requireContainer) sink.add([...p, 'containerName'], 'required');
  } else if (!containers.has(cn)) sink.add([...p, 'containerName'], `no container named "${cn}" in the pod`);
  const resource = str(ref.resource);
  if (resource === undefined || resource === '') {
    sink.add([...p, 'resource'], 'required');
    return;
  }
  if (!resourceFieldResources.includes(resource)) {
    const known = /^(limits|requests)\.(ephemeral-storage|hugepages-.+)$/.test(resource);
    sink.add([...p, 'resource'], known ? 'not supported by runpod (only cpu and memory)' : `must be one of ${resourceFieldResources.join(', ')}`);
    return;
  }
  add(sink, [...p, 'divisor'], divisorProblem(resource, ref.divisor));
}

/** validateEnv's valueFrom rules and validateEnvFrom, for one container. */
export function envSourceRules(c: Obj, p: PathSegment[], sink: ProblemSink, containers: Set<string>): void {
  list(c.env).forEach((e, i) => {
    if (!isObj(e) || !isObj(e.valueFrom)) return;
    const vp = [...p, 'env', i, 'valueFrom'];
    if (typeof e.value === 'string' && e.value !== '') {
      sink.add(vp, 'may not be specified when `value` is not empty');
      return;
    }
    const vf = e.valueFrom;
    const kinds = ['fieldRef', 'resourceFieldRef', 'configMapKeyRef', 'secretKeyRef', 'fileKeyRef'].filter((k) => set(vf[k]));
    if (kinds.length !== 1) {
      sink.add(vp, kinds.length === 0 ? 'must specify one of fieldRef, resourceFieldRef, configMapKeyRef or secretKeyRef' : 'may not have more than one field specified at a time');
      return;
    }
    if (isObj(vf.fieldRef)) fieldRefRules(vf.fieldRef, [...vp, 'fieldRef'], sink, envFieldPaths);
    if (isObj(vf.resourceFieldRef)) resourceFieldRefRules(vf.resourceFieldRef, [...vp, 'resourceFieldRef'], sink, containers, false);
    for (const k of ['configMapKeyRef', 'secretKeyRef'] as const) {
      const ref = vf[k];
      if (!isObj(ref)) continue;
      objectName(ref.name, [...vp, k, 'name'], sink);
      const key = str(ref.key);
      if (key === undefined || key === '') sink.add([...vp, k, 'key'], 'required');
      else add(sink, [...vp, k, 'key'], configKeyProblem(key));
    }
  });
  list(c.envFrom).forEach((e, i) => {
    if (!isObj(e)) return;
    const ep = [...p, 'envFrom', i];
    if (set(e.configMapRef) === set(e.secretRef)) {
      sink.add(ep, 'must specify exactly one of configMapRef and secretRef');
      return;
    }
    // validateEnvFrom: the prefix must itself be a valid variable name.
    if (typeof e.prefix === 'string' && e.prefix !== '') add(sink, [...ep, 'prefix'], envVarName(e.prefix));
    const ref = isObj(e.configMapRef) ? e.configMapRef : isObj(e.secretRef) ? e.secretRef : undefined;
    if (ref !== undefined) objectName(ref.name, [...ep, isObj(e.configMapRef) ? 'configMapRef' : 'secretRef', 'name'], sink);
  });
}

const propagations = ['None', 'HostToContainer', 'Bidirectional'];

/** validateVolumeMounts for one container: declared volume, absolute unique mountPath, safe subPath, propagation. */
const recursiveReadOnlyValues = ['Disabled', 'IfPossible', 'Enabled'];

/**
 * validateVolumeMounts on recursiveReadOnly (KEP-3857): Disabled, IfPossible or Enabled; the last two only on a
 * read-only mount without propagation. Whether the engine can make a mount recursively read-only is asked of it at
 * run time (plan/engineSupport.ts).
 */
function recursiveReadOnlyRules(m: Obj, mp: PathSegment[], sink: ProblemSink): void {
  if (!set(m.recursiveReadOnly)) return;
  const rro = String(m.recursiveReadOnly);
  const at = [...mp, 'recursiveReadOnly'];
  if (!recursiveReadOnlyValues.includes(rro)) {
    sink.add(at, `must be one of ${recursiveReadOnlyValues.join(', ')}`);
    return;
  }
  if (rro === 'Disabled') return;
  if (m.readOnly !== true) sink.add(at, 'may only be specified when readOnly is true');
  if (set(m.mountPropagation) && m.mountPropagation !== 'None') sink.add(at, 'may only be specified when mountPropagation is None or not specified');
}

export function mountRules(c: Obj, p: PathSegment[], sink: ProblemSink, declared: DeclaredVolumes): void {
  const paths = new Map<string, number>();
  list(c.volumeMounts).forEach((m, i) => {
    if (!isObj(m)) return;
    const mp = [...p, 'volumeMounts', i];
    const name = str(m.name);
    let kind: VolumeSourceKind | undefined;
    if (name === undefined || name === '') sink.add([...mp, 'name'], 'required');
    else if (!declared.has(name)) sink.add([...mp, 'name'], `no volume named "${name}" in spec.volumes`);
    else kind = declared.get(name);
    const target = str(m.mountPath);
    if (target === undefined || target === '') sink.add([...mp, 'mountPath'], 'required');
    else if (!target.startsWith('/')) sink.add([...mp, 'mountPath'], 'must be an absolute path');
    else if (target.includes(':')) sink.add([...mp, 'mountPath'], "must not contain ':'");
    else {
      const norm = target.replace(/\/+$/, '') || '/';
      const first = paths.get(norm);
      if (first !== undefined) sink.add([...mp, 'mountPath'], `must be unique (also volumeMounts[${first}])`);
      else paths.set(norm, i);
    }
    const subPath = str(m.subPath);
    if (subPath !== undefined && subPath !== '') add(sink, [...mp, 'subPath'], descendingPathProblem(subPath));
    recursiveReadOnlyRules(m, mp, sink);
    if (set(m.mountPropagation)) {
      const prop = String(m.mountPropagation);
      if (!propagations.includes(prop)) sink.add([...mp, 'mountPropagation'], `must be one of ${propagations.join(', ')}`);
      // validateMountPropagation: Bidirectional is available only to privileged containers.
      else if (prop === 'Bidirectional' && !(isObj(c.securityContext) && c.securityContext.privileged === true)) {
        sink.add([...mp, 'mountPropagation'], 'Bidirectional mount propagation is available only to privileged containers');
      } else if (prop !== 'None' && kind !== 'hostPath' && (subPath === undefined || subPath === '')) {
        // Only a bind mount carries a propagation mode on Docker; a named volume's mount is always private.
        sink.warn([...mp, 'mountPropagation'], `ignored: a ${kind ?? 'volume'} mount without subPath is a Docker named volume, whose mounts are private`);
      }
    }
  });
}
