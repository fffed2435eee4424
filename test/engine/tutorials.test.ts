// The Kubernetes tutorials' stacks that did not run as on a one-node cluster (issue 24), through the CLI on the real
// engine, with stand-in images: a work-queue Job, fsGroup on claims, a StatefulSet volume replaced by its claim,
// static PersistentVolumes, removed apiVersions, Helm hooks, the service account's namespace file, dnsPolicy files.
// Every test runs under an isolation key of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { busybox, docker, keyedWorkspace, show } from './harness.js';

/** A key's pods of an owner: "pod phase" lines from runpod status -o json. */
async function podPhases(w: ReturnType<typeof keyedWorkspace>, ref: string): Promise<string[]> {
  const st = await w.run('status', '-o', 'json', ref);
  assert.equal(st.code, 0, show(st));
  return (JSON.parse(st.stdout) as { pods: { name: string; phase: string }[] }).pods.map((p) => `${p.name} ${p.phase}`).sort();
}

test('a Job with parallelism 2 and no completions (the work-queue tutorial) runs two pods, both Succeeded', async (t) => {
  const w = keyedWorkspace(t, 'tut-wq', {
    'wq.yaml': `apiVersion: batch/v1
kind: Job
metadata: {name: wq}
spec:
  parallelism: 2
  template:
    spec:
      restartPolicy: OnFailure
      containers:
      - {name: c, image: ${busybox}, command: [sh, -c, 'echo worker $HOSTNAME; sleep 2']}
`,
  });
  const r = await w.run(w.file('wq.yaml'));
  assert.equal(r.code, 0, show(r));
  assert.match(r.stderr, /job\/wq: completed \(2 of 2 pods succeeded; no completions set/, show(r));
  const phases = await podPhases(w, 'job/wq');
  assert.equal(phases.length, 2, phases.join('\n'));
  for (const p of phases) assert.match(p, /^wq-\S+ Succeeded$/);
  // The pods' own words: each is a worker of its own.
  const ids = docker(['ps', '-aq', '--filter', `label=io.runpod.project=${w.key}`, '--filter', 'label=io.kubernetes.container.name=c']).split('\n');
  const logs = new Set(ids.map((id) => docker(['logs', id])));
  assert.equal(logs.size, 2, [...logs].join('\n'));
});

test("a StatefulSet whose template has a volume named as a claim template (CockroachDB's) runs, the claim replacing that volume", async (t) => {
  const w = keyedWorkspace(t, 'tut-sts', {
    'db.yaml': `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: cockroachdb}
spec:
  serviceName: cockroachdb
  replicas: 1
  selector: {matchLabels: {app: cockroachdb}}
  template:
    metadata: {labels: {app: cockroachdb}}
    spec:
      terminationGracePeriodSeconds: 0
      containers:
      - name: cockroachdb
        image: ${busybox}
        command: [sh, -c, 'echo stored > /cockroach/cockroach-data/mark; sleep 3600']
        volumeMounts:
        - {name: datadir, mountPath: /cockroach/cockroach-data}
      volumes:
      - name: datadir
        persistentVolumeClaim: {claimName: datadir}
  volumeClaimTemplates:
  - metadata: {name: datadir}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
`,
  });
  const r = await w.run(w.file('db.yaml'));
  assert.equal(r.code, 0, show(r));
  assert.match(r.stderr, /spec\.template\.spec\.volumes\[0\]: replaced in each pod by the claim of spec\.volumeClaimTemplates\[0\]/, show(r));
  const claim = `pvc_default.${w.key}_datadir-cockroachdb-0`;
  const mounts = docker([
    'inspect',
    '--format',
    '{{range .Mounts}}{{.Name}} {{.Destination}}{{"\\n"}}{{end}}',
    docker(['ps', '-q', '--filter', `label=io.runpod.project=${w.key}`, '--filter', 'label=io.kubernetes.container.name=cockroachdb']),
  ]);
  assert.match(mounts, new RegExp(`^${claim.replace(/\./g, '\\.')} /cockroach/cockroach-data$`, 'm'), mounts);
});

test("the CronJob tutorial's batch/v1beta1 manifest with --from-cronjob: the apiVersion, its removal in 1.25 and batch/v1 are named; nothing runs", async (t) => {
  const cron = (apiVersion: string) => `apiVersion: ${apiVersion}
kind: CronJob
metadata: {name: hello}
spec:
  schedule: "* * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - {name: hello, image: ${busybox}, command: [/bin/sh, -c, date; echo Hello from the Kubernetes cluster]}
`;
  const w = keyedWorkspace(t, 'tut-cron', { 'old.yaml': cron('batch/v1beta1'), 'new.yaml': cron('batch/v1') });
  const r = await w.run('--from-cronjob', 'hello', w.file('old.yaml'));
  assert.equal(r.code, 2, show(r));
  assert.match(
    r.stderr,
    /old\.yaml:1 apiVersion: batch\/v1beta1 CronJob was removed in Kubernetes 1\.25 \(no API server serves it any more\); use apiVersion batch\/v1 \(--from-cronjob hello runs a batch\/v1 CronJob\)/,
    show(r),
  );
  assert.doesNotMatch(r.stderr, /no CronJob named/, show(r));
  assert.equal(docker(['ps', '-aq', '--filter', `label=io.runpod.project=${w.key}`]), '', 'nothing on the engine');
  const ok = await w.run('--from-cronjob', 'hello', w.file('new.yaml'));
  assert.equal(ok.code, 0, show(ok));
  assert.match(ok.stderr, /job\/hello-manual: completed/, show(ok));
});

test('helm template output: the test hook Pod is skipped with a warning, the pre-install Job runs with the rest', async (t) => {
  const w = keyedWorkspace(t, 'tut-helm', {
    'chart.yaml': `# Source: web/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 0
      containers:
      - {name: web, image: ${busybox}, command: [sleep, '3600']}
---
# Source: web/templates/tests/test-connection.yaml
apiVersion: v1
kind: Pod
metadata:
  name: "web-test-connection"
  annotations:
    "helm.sh/hook": test
spec:
  restartPolicy: Never
  containers:
  - {name: wget, image: ${busybox}, command: [sh, -c, 'exit 1']}
---
# Source: web/templates/migrate.yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    "helm.sh/hook": pre-install,pre-upgrade
    "helm.sh/hook-delete-policy": hook-succeeded
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: m, image: ${busybox}, command: [sh, -c, 'echo migrated']}
`,
  });
  const r = await w.run(w.file('chart.yaml'));
  assert.equal(r.code, 0, show(r));
  assert.match(
    r.stderr,
    /warning: \S*chart\.yaml:21 metadata\.annotations\["helm\.sh\/hook"\]: Pod web-test-connection skipped: a Helm test hook \(test\): helm install runs none, helm test does/,
    show(r),
  );
  assert.match(r.stderr, /Helm hook pre-install,pre-upgrade: runs with the other objects/, show(r));
  assert.match(r.stderr, /job\/migrate: completed/, show(r));
  const pods = docker(['ps', '-a', '--filter', `label=io.runpod.project=${w.key}`, '--format', '{{.Label "io.kubernetes.pod.name"}}']).split('\n');
  assert.ok(!pods.includes('web-test-connection'), pods.join(' '));
  assert.ok(
    pods.some((p) => p.startsWith('web-')),
    pods.join(' '),
  );
});

test('fsGroup owns a claim as it owns an emptyDir (the ZooKeeper tutorial), by fsGroupChangePolicy: OnRootMismatch leaves an owned root alone, Always walks every file', async (t) => {
  const pod = (policy: string) => `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: datadir}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: v1
kind: Pod
metadata: {name: zk}
spec:
  terminationGracePeriodSeconds: 0
  securityContext: {runAsUser: 1000, fsGroup: 1000${policy}}
  containers:
  - name: zk
    image: ${busybox}
    command: [sh, -c, 'mkdir -p /claim/data && touch /claim/data/myid && exec sleep 3600']
    volumeMounts:
    - {name: datadir, mountPath: /claim}
    - {name: scratch, mountPath: /scratch}
  volumes:
  - {name: datadir, persistentVolumeClaim: {claimName: datadir}}
  - {name: scratch, emptyDir: {}}
`;
  const w = keyedWorkspace(t, 'tut-fsg', { 'always.yaml': pod(''), 'root.yaml': pod(', fsGroupChangePolicy: OnRootMismatch') });
  const stat = async (...paths: string[]): Promise<string> => {
    const r = await w.run('exec', 'zk', '--', 'stat', '-c', '%n %a %u %g', ...paths);
    assert.equal(r.code, 0, show(r));
    return r.stdout.trim();
  };
  const up = await w.run(w.file('always.yaml'));
  assert.equal(up.code, 0, show(up));
  assert.equal(
    await stat('/claim', '/claim/data', '/claim/data/myid', '/scratch'),
    ['/claim 2775 0 1000', '/claim/data 2755 1000 1000', '/claim/data/myid 644 1000 1000', '/scratch 2777 0 1000'].join('\n'),
  );
  // Something of root's in the claim (an earlier pod that ran as root).
  const id = docker(['ps', '-q', '--filter', `label=io.runpod.project=${w.key}`, '--filter', 'label=io.kubernetes.container.name=zk']);
  docker(['exec', '-u', '0', id, 'sh', '-c', 'echo x > /claim/data/root-file && chown 0:0 /claim/data/root-file && chmod 600 /claim/data/root-file']);

  // OnRootMismatch: the root is owned already, so nothing is walked; root's file stays root's.
  assert.equal((await w.run('down', w.file('always.yaml'))).code, 0);
  const again = await w.run(w.file('root.yaml'));
  assert.equal(again.code, 0, show(again));
  assert.equal(await stat('/claim/data/root-file'), '/claim/data/root-file 600 0 0');
  // Always (the default): every file gets the group, read-write for it.
  assert.equal((await w.run('down', w.file('root.yaml'))).code, 0);
  const always = await w.run(w.file('always.yaml'));
  assert.equal(always.code, 0, show(always));
  assert.equal(await stat('/claim/data/root-file', '/claim/data'), '/claim/data/root-file 660 0 1000\n/claim/data 2775 1000 1000');
  const read = await w.run('exec', 'zk', '--', 'cat', '/claim/data/root-file');
  assert.equal(read.stdout.trim(), 'x', show(read));
});

test("the init-container example reads the namespace file and ends; automountServiceAccountToken false has none; dnsPolicy None's resolv.conf is exactly its dnsConfig", async (t) => {
  const w = keyedWorkspace(t, 'tut-files', {
    'myapp.yaml': `apiVersion: v1
kind: Pod
metadata: {name: myapp-pod, namespace: shop, labels: {app.kubernetes.io/name: MyApp}}
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - {name: myapp-container, image: ${busybox}, command: ['sh', '-c', 'echo The app is running! && sleep 3600']}
  initContainers:
  - {name: init-myservice, image: ${busybox}, command: ['sh', '-c', 'until [ "$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace)" = shop ]; do echo waiting for the namespace; sleep 2; done']}
---
apiVersion: v1
kind: Pod
metadata: {name: quiet, namespace: shop}
spec:
  terminationGracePeriodSeconds: 0
  automountServiceAccountToken: false
  dnsPolicy: None
  dnsConfig:
    nameservers: [192.0.2.1]
    searches: [ns1.svc.cluster-domain.example, my.dns.search.suffix]
    options: [{name: ndots, value: "2"}, {name: edns0}]
  containers:
  - {name: c, image: ${busybox}, command: [sleep, '3600']}
`,
  });
  const r = await w.run('--timeout', '3m', w.file('myapp.yaml'));
  assert.equal(r.code, 0, show(r));
  const ns = await w.run('exec', 'shop/myapp-pod', '--', 'ls', '/var/run/secrets/kubernetes.io/serviceaccount');
  assert.equal(ns.stdout.trim(), 'namespace', show(ns));
  const none = await w.run('exec', 'shop/quiet', '--', 'ls', '/var/run/secrets/kubernetes.io/serviceaccount');
  assert.notEqual(none.code, 0, show(none));
  const resolv = await w.run('exec', 'shop/quiet', '--', 'cat', '/etc/resolv.conf');
  assert.equal(resolv.stdout, 'nameserver 192.0.2.1\nsearch ns1.svc.cluster-domain.example my.dns.search.suffix\noptions ndots:2 edns0\n', show(resolv));
});
