// Where a pod's ports can be reached: the declared ports from the plan, joined with the host ports the
// engine actually bound on the infra container (the only way to learn a port the engine chose under
// --publish-all).
import type { ContainerReader } from '../engine/ports/containers.js';
import type { PortPlan } from '../plan/types.js';
import type { PodResult, PortResult } from './result.js';
import type { PodOutcome } from '../wait/runOnce.js';

/** The engine's NetworkSettings.Ports: "80/tcp" -> bindings, null for an exposed port not published. */
export type PortMap = Record<string, { HostIp?: string; HostPort?: string }[] | null | undefined>;

/** Pure: declared ports with the host port bound for each, as the engine reports them. */
export function publishedPorts(ports: PortPlan[], bound: PortMap | undefined): PortResult[] {
  return ports.map((p) => {
    const bindings = (bound?.[`${p.containerPort}/${p.protocol.toLowerCase()}`] ?? []).filter((b) => b.HostPort);
    // Docker binds an unaddressed port on IPv4 and IPv6 alike, with the same number; scripts want the IPv4 one.
    const b = bindings.find((x) => !(x.HostIp ?? '').includes(':')) ?? bindings[0];
    const result: PortResult = {
      container: p.container,
      ...(p.name !== undefined ? { name: p.name } : {}),
      containerPort: p.containerPort,
      protocol: p.protocol,
    };
    if (b?.HostPort) {
      result.hostPort = Number(b.HostPort);
      if (b.HostIp) result.hostIP = b.HostIp;
    }
    return result;
  });
}

/** The result with its ports, read from the running infra container (bindings exist only while it runs). */
export async function withPorts(engine: ContainerReader, outcome: PodOutcome, result: PodResult): Promise<PodResult> {
  const ports = outcome.plan.ports;
  if (ports.length === 0) return result;
  const infra = outcome.observed?.infra[0];
  let bound: PortMap | undefined;
  if (infra && infra.state === 'running') {
    // A pod whose infra vanished since the last check still gets its declared ports; the failure says why.
    const info = await engine.inspectContainer(infra.id).catch(() => undefined);
    bound = (info?.NetworkSettings?.Ports ?? undefined) as PortMap | undefined;
  }
  return { ...result, ports: publishedPorts(ports, bound) };
}
