// Validation of the workload kinds and PersistentVolumeClaims (manifest/workloadRules.ts): valid examples pass,
// each rule fails with its message at its line, every problem of an input is reported at once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem } from '../../../src/errors.js';
import { parseManifests } from '../../../src/manifest/parse.js';
import { validateDocument } from '../../../src/manifest/validate.js';
import { parseYaml } from '../../../src/input/yaml.js';

const options = { defaultNamespace: 'default' };
const parse = (text: string) => parseManifests([{ source: { file: 'w.yaml' }, text }], options);
const problems = (text: string): string[] => parse(text).problems.map(formatProblem);
const warnings = (text: string): string[] => parse(text).warnings.map((w) => `${w.line} ${w.path}: ${w.message}`);
/** The workloads each document of a text yields, as kind/name. */
function workloads(text: string): string[] {
  return parseYaml(text, 'w.yaml').documents.flatMap((doc) =>
    validateDocument(doc, 'w.yaml').workloads.map((w) => {
      const meta = w.value.metadata as { name: string };
      return `${w.kind}/${meta.name}@${w.line}`;
    }),
  );
}

// The Kubernetes docs' examples (concepts/workloads/controllers), as written there.
const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
  labels:
    app: nginx
spec:
  replicas: 3
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.14.2
        ports:
        - containerPort: 80
`;

const statefulSet = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  selector:
    matchLabels:
      app: nginx # has to match .spec.template.metadata.labels
  serviceName: "nginx"
  replicas: 3 # by default is 1
  minReadySeconds: 10 # by default is 0
  template:
    metadata:
      labels:
        app: nginx # has to match .spec.selector.matchLabels
    spec:
      terminationGracePeriodSeconds: 10
      containers:
      - name: nginx
        image: registry.k8s.io/nginx-slim:0.24
        ports:
        - containerPort: 80
          name: web
        volumeMounts:
        - name: www
          mountPath: /usr/share/nginx/html
  volumeClaimTemplates:
  - metadata:
      name: www
    spec:
      accessModes: [ "ReadWriteOnce" ]
      resources:
        requests:
          storage: 1Gi
`;

const daemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: fluentd-elasticsearch
  namespace: kube-system
  labels:
    k8s-app: fluentd-logging
spec:
  selector:
    matchLabels:
      name: fluentd-elasticsearch
  template:
    metadata:
      labels:
        name: fluentd-elasticsearch
    spec:
      tolerations:
      - key: node-role.kubernetes.io/control-plane
        operator: Exists
        effect: NoSchedule
      containers:
      - name: fluentd-elasticsearch
        image: quay.io/fluentd_elasticsearch/fluentd:v2.5.2
        resources:
          limits:
            memory: 200Mi
          requests:
            cpu: 100m
            memory: 200Mi
        volumeMounts:
        - name: varlog
          mountPath: /var/log
      terminationGracePeriodSeconds: 30
      volumes:
      - name: varlog
        hostPath:
          path: /var/log
`;

const replicationController = `apiVersion: v1
kind: ReplicationController
metadata:
  name: nginx
spec:
  replicas: 3
  selector:
    app: nginx
  template:
    metadata:
      name: nginx
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx
        ports:
        - containerPort: 80
`;

const replicaSet = `apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: frontend
  labels:
    app: guestbook
    tier: frontend
spec:
  replicas: 3
  selector:
    matchLabels:
      tier: frontend
  template:
    metadata:
      labels:
        tier: frontend
    spec:
      containers:
      - name: php-redis
        image: us-docker.pkg.dev/google-samples/containers/gke/gb-frontend:v5
`;

const claim = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes:
  - ReadWriteOnce
  volumeMode: Filesystem
  resources:
    requests:
      storage: 8Gi
`;

/** Replace the first occurrence of `from` in `text`, failing loudly when it is not there (a test that edits nothing). */
function edit(text: string, from: string, to: string): string {
  assert.ok(text.includes(from), `no ${JSON.stringify(from)} in the example`);
  return text.replace(from, to);
}

describe('workloads: valid examples pass', () => {
  const cases: Array<[string, string, string[]]> = [
    ['the nginx Deployment', deployment, ['Deployment/nginx-deployment@1']],
    ['the web StatefulSet with its www claim template', statefulSet, ['StatefulSet/web@1']],
    ['a fluentd DaemonSet', daemonSet, ['DaemonSet/fluentd-elasticsearch@1']],
    ['a ReplicationController', replicationController, ['ReplicationController/nginx@1']],
    ['a ReplicaSet', replicaSet, ['ReplicaSet/frontend@1']],
    ['a PersistentVolumeClaim', claim, ['PersistentVolumeClaim/data@1']],
  ];
  for (const [name, text, want] of cases) {
    it(name, () => {
      assert.deepEqual(problems(text), []);
      assert.deepEqual(workloads(text), want);
    });
  }

  it('warnings: scheduling in the template, storage size, a template name', () => {
    assert.deepEqual(warnings(daemonSet), ['17 spec.template.spec.tolerations: ignored, scheduling has no meaning on one host']);
    assert.deepEqual(warnings(statefulSet), [
      "34 spec.volumeClaimTemplates[0].spec.resources.requests.storage: not enforced: a claim is a local engine volume or a PersistentVolume's host directory, neither has a size limit on Docker",
    ]);
    assert.deepEqual(warnings(replicationController), ['11 spec.template.metadata.name: ignored: the pods are named after the ReplicationController']);
    assert.deepEqual(warnings(claim), [
      "11 spec.resources.requests.storage: not enforced: a claim is a local engine volume or a PersistentVolume's host directory, neither has a size limit on Docker",
    ]);
  });

  it('a multi-document file and a List mixing every kind with Pods and ConfigMaps', () => {
    const pod = 'apiVersion: v1\nkind: Pod\nmetadata: {name: solo}\nspec:\n  containers: [{name: c, image: busybox}]\n';
    const multi = [deployment, statefulSet, pod, claim].join('---\n');
    assert.deepEqual(problems(multi), []);
    assert.deepEqual(workloads(multi), ['Deployment/nginx-deployment@1', 'StatefulSet/web@23', 'PersistentVolumeClaim/data@64']);
    assert.deepEqual(
      parse(multi)
        .pods.filter((p) => p.owner === undefined)
        .map((p) => p.pod.metadata.name),
      ['solo'],
    );
    // The workloads' pods come with them: 3 of the Deployment, web-0..2 of the StatefulSet.
    assert.deepEqual(
      parse(multi)
        .pods.filter((p) => p.owner !== undefined)
        .map((p) => p.owner),
      [...Array(3).fill('deployment/nginx-deployment'), ...Array(3).fill('statefulset/web')],
    );

    const indent = (text: string): string =>
      text
        .trimEnd()
        .split('\n')
        .map((l, i) => (i === 0 ? `- ${l}` : `  ${l}`))
        .join('\n');
    const items = [deployment, daemonSet, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {a: b}\n', replicationController, claim];
    const listText = `apiVersion: v1\nkind: List\nitems:\n${items.map(indent).join('\n')}\n`;
    assert.deepEqual(problems(listText), []);
    assert.deepEqual(workloads(listText), [
      'Deployment/nginx-deployment@4',
      'DaemonSet/fluentd-elasticsearch@25',
      'ReplicationController/nginx@66',
      'PersistentVolumeClaim/data@85',
    ]);
    // A problem inside a List item carries its items[i] path and its own line.
    const bad = listText.replace(/^ *image: nginx:1\.14\.2\n/m, '').replace('storage: 8Gi', 'storage: 0');
    assert.deepEqual(problems(bad), [
      'w.yaml:21 items[0].spec.template.spec.containers[0].image: required',
      'w.yaml:94 items[4].spec.resources.requests.storage: must be greater than zero',
    ]);
  });
});

describe('workloads: one rule per row', () => {
  const cases: Array<{ name: string; text: string; expect: string[] }> = [
    // Kinds and apiVersions.
    {
      name: 'a Deployment of extensions/v1beta1',
      text: edit(deployment, 'apps/v1', 'extensions/v1beta1'),
      expect: ['w.yaml:1 apiVersion: extensions/v1beta1 Deployment was removed in Kubernetes 1.16 (no API server serves it any more); use apiVersion apps/v1'],
    },
    {
      name: 'a StatefulSet of apps/v1beta2',
      text: edit(statefulSet, 'apps/v1', 'apps/v1beta2'),
      expect: ['w.yaml:1 apiVersion: apps/v1beta2 StatefulSet was removed in Kubernetes 1.16 (no API server serves it any more); use apiVersion apps/v1'],
    },
    {
      name: 'a ReplicationController of apps/v1',
      text: edit(replicationController, 'apiVersion: v1', 'apiVersion: apps/v1'),
      expect: ['w.yaml:1 apiVersion: expected v1 for kind ReplicationController, got "apps/v1"'],
    },
    {
      name: 'no spec',
      text: 'apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\n',
      expect: ['w.yaml:1 spec: required (a DaemonSet needs spec.selector and spec.template)'],
    },
    {
      name: 'a claim with no spec',
      text: 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: d}\n',
      expect: ['w.yaml:1 spec: required (a claim needs spec.accessModes and spec.resources.requests.storage)'],
    },

    // Metadata.
    { name: 'no name', text: edit(deployment, '  name: nginx-deployment\n', ''), expect: ['w.yaml:3 metadata.name: required'] },
    {
      name: 'a Deployment name is a DNS-1123 subdomain',
      text: edit(deployment, 'name: nginx-deployment', 'name: Nginx'),
      expect: [
        "w.yaml:4 metadata.name: must be a lowercase RFC 1123 subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit (e.g. 'example.com')",
      ],
    },
    { name: 'a Deployment name may have dots', text: edit(deployment, 'name: nginx-deployment', 'name: nginx.v1'), expect: [] },
    {
      name: 'a StatefulSet name is a DNS-1123 label (pods are <name>-<ordinal>)',
      text: edit(statefulSet, 'name: web\n', 'name: web.v1\n'),
      expect: ["w.yaml:4 metadata.name: must be a lowercase RFC 1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit (e.g. 'my-name')"],
    },

    // The pod template.
    { name: 'no template', text: deployment.replace(/  template:[\s\S]*/, ''), expect: ['w.yaml:7 spec.template: required'] },
    {
      name: 'a template without spec',
      text: edit(deployment, '    spec:\n      containers:', '    xspec:\n      containers:'),
      expect: ['w.yaml:16 spec.template.xspec: unknown field "xspec"; did you mean "spec"?', 'w.yaml:12 spec.template.spec: required (a Pod needs spec.containers)'].sort(byLine),
    },
    {
      name: "a container without image: the container's line",
      text: edit(deployment, '        image: nginx:1.14.2\n', ''),
      expect: ['w.yaml:18 spec.template.spec.containers[0].image: required'],
    },
    {
      name: 'an unknown container field, with a hint',
      text: edit(deployment, 'image: nginx:1.14.2', 'imagee: nginx:1.14.2'),
      expect: ['w.yaml:18 spec.template.spec.containers[0].image: required', 'w.yaml:19 spec.template.spec.containers[0].imagee: unknown field "imagee"; did you mean "image"?'],
    },
    {
      name: 'a misplaced pod field says where it belongs',
      text: edit(deployment, '  replicas: 3', '  restartPolicy: Always'),
      expect: ['w.yaml:8 spec.restartPolicy: unknown field "restartPolicy" (restartPolicy belongs in spec.template.spec)'],
    },
    {
      name: 'a misplaced field inside the template says where it belongs',
      text: edit(deployment, '      labels:\n        app: nginx\n    spec:', '      labels:\n        app: nginx\n      hostNetwork: true\n    spec:'),
      expect: ['w.yaml:16 spec.template.metadata.hostNetwork: unknown field "hostNetwork" (hostNetwork belongs in spec.template.spec)'],
    },
    {
      name: 'restartPolicy Never',
      text: edit(deployment, '      containers:', '      restartPolicy: Never\n      containers:'),
      expect: ['w.yaml:17 spec.template.spec.restartPolicy: Unsupported value: Never: supported values: Always'],
    },
    {
      name: 'restartPolicy OnFailure in a StatefulSet',
      text: edit(statefulSet, '      containers:', '      restartPolicy: OnFailure\n      containers:'),
      expect: ['w.yaml:18 spec.template.spec.restartPolicy: Unsupported value: OnFailure: supported values: Always'],
    },
    { name: 'restartPolicy Always is fine', text: edit(daemonSet, '      containers:', '      restartPolicy: Always\n      containers:'), expect: [] },
    {
      name: 'an invalid restartPolicy: one problem, the enum',
      text: edit(replicaSet, '      containers:', '      restartPolicy: Sometimes\n      containers:'),
      expect: ['w.yaml:18 spec.template.spec.restartPolicy: must be one of Always, Never, OnFailure, got "Sometimes"'],
    },
    {
      name: 'a pod-spec type error in the template, once',
      text: edit(deployment, 'containerPort: 80', 'containerPort: eighty'),
      expect: ['w.yaml:21 spec.template.spec.containers[0].ports[0].containerPort: expected integer, got "eighty"'],
    },
    {
      name: 'an unsupported pod field in the template',
      text: edit(deployment, '      containers:', '      runtimeClassName: gvisor\n      containers:'),
      expect: ['w.yaml:17 spec.template.spec.runtimeClassName: not supported by runpod'],
    },
    {
      name: 'a mount of an undeclared volume',
      text: edit(deployment, '        ports:', '        volumeMounts: [{name: data, mountPath: /data}]\n        ports:'),
      expect: ['w.yaml:20 spec.template.spec.containers[0].volumeMounts[0].name: no volume named "data" in spec.volumes'],
    },
    {
      name: 'a bad template label',
      text: edit(deployment, '      labels:\n        app: nginx', '      labels:\n        app: nginx\n        "-x": y'),
      expect: [
        "w.yaml:16 spec.template.metadata.labels[\"-x\"]: invalid key: name part must consist of letters, digits, '-', '_' or '.', starting and ending with a letter or digit (e.g. 'MyName', 'my.name', '123-abc')",
      ],
    },
    {
      name: 'a template metadata of the wrong type',
      text: edit(replicaSet, '    metadata:\n      labels:\n        tier: frontend\n', '    metadata: [tier]\n'),
      expect: ['w.yaml:14 spec.template.metadata: expected a mapping, got a list'],
    },
    {
      name: 'a template name of the wrong type',
      text: edit(replicaSet, '      labels:\n        tier: frontend\n    spec:', '      name: 5\n      labels:\n        tier: frontend\n    spec:'),
      expect: ['w.yaml:15 spec.template.metadata.name: expected string, got 5'],
    },

    // Selectors.
    { name: 'no selector', text: edit(deployment, '  selector:\n    matchLabels:\n      app: nginx\n', ''), expect: ['w.yaml:7 spec.selector: required'] },
    {
      name: 'an empty selector',
      text: edit(statefulSet, '  selector:\n    matchLabels:\n      app: nginx # has to match .spec.template.metadata.labels\n', '  selector: {}\n'),
      expect: ['w.yaml:6 spec.selector: empty selector is invalid for statefulset'],
    },
    {
      name: 'a selector that does not match',
      text: edit(deployment, '      app: nginx\n  template', '      app: web\n  template'),
      expect: ['w.yaml:14 spec.template.metadata.labels: `selector` does not match template `labels`'],
    },
    {
      name: 'a template without labels',
      text: edit(daemonSet, '    metadata:\n      labels:\n        name: fluentd-elasticsearch\n', ''),
      expect: ['w.yaml:12 spec.template.metadata.labels: `selector` does not match template `labels`'],
    },
    {
      name: 'matchExpressions that match',
      text: edit(
        replicaSet,
        '    matchLabels:\n      tier: frontend\n',
        '    matchExpressions:\n    - {key: tier, operator: In, values: [frontend, backend]}\n    - {key: canary, operator: DoesNotExist}\n',
      ),
      expect: [],
    },
    {
      name: 'matchExpressions that do not match',
      text: edit(replicaSet, '    matchLabels:\n      tier: frontend\n', '    matchExpressions:\n    - {key: tier, operator: NotIn, values: [frontend]}\n'),
      expect: ['w.yaml:15 spec.template.metadata.labels: `selector` does not match template `labels`'],
    },
    {
      name: 'a bad operator and values, each at its field',
      text: edit(
        replicaSet,
        '    matchLabels:\n      tier: frontend\n',
        '    matchExpressions:\n    - key: tier\n      operator: Is\n    - key: app\n      operator: In\n      values: []\n    - key: x\n      operator: Exists\n      values: ["bad value"]\n',
      ),
      expect: [
        'w.yaml:13 spec.selector.matchExpressions[0].operator: "Is" is not a valid label selector operator; expected one of In, NotIn, Exists, DoesNotExist',
        'w.yaml:16 spec.selector.matchExpressions[1].values: must be non-empty for In',
        'w.yaml:19 spec.selector.matchExpressions[2].values: must be empty for Exists',
        "w.yaml:19 spec.selector.matchExpressions[2].values[0]: must be empty or consist of letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
      ],
    },
    {
      name: 'a bad matchLabels key',
      text: edit(replicaSet, '      tier: frontend\n  template', '      tier: frontend\n      "a/b/c": x\n  template'),
      expect: ["w.yaml:13 spec.selector.matchLabels[\"a/b/c\"]: key must be a qualified name: an optional DNS subdomain prefix and '/', then a name (e.g. 'example.com/MyName')"],
    },
    {
      name: 'an RC selector that does not match',
      text: edit(replicationController, '  selector:\n    app: nginx', '  selector:\n    app: web'),
      expect: ['w.yaml:12 spec.template.metadata.labels: `selector` does not match template `labels`'],
    },
    { name: 'an RC without selector defaults it to the labels', text: edit(replicationController, '  selector:\n    app: nginx\n', ''), expect: [] },
    {
      name: 'an RC without selector nor labels',
      text: edit(replicationController, '  selector:\n    app: nginx\n', '').replace('      labels:\n        app: nginx\n', ''),
      expect: ["w.yaml:5 spec.selector: required (it defaults to the template's labels, and the template has none)"],
    },
    {
      name: 'an RC selector value of the wrong type',
      text: edit(replicationController, '    app: nginx\n  template', '    app: 5\n  template'),
      expect: ['w.yaml:8 spec.selector.app: expected string, got 5'],
    },

    // Replicas and timings.
    { name: 'negative replicas', text: edit(deployment, 'replicas: 3', 'replicas: -1'), expect: ['w.yaml:8 spec.replicas: must be greater than or equal to 0'] },
    { name: 'zero replicas are fine', text: edit(statefulSet, 'replicas: 3', 'replicas: 0'), expect: [] },
    { name: 'replicas of the wrong type', text: edit(replicaSet, 'replicas: 3', 'replicas: three'), expect: ['w.yaml:9 spec.replicas: expected integer, got "three"'] },
    {
      name: 'a DaemonSet has no replicas',
      text: edit(daemonSet, '  selector:', '  replicas: 2\n  selector:'),
      expect: ['w.yaml:9 spec.replicas: unknown field "replicas" (not in the Kubernetes 1.34 API runpod knows)'],
    },
    {
      name: 'negative minReadySeconds',
      text: edit(replicationController, 'replicas: 3', 'replicas: 3\n  minReadySeconds: -5'),
      expect: ['w.yaml:7 spec.minReadySeconds: must be greater than or equal to 0'],
    },
    {
      name: 'progressDeadlineSeconds not above minReadySeconds',
      text: edit(deployment, 'replicas: 3', 'replicas: 3\n  minReadySeconds: 30\n  progressDeadlineSeconds: 30'),
      expect: ['w.yaml:10 spec.progressDeadlineSeconds: must be greater than minReadySeconds'],
    },
    {
      name: 'minReadySeconds over the default deadline',
      text: edit(deployment, 'replicas: 3', 'replicas: 3\n  minReadySeconds: 600'),
      expect: ['w.yaml:9 spec.minReadySeconds: must be less than progressDeadlineSeconds (default 600)'],
    },

    // Deployment.
    {
      name: 'a paused Deployment',
      text: edit(deployment, 'replicas: 3', 'replicas: 3\n  paused: true'),
      expect: ['w.yaml:9 spec.paused: a paused Deployment rolls nothing out; runpod would run nothing new: remove paused'],
    },
    { name: 'paused: false is fine', text: edit(deployment, 'replicas: 3', 'replicas: 3\n  paused: false'), expect: [] },
    {
      name: 'an unknown strategy',
      text: edit(deployment, 'replicas: 3', 'replicas: 3\n  strategy: {type: BlueGreen}'),
      expect: ['w.yaml:9 spec.strategy.type: must be one of Recreate, RollingUpdate, got "BlueGreen"'],
    },
    {
      name: 'Recreate with rollingUpdate',
      text: edit(deployment, 'replicas: 3', 'replicas: 3\n  strategy:\n    type: Recreate\n    rollingUpdate: {maxSurge: 1}'),
      expect: ["w.yaml:11 spec.strategy.rollingUpdate: may not be specified when strategy `type` is 'Recreate'"],
    },
    { name: 'Recreate alone is fine', text: edit(deployment, 'replicas: 3', 'replicas: 3\n  strategy: {type: Recreate}'), expect: [] },
    { name: 'percentages and integers', text: edit(deployment, 'replicas: 3', 'replicas: 3\n  strategy:\n    rollingUpdate: {maxSurge: "50%", maxUnavailable: 0}'), expect: [] },
    {
      name: 'both 0',
      text: edit(deployment, 'replicas: 3', 'replicas: 3\n  strategy:\n    type: RollingUpdate\n    rollingUpdate:\n      maxSurge: 0\n      maxUnavailable: "0%"'),
      expect: ['w.yaml:13 spec.strategy.rollingUpdate.maxUnavailable: may not be 0 when `maxSurge` is 0'],
    },
    {
      name: 'a bad percentage, a negative surge, over 100%',
      text: edit(deployment, 'replicas: 3', 'replicas: 3\n  strategy:\n    rollingUpdate:\n      maxSurge: -1\n      maxUnavailable: "120%"'),
      expect: [
        'w.yaml:11 spec.strategy.rollingUpdate.maxSurge: must be greater than or equal to 0',
        'w.yaml:12 spec.strategy.rollingUpdate.maxUnavailable: must not be greater than 100%',
      ],
    },
    {
      name: 'a percentage without %',
      text: edit(deployment, 'replicas: 3', 'replicas: 3\n  strategy:\n    rollingUpdate: {maxSurge: "5"}'),
      expect: ["w.yaml:10 spec.strategy.rollingUpdate.maxSurge: must be an integer or percentage (e.g. '5%')"],
    },
    {
      name: 'a maxSurge of the wrong type',
      text: edit(deployment, 'replicas: 3', 'replicas: 3\n  strategy:\n    rollingUpdate: {maxSurge: true}'),
      expect: ['w.yaml:10 spec.strategy.rollingUpdate.maxSurge: expected string or integer, got true'],
    },
    {
      name: 'a negative revisionHistoryLimit',
      text: edit(deployment, 'replicas: 3', 'replicas: 3\n  revisionHistoryLimit: -1'),
      expect: ['w.yaml:9 spec.revisionHistoryLimit: must be greater than or equal to 0'],
    },
    {
      name: 'a Deployment field with a typo',
      text: edit(deployment, 'replicas: 3', 'replica: 3'),
      expect: ['w.yaml:8 spec.replica: unknown field "replica"; did you mean "replicas"?'],
    },
    {
      name: 'a field of another level says where it belongs',
      text: edit(deployment, 'replicas: 3', 'replicas: 3\n  maxSurge: 1'),
      expect: ['w.yaml:9 spec.maxSurge: unknown field "maxSurge" (maxSurge belongs in spec.strategy.rollingUpdate)'],
    },

    // StatefulSet.
    { name: 'serviceName is optional', text: edit(statefulSet, '  serviceName: "nginx"\n', ''), expect: [] },
    {
      name: 'serviceName is a DNS-1123 label',
      text: edit(statefulSet, 'serviceName: "nginx"', 'serviceName: "nginx.svc"'),
      expect: ["w.yaml:9 spec.serviceName: must be a lowercase RFC 1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit (e.g. 'my-name')"],
    },
    { name: 'Parallel pod management', text: edit(statefulSet, 'replicas: 3 #', 'podManagementPolicy: Parallel\n  replicas: 3 #'), expect: [] },
    {
      name: 'an unknown pod management policy',
      text: edit(statefulSet, 'replicas: 3 #', 'podManagementPolicy: Random\n  replicas: 3 #'),
      expect: ['w.yaml:10 spec.podManagementPolicy: must be one of OrderedReady, Parallel, got "Random"'],
    },
    {
      name: 'an unknown update strategy',
      text: edit(statefulSet, 'replicas: 3 #', 'updateStrategy: {type: Canary}\n  replicas: 3 #'),
      expect: ['w.yaml:10 spec.updateStrategy.type: must be one of OnDelete, RollingUpdate, got "Canary"'],
    },
    {
      name: 'a negative partition',
      text: edit(statefulSet, 'replicas: 3 #', 'updateStrategy:\n    rollingUpdate: {partition: -1}\n  replicas: 3 #'),
      expect: ['w.yaml:11 spec.updateStrategy.rollingUpdate.partition: must be greater than or equal to 0'],
    },
    {
      name: 'a partition is fine',
      text: edit(statefulSet, 'replicas: 3 #', 'updateStrategy:\n    type: RollingUpdate\n    rollingUpdate: {partition: 2}\n  replicas: 3 #'),
      expect: [],
    },
    {
      name: 'OnDelete with rollingUpdate',
      text: edit(statefulSet, 'replicas: 3 #', 'updateStrategy:\n    type: OnDelete\n    rollingUpdate: {partition: 1}\n  replicas: 3 #'),
      expect: ["w.yaml:12 spec.updateStrategy.rollingUpdate: only allowed for updateStrategy 'RollingUpdate'"],
    },
    {
      name: 'maxUnavailable of a StatefulSet is refused',
      text: edit(statefulSet, 'replicas: 3 #', 'updateStrategy:\n    rollingUpdate: {maxUnavailable: 2}\n  replicas: 3 #'),
      expect: [
        'w.yaml:11 spec.updateStrategy.rollingUpdate.maxUnavailable: not supported by runpod (alpha in Kubernetes (MaxUnavailableStatefulSet): pods are replaced one at a time)',
      ],
    },
    {
      name: 'a retention policy',
      text: edit(statefulSet, 'replicas: 3 #', 'persistentVolumeClaimRetentionPolicy: {whenDeleted: Delete, whenScaled: Retain}\n  replicas: 3 #'),
      expect: [],
    },
    {
      name: 'an unknown retention policy',
      text: edit(statefulSet, 'replicas: 3 #', 'persistentVolumeClaimRetentionPolicy:\n    whenScaled: Keep\n  replicas: 3 #'),
      expect: ['w.yaml:11 spec.persistentVolumeClaimRetentionPolicy.whenScaled: Unsupported value: Keep: supported values: Retain, Delete'],
    },
    { name: 'ordinals', text: edit(statefulSet, 'replicas: 3 #', 'ordinals: {start: 1}\n  replicas: 3 #'), expect: [] },
    {
      name: 'a negative ordinal start',
      text: edit(statefulSet, 'replicas: 3 #', 'ordinals:\n    start: -1\n  replicas: 3 #'),
      expect: ['w.yaml:11 spec.ordinals.start: must be greater than or equal to 0'],
    },
    {
      name: 'a claim template without name',
      text: edit(statefulSet, '  - metadata:\n      name: www\n', '  - metadata:\n      labels: {a: b}\n'),
      expect: [
        'w.yaml:25 spec.template.spec.containers[0].volumeMounts[0].name: no volume named "www" in spec.volumes',
        'w.yaml:28 spec.volumeClaimTemplates[0].metadata.name: required',
      ],
    },
    {
      name: 'a claim template name is a DNS-1123 label',
      text: edit(statefulSet, '      name: www\n', '      name: www.data\n'),
      expect: [
        'w.yaml:25 spec.template.spec.containers[0].volumeMounts[0].name: no volume named "www" in spec.volumes',
        "w.yaml:29 spec.volumeClaimTemplates[0].metadata.name: must be a lowercase RFC 1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit (e.g. 'my-name')",
      ],
    },
    {
      name: 'two claim templates of one name',
      text: statefulSet + '  - metadata:\n      name: www\n    spec:\n      accessModes: [ReadOnlyMany]\n      resources: {requests: {storage: 1Gi}}\n',
      expect: ['w.yaml:36 spec.volumeClaimTemplates[1].metadata.name: duplicate claim template name "www" (also spec.volumeClaimTemplates[0])'],
    },
    {
      // The StatefulSet controller's updateStorage: the claim replaces the template's volume of its name.
      name: 'a claim template named as a volume of the pod is accepted',
      text: edit(statefulSet, '      containers:', '      volumes:\n      - {name: www, emptyDir: {}}\n      containers:'),
      expect: [],
    },
    {
      name: 'a claim template spec: every PersistentVolumeClaim rule',
      text: edit(statefulSet, '      accessModes: [ "ReadWriteOnce" ]\n', '      volumeMode: Block\n      dataSource: {kind: VolumeSnapshot, name: snap}\n').replace(
        'storage: 1Gi',
        'storage: lots',
      ),
      expect: [
        'w.yaml:30 spec.volumeClaimTemplates[0].spec.accessModes: required (ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod)',
        'w.yaml:31 spec.volumeClaimTemplates[0].spec.volumeMode: not supported by runpod (a claim is a local engine volume or a host directory, a filesystem; use Filesystem)',
        'w.yaml:32 spec.volumeClaimTemplates[0].spec.dataSource: not supported by runpod (no provisioner on one host fills a volume from a snapshot or another claim)',
        'w.yaml:35 spec.volumeClaimTemplates[0].spec.resources.requests.storage: expected a quantity such as 128Mi or 500m, got "lots"',
      ],
    },
    {
      name: 'a claim template without spec',
      text: statefulSet.replace(/    spec:\n      accessModes[\s\S]*/, ''),
      expect: ['w.yaml:28 spec.volumeClaimTemplates[0].spec: required (a claim needs spec.accessModes and spec.resources.requests.storage)'],
    },
    {
      name: 'a claim template with apiVersion and kind, as kubectl prints it',
      text: edit(statefulSet, '  - metadata:\n      name: www\n', '  - apiVersion: v1\n    kind: PersistentVolumeClaim\n    metadata:\n      name: www\n'),
      expect: [],
    },

    // DaemonSet.
    { name: 'OnDelete', text: edit(daemonSet, '  template:', '  updateStrategy: {type: OnDelete}\n  template:'), expect: [] },
    {
      name: 'maxSurge with maxUnavailable 0',
      text: edit(daemonSet, '  template:', '  updateStrategy:\n    rollingUpdate: {maxSurge: 1, maxUnavailable: 0}\n  template:'),
      expect: [],
    },
    {
      name: 'maxUnavailable 0 alone (maxSurge defaults to 0)',
      text: edit(daemonSet, '  template:', '  updateStrategy:\n    rollingUpdate:\n      maxUnavailable: 0\n  template:'),
      expect: ['w.yaml:14 spec.updateStrategy.rollingUpdate.maxUnavailable: may not be 0 when `maxSurge` is 0'],
    },
    {
      name: 'a DaemonSet maxSurge over 100%',
      text: edit(daemonSet, '  template:', '  updateStrategy:\n    rollingUpdate:\n      maxSurge: 150%\n  template:'),
      expect: ['w.yaml:14 spec.updateStrategy.rollingUpdate.maxSurge: must not be greater than 100%'],
    },

    // PersistentVolumeClaim.
    {
      name: 'no access modes',
      text: edit(claim, '  accessModes:\n  - ReadWriteOnce\n', ''),
      expect: ['w.yaml:5 spec.accessModes: required (ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod)'],
    },
    {
      name: 'an empty list of access modes',
      text: edit(claim, '  accessModes:\n  - ReadWriteOnce\n', '  accessModes: []\n'),
      expect: ['w.yaml:6 spec.accessModes: at least 1 access mode is required'],
    },
    { name: 'every access mode is accepted', text: edit(claim, '  - ReadWriteOnce\n', '  - ReadWriteOnce\n  - ReadOnlyMany\n  - ReadWriteMany\n'), expect: [] },
    { name: 'ReadWriteOncePod alone', text: edit(claim, '  - ReadWriteOnce\n', '  - ReadWriteOncePod\n'), expect: [] },
    {
      name: 'ReadWriteOncePod with another',
      text: edit(claim, '  - ReadWriteOnce\n', '  - ReadWriteOncePod\n  - ReadWriteOnce\n'),
      expect: ['w.yaml:6 spec.accessModes: may not use ReadWriteOncePod with other access modes'],
    },
    {
      name: 'an unknown access mode',
      text: edit(claim, '  - ReadWriteOnce\n', '  - ReadWriteSometimes\n'),
      expect: ['w.yaml:7 spec.accessModes[0]: must be one of ReadOnlyMany, ReadWriteMany, ReadWriteOnce, ReadWriteOncePod, got "ReadWriteSometimes"'],
    },
    {
      name: 'no storage request',
      text: edit(claim, '  resources:\n    requests:\n      storage: 8Gi\n', ''),
      expect: ['w.yaml:5 spec.resources.requests.storage: required (a quantity such as 1Gi)'],
    },
    {
      name: 'a request of something else',
      text: edit(claim, 'storage: 8Gi', 'cpu: 1'),
      expect: [
        'w.yaml:11 spec.resources.requests.cpu: not supported by runpod (a claim asks only for storage)',
        'w.yaml:10 spec.resources.requests.storage: required (a quantity such as 1Gi)',
      ].sort(byLine),
    },
    { name: 'a zero request', text: edit(claim, 'storage: 8Gi', 'storage: "0"'), expect: ['w.yaml:11 spec.resources.requests.storage: must be greater than zero'] },
    { name: 'a negative request', text: edit(claim, 'storage: 8Gi', 'storage: -1Gi'), expect: ['w.yaml:11 spec.resources.requests.storage: must be greater than zero'] },
    {
      name: 'a bad quantity',
      text: edit(claim, 'storage: 8Gi', 'storage: 8 gigs'),
      expect: ['w.yaml:11 spec.resources.requests.storage: expected a quantity such as 128Mi or 500m, got "8 gigs"'],
    },
    {
      name: 'Block volume mode',
      text: edit(claim, 'volumeMode: Filesystem', 'volumeMode: Block'),
      expect: ['w.yaml:8 spec.volumeMode: not supported by runpod (a claim is a local engine volume or a host directory, a filesystem; use Filesystem)'],
    },
    {
      name: 'an unknown volume mode',
      text: edit(claim, 'volumeMode: Filesystem', 'volumeMode: Raw'),
      expect: ['w.yaml:8 spec.volumeMode: must be one of Block, Filesystem, got "Raw"'],
    },
    {
      name: 'a selector',
      text: edit(claim, '  volumeMode:', '  selector: {matchLabels: {release: stable}}\n  volumeMode:'),
      expect: [
        'w.yaml:8 spec.selector: claim default/data: the claim binds no PersistentVolume: none of the input fits (the input has no PersistentVolume); a claim with a selector is never provisioned; on a cluster it would stay Pending and its pods never start: add a PersistentVolume that fits, or drop the selector for a local engine volume',
      ],
    },
    {
      name: 'a volumeName',
      text: edit(claim, '  volumeMode:', '  volumeName: pv-0001\n  volumeMode:'),
      expect: [
        'w.yaml:8 spec.volumeName: claim default/data: the claim binds no PersistentVolume: the input has no PersistentVolume pv-0001, the only volume this claim may bind; on a cluster it would stay Pending and its pods never start: add that PersistentVolume to the input, or drop volumeName',
      ],
    },
    {
      name: 'a dataSourceRef',
      text: edit(claim, '  volumeMode:', '  dataSourceRef: {kind: VolumeSnapshot, name: s}\n  volumeMode:'),
      expect: ['w.yaml:8 spec.dataSourceRef: not supported by runpod (no provisioner on one host fills a volume from a snapshot or another claim)'],
    },
    {
      name: 'a volumeAttributesClassName',
      text: edit(claim, '  volumeMode:', '  volumeAttributesClassName: gold\n  volumeMode:'),
      expect: ['w.yaml:8 spec.volumeAttributesClassName: not supported by runpod (no CSI driver on one host applies volume attributes)'],
    },
    {
      name: 'an unknown claim field',
      text: edit(claim, '  volumeMode:', '  storageClasName: fast\n  volumeMode:'),
      expect: ['w.yaml:8 spec.storageClasName: unknown field "storageClasName"; did you mean "storageClassName"?'],
    },
    { name: 'a claim name is a DNS-1123 subdomain', text: edit(claim, 'name: data', 'name: data.v1'), expect: [] },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(problems(c.text), c.expect));
  }

  it('warned fields: revisionHistoryLimit, storageClassName, template name and namespace, claim status, OnDelete with rollingUpdate', () => {
    assert.deepEqual(warnings(edit(deployment, 'replicas: 3', 'replicas: 3\n  revisionHistoryLimit: 5')), [
      '9 spec.revisionHistoryLimit: no ReplicaSet history is kept on one host: to roll back, run the old manifest',
    ]);
    assert.deepEqual(warnings(edit(daemonSet, '  template:', '  revisionHistoryLimit: 2\n  template:')), [
      '12 spec.revisionHistoryLimit: no ControllerRevision history is kept on one host: to roll back, run the old manifest',
      '18 spec.template.spec.tolerations: ignored, scheduling has no meaning on one host',
    ]);
    assert.deepEqual(warnings(edit(claim, '  volumeMode:', '  storageClassName: fast\n  volumeMode:') + 'status: {phase: Bound}\n'), [
      '8 spec.storageClassName: claim default/data: storageClassName "fast": no PersistentVolume of the input has this class, so runpod provisions the claim as its default class does: a local engine volume',
      "12 spec.resources.requests.storage: not enforced: a claim is a local engine volume or a PersistentVolume's host directory, neither has a size limit on Docker",
      '13 status: ignored, read-only and set by the API server',
    ]);
    assert.deepEqual(
      warnings(edit(deployment, '      labels:\n        app: nginx\n    spec:', '      name: web\n      namespace: other\n      labels:\n        app: nginx\n    spec:')),
      [
        '14 spec.template.metadata.name: ignored: the pods are named after the Deployment',
        "15 spec.template.metadata.namespace: ignored: the pods are in the Deployment's namespace",
      ],
    );
    assert.deepEqual(warnings(edit(daemonSet, '  template:', '  updateStrategy:\n    type: OnDelete\n    rollingUpdate: {maxUnavailable: 2}\n  template:')), [
      '14 spec.updateStrategy.rollingUpdate: ignored: updateStrategy type is OnDelete',
      '20 spec.template.spec.tolerations: ignored, scheduling has no meaning on one host',
    ]);
  });

  it('the injected pod name never produces a problem: an invalid workload name is reported once, at metadata', () => {
    for (const [text, kind] of [
      [deployment, 'Deployment'],
      [statefulSet, 'StatefulSet'],
      [replicationController, 'ReplicationController'],
    ] as const) {
      for (const name of ['"Bad Name"', 'x'.repeat(254), '"a.b"', '""']) {
        const got = problems(text.replace(/^  name: .*$/m, `  name: ${name}`));
        // "a.b" is a valid subdomain (every kind but StatefulSet takes it).
        if (name === '"a.b"' && kind !== 'StatefulSet') assert.deepEqual(got, [], `${kind} ${name}`);
        else
          assert.deepEqual(
            got.map((p) => p.split(': ')[0]),
            ['w.yaml:4 metadata.name'],
            `${kind} ${name}: ${got.join('; ')}`,
          );
      }
    }
    assert.deepEqual(problems(edit(deployment, '  name: nginx-deployment\n', '')), ['w.yaml:3 metadata.name: required']);
    // The workload's namespace is the pods'; an invalid one is reported once, at the workload's metadata.
    assert.deepEqual(
      problems(edit(deployment, '  labels:\n    app: nginx\nspec', '  namespace: Bad_NS\n  labels:\n    app: nginx\nspec')).map((p) => p.split(': ')[0]),
      ['w.yaml:5 metadata.namespace'],
    );
  });
});

describe('workloads: every problem at once', () => {
  it('a file with a bad Deployment, StatefulSet, DaemonSet, RC and claim reports each problem at its line', () => {
    const text = [
      edit(
        edit(edit(deployment, 'replicas: 3', 'replicas: -3\n  paused: true'), '        image: nginx:1.14.2\n', ''),
        '      containers:',
        '      restartPolicy: Never\n      containers:',
      ),
      edit(edit(statefulSet, 'serviceName: "nginx"', 'serviceName: "Nginx"'), '        - name: www\n', '        - name: wwww\n'),
      edit(daemonSet, 'name: fluentd-elasticsearch\n  template', 'name: fluentd\n  template'),
      edit(replicationController, 'replicas: 3', 'replicas: 1.5'),
      edit(claim, '  - ReadWriteOnce\n', '  - ReadWriteOncePod\n  - ReadOnlyMany\n'),
    ].join('---\n');
    assert.deepEqual(problems(text), [
      'w.yaml:8 spec.replicas: must be greater than or equal to 0',
      'w.yaml:9 spec.paused: a paused Deployment rolls nothing out; runpod would run nothing new: remove paused',
      'w.yaml:18 spec.template.spec.restartPolicy: Unsupported value: Never: supported values: Always',
      'w.yaml:20 spec.template.spec.containers[0].image: required',
      "w.yaml:32 spec.serviceName: must be a lowercase RFC 1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit (e.g. 'my-name')",
      'w.yaml:48 spec.template.spec.containers[0].volumeMounts[0].name: no volume named "wwww" in spec.volumes',
      'w.yaml:72 spec.template.metadata.labels: `selector` does not match template `labels`',
      'w.yaml:102 spec.replicas: expected integer, got 1.5',
      'w.yaml:122 spec.accessModes: may not use ReadWriteOncePod with other access modes',
    ]);
    assert.deepEqual(parse(text).pods, []);
  });
});

function byLine(a: string, b: string): number {
  const line = (s: string): number => Number(/^w\.yaml:(\d+) /.exec(s)?.[1] ?? 0);
  return line(a) - line(b);
}
