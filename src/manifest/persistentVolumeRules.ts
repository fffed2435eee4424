// The API server's rules for a PersistentVolume that its schema does not express (pkg/apis/core/validation:
// ValidatePersistentVolume, ValidatePersistentVolumeSpec), and runpod's limits for one host: a hostPath or local
// volume, Retain, a filesystem. The field table (fields.ts) has already refused the other sources by name. Pure.
import type { PathSegment } from '../kube/path.js';
import { type Obj, describe, isObj } from '../kube/object.js';
import { parseQuantity, quantityExample } from '../kube/syntax.js';
import type { ProblemSink } from './problems.js';
import { set } from './ruleHelpers.js';
import { hostPathTypes } from './volumeRules.js';

const accessModes = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];

/** An absolute path without a ".." element (validateLocalDescendingPath, validatePathNoBacksteps). */
function hostPath(v: unknown, p: PathSegment[], sink: ProblemSink): void {
  if (typeof v !== 'string' || v === '') sink.add(p, 'required');
  else if (!v.startsWith('/')) sink.add(p, 'must be an absolute path');
  else if (v.split('/').includes('..')) sink.add(p, "must not contain '..'");
}

/** ValidatePersistentVolumeSpec with runpod's limits. */
export function persistentVolumeSpecRules(spec: Obj, p: PathSegment[], sink: ProblemSink): void {
  const capacity = spec.capacity;
  const cp = [...p, 'capacity', 'storage'];
  if (!isObj(capacity) || !set(capacity.storage)) sink.add(cp, 'required (a quantity such as 10Gi: what a claim may request at most)');
  else if (!sink.has(cp)) {
    const q = parseQuantity(capacity.storage);
    if (q === undefined) sink.add(cp, `${quantityExample}, got ${describe(capacity.storage)}`);
    else if (q.negative || q.digits === 0n) sink.add(cp, 'must be greater than zero');
  }
  const modes = spec.accessModes;
  const mp = [...p, 'accessModes'];
  if (!set(modes)) sink.add(mp, 'required (ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod)');
  else if (Array.isArray(modes)) {
    if (modes.length === 0) sink.add(mp, 'must specify at least 1 access mode');
    else if (modes.includes('ReadWriteOncePod') && modes.length > 1) sink.add(mp, 'may not use ReadWriteOncePod with other access modes');
    modes.forEach((m, i) => {
      if (typeof m === 'string' && !accessModes.includes(m)) sink.add([...mp, i], `Unsupported value: ${m}: supported values: ${accessModes.join(', ')}`);
    });
  }
  // Exactly one source; the table refused every source but hostPath and local by name.
  const sources = (['hostPath', 'local'] as const).filter((k) => set(spec[k]));
  if (sources.length === 0 && !Object.keys(spec).some((k) => sink.has([...p, k]))) {
    sink.add(p, 'must specify a volume source: hostPath (a host directory) or local (an existing host directory)');
  } else if (sources.length > 1) sink.add([...p, sources[1]!], `may not specify more than 1 volume type (also ${sources[0]})`);
  const hp = spec.hostPath;
  if (isObj(hp)) {
    hostPath(hp.path, [...p, 'hostPath', 'path'], sink);
    if (set(hp.type) && !hostPathTypes.includes(String(hp.type))) sink.add([...p, 'hostPath', 'type'], `must be one of ${hostPathTypes.map((t) => JSON.stringify(t)).join(', ')}`);
  }
  const local = spec.local;
  if (isObj(local)) hostPath(local.path, [...p, 'local', 'path'], sink);
  // Recycle (deprecated) empties the volume and Delete removes it when its claim goes; runpod never touches the
  // host directory of a PersistentVolume, which is the user's.
  const policy = spec.persistentVolumeReclaimPolicy;
  if (typeof policy === 'string' && policy !== 'Retain') {
    const known = ['Retain', 'Delete', 'Recycle'];
    sink.add(
      [...p, 'persistentVolumeReclaimPolicy'],
      known.includes(policy)
        ? `${policy} is not supported by runpod: it never deletes or empties a PersistentVolume's host directory (it is yours); use Retain or leave it out`
        : `Unsupported value: ${policy}: supported values: ${known.join(', ')}`,
    );
  }
  if (spec.volumeMode === 'Block') sink.add([...p, 'volumeMode'], 'not supported by runpod (a hostPath or local volume is mounted as a filesystem; use Filesystem)');
  const ref = spec.claimRef;
  if (isObj(ref)) {
    const rp = [...p, 'claimRef'];
    if (typeof ref.name !== 'string' || ref.name === '') sink.add([...rp, 'name'], 'required (the claim this volume is reserved for)');
    if (set(ref.kind) && ref.kind !== 'PersistentVolumeClaim') sink.add([...rp, 'kind'], `Unsupported value: ${describe(ref.kind)}: supported values: PersistentVolumeClaim`);
    if (set(ref.apiVersion) && ref.apiVersion !== 'v1') sink.add([...rp, 'apiVersion'], `Unsupported value: ${describe(ref.apiVersion)}: supported values: v1`);
  }
}
