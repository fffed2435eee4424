// Lifecycle hooks on the real engine, through the built CLI: postStart (exec), a failing postStart reported as
// FailedPostStartHook, preStop (exec, httpGet, sleep) on `down` and on replacement. The pod reaches this test's
// HTTP server on the host through its default gateway (the engine's bridge address), so a hook that ran inside
// a container that is gone can still be seen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { uniqueName } from './harness.js';
import {
  busybox,
  checkNothingLeftBehind,
  cleanupFile,
  cleanupPod,
  docker,
  eventually,
  podContainerIds,
  podContainers,
  podFile,
  runpod,
  show,
  toYaml,
  writeManifest,
} from './run-helpers.js';

checkNothingLeftBehind();

interface Hit {
  path: string;
  at: number;
}

/** An HTTP server on every host address that records each request's path and time. */
async function recorder(t: { after(fn: () => void | Promise<void>): void }): Promise<{ port: number; hits: Hit[] }> {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    hits.push({ path: req.url ?? '', at: Date.now() });
    res.end('ok\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, hits };
}

/** A shell line that GETs a path on the recorder through the container's default gateway. */
const callHome = (port: number, path: string): string => `set -- $(ip route | grep ^default); wget -q -O- "http://$3:${port}${path}" >/dev/null`;

function pod(name: string, spec: Record<string, unknown>): string {
  return writeManifest(toYaml({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec }));
}

test('postStart exec runs in the container right after it starts', async (t) => {
  const name = uniqueName('hook-poststart');
  cleanupPod(t, name);
  const file = pod(name, {
    terminationGracePeriodSeconds: 0,
    containers: [{ name: 'app', image: busybox, command: ['sleep', '3600'], lifecycle: { postStart: { exec: { command: ['sh', '-c', 'echo started-by-hook > /tmp/marker'] } } } }],
  });
  cleanupFile(t, file);
  const r = await runpod(['--timeout', '90s', file]);
  assert.equal(r.code, 0, show(r));
  const app = podContainers(name).get('app');
  assert.ok(app);
  assert.equal(docker(['exec', app.Id, 'cat', '/tmp/marker']), 'started-by-hook');
});

test('a failing postStart kills the container and is reported (FailedPostStartHook)', async (t) => {
  const name = uniqueName('hook-poststart-fail');
  cleanupPod(t, name);
  const file = pod(name, {
    restartPolicy: 'Never',
    terminationGracePeriodSeconds: 0,
    containers: [{ name: 'app', image: busybox, command: ['sleep', '3600'], lifecycle: { postStart: { exec: { command: ['sh', '-c', 'echo no config >&2; exit 5'] } } } }],
  });
  cleanupFile(t, file);
  const r = await runpod(['--timeout', '90s', file]);
  assert.equal(r.code, 1, show(r));
  assert.match(r.stderr, /FailedPostStartHook: exec \[sh -c echo no config >&2; exit 5\] failed: command exited with code 5: no config/, show(r));
  const app = podContainers(name).get('app');
  assert.ok(app);
  assert.equal(app.State.Running, false, 'the container was killed');
});

test('preStop exec runs before the stop signal on down; sleep counts against the grace period', async (t) => {
  const name = uniqueName('hook-prestop');
  cleanupPod(t, name);
  const rec = await recorder(t);
  // The main process reports SIGTERM home, so the order preStop -> signal is visible from the host.
  const file = pod(name, {
    terminationGracePeriodSeconds: 20,
    containers: [
      {
        name: 'app',
        image: busybox,
        command: ['sh', '-c', `trap '${callHome(rec.port, '/term')}; exit 0' TERM; while true; do sleep 0.2; done`],
        lifecycle: { preStop: { exec: { command: ['sh', '-c', callHome(rec.port, '/prestop')] } } },
      },
      {
        name: 'slow',
        image: busybox,
        command: ['sh', '-c', `trap '${callHome(rec.port, '/slow-term')}; exit 0' TERM; while true; do sleep 0.2; done`],
        lifecycle: { preStop: { sleep: { seconds: 2 } } },
      },
    ],
  });
  cleanupFile(t, file);
  const r = await runpod(['--timeout', '90s', file]);
  assert.equal(r.code, 0, show(r));
  const downAt = Date.now();
  const down = await runpod(['down', file]);
  assert.equal(down.code, 0, show(down));
  assert.deepEqual(podContainerIds(name), []);
  const paths = rec.hits.map((h) => h.path);
  assert.ok(paths.includes('/prestop') && paths.includes('/term'), `hits: ${paths.join(', ')}`);
  assert.ok(paths.indexOf('/prestop') < paths.indexOf('/term'), `preStop before the stop signal: ${paths.join(', ')}`);
  // The sleep hook held the stop signal back for its 2 seconds (a lower bound: a loaded host only adds).
  const slowTerm = rec.hits.find((h) => h.path === '/slow-term');
  assert.ok(slowTerm, `hits: ${paths.join(', ')}`);
  assert.ok(slowTerm.at - downAt >= 2000, `the sleep preStop delayed SIGTERM by ${slowTerm.at - downAt}ms`);
});

test('preStop httpGet runs from the host when a changed container is replaced', async (t) => {
  const name = uniqueName('hook-replace');
  cleanupPod(t, name);
  const rec = await recorder(t);
  const spec = (version: string): Record<string, unknown> => ({
    terminationGracePeriodSeconds: 5,
    containers: [
      {
        name: 'app',
        image: busybox,
        command: ['sleep', '3600'],
        env: [{ name: 'VERSION', value: version }],
        // host: the recorder on the host's loopback, which only a request sent from the host reaches (a container's
        // 127.0.0.1 is its own): the kubelet runs an httpGet handler, and so runpod does. No bridge address is
        // needed: the default bridge of a fresh engine has a subnet and no gateway in its IPAM config.
        lifecycle: { preStop: { httpGet: { host: '127.0.0.1', port: rec.port, path: `/prestop-${version}` } } },
      },
    ],
  });
  const first = pod(name, spec('v1'));
  cleanupFile(t, first);
  const r1 = await runpod(['--timeout', '90s', first]);
  assert.equal(r1.code, 0, show(r1));
  const second = pod(name, spec('v2'));
  cleanupFile(t, second);
  const r2 = await runpod(['--timeout', '90s', second]);
  assert.equal(r2.code, 0, show(r2));
  await eventually("the old instance's preStop was called", () => (rec.hits.some((h) => h.path === '/prestop-v1') ? true : undefined));
  assert.equal(
    rec.hits.some((h) => h.path === '/prestop-v2'),
    false,
    'the new instance is still running',
  );
  const app = podContainers(name).get('app');
  assert.ok(app?.Config.Env?.includes('VERSION=v2'));
});

test('lifecycle hooks on a plain init container are refused (only sidecars may have them)', async (t) => {
  const file = podFile([
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'bad-hooks' },
      spec: {
        initContainers: [{ name: 'setup', image: busybox, lifecycle: { postStart: { exec: { command: ['true'] } } } }],
        containers: [{ name: 'app', image: busybox }],
      },
    },
  ]);
  cleanupFile(t, file);
  const r = await runpod(['validate', file]);
  assert.equal(r.code, 2, show(r));
  assert.match(r.stderr, /spec\.initContainers\[0\]\.lifecycle: may not be set for init containers without restartPolicy: Always/, show(r));
});
