// Lifecycle hooks and the graceful stop, as the kubelet runs them (pkg/kubelet/lifecycle/handlers.go and
// kuberuntime's killContainer):
//  - exec runs in the container through the engine's exec API, and succeeds with exit code 0;
//  - httpGet is sent from the host (the kubelet's node) to the pod's IP, unless the hook names a host; it fails
//    when the request does (no connection, timeout); the kubelet does not judge the status code;
//  - sleep waits, in runpod, for its seconds (KEP-3960);
//  - postStart runs right after the container starts; when it fails the container is killed and the failure is
//    reported as FailedPostStartHook (https://kubernetes.io/docs/concepts/containers/container-lifecycle-hooks/);
//  - preStop runs before the stop signal, within terminationGracePeriodSeconds; the time it takes counts
//    against the grace period, and the container still gets a minimum of 2 s after it (the kubelet's
//    minimumGracePeriodInSeconds). A grace period of 0 kills at once, with no hook (design.md).
import type { ContainerInspect, ContainerLifecycle, ContainerReader } from '../engine/ports/containers.js';
import type { ExecPort } from '../engine/ports/streams.js';
import { type HookHandler, preStopFromLabels } from '../plan/lifecycle.js';
import { describeHttpGet } from '../kube/handlers.js';
import { httpGetOnce } from './hookHttp.js';

export interface HookOutcome {
  ok: boolean;
  /** What the handler said: the command's output, the HTTP status, or why it failed. */
  message: string;
}

export interface HookContext {
  engine: ExecPort;
  containerId: string;
  /** The pod's IP, for an httpGet hook without a host. */
  podIp?: string;
  timeoutMs: number;
}

/** The kubelet keeps at most this much of a hook's output for its event message. */
const maxHookOutput = 4 * 1024;

export function describeHook(h: HookHandler): string {
  switch (h.type) {
    case 'exec':
      return `exec [${h.command.join(' ')}]`;
    case 'httpGet':
      return describeHttpGet(h, '<pod IP>');
    case 'sleep':
      return `sleep ${h.seconds}s`;
  }
}

export async function runHook(h: HookHandler, ctx: HookContext): Promise<HookOutcome> {
  switch (h.type) {
    case 'exec': {
      try {
        const r = await ctx.engine.execCapture(ctx.containerId, h.command, ctx.timeoutMs);
        const out = r.output.slice(0, maxHookOutput).trimEnd();
        if (r.timedOut) return { ok: false, message: `command timed out after ${Math.round(ctx.timeoutMs / 1000)}s${out ? `: ${out}` : ''}` };
        if (r.exitCode === 0) return { ok: true, message: out };
        return { ok: false, message: `command exited with code ${r.exitCode ?? 'unknown'}${out ? `: ${out}` : ''}` };
      } catch (err) {
        return { ok: false, message: `exec failed: ${err instanceof Error ? err.message : String(err)}` };
      }
    }
    case 'httpGet': {
      const host = h.host || ctx.podIp;
      if (!host) return { ok: false, message: 'the pod has no IP address to send the request to' };
      return httpGetOnce(h, host, ctx.timeoutMs);
    }
    case 'sleep': {
      const ms = Math.min(h.seconds * 1000, ctx.timeoutMs);
      await new Promise((r) => setTimeout(r, ms));
      return { ok: true, message: `slept ${ms / 1000}s` };
    }
  }
}

/** The pod IP of a container: its own address, or that of the infra container whose network it joined. */
export async function podIpOf(engine: ContainerReader, info: ContainerInspect): Promise<string | undefined> {
  const own = Object.values(info.NetworkSettings?.Networks ?? {}).find((n) => n.IPAddress)?.IPAddress;
  if (own) return own;
  const mode = info.HostConfig.NetworkMode ?? '';
  if (!mode.startsWith('container:')) return undefined;
  const infra = await engine.inspectContainer(mode.slice('container:'.length));
  return Object.values(infra?.NetworkSettings?.Networks ?? {}).find((n) => n.IPAddress)?.IPAddress;
}

/** No postStart timeout in the kubelet; runpod bounds one so a hook that never returns cannot hold a run forever. */
const postStartTimeoutMs = 10 * 60_000;

/**
 * Run a started container's postStart hook. Returns undefined when it succeeded (or there is none), else the
 * FailedPostStartHook message; the caller kills the container.
 */
export async function runPostStart(engine: ContainerReader & ExecPort, containerId: string, h: HookHandler | undefined): Promise<string | undefined> {
  if (!h) return undefined;
  const info = await engine.inspectContainer(containerId);
  const podIp = info ? await podIpOf(engine, info) : undefined;
  const r = await runHook(h, { engine, containerId, ...(podIp ? { podIp } : {}), timeoutMs: postStartTimeoutMs });
  return r.ok ? undefined : `FailedPostStartHook: ${describeHook(h)} failed: ${r.message}`;
}

/** The kubelet's minimumGracePeriodInSeconds: the time a container gets after its preStop hook, at least. */
export const minimumGraceAfterPreStopSeconds = 2;

export interface GracefulStop {
  /** The preStop hook's outcome, when one ran. */
  preStop?: HookOutcome & { handler: string; seconds: number };
}

/**
 * Stop a container as the kubelet's killContainer does: its preStop hook (from its label, so this works
 * without the manifest) within the grace period, then the stop signal with what is left of the grace period
 * (at least 2 s), then SIGKILL. A container that is not running is left to the caller; grace 0 kills at once.
 * `listedLabels`: the container's labels from a list the caller just made; when they hold no preStop hook it is
 * stopped without an inspect first (a stop of a container that has just exited is a no-op for the engine).
 */
export async function stopGracefully(
  engine: ContainerLifecycle & ContainerReader & ExecPort,
  id: string,
  graceSeconds: number,
  listedLabels?: Record<string, string>,
): Promise<GracefulStop> {
  if (listedLabels !== undefined && preStopFromLabels(listedLabels) === undefined) {
    await engine.stopContainer(id, graceSeconds);
    return {};
  }
  const info = await engine.inspectContainer(id);
  if (!info) return {};
  const running = info.State.Running || info.State.Status === 'running';
  const preStop = running && graceSeconds > 0 ? preStopFromLabels(info.Config.Labels ?? {}) : undefined;
  if (!preStop) {
    await engine.stopContainer(id, graceSeconds);
    return {};
  }
  const started = Date.now();
  const podIp = await podIpOf(engine, info);
  const outcome = await runHook(preStop, { engine, containerId: id, ...(podIp ? { podIp } : {}), timeoutMs: graceSeconds * 1000 });
  const elapsed = Math.floor((Date.now() - started) / 1000);
  // killContainer: gracePeriod -= time the hook took; "always give containers a minimal shutdown window".
  const remaining = Math.max(minimumGraceAfterPreStopSeconds, graceSeconds - elapsed);
  await engine.stopContainer(id, remaining);
  return { preStop: { ...outcome, handler: describeHook(preStop), seconds: (Date.now() - started) / 1000 } };
}
