// Kinds of a kubectl-apply folder (issue 12): what runpod runs, skips with a warning, or refuses (manifest/kinds.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kindVerdict } from '../../../src/manifest/kinds.js';
import { parseManifests } from '../../../src/manifest/parse.js';
import { unmatchedSkipKinds } from '../../../src/manifest/validate.js';

const parse = (text: string, skipKinds: string[] = []) => parseManifests([{ source: { file: 'k8s.yaml' }, text }], { defaultNamespace: 'default', skipKinds });

const pod = 'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: main, image: busybox:1}]\n';

describe('kinds: read, skipped with a warning, refused', () => {
  const none = new Set<string>();
  const read = new Set(['Pod']);
  it('cluster-only kinds are skipped, each with why; by group, so a look-alike of another group is not', () => {
    for (const [apiVersion, kind] of [
      ['v1', 'Namespace'],
      ['v1', 'ServiceAccount'],
      ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding'],
      ['autoscaling/v2', 'HorizontalPodAutoscaler'],
      ['policy/v1', 'PodDisruptionBudget'],
      ['networking.k8s.io/v1', 'Ingress'],
    ] as const) {
      const v = kindVerdict(apiVersion, kind, read, none);
      assert.equal(v?.action, 'skip', kind);
    }
    assert.equal(kindVerdict('example.com/v1', 'Ingress', read, none), undefined);
  });
  it('NetworkPolicy is refused unless the user skips it; CronJob is refused with a hint', () => {
    assert.equal(kindVerdict('networking.k8s.io/v1', 'NetworkPolicy', read, none)?.action, 'refuse');
    assert.equal(kindVerdict('networking.k8s.io/v1', 'NetworkPolicy', read, new Set(['NetworkPolicy']))?.action, 'skip');
    assert.equal(kindVerdict('batch/v1', 'CronJob', read, none)?.action, 'refuse');
  });
  it('a folder with a Pod, a Namespace, a Role and a ConfigMap: the pod runs, two warnings, nothing refused', () => {
    const r = parse(
      `apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: reader}\nrules: []\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {a: b}\n---\n${pod}`,
    );
    assert.deepEqual(r.problems, []);
    assert.deepEqual(
      r.pods.map((p) => p.pod.metadata.name),
      ['web'],
    );
    assert.deepEqual(
      r.skipped.map((s) => `${s.kind} ${s.name} @${s.line}`),
      ['Namespace shop @1', 'Role reader @5'],
    );
    assert.deepEqual(
      r.warnings.map((w) => `${w.line} ${w.path}: ${w.message}`),
      [
        '2 kind: Namespace shop skipped: a namespace is only a name on one host; runpod creates nothing for it',
        '6 kind: Role reader skipped: there is no API server on one host to authorize requests',
      ],
    );
  });
  it('a NetworkPolicy refuses the input with the reason and the flag; --skip-kind runs the rest', () => {
    const np = 'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: deny}\nspec: {podSelector: {}}\n---\n';
    const refused = parse(np + pod);
    assert.deepEqual(
      refused.problems.map((p) => `${p.line} ${p.path}: ${p.message}`),
      [
        '2 kind: NetworkPolicy deny is refused: it restricts which pods may talk to which, and runpod cannot enforce that on one Docker host; to run the rest without it, pass --skip-kind NetworkPolicy',
      ],
    );
    const skipped = parse(np + pod, ['NetworkPolicy']);
    assert.deepEqual(skipped.problems, []);
    assert.equal(skipped.pods.length, 1);
    assert.match(skipped.warnings[0]!.message, /NetworkPolicy deny skipped: skipped as asked \(--skip-kind\)/);
  });
  it('an unknown kind names the flag that would skip it; a skipped kind inside a List is skipped alone', () => {
    assert.match(parse('apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n').problems[0]!.message, /kind Widget is not supported \(.*; --skip-kind Widget skips it\)/);
    const list = parse(
      `apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ServiceAccount\n  metadata: {name: app}\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: web}\n  spec:\n    containers: [{name: main, image: busybox:1}]\n`,
    );
    assert.deepEqual(list.problems, []);
    assert.deepEqual(
      list.skipped.map((s) => s.kind),
      ['ServiceAccount'],
    );
    assert.equal(list.pods.length, 1);
  });
});

describe('--skip-kind names that matched no document', () => {
  const netpol = 'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: deny}\nspec: {podSelector: {}}\n---\n';
  it('each is said, with the kind meant when only its case differs; a kind that matched is not', () => {
    const r = parse(`${netpol}${pod}`, ['NetworkPolicy', 'networkpolicy', 'Ingress']);
    assert.deepEqual(r.problems, []);
    assert.deepEqual(unmatchedSkipKinds(['NetworkPolicy', 'networkpolicy', 'Ingress'], r.skipped), [
      '--skip-kind networkpolicy: no document of the input is of kind networkpolicy, so nothing was skipped for it (kinds are matched as written: did you mean NetworkPolicy?)',
      '--skip-kind Ingress: no document of the input is of kind Ingress, so nothing was skipped for it',
    ]);
  });
  it('a kind that is also skipped by default (Namespace) counts as matched when a document has it', () => {
    const r = parse(`apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\n${pod}`, ['Namespace']);
    assert.deepEqual(unmatchedSkipKinds(['Namespace'], r.skipped), []);
  });
});

describe('removed apiVersions of the kinds runpod knows: named, with the release and the apiVersion to use', () => {
  const cron =
    'apiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: hello}\nspec:\n  schedule: "* * * * *"\n  jobTemplate: {spec: {template: {spec: {restartPolicy: OnFailure, containers: [{name: c, image: busybox:1}]}}}}\n';
  it('a CronJob of batch/v1beta1, with --from-cronjob: the apiVersion and 1.25, not "no CronJob named"', () => {
    const r = parseManifests([{ source: { file: 'k8s.yaml' }, text: cron }], { defaultNamespace: 'default', fromCronJobs: ['hello'] });
    assert.deepEqual(
      r.problems.map((p) => `${p.line} ${p.path}: ${p.message}`),
      [
        '1 apiVersion: batch/v1beta1 CronJob was removed in Kubernetes 1.25 (no API server serves it any more); use apiVersion batch/v1 (--from-cronjob hello runs a batch/v1 CronJob)',
      ],
    );
  });
  it('kinds runpod runs, skips or refuses: each removed apiVersion refused by name', () => {
    for (const [apiVersion, kind, release, use] of [
      ['extensions/v1beta1', 'Deployment', '1.16', 'apps/v1'],
      ['apps/v1beta2', 'StatefulSet', '1.16', 'apps/v1'],
      ['apps/v1beta2', 'DaemonSet', '1.16', 'apps/v1'],
      ['extensions/v1beta1', 'ReplicaSet', '1.16', 'apps/v1'],
      ['extensions/v1beta1', 'NetworkPolicy', '1.16', 'networking.k8s.io/v1'],
      ['networking.k8s.io/v1beta1', 'Ingress', '1.22', 'networking.k8s.io/v1'],
      ['rbac.authorization.k8s.io/v1beta1', 'ClusterRoleBinding', '1.22', 'rbac.authorization.k8s.io/v1'],
      ['policy/v1beta1', 'PodDisruptionBudget', '1.25', 'policy/v1'],
      ['autoscaling/v2beta2', 'HorizontalPodAutoscaler', '1.26', 'autoscaling/v2'],
    ] as const) {
      const r = parse(`apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata: {name: x}\nspec: {}\n`);
      assert.deepEqual(
        r.problems.map((p) => `${p.line} ${p.path}: ${p.message}`),
        [`1 apiVersion: ${apiVersion} ${kind} was removed in Kubernetes ${release} (no API server serves it any more); use apiVersion ${use}`],
        kind,
      );
    }
  });
  it('--skip-kind still skips a removed apiVersion (the user said so); a served one is unchanged', () => {
    assert.deepEqual(parse('apiVersion: rbac.authorization.k8s.io/v1beta1\nkind: Role\nmetadata: {name: r}\n', ['Role']).problems, []);
    assert.deepEqual(
      parse('apiVersion: apps/v1beta3\nkind: Deployment\nmetadata: {name: x}\nspec: {}\n').problems.map((p) => p.message),
      ['expected apps/v1 for kind Deployment, got "apps/v1beta3"'],
    );
  });
});
