// What `runpod run` is asked to do, as the CLI parsed it (cli/cli.ts): the node agent's input besides the manifests.
import type { OutputFormat } from '../report/output.js';
import type { PullOverride } from '../plan/types.js';
import type { WaitMode } from '../wait/strategies/index.js';
import type { PruneScope } from '../reconcile/prune.js';

export interface RunOptions {
  manifests: string[];
  wait: WaitMode;
  timeoutMs?: number;
  retries: number;
  retryDelayMs: number;
  backoff: number;
  maxDelayMs: number;
  settleMs: number;
  /** --crash-loop-limit: restarts in a row without coming up that fail a pod; 0 never (wait/crashLoop.ts). */
  crashLoopLimit?: number;
  pull?: PullOverride;
  infraImage?: string;
  namespace: string;
  dryRun: boolean;
  output: OutputFormat;
  quiet: boolean;
  verbose: boolean;
  host?: string;
  /** The isolation key (kube/project.ts): only pods made under it are seen. */
  project?: string;
  /** --publish-all: every container port on a host port the engine chooses. */
  publishAll?: boolean;
  /** --prune (same source) / --prune-all: take down the runpod pods this run does not name. */
  prune?: PruneScope;
  /** run … -- <command>: run it against the pods, then take them down (scoped.ts). */
  scoped?: ScopedOptions;
  /** --replace: take each pod down first, so it runs afresh (a finished one-shot pod runs again). */
  replace?: boolean;
  /** --exit-code-from [pod/]container: exit with that container's own code once it has terminated (exitCodeFrom.ts). */
  exitCodeFrom?: string;
  /** --skip-kind: kinds to skip on purpose (manifest/kinds.ts). */
  skipKinds?: string[];
  /** --from-cronjob: CronJobs whose job template runs once. */
  fromCronJobs?: string[];
  /** --seccomp-profile-root: where Localhost seccomp profiles are read (default the kubelet's). */
  seccompProfileRoot?: string;
}

/** run … -- <command>: the command, and what becomes of the pods after it. */
export interface ScopedOptions {
  /** The command and its arguments, exactly as given after "--". */
  command: string[];
  /** --keep: leave the pods up afterwards. */
  keep: boolean;
  /** --keep-claims: take the pods down but keep their claims (their data) for the next run under the same key. */
  keepClaims?: boolean;
}
