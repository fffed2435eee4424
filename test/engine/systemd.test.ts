// runpod systemd's unit, proven by running it (issue 15): the words of its ExecStart= and ExecStop= lines, read
// back as systemd reads them, are run as commands with the environment systemd gives a unit (its default PATH
// and the unit's Environment=, nothing of the caller's), under an isolation key of this test's own. Start brings
// the pod up, starts again repair it after the engine left a container exited (moby#11777: what a reboot or an
// engine restart does), and stop takes it down.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { execWords } from '../unit/support/execLine.js';
import { docker, uniqueName, removeEmptyNetworks } from './harness.js';
import { podFile, runpod, show, sleeper } from './run-helpers.js';

/** systemd.exec(5): the PATH of a system unit's processes (systemd's default; the unit sets no other). */
const unitPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Values of every `Key=` line of the unit. */
const settings = (unit: string, key: string): string[] => unit.split('\n').filter((l) => l.startsWith(`${key}=`)).map((l) => l.slice(key.length + 1));

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

/** The containers made under the key, with their pod-level name and state. */
function underKey(key: string): { name: string; container: string; state: string }[] {
  const out = docker(['ps', '-a', '--filter', `label=io.runpod.project=${key}`, '--format', '{{.Label "io.kubernetes.pod.name"}} {{.Label "io.kubernetes.container.name"}} {{.State}}']);
  return out.split('\n').filter((l) => l !== '').map((l) => {
    const [name, container, state] = l.split(' ');
    return { name: name!, container: container!, state: state! };
  }).sort((a, b) => (a.container + a.state < b.container + b.state ? -1 : a.container + a.state > b.container + b.state ? 1 : 0));
}

function removeKey(key: string): void {
  const ids = docker(['ps', '-aq', '--filter', `label=io.runpod.project=${key}`]);
  if (ids) docker(['rm', '-f', '-v', ...ids.split('\n')]);
  const volumes = docker(['volume', 'ls', '-q', '--filter', `label=io.runpod.project=${key}`]);
  if (volumes) docker(['volume', 'rm', '-f', ...volumes.split('\n')]);
  removeEmptyNetworks({ key });
}

test('the unit\'s ExecStart brings the pod up, again repairs it, ExecStop takes it down', async (t) => {
  const key = uniqueName('unit');
  const name = uniqueName('booted');
  t.after(() => removeKey(key));
  const file = podFile({ name, grace: 1, containers: [sleeper('app'), sleeper('side')] }, 'booted pod.yaml');
  t.after(() => fs.rmSync(path.dirname(file), { recursive: true, force: true }));

  const made = await runpod(['systemd', '--project', key, '--timeout', '2m', file]);
  assert.equal(made.code, 0, show(made));
  const unit = made.stdout;
  const [start] = settings(unit, 'ExecStart');
  const [stop] = settings(unit, 'ExecStop');
  assert.ok(start !== undefined && stop !== undefined, unit);
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
  assert.deepEqual(repaired.filter((c) => c.state === 'running').map((c) => c.container), ['POD', 'app', 'side']);

  // A start with nothing wrong changes nothing (every boot runs it).
  const before = docker(['ps', '-q', '--no-trunc', '--filter', `label=io.runpod.project=${key}`]).split('\n').sort();
  const unchanged = await runExecLine(start, environment);
  assert.equal(unchanged.code, 0, unchanged.stderr);
  assert.deepEqual(docker(['ps', '-q', '--no-trunc', '--filter', `label=io.runpod.project=${key}`]).split('\n').sort(), before);

  const down = await runExecLine(stop, environment);
  assert.equal(down.code, 0, `${down.stdout}\n${down.stderr}`);
  assert.deepEqual(underKey(key), [], 'ExecStop removed every container made under the key');
});
