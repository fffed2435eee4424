// What the in-memory loop tests share: engines disposed after each test, a one-container pod planned from plain
// data, and the run-once loop on an engine with a fast backoff.
import { afterEach } from 'node:test';
import type { Container } from 'kubernetes-types/core/v1.js';
import type { LoadedPod } from '../../../src/manifest/types.js';
import { translatePod } from '../../../src/plan/translate.js';
import { ImagePuller } from '../../../src/reconcile/images.js';
import { Backoff } from '../../../src/wait/backoff.js';
import { type PodOutcome, runPod } from '../../../src/wait/runOnce.js';
import { MemoryEngine } from './memoryEngine.js';
import type { PodPlan } from '../../../src/plan/types.js';

export const image = 'busybox:1';
export const infraImage = 'pause:test';

/** New engines holding the two images; each is disposed when its test ends (call at the top of a test file). */
export function memoryEngines(): () => MemoryEngine {
  const engines: MemoryEngine[] = [];
  afterEach(() => {
    for (const e of engines.splice(0)) e.dispose();
  });
  return () => {
    const e = new MemoryEngine({ images: [image, infraImage] });
    engines.push(e);
    return e;
  };
}

/** A pod of one container main (sleeping unless told otherwise) under the pod's restartPolicy, planned. */
export function onePodPlan(name: string, podPolicy: string, container: Record<string, unknown>): PodPlan {
  const main = { name: 'main', image, imagePullPolicy: 'Never', command: ['sleep', '3600'], ...container } as Container;
  const loaded = {
    pod: { metadata: { name, namespace: 'default' }, spec: { restartPolicy: podPolicy, terminationGracePeriodSeconds: 0, containers: [main] } },
    source: { file: '<stdin>' },
    line: 1,
  } as LoadedPod;
  return translatePod(loaded, { infraImage });
}

/** The loop until every container runs, with retries spent quickly. */
export function runUntilRunning(engine: MemoryEngine, plan: PodPlan, retries: number): Promise<PodOutcome> {
  return runPod(plan, {
    engine,
    images: new ImagePuller(engine, () => Promise.resolve(undefined)),
    mode: 'running',
    backoff: new Backoff({ retries, retryDelayMs: 5, factor: 2, maxDelayMs: 40 }),
    settleMs: 0,
    signal: new AbortController().signal,
    now: Date.now,
  });
}
