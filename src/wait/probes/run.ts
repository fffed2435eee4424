// One probe, whatever its handler: the dispatch over the one-file-per-handler modules.
import { type ProbeContext, outputLine } from './context.js';
import { execProbe } from './exec.js';
import { grpcProbe } from './grpc.js';
import { httpProbe } from './http.js';
import { tcpProbe } from './tcp.js';
import type { ProbeHandler, ProbeOutcome } from '../../kube/probes.js';

/** Run the probe; its output comes back as one line (outputLine), whatever the handler read. */
export async function runProbe(h: ProbeHandler, ctx: ProbeContext): Promise<ProbeOutcome> {
  const outcome = await runHandler(h, ctx);
  return { ...outcome, output: outputLine(outcome.output) };
}

function runHandler(h: ProbeHandler, ctx: ProbeContext): Promise<ProbeOutcome> {
  switch (h.type) {
    case 'exec':
      return execProbe(h, ctx);
    case 'httpGet':
      return httpProbe(h, ctx);
    case 'tcpSocket':
      return tcpProbe(h, ctx);
    case 'grpc':
      return grpcProbe(h, ctx);
  }
}
