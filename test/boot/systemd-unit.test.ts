// runpod systemd's units, checked by systemd's own `systemd-analyze verify` (Debian 12: systemd 252).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot, runpod } from '../engine/harness.js';
import { systemdVerify } from './tools.js';

const demo = path.join(repoRoot, 'manifests', 'web-and-client.yaml');
const tmpDir = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-systemd-'));

describe('runpod systemd: the unit passes systemd-analyze verify', () => {
  it('the demo manifest: printed unit, verified with the host docker.service', async () => {
    const r = await runpod(['systemd', demo]);
    assert.equal(r.code, 0, r.stderr);
    const dir = tmpDir();
    const file = path.join(dir, 'runpod-web-and-client.service');
    fs.writeFileSync(file, r.stdout);
    const v = systemdVerify(file);
    assert.equal(v.code, 0, v.stderr);
    assert.equal(v.stderr, '', 'no warning either');
    // It runs this very runpod: the node running it and bin/runpod, resolved.
    assert.match(r.stdout, new RegExp(`^ExecStart=${process.execPath} ${fs.realpathSync(path.join(repoRoot, 'bin', 'runpod'))} run --wait running --timeout 300s ${demo}$`, 'm'));
    // Its stop runs nothing: a shutdown or an engine restart leaves the pods to the engine, as a node reboot does.
    assert.doesNotMatch(r.stdout, /^ExecStop/m);
    assert.match(r.stdout, new RegExp(`^#   ${process.execPath} \\S+ down ${demo}$`, 'm'), 'how to take them down on purpose');
  });

  it('the validator can fail: the same unit with Restart=always (refused for oneshot) does not pass', async () => {
    const r = await runpod(['systemd', demo]);
    const file = path.join(tmpDir(), 'runpod-bad.service');
    fs.writeFileSync(file, r.stdout.replace('Restart=on-failure', 'Restart=always'));
    const v = systemdVerify(file);
    assert.notEqual(v.code, 0);
    assert.match(v.stderr, /Restart=/);
  });

  it('--install --unit-dir writes the printed unit and says what to run next', async () => {
    const dir = tmpDir();
    const printed = await runpod(['systemd', '--project', 'boot-1', demo]);
    const r = await runpod(['systemd', '--install', '--unit-dir', dir, '--project', 'boot-1', demo]);
    assert.equal(r.code, 0, r.stderr);
    const file = path.join(dir, 'runpod-boot-1-web-and-client.service');
    const runpodWords = `${process.execPath} ${fs.realpathSync(path.join(repoRoot, 'bin', 'runpod'))}`;
    assert.equal(
      r.stdout,
      `wrote ${file}\nnext: systemctl daemon-reload && systemctl enable --now runpod-boot-1-web-and-client.service\nto take the pods down for good: systemctl disable --now runpod-boot-1-web-and-client.service && ${runpodWords} down --project boot-1 ${demo}\n`,
    );
    assert.equal(fs.readFileSync(file, 'utf8'), printed.stdout);
    assert.deepEqual(fs.readdirSync(dir), ['runpod-boot-1-web-and-client.service'], 'no partial file left');
    assert.equal(systemdVerify(file).code, 0);
  });

  it('paths with spaces, "%" and "$": systemd finds the executable the unit names (it read the quoting back)', async () => {
    const dir = tmpDir();
    const odd = path.join(dir, 'run pod 50% $HOME');
    fs.mkdirSync(odd);
    fs.symlinkSync(path.join(repoRoot, 'bin', 'runpod'), path.join(odd, 'runpod'));
    const manifest = path.join(odd, 'web and client.yaml');
    fs.copyFileSync(demo, manifest);
    const units = path.join(dir, 'units');
    fs.mkdirSync(units);
    const r = await runpod(['systemd', '--install', '--unit-dir', units, '--runpod', path.join(odd, 'runpod'), manifest]);
    assert.equal(r.code, 0, r.stderr);
    const file = path.join(units, 'runpod-web\\x20and\\x20client.service');
    assert.ok(fs.existsSync(file), r.stdout);
    const v = systemdVerify(file);
    assert.equal(v.code, 0, v.stderr);
    assert.equal(v.stderr, '');
  });

  it('a manifest that does not validate, or does not exist, is exit 2 and no unit is written', async () => {
    const dir = tmpDir();
    const bad = path.join(dir, 'bad.yaml');
    fs.writeFileSync(bad, 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: bad\nspec:\n  containers:\n    - name: c\n');
    const units = path.join(dir, 'units');
    fs.mkdirSync(units);
    const r = await runpod(['systemd', '--install', '--unit-dir', units, bad]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /bad\.yaml:7 spec\.containers\[0\]\.image: required/);
    const missing = await runpod(['systemd', '--install', '--unit-dir', units, path.join(dir, 'nope.yaml')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /nope\.yaml: no such file or directory/);
    assert.deepEqual(fs.readdirSync(units), []);
  });

  it('stdin, two manifests without --name, a missing unit directory: exit 2, each saying what to do', async () => {
    const stdin = await runpod(['systemd', '-'], { input: fs.readFileSync(demo, 'utf8') });
    assert.equal(stdin.code, 2);
    assert.match(stdin.stderr, /must be files or directories; save stdin to a file first/);
    const two = await runpod(['systemd', demo, path.join(repoRoot, 'manifests', 'one-shot-job.yaml')]);
    assert.equal(two.code, 2);
    assert.match(two.stderr, /2 manifests give no single name for the unit: name it with --name/);
    const named = await runpod(['systemd', '--name', 'demo', demo, path.join(repoRoot, 'manifests', 'one-shot-job.yaml')]);
    assert.equal(named.code, 0, named.stderr);
    const noDir = await runpod(['systemd', '--install', '--unit-dir', path.join(tmpDir(), 'absent'), demo]);
    assert.equal(noDir.code, 2);
    assert.match(noDir.stderr, /absent: no such directory/);
  });
});
