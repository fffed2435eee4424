// The validators the boot-integration tests run (scripts/tools-up.sh installs them): systemd-analyze and
// cloud-init, run as child processes on real files.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface ToolResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): ToolResult {
  const r = spawnSync(command, args, { encoding: 'utf8', env, timeout: 120_000 });
  if (r.error) throw new Error(`${command} could not run (${r.error.message}): run scripts/tools-up.sh, as npm test does`);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Where the host's package-installed units live: docker.service is looked up there as systemd would. */
const systemUnitDirs = ['/etc/systemd/system', '/usr/lib/systemd/system', '/lib/systemd/system'];

/**
 * `systemd-analyze verify` of a unit file, as systemd would load it on this host: the unit's directory first, then
 * the host's own unit directories (SYSTEMD_UNIT_PATH with a trailing ":" appends the defaults). verify needs no
 * running systemd; it checks every setting, that each Exec*= executable exists, and that the units the unit depends
 * on exist. docker.service comes from the host's Docker package; only a host without one (an engine installed
 * another way) gets a stand-in in the unit's directory, so the check still covers everything else.
 */
export function systemdVerify(unitFile: string): ToolResult {
  const dir = path.dirname(unitFile);
  if (!systemUnitDirs.some((d) => fs.existsSync(path.join(d, 'docker.service'))) && !fs.existsSync(path.join(dir, 'docker.service'))) {
    fs.writeFileSync(path.join(dir, 'docker.service'), '[Unit]\nDescription=stand-in for the Docker engine (this host has no docker.service)\n[Service]\nExecStart=/bin/true\n');
  }
  return run('systemd-analyze', ['verify', '--man=no', unitFile], { ...process.env, SYSTEMD_UNIT_PATH: `${dir}:`, SYSTEMD_LOG_COLOR: '0' });
}

export function cloudInitSchema(configFile: string): ToolResult {
  return run('cloud-init', ['schema', '--config-file', configFile]);
}
