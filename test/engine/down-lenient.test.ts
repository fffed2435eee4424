// down and status read a manifest only for its pods' names: a folder that also holds files `run` refuses (another
// kind, a pod with a field runpod refuses) still takes its good pod down, each refused file named on stderr.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { uniqueName } from './harness.js';
import { checkNothingLeftBehind, cleanupPod, podContainerIds, podObject, runpod, show, sleeper, tempDir, toYaml } from './run-helpers.js';

checkNothingLeftBehind();

test('down and status of a folder with refused files act on the pods they can name, and name the files skipped', async (t) => {
  const name = uniqueName('lenient');
  cleanupPod(t, name);
  const dir = tempDir(t);
  const good = path.join(dir, 'good.yaml');
  fs.writeFileSync(good, toYaml(podObject({ name, containers: [sleeper('main')] })));
  const up = await runpod(['--timeout', '60s', good]);
  assert.equal(up.code, 0, show(up));
  assert.notDeepEqual(podContainerIds(name), []);

  fs.writeFileSync(path.join(dir, 'deploy.yaml'), 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: web\n');
  const odd = podObject({ name: uniqueName('lenient-odd'), containers: [sleeper('main', { notAField: true })] });
  fs.writeFileSync(path.join(dir, 'odd.yaml'), toYaml(odd));
  const refused = await runpod(['--dry-run', dir]);
  assert.equal(refused.code, 2, `run refuses the folder\n${show(refused)}`);

  const status = await runpod(['status', '-o', 'json', dir]);
  // The pod of odd.yaml is named (only its name is read) but was never run: not found, exit 1, after the others.
  assert.equal(status.code, 1, show(status));
  const doc = JSON.parse(status.stdout) as { pods: { name: string }[] };
  assert.deepEqual(
    doc.pods.map((p) => p.name),
    [name],
    show(status),
  );
  assert.match(status.stderr, new RegExp(`^runpod: ${escapeRegex(path.join(dir, 'deploy.yaml'))}:2: kind Widget: .*; skipped$`, 'm'), show(status));

  const down = await runpod(['down', dir]);
  assert.equal(down.code, 0, show(down));
  assert.deepEqual(podContainerIds(name), [], 'the good pod is gone');
  assert.match(down.stdout, new RegExp(`^default/${name}: removed `, 'm'), show(down));
  assert.match(
    down.stderr,
    new RegExp(`^runpod: ${escapeRegex(path.join(dir, 'deploy.yaml'))}:2: kind Widget: not a Pod; runpod names no pods from it; skipped$`, 'm'),
    show(down),
  );

  // Nothing left to name: only the refused files, and the pod is gone from the engine.
  fs.rmSync(good);
  fs.rmSync(path.join(dir, 'odd.yaml'));
  const none = await runpod(['down', dir]);
  assert.equal(none.code, 2, show(none));
  assert.match(none.stderr, /no pod could be named from /, show(none));
});

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
