// ConfigMaps and Secrets in the input: their validation (pkg/apis/core/validation ValidateConfigMap,
// ValidateSecret), their normalized values, and the check that every reference a pod makes is satisfied.
// Pure. A Secret's values never appear in a message: problems under data and stringData name the key only.

import { ConfigMap as ConfigMapModel } from 'kubernetes-models/v1/ConfigMap';
import { Secret as SecretModel } from 'kubernetes-models/v1/Secret';
import type { ManifestProblem } from '../errors.js';
import { configMapFields, secretFields, walkFields } from './fields.js';
import type { PathSegment } from '../kube/path.js';
import { type ConfigObject, configKey } from './types.js';
import { configKeyProblem } from './volumeRules.js';
import { type Obj, isObj } from '../kube/object.js';
import { type ProblemSink, schemaProblems, metadataRules } from './problems.js';

/** MaxSecretSize and the ConfigMap limit: 1 MiB of data in all (etcd's request limit). */
const maxDataBytes = 1024 * 1024;

/** Keys each well-known Secret type must hold (ValidateSecret). */
const requiredSecretKeys: Record<string, string[]> = {
  'kubernetes.io/tls': ['tls.crt', 'tls.key'],
  'kubernetes.io/dockerconfigjson': ['.dockerconfigjson'],
  'kubernetes.io/dockercfg': ['.dockercfg'],
  'kubernetes.io/ssh-auth': ['ssh-privatekey'],
};

function isBase64(v: string): boolean {
  return /^[A-Za-z0-9+/]*={0,2}$/.test(v.replace(/\s+/g, '')) && v.replace(/\s+/g, '').length % 4 === 0;
}

/** Validate one ConfigMap or Secret found at `at`. True when it has no problem. */
export function validateConfig(obj: Obj, at: PathSegment[], kind: 'ConfigMap' | 'Secret', sink: ProblemSink): boolean {
  const before = sink.problems.length;
  const walk = walkFields(obj, kind === 'ConfigMap' ? configMapFields : secretFields, at);
  for (const p of walk.problems) sink.add(p.path, p.message);
  for (const s of walk.settled) sink.settle(s);
  for (const w of walk.warnings) sink.warn(w.path, w.message);
  const model = kind === 'ConfigMap' ? ConfigMapModel : SecretModel;
  for (const p of schemaProblems(obj, model)) {
    const path = [...at, ...p.path];
    const secretValue = kind === 'Secret' && (p.path[0] === 'data' || p.path[0] === 'stringData');
    // A Secret's value is never echoed back, even when it is wrong.
    sink.add(path, secretValue ? p.message.replace(/, got .*$/s, '') : p.message);
    if (p.wrongType) sink.settle(path);
  }
  metadataRules(obj.metadata, at, sink);

  let size = 0;
  const keys = new Map<string, string>();
  const fields = kind === 'ConfigMap' ? ['data', 'binaryData'] : ['data', 'stringData'];
  for (const field of fields) {
    const values = obj[field];
    if (!isObj(values)) continue;
    for (const [k, v] of Object.entries(values)) {
      const p = [...at, field, k];
      const bad = configKeyProblem(k);
      if (bad !== undefined) {
        sink.add(p, `invalid key: ${bad}`);
        continue;
      }
      // ValidateConfigMap: a key may not be in both data and binaryData (a Secret's stringData merges over data).
      const other = keys.get(k);
      if (other !== undefined && kind === 'ConfigMap') sink.add(p, `duplicate of key "${k}" in ${other}`);
      keys.set(k, field);
      if (typeof v !== 'string') continue;
      const base64 = field === 'binaryData' || (kind === 'Secret' && field === 'data');
      if (base64 && !isBase64(v)) sink.add(p, 'must be base64-encoded');
      size += k.length + v.length;
    }
  }
  if (size > maxDataBytes) sink.add([...at, 'data'], `may not be more than 1 MiB in total (has ${size} bytes)`);
  if (kind === 'Secret') {
    const type = typeof obj.type === 'string' && obj.type !== '' ? obj.type : 'Opaque';
    for (const k of requiredSecretKeys[type] ?? []) {
      if (!keys.has(k)) sink.add([...at, 'data'], `a Secret of type ${type} must have the key "${k}"`);
    }
  }
  return sink.problems.length === before;
}

/** The normalized values of a ConfigMap or Secret that passed validation. */
export function toConfigObject(obj: Obj, kind: 'ConfigMap' | 'Secret', defaultNamespace: string): ConfigObject {
  const meta = isObj(obj.metadata) ? obj.metadata : {};
  const namespace = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : defaultNamespace;
  const name = String(meta.name);
  const strings: Record<string, string> = {};
  const files: Record<string, string> = {};
  const entries = (v: unknown): Array<[string, string]> => (isObj(v) ? Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string') : []);
  if (kind === 'ConfigMap') {
    // kubelet: env (configMapKeyRef, envFrom) reads only data; a volume renders data and binaryData.
    for (const [k, v] of entries(obj.data)) {
      strings[k] = v;
      files[k] = Buffer.from(v, 'utf8').toString('base64');
    }
    for (const [k, v] of entries(obj.binaryData)) files[k] = v.replace(/\s+/g, '');
  } else {
    // The API server merges stringData over data (stringData wins) and stores bytes; env reads them as text.
    for (const [k, v] of entries(obj.data)) files[k] = v.replace(/\s+/g, '');
    for (const [k, v] of entries(obj.stringData)) files[k] = Buffer.from(v, 'utf8').toString('base64');
    for (const [k, v] of Object.entries(files)) strings[k] = Buffer.from(v, 'base64').toString('utf8');
  }
  return { kind, namespace, name, strings, files };
}

/** One reference a pod makes to a ConfigMap or Secret (and maybe to one of its keys). */
interface Reference {
  kind: 'ConfigMap' | 'Secret';
  name: string;
  keys: string[];
  optional: boolean;
  /** Where the reference is written, relative to the pod. */
  path: PathSegment[];
}

function refsOf(spec: Obj): Reference[] {
  const out: Reference[] = [];
  const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  const itemKeys = (items: unknown): string[] => arr(items).flatMap((i) => (isObj(i) && typeof i.key === 'string' ? [i.key] : []));
  const ref = (kind: Reference['kind'], src: Obj, nameField: string, keys: string[], path: PathSegment[]): void => {
    if (typeof src[nameField] === 'string') out.push({ kind, name: src[nameField], keys, optional: src.optional === true, path: [...path, nameField] });
  };
  const containers = [
    ...arr(spec.initContainers).map((c, i) => ({ c, cp: ['spec', 'initContainers', i] })),
    ...arr(spec.containers).map((c, i) => ({ c, cp: ['spec', 'containers', i] })),
  ];
  // imagePullSecrets name Secrets holding registry credentials; runpod needs them in its input like any other.
  arr(spec.imagePullSecrets).forEach((s, i) => {
    if (isObj(s)) ref('Secret', s, 'name', [], ['spec', 'imagePullSecrets', i]);
  });
  containers.forEach(({ c, cp }) => {
    if (!isObj(c)) return;
    arr(c.env).forEach((e, i) => {
      if (!isObj(e) || !isObj(e.valueFrom)) return;
      const vf = e.valueFrom;
      const vp = [...cp, 'env', i, 'valueFrom'];
      if (isObj(vf.configMapKeyRef))
        ref('ConfigMap', vf.configMapKeyRef, 'name', typeof vf.configMapKeyRef.key === 'string' ? [vf.configMapKeyRef.key] : [], [...vp, 'configMapKeyRef']);
      if (isObj(vf.secretKeyRef)) ref('Secret', vf.secretKeyRef, 'name', typeof vf.secretKeyRef.key === 'string' ? [vf.secretKeyRef.key] : [], [...vp, 'secretKeyRef']);
    });
    arr(c.envFrom).forEach((e, i) => {
      if (!isObj(e)) return;
      if (isObj(e.configMapRef)) ref('ConfigMap', e.configMapRef, 'name', [], [...cp, 'envFrom', i, 'configMapRef']);
      if (isObj(e.secretRef)) ref('Secret', e.secretRef, 'name', [], [...cp, 'envFrom', i, 'secretRef']);
    });
  });
  arr(spec.volumes).forEach((v, i) => {
    if (!isObj(v)) return;
    const vp = ['spec', 'volumes', i];
    if (isObj(v.configMap)) ref('ConfigMap', v.configMap, 'name', itemKeys(v.configMap.items), [...vp, 'configMap']);
    if (isObj(v.secret)) ref('Secret', v.secret, 'secretName', itemKeys(v.secret.items), [...vp, 'secret']);
    if (isObj(v.projected)) {
      arr(v.projected.sources).forEach((s, j) => {
        if (!isObj(s)) return;
        const sp = [...vp, 'projected', 'sources', j];
        if (isObj(s.configMap)) ref('ConfigMap', s.configMap, 'name', itemKeys(s.configMap.items), [...sp, 'configMap']);
        if (isObj(s.secret)) ref('Secret', s.secret, 'name', itemKeys(s.secret.items), [...sp, 'secret']);
      });
    }
  });
  return out;
}

/**
 * Every ConfigMap and Secret a pod refers to must be in the input, in the pod's namespace, with the keys named,
 * unless the reference is optional (the kubelet would otherwise never start the container: CreateContainerConfigError,
 * or a volume that cannot mount). Returns the objects found, and problems at the references.
 */
/** The keys of a pull secret's Docker config, new and legacy form. */
export const pullSecretKey = '.dockerconfigjson';
export const legacyPullSecretKey = '.dockercfg';

export function resolveReferences(
  pod: Obj,
  namespace: string,
  byKey: ReadonlyMap<string, ConfigObject>,
  where: (path: PathSegment[]) => Omit<ManifestProblem, 'message'>,
  check: boolean,
): { configs: Map<string, ConfigObject>; problems: ManifestProblem[] } {
  const configs = new Map<string, ConfigObject>();
  const problems: ManifestProblem[] = [];
  const spec = isObj(pod.spec) ? pod.spec : {};
  for (const r of refsOf(spec)) {
    const found = byKey.get(`${namespace}/${configKey(r.kind, r.name)}`);
    if (found !== undefined) configs.set(configKey(r.kind, r.name), found);
    if (!check || r.optional) continue;
    if (found === undefined) {
      problems.push({
        ...where(r.path),
        message: `${r.kind} "${r.name}" is not in the input (namespace ${namespace}); runpod reads ConfigMaps and Secrets only from its input: add it, or mark the reference optional: true`,
      });
      continue;
    }
    for (const k of r.keys) {
      if (!(k in found.files)) problems.push({ ...where(r.path), message: `${r.kind} "${r.name}" has no key "${k}"; add it, or mark the reference optional: true` });
    }
    // A pull secret is a Docker config: kubernetes.io/dockerconfigjson (.dockerconfigjson) or the older
    // kubernetes.io/dockercfg (.dockercfg), as the kubelet reads them (pkg/credentialprovider/secrets).
    if (r.path.includes('imagePullSecrets') && !(pullSecretKey in found.files) && !(legacyPullSecretKey in found.files)) {
      problems.push({
        ...where(r.path),
        message: `Secret "${r.name}" holds no registry credentials: an image pull secret needs type kubernetes.io/dockerconfigjson with a .dockerconfigjson key`,
      });
    }
    // Env reads a ConfigMap's data only: a key only in binaryData is not there for configMapKeyRef.
    if (r.kind === 'ConfigMap' && r.path.includes('configMapKeyRef')) {
      for (const k of r.keys)
        if (k in found.files && !(k in found.strings))
          problems.push({ ...where(r.path), message: `ConfigMap "${r.name}" has key "${k}" only in binaryData, which env cannot read` });
    }
  }
  return { configs, problems };
}
