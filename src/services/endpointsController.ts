// Keeping each Service's forwarding on its endpoints while runpod runs (engine side): the run tells it which of its
// pods are ready, and it rewrites a Service's rules when the set of ready pods behind it (or their addresses)
// changed. After runpod exits the rules stay as last written; the next run or `down` brings them up to date.
// Pods that this run does not watch count as ready while all their containers run (their readiness probes are not
// being run by anyone).
import { createHash } from 'node:crypto';
import type { ContainerPort, ContainerSummary } from '../engine/ports/containers.js';
import type { NetworkPort } from '../engine/ports/networks.js';
import type { LogPort } from '../engine/ports/streams.js';
import { tarArchive } from '../reconcile/tar.js';
import type { ServiceObject } from '../manifest/types.js';
import { Label, infraContainerName, managedSelector, podLabelsOf } from '../kube/labels.js';
import { type EndpointPod, serviceEndpoints } from './endpoints.js';
import { writeRules } from './forwarding.js';
import { namespaceNetwork } from '../kube/serviceNames.js';
import { serviceRules } from './rules.js';
import { listServiceContainers } from './serviceContainers.js';

/** Where a Service container remembers what its rules were written for (its start and the rules' hash). */
const markerPath = '/runpod-rules';

interface Marker {
  startedAt: string;
  hash: string;
  /** uid@address of each pod the rules forward to: a pod made again at a new address is no member until ready. */
  members: string[];
}

export class EndpointsController {
  /** Readiness this run has seen, by pod uid. */
  private readonly ready = new Map<string, boolean>();
  private readonly seen = new Map<string, string>();
  /** Pods this run watches: until their readiness is seen they keep the membership they had. */
  private readonly watched = new Set<string>();
  private readonly markers = new Map<string, Marker>();
  private readonly pending = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  /**
   * Each namespace's failure in its latest pass. A later pass that succeeds clears it: an engine lost for a while
   * during the wait (every request failing) and back by the end leaves the Services as up to date as any other run.
   */
  private readonly failures = new Map<string, Error>();

  constructor(
    private readonly engine: ContainerPort & LogPort & NetworkPort,
    private readonly project: string | undefined,
    private readonly image: string,
  ) {}

  /** The failure of a namespace's latest pass (ServiceSetupError, the engine lost), if any. */
  get error(): Error | undefined {
    return this.failures.values().next().value;
  }

  watch(uid: string): void {
    this.watched.add(uid);
  }

  /**
   * What runpod saw of a pod of this run: ready or not, and which container instances it has (a new instance may
   * come with a new infra container, so a new address). A change brings its namespace's Services up to date.
   */
  noteReady(uid: string, namespace: string, ready: boolean, instances: string): void {
    const seen = `${ready}|${instances}`;
    if (this.seen.get(uid) === seen) return;
    this.seen.set(uid, seen);
    this.ready.set(uid, ready);
    void this.refresh(namespace);
  }

  /** Bring a namespace's Services up to date: one pass at a time, a request during a pass makes one more after it. */
  refresh(namespace: string): Promise<void> {
    const running = this.pending.get(namespace);
    if (running !== undefined) {
      this.again.add(namespace);
      return running;
    }
    const pass = (async () => {
      do {
        this.again.delete(namespace);
        try {
          await this.sync(namespace);
          this.failures.delete(namespace);
        } catch (err) {
          this.failures.set(namespace, err instanceof Error ? err : new Error(String(err)));
        }
      } while (this.again.has(namespace));
    })().finally(() => this.pending.delete(namespace));
    this.pending.set(namespace, pass);
    return pass;
  }

  /** Wait for every pass under way (and the ones they asked for). */
  async settle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending.values()]);
  }

  private async sync(namespace: string): Promise<void> {
    // A namespace without a Service (most runs) costs one call.
    const live = (await listServiceContainers(this.engine, namespace)).filter((c) => c.running);
    if (live.length === 0) return;
    const [containers, network] = await Promise.all([
      this.engine.listContainers([managedSelector, `${Label.podNamespace}=${namespace}`]),
      this.engine.inspectNetwork(namespaceNetwork(namespace, this.project)),
    ]);
    const pods = endpointPods(containers, network?.containers ?? {});
    await Promise.all(
      live.map(async (c) => {
        const service = c.service;
        if (service === undefined) return;
        const info = await this.engine.inspectContainer(c.id);
        if (info === undefined || !info.State.Running) return;
        const marker = this.markers.get(c.id) ?? (await this.readMarker(c.id));
        const members = new Set(marker?.startedAt === info.State.StartedAt ? marker.members : []);
        const candidates = pods.map((p) => ({ ...p, ready: this.ready.get(p.uid) ?? (this.watched.has(p.uid) ? members.has(`${p.uid}@${p.ip ?? ''}`) : p.ready) }));
        const endpoints = serviceEndpoints(service, candidates);
        const rules = serviceRules(endpoints, affinityOf(service));
        const hash = createHash('sha256').update(rules).digest('hex').slice(0, 16);
        if (marker !== undefined && marker.startedAt === info.State.StartedAt && marker.hash === hash) return;
        await writeRules(
          this.engine,
          { containerId: c.id, service: `${service.namespace}/${service.name}`, ports: service.ports.map((p) => `${p.port}/${p.protocol}`), image: this.image },
          rules,
        );
        const next: Marker = { startedAt: info.State.StartedAt, hash, members: [...new Set(endpoints.flatMap((e) => e.backends.map((b) => `${b.uid}@${b.ip}`)))] };
        this.markers.set(c.id, next);
        await this.engine.putArchive(c.id, '/', markerTar(next));
      }),
    );
  }

  private async readMarker(id: string): Promise<Marker | undefined> {
    const raw = await this.engine.readContainerFile(id, markerPath, 64 * 1024);
    if (raw === undefined) return undefined;
    try {
      return JSON.parse(raw.toString('utf8')) as Marker;
    } catch {
      return undefined;
    }
  }
}

function affinityOf(service: ServiceObject): number | undefined {
  return service.sessionAffinity === 'ClientIP' ? (service.affinityTimeoutSeconds ?? 10_800) : undefined;
}

function markerTar(m: Marker): Buffer {
  // One file at the root of the Service container's own filesystem (the pause image has nothing else there).
  return tarArchive([{ path: markerPath.slice(1), type: 'file', mode: 0o644, uid: 0, gid: 0, content: Buffer.from(JSON.stringify(m)) }]);
}

/**
 * The pods of a namespace as endpoints see them, from their containers: labels and ports from the infra container,
 * the address it has on the namespace's network. Ready, for a pod nobody watches: its infra container runs, some
 * container of it runs and none is restarting (a crash loop is not ready).
 */
export function endpointPods(containers: readonly ContainerSummary[], onNetwork: Readonly<Record<string, { ipv4: string }>>): EndpointPod[] {
  const byUid = new Map<string, ContainerSummary[]>();
  for (const c of containers) {
    const uid = c.labels[Label.podUid];
    if (uid !== undefined) (byUid.get(uid) ?? byUid.set(uid, []).get(uid)!).push(c);
  }
  const pods: EndpointPod[] = [];
  for (const [uid, list] of byUid) {
    const infra = list.find((c) => c.labels[Label.containerName] === infraContainerName && c.state === 'running');
    if (infra === undefined) continue;
    const apps = list.filter((c) => c !== infra && c.labels[Label.containerName] !== infraContainerName);
    const ip = onNetwork[infra.id]?.ipv4;
    pods.push({
      uid,
      namespace: infra.labels[Label.podNamespace] ?? '',
      name: infra.labels[Label.podName] ?? '',
      labels: podLabelsOf(infra.labels),
      ...(ip !== undefined && ip !== '' ? { ip } : {}),
      ready: apps.some((c) => c.state === 'running') && !apps.some((c) => c.state === 'restarting'),
      ports: parsePorts(infra.labels[Label.ports]),
    });
  }
  return pods;
}

function parsePorts(raw: string | undefined): EndpointPod['ports'] {
  if (raw === undefined) return [];
  try {
    const v = JSON.parse(raw) as unknown;
    return Array.isArray(v) ? (v as EndpointPod['ports']) : [];
  } catch {
    return [];
  }
}
