// Run inside the executable's V8 startup-snapshot builder only (scripts/build-exe.mjs), never at run time. Node 20
// builds a user snapshot keeping the bytecode of every function that has run (V8's FunctionCodeHandling::kKeep;
// measured: a large function run in the builder costs 0.7 ms on its first call after start, 150 ms when it was not),
// so each start of the executable skips compiling what ran here: yargs building and parsing a command tree, the
// commands' option builders, manifest parsing and validation, and every command module's evaluation. Only what
// needs no engine runs here: node:http, https and tls cannot be loaded in a Node 20 snapshot builder. Nothing it leaves behind is read at run time but
// compiled code and module caches that the same inputs would fill anyway; every run builds its own yargs instance.
import { Readable, Writable } from 'node:stream';
import { runCli } from './cli/cli.js';
import type { CommandContext } from './commands/context.js';
import { UsageError } from './errors.js';
import { renderToDocuments } from './input/kustomize/input.js';
import type { KustomizeIo } from './input/kustomize/render.js';
import { loadManifests } from './manifest/load.js';
import { Label } from './kube/labels.js';
import { engineResources } from './plan/resize.js';
import { instanceCreateOptions, translatePod } from './plan/translate.js';
import { decidePodActions } from './reconcile/decide.js';
import { type ObservedContainer, groupPod } from './reconcile/observe.js';
import { checkPod } from './wait/check.js';

/** A pod with the fields most manifests use, and a Deployment and a Job: the workloads' expansion runs too. */
const manifests = `apiVersion: v1
kind: Pod
metadata:
  name: warm
  namespace: warm
  labels: {app: warm}
  annotations: {note: warm-up}
spec:
  terminationGracePeriodSeconds: 3
  restartPolicy: Always
  volumes:
    - name: scratch
      emptyDir: {}
  initContainers:
    - name: prepare
      image: example.test/warm:1
      command: ["sh", "-c", "true"]
      volumeMounts: [{name: scratch, mountPath: /scratch}]
  containers:
    - name: main
      image: example.test/warm:1
      imagePullPolicy: IfNotPresent
      command: ["sh", "-c"]
      args: ["exec sleep 3600"]
      workingDir: /scratch
      env:
        - {name: A, value: "1"}
        - name: POD
          valueFrom: {fieldRef: {fieldPath: metadata.name}}
      ports:
        - {name: http, containerPort: 8080, protocol: TCP}
      resources:
        requests: {cpu: 100m, memory: 16Mi}
        limits: {cpu: 250m, memory: 32Mi}
      readinessProbe:
        exec: {command: ["true"]}
        periodSeconds: 1
      livenessProbe:
        tcpSocket: {port: 8080}
      securityContext: {readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, runAsUser: 1000}
      volumeMounts: [{name: scratch, mountPath: /scratch}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: warm-web}
spec:
  replicas: 2
  selector: {matchLabels: {app: warm-web}}
  template:
    metadata: {labels: {app: warm-web}}
    spec:
      containers:
        - {name: web, image: example.test/warm:1, ports: [{containerPort: 80}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: warm-job}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - {name: job, image: example.test/warm:1, command: ["true"]}
`;

const discard = (): Writable =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });

function context(stdin: string): CommandContext {
  return {
    stdout: discard(),
    stderr: discard(),
    stdin: Readable.from([stdin]),
    env: {},
    signal: new AbortController().signal,
    interruptedBy: () => undefined,
    now: () => Date.now(),
  };
}

/**
 * Command lines that end before any engine module is loaded: validate from stdin, and each command's options
 * refused by runpod's own checks or yargs' strict mode (which runs after the command's builder).
 */
const usageErrors: string[][] = [
  ['run', '--backoff', '0', 'pod.yaml'],
  ['pod.yaml', '--prune', '--prune-all'],
  ['-n', 'ci', 'down', '--warm-up-unknown', 'pod.yaml'],
  ['status', '--warm-up-unknown'],
  ['logs', 'pod', '--warm-up-unknown'],
  ['exec', 'pod', '--warm-up-unknown', '--', 'true'],
  ['stats', '--warm-up-unknown'],
  ['gc', '--warm-up-unknown'],
  ['systemd', 'pod.yaml', '--warm-up-unknown'],
  ['validate', '--warm-up-unknown', 'pod.yaml'],
];

/**
 * Every command's module, evaluated here: the engine client, reconcile, wait, probes and the report layer are then
 * initialised in the snapshot, not compiled and evaluated on each start (the no-op re-run's profile had 17 ms of
 * module evaluation for the run command alone). They can be loaded here because node:http, https and http2 are
 * loaded on first use (lazyBuiltins.ts); nothing here reads the environment or the clock at import.
 */
async function loadCommandModules(): Promise<void> {
  await Promise.all([
    import('./commands/run.js'),
    import('./commands/down.js'),
    import('./commands/status.js'),
    import('./commands/logs.js'),
    import('./commands/exec.js'),
    import('./commands/stats.js'),
    import('./commands/gc.js'),
    import('./commands/completion.js'),
    import('./commands/systemd.js'),
  ]);
}

/**
 * The pure steps of a run, for the warm-up pods: the plan, the create options, the decision for a pod that does not
 * exist and for one whose every container runs as planned, and the check of each. A run compiles these on its first
 * call otherwise (translatePod alone took 8 ms of the no-op re-run's profile). Plain data, no engine: the instances
 * below are what observe makes of the engine's answer for the containers that the plan would create.
 */
async function planAndDecide(): Promise<void> {
  const { pods } = await loadManifests(['-'], { defaultNamespace: 'default' }, () => Promise.resolve(manifests));
  const now = Date.parse('2026-01-01T00:00:00Z');
  for (const pod of pods) {
    const plan = translatePod(pod, { infraImage: 'example.test/pause:1' });
    const observe = (c: (typeof plan)['infra'], i: number): ObservedContainer => {
      const { name, options } = instanceCreateOptions(plan, c, 0, 'warm-infra');
      const labels = options.Labels ?? {};
      return {
        id: `warm-${i}`,
        dockerName: name,
        name: labels[Label.containerName] ?? '',
        attempt: 0,
        hash: labels[Label.containerHash] ?? '',
        podUid: plan.uid,
        state: 'running',
        exitCode: 0,
        oomKilled: false,
        error: '',
        startedAt: now - 60_000,
        restartCount: 0,
        engineRestartPolicy: options.HostConfig?.RestartPolicy?.Name || 'no',
        image: options.Image ?? '',
        imageId: 'sha256:warm',
        resources: engineResources(options.HostConfig),
      };
    };
    const running = groupPod([plan.infra, ...plan.initContainers, ...plan.containers].map(observe));
    for (const observed of [groupPod([]), running]) {
      decidePodActions(plan, observed, new Map(), { now });
      checkPod({ plan, observed, mode: 'running', previous: new Map(), createdThisRun: new Set(), syncErrors: new Map(), lastExitCodes: new Map(), now, settleMs: 100 });
    }
  }
}

/**
 * A base and an overlay with the kustomization fields most overlays use (resources, generators, namePrefix,
 * namespace, labels, images, replicas, a strategic-merge and a JSON 6902 patch), rendered from memory: `-k` then
 * finds the renderer's functions compiled (the kustomize bench measured its cold first render as most of what -k
 * adds to validate).
 */
const kustomization: Record<string, string> = {
  'base/kustomization.yaml': `resources: [web.yaml, service.yaml]
labels:
- pairs: {app.kubernetes.io/part-of: warm}
configMapGenerator:
- name: web-config
  literals: [MESSAGE=base, LEVEL=info]
`,
  'base/web.yaml': `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: example.test/web
        ports: [{name: http, containerPort: 8080}]
        envFrom: [{configMapRef: {name: web-config}}]
        env:
        - name: TOKEN
          valueFrom: {secretKeyRef: {name: web-secret, key: token}}
        volumeMounts: [{name: config, mountPath: /etc/web}]
      volumes: [{name: config, configMap: {name: web-config}}]
`,
  'base/service.yaml': `apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
`,
  'overlay/kustomization.yaml': `resources: [../base]
namePrefix: warm-
namespace: warm
commonLabels: {env: warm}
commonAnnotations: {note: warm-up}
images:
- {name: example.test/web, newName: example.test/warm, newTag: "1"}
replicas:
- {name: web, count: 2}
configMapGenerator:
- name: web-config
  behavior: merge
  literals: [MESSAGE=overlay]
secretGenerator:
- name: web-secret
  literals: [token=warm]
patches:
- target: {kind: Deployment, labelSelector: "app=web"}
  patch: |-
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web}
    spec:
      template:
        spec:
          containers:
          - name: web
            env: [{name: STAGE, value: warm}]
- target: {group: apps, version: v1, kind: Deployment, name: web}
  patch: |-
    - {op: add, path: /spec/template/metadata/annotations, value: {warm: "true"}}
`,
};

function renderKustomizationFromMemory(): void {
  const root = '/runpod-warm-up';
  const files = new Map(Object.entries(kustomization).map(([rel, text]) => [`${root}/${rel}`, Buffer.from(text, 'utf8')]));
  const dirs = new Set([root, `${root}/base`, `${root}/overlay`]);
  const io: KustomizeIo = {
    readFile: (file) => {
      const b = files.get(file.replace(/\\/g, '/'));
      if (b === undefined) throw new Error(`snapshot warm-up: no file ${file}`);
      return b;
    },
    readDir: (dir) => [...files.keys(), ...dirs].filter((p) => p.slice(0, p.lastIndexOf('/')) === dir).map((p) => p.slice(p.lastIndexOf('/') + 1)),
    stat: (file) => {
      const p = file.replace(/\\/g, '/');
      return files.has(p) ? { isDirectory: false, isFile: true } : dirs.has(p) ? { isDirectory: true, isFile: false } : undefined;
    },
  };
  // As `validate -k` renders (renderToText prints through the same code, without the lines).
  const { text, parsed } = renderToDocuments(`${root}/overlay`, `${root}/overlay (kustomize)`, io);
  if (!text.includes('warm-web-config-') || parsed.documents.length === 0) throw new Error('snapshot warm-up: the kustomization rendered without its generated ConfigMap');
}

export async function warmUp(): Promise<void> {
  await loadCommandModules();
  await planAndDecide();
  renderKustomizationFromMemory();
  for (const argv of [
    ['validate', '-'],
    ['validate', '-q', '-n', 'ci', '-f', '-'],
  ]) {
    const code = await runCli(argv, context(manifests));
    if (code !== 0) throw new Error(`snapshot warm-up: runpod ${argv.join(' ')} exited ${code}`);
  }
  for (const argv of usageErrors) {
    const outcome = await runCli(argv, context('')).then(
      (code) => `exit ${code}`,
      (err: unknown) => err,
    );
    // Anything but a usage error means the command went further than this warm-up may (or the line went stale).
    if (!(outcome instanceof UsageError)) {
      const said = outcome instanceof Error ? outcome.message : String(outcome);
      throw new Error(`snapshot warm-up: runpod ${argv.join(' ')}: expected a usage error, got ${said}`);
    }
  }
}
