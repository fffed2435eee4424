// Shell completion: `runpod completion bash|zsh` prints a script that asks runpod itself for the words that
// fit (yargs' --get-yargs-completions). Commands and flags come from yargs; pod and container names come from
// the engine, found by runpod's labels, within a short time limit so a slow or absent engine never hangs the
// shell (it just offers no names).
import { ExitCode, UsageError } from '../errors.js';
import type { CommandContext } from './context.js';
import { projectEnvVar } from '../kube/project.js';
import { openEngine } from './engineSession.js';
import { findPods } from '../reconcile/pods.js';

export type Shell = 'bash' | 'zsh';

/** Commands whose first argument is a pod. */
const podCommands = new Set(['status', 'ps', 'logs', 'exec', 'stats', 'down']);
/** Commands that take more than one pod. */
const manyPods = new Set(['status', 'ps', 'down', 'stats']);
const lookupTimeoutMs = 2000;

// SHELL=sh: yargs formats its own words as "name:description" when it believes the shell is zsh; both scripts
// want plain words.
const scripts: Record<Shell, (bin: string) => string> = {
  bash: (bin) => `# runpod completion for bash. Load it with:  source <(${bin} completion bash)
_runpod_completions() {
  local IFS=$'\\n'
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  COMPREPLY=($(compgen -W "$(SHELL=sh ${bin} --get-yargs-completions "\${COMP_WORDS[@]:0:COMP_CWORD+1}" 2>/dev/null)" -- "$cur"))
}
complete -o default -F _runpod_completions ${bin}
`,
  zsh: (bin) => `#compdef ${bin}
# runpod completion for zsh. Load it with:  source <(${bin} completion zsh)
_runpod_completions() {
  local -a candidates
  candidates=("\${(@f)$(SHELL=sh ${bin} --get-yargs-completions "\${(@)words[1,CURRENT]}" 2>/dev/null)}")
  candidates=("\${(@)candidates:#}")
  if (( \${#candidates} )); then
    compadd -- "\${candidates[@]}"
  else
    _files
  fi
}
compdef _runpod_completions ${bin}
`,
};

export function completionScript(shell: string): string {
  const make = scripts[shell as Shell];
  if (!make) throw new UsageError(`runpod completion ${shell}: supported shells are bash and zsh`);
  return make('runpod');
}

export function completionCommand(o: { shell: string }, ctx: CommandContext): number {
  ctx.stdout.write(completionScript(o.shell));
  return ExitCode.ok;
}

/** The value of a flag among the words typed so far (--host x, --host=x, -n x). */
function flagValue(words: string[], names: string[]): string | undefined {
  for (let i = 0; i < words.length - 1; i++) {
    const w = words[i]!;
    if (names.includes(w)) return words[i + 1];
    const eq = names.find((n) => w.startsWith(`${n}=`));
    if (eq) return w.slice(eq.length + 1);
  }
  return undefined;
}

/** Flags that take a value, so the word after them is not a positional. */
const valueFlags = new Set([
  '-c',
  '--container',
  '-n',
  '--namespace',
  '--host',
  '-o',
  '--output',
  '--tail',
  '--since',
  '--grace',
  '--min-age',
  '--max-per-container',
  '--max-containers',
  '--timeout',
  '--project',
  '-l',
  '--selector',
  '-f',
  '--filename',
  '--exit-code-from',
  '--wait',
  '--name',
  '--runpod',
  '--unit-dir',
  '--skip-kind',
]);

/**
 * Names for the word being completed, or undefined when yargs' own completion (commands, flags) applies.
 * words: what the shell passed, the program name first and the word being completed last.
 */
export async function completeNames(words: string[], env: NodeJS.ProcessEnv): Promise<string[] | undefined> {
  const dashDash = words.indexOf('--');
  if (dashDash >= 0 && dashDash < words.length - 1) return []; // the command of exec: the shell's own completion
  const current = words[words.length - 1] ?? '';
  const before = words.slice(1, -1);
  const positionals: string[] = [];
  for (let i = 0; i < before.length; i++) {
    const w = before[i]!;
    if (w.startsWith('-')) {
      if (valueFlags.has(w)) i++;
      continue;
    }
    positionals.push(w);
  }
  const command = positionals[0];
  if (!command || !podCommands.has(command) || current.startsWith('-')) return undefined;
  const prev = before[before.length - 1];
  const namespace = flagValue(words, ['-n', '--namespace']) ?? 'default';
  const wantContainers = prev === '-c' || prev === '--container';
  if (!wantContainers && positionals.length > 1 && !manyPods.has(command)) return undefined;
  if (prev !== undefined && valueFlags.has(prev) && !wantContainers) return undefined;
  try {
    const engine = await openEngine(flagValue(words, ['--host']), env, flagValue(words, ['--project']) ?? env[projectEnvVar]);
    const pods = await Promise.race([findPods(engine), new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), lookupTimeoutMs).unref())]);
    const label = (p: { namespace: string; name: string }): string => (p.namespace === namespace ? p.name : `${p.namespace}/${p.name}`);
    if (wantContainers) {
      const target = positionals[1];
      const pod = pods.find((p) => label(p) === target || `${p.namespace}/${p.name}` === target);
      return (pod ? pod.containers : pods.flatMap((p) => p.containers)).map((c) => c.name).filter((n, i, all) => all.indexOf(n) === i);
    }
    return pods.map(label);
  } catch {
    return []; // no engine, no names: completion must never fail loudly
  }
}
