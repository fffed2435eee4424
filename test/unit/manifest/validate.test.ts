import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem } from '../../../src/errors.js';
import { parseManifests } from '../../../src/manifest/parse.js';

const options = { defaultNamespace: 'default' };

/** Formatted problems for one file called pod.yaml. */
function problems(text: string): string[] {
  return parseManifests([{ source: { file: 'pod.yaml', origin: '/x/pod.yaml' }, text }], options).problems.map(formatProblem);
}

/** A minimal valid pod, with extra lines spliced in under spec.containers[0] (6-space indent) or elsewhere. */
function pod(opts: { meta?: string; spec?: string; container?: string; top?: string } = {}): string {
  return [
    'apiVersion: v1',
    'kind: Pod',
    'metadata:',
    '  name: web',
    ...(opts.meta !== undefined ? [opts.meta] : []),
    'spec:',
    ...(opts.spec !== undefined ? [opts.spec] : []),
    '  containers:',
    '  - name: app',
    '    image: busybox',
    ...(opts.container !== undefined ? [opts.container] : []),
    ...(opts.top !== undefined ? [opts.top] : []),
  ].join('\n');
}

describe('validation: one rule per row', () => {
  const cases: Array<{ name: string; text: string; expect: string[] }> = [
    { name: 'a valid pod', text: pod(), expect: [] },
    {
      name: 'missing image: the line of the container (the nearest ancestor with a line)',
      text: 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: ok\n    image: busybox\n  - name: app\n    command: [sleep]\n',
      expect: ['pod.yaml:9 spec.containers[1].image: required'],
    },
    { name: 'empty image', text: pod({ container: '    image: ""' }).replace('    image: busybox\n', ''), expect: ['pod.yaml:8 spec.containers[0].image: required'] },
    {
      name: 'image with whitespace',
      text: pod().replace('image: busybox', 'image: "busybox "'),
      expect: ['pod.yaml:8 spec.containers[0].image: must not have leading or trailing whitespace'],
    },
    {
      name: 'restartPolicy under metadata',
      text: pod({ meta: '  restartPolicy: Never' }),
      expect: ['pod.yaml:5 metadata.restartPolicy: unknown field "restartPolicy" (restartPolicy belongs in spec)'],
    },
    {
      name: 'a typo gets a suggestion',
      text: pod({ container: '    imagePullPolicyy: Always' }),
      expect: ['pod.yaml:9 spec.containers[0].imagePullPolicyy: unknown field "imagePullPolicyy"; did you mean "imagePullPolicy"?'],
    },
    {
      name: 'a field Kubernetes does not have at all',
      text: pod({ top: 'foo: bar' }),
      expect: ['pod.yaml:9 foo: unknown field "foo" (not in the Kubernetes 1.34 API runpod knows)'],
    },
    { name: 'unsupported pod field', text: pod({ spec: '  runtimeClassName: gvisor' }), expect: ['pod.yaml:6 spec.runtimeClassName: not supported by runpod'] },
    {
      name: 'unsupported container field, with its contents not checked',
      text: pod({ container: '    volumeDevices: [{name: 5, bogus: 1}]' }),
      expect: ['pod.yaml:9 spec.containers[0].volumeDevices: not supported by runpod'],
    },
    {
      name: 'generateName',
      text: pod({ meta: '  generateName: web-' }),
      expect: ['pod.yaml:5 metadata.generateName: not supported by runpod (runpod needs a stable name: set metadata.name)'],
    },
    { name: 'an empty unsupported field asks for nothing', text: pod({ spec: '  volumes: []\n  securityContext: {}\n  initContainers: null' }), expect: [] },
    { name: 'missing name', text: pod().replace('  name: web\n', '  labels: {a: b}\n'), expect: ['pod.yaml:3 metadata.name: required'] },
    { name: 'missing metadata', text: 'apiVersion: v1\nkind: Pod\nspec:\n  containers: [{name: a, image: b}]\n', expect: ['pod.yaml:1 metadata.name: required'] },
    {
      name: 'bad DNS names: pod, namespace, container, hostname',
      text: pod({ meta: '  namespace: Team_A', spec: '  hostname: -bad' }).replace('name: web', 'name: Web.App').replace('name: app', 'name: app.1'),
      expect: [
        "pod.yaml:4 metadata.name: must be a lowercase RFC 1123 subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit (e.g. 'example.com')",
        "pod.yaml:5 metadata.namespace: must be a lowercase RFC 1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit (e.g. 'my-name')",
        "pod.yaml:7 spec.hostname: must be a lowercase RFC 1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit (e.g. 'my-name')",
        "pod.yaml:9 spec.containers[0].name: must be a lowercase RFC 1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit (e.g. 'my-name')",
      ],
    },
    {
      name: 'a name over 253 characters',
      text: pod().replace('name: web', `name: ${'a'.repeat(254)}`),
      expect: ['pod.yaml:4 metadata.name: must be no more than 253 characters (has 254)'],
    },
    {
      name: 'labels and annotations',
      text: pod({ meta: '  labels:\n    app.kubernetes.io/name: web\n    "-bad": x\n    ok: "not ok!"\n  annotations:\n    example.com/a: "any text at all"\n    a/b/c: x' }),
      expect: [
        "pod.yaml:7 metadata.labels[\"-bad\"]: invalid key: name part must consist of letters, digits, '-', '_' or '.', starting and ending with a letter or digit (e.g. 'MyName', 'my.name', '123-abc')",
        "pod.yaml:8 metadata.labels.ok: must be empty or consist of letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
        "pod.yaml:11 metadata.annotations[\"a/b/c\"]: invalid key: must be a qualified name: an optional DNS subdomain prefix and '/', then a name (e.g. 'example.com/MyName')",
      ],
    },
    { name: 'a label value of the wrong type', text: pod({ meta: '  labels: {a: 5}' }), expect: ['pod.yaml:5 metadata.labels.a: expected string, got 5'] },
    {
      name: 'uid with characters a container name cannot hold',
      text: pod({ meta: '  uid: a_b' }),
      expect: ["pod.yaml:5 metadata.uid: must consist of letters, digits and '-' (at most 128), such as a UUID"],
    },
    {
      name: 'duplicate container names',
      text: pod({ top: '  - name: app\n    image: nginx' }),
      expect: ['pod.yaml:9 spec.containers[1].name: duplicate container name "app" (also spec.containers[0])'],
    },
    { name: 'no containers', text: pod().replace(/  containers:[\s\S]*/, '  containers: []\n'), expect: ['pod.yaml:6 spec.containers: must have at least one container'] },
    { name: 'no spec', text: 'apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n', expect: ['pod.yaml:1 spec: required (a Pod needs spec.containers)'] },
    {
      name: 'containers not a list',
      text: pod().replace(/  containers:[\s\S]*/, '  containers: {name: a}\n'),
      expect: ['pod.yaml:6 spec.containers: expected a list, got a mapping'],
    },
    {
      name: 'enums and types, phrased for a human',
      text: pod({ spec: '  restartPolicy: Sometimes\n  terminationGracePeriodSeconds: "30"', container: '    imagePullPolicy: always\n    tty: yes please' }),
      expect: [
        'pod.yaml:6 spec.restartPolicy: must be one of Always, Never, OnFailure, got "Sometimes"',
        'pod.yaml:7 spec.terminationGracePeriodSeconds: expected integer, got "30"',
        'pod.yaml:11 spec.containers[0].imagePullPolicy: must be one of Always, IfNotPresent, Never, got "always"',
        'pod.yaml:12 spec.containers[0].tty: expected boolean (true or false), got "yes please"',
      ],
    },
    {
      name: 'negative grace period',
      text: pod({ spec: '  terminationGracePeriodSeconds: -5' }),
      expect: ['pod.yaml:6 spec.terminationGracePeriodSeconds: must be greater than or equal to 0'],
    },
    {
      name: 'an unquoted date where a string belongs',
      text: pod({ container: '    env: [{name: D, value: 2024-01-31}]' }),
      expect: ['pod.yaml:9 spec.containers[0].env[0].value: expected string, got a timestamp (quote the value)'],
    },
    {
      name: 'env names',
      text: pod({ container: '    env:\n    - name: A=B\n    - value: x\n    - name: "my.var-1"\n    - name: X\n      valueFrom: {fileKeyRef: {path: x}}' }),
      expect: [
        "pod.yaml:10 spec.containers[0].env[0].name: must consist of printable ASCII characters other than '='",
        'pod.yaml:11 spec.containers[0].env[1].name: required',
        'pod.yaml:14 spec.containers[0].env[3].valueFrom.fileKeyRef: a field from Kubernetes 1.34, newer than the 1.33 schema runpod validates against: not supported by runpod',
      ],
    },
    {
      name: 'ports: ranges, protocol, host IP, names',
      text: pod({
        container:
          '    ports:\n    - containerPort: 0\n    - containerPort: 80\n      hostPort: 65536\n    - containerPort: 81\n      protocol: tcp\n    - containerPort: 82\n      hostIP: localhost\n      hostPort: 82\n    - containerPort: 83\n      name: HTTP\n    - containerPort: 84\n      name: a-very-long-port-name\n    - containerPort: 85\n      name: "8080"\n    - name: x',
      }),
      expect: [
        'pod.yaml:10 spec.containers[0].ports[0].containerPort: must be between 1 and 65535, inclusive',
        'pod.yaml:12 spec.containers[0].ports[1].hostPort: must be between 1 and 65535, inclusive',
        'pod.yaml:14 spec.containers[0].ports[2].protocol: must be one of SCTP, TCP, UDP, got "tcp"',
        'pod.yaml:16 spec.containers[0].ports[3].hostIP: must be a valid IP address (e.g. 10.9.8.7 or 2001:db8::ffff)',
        "pod.yaml:19 spec.containers[0].ports[4].name: must contain only lowercase letters, digits and '-'",
        'pod.yaml:21 spec.containers[0].ports[5].name: must be no more than 15 characters (has 21)',
        'pod.yaml:23 spec.containers[0].ports[6].name: must contain at least one letter',
        'pod.yaml:24 spec.containers[0].ports[7].containerPort: required',
      ],
    },
    {
      name: 'duplicate port names across containers',
      text: pod({ container: '    ports: [{containerPort: 80, name: http}]', top: '  - name: b\n    image: b\n    ports:\n    - containerPort: 81\n      name: http' }),
      expect: ['pod.yaml:14 spec.containers[1].ports[0].name: duplicate port name "http" (also spec.containers[0].ports[0])'],
    },
    {
      name: 'host-port conflicts within a pod (overlapping addresses only)',
      text: pod({
        container:
          '    ports:\n    - {containerPort: 1, hostPort: 8080}\n    - {containerPort: 2, hostPort: 8080, protocol: UDP}\n    - {containerPort: 3, hostPort: 9090, hostIP: 127.0.0.1}\n    - {containerPort: 4, hostPort: 9090, hostIP: 127.0.0.2}\n    - {containerPort: 5, hostPort: 9090}',
        top: '  - name: b\n    image: b\n    ports: [{containerPort: 6, hostPort: 8080, protocol: TCP}]',
      }),
      expect: [
        'pod.yaml:14 spec.containers[0].ports[4].hostPort: host port 9090/TCP is already used by spec.containers[0].ports[2].hostPort',
        'pod.yaml:17 spec.containers[1].ports[0].hostPort: host port 8080/TCP is already used by spec.containers[0].ports[0].hostPort',
      ],
    },
    {
      name: 'quantities',
      text: pod({
        container: '    resources:\n      limits:\n        cpu: 1x\n        memory: 1Y\n      requests:\n        cpu: -1\n        memory: [1]\n        nvidia.com/gpu: 1',
      }),
      expect: [
        'pod.yaml:11 spec.containers[0].resources.limits.cpu: expected a quantity such as 128Mi or 500m, got "1x"',
        'pod.yaml:12 spec.containers[0].resources.limits.memory: expected a quantity such as 128Mi or 500m, got "1Y"',
        'pod.yaml:14 spec.containers[0].resources.requests.cpu: must be greater than or equal to 0',
        'pod.yaml:15 spec.containers[0].resources.requests.memory: expected a quantity such as 128Mi or 500m, got a list',
        'pod.yaml:16 spec.containers[0].resources.requests["nvidia.com/gpu"]: not supported by runpod (runpod limits only cpu and memory)',
      ],
    },
    {
      name: 'a request above its limit, compared exactly',
      text: pod({ container: '    resources:\n      limits: {cpu: "0.1", memory: 1Gi}\n      requests: {cpu: 100m, memory: 1073741825}' }),
      expect: ['pod.yaml:11 spec.containers[0].resources.requests.memory: must be less than or equal to memory limit of 1Gi'],
    },
    { name: 'numbers are quantities too', text: pod({ container: '    resources: {limits: {cpu: 0.5, memory: 1e9}}' }), expect: [] },
    {
      name: 'scheduling and read-only fields are accepted (their contents need no checking for read-only ones)',
      text: pod({
        meta: '  creationTimestamp: 2024-01-01T00:00:00Z\n  resourceVersion: "1"',
        spec: '  nodeSelector: {disk: ssd}\n  tolerations: [{operator: Exists}]',
        top: 'status: {phase: Bogus}',
      }),
      expect: [],
    },
    {
      name: 'scheduling fields are still type-checked, so kubectl accepts the file',
      text: pod({ spec: '  priority: high' }),
      expect: ['pod.yaml:6 spec.priority: expected integer, got "high"'],
    },
    {
      name: 'several problems at once, sorted by line',
      text: pod({ meta: '  restartPolicy: Never', spec: '  restartPolicy: Sometimes' }).replace('    image: busybox', '    imagePullPolicy: Maybe'),
      expect: [
        'pod.yaml:5 metadata.restartPolicy: unknown field "restartPolicy" (restartPolicy belongs in spec)',
        'pod.yaml:7 spec.restartPolicy: must be one of Always, Never, OnFailure, got "Sometimes"',
        'pod.yaml:9 spec.containers[0].image: required',
        'pod.yaml:10 spec.containers[0].imagePullPolicy: must be one of Always, IfNotPresent, Never, got "Maybe"',
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(problems(c.text), c.expect));
  }
});

describe('validation: kinds and documents', () => {
  const cases: Array<{ name: string; text: string; expect: string[] }> = [
    {
      name: 'unsupported kind',
      text: 'apiVersion: v1\nkind: Endpoints\ndata: {a: b}\n',
      expect: [
        'pod.yaml:2 kind: kind Endpoints is not supported (runpod reads kinds Pod, ConfigMap, Secret, Service, PersistentVolumeClaim, PersistentVolume and ReplicationController (v1), Deployment, ReplicaSet, StatefulSet and DaemonSet (apps/v1), Job (batch/v1), or a List of them; --skip-kind Endpoints skips it)',
      ],
    },
    {
      name: 'an apps/v1 Deployment is read: its problems are its own',
      text: 'apiVersion: apps/v1\nkind: Deployment\n',
      expect: ['pod.yaml:1 metadata.name: required', 'pod.yaml:1 spec: required (a Deployment needs spec.selector and spec.template)'],
    },
    {
      name: 'a Deployment of an old apiVersion',
      text: 'apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata: {name: a}\n',
      expect: ['pod.yaml:1 apiVersion: extensions/v1beta1 Deployment was removed in Kubernetes 1.16 (no API server serves it any more); use apiVersion apps/v1'],
    },
    {
      name: 'missing kind and apiVersion',
      text: 'metadata: {name: a}\n',
      expect: [
        'pod.yaml:1 kind: required (runpod reads kinds Pod, ConfigMap, Secret, Service, PersistentVolumeClaim, PersistentVolume and ReplicationController (v1), Deployment, ReplicaSet, StatefulSet and DaemonSet (apps/v1), Job (batch/v1), or a List of them)',
        'pod.yaml:1 apiVersion: required (v1)',
      ],
    },
    {
      name: 'wrong apiVersion for a Pod',
      text: pod().replace('apiVersion: v1', 'apiVersion: apps/v1'),
      expect: ['pod.yaml:1 apiVersion: expected v1 for kind Pod, got "apps/v1"'],
    },
    { name: 'a document that is not a mapping', text: '- a\n- b\n', expect: ['pod.yaml:1: expected a mapping (a Kubernetes object), got a list'] },
    { name: 'a scalar document', text: pod() + '\n---\njust text\n', expect: ['pod.yaml:10: expected a mapping (a Kubernetes object), got "just text"'] },
    { name: 'a syntax error', text: 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n   bad: indent\n', expect: ['pod.yaml:5: invalid YAML: bad indentation of a mapping entry'] },
    {
      name: 'a List of Pods: problems carry items[i] paths',
      text: 'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n  spec:\n    containers: [{name: c, image: i}]\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: b}\n  spec:\n    containers:\n    - name: c\n- apiVersion: v1\n  kind: Endpoints\n',
      expect: [
        'pod.yaml:14 items[1].spec.containers[0].image: required',
        'pod.yaml:16 items[2].kind: kind Endpoints is not supported (runpod reads kinds Pod, ConfigMap, Secret, Service, PersistentVolumeClaim, PersistentVolume and ReplicationController (v1), Deployment, ReplicaSet, StatefulSet and DaemonSet (apps/v1), Job (batch/v1), or a List of them; --skip-kind Endpoints skips it)',
      ],
    },
    { name: 'an empty List', text: 'apiVersion: v1\nkind: List\nitems: []\n', expect: ['pod.yaml:3 items: the List has no items'] },
    {
      name: 'a List inside a List',
      text: 'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items: []\n',
      expect: [
        'pod.yaml:5 items[0].kind: a List cannot hold a List (runpod reads kinds Pod, ConfigMap, Secret, Service, PersistentVolumeClaim, PersistentVolume and ReplicationController (v1), Deployment, ReplicaSet, StatefulSet and DaemonSet (apps/v1), Job (batch/v1), or a List of them)',
      ],
    },
    {
      name: 'two pods with one namespace/name: the second is refused',
      text: pod() + '\n---\n' + pod(),
      expect: ['pod.yaml:13 metadata.name: pod default/web is already defined at pod.yaml:1'],
    },
    { name: 'same name in different namespaces is fine', text: pod() + '\n---\n' + pod({ meta: '  namespace: other' }), expect: [] },
    {
      name: 'host-port conflict across pods',
      text:
        pod({ container: '    ports: [{containerPort: 80, hostPort: 8080}]' }) +
        '\n---\n' +
        pod({ container: '    ports: [{containerPort: 80, hostPort: 8080, hostIP: 127.0.0.1}]' }).replace('name: web', 'name: web2'),
      expect: ['pod.yaml:19 spec.containers[0].ports[0].hostPort: host port 8080/TCP is already used by pod default/web (pod.yaml:1)'],
    },
    {
      name: 'an alias bomb',
      text:
        'a: &a [x, x, x, x, x, x, x, x, x, x]\n' +
        [1, 2, 3, 4, 5, 6, 7]
          .map(
            (i) =>
              `a${i}: &a${i} [${Array(10)
                .fill(i === 1 ? '*a' : `*a${i - 1}`)
                .join(', ')}]`,
          )
          .join('\n'),
      expect: ['pod.yaml:1: YAML aliases expand this document to more than 1000000 nodes; write it out instead'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(problems(c.text), c.expect));
  }

  it('a merge key and aliases validate without copying; merged fields are reported at the line that merges them', () => {
    const text = 'apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  containers:\n  - &c {name: c, image: i, tty: maybe}\n  - <<: *c\n    name: d\n';
    assert.deepEqual(problems(text), [
      'pod.yaml:6 spec.containers[0].tty: expected boolean (true or false), got "maybe"',
      'pod.yaml:7 spec.containers[1].tty: expected boolean (true or false), got "maybe"',
    ]);
  });

  it('warns once for each ignored field, at its line', () => {
    const text = pod({ meta: '  creationTimestamp: "2024-01-01T00:00:00Z"', spec: '  nodeSelector: {disk: ssd}\n  affinity: {}', top: 'status: {phase: Running}' });
    const result = parseManifests([{ source: { file: 'pod.yaml' }, text }], options);
    assert.deepEqual(result.problems, []);
    assert.deepEqual(
      result.warnings.map((w) => `${w.file}:${w.line} ${w.path}: ${w.message}`),
      [
        'pod.yaml:5 metadata.creationTimestamp: ignored, read-only and set by the API server',
        'pod.yaml:7 spec.nodeSelector: ignored, scheduling has no meaning on one host',
        'pod.yaml:12 status: ignored, runpod reports the status it observes',
      ],
    );
  });
});
