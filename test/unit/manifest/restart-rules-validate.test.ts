// Validation of a container's restartPolicy and restartPolicyRules (Kubernetes 1.34, ContainerRestartRules,
// KEP-5307; the Container API reference's constraints), one rule per row, on containers, init containers and
// workload templates.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem } from '../../../src/errors.js';
import { parseManifests } from '../../../src/manifest/parse.js';

function problems(text: string): string[] {
  return parseManifests([{ source: { file: 'pod.yaml', origin: '/x/pod.yaml' }, text }], { defaultNamespace: 'default' }).problems.map(formatProblem);
}

/** A Never pod with one container; extra lines at 4-space indent under it (from line 9). */
function pod(container: string): string {
  return ['apiVersion: v1', 'kind: Pod', 'metadata:', '  name: web', 'spec:', '  restartPolicy: Never', '  containers:', '  - name: app', '    image: busybox', container].join(
    '\n',
  );
}

const rule42 = '    restartPolicyRules:\n    - action: Restart\n      exitCodes: {operator: In, values: [42]}';

describe('validation: container restartPolicy and restartPolicyRules', () => {
  const cases: Array<{ name: string; text: string; expect: string[] }> = [
    { name: "a rule with the container's restartPolicy", text: pod(`    restartPolicy: Never\n${rule42}`), expect: [] },
    { name: 'NotIn', text: pod('    restartPolicy: OnFailure\n    restartPolicyRules:\n    - action: Restart\n      exitCodes: {operator: NotIn, values: [0, 1]}'), expect: [] },
    {
      name: 'restartPolicy is Always, OnFailure or Never',
      text: pod('    restartPolicy: Sometimes'),
      expect: ['pod.yaml:10 spec.containers[0].restartPolicy: must be Always, OnFailure or Never (it overrides the pod\'s restartPolicy for this container), got "Sometimes"'],
    },
    {
      name: "rules need the container's own restartPolicy",
      text: pod(rule42),
      expect: [
        "pod.yaml:8 spec.containers[0].restartPolicy: required when restartPolicyRules is set: the container must set its own restartPolicy (Always, OnFailure or Never), even if it is the pod's",
      ],
    },
    {
      name: 'the action is Restart',
      text: pod('    restartPolicy: Never\n    restartPolicyRules:\n    - action: Ignore\n      exitCodes: {operator: In, values: [42]}'),
      expect: ['pod.yaml:12 spec.containers[0].restartPolicyRules[0].action: must be Restart (the only action Kubernetes 1.34 has), got "Ignore"'],
    },
    {
      name: 'the action is required',
      text: pod('    restartPolicy: Never\n    restartPolicyRules:\n    - exitCodes: {operator: In, values: [42]}'),
      expect: ['pod.yaml:12 spec.containers[0].restartPolicyRules[0].action: required: Restart'],
    },
    {
      name: 'exitCodes are required',
      text: pod('    restartPolicy: Never\n    restartPolicyRules:\n    - action: Restart'),
      expect: ['pod.yaml:12 spec.containers[0].restartPolicyRules[0].exitCodes: required: {operator: In or NotIn, values: [exit codes]}'],
    },
    {
      name: 'the operator is In or NotIn',
      text: pod('    restartPolicy: Never\n    restartPolicyRules:\n    - action: Restart\n      exitCodes: {operator: Equals, values: [42]}'),
      expect: ['pod.yaml:13 spec.containers[0].restartPolicyRules[0].exitCodes.operator: must be In or NotIn, got "Equals"'],
    },
    {
      name: 'values are integers',
      text: pod('    restartPolicy: Never\n    restartPolicyRules:\n    - action: Restart\n      exitCodes: {operator: In, values: [42, "x"]}'),
      expect: ['pod.yaml:13 spec.containers[0].restartPolicyRules[0].exitCodes.values[1]: expected an exit code (an integer), got "x"'],
    },
    {
      name: 'at most 255 values',
      text: pod(
        `    restartPolicy: Never\n    restartPolicyRules:\n    - action: Restart\n      exitCodes: {operator: In, values: [${Array.from({ length: 256 }, (_, i) => i + 1).join(', ')}]}`,
      ),
      expect: ['pod.yaml:13 spec.containers[0].restartPolicyRules[0].exitCodes.values: must have at most 255 values, got 256'],
    },
    {
      name: 'at most 20 rules',
      text: pod(
        `    restartPolicy: Never\n    restartPolicyRules:\n${Array.from({ length: 21 }, () => '    - {action: Restart, exitCodes: {operator: In, values: [42]}}').join('\n')}`,
      ),
      expect: ['pod.yaml:11 spec.containers[0].restartPolicyRules: must have at most 20 rules, got 21'],
    },
    {
      name: 'an unknown key inside a rule',
      text: pod('    restartPolicy: Never\n    restartPolicyRules:\n    - action: Restart\n      onExitCodes: {operator: In, values: [42]}'),
      expect: [
        'pod.yaml:12 spec.containers[0].restartPolicyRules[0].exitCodes: required: {operator: In or NotIn, values: [exit codes]}',
        'pod.yaml:13 spec.containers[0].restartPolicyRules[0].onExitCodes: unknown field "onExitCodes"; did you mean "exitCodes"?',
      ],
    },
    {
      name: "an init container's own restartPolicy OnFailure or Never (Kubernetes 1.34), with rules",
      text: [
        'apiVersion: v1',
        'kind: Pod',
        'metadata:',
        '  name: web',
        'spec:',
        '  initContainers:',
        '  - name: setup',
        '    image: busybox',
        '    restartPolicy: Never',
        rule42,
        '  containers:',
        '  - name: app',
        '    image: busybox',
      ].join('\n'),
      expect: [],
    },
    {
      name: "an init container's rules need its own restartPolicy",
      text: [
        'apiVersion: v1',
        'kind: Pod',
        'metadata:',
        '  name: web',
        'spec:',
        '  initContainers:',
        '  - name: setup',
        '    image: busybox',
        rule42,
        '  containers:',
        '  - name: app',
        '    image: busybox',
      ].join('\n'),
      expect: [
        "pod.yaml:7 spec.initContainers[0].restartPolicy: required when restartPolicyRules is set: the init container must set its own restartPolicy (OnFailure or Never), even if it is the pod's",
      ],
    },
    {
      name: "an init container's restartPolicy is Always, OnFailure or Never",
      text: [
        'apiVersion: v1',
        'kind: Pod',
        'metadata:',
        '  name: web',
        'spec:',
        '  initContainers:',
        '  - name: setup',
        '    image: busybox',
        '    restartPolicy: Sometimes',
        '  containers:',
        '  - name: app',
        '    image: busybox',
      ].join('\n'),
      expect: [
        'pod.yaml:9 spec.initContainers[0].restartPolicy: must be Always (a sidecar), OnFailure or Never (they override the pod\'s restartPolicy for this init container), or unset, got "Sometimes"',
      ],
    },
    {
      name: 'a sidecar takes no rules',
      text: [
        'apiVersion: v1',
        'kind: Pod',
        'metadata:',
        '  name: web',
        'spec:',
        '  initContainers:',
        '  - name: setup',
        '    image: busybox',
        '    restartPolicy: Always',
        rule42,
        '  containers:',
        '  - name: app',
        '    image: busybox',
      ].join('\n'),
      expect: ['pod.yaml:10 spec.initContainers[0].restartPolicyRules: may not be set on a sidecar (an init container with restartPolicy: Always, which always restarts)'],
    },
    {
      name: "a Job's template takes them (the Job controller counts as Kubernetes does: jobTally.ts)",
      text: [
        'apiVersion: batch/v1',
        'kind: Job',
        'metadata:',
        '  name: j',
        'spec:',
        '  template:',
        '    spec:',
        '      restartPolicy: Never',
        '      containers:',
        '      - name: app',
        '        image: busybox',
        '        restartPolicy: Never',
        '        restartPolicyRules:',
        '        - action: Restart',
        '          exitCodes: {operator: In, values: [42]}',
      ].join('\n'),
      expect: [],
    },
    {
      name: "a Deployment's template takes them",
      text: [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata:',
        '  name: d',
        'spec:',
        '  selector: {matchLabels: {app: d}}',
        '  template:',
        '    metadata: {labels: {app: d}}',
        '    spec:',
        '      containers:',
        '      - name: app',
        '        image: busybox',
        '        restartPolicy: OnFailure',
      ].join('\n'),
      expect: [],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(problems(c.text), c.expect));
});
