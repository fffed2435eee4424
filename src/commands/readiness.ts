// `runpod status` alone: whether a running container is ready needs its readiness (and startup) probe, which the
// container carries in its labels (plan/probeLabels.ts). Each is run once, now, from the host, with the same
// handlers as while runpod watches a pod (src/wait/probes); all containers at once, each probe bounded by its
// timeoutSeconds. What to run and what it means is podSummary's (pure); this only runs it.
import type { HostPort } from '../engine/ports/host.js';
import type { ExecPort } from '../engine/ports/streams.js';
import { type PodSummary, type ReadinessCheck, type ReadinessResults, readinessVerdict, readinessWork } from '../reconcile/podSummary.js';
import { addressingFor, probeAddress } from '../wait/probes/manager.js';
import { runProbe } from '../wait/probes/run.js';
import type { ProbeOutcome, ProbeSpec } from '../kube/probes.js';

/** A handler past its timeout that still has not answered (an exec the engine is slow to create) is a failure. */
const slackMs = 1000;

function probeOnce(engine: ExecPort, spec: ProbeSpec, containerId: string, address: (port: number, host: string) => ReturnType<typeof probeAddress>): Promise<ProbeOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ProbeOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, output: `no answer within its timeoutSeconds (${spec.timeoutMs / 1000}s)` }), spec.timeoutMs + slackMs);
  });
  const probe = runProbe(spec.handler, { engine, containerId, address, timeoutMs: spec.timeoutMs }).catch(
    (err: unknown): ProbeOutcome => ({ ok: false, output: err instanceof Error ? err.message : String(err) }),
  );
  return Promise.race([probe, late]).finally(() => clearTimeout(timer));
}

/** Run the probes of every running container of these pods that has any; the results by instance id. */
export async function probeReadiness(engine: ExecPort & HostPort, pods: readonly PodSummary[], now: number): Promise<ReadinessResults> {
  const addressing = addressingFor(engine.address);
  const results = new Map<string, ReadinessCheck>();
  const jobs = pods.flatMap((pod) => [...pod.containers, ...pod.sidecars].map((c) => ({ pod, c: c.current })));
  await Promise.all(
    jobs.map(async ({ pod, c }) => {
      const work = readinessWork(c, now);
      if (!work) return;
      if ('verdict' in work) {
        results.set(c.id, work.verdict);
        return;
      }
      const podIp = pod.infra?.state === 'running' ? pod.ip : undefined;
      const address = (port: number, host: string): ReturnType<typeof probeAddress> =>
        probeAddress(port, host, { podIp, addressing, binding: pod.portBindings[`${port}/tcp`]?.[0] });
      // In order: a startup probe that fails means not started, and the kubelet runs no readiness probe then.
      const outcomes: ProbeOutcome[] = [];
      for (const spec of work.run) {
        const o = await probeOnce(engine, spec, c.id, address);
        outcomes.push(o);
        if (!o.ok) break;
      }
      results.set(c.id, readinessVerdict(work.run, outcomes));
    }),
  );
  return results;
}
