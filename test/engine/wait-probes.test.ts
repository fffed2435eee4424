// Probes on a real engine, through the built CLI: httpGet, tcpSocket and exec probes, a startupProbe gating the
// others, a liveness failure restarting the container, --wait ready failing on a readiness probe. The image
// (runpod-test/busybox:1) serves with busybox httpd and nc; the HTTP and TCP probes are shown to come from the
// host (the request's source address is the bridge gateway), so no curl or nc is needed in the image.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { uniqueName, type CliResult } from './harness.js';
import { busybox, checkNothingLeftBehind, cleanupFile, cleanupPod, docker, dockerTry, logsOf, must, podContainers, podFile, runpod, show, type Obj } from './run-helpers.js';

checkNothingLeftBehind();

interface ResultDoc {
  exitCode: number;
  pods: { status: string; reason: string; containers: { name: string; ok: boolean; reason: string; restartCount: number }[] }[];
}

function parse(stdout: string): ResultDoc {
  return JSON.parse(stdout) as ResultDoc;
}

/** A pod of one container, probes given, restartPolicy Always, grace 0. */
function probePod(name: string, container: Obj, restartPolicy?: 'Always' | 'OnFailure' | 'Never'): string {
  return podFile({ name, ...(restartPolicy ? { restartPolicy } : {}), containers: [{ name: 'app', image: busybox, ...container }] });
}

/**
 * A timestamp both sides can read: the kernel's uptime in centiseconds (busybox date has no sub-second format;
 * /proc/uptime is not namespaced, so a container and the host read the same clock).
 */
const stamp = "tr -d . < /proc/uptime | cut -d' ' -f1";

function hostStamp(): bigint {
  return BigInt(fs.readFileSync('/proc/uptime', 'utf8').split(' ')[0]!.replace('.', ''));
}

/** A container command that waits for /tmp/go (which the test makes), records when, then runs `then`. */
const afterGo = (file: string, then: string): string[] => ['sh', '-c', `until [ -e /tmp/go ]; do sleep 0.2; done; ${stamp} > ${file}; ${then}`];

/**
 * Run runpod; once its stderr (-v) says what `seen` matches, make /tmp/go in the pod's app container: the
 * container's next step then comes after runpod has seen the state before it, however slow the machine is (a fixed
 * sleep in the container raced the first probe, which a loaded engine delays by seconds).
 */
async function runThenGo(name: string, args: string[], seen: RegExp): Promise<{ r: CliResult; went: boolean }> {
  let went = false;
  const r = await runpod(args, {
    timeoutMs: 240_000,
    onStderr: (stderr) => {
      if (went || !seen.test(stderr)) return;
      went = true;
      setImmediate(() => docker(['exec', must(podContainers(name).get('app'), 'app').Id, 'touch', '/tmp/go']));
    },
  });
  return { r, went };
}

test('--wait ready returns only after an httpGet readinessProbe passes, probed from the host', async (t) => {
  const name = uniqueName('wait-http');
  cleanupPod(t, name);
  // The server starts two seconds late and records when; -vv logs each request's source address.
  const file = probePod(name, {
    command: ['sh', '-c', `mkdir -p /www && echo up > /www/health && sleep 2 && ${stamp} > /www/started && exec httpd -f -vv -p 8080 -h /www`],
    ports: [{ name: 'web', containerPort: 8080 }],
    readinessProbe: { httpGet: { path: '/health', port: 'web', httpHeaders: [{ name: 'X-Probe', value: 'runpod' }] }, periodSeconds: 1 },
  });
  cleanupFile(t, file);

  const r = await runpod(['--wait', 'ready', '-o', 'json', file]);
  const returnedAt = hostStamp();
  assert.equal(r.code, 0, show(r));
  assert.equal(parse(r.stdout).pods[0]!.containers[0]!.reason, 'ready');
  const pod = podContainers(name);
  const app = must(pod.get('app'), 'app');
  // The server had started when runpod returned (the clocks are the same host's).
  const started = BigInt(docker(['exec', app.Id, 'cat', '/www/started']));
  assert.ok(started <= returnedAt, 'runpod returned before the server started');
  // Its log shows the probe's request for /health, from the bridge gateway: the host, not the container.
  const gateway = docker(['inspect', '-f', '{{range .NetworkSettings.Networks}}{{.Gateway}}{{end}}', must(pod.get('POD'), 'POD').Id]);
  assert.ok(gateway.length > 0, 'the infra container has a gateway');
  const log = logsOf(app.Id);
  assert.match(log, new RegExp(`${gateway.replace(/\./g, '\\.')}\\]?:\\d+: url:/health`), log);
  assert.match(log, /response:200/);
});

test("--wait ready fails with exit 1 and the probe's last output when readiness never passes", async (t) => {
  const name = uniqueName('wait-notready');
  cleanupPod(t, name);
  const file = probePod(name, {
    command: ['sh', '-c', 'mkdir -p /www && exec httpd -f -p 8080 -h /www'],
    readinessProbe: { httpGet: { path: '/missing', port: 8080 }, periodSeconds: 1 },
  });
  cleanupFile(t, file);
  const r = await runpod(['--wait', 'ready', '--retries', '2', '--retry-delay', '500ms', file]);
  assert.equal(r.code, 1, show(r));
  assert.match(r.stderr, /not ready after 2 retries/);
  assert.match(r.stderr, /readiness probe \(httpGet http:\/\/<pod>:8080\/missing\) failed: HTTP probe failed with statuscode: 404/);
});

test('a tcpSocket readinessProbe on a port opened late', async (t) => {
  const name = uniqueName('wait-tcp');
  cleanupPod(t, name);
  const file = probePod(name, {
    command: afterGo('/tmp/listening', 'exec nc -ll -p 9000 -e true'),
    readinessProbe: { tcpSocket: { port: 9000 }, periodSeconds: 1 },
  });
  cleanupFile(t, file);
  // While the port is closed, the account says so (connection refused from the host); then it opens.
  const refused = /readiness probe \(tcpSocket <pod>:9000\) failed: dial tcp [0-9.]+:9000 \(pod IP [0-9.]+\): ECONNREFUSED/;
  const { r, went } = await runThenGo(name, ['--wait', 'ready', '--timeout', '3m', '-v', file], refused);
  const returnedAt = hostStamp();
  assert.equal(r.code, 0, show(r));
  assert.ok(went, show(r));
  const app = must(podContainers(name).get('app'), 'app');
  assert.ok(BigInt(docker(['exec', app.Id, 'cat', '/tmp/listening'])) <= returnedAt, 'runpod returned before the port opened');
});

test('an exec readinessProbe runs through the engine; a timed-out one fails', async (t) => {
  const name = uniqueName('wait-exec');
  cleanupPod(t, name);
  const file = probePod(name, {
    command: afterGo('/tmp/ready', 'exec sleep 3600'),
    // A timeout a loaded machine does not reach: the failure to see is cat's, not the clock's.
    readinessProbe: { exec: { command: ['cat', '/tmp/ready'] }, periodSeconds: 1, timeoutSeconds: 30 },
  });
  cleanupFile(t, file);
  const missing = /readiness probe \(exec \[cat \/tmp\/ready\]\) failed: command exited with code 1: cat: can't open '\/tmp\/ready'/;
  const { r, went } = await runThenGo(name, ['--wait', 'ready', '--timeout', '3m', '-v', file], missing);
  const returnedAt = hostStamp();
  assert.equal(r.code, 0, show(r));
  assert.ok(went, show(r));
  const app = must(podContainers(name).get('app'), 'app');
  assert.ok(BigInt(docker(['exec', app.Id, 'cat', '/tmp/ready'])) <= returnedAt);

  const slow = uniqueName('wait-exec-slow');
  cleanupPod(t, slow);
  const slowFile = probePod(slow, {
    command: ['sleep', '3600'],
    readinessProbe: { exec: { command: ['sleep', '30'] }, timeoutSeconds: 1, periodSeconds: 1 },
  });
  cleanupFile(t, slowFile);
  const s = await runpod(['--wait', 'ready', '--retries', '2', '--retry-delay', '1s', slowFile]);
  assert.equal(s.code, 1, show(s));
  assert.match(s.stderr, /readiness probe \(exec \[sleep 30\]\) failed: command timed out after 1s/);
  // The abandoned exec does not keep runpod alive: runpod has ended while its last probe's command still runs.
  const probes = docker(['exec', must(podContainers(slow).get('app'), 'app').Id, 'ps', '-o', 'args']);
  assert.match(probes, /^sleep 30$/m, `runpod waited for the timed-out command to end:\n${probes}`);
});

test('a startupProbe holds off the readiness probe until it passes', async (t) => {
  const name = uniqueName('wait-startup');
  cleanupPod(t, name);
  // Each readiness probe run appends its time; the startup probe passes once /tmp/started exists (made once runpod
  // has said the startup probe failed).
  const file = probePod(name, {
    command: afterGo('/tmp/started', 'exec sleep 3600'),
    startupProbe: { exec: { command: ['cat', '/tmp/started'] }, periodSeconds: 1, failureThreshold: 300, timeoutSeconds: 30 },
    readinessProbe: { exec: { command: ['sh', '-c', `${stamp} >> /tmp/readiness-runs`] }, periodSeconds: 1, timeoutSeconds: 30 },
  });
  cleanupFile(t, file);
  const { r, went } = await runThenGo(name, ['--wait', 'ready', '--timeout', '3m', '-v', file], /not started: startup probe \(exec \[cat \/tmp\/started\]\) failed/);
  assert.equal(r.code, 0, show(r));
  assert.ok(went, show(r));
  const app = must(podContainers(name).get('app'), 'app');
  const startedAt = BigInt(docker(['exec', app.Id, 'cat', '/tmp/started']));
  const runs = docker(['exec', app.Id, 'cat', '/tmp/readiness-runs']).split('\n').filter(Boolean).map(BigInt);
  assert.ok(runs.length >= 1, 'the readiness probe ran');
  for (const run of runs) assert.ok(run >= startedAt, `a readiness probe ran at ${run}, before the startup probe could pass (${startedAt})`);
});

test('a liveness failure restarts the container (restart count rises); an exec liveness probe is the engine HEALTHCHECK', async (t) => {
  const name = uniqueName('wait-live');
  cleanupPod(t, name);
  // First life: no server, so liveness fails and the container is killed. The engine restarts the same
  // instance (its filesystem keeps /second), and the second life serves, so it becomes ready.
  const file = probePod(name, {
    command: ['sh', '-c', 'if [ -f /second ]; then mkdir -p /www && echo ok > /www/index.html && exec httpd -f -p 8080 -h /www; else touch /second; exec sleep 3600; fi'],
    readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 },
    // A timeout a loaded machine does not reach (an exec through the engine took over the default 1 s there): the
    // failure is test's exit code 1, not the clock.
    livenessProbe: { exec: { command: ['test', '-f', '/www/index.html'] }, initialDelaySeconds: 1, periodSeconds: 1, failureThreshold: 2, timeoutSeconds: 30 },
  });
  cleanupFile(t, file);
  const r = await runpod(['--wait', 'ready', '-o', 'json', '-v', file]);
  assert.equal(r.code, 0, show(r));
  assert.match(r.stderr, /killing container app to restart it \(liveness probe \(exec \[test -f \/www\/index.html\]\) failed: command exited with code 1\)/);
  const doc = parse(r.stdout);
  assert.equal(doc.pods[0]!.containers[0]!.restartCount, 1, r.stdout);
  const app = must(podContainers(name).get('app'), 'app');
  assert.equal(app.RestartCount, 1, 'the engine counted the restart');
  assert.equal(app.Config.Labels['io.kubernetes.container.restartCount'], '0', 'the same instance, not a new attempt');
  const health = JSON.parse(docker(['inspect', '-f', '{{json .Config.Healthcheck}}', app.Id])) as { Test: string[]; Interval: number; Retries: number };
  assert.deepEqual(health.Test, ['CMD', 'test', '-f', '/www/index.html']);
  assert.equal(health.Interval, 1_000_000_000);
  assert.equal(health.Retries, 2);
});

test("a liveness failure under restartPolicy Never fails the pod with the probe's output", async (t) => {
  const name = uniqueName('wait-live-never');
  cleanupPod(t, name);
  const file = probePod(
    name,
    {
      command: ['sleep', '3600'],
      readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 },
      livenessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1, failureThreshold: 1 },
    },
    'Never',
  );
  cleanupFile(t, file);
  const r = await runpod(['--wait', 'ready', file]);
  assert.equal(r.code, 1, show(r));
  assert.match(
    r.stderr,
    /exited with code 137; killed after liveness probe \(tcpSocket <pod>:8080\) failed: dial tcp [0-9.]+:8080 \(pod IP [0-9.]+\): ECONNREFUSED and restartPolicy Never will not restart it/,
  );
  assert.equal(dockerTry(['inspect', '-f', '{{.RestartCount}}', must(podContainers(name).get('app'), 'app').Id]).stdout.trim(), '0');
});
