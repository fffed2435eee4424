// runpod systemd: a systemd service unit for manifests (after Podman quadlet's .kube units), printed, or written into
// the unit directory with --install. The manifests are checked as `runpod validate` checks them first, so a
// manifest that a run would refuse never becomes a unit that fails at every boot. No engine is needed.
import { constants } from 'node:fs';
import { access, realpath, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ExitCode, UsageError } from '../errors.js';
import { loadManifests } from '../manifest/load.js';
import { kustomizationFile, kustomizeDirOf } from '../input/kustomize/input.js';
import { unmatchedSkipKinds } from '../manifest/validate.js';
import type { WaitMode } from '../wait/strategies/index.js';
import type { CommandContext } from './context.js';
import { executableProblem, unitCommands, unitName, unitText, type UnitSpec } from './systemdUnit.js';
import { shellLine } from '../report/env.js';

export interface SystemdOptions {
  manifests: string[];
  wait: WaitMode;
  timeoutMs: number;
  /** -n as given; passed on only when it is not the default. */
  namespace: string;
  project?: string;
  host?: string;
  skipKinds?: string[];
  /** --name: the unit's name instead of runpod-<manifest>.service. */
  name?: string;
  /** --runpod: the program the unit runs instead of the one running now. */
  runpod?: string;
  install: boolean;
  unitDir: string;
  quiet: boolean;
}

/**
 * The variables besides DOCKER_HOST that choose and reach the engine (README "Engines"), passed into the unit when
 * set; paths among them made absolute, as the unit runs in /.
 */
const engineVars: readonly { name: string; path: boolean }[] = [
  { name: 'DOCKER_TLS_VERIFY', path: false },
  { name: 'DOCKER_TLS', path: false },
  { name: 'DOCKER_CERT_PATH', path: true },
  { name: 'DOCKER_CONTEXT', path: false },
  { name: 'DOCKER_CONFIG', path: true },
];

/** /etc/systemd/system: the directory for units the administrator installs (systemd.unit(5) "Unit File Load Path"). */
export const defaultUnitDir = '/etc/systemd/system';

const executable = (file: string): Promise<boolean> =>
  access(file, constants.X_OK).then(
    () => true,
    () => false,
  );

/**
 * The words that start this runpod again, absolute. A single executable is itself. Otherwise the Node.js that runs
 * now and the script it runs (symlinks resolved, as npm links bin/runpod): bin/runpod's "#!/usr/bin/env node" would
 * look node up on the unit's PATH, which is systemd's default (systemd.exec(5) "Environment variables in spawned
 * processes") and may hold another Node.js than the one this was tried with (nvm, /usr/local).
 */
async function runpodWords(o: SystemdOptions, ctx: CommandContext): Promise<string[]> {
  const cwd = ctx.self?.cwd ?? '/';
  if (o.runpod !== undefined) {
    const file = path.resolve(cwd, o.runpod);
    if (!(await executable(file))) throw new UsageError(`--runpod ${o.runpod}: ${file} is not an executable file; give the path of the runpod the unit should run`);
    return [file];
  }
  const self = ctx.self;
  if (self === undefined) throw new UsageError('cannot tell which program is running: give --runpod PATH');
  const sea = await import('node:sea').then(
    (m) => m.isSea(),
    () => false,
  );
  if (sea || self.script === undefined) return [self.execPath];
  return [self.execPath, await realpath(path.resolve(cwd, self.script))];
}

/** A path systemd reads back as one word: no newline (a unit's line would end there). */
function oneLine(what: string, p: string): string {
  if (/[\n\r]/.test(p)) throw new UsageError(`${what} ${JSON.stringify(p)}: a path with a line break cannot be written into a unit; rename it`);
  return p;
}

export async function systemdCommand(o: SystemdOptions, ctx: CommandContext): Promise<number> {
  if (o.manifests.includes('-'))
    throw new UsageError('runpod systemd -: the unit reads its manifests at every boot, so they must be files or directories; save stdin to a file first');
  if (o.timeoutMs <= 0) throw new UsageError('--timeout 0: a unit needs a deadline for its start; give one such as 5m');
  const cwd = ctx.self?.cwd ?? '/';
  // -k DIR goes into the unit as the directory: a directory holding a kustomization is rendered as with -k.
  const manifests = o.manifests.map((m) => {
    const dir = kustomizeDirOf(m);
    if (dir === undefined) return oneLine('manifest', path.resolve(cwd, m));
    if (kustomizationFile(path.resolve(cwd, dir)) === undefined) throw new UsageError(`-k ${dir}: no kustomization.yaml, kustomization.yml or Kustomization in it`);
    return oneLine('manifest', path.resolve(cwd, dir));
  });
  // The same checks as `runpod validate` (and the start of every run): any problem is exit 2, and no unit is made.
  const loaded = await loadManifests(manifests, { defaultNamespace: o.namespace, ...(o.skipKinds ? { skipKinds: o.skipKinds } : {}) }, () =>
    Promise.reject(new UsageError('stdin is not read here')),
  );
  if (!o.quiet) {
    for (const w of loaded.warnings) ctx.stderr.write(`warning: ${w.line !== undefined ? `${w.file}:${w.line}` : w.file} ${w.path}: ${w.message}\n`);
    for (const n of unmatchedSkipKinds(o.skipKinds ?? [], loaded.skipped)) ctx.stderr.write(`warning: ${n}\n`);
  }

  const named = unitName({ manifests, ...(o.name !== undefined ? { name: o.name } : {}), ...(o.project !== undefined ? { project: o.project } : {}) });
  if ('problem' in named) throw new UsageError(named.problem);
  const dockerHost = o.host ?? ctx.env.DOCKER_HOST;
  const runpod = (await runpodWords(o, ctx)).map((w) => oneLine('program', w));
  const refused = executableProblem(runpod[0]!);
  if (refused !== undefined) throw new UsageError(refused);
  const spec: UnitSpec = {
    runpod,
    manifests,
    wait: o.wait,
    timeoutMs: o.timeoutMs,
    ...(o.namespace !== 'default' ? { namespace: o.namespace } : {}),
    ...(o.project !== undefined ? { project: o.project } : {}),
    ...(o.skipKinds !== undefined && o.skipKinds.length > 0 ? { skipKinds: o.skipKinds } : {}),
    ...(dockerHost !== undefined && dockerHost !== '' ? { dockerHost: oneLine('DOCKER_HOST', dockerHost) } : {}),
    engineEnv: engineVars.flatMap(({ name, path: isPath }) => {
      const v = ctx.env[name];
      return v === undefined || v === '' ? [] : [[name, oneLine(name, isPath ? path.resolve(cwd, v) : v)] as const];
    }),
  };
  const text = unitText(spec);
  if (!o.install) {
    ctx.stdout.write(text);
    return ExitCode.ok;
  }

  const dir = path.resolve(cwd, o.unitDir);
  const isDir = await stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir) throw new UsageError(`--unit-dir ${dir}: no such directory; systemd reads system units from ${defaultUnitDir} (give --unit-dir for another)`);
  const file = path.join(dir, named.name);
  // Written beside its place and renamed over it: systemd (a daemon-reload at any moment) never reads half a unit.
  const partial = `${file}.runpod-partial`;
  try {
    await writeFile(partial, text, { mode: 0o644 });
    await rename(partial, file);
  } catch (err) {
    throw new UsageError(`cannot write ${file}: ${err instanceof Error ? err.message : String(err)}; run as root, or give --unit-dir a directory you can write`);
  }
  if (!o.quiet) {
    ctx.stdout.write(`wrote ${file}\n`);
    ctx.stdout.write(`next: systemctl daemon-reload && systemctl enable --now ${named.name}\n`);
    // Stopping the unit leaves the pods (a reboot keeps them); taking them down is said once, here and in the unit.
    ctx.stdout.write(`to take the pods down for good: systemctl disable --now ${named.name} && ${shellLine(unitCommands(spec).down)}\n`);
  }
  return ExitCode.ok;
}
