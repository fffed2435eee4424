// tcpSocket probe: success when a TCP connection opens within timeoutSeconds (pkg/probe/tcp: DialTimeout, then
// close). Run from the host, so the image needs no nc.
import net from 'node:net';
import type { ProbeContext } from './context.js';
import type { ProbeOutcome, TcpSocketHandler } from '../../kube/probes.js';

export function tcpProbe(h: TcpSocketHandler, ctx: ProbeContext): Promise<ProbeOutcome> {
  let to: ReturnType<ProbeContext['address']>;
  try {
    to = ctx.address(h.port, h.host);
  } catch (err) {
    return Promise.resolve({ ok: false, output: err instanceof Error ? err.message : String(err) });
  }
  const target = to;
  return new Promise((resolve) => {
    const socket = net.connect({ host: target.host, port: target.port });
    const done = (o: ProbeOutcome): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(o);
    };
    const timer = setTimeout(
      () => done({ ok: false, output: `dial tcp ${target.host}:${target.port} (${target.via}): i/o timeout after ${ctx.timeoutMs / 1000}s` }),
      ctx.timeoutMs,
    );
    socket.once('connect', () => done({ ok: true, output: `connected to ${target.host}:${target.port}` }));
    socket.once('error', (err: NodeJS.ErrnoException) => done({ ok: false, output: `dial tcp ${target.host}:${target.port} (${target.via}): ${err.code ?? err.message}` }));
  });
}
