// securityContext on a real engine, checked from inside the containers: users and groups, capabilities,
// no_new_privs, a read-only root filesystem, privileged, seccomp, and runAsNonRoot refused before the container
// is created. Each test uses its own pod and removes it, pass or fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uniqueName } from './harness.js';
import { busybox, checkNothingLeftBehind, cleanupFile, cleanupPod, docker, dockerTry, must, podContainers, podFile, podObject, runpod, show, sleeper } from './run-helpers.js';

checkNothingLeftBehind();

/** A field of /proc/self/status as the container's own shell sees it. */
function status(id: string, field: string): string {
  const line = docker(['exec', id, 'grep', `^${field}:`, '/proc/self/status']);
  return line.split(/\s+/)[1] ?? '';
}

test('privileged: the container is created privileged; it runs with every capability, or the engine says why it cannot', async (t) => {
  // This test machine's dockerd has no CAP_SYS_RESOURCE in its bounding set, and runc refuses a privileged container
  // there ("unable to apply caps: operation not permitted"); on a host with the full set the container runs.
  const name = uniqueName('sec-priv');
  cleanupPod(t, name);
  const file = podFile({ name, restartPolicy: 'Never', containers: [sleeper('root', { securityContext: { privileged: true } })] });
  cleanupFile(t, file);
  const r = await runpod(['--timeout', '60s', file]);
  const c = must(podContainers(name).get('root'), 'the privileged container');
  assert.equal(c.HostConfig.Privileged, true, 'created with HostConfig.Privileged');
  if (r.code === 0) {
    // Every capability the kernel has, and the host's devices.
    const last = Number(docker(['exec', c.Id, 'cat', '/proc/sys/kernel/cap_last_cap']).trim());
    assert.equal(BigInt(`0x${status(c.Id, 'CapEff')}`), (1n << BigInt(last + 1)) - 1n);
  } else {
    // A start the engine refuses is StartError; under restartPolicy Never the pod fails at once (exit 1).
    assert.equal(r.code, 1, show(r));
    assert.match(r.stderr, /container root .*\n(.*\n)*\s+.*unable to apply caps: operation not permitted.*StartError: restartPolicy Never/, show(r));
  }
});

test('pod and container securityContext: user, groups, no_new_privs, read-only root, capabilities', async (t) => {
  const name = uniqueName('sec-ctx');
  cleanupPod(t, name);
  const pod = podObject({
    name,
    containers: [
      // Inherits the pod's user, group and runAsNonRoot; overrides nothing.
      sleeper('user', { securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false } }),
      // Overrides the pod's user with root (and so needs runAsNonRoot false), keeps only NET_BIND_SERVICE.
      sleeper('caps', { securityContext: { runAsUser: 0, runAsNonRoot: false, capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } } }),
      // runAsGroup over the pod's, user from the pod.
      sleeper('group', { securityContext: { runAsGroup: 7000 } }),
    ],
  });
  (pod.spec as Record<string, unknown>).securityContext = {
    runAsUser: 1000,
    runAsGroup: 3000,
    runAsNonRoot: true,
    supplementalGroups: [4000],
    fsGroup: 5000,
  };
  const file = podFile([pod]);
  cleanupFile(t, file);

  const r = await runpod([file]);
  assert.equal(r.code, 0, show(r));
  const byName = podContainers(name);
  const id = (n: string): string => must(byName.get(n), n).Id;

  // runAsUser/runAsGroup from the pod; fsGroup and supplementalGroups as extra groups.
  assert.equal(docker(['exec', id('user'), 'id', '-u']), '1000');
  assert.equal(docker(['exec', id('user'), 'id', '-g']), '3000');
  assert.deepEqual(
    docker(['exec', id('user'), 'id', '-G'])
      .split(' ')
      .sort(),
    ['3000', '4000', '5000'],
  );
  // allowPrivilegeEscalation: false sets no_new_privs; readOnlyRootFilesystem refuses writes to /.
  assert.equal(status(id('user'), 'NoNewPrivs'), '1');
  const touch = dockerTry(['exec', id('user'), 'touch', '/written']);
  assert.notEqual(touch.status, 0);
  assert.match(touch.stderr, /Read-only file system/);
  // The other containers write to their root filesystem and may gain privileges.
  assert.equal(dockerTry(['exec', id('caps'), 'touch', '/written']).status, 0);
  assert.equal(status(id('caps'), 'NoNewPrivs'), '0');

  // Root with every capability dropped but NET_BIND_SERVICE (bit 10).
  assert.equal(docker(['exec', id('caps'), 'id', '-u']), '0');
  assert.equal(BigInt(`0x${status(id('caps'), 'CapEff')}`), 1n << 10n);

  // The container's runAsGroup wins over the pod's; the user is still the pod's.
  assert.equal(docker(['exec', id('group'), 'id', '-u']), '1000');
  assert.equal(docker(['exec', id('group'), 'id', '-g']), '7000');
});

test('seccompProfile: unset and RuntimeDefault filter, Unconfined does not', async (t) => {
  const name = uniqueName('sec-seccomp');
  cleanupPod(t, name);
  const file = podFile({
    name,
    containers: [
      sleeper('unset'),
      sleeper('default', { securityContext: { seccompProfile: { type: 'RuntimeDefault' } } }),
      sleeper('unconfined', { securityContext: { seccompProfile: { type: 'Unconfined' } } }),
    ],
  });
  cleanupFile(t, file);
  const r = await runpod([file]);
  assert.equal(r.code, 0, show(r));
  const byName = podContainers(name);
  // Seccomp: 2 is filter mode, 0 disabled.
  assert.equal(status(must(byName.get('unset'), 'unset').Id, 'Seccomp'), '2');
  assert.equal(status(must(byName.get('default'), 'default').Id, 'Seccomp'), '2');
  assert.equal(status(must(byName.get('unconfined'), 'unconfined').Id, 'Seccomp'), '0');
});

test("runAsNonRoot with an image that runs as root: exit 1 at once with the kubelet's reason, container not created", async (t) => {
  const name = uniqueName('sec-nonroot');
  cleanupPod(t, name);
  const file = podFile({ name, containers: [sleeper('app', { securityContext: { runAsNonRoot: true } })] });
  cleanupFile(t, file);
  const started = Date.now();
  const r = await runpod([file]);
  assert.equal(r.code, 1, show(r));
  assert.match(r.stderr, /container app has runAsNonRoot and image will run as root/);
  // Refused at once, not after the retry budget (the image will not change while runpod waits).
  assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started}ms`);
  assert.deepEqual([...podContainers(name).keys()], ['POD']);
});

test('runAsNonRoot with runAsUser 0: refused; with a non-root runAsUser: runs', async (t) => {
  const name = uniqueName('sec-nonroot0');
  cleanupPod(t, name);
  const file = podFile({ name, containers: [sleeper('app', { securityContext: { runAsNonRoot: true, runAsUser: 0 } })] });
  cleanupFile(t, file);
  const r = await runpod([file]);
  assert.equal(r.code, 1, show(r));
  assert.match(r.stderr, /runAsUser breaks non-root policy/);

  const ok = uniqueName('sec-nonroot-ok');
  cleanupPod(t, ok);
  const okFile = podFile({ name: ok, containers: [sleeper('app', { securityContext: { runAsNonRoot: true, runAsUser: 65534 } })] });
  cleanupFile(t, okFile);
  const r2 = await runpod([okFile]);
  assert.equal(r2.code, 0, show(r2));
  assert.equal(docker(['exec', must(podContainers(ok).get('app'), 'app').Id, 'id', '-un']), 'nobody');
});

test('an invalid security context is refused before the engine is touched (exit 2)', async (t) => {
  const name = uniqueName('sec-invalid');
  cleanupPod(t, name);
  const file = podFile({
    name,
    containers: [{ name: 'app', image: busybox, securityContext: { privileged: true, allowPrivilegeEscalation: false, capabilities: { add: ['CAP_NET_ADMIN'] } } }],
  });
  cleanupFile(t, file);
  const r = await runpod([file]);
  assert.equal(r.code, 2, show(r));
  assert.match(r.stderr, /allowPrivilegeEscalation: cannot set `allowPrivilegeEscalation` to false and `privileged` to true/);
  assert.match(r.stderr, /capabilities\.add\[0\]: write the capability without the CAP_ prefix/);
  assert.deepEqual([...podContainers(name).keys()], []);
});
