// Helpers for the volumes-*.test.ts engine tests: run a command inside a pod's container, and remove a pod's
// volumes (and named claim volumes) whatever happened.
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { cleanupPod, docker, dockerTry, podContainers } from './run-helpers.js';

/** Output of `sh -c script` inside the pod's container (docker exec). */
export function inPod(pod: string, container: string, script: string, namespace = 'default'): string {
  const c = podContainers(pod, namespace).get(container);
  assert.ok(c, `container ${container} of ${namespace}/${pod}`);
  const r = dockerTry(['exec', c.Id, 'sh', '-c', script]);
  assert.equal(r.status, 0, `exec in ${container}: ${script}\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** Volumes runpod made for a pod (by its labels). */
export function podVolumes(pod: string, namespace = 'default'): string[] {
  const out = docker([
    'volume',
    'ls',
    '-q',
    '--filter',
    'label=app.kubernetes.io/managed-by=runpod',
    '--filter',
    `label=io.kubernetes.pod.name=${pod}`,
    '--filter',
    `label=io.kubernetes.pod.namespace=${namespace}`,
  ]);
  return out ? out.split('\n').sort() : [];
}

/** Remove the pod's containers, then its volumes and the named claim volumes, when the test ends. */
export function cleanupPodAndVolumes(t: TestContext, pod: string, namespace = 'default', claimVolumes: string[] = []): void {
  cleanupPod(t, pod, namespace);
  t.after(() => {
    for (const v of [...podVolumes(pod, namespace), ...claimVolumes]) dockerTry(['volume', 'rm', '-f', v]);
  });
}
