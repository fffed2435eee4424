// The apply step for volumes: make the plan's volumes real on the engine before the containers that mount them
// are created, and resolve the runtime markers (plan/runtime.ts) in their create options.
//
// Named volumes carry runpod's labels (managed-by, the pod's namespace, name and uid, the volume's name and type)
// and are filled through the engine only: a short-lived helper container of runpod's own infra image mounts the
// volume (created, never started) and the files go in with PUT /containers/{id}/archive as a tar with their modes
// and owners; then the helper is removed. Nothing is written outside the engine's own storage, so this works the
// same on a remote engine. hostPath type checks need the engine's filesystem, so they run only on a local engine.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ContainerLifecycle, ContainerPort, ContainerReader, CreateOptions } from '../engine/ports/containers.js';
import type { HostPort } from '../engine/ports/host.js';
import { EngineRequestError } from '../engine/ports/errors.js';
import type { VolumeInfo, VolumePort } from '../engine/ports/volumes.js';
import { Label, managedByValue } from '../kube/labels.js';
import { dockerContainerName } from '../kube/names.js';
import { runtimeKeys, substituteRuntime } from '../plan/runtime.js';
import {
  type EngineVolume,
  type PlannedVolume,
  type SubPathNeed,
  type TerminationLogVolume,
  VolumeLabel,
  emptyDirMode,
  infraTerminationLogPath,
  podFileDir,
  resolvConfFile,
  terminationFile,
  terminationFileMode,
} from '../plan/volumes.js';
import { type TarEntry, readTar, tarArchive } from './tar.js';
import { ownershipRewrite, rootOwned } from './volumeOwnership.js';

/** The most of a claim runpod rewrites through the engine's archive endpoint to give it the pod's fsGroup. */
const ownershipLimit = 256 * 1024 * 1024;
import type { PodPlan, ContainerPlan } from '../plan/types.js';

/** A volume could not be made ready: the pod's problem (exit 1), with the reason a user reads. */
export class VolumeSetupError extends Error {
  override name = 'VolumeSetupError';
}

/** Written last into a files volume: its presence says every file before it is there (a fill can be cut short). */
const completeMarker = '..runpod-complete';
/** Label on helper containers: not a pod's container (no pod labels), so observe never sees one. */
export const helperLabel = 'io.runpod.helper';

type Mounts = NonNullable<NonNullable<CreateOptions['HostConfig']>['Mounts']>;

/** Per sync: each volume is made ready once, however many containers mount it. */
export class VolumeWork {
  private readonly once = new Map<string, Promise<unknown>>();
  /** The termination-message file of each instance, by file name: the batch that makes it. */
  private readonly termFiles = new Map<string, Promise<void>>();
  /** The infra container this sync creates, and its start (true once it runs): see newSandbox. */
  private sandbox: { id: string; started: Promise<boolean> } | undefined;

  constructor(
    private readonly engine: ContainerPort & HostPort & VolumePort,
    private readonly plan: PodPlan,
  ) {}

  private cached<T>(key: string, make: () => Promise<T>): Promise<T> {
    let p = this.once.get(key) as Promise<T> | undefined;
    if (p === undefined) {
      p = make();
      this.once.set(key, p);
    }
    return p;
  }

  /**
   * Before the infra container: the volumes it mounts (its emptyDirs, and the termination-log volume it holds)
   * must exist with runpod's labels, not be made bare by Docker.
   */
  async ensureInfraVolumes(): Promise<void> {
    await Promise.all([...this.plan.volumes.filter((v) => v.type === 'emptyDir').map((v) => this.ensureVolume(v as EngineVolume)), this.ensureVolume(this.plan.terminationLog)]);
  }

  /**
   * The infra container this sync created, while it starts: the creates of its containers go on beside the start.
   * Nothing is written into it (an archive into a container that is starting waits for its start), and status.podIP
   * waits for the start (Docker gives the container its address when it starts).
   */
  newSandbox(id: string, started: Promise<boolean>): void {
    this.sandbox = { id, started };
  }

  /**
   * For a sandbox this sync creates: the termination-message files of its new instances and the pod's files, in one
   * archive through one helper, written while the infra container starts, so no helper is left between its start and
   * the creates (each create awaits the files it binds, prepare).
   */
  makeSandboxFiles(instances: readonly { container: ContainerPlan; attempt: number }[]): Promise<void> {
    return this.makeTerminationFiles(instances, undefined, this.hasPodFiles());
  }

  /** Whether the plan writes pod files (a namespace file, a dnsPolicy None resolv.conf) into its runpod volume. */
  private hasPodFiles(): boolean {
    const files = this.plan.podFiles;
    return files.namespace !== undefined || files.resolvConf !== undefined;
  }

  /**
   * Make ready what one instance (attempt) of a container mounts, and return its create options with every
   * runtime marker resolved. infraId is the pod's infra container (for status.podIP and status.hostIP).
   */
  async prepare(c: ContainerPlan, options: CreateOptions, infraId: string | undefined, attempt: number): Promise<CreateOptions> {
    const mounts: Mounts = options.HostConfig?.Mounts ?? [];
    const used = this.plan.volumes.filter((v) => mounts.some((m) => mountUses(m, v)));
    await Promise.all(used.map((v) => (v.type === 'hostPath' ? this.cached(`host:${v.name}`, () => checkHostPath(this.engine, v)) : this.ensureVolume(v))));
    await Promise.all((c.subPaths ?? []).map((s) => this.cached(`sub:${s.engineName}/${s.subPath}`, () => this.ensureSubPath(s))));
    if (c.terminationMessage?.bound) await this.makeTerminationFiles([{ container: c, attempt }], infraId);
    const podFiles = this.hasPodFiles();
    if (podFiles) await this.cached('pod-files', () => this.writePodFiles(infraId));
    // The termination-message and pod-file binds (instanceCreateOptions) refer to their volume by a marker too.
    if (c.runtime !== true && c.terminationMessage?.bound !== true && !podFiles) return options;
    const keys = new Set(runtimeKeys(JSON.stringify(options).replace(/\\u0000/g, '\u0000')));
    const values = new Map<string, string>();
    await Promise.all([...keys].map(async (k) => values.set(k, await this.resolve(k, infraId))));
    return substituteRuntime(options, (k) => values.get(k) ?? '');
  }

  /** A runtime marker's value (plan/runtime.ts). */
  private async resolve(key: string, infraId: string | undefined): Promise<string> {
    if (key.startsWith('mountpoint/')) {
      const name = key.slice('mountpoint/'.length);
      // Once per sync, however many containers bind files of it.
      return this.cached(key, async () => {
        const v = await this.engine.inspectVolume(name);
        if (v === undefined) throw new VolumeSetupError(`volume ${name} vanished while a file of it was being mounted`);
        return v.mountpoint;
      });
    }
    if (key === 'status.podIP' || key === 'status.hostIP') {
      const net = await this.cached('net', () => this.infraNetwork(infraId));
      return key === 'status.podIP' ? net.podIP : net.hostIP;
    }
    const host = await this.cached('host', () => this.engine.hostInfo());
    if (key === 'spec.nodeName') return host.name;
    // node.cpu/<divisor in millicores>, node.memory/<divisor in bytes>: the allocatable of an unset limit.
    const [what, div] = key.split('/');
    const divisor = Number(div) || 1;
    if (what === 'node.cpu') return String(Math.ceil((host.cpus * 1000) / divisor));
    if (what === 'node.memory') return String(Math.ceil(host.memoryBytes / divisor));
    return '';
  }

  /**
   * The pod's IP is the infra container's; the host's, as a container sees it, the gateway of that network (the
   * engine host's address on the bridge). A host-network pod has the host's addresses: its first external IPv4
   * on a local engine.
   */
  private async infraNetwork(infraId: string | undefined): Promise<{ podIP: string; hostIP: string }> {
    if (this.sandbox !== undefined && this.sandbox.id === infraId && !(await this.sandbox.started)) {
      throw new VolumeSetupError('the infra container did not start, so the pod has no IP');
    }
    const info = infraId !== undefined ? await this.engine.inspectContainer(infraId) : undefined;
    const nets = Object.values(info?.NetworkSettings?.Networks ?? {});
    const podIP = nets.find((n) => n.IPAddress)?.IPAddress ?? '';
    const gateway = nets.find((n) => n.Gateway)?.Gateway ?? '';
    if (podIP !== '') return { podIP, hostIP: gateway };
    const local = this.engine.isLocal
      ? (Object.values(os.networkInterfaces())
          .flat()
          .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address ?? '')
      : '';
    return { podIP: local, hostIP: local };
  }

  private ensureVolume(v: EngineVolume | TerminationLogVolume): Promise<void> {
    return this.cached(`vol:${v.engineName}`, async () => {
      await this.ensureVolumeExists(v);
      if (v.type === 'persistentVolumeClaim' && v.fsGroup !== undefined) await this.ownClaim(v, v.fsGroup);
    });
  }

  /**
   * fsGroup on a claim (SetVolumeOwnership): OnRootMismatch looks at the root first and stops when it is owned
   * already; otherwise every directory, file and symlink gets the group and the group's permissions. Through the
   * engine only: the tree is read as an archive and written back with the new group and modes (content unchanged).
   */
  private async ownClaim(v: Extract<EngineVolume, { type: 'persistentVolumeClaim' }>, fs: { gid: number; policy: 'Always' | 'OnRootMismatch' }): Promise<void> {
    await this.withHelper([v.engineName], async (id) => {
      if (fs.policy === 'OnRootMismatch') {
        const head = await this.engine.readArchive(id, '/v/0', 16 * 1024);
        const root = head && readTar(head.tar).find((e) => e.path === '0');
        if (root !== undefined && root.type === 'dir' && rootOwned(root, fs.gid, v.readOnly)) return;
      }
      const all = await this.engine.readArchive(id, '/v/0', ownershipLimit);
      if (all === undefined) throw new VolumeSetupError(`claim ${v.claimName}: its volume ${v.engineName} could not be read to give it fsGroup ${fs.gid}`);
      if (!all.complete) {
        throw new VolumeSetupError(
          `claim ${v.claimName} holds more than ${ownershipLimit / 1024 / 1024} MiB: runpod gives a claim the pod's fsGroup by rewriting it through the engine's archive endpoint, up to that size; set securityContext.fsGroupChangePolicy: OnRootMismatch once its root is owned, or chown it yourself`,
        );
      }
      const entries = ownershipRewrite(readTar(all.tar), fs.gid, v.readOnly);
      if (entries.length > 0) await this.engine.putArchive(id, '/v', tarArchive(entries));
    });
  }

  private async ensureVolumeExists(v: EngineVolume | TerminationLogVolume): Promise<void> {
    {
      const existing = await this.engine.inspectVolume(v.engineName);
      if (existing !== undefined) {
        checkOwner(existing, v, this.plan);
        if (v.type === 'configMap' || v.type === 'secret' || v.type === 'downwardAPI' || v.type === 'projected') {
          // Filled before, unless a fill was cut short (no marker): then fill again.
          await this.withHelper([v.engineName], async (id) => {
            if ((await this.engine.statPath(id, `/v/0/${completeMarker}`)) === undefined) await this.fill(id, v);
          });
        }
        return;
      }
      const tmpfs = v.type === 'emptyDir' && v.medium === 'Memory';
      // medium: Memory is a tmpfs volume of the local driver, world-writable as an emptyDir is, limited to sizeLimit.
      const gid = v.type === 'emptyDir' ? v.gid : undefined;
      // fsGroup: the group owns the directory, setgid so new files inherit it (as the kubelet sets an emptyDir up).
      const dirMode = gid !== undefined ? emptyDirMode | 0o2000 : emptyDirMode;
      const driverOpts = tmpfs
        ? {
            type: 'tmpfs',
            device: 'tmpfs',
            o: [`mode=${dirMode.toString(8)}`, ...(gid !== undefined ? [`gid=${gid}`] : []), ...(v.sizeBytes !== undefined ? [`size=${v.sizeBytes}`] : [])].join(','),
          }
        : undefined;
      await this.engine.createVolume(v.engineName, { labels: v.labels, ...(driverOpts ? { driverOpts } : {}) });
      if (v.type === 'emptyDir' && !tmpfs) {
        // The kubelet makes an emptyDir 0777; a fresh Docker volume is 0755.
        await this.withHelper([v.engineName], (id) => this.engine.putArchive(id, '/v', tarArchive([{ path: '0', type: 'dir', mode: dirMode, uid: 0, gid: gid ?? 0 }])));
      } else if (v.type !== 'emptyDir' && v.type !== 'persistentVolumeClaim' && v.type !== 'terminationLog') {
        await this.withHelper([v.engineName], (id) => this.fill(id, v));
      }
    }
  }

  /** Write a files volume's rendered files (downwardAPI values of the engine host resolved now), then the marker. */
  private async fill(helperId: string, v: Extract<PlannedVolume, { files: unknown }>): Promise<void> {
    const entries: TarEntry[] = [{ path: '0', type: 'dir', mode: 0o755, uid: 0, gid: v.files[0]?.gid ?? 0 }];
    const dirs = new Set<string>();
    for (const f of v.files) {
      const parts = f.path.split('/');
      for (let i = 1; i < parts.length; i++) {
        const d = parts.slice(0, i).join('/');
        if (dirs.has(d)) continue;
        dirs.add(d);
        entries.push({ path: `0/${d}`, type: 'dir', mode: 0o755, uid: 0, gid: f.gid });
      }
      let content = Buffer.from(f.content, 'base64');
      const text = content.toString('utf8');
      if (text.includes('\u0000runpod:')) {
        const values = new Map<string, string>();
        for (const k of runtimeKeys(text)) values.set(k, await this.resolve(k, undefined));
        content = Buffer.from(
          substituteRuntime(text, (k) => values.get(k) ?? ''),
          'utf8',
        );
      }
      entries.push({ path: `0/${f.path}`, type: 'file', mode: f.mode, uid: f.uid, gid: f.gid, content });
    }
    entries.push({ path: `0/${completeMarker}`, type: 'file', mode: 0o444, uid: 0, gid: 0, content: Buffer.alloc(0) });
    await this.engine.putArchive(helperId, '/v', tarArchive(entries));
  }

  /**
   * A subPath must exist before it is bound (the kubelet creates a missing one as a directory with the volume
   * root's mode), and no element of it may be a symlink: a link could point anywhere on the engine host, and the
   * bind would follow it out of the volume (the kubelet resolves links and refuses those that leave the volume;
   * runpod cannot resolve them safely from outside, so it refuses every link).
   */
  private async ensureSubPath(s: SubPathNeed): Promise<void> {
    await this.withHelper([s.engineName], async (id) => {
      const parts = s.subPath.split('/');
      const missing: string[] = [];
      for (let i = 1; i <= parts.length; i++) {
        const rel = parts.slice(0, i).join('/');
        const st = missing.length > 0 ? undefined : await this.engine.statPath(id, `/v/0/${rel}`);
        if (st === undefined) {
          missing.push(rel);
          continue;
        }
        if (st.linkTarget !== '')
          throw new VolumeSetupError(
            `subPath "${s.subPath}": "${rel}" is a symlink (to ${st.linkTarget}); runpod refuses symlinks in a subPath, which could lead out of the volume`,
          );
      }
      if (missing.length === 0) return;
      await this.engine.putArchive(id, '/v', tarArchive(missing.map((rel) => ({ path: `0/${rel}`, type: 'dir', mode: s.mode, uid: 0, gid: 0 }) as TarEntry)));
    });
  }

  /**
   * The empty, world-writable files the terminationMessagePath of each new instance is bound to (plan/volumes.ts),
   * in the pod's termination-log volume, made before the instance is created (Docker refuses a bind of a missing
   * file): all of one call in one archive, written through the infra container, which holds the volume
   * (infraTerminationMount); through a helper container for a sandbox made before it held it, or one that may be
   * starting (holdsTerminationLog). podFiles: the pod's files go in the same archive (once per sync, writePodFiles).
   * A file of that name left by an earlier instance of the same attempt number (attempts start again at 0 once
   * all of a container's instances are gone: removed from the manifest, `runpod gc`, `docker rm`) is emptied, so
   * its message is never reported for this one. Not for an instance that exists already: another runpod created
   * it first (createInstance adopts it), and its file may hold its message by now.
   */
  private makeTerminationFiles(instances: readonly { container: ContainerPlan; attempt: number }[], infraId: string | undefined, podFiles = false): Promise<void> {
    const wanted = instances
      .filter((i) => i.container.terminationMessage?.bound === true)
      .map(({ container: c, attempt }) => ({ c, attempt, file: terminationFile(c.name, c.initKind !== undefined, attempt) }));
    const fresh = wanted.filter((w) => !this.termFiles.has(w.file));
    const withPodFiles = podFiles && !this.once.has('pod-files');
    if (fresh.length > 0 || withPodFiles) {
      const batch = (async (): Promise<void> => {
        const [held] = await Promise.all([this.holdsTerminationLog(infraId), this.ensureVolume(this.plan.terminationLog)]);
        const absent = await Promise.all(fresh.map(({ c, attempt }) => this.instanceAbsent(c, attempt)));
        const files = fresh.filter((_, i) => absent[i]).map((f) => f.file);
        if (files.length === 0 && !withPodFiles) return;
        const entries = (dir: string): TarEntry[] => [
          ...(withPodFiles ? this.podFileEntries(dir) : []),
          ...files.map((file): TarEntry => ({ path: `${dir}${file}`, type: 'file', mode: terminationFileMode, uid: 0, gid: 0, content: Buffer.alloc(0) })),
        ];
        await this.writeTerminationLog(held ? infraId : undefined, entries);
      })();
      // Awaited by each create that binds one (prepare); a failure is that container's, reported there.
      batch.catch(() => undefined);
      for (const w of fresh) this.termFiles.set(w.file, batch);
      if (withPodFiles) this.once.set('pod-files', batch);
    }
    return Promise.all(wanted.map((w) => this.termFiles.get(w.file))).then(() => undefined);
  }

  private async instanceAbsent(c: ContainerPlan, attempt: number): Promise<boolean> {
    const { plan } = this;
    return (await this.engine.inspectContainer(dockerContainerName(c.name, plan.name, plan.namespace, plan.uid, attempt, plan.project))) === undefined;
  }

  /**
   * The pod's files (plan/podFiles.ts) in its runpod volume, written (again) once per sync: the namespace file in
   * its directory, and a dnsPolicy None resolv.conf; readable by any user, as the kubelet's are.
   */
  private async writePodFiles(infraId: string | undefined): Promise<void> {
    const [held] = await Promise.all([this.holdsTerminationLog(infraId), this.ensureVolume(this.plan.terminationLog)]);
    await this.writeTerminationLog(held ? infraId : undefined, (dir) => this.podFileEntries(dir));
  }

  private podFileEntries(dir: string): TarEntry[] {
    const files = this.plan.podFiles;
    return [
      ...(files.namespace !== undefined
        ? [
            { path: `${dir}${podFileDir}`, type: 'dir', mode: 0o755, uid: 0, gid: 0 } as const,
            { path: `${dir}${podFileDir}/namespace`, type: 'file', mode: 0o644, uid: 0, gid: 0, content: Buffer.from(files.namespace) } as const,
          ]
        : []),
      ...(files.resolvConf !== undefined ? [{ path: `${dir}${resolvConfFile}`, type: 'file', mode: 0o644, uid: 0, gid: 0, content: Buffer.from(files.resolvConf) } as const] : []),
    ];
  }

  /**
   * Into the termination-log volume: through the infra container when it holds the volume (no helper needed),
   * else through a helper. entries(dir) are the archive's entries under the volume's root at dir.
   */
  private async writeTerminationLog(holder: string | undefined, entries: (dir: string) => TarEntry[]): Promise<void> {
    if (holder !== undefined) await this.engine.putArchive(holder, infraTerminationLogPath, tarArchive(entries('')));
    else await this.withHelper([this.plan.terminationLog.engineName], (id) => this.engine.putArchive(id, '/v', tarArchive(entries('0/'))));
  }

  /**
   * Whether to write through the infra container: not for a sandbox made before it held the volume, nor for one
   * this sync created (it may be starting: an archive then waits for the start). Cached per infra instance, never
   * for none, so an answer for no instance is not taken for a real one.
   */
  private holdsTerminationLog(infraId: string | undefined): Promise<boolean> {
    if (infraId === undefined || infraId === this.sandbox?.id) return Promise.resolve(false);
    return this.cached(`termination-held:${infraId}`, () => this.infraHoldsTerminationLog(infraId));
  }

  /** Does the pod's infra container hold the termination-log volume (a sandbox made before it did not)? */
  private async infraHoldsTerminationLog(infraId: string): Promise<boolean> {
    const info = await this.engine.inspectContainer(infraId);
    return (info?.Mounts ?? []).some((m) => m.Name === this.plan.terminationLog.engineName && m.Destination === infraTerminationLogPath);
  }

  /** A created (never started) helper of runpod's infra image with the volumes at /v/0, /v/1 …, removed after. */
  private async withHelper<T>(volumes: string[], work: (id: string) => Promise<T>): Promise<T> {
    const name = `runpod_helper_${this.plan.uid}_${randomBytes(4).toString('hex')}`;
    const id = await this.engine.createContainer(name, {
      Image: this.plan.infra.image,
      Labels: { [Label.managedBy]: managedByValue, [helperLabel]: 'volumes', [`${helperLabel}.pod`]: this.plan.key },
      NetworkDisabled: true,
      HostConfig: { Mounts: volumes.map((v, i) => ({ Type: 'volume', Source: v, Target: `/v/${i}`, VolumeOptions: { NoCopy: true } }) as Mounts[number]) },
    });
    try {
      return await work(id);
    } finally {
      await this.engine.removeContainer(id, { force: true }).catch(() => undefined);
    }
  }
}

/** Does this engine mount use that volume? */
function mountUses(m: Mounts[number], v: PlannedVolume): boolean {
  if (v.type === 'hostPath') return m.Type === 'bind' && (m.Source === v.path || m.Source.startsWith(`${v.path.replace(/\/+$/, '')}/`));
  return m.Source === v.engineName || m.Source.includes(`\u0000runpod:mountpoint/${v.engineName}\u0000`);
}

/** A volume of that name made by someone else, or for another pod, is not touched (runpod's ownership rule). */
function checkOwner(existing: VolumeInfo, v: EngineVolume | TerminationLogVolume, plan: PodPlan): void {
  const l = existing.labels;
  const ours = l[Label.managedBy] === managedByValue && (v.type === 'persistentVolumeClaim' ? l[VolumeLabel.claim] === v.claimName : l[Label.podUid] === plan.uid);
  if (!ours) {
    throw new VolumeSetupError(
      `a volume named ${v.engineName} already exists and was not made by runpod for ${v.type === 'persistentVolumeClaim' ? `claim ${v.claimName}` : 'this pod'}; runpod does not touch it: remove or rename it`,
    );
  }
}

/**
 * hostPath `type` checks as the kubelet does them (pkg/volume/hostpath: checkType): DirectoryOrCreate and
 * FileOrCreate create what is missing (a directory 0755 with its parents; an empty file 0644, not its parent
 * directory); the others require what exists to be of that type. They need the engine's own filesystem.
 */
/**
 * mkdir -p reports ENOENT for the path itself when creating a parent failed (a read-only or full filesystem);
 * creating each missing ancestor in turn names the real cause (EROFS, ENOSPC, EACCES) and where it happened.
 */
async function mkdirCause(target: string, err: NodeJS.ErrnoException): Promise<string> {
  if (err.code !== 'ENOENT') return err.message;
  const missing: string[] = [];
  for (let p = target; p !== path.dirname(p); p = path.dirname(p)) {
    if (
      await fs.stat(p).then(
        () => true,
        () => false,
      )
    )
      break;
    missing.unshift(p);
  }
  for (const dir of missing) {
    try {
      await fs.mkdir(dir, { mode: 0o755 });
    } catch (e) {
      const inner = e as NodeJS.ErrnoException;
      if (inner.code !== 'EEXIST') return inner.message;
    }
  }
  return err.message;
}

async function checkHostPath(engine: HostPort, v: Extract<PlannedVolume, { type: 'hostPath' }>): Promise<void> {
  const type = v.hostPathType;
  if (type === '') return;
  if (!engine.isLocal) {
    throw new VolumeSetupError(`hostPath ${v.path}: type ${type} can be checked only on a local engine (${engine.address} is remote); leave type unset to skip the check`);
  }
  const fail = (what: string): never => {
    throw new VolumeSetupError(`hostPath type check failed for volume "${v.name}": ${v.path} ${what}`);
  };
  const stat = await fs.stat(v.path).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? undefined : fail(`cannot be read (${err.code ?? err.message})`)));
  switch (type) {
    case 'DirectoryOrCreate':
      if (stat === undefined)
        await fs.mkdir(v.path, { recursive: true, mode: 0o755 }).catch(async (err: NodeJS.ErrnoException) => fail(`could not be created: ${await mkdirCause(v.path, err)}`));
      else if (!stat.isDirectory()) fail('is not a directory');
      return;
    case 'FileOrCreate':
      if (stat === undefined) {
        const h = await fs.open(v.path, 'a', 0o644).catch((err: Error) => fail(`could not be created (its directory must exist): ${err.message}`));
        await h.close();
      } else if (!stat.isFile()) fail('is not a file');
      return;
    case 'Directory':
      if (stat === undefined) fail('does not exist (type Directory requires an existing directory; DirectoryOrCreate creates it)');
      else if (!stat.isDirectory()) fail('is not a directory');
      return;
    case 'File':
      if (stat === undefined) fail('does not exist (type File requires an existing file; FileOrCreate creates it)');
      else if (!stat.isFile()) fail('is not a file');
      return;
    case 'Socket':
      if (stat === undefined || !stat.isSocket()) fail(stat === undefined ? 'does not exist' : 'is not a socket');
      return;
    case 'CharDevice':
      if (stat === undefined || !stat.isCharacterDevice()) fail(stat === undefined ? 'does not exist' : 'is not a character device');
      return;
    case 'BlockDevice':
      if (stat === undefined || !stat.isBlockDevice()) fail(stat === undefined ? 'does not exist' : 'is not a block device');
      return;
  }
}

/**
 * After a sync that created containers: the pod's volumes the plan no longer names (a changed ConfigMap makes a new
 * content-addressed volume; a changed emptyDir spec a new emptyDir) go once nothing uses them. One still mounted by
 * an instance kept for `logs --previous` stays until that instance goes (the engine refuses: left for later).
 */
export async function removeStaleVolumes(engine: VolumePort, plan: PodPlan): Promise<void> {
  const wanted = new Set([...plan.volumes.flatMap((v) => (v.type === 'hostPath' ? [] : [v.engineName])), plan.terminationLog.engineName]);
  const list = await engine.listVolumes([`${Label.managedBy}=${managedByValue}`, `${Label.podUid}=${plan.uid}`]);
  await Promise.all(
    list
      .filter((v) => !wanted.has(v.name) && v.labels[VolumeLabel.type] !== 'persistentVolumeClaim')
      .map((v) =>
        engine.removeVolume(v.name).catch((err: unknown) => {
          if (!(err instanceof EngineRequestError)) throw err;
        }),
      ),
  );
}

/**
 * Volume helper containers of a pod that a run cut short left behind (a deadline or a second signal ends runpod
 * while a helper exists): they hold the pod's volumes, so they go before the volumes do. Returns how many.
 */
export async function removePodHelpers(engine: ContainerLifecycle & ContainerReader, namespace: string, name: string): Promise<number> {
  const list = await engine.listContainers([`${Label.managedBy}=${managedByValue}`, `${helperLabel}.pod=${namespace}/${name}`]);
  await Promise.all(list.map((c) => engine.removeContainer(c.id, { force: true })));
  return list.length;
}

/**
 * `runpod down`: the pod's own volumes (emptyDir, the rendered configMap, secret, downwardAPI and projected
 * volumes, and the termination-log volume), found by runpod's labels; never a persistentVolumeClaim's, which
 * outlives the pod. Returns how many.
 */
export async function removePodVolumes(engine: VolumePort, namespace: string, name: string): Promise<number> {
  const list = await engine.listVolumes([`${Label.managedBy}=${managedByValue}`, `${Label.podNamespace}=${namespace}`, `${Label.podName}=${name}`]);
  const own = list.filter((v) => v.labels[VolumeLabel.type] !== 'persistentVolumeClaim');
  await Promise.all(own.map((v) => engine.removeVolume(v.name)));
  return own.length;
}
