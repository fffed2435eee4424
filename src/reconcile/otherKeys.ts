// An operator's slip, said before a run makes a second copy of a stack: the same manifests already run under
// another isolation key (a fresh shell without RUNPOD_PROJECT, a --project forgotten or mistyped), and this run,
// under its own key, is about to make every pod, claim and host port again beside them. Isolation is the point of a
// key, so the run goes on; it says so, and how to reach the copy that is there.
import type { ContainerReader, ContainerSummary } from '../engine/ports/containers.js';
import { Label, infraContainerName, managedSelector } from '../kube/labels.js';
import { projectEnvVar } from '../kube/project.js';

const where = (key: string | undefined): string => (key === undefined ? 'without an isolation key' : `under isolation key ${key}`);

/**
 * Pure: for each of this run's sources that no pod of this run's key comes from yet (the run makes them all), the
 * pods of it that run under other keys, as one warning per source. infra: runpod's infra containers of those
 * sources, of every key.
 */
export function sourcesElsewhere(sources: ReadonlySet<string>, project: string | undefined, infra: readonly ContainerSummary[]): string[] {
  const out: string[] = [];
  for (const source of [...sources].sort()) {
    const mine = infra.filter((c) => c.labels[Label.source] === source);
    if (mine.some((c) => c.labels[Label.project] === project)) continue;
    const byKey = new Map<string | undefined, Set<string>>();
    for (const c of mine) {
      if (c.state !== 'running') continue;
      const key = c.labels[Label.project];
      const pods = byKey.get(key) ?? new Set<string>();
      pods.add(`${c.labels[Label.podNamespace] ?? ''}/${c.labels[Label.podName] ?? ''}`);
      byKey.set(key, pods);
    }
    if (byKey.size === 0) continue;
    const there = [...byKey].map(([key, pods]) => {
      const names = [...pods].sort();
      return `${where(key)} (${names.length} pod${names.length === 1 ? '' : 's'}: ${names.slice(0, 3).join(', ')}${names.length > 3 ? ', …' : ''})`;
    });
    const reach = [...byKey.keys()].map((key) => (key === undefined ? `no --project and no ${projectEnvVar}` : `--project ${key} (or ${projectEnvVar}=${key})`));
    out.push(
      `${source} already runs ${there.join(' and ')}; this run, ${where(project)}, makes a second copy beside it (its own pods, claims and host ports). To act on the one there, run with ${reach.join(', or ')}`,
    );
  }
  return out;
}

/** The warnings for this run's sources (host: the engine of every key). */
export async function sourcesRunningElsewhere(host: ContainerReader, sources: ReadonlySet<string>, project: string | undefined): Promise<string[]> {
  if (sources.size === 0) return [];
  const lists = await Promise.all([...sources].map((s) => host.listContainers([managedSelector, `${Label.containerName}=${infraContainerName}`, `${Label.source}=${s}`])));
  return sourcesElsewhere(sources, project, lists.flat());
}
