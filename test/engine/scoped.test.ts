// `runpod run <manifest> -- <command>` on a real engine: the command runs on the host against the pod through
// the RUNPOD_* variables, the pod is taken down however the command ends, runpod exits with the command's
// code, a signal reaches both, a pod that never comes up means the command never runs; and `-o env` output
// that sh can eval whatever the values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { alive, runpodBin, uniqueName } from './harness.js';
import {
  busybox,
  checkNothingLeftBehind,
  cleanupPod,
  dockerTry,
  eventually,
  podContainerIds,
  podContainers,
  podObject,
  runpod,
  show,
  tempDir,
  toYaml,
  must,
} from './run-helpers.js';

checkNothingLeftBehind();

/** The RUNPOD_<POD> part of a pod's variable names. */
const part = (name: string): string => name.toUpperCase().replace(/[^A-Z0-9_]/g, '_');

/** A busybox httpd serving a marker page on the named port 8080. */
function webPod(name: string, marker: string): string {
  return toYaml(
    podObject({
      name,
      containers: [
        {
          name: 'httpd',
          image: busybox,
          command: ['sh', '-c', `mkdir -p /www && echo ${marker} > /www/index.html && exec httpd -f -p 8080 -h /www`],
          ports: [{ name: 'http', containerPort: 8080 }],
        },
      ],
    }),
  );
}

function writeIn(dir: string, file: string, text: string): string {
  const p = path.join(dir, file);
  fs.writeFileSync(p, text);
  return p;
}

/** Pids of live processes in a process group, read from /proc (field 5 of stat is the group). */
function processGroup(pgid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] !== 'Z' && Number(fields[2]) === pgid) out.push(Number(entry));
  }
  return out;
}

// The command is node itself (always on the host): it fetches the page through the pod's address and through the
// port the engine chose on the host, retrying while httpd starts listening.
const fetchScript = `
const env = process.env;
const urls = process.argv.slice(1).map((u) => u.replace(/\\$(\\w+)/g, (_, k) => env[k] ?? 'MISSING-' + k));
async function get(url) {
  for (let i = 0; ; i++) {
    try { const r = await fetch(url); return await r.text(); } catch (e) { if (i > 50) throw e; await new Promise((r) => setTimeout(r, 100)); }
  }
}
(async () => { for (const u of urls) process.stdout.write('got ' + u + ' ' + (await get(u))); })().catch((e) => { console.error(e); process.exit(9); });
`;

test('a command reaches the pod through the variables, exits 0, and the pod is gone afterwards', async (t) => {
  const name = uniqueName('scoped-web');
  cleanupPod(t, name);
  const marker = `page-${randomBytes(6).toString('hex')}`;
  const file = writeIn(tempDir(t), 'web.yaml', webPod(name, marker));
  const P = part(name);
  const r = await runpod([
    'run',
    file,
    '--publish-all',
    '--',
    process.execPath,
    '-e',
    fetchScript,
    `http://$RUNPOD_${P}_IP:$RUNPOD_${P}_HTTP_PORT/`, // the pod's own address and its named port
    'http://127.0.0.1:$RUNPOD_HOST_PORT_8080/', // the short form, and the host port the engine chose
  ]);
  assert.equal(r.code, 0, show(r));
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 2, show(r));
  assert.match(lines[0]!, new RegExp(`^got http://\\d+\\.\\d+\\.\\d+\\.\\d+:8080/ ${marker}$`), show(r));
  assert.match(lines[1]!, new RegExp(`^got http://127\\.0\\.0\\.1:\\d+/ ${marker}$`), show(r));
  assert.doesNotMatch(lines[1]!, /:8080\//, 'the host port is one the engine chose, not the container port');
  assert.deepEqual(podContainerIds(name), [], 'the pod is taken down after the command');
});

test('a command that exits 7 makes runpod exit 7, and the pod is gone', async (t) => {
  const name = uniqueName('scoped-exit');
  cleanupPod(t, name);
  const file = writeIn(tempDir(t), 'web.yaml', webPod(name, 'x'));
  // The pod is up while the command runs: it counts its containers itself before failing.
  const r = await runpod([file, '--', 'sh', '-c', `docker ps -q --filter label=io.kubernetes.pod.name=${name} | wc -l; exit 7`]);
  assert.equal(r.code, 7, show(r));
  assert.equal(r.stdout.trim(), '2', show(r));
  assert.match(r.stderr, /runpod: the command exited with code 7/, show(r));
  assert.deepEqual(podContainerIds(name), []);
});

test('a command killed by a signal: runpod exits 128+N, and the pod is gone', async (t) => {
  const name = uniqueName('scoped-killed');
  cleanupPod(t, name);
  const file = writeIn(tempDir(t), 'web.yaml', webPod(name, 'x'));
  const r = await runpod([file, '--', 'sh', '-c', 'kill -TERM $$']);
  assert.equal(r.code, 128 + 15, show(r));
  assert.match(r.stderr, /killed by SIGTERM/, show(r));
  assert.deepEqual(podContainerIds(name), []);
});

for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  test(`${signal} during the command ends both, the pod is gone, exit ${code}`, async (t) => {
    const name = uniqueName('scoped-sig');
    cleanupPod(t, name);
    const dir = tempDir(t);
    const file = writeIn(dir, 'web.yaml', webPod(name, 'x'));
    const pidFile = path.join(dir, 'command.pid');
    let pid = 0;
    // sh writes its own pid, then runs sleep as its child: the signal must end the sleep too, not orphan it.
    const run = runpod([file, '--', 'sh', '-c', `echo $$ > '${pidFile}'; sleep 300; echo survived`], { onSpawn: (p) => (pid = p) });
    const commandPid = await eventually(
      'the command started',
      () => (fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() ? Number(fs.readFileSync(pidFile, 'utf8')) : undefined),
      60_000,
    );
    assert.equal(podContainers(name).size, 2, 'the pod is up while the command runs');
    process.kill(pid, signal);
    const r = await run;
    assert.equal(r.code, code, show(r));
    assert.doesNotMatch(r.stdout, /survived/, show(r));
    assert.match(r.stderr, new RegExp(`interrupted by ${signal}`), show(r));
    assert.equal(alive(commandPid), false, 'the command is gone');
    // Nothing of the command's process group is left (sh's sleep would be an orphan if only sh were signalled).
    assert.deepEqual(processGroup(commandPid), [], 'a process of the command survived');
    assert.deepEqual(podContainerIds(name), [], 'the pod is taken down');
  });
}

test('a pod that never comes up: the command never runs, runpod exits 1, the pod is taken down', async (t) => {
  const name = uniqueName('scoped-fail');
  cleanupPod(t, name);
  const dir = tempDir(t);
  const file = writeIn(dir, 'bad.yaml', toYaml(podObject({ name, restartPolicy: 'Never', containers: [{ name: 'broken', image: busybox, command: ['sh', '-c', 'exit 3'] }] })));
  const marker = path.join(dir, 'command-ran');
  const r = await runpod([file, '--', 'touch', marker]);
  assert.equal(r.code, 1, show(r));
  assert.equal(fs.existsSync(marker), false, 'the command must not run');
  assert.match(r.stderr, new RegExp(`runpod: pod default/${name} failed`), show(r));
  assert.match(r.stderr, /the pods were taken down/, show(r));
  assert.deepEqual(podContainerIds(name), []);
});

test('--keep leaves the pod up after the command', async (t) => {
  const name = uniqueName('scoped-keep');
  cleanupPod(t, name);
  const file = writeIn(tempDir(t), 'web.yaml', webPod(name, 'x'));
  const r = await runpod([file, '--keep', '--', 'true']);
  assert.equal(r.code, 0, show(r));
  const pod = podContainers(name);
  assert.equal(must(pod.get('httpd'), 'httpd').State.Running, true);
  // The command it prints takes everything down, the run's own network with it.
  const hint = /remove with: runpod (down --project (run-[0-9a-f]+) .*)$/m.exec(r.stderr);
  assert.ok(hint?.[1] !== undefined && hint[2] !== undefined, show(r));
  const down = await runpod(hint[1].split(' '));
  assert.equal(down.code, 0, show(down));
  assert.deepEqual(podContainerIds(name), []);
  assert.equal(dockerTry(['network', 'inspect', `runpod_default.${hint[2]}`]).status, 1, `the network of ${hint[2]} is left`);
});

test('the command and its arguments pass through untouched; a missing command exits 127', async (t) => {
  const name = uniqueName('scoped-args');
  cleanupPod(t, name);
  const file = writeIn(tempDir(t), 'web.yaml', webPod(name, 'x'));
  const args = ['007', '--keep', '-', '--', '-o', 'json', '1e3', 'a b'];
  const r = await runpod([file, '--', process.execPath, '-e', 'process.stdout.write(JSON.stringify(process.argv.slice(1)))', ...args]);
  assert.equal(r.code, 0, show(r));
  assert.deepEqual(JSON.parse(r.stdout), args);
  assert.deepEqual(podContainerIds(name), []);

  const missing = await runpod([file, '--', `no-such-command-${randomBytes(4).toString('hex')}`]);
  assert.equal(missing.code, 127, show(missing));
  assert.match(missing.stderr, /command not found/, show(missing));
  assert.deepEqual(podContainerIds(name), []);
});

test('eval "$(runpod … -o env)" in sh sets the variables, values needing quotes included', async (t) => {
  const name = uniqueName('scoped-env');
  cleanupPod(t, name);
  // The source (the manifest's directory) is a value a shell would mangle without quotes.
  const dir = path.join(tempDir(t), `it's a "dir" $HOME \`id\` ;&|`);
  fs.mkdirSync(dir);
  writeIn(dir, 'web.yaml', webPod(name, 'x'));
  const P = part(name);
  const script = [
    'out=$("$NODE" "$RUNPOD_BIN" "$DIR" --publish-all -o env) || exit 1',
    'eval "$out"',
    `printf '%s\\n' "$RUNPOD_${P}_SOURCE" "$RUNPOD_${P}_IP" "$RUNPOD_${P}_HTTP_PORT" "$RUNPOD_${P}_PORT_8080" "$RUNPOD_${P}_HOST_PORT_8080" "$RUNPOD_IP"`,
  ].join('\n');
  const r = spawnSync('sh', ['-c', script], {
    encoding: 'utf8',
    env: { ...process.env, CI: 'true', NODE: process.execPath, RUNPOD_BIN: runpodBin, DIR: dir },
    timeout: 120_000,
  });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  const [source, ip, named, port, hostPort, shortIp] = r.stdout.split('\n');
  const infra = must(podContainers(name).get('POD'), 'infra');
  const inspected = JSON.parse(spawnSync('docker', ['inspect', infra.Id], { encoding: 'utf8' }).stdout) as {
    NetworkSettings: { Networks: Record<string, { IPAddress: string }>; Ports: Record<string, { HostIp: string; HostPort: string }[]> };
  }[];
  assert.equal(source, dir);
  // The pod's address on its namespace's network (Docker leaves the top-level IPAddress empty on user networks).
  assert.equal(ip, Object.values(inspected[0]!.NetworkSettings.Networks)[0]?.IPAddress);
  assert.equal(shortIp, ip);
  assert.equal(named, '8080');
  assert.equal(port, '8080');
  assert.equal(hostPort, must(inspected[0]!.NetworkSettings.Ports['8080/tcp']?.[0], 'binding').HostPort);
});

test('usage errors are refused before the engine is touched (exit 2)', async (t) => {
  const name = uniqueName('scoped-usage');
  cleanupPod(t, name);
  const file = writeIn(tempDir(t), 'web.yaml', webPod(name, 'x'));
  const cases: [string[], RegExp][] = [
    [[file, '--'], /nothing after "--"/],
    [[file, '-o', 'json', '--', 'true'], /-o json cannot share stdout with the command/],
    [[file, '-o', 'env', '--', 'true'], /-o env cannot share stdout/],
    [[file, '--keep'], /--keep applies to a run with a command/],
    [[file, '--prune', '--prune-all'], /--prune and --prune-all/],
    [[file, '--dry-run', '-o', 'env'], /-o env prints the addresses of running pods/],
  ];
  for (const [args, message] of cases) {
    const r = await runpod(args);
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, message, show(r));
  }
  assert.deepEqual(podContainerIds(name), []);
});
