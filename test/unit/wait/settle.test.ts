// A crash history asks for more proof before a container counts as running (wait/check.ts settleFor).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { maxCrashSettleMs, minCrashSettleMs, settleFor } from '../../../src/wait/check.js';

it('after a restart: at least a second, doubling per engine restart of the instance, up to 10 s; none, or a zero settle, is as given', () => {
  assert.equal(settleFor({ restartCount: 0 }, 100), 100);
  assert.equal(settleFor({ restartCount: 1 }, 100), minCrashSettleMs, 'above the 300 ms a crashed container was seen reading running on a busy engine');
  assert.equal(settleFor({ restartCount: 4 }, 100), 1600);
  assert.equal(settleFor({ restartCount: 12 }, 100), maxCrashSettleMs);
  assert.equal(settleFor({ restartCount: 1000 }, 100), maxCrashSettleMs);
  assert.equal(settleFor({ restartCount: 3 }, 0), 0, '--settle 0 asks for none');
  assert.equal(settleFor({ restartCount: 1 }, 30_000), 30_000, 'never below the settle asked for');
});
