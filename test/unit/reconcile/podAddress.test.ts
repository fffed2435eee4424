// A pod's IP that the engine changed under its infra container (an engine restart, a reboot): the values of
// status.podIP its running containers were created with are stale, and the container is replaced, as the kubelet's
// new sandbox after a node reboot would give its containers the new address (reconcile/podAddress.ts, decide.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LoadedPod } from '../../../src/manifest/types.js';
import { translatePod } from '../../../src/plan/translate.js';
import { runtimeRef } from '../../../src/plan/runtime.js';
import { decidePodActions, syncActions } from '../../../src/reconcile/decide.js';
import { groupPod, type ObservedContainer } from '../../../src/reconcile/observe.js';
import { stalePodIP } from '../../../src/reconcile/podAddress.js';

const ip = runtimeRef('status.podIP');

describe('stalePodIP', () => {
  const cases: [string, string[], string[], string | undefined, string | undefined][] = [
    ['the same address: not stale', [`POD_IP=${ip}`], ['PATH=/bin', 'POD_IP=10.0.0.2'], '10.0.0.2', undefined],
    ['another address: stale', [`POD_IP=${ip}`], ['POD_IP=10.0.0.2'], '10.0.0.5', 'POD_IP'],
    ['expanded into a URL', [`URL=http://${ip}:8080/`], ['URL=http://10.0.0.2:8080/'], '10.0.0.5', 'URL'],
    ['beside another engine-time value: not judged', [`BOTH=${ip}/${runtimeRef('status.hostIP')}`], ['BOTH=10.0.0.2/10.0.0.1'], '10.0.0.5', undefined],
    ['no address known (host network)', [`POD_IP=${ip}`], ['POD_IP=10.0.0.2'], undefined, undefined],
    ['no such variable in the instance', [`POD_IP=${ip}`], ['OTHER=1'], '10.0.0.5', undefined],
    ['plain values are not looked at', ['A=1'], ['A=2'], '10.0.0.5', undefined],
  ];
  for (const [what, planned, seen, infra, want] of cases) it(what, () => assert.equal(stalePodIP(planned, seen, infra), want));
});

describe('decide: a running container holding an old pod IP is replaced', () => {
  const loaded = {
    pod: {
      metadata: { name: 'web', namespace: 'default' },
      spec: { containers: [{ name: 'a', image: 'busybox:1', imagePullPolicy: 'IfNotPresent', env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }] }] },
    },
    source: { file: '<stdin>' },
    line: 1,
  } as unknown as LoadedPod;
  const plan = translatePod(loaded, { infraImage: 'pause:test' });
  const base = {
    dockerName: 'x',
    attempt: 0,
    podUid: plan.uid,
    state: 'running',
    exitCode: 0,
    oomKilled: false,
    error: '',
    startedAt: 2_000,
    restartCount: 0,
    image: 'busybox:1',
    imageId: 'sha256:x',
  };
  const infra = (address: string): ObservedContainer => ({
    ...base,
    id: 'pod',
    name: 'POD',
    hash: plan.hash,
    startedAt: 1_000,
    engineRestartPolicy: 'unless-stopped',
    ip: address,
  });
  const app: ObservedContainer = { ...base, id: 'a', name: 'a', hash: plan.containers[0]!.hash, engineRestartPolicy: 'always', env: ['PATH=/bin', 'POD_IP=10.0.0.2'] };
  it('the address it was made with: nothing to do', () => assert.deepEqual(syncActions(decidePodActions(plan, groupPod([infra('10.0.0.2'), app]))), []));
  it('the infra container came back with another: replaced, saying why', () => {
    const actions = syncActions(decidePodActions(plan, groupPod([infra('10.0.0.7'), app])));
    assert.deepEqual(
      actions.map((a) => a.kind),
      ['remove', 'create'],
    );
    assert.match(actions[0]!.reason, /the pod's IP is now 10\.0\.0\.7 .* its POD_IP \(status\.podIP\) holds the old one/);
  });
});
