// An Engine confined to one isolation key (kube/project.ts): every list and event subscription sees only what was
// made under the key (without a key: only what was made without one), and every container, volume and network created
// carries the key's label. Commands wrap the engine once, where they open it, so no lookup anywhere can reach
// another job's pods. Host-wide questions (admission counts every pod's requests, gc every dead container) use
// the engine unwrapped.
import { Label } from '../../kube/labels.js';
import { inProject, projectLabels, projectSelector } from '../../kube/project.js';
import type { Engine } from './engine.js';
import { withOverrides } from './overrides.js';

export function projectEngine(engine: Engine, project: string | undefined): Engine {
  const selector = projectSelector(project);
  const label = projectLabels(project);
  const keyed = (labels: Record<string, string> | undefined): Record<string, string> => {
    const { [Label.project]: _dropped, ...rest } = labels ?? {};
    return { ...rest, ...label };
  };
  const own = <T extends { labels: Record<string, string> }>(list: T[]): T[] => list.filter((x) => inProject(x.labels, project));
  return withOverrides(engine, {
    listContainers: async (labels) => own(await engine.listContainers([...labels, ...selector])),
    listNetworks: async (labels) => own(await engine.listNetworks([...labels, ...selector])),
    createNetwork: (name, options) => engine.createNetwork(name, { labels: keyed(options.labels) }),
    listVolumes: async (labels) => own(await engine.listVolumes([...labels, ...selector])),
    subscribeEvents: (labels, onEvent, onError) => engine.subscribeEvents([...labels, ...selector], (e) => (inProject(e.labels, project) ? onEvent(e) : undefined), onError),
    // Made under the key carries it; made without one never carries any (so no label can smuggle one in).
    createContainer: (name, options) => engine.createContainer(name, { ...options, Labels: keyed(options.Labels) }),
    createVolume: (name, options) => engine.createVolume(name, { ...options, labels: keyed(options.labels) }),
  });
}
