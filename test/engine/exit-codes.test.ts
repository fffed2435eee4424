// Exit codes mean one thing (README, exit codes; issue 23), each ending of a run checked through the CLI on the real
// engine: a fault of the input or of what it asks of this host is 1 once something may have been made (with what is
// left and the exact `runpod down` line that removes it) or 2 before anything changes; 3 only when the engine itself
// is lost. The nodePort and the crash loop are endings.test.ts's; the timeout and signals are there and in run.test.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { busybox, docker, heldPort, keyedWorkspace, leftUnder, runpod, show, type CliResult, type KeyedWorkspace } from './harness.js';
import { eventually } from './run-helpers.js';
import { dockerContainerName, podUid } from '../../src/kube/names.js';
import { claimVolumeName } from '../../src/plan/volumes.js';
import { namespaceNetwork } from '../../src/kube/serviceNames.js';

const pod = (name: string, body: string, podLevel = ''): string => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
${podLevel}  containers:
    - name: c
      image: ${busybox}
${body}`;

const sleeper = '      command: [sleep, "3600"]\n';

/** The down line the error gives; running it exits 0 and leaves nothing of the key. */
async function downLineWorks(w: KeyedWorkspace, r: CliResult, host?: string): Promise<void> {
  const line = new RegExp(`remove it with: (runpod down (?:--host \\S+ )?--project ${w.key} \\S.*)$`, 'm').exec(r.stderr)?.[1];
  assert.ok(line !== undefined, `no down line\n${show(r)}`);
  assert.equal(/ --host /.test(line), host !== undefined, `the down line names the engine exactly when the run was given --host: ${line}`);
  const words = line
    .split(' ')
    .slice(1)
    .map((a) => (a.startsWith("'") ? a.slice(1, -1) : a));
  // A run given --host names that engine; here it was a forwarder to this engine, cut by the test: down goes direct.
  const down = await runpod(host !== undefined ? words.filter((a, i) => a !== '--host' && words[i - 1] !== '--host') : words);
  assert.equal(down.code, 0, `${line}\n${show(down)}`);
  // A claim's volume outlives `down` unless --delete-claims is said (README, claims): its data is the user's.
  assert.deepEqual(
    leftUnder(w.key).filter((x) => !x.startsWith('volume pvc_')),
    [],
    `${line}\n${show(down)}`,
  );
}

/** A port nothing else listens on, held by this test until it ends. */
const heldPortFor = (t: TestContext): Promise<number> => heldPort(t, 31000, 1700);

interface RunFault {
  title: string;
  manifest: (ctx: { port: number }) => string;
  /** What is put in the way on the engine before the run (removed when the test ends). */
  before?: (t: TestContext, w: KeyedWorkspace) => void;
  args?: string[];
  message: RegExp;
}

// Each a fault of the input on this host, found once the run has begun: exit 1, what failed, and the down line.
const runFaults: RunFault[] = [
  {
    title: 'an image absent under imagePullPolicy Never',
    manifest: () => pod('img', `${sleeper}      imagePullPolicy: Never\n`).replace(busybox, 'runpod-test/absent-image:1'),
    message: /image runpod-test\/absent-image:1 is not present on the engine and imagePullPolicy is Never/,
  },
  {
    title: 'a pull the registry refuses (none is reachable)',
    manifest: () => pod('pull', sleeper).replace(busybox, 'registry.invalid/absent-image:1'),
    message: /cannot pull image registry\.invalid\/absent-image:1/,
  },
  {
    title: 'a command the image lacks',
    manifest: () => pod('cmd', '      command: [no-such-command]\n'),
    message: /"no-such-command": executable file not found in \$PATH/,
  },
  {
    title: 'a hostPort another process holds',
    manifest: ({ port }) => pod('hp', `${sleeper}      ports: [{containerPort: 80, hostPort: ${port}}]\n`),
    message: /hostPort \d+ is taken on the engine host by another container or process/,
  },
  {
    title: 'a hostPath of type Directory that is missing',
    manifest: () =>
      pod('bind', `${sleeper}      volumeMounts: [{name: h, mountPath: /h}]\n  volumes: [{name: h, hostPath: {path: /nonexistent/runpod-exit-codes, type: Directory}}]\n`),
    message: /hostPath type check failed for volume "h": \/nonexistent\/runpod-exit-codes does not exist/,
  },
  {
    title: "a file mounted over a directory of the image (the engine answers 500 at start: still the input's fault)",
    manifest: () => pod('mnt', `${sleeper}      volumeMounts: [{name: h, mountPath: /bin}]\n  volumes: [{name: h, hostPath: {path: /etc/hostname, type: File}}]\n`),
    message: /not a directory/,
  },
  {
    title: 'a sysctl the kernel does not have (refused when the pod starts)',
    manifest: () => pod('sys', sleeper, '  securityContext: {sysctls: [{name: net.ipv4.no_such_sysctl, value: "1"}]}\n'),
    message: /no_such_sysctl: no such file or directory/,
  },
  {
    title: 'an OOM kill under restartPolicy Never (--wait completed)',
    manifest: () => pod('oom', "      command: [sh, -c, 'x=a; while true; do x=$x$x; done']\n      resources: {limits: {memory: 16Mi}}\n", '  restartPolicy: Never\n'),
    args: ['--wait', 'completed'],
    message: /exited with code 137, OOM-killed/,
  },
  {
    title: "a container of the pod's name that is not runpod's",
    manifest: () => pod('squat', sleeper),
    before: (t, w) => {
      const name = dockerContainerName('POD', 'squat', 'default', podUid('default', 'squat', undefined, w.key), 0, w.key);
      docker(['create', '--name', name, busybox, 'true']);
      t.after(() => docker(['rm', '-f', name]));
    },
    message: /a container named k8s_POD_squat_\S+ already exists and was not made by runpod for this pod/,
  },
  {
    title: "a volume of the claim's name that is not runpod's",
    manifest: () =>
      `apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n---\n${pod('claim', `${sleeper}      volumeMounts: [{name: d, mountPath: /d}]\n  volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]\n`)}`,
    before: (t, w) => {
      const name = claimVolumeName('default', 'data', w.key);
      docker(['volume', 'create', name]);
      t.after(() => docker(['volume', 'rm', '-f', name]));
    },
    message: /a volume named pvc_default\.\S+_data already exists and was not made by runpod for claim data/,
  },
  {
    title: "a claim's volume the volume driver cannot mount",
    manifest: () =>
      `apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n---\n${pod('drv', `${sleeper}      volumeMounts: [{name: d, mountPath: /d}]\n  volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]\n`)}`,
    before: (_t, w) => {
      // runpod's own claim volume (its labels), made with local driver options the driver refuses at mount: the
      // keyed workspace removes it at the end.
      const labels = [
        'app.kubernetes.io/managed-by=runpod',
        'io.kubernetes.pod.namespace=default',
        `io.runpod.project=${w.key}`,
        'io.runpod.pvc.name=data',
        'io.runpod.volume.type=persistentVolumeClaim',
      ];
      docker([
        'volume',
        'create',
        '-o',
        'type=tmpfs',
        '-o',
        'device=tmpfs',
        '-o',
        'o=size=bogus,nosuchopt',
        ...labels.flatMap((l) => ['--label', l]),
        claimVolumeName('default', 'data', w.key),
      ]);
    },
    message: /failed to mount local volume/,
  },
  {
    title: "a network of the namespace's name that is not runpod's",
    manifest: () => pod('net', sleeper),
    before: (t, w) => {
      const name = namespaceNetwork('default', w.key);
      docker(['network', 'create', name]);
      t.after(() => docker(['network', 'rm', name]));
    },
    message: /a network named runpod_default\.\S+ exists on the engine and is not runpod's/,
  },
];

for (const f of runFaults) {
  test(`exit 1 with the down line: ${f.title}`, async (t) => {
    const port = await heldPortFor(t);
    const w = keyedWorkspace(t, 'exits', { 'pod.yaml': f.manifest({ port }) });
    f.before?.(t, w);
    const r = await w.run('--timeout', '2m', ...(f.args ?? []), w.file('pod.yaml'));
    assert.equal(r.code, 1, show(r));
    assert.match(r.stderr, /^runpod: /m, show(r));
    assert.match(r.stderr, f.message, show(r));
    await downLineWorks(w, r);
  });
}

test('down --all after a run stopped before its first container (a name held by something else): its volumes go too', async (t) => {
  const w = keyedWorkspace(t, 'exits', { 'pod.yaml': pod('squat', sleeper) });
  const name = dockerContainerName('POD', 'squat', 'default', podUid('default', 'squat', undefined, w.key), 0, w.key);
  docker(['create', '--name', name, busybox, 'true']);
  t.after(() => docker(['rm', '-f', name]));
  const r = await w.run('--timeout', '2m', w.file('pod.yaml'));
  assert.equal(r.code, 1, show(r));
  assert.ok(
    leftUnder(w.key).some((x) => x.startsWith('volume ')),
    `the run made the pod's volumes before its infra container\n${leftUnder(w.key).join('\n')}`,
  );
  const down = await runpod(['down', '--project', w.key, '--all']);
  assert.equal(down.code, 0, show(down));
  assert.deepEqual(leftUnder(w.key), [], show(down));
});

test('exit 2, nothing on the engine touched: --wait completed for a pod that never completes (restartPolicy Always)', async (t) => {
  const w = keyedWorkspace(t, 'exits', { 'pod.yaml': pod('always', sleeper) });
  const r = await w.run('--wait', 'completed', w.file('pod.yaml'));
  assert.equal(r.code, 2, show(r));
  assert.doesNotMatch(r.stderr, /runpod down/, show(r));
  assert.deepEqual(leftUnder(w.key), [], show(r));
});

test('exit 2, nothing on the engine touched: a manifest field of the wrong type', async (t) => {
  const w = keyedWorkspace(t, 'exits', { 'pod.yaml': pod('bad', `${sleeper}      ports: [{containerPort: eighty}]\n`) });
  const r = await w.run(w.file('pod.yaml'));
  assert.equal(r.code, 2, show(r));
  assert.match(r.stderr, /pod\.yaml:\d+ spec\.containers\[0\]\.ports\[0\]\.containerPort/, show(r));
  assert.deepEqual(leftUnder(w.key), [], show(r));
});

/** The engine's socket, reached through a forwarder this test can cut: the engine lost mid-run, dockerd untouched. */
function cuttableEngine(t: TestContext, dir: string): { host: string; cut: () => void } {
  const target = /^unix:\/\/(.+)$/.exec(process.env.DOCKER_HOST ?? '')?.[1] ?? '/var/run/docker.sock';
  const sock = path.join(dir, 'engine.sock');
  const conns = new Set<net.Socket>();
  const server = net.createServer((c) => {
    const u = net.connect(target);
    conns.add(c).add(u);
    c.pipe(u).pipe(c);
    const end = (): void => {
      c.destroy();
      u.destroy();
    };
    for (const s of [c, u]) s.on('error', end).on('close', end);
  });
  server.listen(sock);
  const cut = (): void => {
    server.close();
    for (const c of conns) c.destroy();
    fs.rmSync(sock, { force: true });
  };
  t.after(cut);
  return { host: `unix://${sock}`, cut };
}

test('exit 3 only for the engine itself: lost mid-run, it names the address and leaves the down line', async (t) => {
  const w = keyedWorkspace(t, 'exits', { 'pod.yaml': pod('lost', sleeper, '  restartPolicy: Never\n') });
  const engine = cuttableEngine(t, w.dir);
  const run = w.run('--host', engine.host, '--wait', 'completed', '--retries', '3', '--max-delay', '2s', w.file('pod.yaml'));
  await eventually(
    'the pod runs',
    () => (docker(['ps', '-q', '--filter', `label=io.runpod.project=${w.key}`, '--filter', 'label=io.kubernetes.container.name=c']) ? true : undefined),
    120_000,
  );
  engine.cut();
  const r = await run;
  assert.equal(r.code, 3, show(r));
  assert.match(r.stderr, new RegExp(`warning: default/lost: cannot reach the Docker engine at ${engine.host.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: .*then exit 3`), show(r));
  assert.match(r.stderr, /^runpod: cannot reach the Docker engine at unix:\/\//m, show(r));
  await downLineWorks(w, r, engine.host);
});
