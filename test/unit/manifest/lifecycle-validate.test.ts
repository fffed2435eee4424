// Validation of init containers and lifecycle fields (pkg/apis/core/validation: validateInitContainers,
// validateLifecycle, validateContainers), one rule per row.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem } from '../../../src/errors.js';
import { parseManifests } from '../../../src/manifest/parse.js';

function problems(text: string): string[] {
  return parseManifests([{ source: { file: 'pod.yaml', origin: '/x/pod.yaml' }, text }], { defaultNamespace: 'default' }).problems.map(formatProblem);
}

/** A pod with one init container (extra lines at 4-space indent under it) and one container. */
function pod(init: string, container = ''): string {
  return [
    'apiVersion: v1',
    'kind: Pod',
    'metadata:',
    '  name: web',
    'spec:',
    '  initContainers:',
    '  - name: setup',
    '    image: busybox',
    init,
    '  containers:',
    '  - name: app',
    '    image: busybox',
    container,
  ]
    .filter((l) => l !== '')
    .join('\n');
}

describe('validation: init containers and lifecycle', () => {
  const cases: Array<{ name: string; text: string; expect: string[] }> = [
    { name: 'an init container', text: pod(''), expect: [] },
    {
      name: 'a sidecar with hooks and a startupProbe',
      text: pod('    restartPolicy: Always\n    lifecycle: {preStop: {sleep: {seconds: 1}}}\n    startupProbe: {exec: {command: ["true"]}}'),
      expect: [],
    },
    {
      name: 'names are unique across init containers and containers',
      text: pod('', '  - name: setup\n    image: busybox'),
      expect: ['pod.yaml:12 spec.containers[1].name: duplicate container name "setup" (also spec.initContainers[0])'],
    },
    {
      name: 'restartPolicy on an init container is Always (a sidecar), OnFailure or Never (Kubernetes 1.34), or nothing',
      text: pod('    restartPolicy: Sometimes'),
      expect: [
        'pod.yaml:9 spec.initContainers[0].restartPolicy: must be Always (a sidecar), OnFailure or Never (they override the pod\'s restartPolicy for this init container), or unset, got "Sometimes"',
      ],
    },
    { name: 'restartPolicy OnFailure on an init container (Kubernetes 1.34, ContainerRestartRules)', text: pod('    restartPolicy: OnFailure'), expect: [] },
    {
      name: 'no hooks on a plain init container',
      text: pod('    lifecycle: {postStart: {exec: {command: ["true"]}}}'),
      expect: ['pod.yaml:9 spec.initContainers[0].lifecycle: may not be set for init containers without restartPolicy: Always'],
    },
    {
      name: 'no probes on a plain init container',
      text: pod('    readinessProbe: {exec: {command: ["true"]}}'),
      expect: ['pod.yaml:9 spec.initContainers[0].readinessProbe: may not be set for init containers without restartPolicy: Always'],
    },
    { name: "restartPolicy on an app container overrides the pod's (Kubernetes 1.34)", text: pod('', '    restartPolicy: Always'), expect: [] },
    {
      name: 'a hook needs one handler',
      text: pod('', '    lifecycle: {preStop: {}}'),
      expect: ['pod.yaml:12 spec.containers[0].lifecycle.preStop: must specify a handler type (exec, httpGet or sleep)'],
    },
    {
      name: 'a hook has at most one handler',
      text: pod('', '    lifecycle: {preStop: {exec: {command: ["true"]}, sleep: {seconds: 1}}}'),
      expect: ['pod.yaml:12 spec.containers[0].lifecycle.preStop.sleep: may not specify more than one handler type (also exec)'],
    },
    {
      name: 'tcpSocket hooks are refused',
      text: pod('', '    lifecycle: {preStop: {tcpSocket: {port: 80}}}'),
      expect: ['pod.yaml:12 spec.containers[0].lifecycle.preStop.tcpSocket: not supported by runpod (not run by the kubelet either: use exec, httpGet or sleep)'],
    },
    {
      name: 'an httpGet hook names a port of the container',
      text: pod('', '    lifecycle: {postStart: {httpGet: {port: web}}}'),
      expect: ['pod.yaml:12 spec.containers[0].lifecycle.postStart.httpGet.port: no port named "web" in this container'],
    },
    {
      name: 'terminationMessagePolicy is File or FallbackToLogsOnError',
      text: pod('', '    terminationMessagePolicy: Always'),
      expect: ['pod.yaml:12 spec.containers[0].terminationMessagePolicy: must be one of FallbackToLogsOnError, File, got "Always"'],
    },
    {
      name: 'a kubectl export: terminationMessagePath and policy File everywhere',
      text: pod(
        '    terminationMessagePath: /dev/termination-log\n    terminationMessagePolicy: File',
        '    terminationMessagePath: /dev/termination-log\n    terminationMessagePolicy: File',
      ),
      expect: [],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(problems(c.text), c.expect));
});
