// Operating what runpod started, through the built CLI on the real engine: status, logs, exec, stats and
// shell completion. (gc and down --all act on every runpod pod, so they are tested on a second engine of their
// own: engine2.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { keyedWorkspace, runpod, runpodBin, uniqueName } from './harness.js';
import {
  busybox,
  checkNothingLeftBehind,
  cleanupFile,
  cleanupPod,
  docker,
  dockerTry,
  eventually,
  freePort,
  logsOf,
  podContainers,
  podFile,
  show,
  sleeper,
  tempDir,
} from './run-helpers.js';

checkNothingLeftBehind();

/** Run a pod and wait until it runs; registers its cleanup first. */
async function up(t: Parameters<typeof cleanupPod>[0], spec: Parameters<typeof podFile>[0], args: string[] = []): Promise<string> {
  const name = Array.isArray(spec) ? String((spec[0]!.metadata as { name: string }).name) : spec.name;
  cleanupPod(t, name);
  const file = podFile(spec);
  cleanupFile(t, file);
  const r = await runpod(['--timeout', '60s', ...args, file]);
  assert.equal(r.code, 0, show(r));
  return file;
}

/** The CLI as a child whose stdout is read as it comes: for -f and --watch, which end on Ctrl-C. */
function streaming(
  t: Parameters<typeof cleanupPod>[0],
  args: string[],
): { stdout: () => string; stderr: () => string; until: (what: string, ok: (out: string) => boolean) => Promise<void>; interrupt: () => Promise<number | null> } {
  const child = spawn(process.execPath, [runpodBin, ...args], { env: { ...process.env, CI: 'true', NO_COLOR: '1' } });
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    stdout: () => out,
    stderr: () => err,
    until: (what, ok) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${what}: not within 60s; stdout: ${out}; stderr: ${err}`)), 60_000);
        const check = (): void => {
          if (!ok(out)) return;
          clearTimeout(timer);
          resolve();
        };
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          check();
        });
      }),
    interrupt: () => {
      child.kill('SIGINT');
      return exited;
    },
  };
}

test('status: phase, ready, restarts, address, ports and source; wide, json; ps alias; missing pod exit 1', async (t) => {
  const name = uniqueName('status');
  const port = await freePort();
  const file = await up(t, {
    name,
    containers: [sleeper('web', { ports: [{ containerPort: 80, hostPort: port, hostIP: '127.0.0.1' }] }), sleeper('side')],
  });
  const st = await runpod(['status', name]);
  assert.equal(st.code, 0, show(st));
  const [header, row] = st.stdout.trimEnd().split('\n');
  assert.match(header!, /^NAMESPACE\/NAME\s+PHASE\s+READY\s+RESTARTS\s+AGE\s+ADDRESS\s+PORTS\s+SOURCE$/);
  const ip = podContainers(name).get('POD')!;
  const address = docker(['inspect', '--format', '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}', ip.Id]);
  assert.match(
    row!,
    new RegExp(
      `^default/${name}\\s+Running\\s+2/2\\s+0\\s+\\d+s\\s+${address.replace(/\./g, '\\.')}\\s+127\\.0\\.0\\.1:${port}->80/tcp\\s+${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`,
    ),
    show(st),
  );

  const wide = await runpod(['ps', '-o', 'wide', `default/${name}`]);
  assert.equal(wide.code, 0, show(wide));
  const side = podContainers(name).get('side')!;
  assert.match(wide.stdout, new RegExp(`side=${busybox.replace(/[./]/g, '\\$&')}`), show(wide));
  assert.match(wide.stdout, new RegExp(`side=${side.Id.slice(0, 12)}`), show(wide));

  const json = await runpod(['status', '-o', 'json', file]);
  assert.equal(json.code, 0, show(json));
  const doc = JSON.parse(json.stdout) as {
    kind: string;
    pods: { name: string; phase: string; ready: string; source: string; ports: string[]; containers: { name: string; id: string; state: string }[] }[];
  };
  assert.equal(doc.kind, 'PodStatusList');
  assert.equal(doc.pods.length, 1);
  assert.equal(doc.pods[0]!.source, file);
  assert.deepEqual(doc.pods[0]!.ports, [`127.0.0.1:${port}->80/tcp`]);
  assert.deepEqual(
    doc.pods[0]!.containers.map((c) => [c.name, c.state, c.id]),
    [
      ['side', 'running', side.Id],
      ['web', 'running', podContainers(name).get('web')!.Id],
    ],
  );

  // Without names: every pod runpod manages, this one among them.
  const all = await runpod(['status', '-o', 'yaml']);
  assert.equal(all.code, 0, show(all));
  assert.match(all.stdout, new RegExp(`name: ${name}\\n`));

  const missing = uniqueName('missing');
  const gone = await runpod(['status', name, missing]);
  assert.equal(gone.code, 1, show(gone));
  assert.match(gone.stdout, new RegExp(`default/${name}`), 'the pods that exist are still shown');
  assert.match(gone.stderr, new RegExp(`pod default/${missing} not found`), show(gone));
});

test('status: a pod whose container failed under restartPolicy Never is Failed', async (t) => {
  const name = uniqueName('status-failed');
  cleanupPod(t, name);
  const file = podFile({ name, restartPolicy: 'Never', containers: [{ name: 'job', image: busybox, command: ['sh', '-c', 'exit 3'] }] });
  cleanupFile(t, file);
  const r = await runpod(['--wait', 'completed', '--timeout', '60s', file]);
  assert.equal(r.code, 1, show(r));
  const st = await runpod(['status', '-o', 'json', name]);
  const pod = (JSON.parse(st.stdout) as { pods: { phase: string; ready: string; containers: { exitCode: number }[] }[] }).pods[0]!;
  assert.equal(pod.phase, 'Failed');
  assert.equal(pod.ready, '0/1');
  assert.equal(pod.containers[0]!.exitCode, 3);
});

test('logs: stdout to stdout and stderr to stderr, demultiplexed across chunks; -c, --tail, --timestamps, --prefix', async (t) => {
  const name = uniqueName('logs');
  // 3000 interleaved lines on each stream: frames split across network chunks must not bleed into each other.
  const noisy = 'i=0; while [ $i -lt 3000 ]; do echo "out-$i"; echo "err-$i" >&2; i=$((i+1)); done; exec sleep 3600';
  await up(t, {
    name,
    containers: [
      { name: 'noisy', image: busybox, command: ['sh', '-c', noisy] },
      { name: 'quiet', image: busybox, command: ['sh', '-c', 'echo only-line; exec sleep 3600'] },
    ],
  });
  const id = podContainers(name).get('noisy')!.Id;
  // Its last line goes to stderr, after the last one on stdout.
  await eventually('the noisy container wrote everything', () => (logsOf(id).includes('err-2999') ? true : undefined), 20_000);

  const noC = await runpod(['logs', name]);
  assert.equal(noC.code, 2, show(noC));
  assert.match(noC.stderr, /has 2 containers: choose one with -c \(noisy, quiet\)/, show(noC));
  const badC = await runpod(['logs', name, '-c', 'nope']);
  assert.equal(badC.code, 1, show(badC));
  assert.match(badC.stderr, /container nope not found .*noisy, quiet/, show(badC));

  const r = await runpod(['logs', name, '-c', 'noisy']);
  assert.equal(r.code, 0, show(r));
  const expect = (prefix: string): string => Array.from({ length: 3000 }, (_, i) => `${prefix}-${i}\n`).join('');
  assert.equal(r.stdout, expect('out'));
  assert.equal(r.stderr, expect('err'));

  // --tail counts the container's log as the engine keeps it, both streams together; which stream's write the
  // engine logged last is up to the two pipes, so check the count, the streams and that they are the newest.
  const tail = await runpod(['logs', name, '-c', 'noisy', '--tail', '2']);
  assert.equal(tail.code, 0, show(tail));
  const outLines = tail.stdout.split('\n').filter(Boolean);
  const errLines = tail.stderr.split('\n').filter(Boolean);
  assert.equal(outLines.length + errLines.length, 2, show(tail));
  for (const l of outLines) assert.match(l, /^out-29\d\d$/, show(tail));
  for (const l of errLines) assert.match(l, /^err-29\d\d$/, show(tail));

  const ts = await runpod(['logs', name, '-c', 'quiet', '--timestamps']);
  assert.match(ts.stdout, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z only-line\n$/, show(ts));
  const since = await runpod(['logs', name, '-c', 'quiet', '--since', '1h']);
  assert.equal(since.stdout, 'only-line\n', show(since));

  // Containers one after the other, each line prefixed with whose it is, on its own stream.
  const all = await runpod(['logs', name, '--all-containers', '--prefix']);
  assert.equal(all.code, 0, show(all));
  assert.equal(all.stdout, `${expect('out').replace(/^(?=.)/gm, `[pod/${name}/noisy] `)}[pod/${name}/quiet] only-line\n`);
  assert.equal(all.stderr, expect('err').replace(/^(?=.)/gm, `[pod/${name}/noisy] `));

  const none = await runpod(['logs', uniqueName('missing')]);
  assert.equal(none.code, 1, show(none));
});

test('logs --previous reads the dead instance a restart left; without one it is exit 1', async (t) => {
  const name = uniqueName('logs-prev');
  const file = await up(t, { name, containers: [{ name: 'main', image: busybox, command: ['sh', '-c', 'echo "run $(cat /proc/sys/kernel/random/uuid)"; exec sleep 3600'] }] });
  const noPrev = await runpod(['logs', name, '--previous']);
  assert.equal(noPrev.code, 1, show(noPrev));
  assert.match(noPrev.stderr, /previous terminated container main in pod default\/.* not found/, show(noPrev));

  const first = podContainers(name).get('main')!.Id;
  const firstLine = await eventually('the first instance wrote its line', () => docker(['logs', first]) || undefined);
  // Stopped by hand: the engine will not restart it, so the next run replaces it and keeps the dead one.
  docker(['stop', '-t', '0', first]);
  const again = await runpod(['--timeout', '60s', file]);
  assert.equal(again.code, 0, show(again));
  const current = docker(['ps', '-q', '--no-trunc', '--filter', `label=io.kubernetes.pod.name=${name}`, '--filter', 'label=io.kubernetes.container.name=main']);
  assert.notEqual(current, first, 'a new instance runs');
  const secondLine = await eventually('the second instance wrote its line', () => docker(['logs', current]) || undefined);
  assert.notEqual(firstLine, secondLine);

  const prev = await runpod(['logs', name, '--previous']);
  assert.equal(prev.code, 0, show(prev));
  assert.equal(prev.stdout, `${firstLine}\n`);
  const now = await runpod(['logs', name]);
  assert.equal(now.stdout, `${secondLine}\n`);
  const st = await runpod(['status', '-o', 'json', name]);
  assert.equal((JSON.parse(st.stdout) as { pods: { restarts: number }[] }).pods[0]!.restarts, 1, show(st));
});

test('logs -f follows until the container exits, and ends on Ctrl-C (130)', async (t) => {
  const name = uniqueName('logs-follow');
  const job = 'echo first; sleep 2; echo second >&2; sleep 1; echo last; exit 0';
  const file = podFile({
    name,
    restartPolicy: 'Never',
    containers: [
      { name: 'job', image: busybox, command: ['sh', '-c', job] },
      { name: 'stay', image: busybox, command: ['sh', '-c', 'echo ready; exec sleep 3600'] },
    ],
  });
  cleanupPod(t, name);
  cleanupFile(t, file);
  const r = await runpod(['--wait', 'none', file]);
  assert.equal(r.code, 0, show(r));
  const f = await runpod(['logs', '-f', name, '-c', 'job'], { timeoutMs: 30_000 });
  assert.equal(f.code, 0, show(f));
  assert.equal(f.stdout, 'first\nlast\n', 'output written after logs -f started (2-3s later) arrives, then it ends');
  assert.equal(f.stderr, 'second\n');

  const following = streaming(t, ['logs', '-f', name, '-c', 'stay']);
  await following.until('logs -f printed what is there', (out) => out === 'ready\n');
  assert.equal(await following.interrupt(), 130, following.stderr());
  assert.equal(following.stderr(), '', 'Ctrl-C is how -f ends: no error line');
});

test("exec: the command's exit code and streams; stdin with -i; 125 when runpod fails before the command runs", async (t) => {
  const name = uniqueName('exec');
  await up(t, { name, containers: [sleeper('main'), sleeper('other')] });
  const seven = await runpod(['exec', name, '-c', 'main', '--', 'sh', '-c', 'echo to-out; echo to-err >&2; exit 7']);
  assert.equal(seven.code, 7, show(seven));
  assert.equal(seven.stdout, 'to-out\n');
  assert.equal(seven.stderr, 'to-err\n');
  const zero = await runpod(['exec', name, '-c', 'other', '--', 'true']);
  assert.equal(zero.code, 0, show(zero));
  // Words after -- are the command's as typed: -c here is sh's, 007 stays a string.
  const words = await runpod(['exec', name, '-c', 'main', '--', 'sh', '-c', 'echo "$0"', '007']);
  assert.equal(words.stdout, '007\n', show(words));
  const piped = await runpod(['exec', '-i', name, '-c', 'main', '--', 'sh', '-c', 'cat; echo end'], { input: 'line one\nline two\n' });
  assert.equal(piped.code, 0, show(piped));
  assert.equal(piped.stdout, 'line one\nline two\nend\n');
  const tty = await runpod(['exec', '-t', name, '-c', 'main', '--', 'sh', '-c', 'test -t 1 && echo terminal']);
  assert.equal(tty.code, 0, show(tty));
  assert.match(tty.stdout, /^terminal\r?\n$/);
  // The engine's own code for a command that cannot be run (126/127), not runpod's.
  const notFound = await runpod(['exec', name, '-c', 'main', '--', 'no-such-command']);
  assert.ok(notFound.code === 126 || notFound.code === 127, show(notFound));

  for (const [what, args] of [
    ['a missing pod', ['exec', uniqueName('missing'), '--', 'true']],
    ['a missing container', ['exec', name, '-c', 'nope', '--', 'true']],
    ['no -c with two containers', ['exec', name, '--', 'true']],
    ['no command', ['exec', name, '-c', 'main']],
    ['an unreachable engine', ['exec', '--host', 'unix:///nonexistent/docker.sock', name, '--', 'true']],
  ] as const) {
    const r = await runpod([...args]);
    assert.equal(r.code, 125, `${what}: ${show(r)}`);
    assert.match(r.stderr, /^runpod: /, `${what}: says why`);
  }
});

test('exec into a container that is not running: 125', async (t) => {
  const name = uniqueName('exec-dead');
  cleanupPod(t, name);
  const file = podFile({ name, restartPolicy: 'Never', containers: [{ name: 'done', image: busybox, command: ['true'] }] });
  cleanupFile(t, file);
  assert.equal((await runpod(['--wait', 'completed', '--timeout', '60s', file])).code, 0);
  const r = await runpod(['exec', name, '--', 'true']);
  assert.equal(r.code, 125, show(r));
  assert.match(r.stderr, /is not running \(exited \(0\)\)/, show(r));
});

test('stats: CPU, memory, network and block I/O per container; -o json; --watch until Ctrl-C', async (t) => {
  const name = uniqueName('stats');
  await up(t, {
    name,
    containers: [{ name: 'busy', image: busybox, command: ['sh', '-c', 'while true; do :; done'], resources: { limits: { cpu: '500m', memory: '64Mi' } } }, sleeper('idle')],
  });
  const r = await runpod(['stats', name, '-o', 'json']);
  assert.equal(r.code, 0, show(r));
  const doc = JSON.parse(r.stdout) as { kind: string; containers: { container: string; cpuPercent: number; memoryBytes: number; memoryLimitBytes: number; netRxBytes: number }[] };
  assert.equal(doc.kind, 'PodStats');
  const busy = doc.containers.find((c) => c.container === 'busy')!;
  assert.ok(busy.cpuPercent > 10, `the busy loop uses CPU: ${busy.cpuPercent}%`);
  assert.equal(busy.memoryLimitBytes, 64 * 1024 * 1024, "the limit is the container's");
  assert.ok(busy.memoryBytes > 0);
  assert.deepEqual(doc.containers.map((c) => c.container).sort(), ['busy', 'idle']);

  const text = await runpod(['stats', name]);
  assert.match(text.stdout, /^POD\s+CONTAINER\s+CPU %\s+MEM USAGE \/ LIMIT\s+MEM %\s+NET I\/O \(pod\)\s+BLOCK I\/O\s+PIDS\n/, show(text));
  assert.match(text.stdout, new RegExp(`default/${name}\\s+busy\\s+\\d+\\.\\d\\d%\\s+\\S+ / 64\\.0MiB`), show(text));

  // --watch: wait for two samples as they are printed, then Ctrl-C.
  const watch = streaming(t, ['stats', name, '--watch', '-o', 'json']);
  await watch.until('two samples', (out) => out.split('\n').length > 2);
  const out = watch.stdout();
  assert.equal(await watch.interrupt(), 130, out);
  const samples = out
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { kind: string });
  assert.ok(samples.length >= 2);
  assert.ok(samples.every((s) => s.kind === 'PodStats'));
});

test('completion: bash and zsh scripts; pod and container names from the engine', async (t) => {
  const name = uniqueName('complete');
  await up(t, { name, containers: [sleeper('alpha'), sleeper('beta')] });
  const bash = await runpod(['completion', 'bash']);
  assert.equal(bash.code, 0, show(bash));
  assert.match(bash.stdout, /complete -o default -F _runpod_completions runpod/);
  const zsh = await runpod(['completion', 'zsh']);
  assert.match(zsh.stdout, /^#compdef runpod/);
  assert.match(zsh.stdout, /compdef _runpod_completions runpod/);
  const fish = await runpod(['completion', 'fish']);
  assert.equal(fish.code, 2, show(fish));

  const pods = await runpod(['--get-yargs-completions', 'runpod', 'logs', '']);
  assert.ok(pods.stdout.split('\n').includes(name), show(pods));
  const containers = await runpod(['--get-yargs-completions', 'runpod', 'exec', name, '-c', '']);
  assert.deepEqual(containers.stdout.trim().split('\n'), ['alpha', 'beta'], show(containers));
  const commands = await runpod(['--get-yargs-completions', 'runpod', 'st']);
  assert.deepEqual(
    commands.stdout
      .trim()
      .split('\n')
      .filter((w) => w.startsWith('st'))
      .sort(),
    ['stats', 'status'],
  );

  // The bash script itself, as bash runs it: runpod must be on PATH under its own name.
  const bin = tempDir(t);
  fs.writeFileSync(path.join(bin, 'runpod'), `#!/bin/sh\nexec "${process.execPath}" "${runpodBin}" "$@"\n`, { mode: 0o755 });
  const script = path.join(bin, 'runpod.bash');
  fs.writeFileSync(script, bash.stdout);
  const run = spawnSync('bash', ['-c', `source "${script}"; COMP_WORDS=(runpod logs ${name} -c ''); COMP_CWORD=4; _runpod_completions; printf '%s\\n' "\${COMPREPLY[@]}"`], {
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
  });
  assert.equal(run.stdout, 'alpha\nbeta\n', run.stderr);
});

test('a reader that goes away ends runpod quietly, exit 141 as SIGPIPE ends kubectl: status | head -1, logs | head -1, logs -f | grep -m1, exec | head -1', async (t) => {
  const name = uniqueName('pipe');
  // More log than a pipe holds at once (about 1.3 MB), then a line every 100 ms for as long as it runs.
  const ticker = 'seq 1 200000; while :; do echo ready; sleep 0.1; done';
  await up(t, { name, containers: [{ name: 'ticker', image: busybox, command: ['sh', '-c', ticker] }] });
  const id = podContainers(name).get('ticker')!.Id;
  await eventually('the ticker wrote its numbers', () => (dockerTry(['logs', '--tail', '1', id]).stdout === 'ready\n' ? true : undefined), 20_000);

  // status | head -1 with the reader gone before the table is written (a table that fits the pipe's buffer is
  // written whole before head leaves, for runpod as for kubectl).
  const status = await runpod(['status', name], { closeStdoutWhen: () => true });
  assert.equal(status.code, 141, show(status));
  assert.equal(status.stderr, '', 'no stack, no error line');

  const logs = await runpod(['logs', name], { closeStdoutWhen: (out) => out.includes('\n') });
  assert.equal(logs.code, 141, show(logs));
  assert.equal(logs.stderr, '', 'no stack, no error line');

  // -f ends at its next write after the reader left, not when the container ends (it never does).
  const follow = await runpod(['logs', '-f', name], { closeStdoutWhen: (out) => out.includes('ready\n'), timeoutMs: 60_000 });
  assert.equal(follow.code, 141, show(follow));
  assert.equal(follow.stderr, '', 'no stack, no error line');

  // The same in a shell pipeline, as a user writes it.
  const shell = spawnSync('bash', ['-c', 'set -o pipefail; "$0" "$1" logs -f "$2" | grep -m1 ready', process.execPath, runpodBin, name], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, CI: 'true' },
  });
  assert.equal(shell.status, 141, `${shell.stdout}\n${shell.stderr}`);
  assert.equal(shell.stdout, 'ready\n');
  assert.equal(shell.stderr, '');

  // exec of a command that never ends on its own: the session closes with the reader, as docker exec's does.
  const exec = spawnSync('bash', ['-c', 'set -o pipefail; "$0" "$1" exec "$2" -- sh -c "while :; do echo x; done" | head -1', process.execPath, runpodBin, name], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, CI: 'true' },
  });
  assert.deepEqual([exec.status, exec.stdout, exec.stderr], [141, 'x\n', ''], `${exec.stdout}\n${exec.stderr}`);
});

test('logs reads init containers as kubectl does: -c names one, --all-containers has them first, in the order they ran', async (t) => {
  const name = uniqueName('logs-init');
  // Named so that the order they ran in is not the order of their names.
  await up(t, {
    name,
    initContainers: [
      { name: 'wait-for-db', image: busybox, command: ['sh', '-c', 'echo waited'] },
      { name: 'seed', image: busybox, command: ['sh', '-c', 'echo seeded'] },
    ],
    containers: [{ name: 'api', image: busybox, command: ['sh', '-c', 'echo api up; exec sleep 3600'] }],
  });
  const init = await runpod(['logs', name, '-c', 'wait-for-db']);
  assert.equal(init.code, 0, show(init));
  assert.equal(init.stdout, 'waited\n');
  // Without -c: the pod's only app container, as before.
  const app = await runpod(['logs', name]);
  assert.equal(app.stdout, 'api up\n', show(app));
  const all = await runpod(['logs', name, '--all-containers', '--prefix']);
  assert.equal(all.code, 0, show(all));
  assert.equal(all.stdout, `[pod/${name}/wait-for-db] waited\n[pod/${name}/seed] seeded\n[pod/${name}/api] api up\n`);
  const bad = await runpod(['logs', name, '-c', 'nope']);
  assert.equal(bad.code, 1, show(bad));
  assert.match(bad.stderr, /container nope not found in pod default\/\S+; its containers: api; its init containers: wait-for-db, seed/, show(bad));
  const none = await runpod(['logs']);
  assert.equal(none.code, 2, show(none));
  assert.match(none.stderr, /^runpod: logs of which pod\? give one \(name, namespace\/name, or kind\/name such as job\/migrate\), or -l <selector>/, show(none));
});

test("logs job/X reads the Job's newest attempt and says which pod; --exit-code-from a Job's container needs no --wait completed", async (t) => {
  const claim = 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: marks}\nspec:\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Mi}}\n---\n';
  const job = (name: string, backoffLimit: number, script: string): string => `apiVersion: batch/v1
kind: Job
metadata: {name: ${name}}
spec:
  backoffLimit: ${backoffLimit}
  template:
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 0
      containers:
      - name: main
        image: ${busybox}
        command: [sh, -c, '${script}']
        volumeMounts: [{name: marks, mountPath: /marks}]
      volumes: [{name: marks, persistentVolumeClaim: {claimName: marks}}]
`;
  // The attempts count themselves in the claim they share: the first fails with 3, the second succeeds.
  const w = keyedWorkspace(t, 'logs-job', {
    'flaky.yaml': claim + job('flaky', 1, 'n=$(ls /marks | wc -l); touch /marks/$n; echo "attempt $n"; [ $n -ge 1 ] || exit 3'),
    'doomed.yaml': claim + job('doomed', 0, 'echo doomed; exit 4'),
  });
  const flaky = await w.run('--exit-code-from', 'main', w.file('flaky.yaml'));
  assert.equal(flaky.code, 0, `the newest attempt's code, not the first one's 3\n${show(flaky)}`);
  const logs = await w.run('logs', 'job/flaky');
  assert.equal(logs.code, 0, show(logs));
  assert.equal(logs.stdout, 'attempt 1\n');
  assert.match(logs.stderr, /^Found 2 pods, using pod\/flaky-\S+ \(the newest attempt\)\n$/, show(logs));
  const doomed = await w.run('--exit-code-from', 'main', w.file('doomed.yaml'));
  assert.equal(doomed.code, 4, show(doomed));
  assert.match(doomed.stderr, /container main of pod default\/doomed-\S+ exited with code 4 \(--exit-code-from\)/, show(doomed));
});

test("gc --project looks at that key's leftovers only (a dry run on the shared engine: nothing is removed)", async (t) => {
  const done =
    'apiVersion: v1\nkind: Pod\nmetadata: {name: once}\nspec:\n  restartPolicy: Never\n  terminationGracePeriodSeconds: 0\n  containers: [{name: main, image: ' +
    busybox +
    ', command: [sh, -c, "exit 0"]}]\n';
  const a = keyedWorkspace(t, 'gc-key', { 'pod.yaml': done });
  const b = keyedWorkspace(t, 'gc-key', { 'pod.yaml': done });
  for (const w of [a, b]) {
    const r = await w.run('--wait', 'completed', w.file('pod.yaml'));
    assert.equal(r.code, 0, show(r));
  }
  const policy = ['--dry-run', '--min-age', '0s', '--max-per-container', '0'];
  const keyed = await a.run('gc', ...policy);
  assert.equal(keyed.code, 0, show(keyed));
  assert.match(keyed.stdout, new RegExp(`would remove container k8s_main_once_default\\.${a.key}_`), show(keyed));
  assert.doesNotMatch(keyed.stdout, new RegExp(b.key), show(keyed));
  // Without a key, gc is the host's: both.
  const all = await runpod(['gc', ...policy], { env: { RUNPOD_PROJECT: undefined } });
  assert.equal(all.code, 0, show(all));
  for (const w of [a, b]) assert.match(all.stdout, new RegExp(`would remove container k8s_main_once_default\\.${w.key}_`), show(all));
});
