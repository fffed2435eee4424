// argv -> typed options -> the command's function. No engine calls, no rendering decisions.
import yargs, { type Argv } from 'yargs';
import { RunpodError, UsageError } from '../errors.js';
import type { CommandContext } from '../commands/context.js';
import type { OutputFormat } from '../report/output.js';
import type { WaitMode } from '../wait/strategies/index.js';
import { parseDuration } from './duration.js';
import { looksLikeCommand, suggestCommand } from './suggest.js';
import { fromToken, listOf, stdinToken } from './words.js';
import { kustomizeInput } from '../input/kustomize/input.js';
import { version } from '../version.js';
import { defaultCrashLoopLimit } from '../wait/crashLoop.js';
import { completionFor, filenameOption, hostOption, operateCommands, projectOf, projectOption, selectorOf, selectorOption } from './operate.js';
import type { PullOverride } from '../plan/types.js';

export { version };

function duration(flag: string) {
  return (v: unknown): number | undefined => {
    if (v === undefined) return undefined;
    const ms = parseDuration(String(v));
    if (ms === undefined || ms < 0) throw new UsageError(`--${flag} ${String(v)}: expected a duration such as 500ms, 90s, 5m or 1h30m`);
    return ms;
  };
}

function nonNegativeInteger(flag: string) {
  return (v: unknown): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${flag} ${String(v)}: expected a whole number, 0 or more`);
    return n;
  };
}

/** The options every command has; they may also come before the command's name (commandFirst). */
const commonOptions = {
  namespace: { alias: 'n', type: 'string', default: 'default', describe: 'namespace for pods whose manifest names none' },
  host: hostOption,
  project: projectOption,
  quiet: { alias: 'q', type: 'boolean', default: false, describe: 'print only failures, warnings and the result (no progress, no notes about the input)' },
  verbose: { alias: 'v', type: 'boolean', default: false, describe: 'print every action and check' },
} as const;

const common = (y: Argv) => y.options(commonOptions);

const runOptions = (y: Argv) =>
  common(y)
    .positional('manifests', { type: 'string', array: true, describe: 'files, directories (every *.yaml/*.yml/*.json) or - for stdin' })
    .option('filename', filenameOption)
    .option('kustomize', kustomizeOption)
    .option('wait', { choices: ['running', 'ready', 'completed', 'none'] as const, describe: 'what to wait for (default: running; ready for a run with -- <command>)' })
    .option('timeout', { type: 'string', describe: 'overall deadline, e.g. 90s, 5m (default: none)', coerce: duration('timeout') })
    .option('retries', { type: 'number', default: 10, describe: 'checks after the first (kubelet runOnceMaxRetries)', coerce: nonNegativeInteger('retries') })
    .option('retry-delay', { type: 'string', default: '1s', describe: 'first delay between checks', coerce: duration('retry-delay') })
    .option('backoff', { type: 'number', default: 2, describe: 'delay factor per retry' })
    .option('max-delay', { type: 'string', default: '30s', describe: 'cap on one delay', coerce: duration('max-delay') })
    .option('crash-loop-limit', {
      type: 'number',
      default: defaultCrashLoopLimit,
      describe: 'restarts in a row without coming up that fail a pod (0: never; README "Crash loops")',
      coerce: nonNegativeInteger('crash-loop-limit'),
    })
    .option('settle', { type: 'string', default: '100ms', describe: 'time up before a container counts as running', coerce: duration('settle') })
    .option('pull', { choices: ['always', 'missing', 'never'] as const, describe: "override each container's imagePullPolicy" })
    .option('infra-image', { type: 'string', describe: "infra container image (default: runpod's own, built locally)" })
    .option('dry-run', { type: 'boolean', default: false, describe: 'validate and print the plan; change nothing' })
    .option('output', { alias: 'o', choices: ['text', 'json', 'yaml', 'env'] as const, default: 'text' as const, describe: 'result format on stdout (env: export lines for eval)' })
    .option('publish-all', { type: 'boolean', default: false, describe: 'publish every container port on a host port the engine chooses' })
    .option('prune', { type: 'boolean', default: false, describe: 'then take down every other runpod pod from the same file or directory' })
    .option('prune-all', { type: 'boolean', default: false, describe: 'then take down every other runpod pod' })
    .option('keep', { type: 'boolean', default: false, describe: 'with -- <command>: leave the pods up after it' })
    .option('keep-claims', { type: 'boolean', default: false, describe: 'with -- <command>: take the pods down but keep their claims (data) for the next run under the key' })
    .option('replace', { type: 'boolean', default: false, describe: 'take each pod down first and run it afresh (a finished one-shot pod runs again)' })
    .option('skip-kind', skipKindOption)
    .option('from-cronjob', { type: 'string', describe: "run this CronJob's job template once, as the Job <name>-manual (may repeat)" })
    .option('seccomp-profile-root', seccompRootOption)
    .option('exit-code-from', { type: 'string', describe: "a Job's container, or with --wait completed or -- <command> any: exit with its exit code ([pod/]container)" })
    .epilogue(runEpilogue);

/** The manifests given as arguments, with -f and with -k (a kustomization's directory), in that order. */
const manifestsOf = (a: { manifests?: unknown; filename?: unknown; kustomize?: unknown }): string[] => [
  ...fromToken(a.manifests ?? []),
  ...fromToken(listOf(a.filename)),
  ...listOf(a.kustomize).map(kustomizeInput),
];

/** -k DIR, as kubectl apply -k: a kustomization, rendered by runpod (may be repeated). */
export const kustomizeOption = { alias: 'k', type: 'string', describe: 'a kustomization directory, rendered by runpod itself (as kubectl -k; may be repeated)' } as const;

/**
 * run … -- <command> [args...]: everything after the first "--" is the command, exactly as given (yargs would
 * turn "007" into 7). Checked here, before anything touches the engine.
 */
function scopedOptions(
  argv: string[],
  a: { keep: boolean; 'keep-claims': boolean; output: string; 'dry-run': boolean },
): { command: string[]; keep: boolean; keepClaims?: boolean } | undefined {
  const dashDash = argv.indexOf('--');
  if (dashDash < 0) {
    if (a.keep) throw new UsageError('--keep applies to a run with a command: runpod run <manifest...> --keep -- <command...>');
    // A run without a command keeps its claims anyway, as a cluster does; only a scoped run removes them.
    if (a['keep-claims'])
      throw new UsageError('--keep-claims applies to a run with a command (which removes its claims at its end): runpod run <manifest...> --keep-claims -- <command...>');
    if (a.output === 'env' && a['dry-run']) throw new UsageError('-o env prints the addresses of running pods; --dry-run runs none');
    return undefined;
  }
  const command = argv.slice(dashDash + 1);
  if (command.length === 0) throw new UsageError('nothing after "--": give the command to run, e.g. runpod pod.yaml -- npm test');
  // stdout belongs to the command; the pods' account is on stderr and the addresses are in its environment.
  if (a.output !== 'text') throw new UsageError(`-o ${a.output} cannot share stdout with the command; the command gets the RUNPOD_* variables in its environment`);
  return { command, keep: a.keep, ...(a['keep-claims'] ? { keepClaims: true } : {}) };
}

/** --seccomp-profile-root, for run and validate: where Localhost seccomp profiles are read (on this machine). */
const seccompRootOption = { type: 'string', describe: 'directory of Localhost seccomp profiles (default /var/lib/kubelet/seccomp, as the kubelet)' } as const;
const seccompRootOf = (v: unknown): { seccompProfileRoot?: string } => (typeof v === 'string' ? { seccompProfileRoot: v } : {});

/** --skip-kind, for run and validate: documents of that kind are skipped with a warning instead of refused. */
// Not an array option: yargs would take the manifests after it as more kinds. Repeated, yargs gives an array; each
// may be a comma list, as kubectl's list flags are (--skip-kind NetworkPolicy,Ingress).
const skipKindOption = { type: 'string', describe: 'skip documents of these kinds (e.g. NetworkPolicy,Ingress) with a warning; may repeat' } as const;
const skipKindsOf = (v: unknown): { skipKinds?: string[] } => {
  if (v === undefined) return {};
  const kinds = listOf(v)
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (kinds.length === 0) throw new UsageError('--skip-kind: give a kind, or a comma list of kinds (--skip-kind NetworkPolicy,Ingress)');
  return { skipKinds: kinds };
};

/** What a command that reads manifests cannot do without. */
function needManifests(list: string[]): string[] {
  if (list.length === 0) throw new UsageError('nothing to act on: give a manifest (file, directory or -), as an argument or with -f; see runpod --help');
  return list;
}

/**
 * What `runpod --help` and `runpod run --help` say after the options (the run is the default command, whose
 * options the first shows): the form of a run with a command, and the exit codes (README's table).
 */
const runEpilogue = [
  'With a command: runpod [run] <manifest...> [flags] -- <command> [args...]',
  '  brings the pods up (isolated under a key of their own, waiting for ready), runs the command on the host with',
  '  RUNPOD_* variables for the pods and Services, takes the pods down (--keep leaves them), exits with its code.',
  '',
  'Exit codes:',
  '  0        every pod reached the wait condition (each workload by its kind: a Job completed)',
  '  1        a pod or workload failed; a named pod does not exist',
  '  2        usage or manifest error; nothing on the engine was touched',
  '  3        the engine is unreachable or failed a request',
  '  124      --timeout passed first',
  '  130/143  interrupted by SIGINT/SIGTERM',
  "  141      stdout's reader went away (runpod status | head -1), as SIGPIPE ends kubectl",
  "  other    with -- <command>: the command's own code; exec: the command's, or 125 when runpod failed first",
  '',
  'README.md has every flag, the supported fields and examples.',
].join('\n');

/** Every command's name (and alias), for the options given before it. */
const commandNames = new Set(['run', 'down', 'validate', 'kustomize', 'systemd', 'status', 'ps', 'logs', 'exec', 'stats', 'gc', 'completion']);
/** The spellings of the common options, each with whether a value follows it. */
const commonFlags = new Map<string, boolean>(
  Object.entries(commonOptions).flatMap(([name, o]) => {
    const takesValue = o.type === 'string';
    return [[`--${name}`, takesValue], ...('alias' in o ? [[`-${o.alias}`, takesValue] as const] : [])];
  }),
);

/**
 * `runpod -n ci down pod.yaml` as `runpod down -n ci pod.yaml`: options every command has may come before the
 * command's name, as with kubectl and docker (yargs would take the name for a manifest of the default command).
 * Anything else before it leaves the arguments as they are.
 */
export function commandFirst(args: readonly string[]): string[] {
  let i = 0;
  while (i < args.length) {
    const a = args[i]!;
    // --namespace=ci carries its value; -n ci and --namespace ci are followed by it.
    const inline = a.startsWith('--') && a.includes('=');
    const takesValue = commonFlags.get(inline ? a.slice(0, a.indexOf('=')) : a);
    if (takesValue === undefined || (inline && !takesValue)) break;
    i += takesValue && !inline ? 2 : 1;
  }
  if (i === 0 || i >= args.length || !commandNames.has(args[i]!)) return [...args];
  return [args[i]!, ...args.slice(0, i), ...args.slice(i + 1)];
}

/**
 * `runpod get pods`: the default command would read "get" as a manifest and fail on a missing file. A first word
 * that is no command, no file and no directory, and reads like a word, is a usage error that names the command
 * meant (kubectl's and docker's words included).
 */
async function refuseUnknownCommand(args: readonly string[]): Promise<void> {
  const first = args[0];
  if (first === undefined || commandNames.has(first) || !looksLikeCommand(first)) return;
  const { stat } = await import('node:fs/promises');
  if (
    await stat(first).then(
      () => true,
      () => false,
    )
  )
    return;
  const meant = suggestCommand(first, commandNames);
  throw new UsageError(
    `"${first}" is neither a command nor a manifest file or directory${meant !== undefined ? `: did you mean runpod ${meant}?` : ''} (commands: ${[...commandNames].join(', ')}; see runpod --help)`,
  );
}

/** exec's options, each with whether a value follows it (kubectl exec's, and those every command has). */
const execFlags = new Map<string, boolean>([
  ['-c', true],
  ['--container', true],
  ['-i', false],
  ['--stdin', false],
  ['-t', false],
  ['--tty', false],
  ['-it', false],
  ['-ti', false],
  ['-h', false],
  ['--help', false],
  ...commonFlags,
]);

/**
 * `runpod exec POD [-c C] CMD ARGS…` as kubectl exec reads it: options up to the pod and the command's first word
 * are runpod's, everything from that word on is the command's (so `exec web sh -c 'ls'` does not take -c for a
 * container). Given as a "--" before the command, which the exec command reads.
 */
export function execCommandWords(args: readonly string[]): string[] {
  if (args[0] !== 'exec') return [...args];
  let positionals = 0;
  for (let i = 1; i < args.length; i++) {
    const a = args[i]!;
    // A "--" before the command's first word already marks where it starts; one after it is the command's own.
    if (a === '--') return [...args];
    if (a.startsWith('-') && a !== '-') {
      const inline = a.startsWith('--') && a.includes('=');
      if (execFlags.get(a) === true && !inline) i++;
      continue;
    }
    positionals++;
    // The pod is the first word; the command starts at the second.
    if (positionals === 2) return [...args.slice(0, i), '--', ...args.slice(i)];
  }
  return [...args];
}

export async function runCli(argv: string[], ctx: CommandContext): Promise<number> {
  let exitCode = 0;
  const words = execCommandWords(commandFirst(argv));
  const dashDash = words.indexOf('--');
  const args = words.map((a, i) => (a === '-' && (dashDash < 0 || i < dashDash) ? stdinToken : a));
  await refuseUnknownCommand(args);
  const setExit = (code: number): void => {
    exitCode = code;
  };
  const cli = yargs(args)
    .scriptName('runpod')
    .usage('$0 [run] <manifest...>  run Kubernetes manifests (Pods, Deployments, StatefulSets, Jobs …) on a Docker engine and wait until they run');
  addRunCommand(cli, argv, ctx, setExit);
  addDownCommand(cli, ctx, setExit);
  addValidateCommand(cli, ctx, setExit);
  addKustomizeCommand(cli, ctx, setExit);
  addSystemdCommand(cli, ctx, setExit);
  await cli
    .command(operateCommands(ctx, setExit, words))
    // Hidden: the completion scripts of `runpod completion bash|zsh` call runpod --get-yargs-completions.
    .completion('__complete', false, await completionFor(argv.includes('--get-yargs-completions') ? argv.slice(argv.indexOf('--get-yargs-completions') + 1) : undefined, ctx.env))
    .example([
      ['$0 k8s/', 'bring up a folder and wait until every container runs'],
      ['$0 --wait completed job.yaml', 'a one-shot job: exit 0 when it exited 0'],
      ['$0 --publish-all --timeout 2m services/ -- npm test', "services up (ready), the tests on the host, all down: the tests' exit code"],
      ['$0 down k8s/', 'take down what the folder made'],
    ])
    .demandCommand(1, 'give a manifest: runpod <manifest...>')
    .strict()
    .version(version)
    .help()
    .alias('h', 'help')
    .wrap(Math.min(110, process.stdout.columns || 110))
    .fail((msg, err) => {
      // An option's own check (coerce) throws a UsageError, which yargs hands on wrapped in its YError with the
      // same message: the user's mistake, exit 2, not runpod's.
      if (err?.name === 'YError' && !(err instanceof RunpodError)) throw new UsageError(`${err.message}; see runpod --help`);
      if (err) throw err;
      // yargs' wording for a missing positional does not say which; every command takes manifests or pods.
      if (/^Not enough non-option arguments/.test(msg)) throw new UsageError(`nothing to act on: give a manifest (file, directory or -) or a pod name; see runpod --help`);
      throw new UsageError(`${msg}; see runpod --help`);
    })
    .parseAsync();
  return exitCode;
}

/** run (the default command): bring the pods and workloads up and wait for them. */
function addRunCommand(cli: Argv, argv: string[], ctx: CommandContext, setExit: (code: number) => void): void {
  cli.command(['run [manifests..]', '$0 [manifests..]'], 'run pods and workloads and wait for them (default command)', runOptions, async (a) => {
    if ((a.backoff as number) < 1 || !Number.isFinite(a.backoff)) throw new UsageError(`--backoff ${a.backoff}: expected a factor of 1 or more`);
    if (a.prune && a['prune-all']) throw new UsageError('--prune and --prune-all: give one (--prune-all already includes --prune)');
    const scoped = scopedOptions(argv, a);
    const manifests = needManifests(manifestsOf(a));
    // A command run against the pods should find them ready, not merely started (a database still starting).
    const wait = (a.wait ?? (scoped ? 'ready' : 'running')) as WaitMode;
    // Whether --wait allows it depends on whose container it is (a Job's is always awaited): checked once loaded.
    const exitCodeFrom = a['exit-code-from'];
    const { runCommand } = await import('../commands/run.js');
    setExit(
      await runCommand(
        {
          manifests,
          wait,
          ...(a.timeout !== undefined ? { timeoutMs: a.timeout as number } : {}),
          retries: a.retries as number,
          retryDelayMs: a['retry-delay'] as number,
          backoff: a.backoff as number,
          maxDelayMs: a['max-delay'] as number,
          settleMs: a.settle as number,
          crashLoopLimit: a['crash-loop-limit'] as number,
          ...(a.pull !== undefined ? { pull: a.pull as PullOverride } : {}),
          ...(a['infra-image'] !== undefined ? { infraImage: a['infra-image'] } : {}),
          namespace: a.namespace,
          dryRun: a['dry-run'],
          output: a.output as OutputFormat,
          quiet: a.quiet,
          verbose: a.verbose,
          ...(a.host !== undefined ? { host: a.host } : {}),
          ...projectOf(a.project, ctx.env),
          ...(a['publish-all'] ? { publishAll: true } : {}),
          ...(a['prune-all'] ? { prune: 'all' as const } : a.prune ? { prune: 'source' as const } : {}),
          ...(scoped ? { scoped } : {}),
          ...(a.replace ? { replace: true } : {}),
          ...(exitCodeFrom !== undefined ? { exitCodeFrom } : {}),
          ...skipKindsOf(a['skip-kind']),
          ...(a['from-cronjob'] !== undefined ? { fromCronJobs: listOf(a['from-cronjob']) } : {}),
          ...seccompRootOf(a['seccomp-profile-root']),
        },
        ctx,
      ),
    );
  });
}

/** down: stop and remove pods. */
function addDownCommand(cli: Argv, ctx: CommandContext, setExit: (code: number) => void): void {
  cli.command(
    'down [targets..]',
    'stop and remove pods (by manifest, name / namespace/name, kind/name, -l, or --all)',
    (y) =>
      common(y)
        .positional('targets', { type: 'string', array: true, describe: 'manifests, or pod names' })
        .option('filename', filenameOption)
        .option('kustomize', kustomizeOption)
        .option('selector', selectorOption)
        .option('grace', { type: 'string', describe: "override each pod's terminationGracePeriodSeconds (the whole pod's budget)", coerce: duration('grace') })
        .option('all', { type: 'boolean', default: false, describe: 'every pod runpod manages, in every namespace (under --project: every pod of that key)' })
        .option('delete-claims', {
          type: 'boolean',
          default: false,
          describe: 'also remove the claims (persistentVolumeClaim volumes) the pods mounted; kept by default, as on a cluster',
        })
        .option('output', {
          alias: 'o',
          choices: ['text', 'json', 'yaml'] as const,
          default: 'text' as const,
          describe: 'text, or one DownResult document (how each container was stopped)',
        }),
    async (a) => {
      const { downCommand } = await import('../commands/down.js');
      setExit(
        await downCommand(
          {
            targets: [...fromToken(a.targets ?? []), ...fromToken(listOf(a.filename)), ...listOf(a.kustomize).map(kustomizeInput)],
            ...selectorOf(a.selector),
            all: a.all,
            ...(a['delete-claims'] ? { deleteClaims: true } : {}),
            namespace: a.namespace,
            ...(a.grace !== undefined ? { graceSeconds: Math.ceil((a.grace as number) / 1000) } : {}),
            quiet: a.quiet,
            verbose: a.verbose,
            output: a.output,
            ...(a.host !== undefined ? { host: a.host } : {}),
            ...projectOf(a.project, ctx.env),
          },
          ctx,
        ),
      );
    },
  );
}

/** validate: check manifests offline. */
function addValidateCommand(cli: Argv, ctx: CommandContext, setExit: (code: number) => void): void {
  cli.command(
    'validate [manifests..]',
    'check manifests offline; no engine needed',
    (y) =>
      common(y)
        // Accepted, as options every command has may come before its name, but unused: validate asks no engine.
        .hide('host')
        .hide('project')
        .hide('verbose')
        .positional('manifests', { type: 'string', array: true })
        .option('filename', filenameOption)
        .option('kustomize', kustomizeOption)
        .option('skip-kind', skipKindOption)
        .option('from-cronjob', { type: 'string', describe: "check this CronJob's job template as the Job run --from-cronjob would run" })
        .option('seccomp-profile-root', seccompRootOption),
    async (a) => {
      const { validateCommand } = await import('../commands/validate.js');
      setExit(
        await validateCommand(
          {
            manifests: needManifests(manifestsOf(a)),
            namespace: a.namespace,
            quiet: a.quiet,
            ...skipKindsOf(a['skip-kind']),
            ...(a['from-cronjob'] !== undefined ? { fromCronJobs: listOf(a['from-cronjob']) } : {}),
            ...seccompRootOf(a['seccomp-profile-root']),
          },
          ctx,
        ),
      );
    },
  );
}

/** kustomize: print what a kustomization renders to. */
function addKustomizeCommand(cli: Argv, ctx: CommandContext, setExit: (code: number) => void): void {
  cli.command(
    'kustomize <dir>',
    'print the objects a kustomization renders to, as kubectl kustomize prints them (Secrets included); no kubectl needed',
    (y) => y.positional('dir', { type: 'string', demandOption: true, describe: 'the directory of a kustomization' }),
    async (a) => {
      const { kustomizeCommand } = await import('../commands/kustomize.js');
      setExit(await kustomizeCommand({ dir: String(a.dir) }, ctx));
    },
  );
}

/** systemd: print or install a unit that brings the pods up at boot. */
function addSystemdCommand(cli: Argv, ctx: CommandContext, setExit: (code: number) => void): void {
  cli.command(
    'systemd [manifests..]',
    'print a systemd unit that brings the pods up at every boot and engine start (--install writes it)',
    (y) =>
      common(y)
        // Written into the unit's command lines, not used to reach an engine now.
        .option('host', { ...hostOption, describe: "the engine the unit's commands use (as Environment=DOCKER_HOST)" })
        .option('project', { ...projectOption, describe: "the isolation key the unit's commands run under (default: $RUNPOD_PROJECT; none)" })
        .option('quiet', { ...commonOptions.quiet, describe: 'no notes about the input; with --install, print nothing' })
        .hide('verbose')
        .positional('manifests', { type: 'string', array: true, describe: 'files or directories (made absolute in the unit)' })
        .option('filename', filenameOption)
        .option('kustomize', kustomizeOption)
        .option('wait', { choices: ['running', 'ready', 'completed', 'none'] as const, default: 'running' as const, describe: "what the unit's run waits for" })
        .option('timeout', { type: 'string', default: '5m', describe: "the unit's run deadline (systemd's TimeoutStartSec is 30s more)", coerce: duration('timeout') })
        .option('skip-kind', skipKindOption)
        .option('name', { type: 'string', describe: 'unit name (default: runpod-<manifest>.service)' })
        .option('runpod', { type: 'string', describe: 'the runpod the unit runs (default: the one running now)' })
        .option('install', { type: 'boolean', default: false, describe: 'write the unit into --unit-dir instead of printing it' })
        .option('unit-dir', { type: 'string', default: '/etc/systemd/system', describe: 'where --install writes the unit' }),
    async (a) => {
      const { systemdCommand } = await import('../commands/systemd.js');
      setExit(
        await systemdCommand(
          {
            manifests: needManifests(manifestsOf(a)),
            wait: a.wait as WaitMode,
            timeoutMs: a.timeout as number,
            namespace: a.namespace,
            ...projectOf(a.project, ctx.env),
            ...(a.host !== undefined ? { host: a.host } : {}),
            ...skipKindsOf(a['skip-kind']),
            ...(a.name !== undefined ? { name: a.name } : {}),
            ...(a.runpod !== undefined ? { runpod: a.runpod } : {}),
            install: a.install,
            unitDir: a['unit-dir'],
            quiet: a.quiet,
          },
          ctx,
        ),
      );
    },
  );
}
