// A crash loop nothing will mend fails fast; one that mends itself still comes up (pure: fed each check).
//
// The rule: a container that the engine has restarted `limit` times in a row without coming up (passing its
// check: running past the settle time, ready when --wait ready asks for it) is in a crash loop no retry mends, and
// its pod has failed. kstatus (sigs.k8s.io/cli-utils) reads a container waiting in CrashLoopBackOff as the Failed
// status of its workload; the kubelet enters that back-off after the first crash, with a delay doubling from 10 s.
// runpod's containers are restarted by the engine, whose back-off doubles from 100 ms (Docker's restart manager),
// so the restarts come faster: the 7th restart of a container that exits at once comes about 10-20 s after its first
// start, while a container that waits a few seconds for a peer (a database still starting) crashes two to six times
// and comes up before that. The count starts again when the container comes up. 0 turns the rule off: then only the
// retries (--retries) and --timeout end the wait, as before.
//
// When --timeout ends the wait first, a container that has crashed at least twice in a row without coming up is
// reported as the crash loop it is (a failure, exit 1), not as a wait the deadline cut short.
import type { PodPlan } from '../plan/types.js';
import type { ObservedPod } from '../reconcile/observe.js';
import type { PodCheck } from './podCheck.js';

/** The default --crash-loop-limit (README: "Crash loops"). */
export const defaultCrashLoopLimit = 7;

/** Crashes in a row that --timeout reports as a crash loop when it ends the wait first. */
export const crashesNamedAtDeadline = 2;

/** A pod's crash loop: the reason, and the containers it names (the pod's account leaves them out, said once). */
export interface CrashLoop {
  reason: string;
  containers: ReadonlySet<string>;
}

/** Restarts of a container as the kubelet counts them: its replaced instances plus the engine's restarts of the newest. */
function restartsOf(plan: PodPlan, observed: ObservedPod, name: string): number | undefined {
  const list = observed.containers.get(name) ?? observed.initContainers.get(name);
  const newest = list?.find((c) => c.podUid === plan.uid);
  return newest === undefined ? undefined : newest.attempt + newest.restartCount;
}

export class CrashLoopRule {
  /** Per container: its restarts when it was last up (or first seen). */
  private readonly base = new Map<string, number>();
  private readonly crashes = new Map<string, number>();

  constructor(
    private readonly plan: PodPlan,
    readonly limit: number,
  ) {}

  /** Take in a check; the reason the pod has failed when a container has crashed `limit` times in a row. */
  judge(observed: ObservedPod, check: PodCheck, lastExitCodes: ReadonlyMap<string, number>): CrashLoop | undefined {
    this.update(observed, check);
    if (this.limit <= 0) return undefined;
    return this.account(this.limit, check, lastExitCodes, `--crash-loop-limit ${this.limit}`);
  }

  /** At the deadline (after its last look): the crash loop to report instead of the deadline, when a container is in one. */
  atDeadline(observed: ObservedPod | undefined, check: PodCheck | undefined, lastExitCodes: ReadonlyMap<string, number>, deadlineBy: string): CrashLoop | undefined {
    if (check === undefined || observed === undefined) return undefined;
    this.update(observed, check);
    return this.account(crashesNamedAtDeadline, check, lastExitCodes, `${deadlineBy} ended the wait${this.limit > 0 ? ` before --crash-loop-limit ${this.limit}` : ''}`);
  }

  private update(observed: ObservedPod, check: PodCheck): void {
    for (const v of check.containers) {
      const restarts = restartsOf(this.plan, observed, v.name);
      // Not made yet: it starts from nothing (a pod already there when the run began counts from where it is).
      if (restarts === undefined) {
        if (!this.base.has(v.name)) this.base.set(v.name, 0);
        continue;
      }
      if (!this.base.has(v.name) || v.ok) this.base.set(v.name, restarts);
      this.crashes.set(v.name, restarts - this.base.get(v.name)!);
    }
  }

  private account(atLeast: number, check: PodCheck, lastExitCodes: ReadonlyMap<string, number>, why: string): CrashLoop | undefined {
    const looping = check.containers.filter((v) => !v.ok && !v.terminal && (this.crashes.get(v.name) ?? 0) >= atLeast);
    if (looping.length === 0) return undefined;
    const reason = looping
      .map((v) => {
        const c = v.instance;
        const code = c === undefined ? undefined : c.exitCode !== 0 ? c.exitCode : lastExitCodes.get(c.id);
        return `${v.name}: crash loop: restarted ${this.crashes.get(v.name)} times in a row without coming up${code !== undefined ? `, last exit code ${code}${c?.oomKilled ? ' (OOM-killed)' : ''}` : ''} (${why})`;
      })
      .join('; ');
    return { reason, containers: new Set(looping.map((v) => v.name)) };
  }
}
