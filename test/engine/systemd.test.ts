// runpod systemd's unit, proven by running it (issues 15 and 23): the words of its ExecStart= line, read back as
// systemd reads them, are run as commands with the environment systemd gives a unit (its default PATH and the unit's
// Environment=, nothing of the caller's), under an isolation key of this test's own. Start brings the pod up, starts
// again repair it after the engine left a container exited (moby#11777: what a reboot or an engine restart does), and
// the down line the unit names takes it down on purpose. Its stop runs nothing: across a real restart of an engine of
// the test's own (what a reboot does to it), a completed Job stays completed and an emptyDir and a claim keep their
// files, and a changed manifest is applied.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { execWords } from '../unit/support/execLine.js';
import { execWord } from '../../src/commands/systemdUnit.js';
import os from 'node:os';
import { docker, repoRoot, uniqueName, removeEmptyNetworks } from './harness.js';
import { startEngine2 } from './engine2.js';
import { podFile, runpod, show, sleeper } from './run-helpers.js';

/** systemd.exec(5): the PATH of a system unit's processes (systemd's default; the unit sets no other). */
const unitPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Values of every `Key=` line of the unit. */
const settings = (unit: string, key: string): string[] =>
  unit
    .split('\n')
    .filter((l) => l.startsWith(`${key}=`))
    .map((l) => l.slice(key.length + 1));

/** Run one Exec*= line as systemd would: its words exactly, the unit's environment only. */
function runExecLine(line: string, environment: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [file, ...args] = execWords(line);
  const env: Record<string, string> = { PATH: unitPath };
  for (const assignment of environment.flatMap(execWords)) {
    const eq = assignment.indexOf('=');
    env[assignment.slice(0, eq)] = assignment.slice(eq + 1);
  }
  return new Promise((resolve, reject) => {
    const child = spawn(file!, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A shell line (the unit's comment says how to take the pods down), in the unit's environment. */
function runShellLine(line: string, environment: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runExecLine(`/bin/sh -c ${execWord(line)}`, environment);
}

/** The containers made under the key, with their pod-level name and state. */
function underKey(key: string): { name: string; container: string; state: string }[] {
  const out = docker([
    'ps',
    '-a',
    '--filter',
    `label=io.runpod.project=${key}`,
    '--format',
    '{{.Label "io.kubernetes.pod.name"}} {{.Label "io.kubernetes.container.name"}} {{.State}}',
  ]);
  return out
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const [name, container, state] = l.split(' ');
      return { name: name!, container: container!, state: state! };
    })
    .sort((a, b) => (a.container + a.state < b.container + b.state ? -1 : a.container + a.state > b.container + b.state ? 1 : 0));
}

function removeKey(key: string): void {
  const ids = docker(['ps', '-aq', '--filter', `label=io.runpod.project=${key}`]);
  if (ids) docker(['rm', '-f', '-v', ...ids.split('\n')]);
  const volumes = docker(['volume', 'ls', '-q', '--filter', `label=io.runpod.project=${key}`]);
  if (volumes) docker(['volume', 'rm', '-f', ...volumes.split('\n')]);
  removeEmptyNetworks({ key });
}

test("the unit's ExecStart brings the pod up, again repairs it; its stop runs nothing, and the down line it names takes the pod down", async (t) => {
  const key = uniqueName('unit');
  const name = uniqueName('booted');
  t.after(() => removeKey(key));
  const file = podFile({ name, grace: 1, containers: [sleeper('app'), sleeper('side')] }, 'booted pod.yaml');
  t.after(() => fs.rmSync(path.dirname(file), { recursive: true, force: true }));

  const made = await runpod(['systemd', '--project', key, '--timeout', '2m', file]);
  assert.equal(made.code, 0, show(made));
  const unit = made.stdout;
  const [start] = settings(unit, 'ExecStart');
  assert.ok(start !== undefined, unit);
  assert.deepEqual(settings(unit, 'ExecStop'), [], 'stopping the unit leaves the pods to the engine');
  const downLine = /^# {3}(.*\bdown\b.*)$/m.exec(unit)?.[1];
  assert.ok(downLine !== undefined, unit);
  const environment = settings(unit, 'Environment');
  // The key travels in the unit's own words, never through the caller's environment.
  const words = execWords(start);
  assert.equal(words[words.indexOf('--project') + 1], key);
  assert.equal(words.at(-1), file, 'the manifest path (with its space) is one word');

  const up = await runExecLine(start, environment);
  assert.equal(up.code, 0, `${up.stdout}\n${up.stderr}`);
  assert.deepEqual(underKey(key), [
    { name, container: 'POD', state: 'running' },
    { name, container: 'app', state: 'running' },
    { name, container: 'side', state: 'running' },
  ]);

  // What an engine restart leaves (moby#11777): an app container that could not rejoin the infra container stays
  // exited. The unit's next start (the next boot, or the restart of docker.service) makes the pod whole again.
  const appId = docker(['ps', '-q', '--filter', `label=io.runpod.project=${key}`, '--filter', 'label=io.kubernetes.container.name=app']);
  docker(['stop', '-t', '0', appId]);
  const again = await runExecLine(start, environment);
  assert.equal(again.code, 0, `${again.stdout}\n${again.stderr}`);
  const repaired = underKey(key);
  assert.deepEqual(
    repaired.filter((c) => c.state === 'running').map((c) => c.container),
    ['POD', 'app', 'side'],
  );

  // A start with nothing wrong changes nothing (every boot runs it).
  const before = docker(['ps', '-q', '--no-trunc', '--filter', `label=io.runpod.project=${key}`])
    .split('\n')
    .sort();
  const unchanged = await runExecLine(start, environment);
  assert.equal(unchanged.code, 0, unchanged.stderr);
  assert.deepEqual(
    docker(['ps', '-q', '--no-trunc', '--filter', `label=io.runpod.project=${key}`])
      .split('\n')
      .sort(),
    before,
  );

  // Taken down on purpose with the line the unit names (a shell line), in the unit's environment.
  const down = await runShellLine(downLine, environment);
  assert.equal(down.code, 0, `${down.stdout}\n${down.stderr}`);
  assert.deepEqual(underKey(key), [], 'the down line removed every container made under the key');
});

test("a reboot is a node reboot, not a redeploy: the unit's stop and start around an engine restart keep a completed Job completed, an emptyDir's and a claim's files, and apply a changed manifest", async (t) => {
  // An engine of the test's own: restarting it is what a reboot (or an engine upgrade) does to the pods.
  const engine = await startEngine2();
  t.after(() => engine.stop());
  const key = uniqueName('reboot');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-reboot-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const stack = path.join(dir, 'k8s');
  fs.cpSync(path.join(repoRoot, 'test', 'fixtures', 'stack'), stack, { recursive: true });

  const made = await runpod(['systemd', '--host', engine.socket, '--project', key, '--timeout', '3m', stack]);
  assert.equal(made.code, 0, show(made));
  const unit = made.stdout;
  const [start] = settings(unit, 'ExecStart');
  assert.ok(start !== undefined, unit);
  const environment = settings(unit, 'Environment');
  assert.deepEqual(environment, [`DOCKER_HOST=${engine.socket}`]);
  const inPod = (container: string, ...cmd: string[]): string => engine.docker(['exec', containerOf(container), ...cmd]);
  const containerOf = (container: string): string =>
    engine.docker(['ps', '-q', '--filter', `label=io.runpod.project=${key}`, '--filter', `label=io.kubernetes.container.name=${container}`]);
  const migrate = (): { id: string; state: string; exit: string }[] =>
    engine
      .docker([
        'ps',
        '-a',
        '--no-trunc',
        '--filter',
        `label=io.runpod.project=${key}`,
        '--filter',
        'label=io.kubernetes.container.name=migrate',
        '--format',
        '{{.ID}} {{.State}} {{.Status}}',
      ])
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [id, state, ...status] = l.split(' ');
        return { id: id!, state: state!, exit: status.join(' ').replace(/^Exited \((\d+)\).*$/, '$1') };
      });

  const up = await runExecLine(start, environment);
  assert.equal(up.code, 0, `${up.stdout}\n${up.stderr}`);
  const job = migrate();
  assert.equal(job.length, 1, JSON.stringify(job));
  assert.deepEqual([job[0]!.state, job[0]!.exit], ['exited', '0']);
  inPod('api', 'sh', '-c', 'echo from-before > /var/cache/api/kept');
  inPod('db', 'sh', '-c', 'echo from-before > /var/lib/db/kept');
  assert.equal(inPod('api', 'cat', '/tmp/index.html'), 'hello');

  // The reboot: the unit's stop commands (it has none: the pods are the engine's to stop), then the engine stops
  // (each container within its grace period) and starts again (bringing them back by their restart policies).
  for (const stop of settings(unit, 'ExecStop')) {
    const r = await runExecLine(stop, environment);
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  }
  await engine.restart();
  // Meanwhile the manifests changed: the next start applies them.
  const config = path.join(stack, '00-config.yaml');
  fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace('GREETING: hello', 'GREETING: hello-after-reboot'));

  const again = await runExecLine(start, environment);
  assert.equal(again.code, 0, `${again.stdout}\n${again.stderr}`);
  assert.match(again.stderr, /job\/migrate: completed \(1 of 1 succeeded\), in an earlier run; nothing runs again/, again.stderr);
  assert.deepEqual(migrate(), job, "the completed Job's pod is the same, exited 0: it did not run again");
  assert.equal(inPod('api', 'cat', '/var/cache/api/kept'), 'from-before', "the emptyDir's file survived");
  assert.equal(inPod('db', 'cat', '/var/lib/db/kept'), 'from-before', "the claim's file survived");
  assert.equal(inPod('api', 'cat', '/tmp/index.html'), 'hello-after-reboot', 'the changed manifest was applied');
  // The pod's IP is the one its infra container has now (the engine may have given it another).
  const apiPod = engine.docker(['inspect', '--format', '{{index .Config.Labels "io.kubernetes.pod.name"}}', containerOf('api')]);
  const infraIP = engine.docker([
    'inspect',
    '--format',
    '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}',
    engine.docker([
      'ps',
      '-q',
      '--filter',
      `label=io.runpod.project=${key}`,
      '--filter',
      `label=io.kubernetes.pod.name=${apiPod}`,
      '--filter',
      'label=io.kubernetes.container.name=POD',
    ]),
  ]);
  assert.equal(inPod('api', 'sh', '-c', 'echo $POD_IP'), infraIP);
  // And the start after that has nothing left to do.
  const dry = await runpod(['--host', engine.socket, '--project', key, '--dry-run', '-o', 'json', stack]);
  assert.equal(dry.code, 0, show(dry));
  for (const p of (JSON.parse(dry.stdout) as { pods: { plan: { pod: string }; actions: unknown[] }[] }).pods) assert.deepEqual(p.actions, [], p.plan.pod);
});
