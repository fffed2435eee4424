// One probe, whatever its handler: the dispatch over the one-file-per-handler modules.
import type { ProbeContext } from './context.js';
import { execProbe } from './exec.js';
import { grpcProbe } from './grpc.js';
import { httpProbe } from './http.js';
import { tcpProbe } from './tcp.js';
import type { ProbeHandler, ProbeOutcome } from './types.js';

export function runProbe(h: ProbeHandler, ctx: ProbeContext): Promise<ProbeOutcome> {
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
