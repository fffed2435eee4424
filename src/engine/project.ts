// An Engine confined to one isolation key (plan/project.ts): every list and event subscription sees only what was
// made under the key (without a key: only what was made without one), and every container, volume and network created
// carries the key's label. Commands wrap the engine once, where they open it, so no lookup anywhere can reach
// another job's pods. Host-wide questions (admission counts every pod's requests, gc every dead container) use
// the engine unwrapped.
import { Label } from '../plan/labels.js';
import { inProject, projectLabels, projectSelector } from '../plan/project.js';
import type { Engine } from './engine.js';

export function projectEngine(engine: Engine, project: string | undefined): Engine {
  const selector = projectSelector(project);
  const label = projectLabels(project);
  const keyed = (labels: Record<string, string> | undefined): Record<string, string> => {
    const { [Label.project]: _dropped, ...rest } = labels ?? {};
    return { ...rest, ...label };
  };
  const own = <T extends { labels: Record<string, string> }>(list: T[]): T[] => list.filter((x) => inProject(x.labels, project));
  return new Proxy(engine, {
    get(target, prop, receiver) {
      switch (prop) {
        case 'listContainers':
          return async (labels: string[]) => own(await target.listContainers([...labels, ...selector]));
        case 'listNetworks':
          return async (labels: string[]) => own(await target.listNetworks([...labels, ...selector]));
        case 'createNetwork':
          return (name: string, options: Parameters<Engine['createNetwork']>[1]) => target.createNetwork(name, { labels: keyed(options.labels) });
        case 'listVolumes':
          return async (labels: string[]) => own(await target.listVolumes([...labels, ...selector]));
        case 'subscribeEvents':
          return (labels: string[], onEvent: Parameters<Engine['subscribeEvents']>[1], onError: Parameters<Engine['subscribeEvents']>[2]) =>
            target.subscribeEvents([...labels, ...selector], (e) => (inProject(e.labels, project) ? onEvent(e) : undefined), onError);
        // Made under the key carries it; made without one never carries any (so no label can smuggle one in).
        case 'createContainer':
          return (name: string, options: Parameters<Engine['createContainer']>[1]) =>
            target.createContainer(name, { ...options, Labels: keyed(options.Labels) });
        case 'createVolume':
          return (name: string, options: Parameters<Engine['createVolume']>[1]) => target.createVolume(name, { ...options, labels: keyed(options.labels) ?? {} });
        default: {
          const value: unknown = Reflect.get(target, prop, receiver);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        }
      }
    },
  });
}
