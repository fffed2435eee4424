// Services and cluster DNS through the CLI (issue 13): pods find each other by Service name on their namespace's
// network, from another namespace by <svc>.<ns> and the full name; port ≠ targetPort for TCP and UDP; a headless
// Service with StatefulSet pods; two pods behind one Service; a NodePort from the host; the Service variables; a
// pod that is not ready is no endpoint while runpod watches it; the network goes with the last pod and a network
// runpod did not make is never used. Every test runs under an isolation key of its own.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { busybox, docker, keyedWorkspace, runpod, show, uniqueName, type CliResult, type KeyedWorkspace } from './harness.js';

const perl = 'runpod-test/perl-net:1';

interface Workspace extends KeyedWorkspace {
  /** Run a command in a pod's container (runpod exec under the key); its output and exit code. */
  exec: (pod: string, container: string, script: string, namespace?: string) => Promise<CliResult>;
}

function workspace(t: TestContext, files: Record<string, string>): Workspace {
  const w = keyedWorkspace(t, 'svc', files);
  return { ...w, exec: (pod, container, script, namespace = 'default') => w.run('exec', '-n', namespace, pod, '-c', container, '--', 'sh', '-c', script) };
}

/**
 * A shell command (YAML flow form) that answers each TCP connection on port with a line naming the pod, after a
 * start. busybox's `nc -ll -e` keeps its listening socket and runs the answer per connection: a loop of one-shot
 * `nc -l` has no listener between two connections, so a second connection right after a first is refused (73 of
 * 200 back-to-back connections on a quiet machine; the CI run lost one that way).
 */
const serveHostname = (port: number | string, before = ''): string => `[sh, -c, 'trap "exit 0" TERM; ${before}nc -ll -p ${port} -e sh -c "echo hello from $(hostname)" & wait']`;

/**
 * A pod serving a line that names it on a TCP port as long as it runs; ready once it listens (a tcpSocket probe),
 * so a run with --wait ready returns when a connection is answered, not merely when the container has started.
 */
const tcpServer = (name: string, labels: string, port: number, namespace = 'default', extra = '') => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ${namespace}, labels: {${labels}}}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: server
    image: ${busybox}
    command: ${serveHostname(port)}
    ports: [{name: serve, containerPort: ${port}}]
    readinessProbe: {tcpSocket: {port: serve}, periodSeconds: 1}
${extra}`;

/**
 * A Deployment of pods labelled app: <name>, each answering on port with its hostname (serveHostname, after
 * `before`); `container` lines go under the container (indented eight spaces).
 */
const serverDeployment = (name: string, replicas: number, port: number, o: { server?: string; before?: string; container?: string } = {}) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: ${o.server ?? 'server'}
        image: ${busybox}
        command: ${serveHostname(port, o.before)}
${o.container ?? ''}`;

const client = (name: string, namespace = 'default') => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ${namespace}}
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - name: client
    image: ${busybox}
    command: [sleep, '3600']
`;

test('an app pod reaches the database by Service name, by <svc>.<ns> from another namespace and by the full name; port ≠ targetPort; the Service variables', async (t) => {
  const w = workspace(t, {
    'db.yaml': `apiVersion: v1
kind: Service
metadata: {name: db, namespace: data}
spec:
  selector: {app: db}
  ports:
  - {name: pg, port: 5432, targetPort: serve}
---
${tcpServer('db-0', 'app: db', 6543, 'data')}`,
    'apps.yaml': `${client('app', 'data')}---\n${client('web', 'front')}`,
  });
  const r = await w.run('--wait', 'ready', w.dir);
  assert.equal(r.code, 0, show(r));
  assert.match(r.stderr, /service data\/db: ClusterIP \d+\.\d+\.\d+\.\d+, 5432\/TCP → serve/);

  // From the same namespace: the bare name, through the Service's port to the pod's named targetPort.
  const same = await w.exec('app', 'client', 'echo | nc -w 3 db 5432', 'data');
  assert.equal(same.code, 0, show(same));
  assert.match(same.stdout, /hello from db-0/);
  // From another namespace: <svc>.<ns> and the full name; the bare name is not theirs.
  const across = await w.exec('web', 'client', 'echo | nc -w 3 db.data 5432 && echo | nc -w 3 db.data.svc.cluster.local 5432', 'front');
  assert.equal(across.code, 0, show(across));
  assert.equal(across.stdout.match(/hello from db-0/g)?.length, 2, show(across));
  // busybox's nslookup exits 1 when any search-list or AAAA query misses, so the answers are read instead.
  const bare = await w.exec('web', 'client', 'nslookup db 2>&1', 'front');
  assert.doesNotMatch(bare.stdout, /^Name:/m, `the bare name must not resolve across namespaces\n${show(bare)}`);

  // The kubelet's resolv.conf shape, and the Service variables of the pod's own namespace (none across).
  const resolv = await w.exec('app', 'client', 'cat /etc/resolv.conf', 'data');
  assert.match(resolv.stdout, /search data\.svc\.cluster\.local svc\.cluster\.local cluster\.local/);
  assert.match(resolv.stdout, /options ndots:5/);
  const env = await w.exec('app', 'client', 'env', 'data');
  const ip = /service data\/db: ClusterIP (\S+),/.exec(r.stderr)![1]!;
  for (const line of [
    `DB_SERVICE_HOST=${ip}`,
    'DB_SERVICE_PORT=5432',
    'DB_SERVICE_PORT_PG=5432',
    `DB_PORT=tcp://${ip}:5432`,
    `DB_PORT_5432_TCP=tcp://${ip}:5432`,
    'DB_PORT_5432_TCP_PROTO=tcp',
    'DB_PORT_5432_TCP_PORT=5432',
    `DB_PORT_5432_TCP_ADDR=${ip}`,
  ]) {
    assert.ok(env.stdout.split('\n').includes(line), `${line} missing:\n${env.stdout}`);
  }
  const otherEnv = await w.exec('web', 'client', 'env', 'front');
  assert.doesNotMatch(otherEnv.stdout, /DB_SERVICE_HOST/);

  // A re-run changes nothing: the pods are up to date, the Service container and its rules stay.
  const svcId = docker(['ps', '-q', '--filter', `label=io.runpod.project=${w.key}`, '--filter', 'label=io.runpod.role=service']);
  const again = await w.run(w.dir);
  assert.equal(again.code, 0, show(again));
  assert.match(again.stderr, /unchanged/);
  assert.equal(docker(['ps', '-q', '--filter', `label=io.runpod.project=${w.key}`, '--filter', 'label=io.runpod.role=service']), svcId);

  // down takes the Service and both networks with the last pods.
  const down = await w.run('down', w.dir);
  assert.equal(down.code, 0, show(down));
  assert.match(down.stdout, /service data\/db: removed/);
  assert.match(down.stdout, new RegExp(`network runpod_data\\.${w.key}: removed`));
  assert.match(down.stdout, new RegExp(`network runpod_front\\.${w.key}: removed`));
  assert.equal(docker(['network', 'ls', '-q', '--filter', `label=io.runpod.project=${w.key}`]), '');
  assert.equal(docker(['ps', '-aq', '--filter', `label=io.runpod.project=${w.key}`]), '');
});

test("UDP: a Service port 53 reaches the pod's UDP port 5353", async (t) => {
  const w = workspace(t, {
    'dns.yaml': `apiVersion: v1
kind: Service
metadata: {name: echo}
spec:
  selector: {app: echo}
  ports:
  - {name: dns, protocol: UDP, port: 53, targetPort: 5353}
  - {name: tcp, protocol: TCP, port: 80, targetPort: 8080}
---
apiVersion: v1
kind: Pod
metadata: {name: echo, labels: {app: echo}}
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - name: udp
    image: ${perl}
    command: [perl, -MIO::Socket::INET, -e, '$s = IO::Socket::INET->new(LocalPort => 5353, Proto => "udp") or die "bind: $!"; while (defined $s->recv($m, 512)) { $s->send("echo: $m") }']
    ports: [{containerPort: 5353, protocol: UDP}]
---
${client('asker')}`,
  });
  const r = await w.run(w.dir);
  assert.equal(r.code, 0, show(r));
  const ask = await w.run('exec', 'asker', '--', 'sh', '-c', 'nslookup echo 2>&1');
  assert.match(ask.stdout, /^Name:\s+echo\.default\.svc\.cluster\.local$/m, show(ask));
  // The client is perl too: busybox's nc here has no UDP mode.
  const pod = `apiVersion: v1
kind: Pod
metadata: {name: udp-client}
spec:
  restartPolicy: Never
  containers:
  - name: ask
    image: ${perl}
    command: [perl, -MIO::Socket::INET, -e, 'alarm 5; $s = IO::Socket::INET->new(PeerAddr => "echo:53", Proto => "udp") or die "socket: $!"; $s->send("ping"); $s->recv($m, 512); print "$m\\n"; exit($m eq "echo: ping" ? 0 : 1)']
`;
  fs.writeFileSync(path.join(w.dir, 'ask.yaml'), pod);
  const asked = await w.run(path.join(w.dir, 'ask.yaml'), '--wait', 'completed');
  assert.equal(asked.code, 0, show(asked));
  const logs = await w.run('logs', 'udp-client');
  assert.match(logs.stdout, /echo: ping/);
  // The TCP port of the same Service has no listener behind it: refused, never sent to another port.
  const tcp = await w.run('exec', 'asker', '--', 'sh', '-c', 'echo | nc -w 2 echo 80');
  assert.notEqual(tcp.code, 0, show(tcp));
});

test('a headless Service and StatefulSet pods: web-0.nginx and every endpoint by the Service name', async (t) => {
  const w = workspace(t, {
    'web.yaml': `apiVersion: v1
kind: Service
metadata:
  name: nginx
  labels: {app: nginx}
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
  replicas: 2
  template:
    metadata:
      labels:
        app: nginx
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: nginx
        image: ${busybox}
        command: ${serveHostname(80)}
        ports:
        - containerPort: 80
          name: web
---
${client('asker')}`,
  });
  const r = await w.run(w.dir);
  assert.equal(r.code, 0, show(r));
  const each = await w.exec('asker', 'client', 'echo | nc -w 3 web-0.nginx 80; echo | nc -w 3 web-1.nginx.default.svc.cluster.local 80');
  assert.equal(each.code, 0, show(each));
  assert.match(each.stdout, /hello from web-0/);
  assert.match(each.stdout, /hello from web-1/);
  const all = await w.exec('asker', 'client', 'nslookup nginx.default.svc.cluster.local 2>&1');
  const ips = all.stdout.split('\n').filter((l) => /^Address: \d+\.\d+\.\d+\.\d+$/.test(l.trim()));
  assert.equal(ips.length, 2, `a headless name gives every endpoint:\n${all.stdout}`);
  const fqdn = await w.exec('web-0', 'nginx', 'hostname -f');
  assert.equal(fqdn.stdout.trim(), 'web-0.nginx.default.svc.cluster.local');
});

test('two pods behind one Service both receive connections', async (t) => {
  const w = workspace(t, {
    'app.yaml': `apiVersion: v1
kind: Service
metadata: {name: hello}
spec:
  selector: {app: hello}
  ports: [{port: 80, targetPort: 8080}]
---
${serverDeployment('hello', 2, 8080, { container: '        ports: [{containerPort: 8080}]\n' })}---
${client('asker')}`,
  });
  const r = await w.run(w.dir);
  assert.equal(r.code, 0, show(r));
  const many = await w.exec('asker', 'client', 'for i in $(seq 1 40); do echo | nc -w 2 hello 80; done');
  const who = new Set(many.stdout.split('\n').filter((l) => l.startsWith('hello from')));
  // Each connection picks at random: 40 all to one of two pods has a chance of 2^-39.
  assert.equal(who.size, 2, show(many));
});

test('sessionAffinity ClientIP keeps a client on one endpoint', async (t) => {
  const w = workspace(t, {
    'app.yaml': `apiVersion: v1
kind: Service
metadata: {name: sticky}
spec:
  selector: {app: sticky}
  sessionAffinity: ClientIP
  sessionAffinityConfig: {clientIP: {timeoutSeconds: 600}}
  ports: [{port: 80, targetPort: 8080}]
---
${serverDeployment('sticky', 2, 8080)}---
${client('asker')}`,
  });
  const r = await w.run(w.dir);
  assert.equal(r.code, 0, show(r));
  const many = await w.exec('asker', 'client', 'for i in $(seq 1 16); do echo | nc -w 2 sticky 80; sleep 0.1; done');
  const who = many.stdout.split('\n').filter((l) => l.startsWith('hello from'));
  assert.ok(who.length >= 12, show(many));
  // Without affinity 16 connections would all meet one pod with a chance of 2^-15.
  assert.equal(new Set(who).size, 1, show(many));
});

/** A port in the API server's NodePort range that nothing on this host listens on now. */
async function freeNodePort(): Promise<number> {
  for (;;) {
    const port = 30000 + Math.floor(Math.random() * 2768);
    const free = await new Promise<boolean>((resolve) => {
      const s = net.createServer();
      s.once('error', () => resolve(false));
      s.listen(port, () => s.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/** The line the server writes. */
async function readLine(port: number): Promise<string> {
  // The run waited for running, not ready, so its nc may not listen yet: an empty answer (the engine's proxy
  // closes when the pod refuses) is tried again too.
  for (let attempt = 0; ; attempt++) {
    try {
      const line = await readOnce(port);
      if (line !== '' || attempt >= 10) return line;
    } catch (err) {
      if (attempt >= 10) throw err;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

function readOnce(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.on('data', (d) => (data += d.toString()));
    socket.on('end', () => resolve(data));
    // The server writes its line and closes; a reset after the line (it had unread input) still answered.
    socket.on('error', (err) => (data !== '' ? resolve(data) : reject(err)));
    socket.write('\n');
  });
}

test('the host reaches a NodePort Service at its nodePort, and a LoadBalancer at the port the engine chose (status, -o json, -o env)', async (t) => {
  const nodePort = await freeNodePort();
  const w = workspace(t, {
    'svc.yaml': `apiVersion: v1
kind: Service
metadata: {name: front}
spec:
  type: NodePort
  selector: {app: front}
  ports: [{port: 80, targetPort: 8080, nodePort: ${nodePort}}]
---
apiVersion: v1
kind: Service
metadata: {name: lb}
spec:
  type: LoadBalancer
  selector: {app: front}
  ports: [{name: http, port: 8000, targetPort: serve}]
---
${tcpServer('front', 'app: front', 8080)}`,
  });
  const r = await w.run(w.dir, '-o', 'json');
  assert.equal(r.code, 0, show(r));
  const doc = JSON.parse(r.stdout) as { services: Array<{ name: string; ports: Array<{ hostPort?: number }> }> };
  assert.equal(doc.services.find((s) => s.name === 'front')?.ports[0]?.hostPort, nodePort);
  const lbPort = doc.services.find((s) => s.name === 'lb')?.ports[0]?.hostPort;
  assert.ok(lbPort !== undefined && lbPort > 0, r.stdout);
  assert.match(await readLine(nodePort), /hello from front/);
  assert.match(await readLine(lbPort), /hello from front/);
  const status = await w.run('status');
  assert.match(status.stdout, new RegExp(`front\\s+NodePort\\s+\\S+\\s+80:${nodePort}/TCP`));
  const env = await w.run(w.dir, '-o', 'env');
  assert.match(env.stdout, new RegExp(`export RUNPOD_SVC_LB_HOST_PORT_8000='${lbPort}'`));
  assert.match(env.stdout, /export RUNPOD_SVC_FRONT_PORT_80='80'/);
});

test('a pod that is not ready is no endpoint while runpod watches it; publishNotReadyAddresses makes it one', async (t) => {
  const slow = (name: string, app: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, labels: {app: ${app}}}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: server
    image: ${busybox}
    command: ${serveHostname(8080, '(sleep 15; touch /tmp/ready) & ')}
    readinessProbe:
      exec: {command: [test, -f, /tmp/ready]}
      periodSeconds: 1
`;
  const w = workspace(t, {
    'svc.yaml': `apiVersion: v1
kind: Service
metadata: {name: slow}
spec:
  selector: {app: slow}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: eager}
spec:
  selector: {app: eager}
  publishNotReadyAddresses: true
  ports: [{port: 80, targetPort: 8080}]
---
${client('asker')}`,
  });
  const first = await w.run(path.join(w.dir, 'svc.yaml'));
  assert.equal(first.code, 0, show(first));
  fs.writeFileSync(path.join(w.dir, 'pods.yaml'), `${slow('slow', 'slow')}---\n${slow('eager', 'eager')}`);
  const running = w.run(path.join(w.dir, 'pods.yaml'), '--wait', 'ready');
  // Both pods run (and the readiness probe fails) for about 15 s: poll until the eager one answers.
  let sawEager = false;
  let sawSlowEarly = false;
  for (let i = 0; i < 20 && !sawEager; i++) {
    await new Promise((r) => setTimeout(r, 250));
    const e = await w.exec('asker', 'client', 'echo | nc -w 1 eager 80');
    sawEager = /hello from eager/.test(e.stdout);
    if (sawEager) {
      const s = await w.exec('asker', 'client', 'echo | nc -w 1 slow 80');
      sawSlowEarly = /hello from slow/.test(s.stdout);
    }
  }
  const done = await running;
  assert.equal(done.code, 0, show(done));
  assert.ok(sawEager, 'the publishNotReadyAddresses Service forwards to its pod before it is ready');
  assert.equal(sawSlowEarly, false, 'the other Service must not forward to a pod that is not ready');
  const after = await w.exec('asker', 'client', 'echo | nc -w 2 slow 80');
  assert.match(after.stdout, /hello from slow/, show(after));
});

test('a network runpod did not make is never used; a re-run that adds a pod makes it an endpoint; down of one pod removes it', async (t) => {
  const w = workspace(t, {
    'svc.yaml': `apiVersion: v1
kind: Service
metadata: {name: one, namespace: mine}
spec:
  selector: {app: one}
  ports: [{port: 80, targetPort: 8080}]
---
${client('asker', 'mine')}`,
    'pod.yaml': tcpServer('one-a', 'app: one', 8080, 'mine'),
  });
  const foreign = `runpod_other.${w.key}`;
  docker(['network', 'create', foreign]);
  t.after(() => docker(['network', 'rm', foreign]));
  fs.writeFileSync(path.join(w.dir, 'other.yaml'), client('x', 'other'));
  const refused = await w.run(path.join(w.dir, 'other.yaml'));
  // A fault of what the input asks of this host, not of the engine: exit 1 (README, exit codes).
  assert.equal(refused.code, 1, show(refused));
  assert.match(refused.stderr, new RegExp(`a network named runpod_other\\.${w.key} exists on the engine and is not runpod's`));
  assert.equal(docker(['network', 'inspect', '-f', '{{len .Containers}}', foreign]), '0');

  const r = await w.run(path.join(w.dir, 'svc.yaml'));
  assert.equal(r.code, 0, show(r));
  const none = await w.exec('asker', 'client', 'echo | nc -w 2 one 80', 'mine');
  assert.notEqual(none.code, 0, `no endpoint yet: refused\n${show(none)}`);
  const added = await w.run('--wait', 'ready', path.join(w.dir, 'pod.yaml'));
  assert.equal(added.code, 0, show(added));
  const some = await w.exec('asker', 'client', 'echo | nc -w 2 one 80', 'mine');
  assert.match(some.stdout, /hello from one-a/, show(some));
  const down = await w.run('down', '-n', 'mine', 'one-a');
  assert.equal(down.code, 0, show(down));
  const gone = await w.exec('asker', 'client', 'echo | nc -w 2 one 80', 'mine');
  assert.notEqual(gone.code, 0, `the pod taken down is no endpoint\n${show(gone)}`);
  // The network stays while the Service and the asker are on it.
  assert.notEqual(docker(['network', 'ls', '-q', '--filter', `name=runpod_mine.${w.key}`]), '');
});

test("README's CI one-liner with a Service and Deployments folder unchanged from a cluster: the command reaches the Service from the host", async (t) => {
  const w = workspace(t, {
    'db.yaml': `apiVersion: v1
kind: Service
metadata: {name: db}
spec:
  selector: {app: db}
  ports: [{name: pg, port: 5432, targetPort: pg}]
---
${serverDeployment('db', 1, 5433, {
  server: 'db',
  before: 'sleep 2; touch /tmp/up; ',
  container: `        ports: [{name: pg, containerPort: 5433}]
        readinessProbe:
          exec: {command: [test, -f, /tmp/up]}
          periodSeconds: 1
`,
})}`,
  });
  // The command checks, from the host, the Service's published port and its address.
  const script = `node -e 'const s=require("net").connect(+process.env.RUNPOD_SVC_DB_HOST_PORT_5432,"127.0.0.1");let d="";s.on("data",x=>d+=x);s.on("end",()=>{console.log(d.trim());process.exit(/hello from db-/.test(d)?0:1)});s.end()'`;
  const r = await runpod(['--publish-all', '--timeout', '2m', w.dir, '--', 'sh', '-c', `echo "key=$RUNPOD_PROJECT"; ${script}`], { timeoutMs: 240_000 });
  assert.equal(r.code, 0, show(r));
  assert.match(r.stdout, /hello from db-/);
  // The scoped run left nothing: its own key's containers and networks are gone.
  const key = /key=(\S+)/.exec(r.stdout)?.[1];
  assert.ok(key?.startsWith('run-'), r.stdout);
  assert.equal(docker(['network', 'ls', '-q', '--filter', `label=io.runpod.project=${key}`]), '');
  assert.equal(docker(['ps', '-aq', '--filter', `label=io.runpod.project=${key}`]), '');
});

test("a Service's nodePort that another process holds: exit 1 naming the Service and the port, and a scoped run leaves nothing under its own key", async (t) => {
  // A port in the nodePort range that this test holds.
  const port = await freeNodePort();
  const holder = net.createServer();
  await new Promise<void>((resolve, reject) => {
    holder.once('error', reject);
    holder.listen(port, '0.0.0.0', resolve);
  });
  t.after(() => holder.close());
  const namespace = uniqueName('svc-held');
  const w = keyedWorkspace(t, 'svc', {
    'all.yaml': `apiVersion: v1
kind: Service
metadata: {name: web, namespace: ${namespace}}
spec:
  type: NodePort
  selector: {app: web}
  ports: [{port: 80, nodePort: ${port}}]
---
${tcpServer('web', 'app: web', 80, namespace)}`,
  });
  // A scoped run without --project: its key is its own, so nobody could take down what it left.
  const r = await runpod(['run', w.file('all.yaml'), '--', 'true'], { timeoutMs: 120_000 });
  assert.equal(r.code, 1, show(r));
  assert.match(r.stderr, new RegExp(`service ${namespace}/web: its nodePort ${port} is taken on the engine host`), show(r));
  assert.doesNotMatch(r.stderr, /internal error/, show(r));
  const left = docker(['ps', '-aq', '--filter', `label=io.runpod.service.namespace=${namespace}`]);
  assert.equal(left, '', `Service containers left: ${left}`);
  const nets = docker(['network', 'ls', '-q', '--filter', `label=io.runpod.network.namespace=${namespace}`]);
  assert.equal(nets, '', `networks left: ${nets}`);
});
