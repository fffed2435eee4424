// Which engine events may wake the run-once loop. Events that runpod's own requests cause (the start it asked
// for, the die of a container it stopped) say nothing new and must not wake the loop that made them, or an action
// the engine accepts but that never converges would repeat as fast as requests return. Only state changes that
// decide or the check can act on wake it; exec (probes), archive and update events never do.
import { withOverrides } from '../engine/ports/overrides.js';
import type { Engine } from '../engine/ports/engine.js';
import type { EngineEvent } from '../engine/ports/streams.js';

/** Container events that change what the check or decide sees. */
const wakingActions: ReadonlySet<string> = new Set(['start', 'die', 'destroy', 'oom', 'pause', 'unpause']);

/** How long an expected event is waited for before it no longer counts as runpod's own. */
const expectMs = 10_000;

export class OwnEvents {
  /** By container id: the events runpod's requests will cause, each until when it is expected. */
  private readonly expected = new Map<string, { action: string; until: number }[]>();

  constructor(private readonly now: () => number) {}

  /** A request about container `id` will cause these events (within `forMs` more than the usual allowance). */
  expect(id: string, actions: readonly string[], forMs = 0): void {
    const until = this.now() + expectMs + forMs;
    const list = (this.expected.get(id) ?? []).filter((x) => x.until >= this.now());
    for (const action of actions) list.push({ action, until });
    this.expected.set(id, list);
  }

  /** The request failed: the events it would have caused will not come, and the same events are news. */
  cancel(id: string, actions: readonly string[]): void {
    const list = this.expected.get(id);
    if (list === undefined) return;
    for (const action of actions) {
      const i = list.findIndex((x) => x.action === action);
      if (i >= 0) list.splice(i, 1);
    }
  }

  /** Should this event wake the loop? An expected one is consumed: the same event again is news. */
  wakes(e: EngineEvent): boolean {
    if (!wakingActions.has(e.action)) return false;
    const list = this.expected.get(e.id);
    const i = list?.findIndex((x) => x.action === e.action && x.until >= this.now()) ?? -1;
    if (i < 0) return true;
    list!.splice(i, 1);
    if (e.action === 'destroy') this.expected.delete(e.id);
    return false;
  }
}

/**
 * The engine as the apply step sees it: every request that changes a container first says which events it will
 * cause. Everything else goes straight through.
 */
export function recordingEngine(engine: Engine, own: OwnEvents): Engine {
  /** Expect the events while the request runs; a request that fails causes none of them. */
  const expecting = async <T>(id: string, actions: readonly string[], forMs: number, request: () => Promise<T>): Promise<T> => {
    own.expect(id, actions, forMs);
    try {
      return await request();
    } catch (err) {
      own.cancel(id, actions);
      throw err;
    }
  };
  const overrides: Partial<Engine> = {
    startContainer: (id) => expecting(id, ['start'], 0, () => engine.startContainer(id)),
    stopContainer: (id, timeoutSeconds) => expecting(id, ['die'], timeoutSeconds * 1000, () => engine.stopContainer(id, timeoutSeconds)),
    removeContainer: (id, options) => expecting(id, options?.force ? ['die', 'destroy'] : ['destroy'], 0, () => engine.removeContainer(id, options)),
    // killForRestart is not here: its die must wake the loop (under restartPolicy Never nothing follows it), and
    // the start after it is the engine's restart policy, which the loop must see too.
  };
  return withOverrides(engine, overrides);
}
