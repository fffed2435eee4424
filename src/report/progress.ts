// Progress for plain output (pure): a line whenever a container's state changes — started, exited with its code,
// restarted by the engine, a probe failing and why — so a CI log shows a crash loop as it happens, even when
// runpod itself has nothing to do.

import type { PodCheck } from '../wait/podCheck.js';

interface Seen {
  instance: string;
  state: string;
  restarts: number;
  probe: string;
}

function seenOf(v: PodCheck['containers'][number]): Seen {
  const c = v.instance;
  return {
    instance: c?.id ?? '',
    state: c?.state ?? 'absent',
    restarts: c?.restartCount ?? 0,
    // Only what a probe says is news of its own; the settle time and the like change at every check.
    probe: /probe/.test(v.reason) && !v.ok ? v.reason : '',
  };
}

/** What was last said of each container of a pod, by name. */
export type ProgressState = ReadonlyMap<string, Seen>;

/** The lines the check gives against what was said before, and what is said now. */
export function progressLines(before: ProgressState, check: PodCheck): { lines: string[]; now: Map<string, Seen> } {
  const lines: string[] = [];
  const now = new Map<string, Seen>();
  for (const v of check.containers) {
    const s = seenOf(v);
    now.set(v.name, s);
    const was = before.get(v.name);
    const c = v.instance;
    if (was === undefined && s.state === 'absent') continue;
    if (was === undefined || was.instance !== s.instance) {
      if (c)
        lines.push(`${v.name}: ${s.state}${c.state === 'exited' || c.state === 'dead' ? ` (exit code ${c.exitCode})` : ''}, instance ${c.id.slice(0, 12)} (attempt ${c.attempt})`);
    } else if (was.restarts !== s.restarts) {
      lines.push(`${v.name}: restarted by the engine (${s.restarts} restart${s.restarts === 1 ? '' : 's'}; ${v.reason})`);
    } else if (was.state !== s.state) {
      lines.push(`${v.name}: ${s.state}${c && (c.state === 'exited' || c.state === 'dead') ? ` with exit code ${c.exitCode}${c.oomKilled ? ', OOM-killed' : ''}` : ''}`);
    }
    if (s.probe !== '' && s.probe !== was?.probe) lines.push(`${v.name}: ${s.probe}`);
  }
  return { lines, now };
}

/** The heartbeat: what the pod still waits for, in one line. */
export function waitingLine(check: PodCheck | undefined, waitedMs: number): string {
  const waiting = (check?.containers ?? []).filter((v) => !v.ok).map((v) => `${v.name}: ${v.reason}`);
  return `still waiting after ${Math.round(waitedMs / 1000)}s${waiting.length > 0 ? ` for ${waiting.join('; ')}` : ''}`;
}
