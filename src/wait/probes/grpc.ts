// grpc probe: the standard health service, grpc.health.v1.Health/Check, over cleartext HTTP/2 (pkg/probe/grpc:
// insecure transport, the probe's service name in the request). SERVING is success; any other status, a
// gRPC error or no answer within timeoutSeconds is failure. The request is small enough to write by hand with
// node:http2: one length-prefixed protobuf message { string service = 1 } and one back
// { ServingStatus status = 1 } (grpc/grpc-proto health.proto; framing per gRPC's PROTOCOL-HTTP2.md).
import type http2 from 'node:http2';
import { nodeHttp2 } from '../../lazyBuiltins.js';
import type { ProbeContext } from './context.js';
import { type GrpcHandler, type ProbeOutcome, probeUserAgent } from '../../kube/probes.js';

const servingStatus = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'];

function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}

/** HealthCheckRequest, length-prefixed: flag 0 (not compressed), 4-byte big-endian length, the message. */
export function encodeHealthCheckRequest(service: string): Buffer {
  const name = Buffer.from(service, 'utf8');
  // proto3 leaves an empty string out of the message.
  const message = name.length === 0 ? Buffer.alloc(0) : Buffer.concat([Buffer.from([0x0a, ...varint(name.length)]), name]);
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(message.length, 1);
  return Buffer.concat([prefix, message]);
}

/** The status field of the first HealthCheckResponse in a gRPC body; 0 (UNKNOWN) when absent, as proto3 reads it. */
export function decodeHealthCheckResponse(body: Buffer): number | undefined {
  if (body.length < 5) return undefined;
  if (body[0] !== 0) return undefined; // a compressed message: runpod offers no compression, so none is expected
  const len = body.readUInt32BE(1);
  const msg = body.subarray(5, 5 + len);
  if (msg.length < len) return undefined;
  let i = 0;
  let status = 0;
  const readVarint = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = msg[i++];
      if (b === undefined) throw new Error('truncated varint');
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
    }
  };
  while (i < msg.length) {
    const key = readVarint();
    const field = Math.floor(key / 8);
    const wire = key & 7;
    if (wire === 0) {
      const v = readVarint();
      if (field === 1) status = v;
    } else if (wire === 2) {
      const n = readVarint(); // read before adding: `i += readVarint()` would add to the old i
      i += n;
    } else if (wire === 5) i += 4;
    else if (wire === 1) i += 8;
    else return undefined;
  }
  return status;
}

export function grpcProbe(h: GrpcHandler, ctx: ProbeContext): Promise<ProbeOutcome> {
  let target: ReturnType<ProbeContext['address']>;
  try {
    target = ctx.address(h.port, '');
  } catch (err) {
    return Promise.resolve({ ok: false, output: err instanceof Error ? err.message : String(err) });
  }
  const where = `${target.host}:${target.port} (${target.via})`;
  const authority = `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
  return new Promise((resolve) => {
    let settled = false;
    const session = nodeHttp2().connect(`http://${authority}`);
    const done = (o: ProbeOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      session.destroy();
      resolve(o);
    };
    const timer = setTimeout(() => done({ ok: false, output: `timeout: health rpc to ${where} did not complete within ${ctx.timeoutMs / 1000}s` }), ctx.timeoutMs);
    session.on('error', (err: NodeJS.ErrnoException) => done({ ok: false, output: `failed to connect to ${where}: ${err.code ?? err.message}` }));
    const req = session.request({
      ':method': 'POST',
      ':path': '/grpc.health.v1.Health/Check',
      'content-type': 'application/grpc',
      te: 'trailers',
      'user-agent': probeUserAgent,
      'grpc-timeout': `${ctx.timeoutMs}m`,
    });
    const chunks: Buffer[] = [];
    let grpcStatus: string | undefined;
    let grpcMessage = '';
    const statusFrom = (headers: http2.IncomingHttpHeaders): void => {
      const s = headers['grpc-status'];
      if (typeof s === 'string') grpcStatus = s;
      const m = headers['grpc-message'];
      if (typeof m === 'string') grpcMessage = decodeURIComponent(m);
    };
    req.on('response', (headers) => {
      const status = headers[':status'];
      if (status !== 200) done({ ok: false, output: `health rpc to ${where} answered HTTP ${String(status)}, not gRPC` });
      statusFrom(headers); // a trailers-only answer carries grpc-status in its headers
    });
    req.on('trailers', statusFrom);
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('error', (err: NodeJS.ErrnoException) => {
      // A stream cancelled because its connection failed carries the connection's error as its cause.
      const cause = err.cause instanceof Error ? (err.cause as NodeJS.ErrnoException) : undefined;
      if (cause) done({ ok: false, output: `failed to connect to ${where}: ${cause.code ?? cause.message}` });
      else done({ ok: false, output: `health rpc to ${where}: ${err.code ?? err.message}` });
    });
    req.on('end', () => {
      if (grpcStatus !== undefined && grpcStatus !== '0') {
        // 12 is UNIMPLEMENTED: the server has no health service.
        const what = grpcStatus === '12' ? 'this server does not implement the grpc health protocol (grpc.health.v1.Health)' : `health rpc failed with gRPC status ${grpcStatus}`;
        done({ ok: false, output: `${what}${grpcMessage ? `: ${grpcMessage}` : ''}` });
        return;
      }
      let status: number | undefined;
      try {
        status = decodeHealthCheckResponse(Buffer.concat(chunks));
      } catch {
        status = undefined;
      }
      if (status === undefined) done({ ok: false, output: `health rpc to ${where}: no HealthCheckResponse in the answer` });
      else if (status === 1) done({ ok: true, output: 'service healthy' });
      else done({ ok: false, output: `service unhealthy (responded with "${servingStatus[status] ?? String(status)}")` });
    });
    req.end(encodeHealthCheckRequest(h.service));
  });
}
