// Workloads through the CLI (issue 12): the Kubernetes documentation's nginx Deployment and `web` StatefulSet with
// local stand-in images, a rolling update that never drops below the available minimum, a scale-down, claims per
// ordinal that survive `down`, a DaemonSet, and a folder mixing them with a ConfigMap and RBAC. Every test runs
// under an isolation key of its own, so the documentation's fixed names never meet another test's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { busybox, docker, keyedWorkspace, runpod, show } from './harness.js';

/** A local stand-in for an image the docs use: busybox's root filesystem, serving HTTP on port 80 as nginx does. */
function standIn(ref: string): string {
  const image = `runpod-test/${ref.replace(/^.*\//, '')}`;
  if (docker(['images', '-q', image]) !== '') return image;
  const id = docker(['create', busybox, 'true']);
  try {
    const tar = path.join(os.tmpdir(), `standin-${id.slice(0, 12)}.tar`);
    docker(['export', '-o', tar, id]);
    docker(['import', '--change', 'CMD ["httpd", "-f", "-p", "80", "-h", "/"]', tar, image]);
    fs.rmSync(tar, { force: true });
  } finally {
    docker(['rm', '-f', id]);
  }
  return image;
}

/** A stand-in for the docs' perl image: busybox with a `perl` that prints the first digits of pi, whatever it is asked. */
function perlStandIn(): string {
  const image = 'runpod-test/perl:5.34.0';
  if (docker(['images', '-q', image]) !== '') return image;
  const id = docker(['create', busybox, 'sh', '-c', 'mkdir -p /usr/bin && printf "#!/bin/sh\\necho 3.14159265358979323846\\n" > /usr/bin/perl && chmod +x /usr/bin/perl']);
  try {
    docker(['start', '-a', id]);
    const tar = path.join(os.tmpdir(), `standin-${id.slice(0, 12)}.tar`);
    docker(['export', '-o', tar, id]);
    docker(['import', tar, image]);
    fs.rmSync(tar, { force: true });
  } finally {
    docker(['rm', '-f', id]);
  }
  return image;
}

/** The id of a pod's container under the key (any state with all: a finished Job's too). */
function containerId(key: string, pod: string, container: string, all = false): string {
  return docker([
    'ps',
    all ? '-aq' : '-q',
    '--filter',
    `label=io.runpod.project=${key}`,
    '--filter',
    `label=io.kubernetes.pod.name=${pod}`,
    '--filter',
    `label=io.kubernetes.container.name=${container}`,
  ]);
}

/** The pods of a workload on the engine, by name, with whether every one of their containers runs. */
function podsOf(key: string, owner: string): Map<string, boolean> {
  const out = docker([
    'ps',
    '-a',
    '--filter',
    `label=io.runpod.project=${key}`,
    '--filter',
    `label=io.runpod.owner=${owner}`,
    '--format',
    '{{.Label "io.kubernetes.pod.name"}} {{.State}}',
  ]);
  const pods = new Map<string, boolean>();
  for (const line of out.split('\n').filter(Boolean)) {
    const [name, state] = line.split(' ');
    pods.set(name!, (pods.get(name!) ?? true) && state === 'running');
  }
  return pods;
}

const nginxDeployment = (image: string, replicas = 3, strategy = '') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
  labels:
    app: nginx
spec:
  replicas: ${replicas}
  selector:
    matchLabels:
      app: nginx
${strategy}  template:
    metadata:
      labels:
        app: nginx
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: nginx
        image: ${image}
        ports:
        - containerPort: 80
        readinessProbe:
          tcpSocket:
            port: 80
          periodSeconds: 1
`;

test('the nginx Deployment: 3 replicas up and ready, named as its ReplicaSet would; a re-run changes nothing', async (t) => {
  const image = standIn('nginx:1.14.2');
  const w = keyedWorkspace(t, 'wl', { 'deployment.yaml': nginxDeployment(image) });
  const up = await w.run(path.join(w.dir, 'deployment.yaml'), '-o', 'json');
  assert.equal(up.code, 0, show(up));
  const doc = JSON.parse(up.stdout) as { pods: { name: string; status: string }[]; workloads: { ref: string; status: string; pods: string[] }[] };
  assert.equal(doc.workloads[0]!.ref, 'deployment/nginx-deployment');
  assert.equal(doc.workloads[0]!.status, 'succeeded');
  const names = doc.workloads[0]!.pods;
  assert.equal(names.length, 3);
  for (const n of names) assert.match(n, /^nginx-deployment-[bcdfghjklmnpqrstvwxz2456789]{1,10}-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  const hash = names[0]!.split('-')[2]!;
  assert.deepEqual([...podsOf(w.key, 'deployment/nginx-deployment')].sort(), names.map((n) => [n, true]).sort());
  const infra = containerId(w.key, names[0]!, 'POD');
  assert.equal(
    docker(['inspect', '--format', '{{.Name}}', infra]),
    `/k8s_POD_${names[0]}_default.${w.key}_${docker(['inspect', '--format', '{{index .Config.Labels "io.kubernetes.pod.uid"}}', infra])}_0`,
  );
  const labels = docker(['inspect', '--format', '{{index .Config.Labels "pod-template-hash"}} {{index .Config.Labels "app"}} {{index .Config.Labels "io.runpod.owner"}}', infra]);
  assert.equal(labels, `${hash} nginx deployment/nginx-deployment`);
  const again = await w.run(path.join(w.dir, 'deployment.yaml'), '-o', 'json');
  assert.equal(again.code, 0, show(again));
  assert.ok(
    (JSON.parse(again.stdout) as { pods: { changed: boolean }[] }).pods.every((p) => !p.changed),
    'a re-run changes nothing',
  );
  // kubectl's forms: status and logs of deploy/<name>.
  const status = await w.run('status', 'deploy/nginx-deployment');
  assert.equal(status.code, 0, show(status));
  for (const n of names) assert.match(status.stdout, new RegExp(`default/${n} +Running +1/1`));
  assert.match(status.stdout, /^default\/deployment\/nginx-deployment +3\/3 +/m, 'the workload, with its ready pods');
  const json = JSON.parse((await w.run('status', 'deploy/nginx-deployment', '-o', 'json')).stdout) as { pods: { owner: string }[] };
  assert.ok(json.pods.length === 3 && json.pods.every((p) => p.owner === 'deployment/nginx-deployment'), 'each pod names its owner');
  const down = await w.run('down', path.join(w.dir, 'deployment.yaml'));
  assert.equal(down.code, 0, show(down));
  assert.equal(podsOf(w.key, 'deployment/nginx-deployment').size, 0);
});

test('a template change rolls without ever dropping below the available minimum; a scale-down removes the extras', async (t) => {
  const oldImage = standIn('nginx:1.14.2');
  const newImage = standIn('nginx:1.16.1');
  const strategy = '  strategy:\n    rollingUpdate:\n      maxSurge: 1\n      maxUnavailable: 0\n';
  const w = keyedWorkspace(t, 'wl', { 'deployment.yaml': nginxDeployment(oldImage, 3, strategy) });
  const file = path.join(w.dir, 'deployment.yaml');
  const first = await w.run(file);
  assert.equal(first.code, 0, show(first));
  const before = [...podsOf(w.key, 'deployment/nginx-deployment').keys()];
  fs.writeFileSync(file, nginxDeployment(newImage, 3, strategy));
  // Watch the engine while the rollout runs: pods whose every container runs, at each moment.
  let minRunning = Number.POSITIVE_INFINITY;
  let maxPods = 0;
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      const pods = podsOf(w.key, 'deployment/nginx-deployment');
      minRunning = Math.min(minRunning, [...pods.values()].filter(Boolean).length);
      maxPods = Math.max(maxPods, pods.size);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const rolled = await w.run(file, '-o', 'json');
  watching = false;
  await watcher;
  assert.equal(rolled.code, 0, show(rolled));
  const after = (JSON.parse(rolled.stdout) as { workloads: { pods: string[]; removed: string[] }[] }).workloads[0]!;
  assert.deepEqual([...after.removed].sort(), [...before].sort(), 'every old pod went');
  assert.ok(
    after.pods.every((n) => !before.includes(n)),
    'new pods, under the new pod-template-hash',
  );
  assert.ok(minRunning >= 3, `never fewer than 3 running (maxUnavailable 0), saw ${minRunning}`);
  assert.ok(maxPods <= 4, `never more than 4 pods (maxSurge 1), saw ${maxPods}`);
  fs.writeFileSync(file, nginxDeployment(newImage, 1, strategy));
  const scaled = await w.run(file);
  assert.equal(scaled.code, 0, show(scaled));
  assert.deepEqual([...podsOf(w.key, 'deployment/nginx-deployment').keys()], [after.pods[0]], 'the first replica stays');
});

const webStatefulSet = (image: string, replicas = 3) => `apiVersion: v1
kind: Service
metadata:
  name: nginx
  labels:
    app: nginx
spec:
  ports:
  - port: 80
    name: web
  clusterIP: None
  selector:
    app: nginx
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  selector:
    matchLabels:
      app: nginx
  serviceName: "nginx"
  replicas: ${replicas}
  minReadySeconds: 1
  template:
    metadata:
      labels:
        app: nginx
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: nginx
        image: ${image}
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

test('the web StatefulSet: web-0, web-1, web-2 in order, each with its hostname and claim; claims survive down and a re-run', async (t) => {
  const image = standIn('nginx-slim:0.24');
  const w = keyedWorkspace(t, 'wl', { 'web.yaml': webStatefulSet(image) });
  const file = path.join(w.dir, 'web.yaml');
  // Services are another issue: skipped here on purpose, and said so.
  const up = await w.run(file, '--skip-kind', 'Service');
  assert.equal(up.code, 0, show(up));
  assert.match(up.stderr, /Service nginx skipped: skipped as asked \(--skip-kind\)/);
  const started = ['web-0', 'web-1', 'web-2'].map((n) => {
    const id = containerId(w.key, n, 'nginx');
    assert.ok(id, `${n} runs`);
    return { n, id, at: Date.parse(docker(['inspect', '--format', '{{.State.StartedAt}}', id])) };
  });
  // OrderedReady with minReadySeconds 1: each pod starts only once the one before is available.
  assert.ok(started[1]!.at - started[0]!.at >= 1000 && started[2]!.at - started[1]!.at >= 1000, JSON.stringify(started));
  assert.equal(docker(['exec', started[1]!.id, 'hostname']), 'web-1');
  docker(['exec', started[0]!.id, 'sh', '-c', 'echo kept > /usr/share/nginx/html/index.html']);
  const claims = docker(['volume', 'ls', '-q', '--filter', `label=io.runpod.project=${w.key}`, '--filter', 'label=io.runpod.volume.type=persistentVolumeClaim'])
    .split('\n')
    .sort();
  assert.deepEqual(
    claims,
    ['www-web-0', 'www-web-1', 'www-web-2'].map((c) => `pvc_default.${w.key}_${c}`),
  );
  const down = await w.run('down', file);
  assert.equal(down.code, 0, show(down));
  assert.equal(podsOf(w.key, 'statefulset/web').size, 0);
  assert.equal(
    docker(['volume', 'ls', '-q', '--filter', `label=io.runpod.project=${w.key}`, '--filter', 'label=io.runpod.volume.type=persistentVolumeClaim']).split('\n').length,
    3,
    'claims outlive down',
  );
  // Scale to 2 on the way back: web-0 finds its file; web-2 is not made again.
  fs.writeFileSync(file, webStatefulSet(image, 2));
  const back = await w.run(file, '--skip-kind', 'Service');
  assert.equal(back.code, 0, show(back));
  const web0 = containerId(w.key, 'web-0', 'nginx');
  assert.equal(docker(['exec', web0, 'cat', '/usr/share/nginx/html/index.html']), 'kept');
  assert.deepEqual([...podsOf(w.key, 'statefulset/web').keys()].sort(), ['web-0', 'web-1']);
  // Asked for, down removes the claims its pods mounted (web-2's, mounted by none now, stays).
  const gone = await w.run('down', '--delete-claims', 'sts/web');
  assert.equal(gone.code, 0, show(gone));
  const left = docker(['volume', 'ls', '-q', '--filter', `label=io.runpod.project=${w.key}`, '--filter', 'label=io.runpod.volume.type=persistentVolumeClaim']);
  assert.equal(left, `pvc_default.${w.key}_www-web-2`);
});

test('a folder with a DaemonSet, a ReplicaSet, a ConfigMap and RBAC: the workloads run, RBAC is skipped with a warning', async (t) => {
  const image = standIn('nginx:1.14.2');
  const w = keyedWorkspace(t, 'wl', {
    'ds.yaml': `apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\nspec:\n  selector:\n    matchLabels: {app: agent}\n  template:\n    metadata:\n      labels: {app: agent}\n    spec:\n      terminationGracePeriodSeconds: 1\n      containers:\n      - name: agent\n        image: ${image}\n        envFrom:\n        - configMapRef: {name: agent-config}\n`,
    'rs.yaml': `apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: frontend\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {tier: frontend}\n  template:\n    metadata:\n      labels: {tier: frontend}\n    spec:\n      terminationGracePeriodSeconds: 1\n      containers:\n      - name: php\n        image: ${image}\n        volumeMounts: [{name: shared, mountPath: /shared}]\n      volumes:\n      - name: shared\n        persistentVolumeClaim: {claimName: shared}\n`,
    'claim.yaml': 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: shared\nspec:\n  accessModes: [ReadWriteMany]\n  resources:\n    requests: {storage: 1Gi}\n',
    'unused-claim.yaml':
      'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: spare\nspec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests: {storage: 1Gi}\n',
    'config.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: agent-config\ndata:\n  LEVEL: debug\n',
    'rbac.yaml': 'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: agent-reader\nrules:\n- apiGroups: [""]\n  resources: [pods]\n  verbs: [get]\n',
  });
  const up = await w.run(w.dir);
  assert.equal(up.code, 0, show(up));
  assert.match(up.stderr, /rbac\.yaml:2 kind: Role agent-reader skipped: there is no API server on one host/);
  const agent = [...podsOf(w.key, 'daemonset/agent')];
  assert.equal(agent.length, 1, 'one node, one pod');
  assert.match(agent[0]![0], /^agent-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  const agentId = containerId(w.key, agent[0]![0], 'agent');
  assert.match(docker(['exec', agentId, 'sh', '-c', 'echo $LEVEL']), /^debug$/);
  assert.equal(podsOf(w.key, 'replicaset/frontend').size, 2);
  // A claim of the input is made by the run, used by no pod or not (kubectl apply makes it).
  const claims = () =>
    docker(['volume', 'ls', '-q', '--filter', `label=io.runpod.project=${w.key}`, '--filter', 'label=io.runpod.volume.type=persistentVolumeClaim'])
      .split('\n')
      .filter(Boolean)
      .sort();
  assert.deepEqual(claims(), [`pvc_default.${w.key}_shared`, `pvc_default.${w.key}_spare`]);
  const down = await w.run('down', '--delete-claims', w.dir);
  assert.equal(down.code, 0, show(down));
  assert.equal(podsOf(w.key, 'daemonset/agent').size + podsOf(w.key, 'replicaset/frontend').size, 0);
  assert.match(down.stdout, new RegExp(`claim volume pvc_default\\.${w.key}_shared: removed`));
  // The folder names both claims: the one no pod mounted goes too.
  assert.match(down.stdout, new RegExp(`claim volume pvc_default\\.${w.key}_spare: removed`));
  assert.deepEqual(claims(), []);
});

const jobManifest = (name: string, spec: string, command: string) => `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
spec:
${spec}  template:
    spec:
      terminationGracePeriodSeconds: 0
      containers:
      - name: work
        image: ${busybox}
        command: ["sh", "-c", ${JSON.stringify(command)}]
      restartPolicy: Never
`;

test('Jobs: completions 3 / parallelism 2 exits 0; an Indexed Job sees its index; a folder with a Deployment waits for each by its kind', async (t) => {
  const image = standIn('nginx:1.14.2');
  const w = keyedWorkspace(t, 'wl', {
    'work.yaml': jobManifest('work', '  completions: 3\n  parallelism: 2\n', 'sleep 1; echo done'),
    'indexed.yaml': jobManifest('indexed', '  completions: 3\n  parallelism: 3\n  completionMode: Indexed\n', 'echo "index=$JOB_COMPLETION_INDEX host=$(hostname)"'),
    'web.yaml': nginxDeployment(image, 1),
  });
  const up = await w.run(w.dir, '-o', 'json');
  assert.equal(up.code, 0, show(up));
  const doc = JSON.parse(up.stdout) as { workloads: { ref: string; status: string; reason: string }[] };
  const byRef = new Map(doc.workloads.map((x) => [x.ref, x]));
  assert.match(byRef.get('job/work')!.reason, /completed \(3 of 3 succeeded\)/);
  assert.match(byRef.get('job/indexed')!.reason, /completed \(3 of 3 succeeded\)/);
  assert.equal(byRef.get('deployment/nginx-deployment')!.status, 'succeeded', 'the Deployment waited for ready, the Jobs for completion, in one run');
  // parallelism 2: the third pod started only after one of the first two had finished.
  const starts = [...podsOf(w.key, 'job/work').keys()]
    .map((n) => {
      const id = containerId(w.key, n, 'work', true);
      return { start: Date.parse(docker(['inspect', '--format', '{{.State.StartedAt}}', id])), end: Date.parse(docker(['inspect', '--format', '{{.State.FinishedAt}}', id])) };
    })
    .sort((a, b) => a.start - b.start);
  assert.equal(starts.length, 3);
  assert.ok(starts[2]!.start >= Math.min(starts[0]!.end, starts[1]!.end), `at most 2 at once: ${JSON.stringify(starts)}`);
  const indexed = [...podsOf(w.key, 'job/indexed').keys()].sort();
  const seen = await Promise.all(indexed.map(async (n) => (await w.run('logs', n)).stdout.trim()));
  assert.deepEqual(seen.sort(), ['index=0 host=indexed-0', 'index=1 host=indexed-1', 'index=2 host=indexed-2']);
  // A re-run finds the completed Jobs and runs nothing again.
  const again = await w.run(w.dir, '-o', 'json');
  assert.equal(again.code, 0, show(again));
  assert.equal(podsOf(w.key, 'job/work').size, 3);
});

test("the documentation's Indexed Job (bash arrays in an init container, rev in the worker) runs as written, with local stand-in images", async (t) => {
  // https://kubernetes.io/docs/tasks/job/indexed-parallel-processing-static/: only the images are stand-ins
  // (runpod-test/bash for docker.io/library/bash, runpod-test/busybox for docker.io/library/busybox).
  const w = keyedWorkspace(t, 'wl', {
    'indexed-job.yaml': `apiVersion: batch/v1
kind: Job
metadata:
  name: 'indexed-job'
spec:
  completions: 5
  parallelism: 3
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      initContainers:
      - name: 'input'
        image: 'runpod-test/bash:1'
        command:
        - "bash"
        - "-c"
        - |
          items=(foo bar baz qux xyz)
          echo \${items[$JOB_COMPLETION_INDEX]} > /input/data.txt
        volumeMounts:
        - mountPath: /input
          name: input
      containers:
      - name: 'worker'
        image: '${busybox}'
        command:
        - "rev"
        - "/input/data.txt"
        volumeMounts:
        - mountPath: /input
          name: input
      volumes:
      - name: input
        emptyDir: {}
`,
  });
  const r = await w.run(w.file('indexed-job.yaml'));
  assert.equal(r.code, 0, show(r));
  assert.match(r.stderr, /job\/indexed-job: completed \(5 of 5 succeeded\)/, show(r));
  const pods = [...podsOf(w.key, 'job/indexed-job').keys()].sort();
  assert.equal(pods.length, 5, pods.join(' '));
  const out = await Promise.all(pods.map(async (n) => (await w.run('logs', n, '-c', 'worker')).stdout.trim()));
  assert.deepEqual(out.sort(), ['oof', 'rab', 'xuq', 'zab', 'zyx']);
});

test('a Job that exhausts its backoffLimit exits 1 with the failing pod and its logs', async (t) => {
  const w = keyedWorkspace(t, 'wl', { 'fail.yaml': jobManifest('fails', '  backoffLimit: 1\n', 'echo "cannot migrate: table missing"; exit 2') });
  const r = await w.run(path.join(w.dir, 'fail.yaml'));
  assert.equal(r.code, 1, show(r));
  assert.match(r.stderr, /job\/fails failed: BackoffLimitExceeded \(2 pods failed, backoffLimit 1\)/, show(r));
  assert.match(r.stderr, /exit code 2/);
  assert.match(r.stderr, /\| cannot migrate: table missing/, "the failing pod's last log lines");
  assert.match(r.stderr, /retrying after 1 failure, in 10s/, "the Job controller's back-off");
  assert.equal(podsOf(w.key, 'job/fails').size, 2, 'both attempts are kept for runpod logs');
});

test('a StatefulSet whose claims go with it (whenDeleted: Delete) loses them at down; a scoped run of its own key leaves no claim behind', async (t) => {
  const image = standIn('nginx-slim:0.24');
  const sts = webStatefulSet(image, 1)
    .split('---\n')[1]!
    .replace('  minReadySeconds: 1\n', '  minReadySeconds: 0\n  persistentVolumeClaimRetentionPolicy:\n    whenDeleted: Delete\n');
  const claim = 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: scratch\nspec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests: {storage: 1Gi}\n';
  const w = keyedWorkspace(t, 'wl', { 'web.yaml': sts, 'claim.yaml': claim });
  const claims = () =>
    docker(['volume', 'ls', '-q', '--filter', `label=io.runpod.project=${w.key}`, '--filter', 'label=io.runpod.volume.type=persistentVolumeClaim'])
      .split('\n')
      .filter(Boolean)
      .sort();
  const up = await w.run(w.dir);
  assert.equal(up.code, 0, show(up));
  assert.deepEqual(claims(), [`pvc_default.${w.key}_scratch`, `pvc_default.${w.key}_www-web-0`]);
  const down = await w.run('down', 'sts/web');
  assert.equal(down.code, 0, show(down));
  assert.deepEqual(claims(), [`pvc_default.${w.key}_scratch`], "web-0's claim went with the StatefulSet; the input's own claim stays");
  // A scoped run under a key of its own: nobody can come back to it, so its claims go too (the input's and web-0's).
  const claimsOfName = () =>
    ['scratch', 'www-web-0'].flatMap((c) => docker(['volume', 'ls', '-q', '--filter', `label=io.runpod.pvc.name=${c}`]).split('\n')).filter((v) => v !== '' && !v.includes(w.key));
  const before = claimsOfName();
  const scoped = await runpod([w.dir, '--', 'true'], { timeoutMs: 240_000 });
  assert.equal(scoped.code, 0, show(scoped));
  assert.deepEqual(claimsOfName(), before, "no claim left under the scoped run's key");
});

test("the documentation's pi Job runs as documented, with a stand-in perl image, and its logs hold the result", async (t) => {
  const image = perlStandIn();
  const w = keyedWorkspace(t, 'wl', {
    'pi.yaml': `apiVersion: batch/v1
kind: Job
metadata:
  name: pi
spec:
  template:
    spec:
      containers:
      - name: pi
        image: ${image}
        command: ["perl",  "-Mbignum=bpi", "-wle", "print bpi(2000)"]
      restartPolicy: Never
  backoffLimit: 4
`,
  });
  const r = await w.run(path.join(w.dir, 'pi.yaml'));
  assert.equal(r.code, 0, show(r));
  assert.match(r.stderr, /job\/pi: completed \(1 of 1 succeeded\)/);
  const logs = await w.run('logs', 'job/pi');
  assert.match(logs.stdout, /^3\.14159/);
  // --wait none: the Job's pod is started and not awaited.
  assert.equal((await w.run('down', 'job/pi')).code, 0);
  const started = await w.run(path.join(w.dir, 'pi.yaml'), '--wait', 'none');
  assert.equal(started.code, 0, show(started));
  assert.match(started.stderr, /job\/pi: started 1 pod \(--wait none: not awaited; no retries\)/);
});

test('podFailurePolicy: an exit code that FailJob names fails the Job at once, with no retry', async (t) => {
  const w = keyedWorkspace(t, 'wl', {
    'job.yaml': jobManifest(
      'fatal',
      '  backoffLimit: 6\n  podFailurePolicy:\n    rules:\n    - action: FailJob\n      onExitCodes: {containerName: work, operator: In, values: [42]}\n',
      'echo "bad config"; exit 42',
    ),
  });
  const r = await w.run(path.join(w.dir, 'job.yaml'));
  assert.equal(r.code, 1, show(r));
  assert.match(r.stderr, /job\/fatal failed: PodFailurePolicy \(default\/fatal-\S+: container work exited with 42, podFailurePolicy rule 0: FailJob\)/, show(r));
  assert.equal(podsOf(w.key, 'job/fatal').size, 1, 'no second pod');
  assert.doesNotMatch(r.stderr, /retrying/);
});

test("the documentation's hello CronJob: refused with a hint; --from-cronjob runs its job template (restartPolicy OnFailure) once, unchanged, and down takes it down", async (t) => {
  const w = keyedWorkspace(t, 'wl', {
    'cronjob.yaml': `apiVersion: batch/v1
kind: CronJob
metadata:
  name: hello
spec:
  schedule: "* * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          containers:
          - name: hello
            image: ${busybox}
            imagePullPolicy: IfNotPresent
            command:
            - /bin/sh
            - -c
            - date; echo Hello from the Kubernetes cluster
          restartPolicy: OnFailure
`,
  });
  const file = path.join(w.dir, 'cronjob.yaml');
  const refused = await w.run(file);
  assert.equal(refused.code, 2, show(refused));
  assert.match(refused.stderr, /CronJob hello is refused: there is no scheduler on one host .*--from-cronjob <name>/);
  // The documented template, unchanged (restartPolicy OnFailure).
  const once = await w.run(file, '--from-cronjob', 'hello');
  assert.equal(once.code, 0, show(once));
  assert.match(once.stderr, /spec\.schedule: not used: --from-cronjob runs the job template once, now/);
  assert.match(once.stderr, /job\/hello-manual: completed \(1 of 1 succeeded\)/);
  assert.match((await w.run('logs', 'job/hello-manual')).stdout, /Hello from the Kubernetes cluster/);
  const missing = await w.run(file, '--from-cronjob', 'nope');
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--from-cronjob nope: no CronJob named nope \(batch\/v1\) in the input/);
  assert.equal((await w.run('down', file)).code, 0);
  assert.equal(podsOf(w.key, 'job/hello-manual').size, 0, "down of the CronJob file takes its Job's pods down");
});
