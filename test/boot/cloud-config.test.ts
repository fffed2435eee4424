// README's #cloud-config example, read from README itself so it cannot drift from what is checked: cloud-init's own
// schema check, runpod validate on the manifest it writes, and the unit its runcmd installs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';
import { repoRoot, runpod } from '../engine/harness.js';
import { cloudInitSchema, systemdVerify } from './tools.js';

interface CloudConfig {
  write_files?: { path: string; content: string }[];
  runcmd?: (string | string[])[];
}

function readmeCloudConfig(): string {
  const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/^```yaml\n(#cloud-config\n[\s\S]*?)^```$/gm)].map((m) => m[1]!);
  assert.equal(blocks.length, 1, 'README has one #cloud-config block');
  return blocks[0]!;
}

const tmpDir = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-cloud-'));

describe("README's cloud-config", () => {
  const text = readmeCloudConfig();
  const config = yaml.load(text) as CloudConfig;

  it('passes cloud-init schema', () => {
    const file = path.join(tmpDir(), 'user-data');
    fs.writeFileSync(file, text);
    const r = cloudInitSchema(file);
    assert.equal(r.code, 0, `${r.stdout}${r.stderr}`);
    assert.match(r.stdout, /Valid cloud-config/);
  });

  it('the check can fail: the same config with a write_files permissions number is refused', () => {
    const file = path.join(tmpDir(), 'user-data');
    fs.writeFileSync(file, text.replace("permissions: '0644'", 'permissions: 644'));
    assert.notEqual(text, text.replace("permissions: '0644'", 'permissions: 644'), 'the example sets permissions as a string');
    const r = cloudInitSchema(file);
    assert.notEqual(r.code, 0);
    assert.match(`${r.stdout}${r.stderr}`, /permissions/);
  });

  it('writes a manifest runpod validate accepts, and its runcmd installs and enables the unit runpod systemd makes for it', async () => {
    const runcmd = (config.runcmd ?? []).map((c) => (Array.isArray(c) ? c.map(String) : String(c).split(' ')));
    const install = runcmd.find((c) => c[0] === 'runpod' && c[1] === 'systemd');
    assert.ok(install, 'runcmd runs runpod systemd');
    assert.ok(install.includes('--install'));
    const manifestPath = install[install.length - 1]!;
    const written = (config.write_files ?? []).find((f) => f.path === manifestPath);
    assert.ok(written, `write_files writes ${manifestPath}, the manifest runcmd installs`);

    // The manifest where the machine would have it, under a directory of the test's own.
    const root = tmpDir();
    const local = path.join(root, manifestPath);
    fs.mkdirSync(path.dirname(local), { recursive: true });
    fs.writeFileSync(local, written.content);
    const valid = await runpod(['validate', local]);
    assert.equal(valid.code, 0, valid.stderr);

    // runcmd's own words, the manifest and unit directory moved under that root.
    const units = path.join(root, 'etc', 'systemd', 'system');
    fs.mkdirSync(units, { recursive: true });
    const r = await runpod([...install.slice(1, -1), '--unit-dir', units, local]);
    assert.equal(r.code, 0, r.stderr);
    const [unit] = fs.readdirSync(units);
    assert.ok(unit !== undefined);
    const enable = runcmd.find((c) => c[0] === 'systemctl' && c[1] === 'enable');
    assert.deepEqual(enable, ['systemctl', 'enable', '--now', unit], 'runcmd enables the unit that was written');
    assert.ok(runcmd.findIndex((c) => c.join(' ') === 'systemctl daemon-reload') < runcmd.indexOf(enable!), 'daemon-reload before enable');
    const v = systemdVerify(path.join(units, unit));
    assert.equal(v.code, 0, v.stderr);
  });
});
