// runpod run: read the input, open the engine under the run's key, and hand the run to the node agent (src/agent/):
// it sets up, waits for every pod and accounts for them. This only wires: the context, the engine session, and what
// follows a run (a scoped command, a takedown after a failure).
import { randomBytes } from 'node:crypto';
import { projectEngine } from '../engine/ports/project.js';
import { dryRun } from '../agent/dryRun.js';
import { loadRunInput } from '../agent/input.js';
import type { RunMade } from '../agent/made.js';
import type { RunOptions } from '../agent/options.js';
import { containerCode, failureOf, finishRun, RunBounds, type RunSession, runSession } from '../agent/run.js';
import { createReporter } from '../report/reporter.js';
import { withNetworkRepair } from '../services/network.js';
import { Backoff } from '../wait/backoff.js';
import { Deadline } from '../wait/deadline.js';
import { waitStrategy } from '../wait/strategies/index.js';
import { type CommandContext, readAll } from './context.js';
import { connectEngine, openHostEngine } from './engineSession.js';
import { runScoped } from './scoped.js';
import { afterFailedRun } from '../agent/takedown.js';

export type { RunOptions } from '../agent/options.js';
export { runExitCode } from '../agent/verdict.js';

export async function runCommand(o: RunOptions, ctx: CommandContext): Promise<number> {
  const deadline = Deadline.after(ctx.now(), o.timeoutMs, '--timeout');
  const reporter = await createReporter({ stream: ctx.stderr, env: ctx.env, quiet: o.quiet, verbose: o.verbose, now: () => new Date(ctx.now()) });
  const wait = waitStrategy(o.wait);
  // What the run may have made, once it may have: taken down (a scoped run) or named (any other) if it fails by an error.
  const made: { current?: RunMade } = {};
  // A scoped run holds signals: a second one hurries its takedown instead of ending runpod at once (agent/takedown.ts).
  const releaseSignals = o.scoped ? ctx.onSignal?.(() => undefined) : undefined;
  try {
    // 1. Load and validate every manifest; nothing touches the engine before this passes.
    const input = await loadRunInput(o, wait, () => readAll(ctx.stdin), reporter);
    // 2. Connect, within the retry budget and deadline. A scoped run is isolated by default: under a key of its
    // own, unless one was given, so parallel CI jobs running the same manifests never share pods (kube/project.ts).
    const project = o.project ?? (o.scoped ? scopedProjectKey() : undefined);
    const host = await openHostEngine(o.host, ctx.env);
    // A namespace's network removed under the run (by a concurrent down or gc) is made again (services/network.ts).
    const engine = withNetworkRepair(projectEngine(host, project), project);
    const bounds = new RunBounds(deadline, engine.address, ctx);
    if (o.dryRun) {
      return await bounds.step(dryRun(input, o, { project, engine, host, wait, seccompProfiles: input.seccompProfiles, reporter, ctx }));
    }
    // One retry budget: the engine wait spends from it, and each pod's loop from what is left (wait/backoff.ts).
    const budget = new Backoff({ retries: o.retries, retryDelayMs: o.retryDelayMs, factor: o.backoff, maxDelayMs: o.maxDelayMs });
    const info = await connectEngine(engine, ctx, {
      backoff: budget,
      ...(deadline.at !== undefined ? { deadline: deadline.at } : {}),
      onWaiting: (line, first) => (first ? reporter.warn(line) : reporter.info(line)),
    });
    reporter.verbose(`engine ${info.version} (API ${info.apiVersion}, ${info.os}/${info.arch}) at ${engine.address}`);
    // 3-5. The node agent: set up, wait for every pod, account for them.
    const s: RunSession = { o, wait, input, project, engine, host, info, budget, bounds, reporter, ctx, made };
    const settled = await runSession(s);
    // 6. With a command: run it against the pods and take them down after; its exit code is the run's.
    const ran = made.current!;
    made.current = undefined; // from here, the account (or the scoped takedown) says what is left
    if (!o.scoped) return await finishRun(s, settled);
    const code = containerCode(s);
    return await runScoped(
      o.scoped,
      {
        engine,
        project,
        made: ran,
        serviceResults: settled.serviceResults,
        plans: settled.plans,
        results: settled.results,
        reporter,
        ok: settled.ending === 'ok',
        failure: (takenDown) => failureOf(s, settled, !takenDown)!,
        ...(input.exitFrom ? { exitFrom: input.exitFrom } : {}),
        ...(code ? { containerCode: code } : {}),
      },
      ctx,
    );
  } catch (err) {
    if (made.current !== undefined)
      await afterFailedRun(err, made.current, o.scoped !== undefined && !o.scoped.keep, {
        reporter,
        now: ctx.now,
        ...(ctx.hurried ? { hurried: ctx.hurried } : {}),
        ...(ctx.hurriedBy ? { hurriedBy: ctx.hurriedBy } : {}),
      });
    throw err;
  } finally {
    releaseSignals?.();
    reporter.close();
  }
}

/** A scoped run's own isolation key when none was given: random, so two jobs' keys never meet. */
function scopedProjectKey(): string {
  return `run-${randomBytes(4).toString('hex')}`;
}
