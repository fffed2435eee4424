// The commands that operate what runpod started (status, logs, exec, stats, gc, completion) as yargs command
// modules: argv -> typed options -> the command's function, loaded only when its command runs.
import type { Argv, CommandModule } from 'yargs';
import { UsageError } from '../errors.js';
import type { CommandContext } from '../commands/context.js';
import { projectEnvVar, projectProblem } from '../kube/project.js';
import { parseLabelSelector, type Selector } from '../kube/selector.js';
import { parseDuration } from './duration.js';
import { fromToken, listOf } from './words.js';
import { kustomizeInput } from '../input/kustomize/input.js';

type Args = Record<string, unknown>;

/** --host, as every command that reaches the engine has it. */
export const hostOption = { type: 'string', describe: 'engine address (else DOCKER_HOST, the Docker context, the default socket)' } as const;

/** --project, as every command that acts on pods has it. */
export const projectOption = { type: 'string', describe: `isolation key: only pods made under it (default: $${projectEnvVar}; none)` } as const;

/**
 * The isolation key: --project, else $RUNPOD_PROJECT (a CI job id, say), else none. A key that cannot be part of
 * engine names is a usage error naming where it came from.
 */
export function projectOf(flag: unknown, env: NodeJS.ProcessEnv): { project?: string } {
  const fromEnv = env[projectEnvVar];
  const [value, where] = typeof flag === 'string' ? [flag, '--project'] : fromEnv !== undefined && fromEnv !== '' ? [fromEnv, projectEnvVar] : [undefined, ''];
  if (value === undefined) return {};
  const problem = projectProblem(value);
  if (problem !== undefined) throw new UsageError(`${where === '--project' ? `--project ${value}` : `${where}=${value}`}: not an isolation key: ${problem}`);
  return { project: value };
}

/** -l, as kubectl's: pods whose labels match a selector (app=web,tier!=db, env in (a,b), !canary, gen>3). */
export const selectorOption = { alias: 'l', type: 'string', describe: "pods whose labels match, as kubectl's -l (app=web,tier!=db)" } as const;

/** -f FILE, as kubectl takes a manifest; the same as giving it as an argument (and may be repeated). */
// Not an array option: yargs would take the arguments after it as more files. Repeated, yargs gives an array.
export const filenameOption = { alias: 'f', type: 'string', describe: 'a manifest (as an argument; may be repeated)' } as const;

/** -l parsed (a bad selector is a usage error saying where). */
export function selectorOf(text: unknown): { selector?: Selector } {
  if (typeof text !== 'string') return {};
  // kubectl refuses an empty selector too: an unset variable in `down -l "$SEL"` must not mean every pod.
  if (text.trim() === '') throw new UsageError('-l "": an empty selector would select every pod; give a selector (app=web), or --all for every pod');
  return { selector: parseLabelSelector(text, (problem) => new UsageError(`-l "${text}": ${problem}`)) };
}

const engineOptions = <T>(y: Argv<T>) =>
  y
    .option('namespace', { alias: 'n', type: 'string', default: 'default', describe: 'namespace of a pod given by name alone' })
    .option('host', hostOption)
    .option('project', projectOption);

function durationMs(flag: string, v: unknown): number {
  const ms = parseDuration(String(v));
  if (ms === undefined || ms < 0) throw new UsageError(`--${flag} ${String(v)}: expected a duration such as 500ms, 90s, 5m or 1h30m`);
  return ms;
}

function integer(flag: string, v: unknown, min: number): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${flag} ${String(v)}: expected a whole number, ${min} or more`);
  return n;
}

const host = (a: Args): { host?: string } => (typeof a.host === 'string' ? { host: a.host } : {});
const str = (v: unknown): string => String(v);

/** The command modules; setExit receives each command's exit code. */
export function operateCommands(ctx: CommandContext, setExit: (code: number) => void, argv: string[]): CommandModule<object, Args>[] {
  const dashDash = argv.indexOf('--');
  return [
    {
      command: ['status [targets..]', 'ps [targets..]'],
      describe: 'show the pods runpod manages (all, or those of the given manifests or names)',
      builder: (y) =>
        engineOptions(y)
          .positional('targets', { type: 'string', array: true, describe: 'manifests, or pod names (name or namespace/name)' })
          .option('filename', filenameOption)
          .option('kustomize', { alias: 'k', type: 'string', describe: 'a kustomization directory, rendered by runpod (as kubectl -k; may be repeated)' })
          .option('selector', selectorOption)
          .option('output', { alias: 'o', choices: ['text', 'wide', 'json', 'yaml'] as const, default: 'text' as const, describe: 'table, wide table (images, container ids), or a document' }) as Argv<Args>,
      handler: async (a) => {
        const { statusCommand } = await import('../commands/status.js');
        setExit(
          await statusCommand(
            { targets: [...fromToken([...listOf(a.targets), ...listOf(a.filename)]), ...listOf(a.kustomize).map(kustomizeInput)], ...selectorOf(a.selector), namespace: str(a.namespace), output: a.output as 'text' | 'wide' | 'json' | 'yaml', ...host(a), ...projectOf(a.project, ctx.env) },
            ctx,
          ),
        );
      },
    },
    {
      command: 'logs [pod]',
      describe: "print a container's logs: stdout to stdout, stderr to stderr",
      builder: (y) =>
        engineOptions(y)
          .positional('pod', { type: 'string', describe: 'name or namespace/name' })
          .option('container', { alias: 'c', type: 'string', describe: 'container (may be left out when the pod has one)' })
          .option('selector', selectorOption)
          .option('tail', { type: 'string', describe: 'only the last n lines (-1: all)' })
          .option('follow', { alias: 'f', type: 'boolean', default: false, describe: 'keep printing until the container stops or Ctrl-C' })
          .option('previous', { alias: 'p', type: 'boolean', default: false, describe: 'the last dead instance of a restarted container' })
          .option('timestamps', { type: 'boolean', default: false, describe: 'prefix each line with its RFC 3339 time' })
          .option('since', { type: 'string', describe: 'only newer lines: a duration (10m) or an RFC 3339 time' })
          .option('all-containers', { type: 'boolean', default: false, describe: "every container's logs" })
          .option('prefix', { type: 'boolean', default: false, describe: 'prefix each line with [pod/<name>/<container>]' }) as Argv<Args>,
      handler: async (a) => {
        if (a['all-containers'] && a.container !== undefined) throw new UsageError('--all-containers and -c: give one');
        let since: { agoMs: number } | { atMs: number } | undefined;
        if (a.since !== undefined) {
          const ms = parseDuration(str(a.since));
          const at = Date.parse(str(a.since));
          if (ms !== undefined) since = { agoMs: ms };
          else if (!Number.isNaN(at) && /^\d{4}-\d\d-\d\d/.test(str(a.since))) since = { atMs: at };
          else throw new UsageError(`--since ${str(a.since)}: expected a duration (10m, 1h30m) or an RFC 3339 time`);
        }
        const { logsCommand } = await import('../commands/logs.js');
        setExit(
          await logsCommand(
            {
              ...(a.pod !== undefined ? { pod: str(a.pod) } : {}),
              ...selectorOf(a.selector),
              ...(a.container !== undefined ? { container: str(a.container) } : {}),
              ...(a.tail !== undefined ? { tail: integer('tail', a.tail, -1) } : {}),
              follow: Boolean(a.follow),
              previous: Boolean(a.previous),
              timestamps: Boolean(a.timestamps),
              ...(since ? { since } : {}),
              allContainers: Boolean(a['all-containers']),
              prefix: Boolean(a.prefix),
              namespace: str(a.namespace),
              ...host(a),
              ...projectOf(a.project, ctx.env),
            },
            ctx,
          ),
        );
      },
    },
    {
      command: 'exec <pod> [command..]',
      describe: "run a command in a container (the words after the pod, or after --); exit with the command's exit code, 125 when runpod fails",
      builder: (y) =>
        engineOptions(y)
          .positional('pod', { type: 'string', describe: 'name or namespace/name' })
          .positional('command', { type: 'string', array: true, describe: 'the command and its arguments, after --' })
          .option('container', { alias: 'c', type: 'string', describe: 'container (may be left out when the pod has one)' })
          .option('stdin', { alias: 'i', type: 'boolean', default: false, describe: "pass runpod's stdin to the command" })
          .option('tty', { alias: 't', type: 'boolean', default: false, describe: 'allocate a terminal' }) as Argv<Args>,
      handler: async (a) => {
        const { execCommand } = await import('../commands/exec.js');
        setExit(
          await execCommand(
            {
              pod: str(a.pod),
              ...(a.container !== undefined ? { container: str(a.container) } : {}),
              stdin: Boolean(a.stdin),
              tty: Boolean(a.tty),
              // After "--" the words are the command's, exactly as typed (yargs would turn "007" into 7, and
              // does not hand them to the positional).
              command: dashDash >= 0 ? argv.slice(dashDash + 1) : ((a.command as unknown[] | undefined) ?? []).map(str),
              namespace: str(a.namespace),
              ...host(a),
              ...projectOf(a.project, ctx.env),
            },
            ctx,
          ),
        );
      },
    },
    {
      command: 'stats [pods..]',
      describe: "CPU, memory, network and block I/O of pods' running containers (the pods named, or all)",
      builder: (y) =>
        engineOptions(y)
          .positional('pods', { type: 'string', array: true, describe: 'names or namespace/names (none: every pod)' })
          .option('watch', { alias: 'w', type: 'boolean', default: false, describe: 'sample again until Ctrl-C' })
          .option('output', { alias: 'o', choices: ['text', 'json'] as const, default: 'text' as const, describe: 'table, or JSON (one line per sample with --watch)' }) as Argv<Args>,
      handler: async (a) => {
        const { statsCommand } = await import('../commands/stats.js');
        setExit(await statsCommand({ pods: ((a.pods as unknown[] | undefined) ?? []).map(str), watch: Boolean(a.watch), output: a.output as 'text' | 'json', namespace: str(a.namespace), ...host(a), ...projectOf(a.project, ctx.env) }, ctx));
      },
    },
    {
      command: 'gc',
      describe: "remove dead containers runpod made (the kubelet's policy), what is left of pods that no longer exist, the pods of finished Jobs past their ttlSecondsAfterFinished, and with --claims the claims no pod uses",
      builder: (y) =>
        y
          .option('host', hostOption)
          .option('project', { ...projectOption, describe: `only what was made under this isolation key (default: $${projectEnvVar}; none: every key's)` })
          // Accepted, as options every command has may come before its name; gc looks at every namespace and says
          // every removal anyway.
          .option('namespace', { alias: 'n', type: 'string', hidden: true })
          .option('verbose', { alias: 'v', type: 'boolean', hidden: true })
          .option('min-age', { type: 'string', default: '1m', describe: 'leave dead containers created less than this ago' })
          .option('max-per-container', { type: 'string', default: '1', describe: 'dead instances kept per container of a pod (-1: no limit)' })
          .option('max-containers', { type: 'string', default: '-1', describe: 'dead containers kept in all (-1: no limit)' })
          .option('dry-run', { type: 'boolean', default: false, describe: 'say what would be removed; remove nothing' })
          .option('claims', { type: 'boolean', default: false, describe: 'also remove claim volumes (their data) no pod uses any more, older than --min-age' })
          .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'print nothing but errors' }) as Argv<Args>,
      handler: async (a) => {
        const { gcCommand } = await import('../commands/gc.js');
        setExit(
          await gcCommand(
            {
              minAgeMs: durationMs('min-age', a['min-age']),
              maxPerContainer: integer('max-per-container', a['max-per-container'], -1),
              maxContainers: integer('max-containers', a['max-containers'], -1),
              dryRun: Boolean(a['dry-run']),
              ...(a.claims === true ? { claims: true } : {}),
              quiet: Boolean(a.quiet),
              ...host(a),
              ...projectOf(a.project, ctx.env),
            },
            ctx,
          ),
        );
      },
    },
    {
      command: 'completion <shell>',
      describe: 'print a shell completion script (bash or zsh): source <(runpod completion bash)',
      builder: (y) => y.positional('shell', { choices: ['bash', 'zsh'] as const, describe: 'the shell' }) as Argv<Args>,
      handler: async (a) => {
        const { completionCommand } = await import('../commands/completion.js');
        setExit(completionCommand({ shell: str(a.shell) }, ctx));
      },
    },
  ];
}

/**
 * yargs' completion hook: pod and container names from the engine where a command wants one (looked up before
 * yargs runs: yargs does not wait for an asynchronous completion, and the process would end first), yargs' own
 * commands and flags everywhere else. words: everything after --get-yargs-completions.
 */
export async function completionFor(words: string[] | undefined, env: NodeJS.ProcessEnv) {
  // Not a completion request: nothing to look up (and nothing loaded on the start-up path).
  const names =
    words === undefined
      ? undefined
      : await import('../commands/completion.js').then(({ completeNames }) => completeNames(words, env)).catch((): string[] => []);
  return (
    _current: string,
    _argv: unknown,
    defaults: (done: (err: Error | null, list: string[] | undefined) => void) => void,
    done: (list: string[]) => void,
  ): void => {
    if (names === undefined) defaults((_err, list) => done(list ?? []));
    else done(names);
  };
}
