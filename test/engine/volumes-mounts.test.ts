// emptyDir, hostPath, subPath, readOnly and persistentVolumeClaim on the real engine, checked from inside the
// containers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { checkNothingLeftBehind, cleanupFile, dockerTry, podContainerIds, podContainers, podFile, podObject, runpod, show, sleeper, tempDir, type Obj } from './run-helpers.js';
import { cleanupPodAndVolumes, inPod, podVolumes } from './volumes-helpers.js';
import { uniqueName } from './harness.js';

checkNothingLeftBehind();

function withVolumes(pod: Obj, volumes: Obj[]): Obj {
  (pod.spec as Obj).volumes = volumes;
  return pod;
}

describe('emptyDir', () => {
  it("is shared by the pod's containers, kept across a re-run, tmpfs for medium Memory, removed by down", async (t) => {
    const name = uniqueName('vol-empty');
    cleanupPodAndVolumes(t, name);
    const pod = withVolumes(
      podObject({
        name,
        containers: [
          sleeper('writer', {
            volumeMounts: [
              { name: 'shared', mountPath: '/shared' },
              { name: 'mem', mountPath: '/mem' },
            ],
          }),
          sleeper('reader', {
            volumeMounts: [
              { name: 'shared', mountPath: '/data', readOnly: true },
              { name: 'shared', mountPath: '/sub', subPath: 'logs/app' },
            ],
          }),
        ],
      }),
      [
        { name: 'shared', emptyDir: {} },
        { name: 'mem', emptyDir: { medium: 'Memory', sizeLimit: '2Mi' } },
      ],
    );
    const file = podFile([pod]);
    cleanupFile(t, file);
    const r = await runpod([file]);
    assert.equal(r.code, 0, show(r));

    inPod(name, 'writer', 'echo hello > /shared/greeting && echo m > /mem/x');
    assert.equal(inPod(name, 'reader', 'cat /data/greeting'), 'hello\n');
    // An emptyDir is world-writable (0777), as the kubelet makes it.
    assert.match(inPod(name, 'writer', 'ls -ld /shared'), /^drwxrwxrwx /);
    // readOnly mount of the same volume.
    assert.match(inPod(name, 'reader', 'touch /data/x 2>&1 || true'), /Read-only file system/);
    // subPath: a directory inside the volume, created when missing.
    inPod(name, 'reader', 'echo line > /sub/app.log');
    assert.equal(inPod(name, 'writer', 'cat /shared/logs/app/app.log'), 'line\n');
    // medium: Memory is a tmpfs of sizeLimit.
    assert.match(inPod(name, 'writer', 'grep " /mem " /proc/mounts'), /^tmpfs \/mem tmpfs .*size=2048k/);

    // A re-run of the same pod changes nothing and keeps the data.
    const again = await runpod([file]);
    assert.equal(again.code, 0, show(again));
    assert.equal(inPod(name, 'reader', 'cat /data/greeting'), 'hello\n');
    assert.equal(inPod(name, 'writer', 'cat /mem/x'), 'm\n');

    // The two emptyDirs, and runpod's own termination-log volume (the containers' termination-message files).
    assert.equal(podVolumes(name).length, 3);
    const down = await runpod(['down', file]);
    assert.equal(down.code, 0, show(down));
    assert.deepEqual(podVolumes(name), []);
  });
});

describe('hostPath', () => {
  it('DirectoryOrCreate creates the directory; the container sees host files', async (t) => {
    const dir = tempDir(t);
    const target = path.join(dir, 'made', 'here');
    const name = uniqueName('vol-host');
    cleanupPodAndVolumes(t, name);
    const file = podFile([
      withVolumes(podObject({ name, containers: [sleeper('app', { volumeMounts: [{ name: 'h', mountPath: '/h' }] })] }), [
        { name: 'h', hostPath: { path: target, type: 'DirectoryOrCreate' } },
      ]),
    ]);
    cleanupFile(t, file);
    const r = await runpod([file]);
    assert.equal(r.code, 0, show(r));
    assert.ok(fs.statSync(target).isDirectory());
    inPod(name, 'app', 'echo from-pod > /h/f');
    assert.equal(fs.readFileSync(path.join(target, 'f'), 'utf8'), 'from-pod\n');
  });

  it('Directory that does not exist fails the pod (exit 1) with the reason', async (t) => {
    const dir = tempDir(t);
    const name = uniqueName('vol-hostmiss');
    cleanupPodAndVolumes(t, name);
    const file = podFile([
      withVolumes(podObject({ name, containers: [sleeper('app', { volumeMounts: [{ name: 'h', mountPath: '/h' }] })] }), [
        { name: 'h', hostPath: { path: path.join(dir, 'absent'), type: 'Directory' } },
      ]),
    ]);
    cleanupFile(t, file);
    const r = await runpod(['--retries', '1', '--retry-delay', '100ms', file]);
    assert.equal(r.code, 1, show(r));
    assert.match(r.stderr, /hostPath type check failed for volume "h": .*absent does not exist/);
    assert.equal(fs.existsSync(path.join(dir, 'absent')), false);
    // The app container was never created.
    assert.equal(podContainers(name).has('app'), false);
  });
});

describe('persistentVolumeClaim', () => {
  it('is a named engine volume that outlives the pod: down keeps it, the next pod sees the data', async (t) => {
    const name = uniqueName('vol-pvc');
    const claim = `${name}-data`;
    const engineVolume = `pvc_default_${claim}`;
    cleanupPodAndVolumes(t, name, 'default', [engineVolume]);
    const file = podFile([
      withVolumes(podObject({ name, containers: [sleeper('db', { volumeMounts: [{ name: 'data', mountPath: '/var/lib/db' }] })] }), [
        { name: 'data', persistentVolumeClaim: { claimName: claim } },
      ]),
    ]);
    cleanupFile(t, file);
    assert.equal((await runpod([file])).code, 0);
    inPod(name, 'db', 'echo row > /var/lib/db/table');
    const down = await runpod(['down', file]);
    assert.equal(down.code, 0, show(down));
    assert.deepEqual(podContainerIds(name), []);
    assert.equal(dockerTry(['volume', 'inspect', engineVolume]).status, 0, 'the claim volume survives down');
    assert.equal((await runpod([file])).code, 0);
    assert.equal(inPod(name, 'db', 'cat /var/lib/db/table'), 'row\n');
  });
});
