// `runpod run` on a real engine: a working pod, its names and labels and engine settings, idempotent re-runs,
// a changed container replaced alone, and the result document. Each test uses its own pod and removes it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import yaml from 'js-yaml';
import { uniqueName } from './harness.js';
import {
  busybox,
  checkNothingLeftBehind,
  cleanupFile,
  cleanupPod,
  docker,
  dockerTry,
  eventually,
  freePort,
  httpGet,
  logsOf,
  must,
  podContainerIds,
  podContainers,
  podFile,
  podObject,
  removePod,
  runpod,
  show,
  sleeper,
  uuidShape,
  type InspectedFull,
} from './run-helpers.js';

checkNothingLeftBehind();

interface RunResultDoc {
  apiVersion: string;
  kind: string;
  exitCode: number;
  pods: {
    namespace: string;
    name: string;
    uid: string;
    status: string;
    reason: string;
    changed: boolean;
    actions: { action: string; container: string; reason: string }[];
    containers: { name: string; id?: string; state: string; ok: boolean; restartCount: number; attempt?: number; exitCode?: number }[];
  }[];
}

test('two containers share the network namespace: a client reaches the server on localhost', async (t) => {
  const name = uniqueName('run-net');
  cleanupPod(t, name);
  const marker = `content-${randomBytes(6).toString('hex')}`;
  const file = podFile({
    name,
    containers: [
      { name: 'server', image: busybox, command: ['sh', '-c', `mkdir -p /www && echo ${marker} > /www/index.html && exec httpd -f -p 8080 -h /www`] },
      // The client keeps trying until the server answers, prints what it fetched, then stays up.
      {
        name: 'client',
        image: busybox,
        command: ['sh', '-c', 'until wget -q -O - http://localhost:8080/; do sleep 1; done; echo fetched-ok; exec sleep 3600'],
      },
    ],
  });
  cleanupFile(t, file);

  const r = await runpod([file]);
  assert.equal(r.code, 0, show(r));
  const pod = podContainers(name);
  assert.deepEqual([...pod.keys()].sort(), ['POD', 'client', 'server']);
  const client = must(pod.get('client'), 'client');
  // What the client fetched from localhost is in its own log: it is the file only the server container wrote.
  const logs = await eventually('client log shows the fetched page', () => {
    const l = logsOf(client.Id);
    return l.includes('fetched-ok') ? l : undefined;
  });
  assert.match(logs, new RegExp(`${marker}\\s*\\n\\s*fetched-ok`));
  // And again on demand, from inside the client container.
  const fetched = docker(['exec', client.Id, 'wget', '-q', '-O', '-', 'http://localhost:8080/']);
  assert.equal(fetched, marker);
  // The client has no server of its own: the page is not in its filesystem.
  assert.notEqual(dockerTry(['exec', client.Id, 'cat', '/www/index.html']).status, 0);
});

describe('names, labels and engine settings of a running pod', () => {
  const name = uniqueName('run-labels');
  const onFailure = `${name}-onfail`;
  const never = `${name}-never`;
  const givenUid = '0f5c3a52-7e4b-4b8e-9d6a-1c2b3d4e5f60';
  const marker = `page-${randomBytes(6).toString('hex')}`;
  let hostPort = 0;
  let file = '';
  let pod = new Map<string, InspectedFull>();

  before(async () => {
    hostPort = await freePort();
    const main = podObject({
      name,
      grace: 1,
      labels: { app: 'web', tier: 'test' },
      annotations: { 'example.com/note': 'hello world' },
      containers: [
        {
          name: 'web',
          image: busybox,
          command: ['sh', '-c', `mkdir -p /www && echo ${marker} > /www/index.html && exec httpd -f -p 8080 -h /www`],
          ports: [{ containerPort: 8080, hostPort }],
          resources: { limits: { memory: '64Mi', cpu: '500m' }, requests: { memory: '32Mi', cpu: '250m' } },
        },
        {
          name: 'expand',
          image: busybox,
          env: [
            { name: 'GREETING', value: 'hello' },
            { name: 'COMPOSED', value: '$(GREETING)-world' },
            { name: 'ESCAPED', value: '$$(GREETING)' },
          ],
          command: ['sh', '-c'],
          args: ['exec sleep 3600 # $(GREETING) $$(GREETING) $(UNDEFINED_VAR)', '$(COMPOSED)'],
        },
        // args only: the image ENTRYPOINT (none) stays, its CMD ("sh") is replaced.
        { name: 'argsonly', image: busybox, args: ['sleep', '3600'] },
        // command only: replaces ENTRYPOINT and drops the image CMD.
        { name: 'cmdonly', image: busybox, command: ['sleep', '3600'] },
      ],
    });
    const onFailurePod = podObject({ name: onFailure, uid: givenUid, restartPolicy: 'OnFailure', containers: [sleeper('app')] });
    const neverPod = podObject({ name: never, restartPolicy: 'Never', containers: [sleeper('app')] });
    file = podFile([main, onFailurePod, neverPod]);
    const r = await runpod([file]);
    assert.equal(r.code, 0, show(r));
    pod = podContainers(name);
  });
  after(() => {
    for (const n of [name, onFailure, never]) removePod(n);
    assert.deepEqual(
      [name, onFailure, never].flatMap((n) => podContainerIds(n)),
      [],
    );
  });

  test('container names follow k8s_<container>_<pod>_<namespace>_<uid>_<attempt>', () => {
    assert.deepEqual([...pod.keys()].sort(), ['POD', 'argsonly', 'cmdonly', 'expand', 'web']);
    const uid = must(pod.get('POD'), 'infra').Config.Labels['io.kubernetes.pod.uid']!;
    assert.match(uid, uuidShape);
    for (const [c, info] of pod) assert.equal(info.Name, `/k8s_${c}_${name}_default_${uid}_0`);
    // metadata.uid, when given, is the pod's uid.
    const other = podContainers(onFailure);
    assert.equal(must(other.get('POD'), 'infra').Name, `/k8s_POD_${onFailure}_default_${givenUid}_0`);
    assert.equal(must(other.get('app'), 'app').Name, `/k8s_app_${onFailure}_default_${givenUid}_0`);
  });

  test('every container carries the design.md labels', () => {
    const uid = must(pod.get('POD'), 'infra').Config.Labels['io.kubernetes.pod.uid'];
    for (const [c, info] of pod) {
      const l = info.Config.Labels;
      assert.equal(l['app.kubernetes.io/managed-by'], 'runpod', c);
      assert.equal(l['io.kubernetes.pod.name'], name, c);
      assert.equal(l['io.kubernetes.pod.namespace'], 'default', c);
      assert.equal(l['io.kubernetes.pod.uid'], uid, c);
      assert.equal(l['io.kubernetes.container.name'], c, c);
      assert.equal(l['io.kubernetes.docker.type'], c === 'POD' ? 'podsandbox' : 'container', c);
      assert.match(l['io.kubernetes.container.hash'] ?? '', /^[0-9a-f]+$/, c);
      assert.equal(l['io.kubernetes.container.restartCount'], '0', c);
      assert.equal(l['io.kubernetes.pod.terminationGracePeriod'], '1', c);
    }
    const infra = must(pod.get('POD'), 'infra').Config.Labels;
    assert.equal(infra.app, 'web');
    assert.equal(infra.tier, 'test');
    assert.equal(infra['annotation.example.com/note'], 'hello world');
  });

  test('app containers join the infra container; its hostname is the pod name', () => {
    const infra = must(pod.get('POD'), 'infra');
    assert.equal(infra.Config.Hostname, name);
    for (const [c, info] of pod) {
      if (c === 'POD') continue;
      assert.equal(info.HostConfig.NetworkMode, `container:${infra.Id}`, c);
      assert.equal(info.HostConfig.IpcMode, `container:${infra.Id}`, c);
      assert.equal(info.State.Running, true, c);
    }
    assert.equal(docker(['exec', must(pod.get('web'), 'web').Id, 'hostname']), name);
  });

  test('engine restart policies: infra unless-stopped; Always, OnFailure, Never map to always, on-failure, no', () => {
    assert.equal(must(pod.get('POD'), 'infra').HostConfig.RestartPolicy.Name, 'unless-stopped');
    for (const c of ['web', 'expand', 'argsonly', 'cmdonly']) assert.equal(must(pod.get(c), c).HostConfig.RestartPolicy.Name, 'always', c);
    const onFail = podContainers(onFailure);
    assert.equal(must(onFail.get('POD'), 'infra').HostConfig.RestartPolicy.Name, 'unless-stopped');
    assert.equal(must(onFail.get('app'), 'app').HostConfig.RestartPolicy.Name, 'on-failure');
    const nev = podContainers(never);
    assert.equal(must(nev.get('POD'), 'infra').HostConfig.RestartPolicy.Name, 'unless-stopped');
    assert.equal(must(nev.get('app'), 'app').HostConfig.RestartPolicy.Name, 'no');
  });

  test('resources: memory limit in bytes, cpu limit as CFS quota, cpu request as shares', () => {
    const web = must(pod.get('web'), 'web').HostConfig;
    assert.equal(web.Memory, 64 * 1024 * 1024);
    assert.equal(web.MemoryReservation, 32 * 1024 * 1024);
    assert.equal(web.CpuPeriod, 100_000);
    assert.equal(web.CpuQuota, 50_000);
    assert.equal(web.CpuShares, 256);
    // No limits: no memory cap, no quota.
    const plain = must(pod.get('cmdonly'), 'cmdonly').HostConfig;
    assert.equal(plain.Memory, 0);
    assert.equal(plain.CpuQuota, 0);
  });

  test('hostPort is published on the infra container and reachable from the host', async () => {
    const infra = must(pod.get('POD'), 'infra');
    assert.deepEqual(infra.HostConfig.PortBindings, { '8080/tcp': [{ HostIp: '', HostPort: String(hostPort) }] });
    const web = must(pod.get('web'), 'web');
    assert.deepEqual(web.HostConfig.PortBindings ?? {}, {});
    const res = await eventually('page served on the host port', async () => {
      const r = await httpGet('127.0.0.1', hostPort);
      return r.status === 200 ? r : undefined;
    });
    assert.equal(res.body.trim(), marker);
  });

  test('command replaces ENTRYPOINT, args replace CMD; $(VAR) expands, $$(VAR) stays literal', () => {
    const expand = must(pod.get('expand'), 'expand').Config;
    assert.deepEqual(expand.Entrypoint, ['sh', '-c']);
    // Kubernetes: an undefined $(VAR) is left as written; $$ escapes a reference.
    assert.deepEqual(expand.Cmd, ['exec sleep 3600 # hello $(GREETING) $(UNDEFINED_VAR)', 'hello-world']);
    const env = expand.Env ?? [];
    assert.ok(env.includes('GREETING=hello'), env.join(' '));
    assert.ok(env.includes('COMPOSED=hello-world'), env.join(' '));
    assert.ok(env.includes('ESCAPED=$(GREETING)'), env.join(' '));
    // And the running process sees the same.
    const seen = docker(['exec', must(pod.get('expand'), 'expand').Id, 'sh', '-c', 'echo "$COMPOSED|$ESCAPED"']);
    assert.equal(seen, 'hello-world|$(GREETING)');

    const argsOnly = must(pod.get('argsonly'), 'argsonly').Config;
    assert.equal(argsOnly.Entrypoint ?? null, null);
    assert.deepEqual(argsOnly.Cmd, ['sleep', '3600']);
    const cmdOnly = must(pod.get('cmdonly'), 'cmdonly').Config;
    assert.deepEqual(cmdOnly.Entrypoint, ['sleep', '3600']);
    // The image's CMD ["sh"] must not be appended.
    assert.equal(cmdOnly.Cmd ?? null, null);
  });
});

test('re-running an unchanged manifest changes nothing and says so', async (t) => {
  const name = uniqueName('run-again');
  cleanupPod(t, name);
  const file = podFile({ name, containers: [sleeper('a'), sleeper('b')] });
  cleanupFile(t, file);
  const first = await runpod([file]);
  assert.equal(first.code, 0, show(first));
  const ids = podContainerIds(name);
  assert.equal(ids.length, 3);

  const again = await runpod([file, '-o', 'json']);
  assert.equal(again.code, 0, show(again));
  const doc = JSON.parse(again.stdout) as RunResultDoc;
  assert.equal(doc.pods.length, 1);
  for (const p of doc.pods) {
    assert.equal(p.changed, false, show(again));
    assert.deepEqual(p.actions, []);
  }
  assert.deepEqual(podContainerIds(name), ids);

  const text = await runpod([file]);
  assert.equal(text.code, 0, show(text));
  assert.match(text.stdout, new RegExp(`default/${name}: .*unchanged`));
  assert.deepEqual(podContainerIds(name), ids);
});

test('an edited env value replaces that container alone', async (t) => {
  const name = uniqueName('run-edit');
  cleanupPod(t, name);
  const spec = (value: string) => ({ name, containers: [sleeper('keep'), sleeper('edit', { env: [{ name: 'FLAVOUR', value }] })] });
  const file = podFile(spec('vanilla'));
  cleanupFile(t, file);
  const first = await runpod([file]);
  assert.equal(first.code, 0, show(first));
  const before = podContainers(name);
  const uid = must(before.get('POD'), 'infra').Config.Labels['io.kubernetes.pod.uid']!;

  const edited = podFile(spec('chocolate'));
  cleanupFile(t, edited);
  const second = await runpod([edited, '-o', 'json']);
  assert.equal(second.code, 0, show(second));
  const after = podContainers(name);
  assert.deepEqual([...after.keys()].sort(), ['POD', 'edit', 'keep'], 'the old instance of edit was not removed');
  assert.equal(must(after.get('POD'), 'infra').Id, must(before.get('POD'), 'infra').Id);
  assert.equal(must(after.get('keep'), 'keep').Id, must(before.get('keep'), 'keep').Id);
  const edit = must(after.get('edit'), 'edit');
  assert.notEqual(edit.Id, must(before.get('edit'), 'edit').Id);
  assert.equal(edit.Name, `/k8s_edit_${name}_default_${uid}_1`);
  assert.equal(edit.Config.Labels['io.kubernetes.container.restartCount'], '1');
  assert.ok((edit.Config.Env ?? []).includes('FLAVOUR=chocolate'));
  assert.equal(edit.State.Running, true);
  assert.equal(edit.HostConfig.NetworkMode, `container:${must(after.get('POD'), 'infra').Id}`);
  // The result names only the edited container.
  const doc = JSON.parse(second.stdout) as RunResultDoc;
  const touched = new Set(must(doc.pods[0], 'pod result').actions.map((a) => a.container));
  assert.deepEqual([...touched], ['edit']);
});

test('-o json and -o yaml print one RunResult document', async (t) => {
  const name = uniqueName('run-json');
  cleanupPod(t, name);
  const file = podFile({ name, containers: [sleeper('one'), sleeper('two')] });
  cleanupFile(t, file);
  const r = await runpod([file, '-o', 'json']);
  assert.equal(r.code, 0, show(r));
  const doc = JSON.parse(r.stdout) as RunResultDoc;
  assert.equal(doc.apiVersion, 'runpod/v1');
  assert.equal(doc.kind, 'RunResult');
  assert.equal(doc.exitCode, 0);
  assert.equal(doc.pods.length, 1);
  const p = must(doc.pods[0], 'pod result');
  const pod = podContainers(name);
  assert.equal(p.namespace, 'default');
  assert.equal(p.name, name);
  assert.equal(p.uid, must(pod.get('POD'), 'infra').Config.Labels['io.kubernetes.pod.uid']);
  assert.equal(p.status, 'succeeded');
  assert.equal(p.changed, true);
  assert.deepEqual(
    p.containers.map((c) => c.name),
    ['one', 'two'],
  );
  for (const c of p.containers) {
    assert.equal(c.id, must(pod.get(c.name), c.name).Id);
    assert.equal(c.state, 'running');
    assert.equal(c.ok, true);
    assert.equal(c.restartCount, 0);
  }
  // Progress stays on stderr: stdout is the document alone (JSON.parse above would have thrown otherwise).

  const y = await runpod([file, '-o', 'yaml']);
  assert.equal(y.code, 0, show(y));
  const ydoc = yaml.load(y.stdout) as RunResultDoc;
  assert.equal(ydoc.apiVersion, 'runpod/v1');
  assert.equal(ydoc.kind, 'RunResult');
  assert.equal(ydoc.exitCode, 0);
  const yp = must(ydoc.pods[0], 'pod result');
  assert.equal(yp.name, name);
  assert.equal(yp.status, 'succeeded');
  assert.equal(yp.changed, false);
  assert.deepEqual(
    yp.containers.map((c) => [c.name, c.id, c.state]),
    p.containers.map((c) => [c.name, c.id, 'running']),
  );
});
