// Binding the input's claims to its PersistentVolumes, as the PV controller does on a one-node cluster
// (pkg/controller/volume/persistentvolume: syncUnboundClaim, checkVolumeSatisfyClaim; index.go findByClaim with
// util.FindMatchingVolume). Pure: validated objects in, bindings, refusals and warnings out.
//
// - A claim with spec.volumeName binds that volume only: one reserved for it (claimRef) at once; an unreserved one
//   when it satisfies the claim (capacity >= request, the same class, volumeMode, access modes); else it stays Pending.
// - Any other claim binds, among the volumes it may take (unreserved, or reserved for it) that offer all its access
//   modes: the one reserved for it (with capacity and volumeMode fitting), else the smallest one of its class whose
//   labels its selector matches, preferring volumes with fewer access modes (the index's order).
// - A claim without storageClassName gets the default class (the DefaultStorageClass admission plugin does so on a
//   cluster with a default class, as every one-node distribution has): runpod's default class is its local engine
//   volume, which no PersistentVolume belongs to. A volume without a class binds only claims of class "".
// - A claim that binds nothing stays Pending on a cluster when nothing can provision it: class "" (never
//   provisioned), a selector (provisioners refuse one), a volumeName, or a class only the input's
//   PersistentVolumes name (there is no StorageClass on one host: "manual" is just a name). Its pods would never
//   start, so runpod refuses it at load time, saying why each volume does not fit. Any other claim is provisioned
//   by runpod's default provisioner: a local engine volume, as before PersistentVolumes existed.
import { memoryBytes } from '../kube/quantity.js';
import { type Selector, labelSelectorFrom, selectorMatches } from '../kube/selector.js';
import { type Obj, isObj } from '../kube/object.js';

/** Where a PersistentVolume's data is: a hostPath (its type checked as a hostPath volume's) or a local directory. */
export type VolumeSource = { type: 'hostPath'; path: string; hostPathType: string } | { type: 'local'; path: string };

/** A validated PersistentVolume of the input. */
export interface VolumeObject {
  name: string;
  file: string;
  line: number;
  capacityBytes: number;
  capacity: string;
  accessModes: readonly string[];
  /** '' when unset. */
  storageClassName: string;
  labels: Readonly<Record<string, string>>;
  claimRef?: { namespace: string; name: string };
  source: VolumeSource;
}

/** A claim of the input (a PersistentVolumeClaim, or a StatefulSet ordinal's claim from its template). */
export interface ClaimRequest {
  namespace: string;
  name: string;
  file: string;
  line: number;
  /** The field path of the claim's spec, for messages ("spec", "spec.volumeClaimTemplates[0].spec"). */
  at: string;
  requestBytes: number;
  request: string;
  accessModes: readonly string[];
  /** undefined: not given (the default class). */
  storageClassName?: string;
  volumeName?: string;
  selector?: Selector;
}

/** What a bound claim's pods mount. */
export interface BoundVolume {
  volume: string;
  source: VolumeSource;
}

export interface BindingResult {
  /** namespace/claim → its volume; claims absent here are local engine volumes. */
  bound: Map<string, BoundVolume>;
  /** The field the refusal is about (relative to the claim's spec). */
  refused: Array<{ claim: ClaimRequest; field?: 'storageClassName' | 'volumeName' | 'selector'; message: string }>;
  warnings: Array<{ claim: ClaimRequest; field: 'storageClassName'; message: string }>;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const modes = (v: unknown): string[] => (Array.isArray(v) ? v.filter((m): m is string => typeof m === 'string') : []);
function strings(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (isObj(v)) for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}

/** A validated PersistentVolume as binding reads it. */
export function volumeObject(value: Obj, file: string, line: number): VolumeObject {
  const meta = isObj(value.metadata) ? value.metadata : {};
  const spec = isObj(value.spec) ? value.spec : {};
  const capacity = isObj(spec.capacity) ? String(spec.capacity.storage) : '0';
  const ref = isObj(spec.claimRef) ? spec.claimRef : undefined;
  const hp = isObj(spec.hostPath) ? spec.hostPath : undefined;
  const local = isObj(spec.local) ? spec.local : {};
  return {
    name: String(meta.name),
    file,
    line,
    capacityBytes: memoryBytes(capacity) ?? 0,
    capacity,
    accessModes: modes(spec.accessModes),
    storageClassName: str(spec.storageClassName) ?? '',
    labels: strings(meta.labels),
    ...(ref !== undefined ? { claimRef: { namespace: str(ref.namespace) || 'default', name: String(ref.name) } } : {}),
    source: hp !== undefined ? { type: 'hostPath', path: String(hp.path), hostPathType: str(hp.type) ?? '' } : { type: 'local', path: String(local.path) },
  };
}

/** A validated claim spec (a PersistentVolumeClaim's, or a claim template's) as binding reads it. */
export function claimRequest(spec: Obj, namespace: string, name: string, where: { file: string; line: number; at: string }): ClaimRequest {
  const requests = isObj(spec.resources) && isObj(spec.resources.requests) ? spec.resources.requests : {};
  const request = String(requests.storage ?? '0');
  const sel = isObj(spec.selector) ? labelSelectorFrom(spec.selector as Parameters<typeof labelSelectorFrom>[0]) : undefined;
  const selector = sel !== undefined && !(sel.length > 0 && typeof sel[0] === 'string') ? (sel as Selector) : undefined;
  const className = str(spec.storageClassName);
  const volumeName = str(spec.volumeName);
  return {
    namespace,
    name,
    ...where,
    requestBytes: memoryBytes(request) ?? 0,
    request,
    accessModes: modes(spec.accessModes),
    ...(className !== undefined ? { storageClassName: className } : {}),
    ...(volumeName !== undefined && volumeName !== '' ? { volumeName } : {}),
    ...(selector !== undefined ? { selector } : {}),
  };
}

const key = (namespace: string, name: string): string => `${namespace}/${name}`;
const reservedFor = (v: VolumeObject, c: ClaimRequest): boolean => v.claimRef !== undefined && v.claimRef.namespace === c.namespace && v.claimRef.name === c.name;
/** The claim's class: its own, else the default class (no volume has it). */
const defaultClass = Symbol('default class');
const classOf = (c: ClaimRequest): string | typeof defaultClass => c.storageClassName ?? defaultClass;
const showClass = (c: ClaimRequest): string => (c.storageClassName === undefined ? 'the default class (unset)' : `"${c.storageClassName}"`);

/** Why a volume cannot bind the claim; undefined when it can. `taken` names a volume's claim from this pass. */
function misfit(v: VolumeObject, c: ClaimRequest, taken: ReadonlyMap<string, string>, checkSelector: boolean): string | undefined {
  const holder = taken.get(v.name);
  if (holder !== undefined) return `is bound to claim ${holder}`;
  if (v.claimRef !== undefined && !reservedFor(v, c)) return `is reserved for claim ${key(v.claimRef.namespace, v.claimRef.name)} (spec.claimRef)`;
  if (v.capacityBytes < c.requestBytes) return `has capacity ${v.capacity}, less than the ${c.request} requested`;
  const missing = c.accessModes.filter((m) => !v.accessModes.includes(m));
  if (missing.length > 0) return `does not offer access mode ${missing.join(', ')} (it offers ${v.accessModes.join(', ')})`;
  if (reservedFor(v, c)) return undefined;
  if (classOf(c) !== v.storageClassName) return `has storageClassName ${v.storageClassName === '' ? 'unset ("")' : `"${v.storageClassName}"`}, the claim ${showClass(c)}`;
  if (checkSelector && c.selector !== undefined && !selectorMatches(c.selector, v.labels)) return "has labels the claim's spec.selector does not match";
  return undefined;
}

/** Bind every claim it can; refuse the claims that would stay Pending (see the rules above). */
export function bindClaims(claims: readonly ClaimRequest[], volumes: readonly VolumeObject[]): BindingResult {
  const result: BindingResult = { bound: new Map(), refused: [], warnings: [] };
  const byName = new Map(volumes.map((v) => [v.name, v]));
  const taken = new Map<string, string>();
  const bind = (c: ClaimRequest, v: VolumeObject): void => {
    taken.set(v.name, key(c.namespace, c.name));
    result.bound.set(key(c.namespace, c.name), { volume: v.name, source: v.source });
  };
  const refuse = (c: ClaimRequest, field: 'storageClassName' | 'volumeName' | 'selector', why: string, hint: string): void => {
    result.refused.push({ claim: c, field, message: `the claim binds no PersistentVolume: ${why}; on a cluster it would stay Pending and its pods never start: ${hint}` });
  };
  const reasons = (c: ClaimRequest, vs: readonly VolumeObject[]): string =>
    vs.length === 0 ? 'the input has no PersistentVolume' : vs.map((v) => `PersistentVolume ${v.name} ${misfit(v, c, taken, true) ?? 'fits'}`).join('; ');
  // Claims naming their volume first (the user's binding), then the input's order.
  const ordered = [...claims.filter((c) => c.volumeName !== undefined), ...claims.filter((c) => c.volumeName === undefined)];
  for (const c of ordered) {
    if (c.volumeName !== undefined) {
      const v = byName.get(c.volumeName);
      if (v === undefined) {
        refuse(
          c,
          'volumeName',
          `the input has no PersistentVolume ${c.volumeName}, the only volume this claim may bind`,
          'add that PersistentVolume to the input, or drop volumeName',
        );
        continue;
      }
      // syncUnboundClaim: a volume reserved for the claim binds at once; an unreserved one after checkVolumeSatisfyClaim
      // (which does not read the claim's selector).
      const why = misfit(v, c, taken, false);
      if (why !== undefined) refuse(c, 'volumeName', `PersistentVolume ${v.name} ${why}`, 'make the claim fit the volume, or drop volumeName');
      else bind(c, v);
      continue;
    }
    const candidates = volumes.filter((v) => misfit(v, c, taken, true) === undefined);
    const reserved = candidates.find((v) => reservedFor(v, c));
    const best = reserved ?? [...candidates].sort((a, b) => a.accessModes.length - b.accessModes.length || a.capacityBytes - b.capacityBytes)[0];
    if (best !== undefined) {
      bind(c, best);
      continue;
    }
    const sameClass = volumes.filter((v) => c.storageClassName !== undefined && v.storageClassName === c.storageClassName);
    const classless = volumes.filter((v) => v.storageClassName === '');
    if (c.storageClassName === '')
      refuse(
        c,
        'storageClassName',
        `class "" binds only a PersistentVolume without a class, and none fits (${reasons(c, classless)}); nothing provisions class ""`,
        'add a PersistentVolume that fits, or drop storageClassName for a local engine volume',
      );
    else if (c.selector !== undefined)
      refuse(
        c,
        'selector',
        `none of the input fits (${reasons(c, volumes)}); a claim with a selector is never provisioned`,
        'add a PersistentVolume that fits, or drop the selector for a local engine volume',
      );
    else if (sameClass.length > 0) {
      refuse(
        c,
        'storageClassName',
        `class "${c.storageClassName!}" is a class of the input's PersistentVolumes only, and none fits (${reasons(c, sameClass)})`,
        'add a PersistentVolume that fits, or drop storageClassName for a local engine volume',
      );
    } else if (c.storageClassName === undefined) {
      // A volume of no class that would fit but for the class: on a cluster with a default class it stays Available.
      const would = classless.filter((v) => misfit(v, { ...c, storageClassName: '' }, taken, true) === undefined);
      if (would.length > 0) {
        result.warnings.push({
          claim: c,
          field: 'storageClassName',
          message: `not bound to PersistentVolume ${would.map((v) => v.name).join(', ')} (no storageClassName): a claim without one gets the default class, as on a cluster with a default StorageClass, and is a local engine volume; write storageClassName: "" to bind it`,
        });
      }
    } else {
      result.warnings.push({
        claim: c,
        field: 'storageClassName',
        message: `storageClassName "${c.storageClassName}": no PersistentVolume of the input has this class, so runpod provisions the claim as its default class does: a local engine volume`,
      });
    }
  }
  return result;
}
