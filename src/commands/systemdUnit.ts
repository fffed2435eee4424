// The systemd service unit `runpod systemd` writes for a set of manifests, after the shape of Podman quadlet's
// `.kube` units: start runs the pods (`runpod run`, waiting, bounded). Unlike quadlet's, its stop does not take them
// down: a reboot or an engine restart is a node reboot, not a redeploy (the engine stops the containers and brings
// them back by their restart policies, completed ones stay completed, volumes keep their data; the next start repairs
// and applies the manifests). Taking the pods down is `runpod down`, on purpose.
// Pure: the same spec gives the same text; reading manifests, finding the program and writing files is the
// command's job (systemd.ts).
import type { WaitMode } from '../wait/strategies/index.js';
import { shellLine } from '../report/env.js';

export interface UnitSpec {
  /** The words that start runpod, absolute: [node, script] or [single executable]. */
  runpod: readonly string[];
  /** Absolute manifest paths (files or directories), in the order given. */
  manifests: readonly string[];
  wait: WaitMode;
  timeoutMs: number;
  /** Passed through as -n when the manifests name no namespace. */
  namespace?: string;
  project?: string;
  skipKinds?: readonly string[];
  /** The engine address, from --host or DOCKER_HOST. */
  dockerHost?: string;
  /**
   * The other variables that choose and reach the engine, as the docker CLI reads them (DOCKER_TLS_VERIFY,
   * DOCKER_CERT_PATH, DOCKER_CONTEXT, DOCKER_CONFIG …), in order: a unit starts with none of the caller's.
   */
  engineEnv?: readonly (readonly [string, string])[];
}

/** Seconds runpod's own --timeout leaves for Node's start and the final report before systemd gives up on it. */
export const startMarginSeconds = 30;
/**
 * systemd.service(5) Restart=: a failed start is tried again after RestartSec. The default start limit (5 starts
 * within 10 s, DefaultStartLimitIntervalSec/DefaultStartLimitBurst in systemd-system.conf(5)) is never reached at
 * one start per 10 s or more, so a pod whose image is still being loaded at boot is retried until it comes up.
 */
export const restartSeconds = 10;

// systemd.unit(5): unit names are at most 255 characters (UNIT_NAME_MAX) of [A-Za-z0-9:_.\-], with
// "\" only in \xNN escapes.
const unitNameMax = 255;
const plainUnitChar = /[A-Za-z0-9:_.-]/;

/**
 * A string as systemd-escape(1) writes it into a unit name: every character outside [A-Za-z0-9:_.] becomes \xNN
 * (each byte of its UTF-8), and "/" becomes "-". Unlike systemd-escape, "-" stays as it is: these names are not
 * paths to be turned back (systemd-escape --unescape), and "runpod-web-and-client.service" reads as the pod's name.
 */
export function escapeUnitWord(word: string): string {
  let out = '';
  for (const ch of word) {
    if (ch === '/') out += '-';
    else if (plainUnitChar.test(ch)) out += ch;
    else for (const byte of new TextEncoder().encode(ch)) out += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}

/** The stem of a manifest's name: web.yaml → web, k8s/ → k8s. */
export function manifestStem(manifestPath: string): string {
  const base = manifestPath.replace(/\/+$/, '').split('/').pop() ?? '';
  return base.replace(/\.(ya?ml|json)$/i, '');
}

/**
 * The unit's name: `runpod-<manifest stem>.service`, `runpod-<project>-<stem>.service` under an isolation key (two
 * keys never share a unit, as they never share a pod), or --name as given (".service" added when missing).
 * Returns the name, or why it cannot be one.
 */
export function unitName(o: { name?: string; manifests: readonly string[]; project?: string }): { name: string } | { problem: string } {
  let name: string;
  if (o.name !== undefined) {
    name = o.name.endsWith('.service') ? o.name : `${o.name}.service`;
    const stem = name.slice(0, -'.service'.length);
    // systemd.unit(5): a unit name is a prefix of [A-Za-z0-9:_.\-] characters (or \xNN escapes) and a suffix.
    if (stem === '' || !/^(?:[A-Za-z0-9:_.-]|\\x[0-9a-f]{2})+$/.test(stem) || stem.includes('@')) {
      return { problem: `--name ${o.name}: not a systemd unit name (letters, digits, ":", "_", ".", "-"; no "@", which makes a template)` };
    }
  } else {
    if (o.manifests.length !== 1) {
      return { problem: `${o.manifests.length} manifests give no single name for the unit: name it with --name, e.g. --name runpod-${manifestStem(o.manifests[0] ?? 'pods')}` };
    }
    const stem = escapeUnitWord(manifestStem(o.manifests[0]!));
    if (stem === '') return { problem: `${o.manifests[0]}: no name can be made of it for the unit: give --name` };
    name = `runpod-${o.project !== undefined ? `${o.project}-` : ''}${stem}.service`;
  }
  if (name.length > unitNameMax) return { problem: `unit name ${name} is ${name.length} characters, over systemd's ${unitNameMax}: give a shorter --name` };
  return { name };
}

/**
 * One word of an Exec*= command line, written so systemd reads it back unchanged (systemd.service(5) "Command
 * lines"): "%" starts a specifier and is doubled everywhere; "$" starts a variable in the arguments and is doubled
 * there, but not in the executable's path, which is not expanded (systemd 252 looked for "a$$b" when given it); a word
 * with spaces, quotes, backslashes or ";" (a command separator on its own) is double-quoted with C escapes for '"'
 * and "\". The executable's path may not hold quotes or backslashes at all (executableProblem).
 */
export function execWord(word: string, executable = false): string {
  const escaped = executable ? word.replace(/%/g, '%%') : word.replace(/%/g, '%%').replace(/\$/g, '$$$$');
  if (escaped !== '' && /^[A-Za-z0-9_@%+=:,./$-]+$/.test(escaped)) return escaped;
  return `"${escaped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * Why a path cannot be the executable of an Exec*= line, if it cannot: systemd 252 refuses an executable name
 * holding a quote or a backslash ("Executable name contains special characters"), however it is escaped.
 */
export function executableProblem(file: string): string | undefined {
  return /["'\\]|[\x00-\x1f\x7f]/.test(file)
    ? `${file}: systemd refuses an executable path holding quotes, backslashes or control characters; install runpod where its path has none (e.g. /usr/local/bin/runpod) and give --runpod`
    : undefined;
}

/** A value of a setting that resolves specifiers (Description=, Environment=): "%" doubled. */
function settingValue(text: string): string {
  return text.replace(/%/g, '%%');
}

/** Go/kubectl duration for --timeout, in whole seconds when it is whole (runpod's parser reads both). */
export function durationWord(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/**
 * The words the unit runs at start (before quoting), and the `runpod down` that takes the pods down on purpose (not
 * run by the unit: a stop of the unit, at shutdown or with the engine, leaves the pods to the engine).
 */
export function unitCommands(spec: UnitSpec): { start: string[]; down: string[] } {
  const scope = [...(spec.namespace !== undefined ? ['-n', spec.namespace] : []), ...(spec.project !== undefined ? ['--project', spec.project] : [])];
  const skip = (spec.skipKinds ?? []).flatMap((k) => ['--skip-kind', k]);
  return {
    start: [...spec.runpod, 'run', '--wait', spec.wait, '--timeout', durationWord(spec.timeoutMs), ...scope, ...skip, ...spec.manifests],
    down: [...spec.runpod, 'down', ...scope, ...spec.manifests],
  };
}

/**
 * Is the engine the local docker.service? An engine reached over tcp:// or ssh:// is another machine's, and binding
 * to this one's docker.service would keep the pod from starting on a host that has none.
 */
export function engineIsLocal(dockerHost: string | undefined): boolean {
  return dockerHost === undefined || dockerHost === '' || dockerHost.startsWith('unix://') || dockerHost.startsWith('/');
}

const execLine = (words: readonly string[]): string => words.map((w, i) => execWord(w, i === 0)).join(' ');

export function unitText(spec: UnitSpec): string {
  const { start, down } = unitCommands(spec);
  const local = engineIsLocal(spec.dockerHost);
  const lines = [
    `# Written by runpod systemd: the pods of ${spec.manifests.join(', ')}, brought up at every boot and every start`,
    '# of the engine. Stopping the unit (a shutdown, an engine restart) leaves the pods to the engine, as a node keeps its',
    '# pods across a reboot: to take them down, disable the unit (systemctl disable --now <unit>), then run',
    `#   ${shellLine(down)}`,
    '# Regenerate it (runpod systemd --install) after moving a file.',
    '[Unit]',
    `Description=${settingValue(`runpod: ${spec.manifests.join(' ')}`)}`,
    // systemd.special(7): network-online.target is how a unit waits for the network to be configured (an engine,
    // a registry or hostPorts bound on an address need it); Wants= pulls it in, After= orders behind it.
    'Wants=network-online.target',
    ...(local
      ? [
          // systemd.unit(5): BindsTo= with After= on the same unit means this unit may only be active while
          // docker.service is: when the engine stops (or fails), the pods' unit is stopped with it (its stop runs
          // nothing: the engine stops the containers itself, each within its grace period, its StopTimeout), and a
          // restart of docker.service (by hand, or its own Restart=) restarts this unit too, as Requires= would.
          // Requires= alone would leave the unit "active" over an engine that died, and the engine restores the
          // pod's containers in no order (moby#11777): runpod run must come after it again, to repair them.
          'After=network-online.target docker.service',
          'BindsTo=docker.service',
        ]
      : ['After=network-online.target']),
    '',
    '[Service]',
    // systemd.service(5): Type=oneshot is up once ExecStart= has exited, so units ordered after this one start
    // when the pods have reached the wait; RemainAfterExit=yes keeps it active (so a start while it is up runs
    // nothing, and systemctl restart runs it again). No ExecStop=: the kubelet does not delete its pods when the
    // node shuts down, and a Job that completed must not run again at the next boot.
    // Restart=on-failure is allowed with oneshot since systemd 244 (systemd#13754; Debian 12 has 252; always and
    // on-success are still refused for oneshot): a run that failed (exit 1, 3, 124) is tried again, and runpod repairs what it left.
    'Type=oneshot',
    'RemainAfterExit=yes',
    // systemd.exec(5) Environment=: each assignment quoted as an Exec word, "%" doubled; "$" is not expanded here.
    ...[...(spec.dockerHost !== undefined && spec.dockerHost !== '' ? [['DOCKER_HOST', spec.dockerHost] as const] : []), ...(spec.engineEnv ?? [])].map(
      ([k, v]) => `Environment=${execWord(`${k}=${v}`, true)}`,
    ),
    `ExecStart=${execLine(start)}`,
    // systemd.service(5) TimeoutStartSec=: runpod's own --timeout ends the run first, with its report (exit 124);
    // systemd's is the backstop, a little later.
    `TimeoutStartSec=${Math.ceil(spec.timeoutMs / 1000) + startMarginSeconds}`,
    'Restart=on-failure',
    `RestartSec=${restartSeconds}`,
    // Exit 2 is a usage or manifest error (README "Exit codes"): no retry mends it.
    'RestartPreventExitStatus=2',
    '',
    '[Install]',
    // systemd.unit(5) WantedBy=: multi-user.target brings the pods up at boot; docker.service brings them up
    // whenever the engine is started again after it was stopped (BindsTo= stopped this unit with it).
    `WantedBy=multi-user.target${local ? ' docker.service' : ''}`,
  ];
  return `${lines.join('\n')}\n`;
}
