// Runs the probes of a pod's containers while runpod watches it: one prober per container instance (a new
// start of a container gets new schedules, as the kubelet starts a new worker for a new container ID), each
// probe on its own timer (the kubelet runs one worker goroutine per probe), startupProbe gating the others
// (pkg/kubelet/prober/worker.go: liveness and readiness are skipped while the container is not Started). Each
// change of a result is reported at once through onChange, so the run-once loop reacts to it without waiting
// for its next backoff tick.
import { sameSpec } from '../../kube/names.js';
import { setTimeout as delay } from 'node:timers/promises';
import type { ExecPort } from '../../engine/ports/streams.js';
import type { ObservedPod } from '../../reconcile/observe.js';
import type { ProbeContext } from './context.js';
import { runProbe } from './run.js';
import { type ProbeResult, ProbeSchedule } from './scheduler.js';
import type { ContainerProbes, PortBinding, ProbeAddress, ProbeKind, ProbeOutcome } from '../../kube/probes.js';
import type { PodPlan } from '../../plan/types.js';

export interface ProbeKill {
  kind: 'liveness' | 'startup';
  output: string;
  gracePeriodSeconds: number;
}

/** What the probes say about one container instance, for the pure check and decide steps. */
export interface ContainerProbeStatus {
  instanceId: string;
  startedAt: number;
  /** The startupProbe has passed (Kubernetes ContainerStatus.started), or there is none. */
  started: boolean;
  /** Started, and the readinessProbe's result is Success (or there is none). */
  ready: boolean;
  /** A liveness or startup failure reached its threshold: the container is to be killed. */
  kill?: ProbeKill;
  results: Partial<Record<ProbeKind, ProbeResult>>;
  last: Partial<Record<ProbeKind, ProbeOutcome>>;
}

export interface Addressing {
  /** The pod's IP on the engine's bridge is reachable from here (a local engine on Linux). */
  podIpReachable: boolean;
  /** The engine's host, for published ports: 127.0.0.1 for a local socket, else DOCKER_HOST's host. */
  engineHost: string;
}

/** How to reach pods on an engine at this address (Engine.address). */
export function addressingFor(engineAddress: string, platform: NodeJS.Platform = process.platform): Addressing {
  if (engineAddress.startsWith('unix://') || engineAddress.startsWith('npipe://')) {
    // Docker Desktop (macOS, Windows) runs the engine in a VM: its bridge network is not routed to the host.
    return { podIpReachable: platform === 'linux', engineHost: '127.0.0.1' };
  }
  try {
    return { podIpReachable: false, engineHost: new URL(engineAddress).hostname || '127.0.0.1' };
  } catch {
    return { podIpReachable: false, engineHost: '127.0.0.1' };
  }
}

/**
 * From the host, a container port is reached on the pod's IP (the infra container's address on the engine's
 * bridge, routed to the host on Linux), or else through the port the infra container publishes for it (pure;
 * the run's prober and `status` both ask it). Throws with the reason when the pod cannot be reached.
 */
export function probeAddress(port: number, host: string, pod: { podIp?: string; addressing: Addressing; binding?: PortBinding }): ProbeAddress {
  if (host) return { host, port, via: "the probe's host" };
  const ip = pod.podIp;
  if (ip && pod.addressing.podIpReachable) return { host: ip, port, via: `pod IP ${ip}` };
  const binding = pod.binding;
  if (binding?.HostPort) {
    const anyAddress = !binding.HostIp || binding.HostIp === '0.0.0.0' || binding.HostIp === '::';
    const h = anyAddress ? pod.addressing.engineHost : binding.HostIp!;
    return { host: h, port: Number(binding.HostPort), via: `published port ${h}:${binding.HostPort}` };
  }
  if (ip) return { host: ip, port, via: `pod IP ${ip}, which may not be reachable from here` };
  throw new Error(`the pod has no address yet, and container port ${port} is not published (hostPort)`);
}

export interface ProbeManagerOptions {
  engine: ExecPort;
  addressing: Addressing;
  onChange: () => void;
  now?: () => number;
}

const kinds: ProbeKind[] = ['startup', 'readiness', 'liveness'];

class InstanceProber {
  private readonly schedules = new Map<ProbeKind, ProbeSchedule>();
  private readonly abort = new AbortController();
  private started: boolean;
  private startedSignal!: () => void;
  private readonly startedPromise: Promise<void>;
  private kill: ProbeKill | undefined;

  constructor(
    readonly instanceId: string,
    readonly startedAt: number,
    probes: ContainerProbes,
    private readonly ctx: Omit<ProbeContext, 'timeoutMs' | 'containerId'>,
    private readonly onChange: () => void,
    private readonly now: () => number,
  ) {
    this.started = probes.startup === undefined;
    this.startedPromise = new Promise((resolve) => (this.startedSignal = resolve));
    for (const kind of kinds) {
      const spec = probes[kind];
      if (!spec) continue;
      this.schedules.set(kind, new ProbeSchedule(spec, startedAt));
      void this.loop(kind);
    }
  }

  private async loop(kind: ProbeKind): Promise<void> {
    const s = this.schedules.get(kind)!;
    const signal = this.abort.signal;
    const pause = (ms: number): Promise<unknown> => delay(Math.max(0, ms), undefined, { signal }).catch(() => undefined);
    while (!signal.aborted) {
      if (kind !== 'startup' && !this.started) {
        await Promise.race([this.startedPromise, pause(2 ** 31 - 1)]);
        continue;
      }
      // Once started, the startup probe is done (worker.go stops probing a Started container).
      if (kind === 'startup' && this.started) return;
      const at = s.nextAt();
      if (at === undefined) return; // held after a kill: a new start brings a new prober
      const wait = at - this.now();
      if (wait > 0) {
        await pause(wait);
        continue;
      }
      s.begin(this.now());
      const outcome = await runProbe(s.spec.handler, { ...this.ctx, containerId: this.instanceId, timeoutMs: s.spec.timeoutMs });
      if (signal.aborted) return;
      const t = s.record(outcome, this.now());
      if (kind === 'startup' && t.result === 'success' && !this.started) {
        this.started = true;
        this.startedSignal();
      }
      if (t.kill && !this.kill) this.kill = { kind: kind === 'startup' ? 'startup' : 'liveness', output: outcome.output, gracePeriodSeconds: s.spec.gracePeriodSeconds };
      if (t.changed) this.onChange();
    }
  }

  status(): ContainerProbeStatus {
    const results: ContainerProbeStatus['results'] = {};
    const last: ContainerProbeStatus['last'] = {};
    for (const [kind, s] of this.schedules) {
      results[kind] = s.result;
      const o = s.lastOutcome;
      if (o) last[kind] = { ok: o.ok, output: o.output };
    }
    const readiness = this.schedules.get('readiness');
    return {
      instanceId: this.instanceId,
      startedAt: this.startedAt,
      started: this.started,
      // Kubernetes: a container without a readinessProbe is ready once started.
      ready: this.started && (readiness === undefined || readiness.result === 'success'),
      ...(this.kill ? { kill: this.kill } : {}),
      results,
      last,
    };
  }

  close(): void {
    this.abort.abort();
  }
}

export class ProbeManager {
  private readonly probers = new Map<string, InstanceProber>();
  private podIp: string | undefined;
  private readonly now: () => number;

  constructor(
    private readonly plan: PodPlan,
    private readonly o: ProbeManagerOptions,
  ) {
    this.now = o.now ?? Date.now;
  }

  /** Does any container of the pod have a probe? */
  static wanted(plan: PodPlan): boolean {
    return [...plan.initContainers, ...plan.containers].some((c) => c.probes !== undefined);
  }

  /** Follow what the engine has: a prober for the running newest instance of each probed container. */
  update(observed: ObservedPod): void {
    this.podIp = observed.infra[0]?.state === 'running' ? observed.infra[0].ip : undefined;
    // Sidecars too (init containers with restartPolicy Always): their startupProbe says when the next init
    // container may start (reconcile/initContainers.ts). Regular init containers have no probes (validation).
    for (const c of [...this.plan.initContainers, ...this.plan.containers]) {
      if (!c.probes) continue;
      const inst = (c.initKind !== undefined ? observed.initContainers : observed.containers).get(c.name)?.[0];
      const current = this.probers.get(c.name);
      const live = inst !== undefined && inst.state === 'running' && inst.startedAt !== undefined && sameSpec(inst.hash, c);
      if (current && (!live || current.instanceId !== inst.id || current.startedAt !== inst.startedAt)) {
        current.close();
        this.probers.delete(c.name);
      }
      if (live && !this.probers.has(c.name)) {
        const ctx = { engine: this.o.engine, address: (port: number, host: string) => this.address(port, host) };
        this.probers.set(c.name, new InstanceProber(inst.id, inst.startedAt!, c.probes, ctx, this.o.onChange, this.now));
      }
    }
  }

  statuses(): Map<string, ContainerProbeStatus> {
    const out = new Map<string, ContainerProbeStatus>();
    for (const [name, p] of this.probers) out.set(name, p.status());
    return out;
  }

  close(): void {
    for (const p of this.probers.values()) p.close();
    this.probers.clear();
  }

  /** Where a probe of this pod connects (probeAddress), with the plan's port bindings. */
  address(port: number, host: string): ProbeAddress {
    const binding = this.plan.infra.create.HostConfig?.PortBindings?.[`${port}/tcp`]?.[0] as PortBinding | undefined;
    return probeAddress(port, host, { podIp: this.podIp, addressing: this.o.addressing, binding });
  }
}
