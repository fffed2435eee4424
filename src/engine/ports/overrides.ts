// An Engine with some of its calls answered differently (a key's labels, a repair, an expected event) and the
// rest passed through to the engine it wraps, bound to it.
import type { Engine } from './engine.js';

export function withOverrides(engine: Engine, overrides: Partial<Engine>): Engine {
  return new Proxy(engine, {
    get(target, prop, receiver) {
      const own = overrides[prop as keyof Engine];
      if (own !== undefined) return own;
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
