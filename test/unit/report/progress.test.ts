// Progress lines for plain output (report/progress.ts): one line per change of a container's state, none when
// nothing changed, so a crash loop the engine runs shows in a CI log as it happens.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ObservedContainer } from '../../../src/reconcile/observe.js';
import { progressLines, waitingLine } from '../../../src/report/progress.js';
import type { PodCheck } from '../../../src/wait/podCheck.js';

const inst = (extra: Partial<ObservedContainer>): ObservedContainer => ({
  id: 'a'.repeat(64),
  dockerName: 'k8s_main',
  name: 'main',
  attempt: 0,
  hash: 'h',
  podUid: 'u',
  state: 'running',
  exitCode: 0,
  oomKilled: false,
  error: '',
  restartCount: 0,
  engineRestartPolicy: 'always',
  image: 'busybox:1',
  imageId: 'sha256:x',
  ...extra,
});
const check = (reason: string, c?: ObservedContainer, ok = false): PodCheck => ({
  ok,
  failed: false,
  containers: [{ name: 'main', ok, terminal: false, healthyRunning: false, reason, ...(c ? { instance: c } : {}) }],
});

describe('progressLines', () => {
  it('says a container started, then nothing while nothing changes, then each restart and exit', () => {
    let state = progressLines(new Map(), check('not created yet')).now;
    const steps: [PodCheck, string[]][] = [
      [check('running for 10ms, less than the settle time', inst({})), ['main: running, instance aaaaaaaaaaaa (attempt 0)']],
      [check('running for 90ms, less than the settle time', inst({})), []],
      [
        check('crash loop: exited with code 3, restarted 1 times', inst({ state: 'restarting', restartCount: 1, exitCode: 3 })),
        ['main: restarted by the engine (1 restart; crash loop: exited with code 3, restarted 1 times)'],
      ],
      [check('crash loop: exited with code 3, restarted 1 times', inst({ state: 'restarting', restartCount: 1, exitCode: 3 })), []],
      [check('exited with code 3', inst({ state: 'exited', restartCount: 1, exitCode: 3 })), ['main: exited with exit code 3']],
      [check('running', inst({ id: 'b'.repeat(64), attempt: 1 })), ['main: running, instance bbbbbbbbbbbb (attempt 1)']],
      [check('not ready: readiness probe (tcp :80) failed: refused', inst({ id: 'b'.repeat(64), attempt: 1 })), ['main: not ready: readiness probe (tcp :80) failed: refused']],
    ];
    for (const [c, want] of steps) {
      const r = progressLines(state, c);
      assert.deepEqual(r.lines, want);
      state = r.now;
    }
  });
  it('the heartbeat names what is awaited', () => {
    assert.equal(
      waitingLine(check('running for 10ms, less than the settle time', inst({})), 12_400),
      'still waiting after 12s for main: running for 10ms, less than the settle time',
    );
    assert.equal(waitingLine(undefined, 10_000), 'still waiting after 10s');
  });
});
