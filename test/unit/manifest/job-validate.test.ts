// Validation of batch/v1 Jobs (manifest/workloadRules.ts, pkg/apis/batch/validation): the Kubernetes docs' examples
// pass, each rule fails with its message at its line, a List may hold a Job.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem } from '../../../src/errors.js';
import { validateDocument } from '../../../src/manifest/validate.js';
import { parseYaml } from '../../../src/input/yaml.js';

/** Every document's validation: problems (file:line path: message), warnings, and the workloads as kind/name@line. */
function check(text: string): { problems: string[]; warnings: string[]; workloads: string[] } {
  const parsed = parseYaml(text, 'j.yaml');
  const results = parsed.documents.map((doc) => validateDocument(doc, 'j.yaml'));
  return {
    // In line order, as parseManifests reports them.
    problems: [...parsed.problems, ...results.flatMap((r) => r.problems)].sort((x, y) => (x.line ?? 0) - (y.line ?? 0)).map(formatProblem),
    warnings: results.flatMap((r) => r.warnings).map((w) => `${w.line} ${w.path}: ${w.message}`),
    workloads: results.flatMap((r) => r.workloads).map((w) => `${w.kind}/${(w.value.metadata as { name: string }).name}@${w.line}`),
  };
}
const problems = (text: string): string[] => check(text).problems;

// concepts/workloads/controllers/job: the pi Job, as written there.
const pi = `apiVersion: batch/v1
kind: Job
metadata:
  name: pi
spec:
  template:
    spec:
      containers:
      - name: pi
        image: perl:5.34.0
        command: ["perl",  "-Mbignum=bpi", "-wle", "print bpi(2000)"]
      restartPolicy: Never
  backoffLimit: 4
`;

const indexed = `apiVersion: batch/v1
kind: Job
metadata:
  name: indexed
spec:
  completions: 5
  parallelism: 3
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: worker
        image: busybox:1.36
        command: ["sh", "-c", "echo index $JOB_COMPLETION_INDEX"]
`;

/** Replace the first occurrence of `from` in `text`, failing loudly when it is not there (a test that edits nothing). */
function edit(text: string, from: string, to: string): string {
  assert.ok(text.includes(from), `no ${JSON.stringify(from)} in the example`);
  return text.replace(from, to);
}
/** The pi Job with `line` added to its spec (after backoffLimit: line 14). */
const piWith = (line: string): string => `${pi}  ${line}\n`;

describe('Job: valid examples pass', () => {
  it('the pi Job', () => assert.deepEqual(check(pi), { problems: [], warnings: [], workloads: ['Job/pi@1'] }));
  it('an Indexed Job', () => assert.deepEqual(check(indexed), { problems: [], warnings: [], workloads: ['Job/indexed@1'] }));
  it('a List holding a Job beside a Pod', () => {
    const indent = (text: string): string =>
      text
        .trimEnd()
        .split('\n')
        .map((l, i) => (i === 0 ? `- ${l}` : `  ${l}`))
        .join('\n');
    const pod = 'apiVersion: v1\nkind: Pod\nmetadata: {name: solo}\nspec:\n  containers: [{name: c, image: busybox}]\n';
    const list = `apiVersion: v1\nkind: List\nitems:\n${[pod, pi].map(indent).join('\n')}\n`;
    assert.deepEqual(check(list).problems, []);
    assert.deepEqual(check(list).workloads, ['Job/pi@9']);
    // A problem inside the Job carries its items[1] path and its own line.
    assert.deepEqual(problems(list.replace('restartPolicy: Never', 'restartPolicy: Always')), [
      'j.yaml:20 items[1].spec.template.spec.restartPolicy: Unsupported value: Always: supported values: OnFailure, Never',
    ]);
  });
  it("the documentation's podFailurePolicy example: FailJob on exit code 42 and Ignore on DisruptionTarget", () => {
    const example = `apiVersion: batch/v1
kind: Job
metadata:
  name: job-pod-failure-policy-example
spec:
  completions: 12
  parallelism: 3
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: docker.io/library/bash:5
        command: ["bash"]
        args: ["-c", "echo Hello world! && sleep 5 && exit 42"]
  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes:
        containerName: main
        operator: In
        values: [42]
    - action: Ignore
      onPodConditions:
      - type: DisruptionTarget
`;
    assert.deepEqual(check(example).problems, []);
  });
  it('status is read-only: a warning', () => {
    assert.deepEqual(check(`${pi}status: {succeeded: 1}\n`).warnings, ['14 status: ignored, runpod reports the status it observes']);
  });
});

describe('Job: one rule per row', () => {
  const cases: Array<{ name: string; text: string; expect: string[] }> = [
    // Kind and metadata.
    { name: 'a Job of batch/v1beta1', text: edit(pi, 'batch/v1', 'batch/v1beta1'), expect: ['j.yaml:1 apiVersion: expected batch/v1 for kind Job, got "batch/v1beta1"'] },
    { name: 'a Job of v1', text: edit(pi, 'batch/v1', 'v1'), expect: ['j.yaml:1 apiVersion: expected batch/v1 for kind Job, got "v1"'] },
    { name: 'no spec', text: 'apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n', expect: ['j.yaml:1 spec: required (a Job needs spec.template)'] },
    { name: 'no name', text: edit(pi, '  name: pi\n', '  labels: {a: b}\n'), expect: ['j.yaml:3 metadata.name: required'] },
    {
      name: 'a name is a DNS-1123 subdomain',
      text: edit(pi, 'name: pi\n', 'name: Pi\n'),
      expect: [
        "j.yaml:4 metadata.name: must be a lowercase RFC 1123 subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit (e.g. 'example.com')",
      ],
    },
    { name: 'a name with dots', text: edit(pi, 'name: pi\n', 'name: pi.v1\n'), expect: [] },
    { name: 'a name of 63 characters', text: edit(pi, 'name: pi\n', `name: ${'p'.repeat(63)}\n`), expect: [] },
    {
      name: 'a name of 64 characters',
      text: edit(pi, 'name: pi\n', `name: ${'p'.repeat(64)}\n`),
      expect: ["j.yaml:4 metadata.name: must be no more than 63 characters (got 64): a Job's name is its pods' job-name label value"],
    },
    {
      name: 'a namespace',
      text: edit(pi, 'name: pi\n', 'name: pi\n  namespace: Bad_NS\n'),
      expect: ["j.yaml:5 metadata.namespace: must be a lowercase RFC 1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit (e.g. 'my-name')"],
    },

    // The pod template.
    { name: 'no template', text: 'apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  backoffLimit: 1\n', expect: ['j.yaml:4 spec.template: required'] },
    {
      name: "a container without image: the container's line",
      text: edit(pi, '        image: perl:5.34.0\n', ''),
      expect: ['j.yaml:9 spec.template.spec.containers[0].image: required'],
    },
    {
      name: 'an unknown container field, with a hint',
      text: edit(pi, 'command:', 'comand:'),
      expect: ['j.yaml:11 spec.template.spec.containers[0].comand: unknown field "comand"; did you mean "command"?'],
    },
    {
      name: 'a misplaced pod field says where it belongs',
      text: edit(pi, '  backoffLimit: 4', '  restartPolicy: Never'),
      expect: ['j.yaml:13 spec.restartPolicy: unknown field "restartPolicy" (restartPolicy belongs in spec.template.spec)'],
    },
    {
      name: 'restartPolicy unset',
      text: edit(pi, '      restartPolicy: Never\n', ''),
      expect: [
        'j.yaml:7 spec.template.spec.restartPolicy: required in a Job: Never or OnFailure (unset means Always, which Kubernetes refuses for a Job: supported values: OnFailure, Never)',
      ],
    },
    {
      name: 'restartPolicy Always',
      text: edit(pi, 'restartPolicy: Never', 'restartPolicy: Always'),
      expect: ['j.yaml:12 spec.template.spec.restartPolicy: Unsupported value: Always: supported values: OnFailure, Never'],
    },
    { name: 'restartPolicy OnFailure', text: edit(pi, 'restartPolicy: Never', 'restartPolicy: OnFailure'), expect: [] },
    {
      name: 'restartPolicy OnFailure with a podFailurePolicy',
      text: piWith('podFailurePolicy: {rules: [{action: FailJob, onExitCodes: {operator: In, values: [42]}}]}').replace('restartPolicy: Never', 'restartPolicy: OnFailure'),
      expect: [
        'j.yaml:12 spec.template.spec.restartPolicy: only Never is supported when podFailurePolicy is specified (got OnFailure): set restartPolicy: Never, or remove spec.podFailurePolicy',
      ],
    },
    {
      name: 'restartPolicy OnFailure with backoffLimitPerIndex',
      text: `${edit(indexed, 'restartPolicy: Never', 'restartPolicy: OnFailure')}  backoffLimitPerIndex: 1\n`,
      expect: [
        'j.yaml:11 spec.template.spec.restartPolicy: only Never is supported when backoffLimitPerIndex is specified (got OnFailure): set restartPolicy: Never, or remove spec.backoffLimitPerIndex',
      ],
    },
    {
      name: 'an invalid restartPolicy: one problem, the enum',
      text: edit(pi, 'restartPolicy: Never', 'restartPolicy: Sometimes'),
      expect: ['j.yaml:12 spec.template.spec.restartPolicy: must be one of Always, Never, OnFailure, got "Sometimes"'],
    },
    { name: 'template labels of its own', text: edit(pi, '  template:\n', '  template:\n    metadata:\n      labels: {app: pi}\n'), expect: [] },

    // Counts, modes and deadlines.
    { name: 'negative completions', text: edit(indexed, 'completions: 5', 'completions: -1'), expect: ['j.yaml:6 spec.completions: must be greater than or equal to 0'] },
    { name: 'zero completions', text: edit(indexed, 'completions: 5', 'completions: 0'), expect: [] },
    { name: 'completions of the wrong type', text: edit(indexed, 'completions: 5', 'completions: five'), expect: ['j.yaml:6 spec.completions: expected integer, got "five"'] },
    { name: 'negative parallelism', text: edit(indexed, 'parallelism: 3', 'parallelism: -3'), expect: ['j.yaml:7 spec.parallelism: must be greater than or equal to 0'] },
    { name: 'parallelism 1.5', text: edit(indexed, 'parallelism: 3', 'parallelism: 1.5'), expect: ['j.yaml:7 spec.parallelism: expected integer, got 1.5'] },
    { name: 'Indexed without completions', text: edit(indexed, '  completions: 5\n', ''), expect: ['j.yaml:5 spec.completions: required when completionMode is Indexed'] },
    { name: 'NonIndexed without completions', text: edit(edit(indexed, '  completions: 5\n', ''), 'Indexed', 'NonIndexed'), expect: [] },
    {
      name: 'an unknown completionMode',
      text: edit(indexed, 'completionMode: Indexed', 'completionMode: Ordered'),
      expect: ['j.yaml:8 spec.completionMode: must be one of Indexed, NonIndexed, got "Ordered"'],
    },
    { name: 'negative backoffLimit', text: edit(pi, 'backoffLimit: 4', 'backoffLimit: -1'), expect: ['j.yaml:13 spec.backoffLimit: must be greater than or equal to 0'] },
    { name: 'backoffLimit 0', text: edit(pi, 'backoffLimit: 4', 'backoffLimit: 0'), expect: [] },
    { name: 'activeDeadlineSeconds', text: piWith('activeDeadlineSeconds: 100'), expect: [] },
    { name: 'activeDeadlineSeconds 0', text: piWith('activeDeadlineSeconds: 0'), expect: ['j.yaml:14 spec.activeDeadlineSeconds: must be greater than 0'] },
    { name: 'negative activeDeadlineSeconds', text: piWith('activeDeadlineSeconds: -5'), expect: ['j.yaml:14 spec.activeDeadlineSeconds: must be greater than 0'] },
    { name: 'ttlSecondsAfterFinished 0', text: piWith('ttlSecondsAfterFinished: 0'), expect: [] },
    { name: 'ttlSecondsAfterFinished 100', text: piWith('ttlSecondsAfterFinished: 100'), expect: [] },
    {
      name: 'negative ttlSecondsAfterFinished',
      text: piWith('ttlSecondsAfterFinished: -1'),
      expect: ['j.yaml:14 spec.ttlSecondsAfterFinished: must be greater than or equal to 0'],
    },

    // Refused fields.
    { name: 'suspend false', text: piWith('suspend: false'), expect: [] },
    { name: 'suspend true', text: piWith('suspend: true'), expect: [] },
    { name: 'a selector', text: piWith('selector: {matchLabels: {app: pi}}'), expect: ["j.yaml:14 spec.selector: not supported by runpod (runpod labels a Job's pods itself)"] },
    { name: 'manualSelector false', text: piWith('manualSelector: false'), expect: [] },
    { name: 'manualSelector true', text: piWith('manualSelector: true'), expect: ["j.yaml:14 spec.manualSelector: not supported by runpod (runpod labels a Job's pods itself)"] },
    // podFailurePolicy on exit codes (ValidatePodFailurePolicy).
    {
      name: 'a podFailurePolicy on exit codes',
      text: piWith(
        'podFailurePolicy: {rules: [{action: FailJob, onExitCodes: {containerName: pi, operator: In, values: [42]}}, {action: Ignore, onExitCodes: {operator: NotIn, values: [0, 1]}}]}',
      ),
      expect: [],
    },
    {
      name: 'a rule with FailIndex without backoffLimitPerIndex',
      text: piWith('podFailurePolicy: {rules: [{action: FailIndex, onExitCodes: {operator: In, values: [42]}}]}'),
      expect: ['j.yaml:14 spec.podFailurePolicy.rules[0].action: FailIndex requires spec.backoffLimitPerIndex to be set (it fails the index, which only a limit per index tracks)'],
    },
    {
      name: 'a rule with FailIndex and backoffLimitPerIndex',
      text: `${indexed}  backoffLimitPerIndex: 1\n  podFailurePolicy: {rules: [{action: FailIndex, onExitCodes: {operator: In, values: [42]}}]}\n`,
      expect: [],
    },
    {
      name: 'In with 0',
      text: piWith('podFailurePolicy: {rules: [{action: Count, onExitCodes: {operator: In, values: [0, 3]}}]}'),
      expect: ['j.yaml:14 spec.podFailurePolicy.rules[0].onExitCodes.values: 0 cannot be used with In: a container that exited 0 did not fail'],
    },
    {
      name: 'values out of order',
      text: piWith('podFailurePolicy: {rules: [{action: Count, onExitCodes: {operator: In, values: [3, 2]}}]}'),
      expect: ['j.yaml:14 spec.podFailurePolicy.rules[0].onExitCodes.values: must be whole numbers in increasing order, without duplicates'],
    },
    {
      name: 'an unknown container',
      text: piWith('podFailurePolicy: {rules: [{action: Count, onExitCodes: {containerName: nope, operator: In, values: [3]}}]}'),
      expect: ['j.yaml:14 spec.podFailurePolicy.rules[0].onExitCodes.containerName: no container or init container named nope in spec.template.spec (has pi)'],
    },
    { name: 'onPodConditions', text: piWith('podFailurePolicy: {rules: [{action: Ignore, onPodConditions: [{type: DisruptionTarget, status: "True"}]}]}'), expect: [] },
    {
      name: 'onPodConditions without status (it defaults to True)',
      text: piWith('podFailurePolicy: {rules: [{action: Ignore, onPodConditions: [{type: DisruptionTarget}]}]}'),
      expect: [],
    },
    {
      name: 'onPodConditions without type',
      text: piWith('podFailurePolicy: {rules: [{action: Ignore, onPodConditions: [{status: "True"}]}]}'),
      expect: ['j.yaml:14 spec.podFailurePolicy.rules[0].onPodConditions[0].type: required'],
    },
    {
      name: 'onPodConditions with an odd status',
      text: piWith('podFailurePolicy: {rules: [{action: Ignore, onPodConditions: [{type: DisruptionTarget, status: Maybe}]}]}'),
      expect: ['j.yaml:14 spec.podFailurePolicy.rules[0].onPodConditions[0].status: Unsupported value: Maybe: supported values: False, True, Unknown'],
    },
    {
      name: 'onExitCodes and onPodConditions in one rule',
      text: piWith('podFailurePolicy: {rules: [{action: Ignore, onExitCodes: {operator: In, values: [1]}, onPodConditions: [{type: DisruptionTarget, status: "True"}]}]}'),
      expect: ['j.yaml:14 spec.podFailurePolicy.rules[0]: specifying both onExitCodes and onPodConditions in one rule is not supported: make them two rules'],
    },
    { name: 'backoffLimitPerIndex on an Indexed Job', text: `${indexed}  backoffLimitPerIndex: 1\n  maxFailedIndexes: 5\n`, expect: [] },
    {
      name: 'a backoffLimitPerIndex without Indexed',
      text: piWith('backoffLimitPerIndex: 1'),
      expect: ['j.yaml:14 spec.backoffLimitPerIndex: requires completionMode: Indexed (a limit per completion index needs indexes)'],
    },
    {
      name: 'a maxFailedIndexes alone',
      text: `${indexed}  maxFailedIndexes: 1\n`,
      expect: ['j.yaml:5 spec.backoffLimitPerIndex: required when maxFailedIndexes is specified'],
    },
    {
      name: 'maxFailedIndexes above completions',
      text: `${indexed}  backoffLimitPerIndex: 1\n  maxFailedIndexes: 6\n`,
      expect: ['j.yaml:17 spec.maxFailedIndexes: must be less than or equal to completions (5), got 6'],
    },
    {
      name: 'a negative backoffLimitPerIndex',
      text: `${indexed}  backoffLimitPerIndex: -1\n`,
      expect: ['j.yaml:16 spec.backoffLimitPerIndex: must be greater than or equal to 0'],
    },
    {
      name: 'a successPolicy',
      text: piWith('successPolicy: {rules: [{succeededCount: 1}]}'),
      expect: ['j.yaml:14 spec.successPolicy: not supported by runpod (which succeeded indexes complete the Job early; not implemented yet)'],
    },
    {
      name: 'a podReplacementPolicy',
      text: piWith('podReplacementPolicy: Failed'),
      expect: ['j.yaml:14 spec.podReplacementPolicy: not supported by runpod (when a replacement pod may start; not implemented yet)'],
    },
    {
      name: 'a managedBy',
      text: piWith('managedBy: kueue.x-k8s.io/multikueue'),
      expect: ['j.yaml:14 spec.managedBy: not supported by runpod (hands the Job to another controller; not implemented yet)'],
    },
    {
      name: 'an unknown spec field, with a hint',
      text: piWith('backofLimit: 3'),
      expect: ['j.yaml:14 spec.backofLimit: unknown field "backofLimit"; did you mean "backoffLimit"?'],
    },
    { name: 'an unknown top-level field', text: `${pi}specs: {}\n`, expect: ['j.yaml:14 specs: unknown field "specs"; did you mean "spec"?'] },
    {
      name: 'a Deployment field in a Job',
      text: piWith('replicas: 2'),
      expect: ['j.yaml:14 spec.replicas: unknown field "replicas" (not in the Kubernetes 1.34 API runpod knows)'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(problems(c.text), c.expect));
  }

  it('every problem at once, each at its line', () => {
    const text =
      edit(edit(edit(indexed, '  completions: 5\n', ''), 'restartPolicy: Never', 'restartPolicy: Always'), '        image: busybox:1.36\n', '') + '  ttlSecondsAfterFinished: -1\n';
    assert.deepEqual(problems(text), [
      'j.yaml:5 spec.completions: required when completionMode is Indexed',
      'j.yaml:10 spec.template.spec.restartPolicy: Unsupported value: Always: supported values: OnFailure, Never',
      'j.yaml:12 spec.template.spec.containers[0].image: required',
      'j.yaml:14 spec.ttlSecondsAfterFinished: must be greater than or equal to 0',
    ]);
  });
});
