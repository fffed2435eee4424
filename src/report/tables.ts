// Plain-text tables for the commands that show state (status, stats, gc): columns padded to the widest cell,
// no colour, so the output reads the same on a terminal, in a pipe and in a CI log.
import type { ContainerSummary, PodSummary } from '../reconcile/podSummary.js';
import type { ServiceResult } from '../services/result.js';

export function renderTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('   ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].map((l) => `${l}\n`).join('');
}

/** kubectl-style age: 45s, 3m, 2h5m, 4d. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h}h${m % 60}m` : `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

/** Bytes as docker stats shows them: binary units for memory (MiB), decimal for I/O (kB, MB). */
export function formatBytes(n: number, binary: boolean): string {
  const base = binary ? 1024 : 1000;
  const units = binary ? ['B', 'KiB', 'MiB', 'GiB', 'TiB'] : ['B', 'kB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = 0;
  while (v >= base && u < units.length - 1) {
    v /= base;
    u++;
  }
  return u === 0 ? `${v}${units[0]}` : `${v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0)}${units[u]}`;
}

const shortId = (id: string): string => id.slice(0, 12);

/** Why a container is not ready, in a few words: its state, or what its probes said. */
function notReadyReason(c: ContainerSummary): string {
  if (c.current.state !== 'running') return c.status;
  return c.readiness?.message ?? 'its probes did not run';
}

/** `runpod status` as a table; wide adds each container's image and id, and why a container is not ready. */
export function statusTable(pods: PodSummary[], now: number, wide: boolean, wants: readonly WorkloadWant[] = []): string {
  const headers = ['NAMESPACE/NAME', 'PHASE', 'READY', 'RESTARTS', 'AGE', 'ADDRESS', 'PORTS', 'SOURCE'];
  if (wide) headers.push('IMAGES', 'CONTAINER IDS', 'NOT READY');
  const rows = pods.map((p) => {
    const row = [
      `${p.namespace}/${p.name}`,
      p.phase,
      `${p.readyCount}/${p.readyTotal}`,
      String(p.restarts),
      p.createdAt !== undefined ? formatAge(now - p.createdAt) : '-',
      p.ip ?? '-',
      p.ports.length ? p.ports.join(',') : '-',
      p.source ?? '-',
    ];
    if (wide) {
      const all = [...p.containers, ...p.sidecars];
      row.push(
        all.map((c) => `${c.name}=${c.current.image}`).join(',') || '-',
        [...(p.infra ? [`POD=${shortId(p.infra.id)}`] : []), ...all.map((c) => `${c.name}=${shortId(c.current.id)}`)].join(','),
        all
          .filter((c) => !c.ready)
          .map((c) => `${c.name}: ${notReadyReason(c)}`)
          .join('; ') || '-',
      );
    }
    return row;
  });
  return (pods.length > 0 ? renderTable(headers, rows) : '') + workloadTable(workloadRows(pods, wants));
}

/** A workload a manifest given to `status` names: what it wants, so READY reads against it. */
export interface WorkloadWant {
  namespace: string;
  ref: string;
  desired?: number;
  suspended?: boolean;
}

/** A workload's line in `status`: its pods on the engine, and READY as kubectl get deployments / jobs count it. */
export interface WorkloadRow {
  namespace: string;
  ref: string;
  /** Ready pods (a Job: succeeded pods). */
  ready: number;
  /** The manifest's replicas (a Job: completions) when given; else the pods on the engine. */
  of: number;
  desired?: number;
  suspended?: boolean;
  pods: string[];
}

/**
 * The workloads the pods belong to (and those the given manifests name, pods or not): READY counts the pods whose
 * every container is ready, as kubectl get deployments does, against the manifest's replicas when it was given (else
 * against the pods on the engine); a Job's counts its succeeded pods against completions, as kubectl get jobs does.
 */
export function workloadRows(pods: readonly PodSummary[], wants: readonly WorkloadWant[] = []): WorkloadRow[] {
  const byOwner = new Map<string, PodSummary[]>();
  for (const w of wants) byOwner.set(`${w.namespace}/${w.ref}`, []);
  for (const p of pods) if (p.owner !== undefined) byOwner.set(`${p.namespace}/${p.owner}`, [...(byOwner.get(`${p.namespace}/${p.owner}`) ?? []), p]);
  return [...byOwner]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, list]) => {
      const namespace = key.slice(0, key.indexOf('/'));
      const ref = key.slice(key.indexOf('/') + 1);
      const want = wants.find((w) => w.namespace === namespace && w.ref === ref);
      const ready = ref.startsWith('job/') ? list.filter((p) => p.phase === 'Succeeded').length : list.filter((p) => p.readyTotal > 0 && p.readyCount === p.readyTotal).length;
      return {
        namespace,
        ref,
        ready,
        of: want?.desired ?? list.length,
        ...(want?.desired !== undefined ? { desired: want.desired } : {}),
        ...(want?.suspended ? { suspended: true } : {}),
        pods: list.map((p) => p.name),
      };
    });
}

function workloadTable(rows: readonly WorkloadRow[]): string {
  if (rows.length === 0) return '';
  const cells = rows.map((r) => [`${r.namespace}/${r.ref}`, `${r.ready}/${r.of}${r.suspended ? ' (suspended)' : ''}`, r.pods.join(',') || '-']);
  return `\n${renderTable(['NAMESPACE/WORKLOAD', 'READY', 'PODS'], cells)}`;
}

/** One container in the machine-readable status: readiness (ok, message) when its probes ran. */
function containerDocument(c: ContainerSummary): Record<string, unknown> {
  return {
    name: c.name,
    id: c.current.id,
    dockerName: c.current.dockerName,
    image: c.current.image,
    state: c.current.state,
    status: c.status,
    ready: c.ready,
    ...(c.readiness ? { readiness: { ok: c.readiness.ok, message: c.readiness.message } } : {}),
    restarts: c.restarts,
    attempt: c.current.attempt,
    ...(c.current.state === 'exited' || c.current.state === 'dead' ? { exitCode: c.current.exitCode, oomKilled: c.current.oomKilled } : {}),
    ...(c.current.startedAt !== undefined ? { startedAt: new Date(c.current.startedAt).toISOString() } : {}),
    ...(c.current.finishedAt !== undefined && c.current.state !== 'running' ? { finishedAt: new Date(c.current.finishedAt).toISOString() } : {}),
    previousInstances: c.previous.length,
  };
}

/** The machine-readable form of a pod's status (-o json|yaml); sidecars, when the pod has any, apart. */
export function statusDocument(p: PodSummary, now: number): Record<string, unknown> {
  return {
    namespace: p.namespace,
    name: p.name,
    uid: p.uid,
    phase: p.phase,
    ready: `${p.readyCount}/${p.readyTotal}`,
    restarts: p.restarts,
    ...(p.createdAt !== undefined ? { createdAt: new Date(p.createdAt).toISOString(), ageSeconds: Math.floor((now - p.createdAt) / 1000) } : {}),
    ...(p.ip ? { ip: p.ip } : {}),
    ports: p.ports,
    ...(p.source ? { source: p.source } : {}),
    ...(p.owner ? { owner: p.owner } : {}),
    ...(p.infra ? { infra: { id: p.infra.id, name: p.infra.dockerName, state: p.infra.state, attempt: p.infra.attempt } } : {}),
    containers: p.containers.map(containerDocument),
    ...(p.sidecars.length > 0 ? { sidecars: p.sidecars.map(containerDocument) } : {}),
  };
}

/** Services as kubectl get services shows them: PORT(S) as port[:hostPort]/protocol. */
export function serviceTable(services: readonly ServiceResult[]): string {
  const rows = services.map((v) => [
    v.namespace,
    v.name,
    v.type === 'headless' ? 'ClusterIP' : v.type,
    v.type === 'headless' ? 'None' : (v.ip ?? '<none>'),
    v.ports.map((p) => `${p.port}${p.hostPort !== undefined ? `:${p.hostPort}` : ''}/${p.protocol}`).join(',') || '<none>',
  ]);
  return renderTable(['NAMESPACE', 'SERVICE', 'TYPE', 'CLUSTER-IP', 'PORT(S)'], rows);
}
