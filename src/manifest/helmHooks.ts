// Helm's hook annotation (helm.sh/hook) on an object of `helm template` output, judged as `helm install` (or
// `helm upgrade`, which a re-run is) would treat it, pure. Helm runs no test hook on install (`helm test` does), and
// no delete or rollback hook; install and upgrade hooks run around the release's other objects. runpod has no
// release to order hooks by: an install or upgrade hook runs with the other objects, as `helm template | kubectl
// apply -f -` would run it, said in a warning; helm.sh/hook-weight and helm.sh/hook-delete-policy order and remove
// hooks and are not used.

export const hookAnnotation = 'helm.sh/hook';

export type HookVerdict = { action: 'skip'; why: string } | { action: 'run'; note: string };

const installHooks = ['pre-install', 'post-install', 'pre-upgrade', 'post-upgrade'];
/** Helm 3's test hook, and Helm 2's names for it (Helm 3 reads test-success as test). */
const testHooks = ['test', 'test-success', 'test-failure'];
const otherHooks = ['pre-delete', 'post-delete', 'pre-rollback', 'post-rollback'];

/** What runpod does with an object whose helm.sh/hook annotation is this; undefined when there is none. */
export function helmHook(annotations: unknown): HookVerdict | undefined {
  if (typeof annotations !== 'object' || annotations === null || Array.isArray(annotations)) return undefined;
  const value = (annotations as Record<string, unknown>)[hookAnnotation];
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  // A comma-separated list, as Helm splits it.
  const hooks = value
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
  const unknown = hooks.filter((h) => ![...installHooks, ...testHooks, ...otherHooks].includes(h));
  if (hooks.some((h) => installHooks.includes(h))) {
    return {
      action: 'run',
      note: `Helm hook ${value}: runs with the other objects, not before or after them (runpod has no release to order hooks by; hook-weight and hook-delete-policy are not used)`,
    };
  }
  if (unknown.length > 0)
    return { action: 'run', note: `unknown Helm hook ${unknown.join(', ')}: runs as an object of its own (Helm knows ${[...installHooks, ...otherHooks, 'test'].join(', ')})` };
  if (hooks.some((h) => testHooks.includes(h))) return { action: 'skip', why: `a Helm test hook (${value}): helm install runs none, helm test does` };
  return { action: 'skip', why: `a Helm ${value} hook: helm install and upgrade run none` };
}
