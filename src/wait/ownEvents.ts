// Which engine events may wake the run-once loop. Events that runpod's own requests cause (the start it asked
// for, the die of a container it stopped) say nothing new and must not wake the loop that made them, or an action
// the engine accepts but that never converges would repeat as fast as requests return. Only state changes that
// decide or the check can act on wake it; exec (probes), archive and update events never do.
import type { Engine, EngineEvent } from '../engine/engine.js';

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
  const overrides: Partial<Engine> = {
    startContainer: (id) => {
      own.expect(id, ['start']);
      return engine.startContainer(id);
    },
    stopContainer: (id, timeoutSeconds) => {
      own.expect(id, ['die'], timeoutSeconds * 1000);
      return engine.stopContainer(id, timeoutSeconds);
    },
    removeContainer: (id, options) => {
      own.expect(id, options?.force ? ['die', 'destroy'] : ['destroy']);
      return engine.removeContainer(id, options);
    },
    killForRestart: (id, gracePeriodSeconds) => {
      // Only the die is runpod's: the start that follows is the engine's restart policy, which the loop must see.
      own.expect(id, ['die'], gracePeriodSeconds * 1000);
      return engine.killForRestart(id, gracePeriodSeconds);
    },
  };
  return new Proxy(engine, {
    get(target, prop, receiver) {
      const own = overrides[prop as keyof Engine];
      if (own !== undefined) return own;
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? (v as (...args: unknown[]) => unknown).bind(target) : v;
    },
  });
}
