// Validation of a container's resizePolicy (ContainerResizePolicy: resourceName cpu or memory, restartPolicy
// NotRequired or RestartContainer), one rule per row; refused on init containers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem } from '../../../src/errors.js';
import { parseManifests } from '../../../src/manifest/parse.js';

function problems(text: string): string[] {
  return parseManifests([{ source: { file: 'pod.yaml', origin: '/x/pod.yaml' }, text }], { defaultNamespace: 'default' }).problems.map(formatProblem);
}

/** A pod with one container; its resizePolicy entries from line 9. */
function pod(entries: string, list = 'containers'): string {
  const main = list === 'containers' ? [] : ['  containers:', '  - name: main', '    image: busybox'];
  return ['apiVersion: v1', 'kind: Pod', 'metadata:', '  name: web', 'spec:', `  ${list}:`, '  - name: app', '    image: busybox', '    resizePolicy:', entries, ...main].join(
    '\n',
  );
}

describe('validation: resizePolicy', () => {
  const cases: Array<{ name: string; text: string; expect: string[] }> = [
    {
      name: 'cpu NotRequired, memory RestartContainer',
      text: pod('    - {resourceName: cpu, restartPolicy: NotRequired}\n    - {resourceName: memory, restartPolicy: RestartContainer}'),
      expect: [],
    },
    {
      name: 'only cpu and memory',
      text: pod('    - {resourceName: nvidia.com/gpu, restartPolicy: NotRequired}'),
      expect: ['pod.yaml:10 spec.containers[0].resizePolicy[0].resourceName: must be cpu or memory (the resources a running container can be resized in), got "nvidia.com/gpu"'],
    },
    {
      name: 'each resource once',
      text: pod('    - {resourceName: cpu, restartPolicy: NotRequired}\n    - {resourceName: cpu, restartPolicy: RestartContainer}'),
      expect: ['pod.yaml:11 spec.containers[0].resizePolicy[1].resourceName: duplicate resourceName "cpu" (also resizePolicy[0])'],
    },
    {
      name: 'NotRequired or RestartContainer',
      text: pod('    - {resourceName: memory, restartPolicy: Always}'),
      expect: [
        'pod.yaml:10 spec.containers[0].resizePolicy[0].restartPolicy: must be NotRequired (apply the change to the running container) or RestartContainer (replace it), got "Always"',
      ],
    },
    {
      name: 'refused on init containers',
      text: pod('    - {resourceName: cpu, restartPolicy: NotRequired}', 'initContainers'),
      expect: [
        "pod.yaml:9 spec.initContainers[0].resizePolicy: not supported by runpod (on init containers: runpod resizes app containers only; a change of a sidecar's resources replaces the sidecar, of another init container's the pod (Kubernetes refuses resizePolicy on those))",
      ],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(problems(c.text), c.expect));
});

describe('validation: pod-level resources', () => {
  it('are refused, saying what Kubernetes does, why the engine cannot, and what to do instead', () => {
    const text = [
      'apiVersion: v1',
      'kind: Pod',
      'metadata:',
      '  name: web',
      'spec:',
      '  resources: {limits: {cpu: "1"}}',
      '  containers:',
      '  - name: app',
      '    image: busybox',
    ].join('\n');
    assert.deepEqual(problems(text), [
      "pod.yaml:6 spec.resources: not supported by runpod (pod-level resources (Kubernetes PodLevelResources, beta in 1.34) are limits on the pod's own cgroup, shared by its containers; the Engine API can put containers under a parent cgroup (CgroupParent) but cannot create it or set its limits, so nothing would enforce them: set resources on each container instead (their sum bounds the pod))",
    ]);
  });
});
