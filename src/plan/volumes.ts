// spec.volumes and volumeMounts → what the engine must hold (pure). Each volume becomes one of:
// - emptyDir: a named engine volume owned by the pod (named by uid, volume and its spec), kept across re-runs of
//   the same pod and removed by `runpod down`; medium Memory is a tmpfs volume, sizeLimit its size;
// - hostPath: a bind mount, its `type` checked on the engine host at apply time (reconcile/volumes.ts);
// - configMap, secret, downwardAPI, projected: the files the kubelet would write, rendered here as data (so the
//   hashes cover them) into a content-addressed named volume, mounted read-only as Kubernetes always does;
// - persistentVolumeClaim: a named engine volume pvc_<namespace>_<claim> (pvc_<namespace>.<key>_<claim> under an
//   isolation key) that outlives the pod.
// Besides spec.volumes, runpod keeps one volume of its own per pod for the containers' termination messages
// (terminationLogVolume below).
import type { Container, KeyToPath, Pod, VolumeMount } from 'kubernetes-types/core/v1.js';
import type { CreateOptions } from '../engine/ports/containers.js';
import { type ConfigObject, configKey } from '../manifest/types.js';
import { type EnvContext, fieldValue, resourceValue } from './env.js';
import { Label, managedByValue } from '../kube/labels.js';
import { namespacePart, specHash } from '../kube/names.js';
import { projectLabels } from '../kube/project.js';
import { memoryBytes } from '../kube/quantity.js';
import { runtimeRef } from './runtime.js';
import { apiAtLeast, EngineFeature, type EngineFacts } from '../engine/ports/facts.js';
import { defaultPullPolicy } from '../imageRef.js';

/**
 * An image volume's source (ImageVolumeSource, Kubernetes 1.31+; newer than the kubernetes-types runpod builds with):
 * an OCI image reference and its pull policy.
 */
export interface ImageVolumeSource {
  reference?: string;
  pullPolicy?: string;
}

/** A volume's `image` source, when it is an image volume. */
export function imageVolumeSource(v: object): ImageVolumeSource | undefined {
  const image = (v as { image?: ImageVolumeSource | null }).image;
  return image ?? undefined;
}

export type Mount = NonNullable<NonNullable<CreateOptions['HostConfig']>['Mounts']>[number];

/** One file of a configMap, secret, downwardAPI or projected volume, as the kubelet's AtomicWriter writes it. */
export interface RenderedFile {
  /** Relative to the volume root. */
  path: string;
  mode: number;
  /** Owner: the one user every container mounting the volume runs as (runAsUser), else root. */
  uid: number;
  /** Group owner: the pod's fsGroup, else root. */
  gid: number;
  /** The bytes, base64. */
  content: string;
  /** From a Secret: never printed. */
  secret: boolean;
}

interface VolumeBase {
  /** The name in spec.volumes. */
  name: string;
}
export type PlannedVolume =
  | (VolumeBase & { type: 'emptyDir'; engineName: string; medium: '' | 'Memory'; sizeBytes?: number; gid?: number; labels: Record<string, string> })
  | (VolumeBase & {
      type: 'hostPath';
      path: string;
      hostPathType: string;
      /** A claim bound to a hostPath or local PersistentVolume of the input (manifest/volumeBinding.ts). */
      claim?: { name: string; volume: string };
      readOnly?: boolean;
    })
  | (VolumeBase & { type: 'configMap' | 'secret' | 'downwardAPI' | 'projected'; engineName: string; files: RenderedFile[]; labels: Record<string, string> })
  | (VolumeBase & {
      type: 'persistentVolumeClaim';
      engineName: string;
      claimName: string;
      readOnly: boolean;
      labels: Record<string, string>;
      /** The pod's fsGroup, applied to the claim's files as the kubelet applies it (reconcile/volumeOwnership.ts). */
      fsGroup?: { gid: number; policy: 'Always' | 'OnRootMismatch' };
    });

export type EngineVolume = Extract<PlannedVolume, { engineName: string }>;

/** Label keys on the volumes runpod creates (besides managed-by and the pod's namespace, name and uid). */
export const VolumeLabel = {
  name: 'io.runpod.volume.name',
  type: 'io.runpod.volume.type',
  claim: 'io.runpod.pvc.name',
} as const;

/** Labels of a volume owned by the pod: runpod's, the pod's namespace, name and uid, and the volume's own. */
function podVolumeLabels(pod: EnvContext['pod'], uid: string, type: string, name?: string, project?: string): Record<string, string> {
  return {
    [Label.managedBy]: managedByValue,
    ...projectLabels(project),
    [Label.podNamespace]: pod.metadata.namespace,
    [Label.podName]: pod.metadata.name,
    [Label.podUid]: uid,
    ...(name !== undefined ? { [VolumeLabel.name]: name } : {}),
    [VolumeLabel.type]: type,
  };
}

/** SetDefaults_*VolumeSource: defaultMode 0644. */
const defaultFileMode = 0o644;
/** The kubelet makes an emptyDir world-writable (0777), so any user in the pod can use it. */
export const emptyDirMode = 0o777;

/** A claim's engine volume: pvc_<namespace>_<claim>, or pvc_<namespace>.<key>_<claim> under an isolation key. */
export function claimVolumeName(namespace: string, claim: string, project: string | undefined): string {
  return `pvc_${namespacePart(namespace, project)}_${claim}`;
}

/** A claim's engine volume and its labels: not a pod's (a claim outlives its pods and may be shared), its own. */
export function claimVolume(namespace: string, claim: string, project: string | undefined): { engineName: string; labels: Record<string, string> } {
  return {
    engineName: claimVolumeName(namespace, claim, project),
    labels: {
      [Label.managedBy]: managedByValue,
      ...projectLabels(project),
      [Label.podNamespace]: namespace,
      [VolumeLabel.claim]: claim,
      [VolumeLabel.type]: 'persistentVolumeClaim',
    },
  };
}

/** Docker allows [a-zA-Z0-9][a-zA-Z0-9_.-] in volume names; Kubernetes names fit (no '_', so '_' separates). */
function podVolumeName(uid: string, volume: string, hashOf: unknown): string {
  return `runpod_${uid}_${volume}_${specHash(hashOf).slice(0, 12)}`;
}

export function planVolumes(ctx: EnvContext): PlannedVolume[] {
  const { pod, uid, project } = ctx;
  const podLabels = (name: string, type: string): Record<string, string> => podVolumeLabels(pod, uid, type, name, project);
  // pod.spec.securityContext.fsGroup owns configMap, secret, downwardAPI and projected files (SetVolumeOwnership).
  const fsGroup = (pod.spec.securityContext as { fsGroup?: number } | undefined)?.fsGroup;
  const out: PlannedVolume[] = [];
  for (const v of pod.spec.volumes ?? []) {
    if (v.emptyDir) {
      const medium: '' | 'Memory' = v.emptyDir.medium === 'Memory' ? 'Memory' : '';
      // Only tmpfs can be limited on Docker; a disk sizeLimit is warned about at load time and not enforced.
      const size = medium === 'Memory' && v.emptyDir.sizeLimit !== undefined ? memoryBytes(v.emptyDir.sizeLimit) : undefined;
      // With an fsGroup the kubelet gives an emptyDir to that group, setgid, so files made in it stay the
      // group's (pkg/volume/emptydir: SetVolumeOwnership).
      const spec = { medium, ...(size !== undefined ? { sizeBytes: size } : {}), ...(fsGroup !== undefined ? { gid: fsGroup } : {}) };
      out.push({ name: v.name, type: 'emptyDir', engineName: podVolumeName(uid, v.name, spec), ...spec, labels: podLabels(v.name, 'emptyDir') });
    } else if (v.hostPath) {
      out.push({ name: v.name, type: 'hostPath', path: v.hostPath.path, hostPathType: v.hostPath.type ?? '' });
    } else if (v.persistentVolumeClaim && ctx.boundClaims?.has(v.persistentVolumeClaim.claimName) === true) {
      // A claim bound to a PersistentVolume: its pods mount the volume's host path, as the kubelet mounts a hostPath
      // or local PV (a local PV's path must be an existing directory: type Directory). No engine volume is made,
      // and nothing runpod does removes the directory (down, --delete-claims and gc remove engine volumes only).
      const claim = v.persistentVolumeClaim.claimName;
      const b = ctx.boundClaims.get(claim)!;
      out.push({
        name: v.name,
        type: 'hostPath',
        path: b.source.path,
        hostPathType: b.source.type === 'hostPath' ? b.source.hostPathType : 'Directory',
        claim: { name: claim, volume: b.volume },
        ...(v.persistentVolumeClaim.readOnly === true ? { readOnly: true } : {}),
      });
    } else if (v.persistentVolumeClaim) {
      const claim = v.persistentVolumeClaim.claimName;
      // A claim supports ownership management: the kubelet applies fsGroup to it (SetVolumeOwnership), by
      // fsGroupChangePolicy (default Always).
      const policy = (pod.spec.securityContext as { fsGroupChangePolicy?: string } | undefined)?.fsGroupChangePolicy === 'OnRootMismatch' ? 'OnRootMismatch' : 'Always';
      out.push({
        name: v.name,
        type: 'persistentVolumeClaim',
        ...claimVolume(pod.metadata.namespace, claim, project),
        claimName: claim,
        readOnly: v.persistentVolumeClaim.readOnly === true,
        ...(fsGroup !== undefined ? { fsGroup: { gid: fsGroup, policy } } : {}),
      });
    } else {
      const files = renderFiles(v, ctx, fsGroup, volumeUser(pod, v.name));
      if (files === undefined) continue;
      const type = v.configMap ? 'configMap' : v.secret ? 'secret' : v.downwardAPI ? 'downwardAPI' : 'projected';
      // Content-addressed: changed data is a new volume, mounted by new instances of the containers using it,
      // while the old volume stays whole for any instance still running (removed once unused).
      out.push({ name: v.name, type, engineName: podVolumeName(uid, v.name, files), files, labels: podLabels(v.name, type) });
    }
  }
  return out;
}

type Volume = NonNullable<NonNullable<Pod['spec']>['volumes']>[number];

/**
 * The user that owns a volume's rendered files: the runAsUser (container's, else the pod's) shared by every
 * container that mounts it, else root. Kubernetes leaves such files root-owned and world-readable (0644); runpod
 * keeps secret files from the world (see add below), so they belong to the user who must read them.
 */
function volumeUser(pod: EnvContext['pod'], volume: string): number {
  const podUser = (pod.spec.securityContext as { runAsUser?: number } | undefined)?.runAsUser;
  const users = new Set<number | undefined>();
  for (const c of [...(pod.spec.initContainers ?? []), ...pod.spec.containers]) {
    if (!(c.volumeMounts ?? []).some((m) => m.name === volume)) continue;
    users.add((c.securityContext as { runAsUser?: number } | undefined)?.runAsUser ?? podUser);
  }
  const [only] = users;
  return users.size === 1 && only !== undefined ? only : 0;
}

function renderFiles(v: Volume, ctx: EnvContext, fsGroup: number | undefined, uid: number): RenderedFile[] | undefined {
  const files: RenderedFile[] = [];
  const gid = fsGroup ?? 0;
  const add = (path: string, mode: number, content: string, secret: boolean): void => {
    // Secret files are never world-readable (runpod's rule: the volume lives on the engine's disk, not tmpfs).
    let m = secret ? mode & 0o770 : mode;
    // With an fsGroup the kubelet makes every file group-readable (SetVolumeOwnership, read-only volumes).
    if (fsGroup !== undefined) m |= 0o040;
    files.push({ path: normalize(path), mode: m, uid, gid, content, secret });
  };
  const fromObject = (kind: 'ConfigMap' | 'Secret', name: string | undefined, items: KeyToPath[] | undefined, defaultMode: number): void => {
    const obj: ConfigObject | undefined = ctx.configs.get(configKey(kind, name ?? ''));
    // An optional object that is missing gives no files (the loader refused a missing required one).
    if (obj === undefined) return;
    const secret = kind === 'Secret';
    if (items === undefined || items.length === 0) {
      for (const key of Object.keys(obj.files).sort()) add(key, defaultMode, obj.files[key]!, secret);
      return;
    }
    for (const it of items) {
      const content = obj.files[it.key];
      if (content !== undefined) add(it.path, it.mode ?? defaultMode, content, secret);
    }
  };
  const downward = (items: NonNullable<NonNullable<Volume['downwardAPI']>['items']>, defaultMode: number): void => {
    const containers = [...(ctx.pod.spec.initContainers ?? []), ...ctx.pod.spec.containers];
    for (const it of items) {
      let value = '';
      if (it.fieldRef) value = fieldValue(it.fieldRef.fieldPath, ctx);
      else if (it.resourceFieldRef) {
        const c: Container | undefined = containers.find((x) => x.name === it.resourceFieldRef!.containerName);
        if (c !== undefined) value = resourceValue(c, it.resourceFieldRef.resource, it.resourceFieldRef.divisor);
      }
      add(it.path, it.mode ?? defaultMode, Buffer.from(value, 'utf8').toString('base64'), false);
    }
  };
  if (v.configMap) fromObject('ConfigMap', v.configMap.name, v.configMap.items, v.configMap.defaultMode ?? defaultFileMode);
  else if (v.secret) fromObject('Secret', v.secret.secretName, v.secret.items, v.secret.defaultMode ?? defaultFileMode);
  else if (v.downwardAPI) downward(v.downwardAPI.items ?? [], v.downwardAPI.defaultMode ?? defaultFileMode);
  else if (v.projected) {
    const mode = v.projected.defaultMode ?? defaultFileMode;
    for (const s of v.projected.sources ?? []) {
      if (s.configMap) fromObject('ConfigMap', s.configMap.name, s.configMap.items, mode);
      else if (s.secret) fromObject('Secret', s.secret.name, s.secret.items, mode);
      else if (s.downwardAPI) downward(s.downwardAPI.items ?? [], mode);
    }
  } else return undefined;
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function normalize(p: string): string {
  return p
    .split('/')
    .filter((x) => x !== '' && x !== '.')
    .join('/');
}

/**
 * Every emptyDir is also mounted into the infra container, which lives as long as the pod: a tmpfs volume stays
 * mounted (and keeps its files) while app containers restart, as the kubelet keeps a pod's emptyDir until the pod
 * is deleted. As part of the infra create options, an emptyDir's spec is a pod-level field (design.md).
 */
export function infraMounts(volumes: readonly PlannedVolume[]): Mount[] {
  return volumes
    .filter((v): v is Extract<PlannedVolume, { type: 'emptyDir' }> => v.type === 'emptyDir')
    .map((v) => ({ Type: 'volume', Source: v.engineName, Target: `/runpod/volumes/${v.name}`, VolumeOptions: { NoCopy: true } }) as Mount);
}

/** A subPath inside a named volume: apply makes sure it exists, and is not a symlink, before binding it. */
export interface SubPathNeed {
  engineName: string;
  subPath: string;
  /** Mode for a directory apply creates: the volume root's (the kubelet's SafeMakeDir uses the parent's mode). */
  mode: number;
}

const propagation: Record<string, 'rprivate' | 'rslave' | 'rshared'> = { None: 'rprivate', HostToContainer: 'rslave', Bidirectional: 'rshared' };

/** A container's volumeMounts as engine mounts, in the order written. */
/** What mounting depends on beyond the Pod: the engine's Engine API version (engine/ports/facts.ts). */
export interface MountContext {
  /** undefined (a dry run with no engine, unit tests): no option that depends on the engine's version is set. */
  facts?: Pick<EngineFacts, 'apiVersion'>;
}

/** An image a container's image volume mounts: made present before the container is created, by its pull policy. */
export interface VolumeImage {
  image: string;
  pullPolicy: 'Always' | 'IfNotPresent' | 'Never';
}

/**
 * The pod's image volumes (KEP-4639) by name: reference and pull policy (default as a container's: Always for :latest
 * or no tag, else IfNotPresent). The engine mounts the image itself, so nothing is made for them.
 */
export function imageVolumes(pod: Pick<Pod, 'spec'>): Map<string, VolumeImage> {
  const out = new Map<string, VolumeImage>();
  for (const v of pod.spec?.volumes ?? []) {
    const src = imageVolumeSource(v);
    if (src?.reference === undefined) continue;
    const policy = src.pullPolicy === 'Always' || src.pullPolicy === 'IfNotPresent' || src.pullPolicy === 'Never' ? src.pullPolicy : defaultPullPolicy(src.reference);
    out.set(v.name, { image: src.reference, pullPolicy: policy });
  }
  return out;
}

/**
 * recursiveReadOnly of a read-only bind mount as BindOptions (the kubelet's RRO, KEP-3857). Docker 25 (Engine API
 * 1.44) makes a read-only bind recursively read-only where the kernel can (5.12+) and added ReadOnlyNonRecursive to opt
 * out and ReadOnlyForceRecursive to fail when it cannot; before 1.44 every read-only mount is non-recursive
 * (https://docs.docker.com/reference/api/engine/version/v1.44/, Mount.BindOptions). So:
 * - Disabled (the default when unset): ReadOnlyNonRecursive on 1.44+; plain read-only before;
 * - IfPossible: plain read-only: recursive where the engine can (1.44+), not recursive before (the kubelet's fallback);
 * - Enabled: ReadOnlyForceRecursive on 1.44+ (the create fails if the kernel cannot); refused before
 *   (engineSupport.ts).
 */
function recursiveReadOnlyOptions(m: VolumeMount, ctx: MountContext): { ReadOnlyNonRecursive?: boolean; ReadOnlyForceRecursive?: boolean } {
  if (m.readOnly !== true || ctx.facts === undefined || !apiAtLeast(ctx.facts, EngineFeature.recursiveReadOnly.api)) return {};
  if (m.recursiveReadOnly === 'Enabled') return { ReadOnlyForceRecursive: true };
  if (m.recursiveReadOnly === 'IfPossible') return {};
  return { ReadOnlyNonRecursive: true };
}

export function containerMounts(
  mounts: readonly VolumeMount[] | undefined,
  volumes: readonly PlannedVolume[],
  images: ReadonlyMap<string, VolumeImage> = new Map(),
  ctx: MountContext = {},
): { mounts: Mount[]; subPaths: SubPathNeed[]; volumeImages: VolumeImage[] } {
  const byName = new Map(volumes.map((v) => [v.name, v]));
  const out: Mount[] = [];
  const subPaths: SubPathNeed[] = [];
  const volumeImages: VolumeImage[] = [];
  for (const m of mounts ?? []) {
    const image = images.get(m.name);
    if (image !== undefined) {
      // An image volume is always read-only (KEP-4639); a subPath is a directory inside the image (ImageOptions.Subpath).
      const sub = m.subPath ? normalize(m.subPath) : '';
      out.push({ Type: 'image', Source: image.image, Target: m.mountPath, ReadOnly: true, ...(sub ? { ImageOptions: { Subpath: sub } } : {}) } as Mount);
      if (!volumeImages.some((i) => i.image === image.image)) volumeImages.push(image);
      continue;
    }
    const v = byName.get(m.name);
    if (v === undefined) continue; // a mount of an undeclared volume was refused by validation
    const sub = m.subPath ? normalize(m.subPath) : '';
    // Kubernetes mounts configMap, secret, downwardAPI and projected volumes read-only, whatever readOnly says.
    const files = v.type === 'configMap' || v.type === 'secret' || v.type === 'downwardAPI' || v.type === 'projected';
    const readOnly = files || m.readOnly === true || ((v.type === 'persistentVolumeClaim' || v.type === 'hostPath') && v.readOnly === true);
    // BindOptions apply to bind mounts only (the engine refuses them on a volume mount). A named volume mounted
    // whole has no mounts under it, so recursive or not is the same there.
    const bindOptions = { ...(m.mountPropagation !== undefined ? { Propagation: propagation[m.mountPropagation] ?? 'rprivate' } : {}), ...recursiveReadOnlyOptions(m, ctx) };
    const bind = Object.keys(bindOptions).length > 0 ? { BindOptions: bindOptions } : {};
    if (v.type === 'hostPath') {
      out.push({ Type: 'bind', Source: sub ? `${v.path.replace(/\/+$/, '')}/${sub}` : v.path, Target: m.mountPath, ReadOnly: readOnly, ...bind } as Mount);
    } else if (sub === '') {
      out.push({ Type: 'volume', Source: v.engineName, Target: m.mountPath, ReadOnly: readOnly, VolumeOptions: { NoCopy: true } } as Mount);
    } else {
      // Docker before 26 has no volume subpath option: bind the volume's directory on the engine host joined with
      // the subPath (design.md), known at apply time.
      subPaths.push({ engineName: v.engineName, subPath: sub, mode: v.type === 'emptyDir' ? emptyDirMode : 0o755 });
      out.push({ Type: 'bind', Source: `${runtimeRef(`mountpoint/${v.engineName}`)}/${sub}`, Target: m.mountPath, ReadOnly: readOnly, ...bind } as Mount);
    }
  }
  return { mounts: out, subPaths, volumeImages };
}

/**
 * runpod's own volume for the termination messages of the pod's containers: not in spec.volumes, created on
 * demand, labelled as the pod's (so `runpod down`, `gc` and `--prune` remove it with the pod's other volumes).
 * Its name ends without a content hash, so it cannot meet a spec volume's runpod_<uid>_<volume>_<hash>.
 */
export interface TerminationLogVolume {
  type: 'terminationLog';
  engineName: string;
  labels: Record<string, string>;
}

export function terminationLogVolume(pod: EnvContext['pod'], uid: string, project?: string): TerminationLogVolume {
  return { type: 'terminationLog', engineName: `runpod_${uid}_termination-log`, labels: podVolumeLabels(pod, uid, 'terminationLog', undefined, project) };
}

/**
 * The kubelet creates a container's termination-message file empty and chmods it 0666 whatever the umask, so
 * that any user the container runs as can write it (pkg/kubelet/kuberuntime/kuberuntime_container.go, makeMounts).
 */
export const terminationFileMode = 0o666;

/**
 * One file per container instance, as the kubelet makes one per instance (makeMounts: the pod's container
 * directory plus a random id), so a message is never read for an instance that did not write it:
 * <init|app>_<container>_<attempt>. Container names are DNS labels (no '_'), and the kind keeps an init and an
 * app container of one name apart.
 */
export function terminationFile(container: string, init: boolean, attempt: number): string {
  return `${init ? 'init' : 'app'}_${container}_${attempt}`;
}

/**
 * Where the infra container holds the pod's termination-log volume: runpod writes each instance's empty file
 * through it (PUT archive), with no helper container, and the volume is in use for as long as the pod is, so
 * `docker volume prune` leaves it alone. Not in the infra container's hash: a sandbox made before it is kept.
 */
export const infraTerminationLogPath = '/runpod-termination-log';

export function infraTerminationMount(volume: TerminationLogVolume): Mount {
  return { Type: 'volume', Source: volume.engineName, Target: infraTerminationLogPath } as Mount;
}

/**
 * The bind of an instance's file at its terminationMessagePath, as the kubelet binds its host file there
 * (writable whatever readOnlyRootFilesystem says). Docker before 26 cannot mount a file of a named volume, so,
 * as for a subPath, the volume's directory on the engine host is resolved at apply time.
 */
export function terminationMount(volume: TerminationLogVolume, file: string, target: string): Mount {
  return { Type: 'bind', Source: `${runtimeRef(`mountpoint/${volume.engineName}`)}/${file}`, Target: target } as Mount;
}

/** In the pod's runpod volume: the service account directory (its namespace file) and a resolv.conf (podFiles.ts). */
export const podFileDir = 'serviceaccount';
export const resolvConfFile = 'resolv.conf';

/** A read-only bind of a pod file (or directory) of the pod's runpod volume, resolved at apply time as terminationMount. */
export function podFileMount(volume: TerminationLogVolume, file: string, target: string): Mount {
  return { Type: 'bind', Source: `${runtimeRef(`mountpoint/${volume.engineName}`)}/${file}`, Target: target, ReadOnly: true } as Mount;
}
