// runpod's generated pause image on a real engine, driven with the docker CLI (independent of docker.ts):
// it stays up, exits 0 at once on SIGTERM and SIGINT although it is PID 1, and reaps orphans of a shared PID
// namespace. The arm64 program runs under qemu-user when qemu-aarch64-static is installed: qemu is then
// PID 1 and forwards signals and syscalls, so for arm64 this checks the program's logic and encodings,
// while the PID-1 signal rule is checked by the native amd64 program.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pauseImageChanges, pauseRootfsTar, type PauseArch } from '../../src/reconcile/pauseImage.js';
import { busybox, docker } from './harness.js';

const QEMU = '/usr/bin/qemu-aarch64-static';
const TEST_LABEL = 'app.kubernetes.io/managed-by=runpod-test';
/** Long enough that exit 137 can only mean the engine gave up and sent SIGKILL. */
const STOP_TIMEOUT_S = 30;

interface State {
  Status: string;
  Running: boolean;
  ExitCode: number;
}

function state(id: string): State {
  return JSON.parse(docker(['inspect', '--format', '{{json .State}}', id])) as State;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Containers this file created, removed by id whatever happens. */
function removeContainers(ids: string[]): void {
  if (ids.length > 0) docker(['rm', '-f', '-v', ...ids]);
  ids.length = 0;
}

/** State letters (R, S, Z …) of every process visible in a PID namespace, read from /proc/<pid>/stat. */
function parseProcStat(text: string): { pid: number; comm: string; state: string }[] {
  const procs: { pid: number; comm: string; state: string }[] = [];
  for (const line of text.split('\n')) {
    // "pid (comm) S ppid ...": comm may hold spaces or parentheses, so split at the last ')'.
    const m = /^(\d+) \((.*)\) (\S)/s.exec(line.trim());
    if (m?.[1] && m[2] !== undefined && m[3]) procs.push({ pid: Number(m[1]), comm: m[2], state: m[3] });
  }
  return procs;
}

/**
 * Join the PID namespace of `init` with a busybox container that leaves several orphans (they exit at
 * about the same time, so their SIGCHLDs coalesce), waits for them to exit, then lists every process.
 */
function orphanRun(initId: string, cleanup: string[]): { pid: number; comm: string; state: string }[] {
  const script = 'for i in 1 2 3 4 5; do (sleep 0.3 &); done; sleep 2; ' + 'for f in /proc/[0-9]*/stat; do cat "$f" 2>/dev/null; echo; done';
  const id = docker(['create', '--label', TEST_LABEL, '--pid', `container:${initId}`, busybox, 'sh', '-c', script]);
  cleanup.push(id);
  const out = docker(['start', '-a', id]);
  const procs = parseProcStat(out);
  assert.ok(
    procs.some((p) => p.pid === 1),
    `PID 1 is visible:\n${out}`,
  );
  return procs;
}

const haveBusybox = ((): boolean => {
  try {
    docker(['image', 'inspect', busybox]);
    return true;
  } catch {
    return false;
  }
})();

const arches: { arch: PauseArch; skip: string | false; runArgs: string[] }[] = [
  { arch: 'amd64', skip: false, runArgs: [] },
  {
    arch: 'arm64',
    skip: fs.existsSync(QEMU) ? false : `${QEMU} not installed (apt-get install qemu-user-static)`,
    // No binfmt_misc needed: qemu itself is the entrypoint, the image's /pause its argument.
    runArgs: ['-v', `${QEMU}:/qemu:ro`, '--entrypoint', '/qemu'],
  },
];

for (const { arch, skip, runArgs } of arches) {
  describe(`pause image (${arch})`, { skip }, () => {
    const tag = `runpod-test/pause:${arch}-${randomBytes(4).toString('hex')}`;
    let imageId = '';
    const containers: string[] = [];
    const cmd = arch === 'amd64' ? [] : ['/pause'];

    const runPause = (extra: string[] = []): string => {
      const id = docker(['run', '-d', '--label', TEST_LABEL, ...runArgs, ...extra, imageId, ...cmd]);
      containers.push(id);
      return id;
    };

    before(() => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-pause-'));
      try {
        const file = path.join(dir, 'rootfs.tar');
        fs.writeFileSync(file, pauseRootfsTar(arch));
        const changes = pauseImageChanges().flatMap((c) => ['--change', c]);
        imageId = docker(['import', ...changes, file, tag]);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    after(() => {
      try {
        removeContainers(containers);
      } finally {
        if (imageId) docker(['rmi', '-f', imageId]);
      }
    });

    test('the imported image has the entrypoint and label runpod asks for', () => {
      const config = JSON.parse(docker(['image', 'inspect', '--format', '{{json .Config}}', imageId])) as {
        Entrypoint: string[] | null;
        Labels: Record<string, string> | null;
      };
      assert.deepEqual(config.Entrypoint, ['/pause']);
      assert.equal(config.Labels?.['app.kubernetes.io/managed-by'], 'runpod');
    });

    test('stays running, and docker stop (SIGTERM) ends it with exit code 0, not SIGKILL', async (t) => {
      try {
        const id = runPause();
        await sleep(1000);
        assert.equal(state(id).Status, 'running', 'still running after a second');
        const started = Date.now();
        docker(['stop', '-t', String(STOP_TIMEOUT_S), id]);
        t.diagnostic(`docker stop took ${Date.now() - started} ms (grace period ${STOP_TIMEOUT_S} s)`);
        const s = state(id);
        assert.equal(s.Running, false);
        assert.equal(s.ExitCode, 0, 'exit 137 would mean it ignored SIGTERM and was killed');
      } finally {
        removeContainers(containers);
      }
    });

    test('SIGINT ends it with exit code 0', async () => {
      try {
        const id = runPause();
        await sleep(500);
        assert.equal(state(id).Status, 'running');
        docker(['kill', '-s', 'INT', id]);
        // docker wait prints the exit code once the container has stopped.
        assert.equal(docker(['wait', id]), '0');
        assert.equal(state(id).ExitCode, 0);
      } finally {
        removeContainers(containers);
      }
    });

    test('reaps orphans left in its shared PID namespace', { skip: !haveBusybox && `${busybox} missing: run scripts/engine-up.sh` }, async () => {
      try {
        const id = runPause();
        await sleep(500);
        const procs = orphanRun(id, containers);
        const zombies = procs.filter((p) => p.state === 'Z');
        assert.deepEqual(zombies, [], 'no zombie left');
        assert.equal(state(id).Status, 'running', 'reaping did not end it');
        docker(['stop', '-t', String(STOP_TIMEOUT_S), id]);
        assert.equal(state(id).ExitCode, 0);
      } finally {
        removeContainers(containers);
      }
    });
  });
}

// The reaping check must be able to fail: under an init that does not reap (busybox sleep), the same
// orphans stay zombies and the same listing shows them.
test('control: a non-reaping PID 1 leaves the orphans as zombies', { skip: !haveBusybox && `${busybox} missing` }, () => {
  const containers: string[] = [];
  try {
    const init = docker(['run', '-d', '--label', TEST_LABEL, busybox, 'sleep', '600']);
    containers.push(init);
    const zombies = orphanRun(init, containers).filter((p) => p.state === 'Z');
    assert.ok(zombies.length >= 1, 'the orphans became zombies');
  } finally {
    removeContainers(containers);
  }
});
