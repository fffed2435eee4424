// The host-side probe handlers against servers in this test process: grpc (a grpc.health.v1 server on
// node:http2, since no image here can serve gRPC offline), httpGet and tcpSocket. The address callback stands in
// for the pod's IP.
import assert from 'node:assert/strict';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Engine } from '../../../src/engine/ports/engine.js';
import type { ProbeContext } from '../../../src/wait/probes/context.js';
import { decodeHealthCheckResponse, encodeHealthCheckRequest, grpcProbe } from '../../../src/wait/probes/grpc.js';
import { httpProbe } from '../../../src/wait/probes/http.js';
import { runProbe } from '../../../src/wait/probes/run.js';
import { tcpProbe } from '../../../src/wait/probes/tcp.js';
import { addressingFor } from '../../../src/wait/probes/manager.js';

function ctx(port: number, timeoutMs = 1000): ProbeContext {
  return {
    engine: {} as Engine,
    containerId: 'c1',
    timeoutMs,
    address: (p: number, host: string) => ({ host: host || '127.0.0.1', port: p === 1 ? port : p, via: 'test' }),
  };
}

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
}

/** A length-prefixed HealthCheckResponse { status }. */
function response(status: number): Buffer {
  const msg = status === 0 ? Buffer.alloc(0) : Buffer.from([0x08, status]);
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(msg.length, 1);
  return Buffer.concat([prefix, msg]);
}

describe('grpc health protocol encoding', () => {
  it('encodes HealthCheckRequest: empty service is an empty message; a name is field 1, length-delimited', () => {
    assert.deepEqual([...encodeHealthCheckRequest('')], [0, 0, 0, 0, 0]);
    assert.deepEqual([...encodeHealthCheckRequest('db')], [0, 0, 0, 0, 4, 0x0a, 2, 0x64, 0x62]);
  });
  it('decodes the status field, skipping unknown fields; absent status reads UNKNOWN (0)', () => {
    assert.equal(decodeHealthCheckResponse(response(1)), 1);
    assert.equal(decodeHealthCheckResponse(response(2)), 2);
    assert.equal(decodeHealthCheckResponse(response(0)), 0);
    const withExtra = Buffer.from([0, 0, 0, 0, 6, 0x12, 2, 0x61, 0x62, 0x08, 0x01]);
    assert.equal(decodeHealthCheckResponse(withExtra), 1);
    assert.equal(decodeHealthCheckResponse(Buffer.from([0, 0, 0])), undefined);
  });
});

describe('grpc probe against an in-process grpc.health.v1 server', () => {
  const statuses = new Map<string, number>([
    ['', 1],
    ['db', 2],
  ]);
  const seen: { service: string; contentType: string | undefined; te: string | undefined }[] = [];
  const server = http2.createServer();
  let port = 0;
  before(async () => {
    server.on('stream', (stream, headers) => {
      if (headers[':path'] !== '/grpc.health.v1.Health/Check') {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '12', 'grpc-message': 'unknown method' }, { endStream: true });
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (d: Buffer) => chunks.push(d));
      stream.on('end', () => {
        const body = Buffer.concat(chunks);
        const service = body.length > 7 ? body.subarray(7).toString('utf8') : '';
        seen.push({ service, contentType: headers['content-type'], te: headers.te as string | undefined });
        const status = statuses.get(service);
        if (status === undefined) {
          stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '5', 'grpc-message': 'unknown service' }, { endStream: true });
          return;
        }
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end(response(status));
      });
    });
    port = await listen(server);
  });
  after(() => server.close());

  it("SERVING passes, and the request is a gRPC call with the probe's service", async () => {
    const r = await grpcProbe({ type: 'grpc', port: 1, service: '' }, ctx(port));
    assert.deepEqual(r, { ok: true, output: 'service healthy' });
    assert.deepEqual(seen.at(-1), { service: '', contentType: 'application/grpc', te: 'trailers' });
  });
  it('NOT_SERVING fails, naming the status', async () => {
    const r = await grpcProbe({ type: 'grpc', port: 1, service: 'db' }, ctx(port));
    assert.deepEqual(r, { ok: false, output: 'service unhealthy (responded with "NOT_SERVING")' });
    assert.equal(seen.at(-1)?.service, 'db');
  });
  it('a gRPC error status fails with its message', async () => {
    const r = await grpcProbe({ type: 'grpc', port: 1, service: 'nope' }, ctx(port));
    assert.equal(r.ok, false);
    assert.match(r.output, /gRPC status 5: unknown service/);
  });
  it('nothing listening fails with the connection error', async () => {
    const gone = net.createServer();
    const closed = await listen(gone);
    await new Promise((r) => gone.close(r));
    const r = await grpcProbe({ type: 'grpc', port: 1, service: '' }, ctx(closed));
    assert.equal(r.ok, false);
    assert.match(r.output, /ECONNREFUSED/);
  });
  it('a server that never answers fails at timeoutSeconds', async () => {
    const silent = net.createServer((socket) => socket.setTimeout(500, () => socket.destroy()));
    const p = await listen(silent);
    const started = Date.now();
    const r = await grpcProbe({ type: 'grpc', port: 1, service: '' }, ctx(p, 300));
    await new Promise((r) => silent.close(r));
    assert.equal(r.ok, false);
    assert.match(r.output, /did not complete within 0.3s/);
    assert.ok(Date.now() - started < 2000);
  });
});

describe('httpGet probe', () => {
  const requests: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.headers);
    if (req.url === '/ok') res.end('fine');
    else if (req.url === '/redirect') res.writeHead(302, { location: '/ok' }).end();
    else if (req.url === '/away') res.writeHead(302, { location: 'http://elsewhere.invalid/' }).end();
    else if (req.url === '/slow') setTimeout(() => res.end('late'), 2000);
    else if (req.url === '/html')
      res
        .writeHead(500)
        .end(
          `<html>\r\n<head><title>500 Internal Server Error</title></head>\r\n<body>\r\n<center><h1>500 Internal Server Error</h1></center>\r\n${'x'.repeat(400)}\r\n</body>\r\n</html>\r\n`,
        );
    else res.writeHead(503).end('warming up');
  });
  let port = 0;
  before(async () => {
    port = await listen(server);
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  const h = (path: string, headers: { name: string; value: string }[] = []) => ({ type: 'httpGet' as const, scheme: 'HTTP' as const, host: '', path, port: 1, headers });

  const rows: Array<{ path: string; ok: boolean; output: RegExp }> = [
    { path: '/ok', ok: true, output: /^fine$/ },
    { path: '/redirect', ok: true, output: /^fine$/ },
    { path: '/away', ok: true, output: /redirected to http:\/\/elsewhere.invalid\/ \(not followed\)/ },
    { path: '/other', ok: false, output: /^HTTP probe failed with statuscode: 503: warming up$/ },
  ];
  for (const row of rows) {
    it(`${row.path}: ${row.ok ? 'passes' : 'fails'} (200-399 passes; same-host redirects followed)`, async () => {
      const r = await httpProbe(h(row.path), ctx(port));
      assert.equal(r.ok, row.ok, r.output);
      assert.match(r.output, row.output);
    });
  }
  it("sends kube-probe's User-Agent and Accept unless the probe sets them, and the probe's headers", async () => {
    await httpProbe(
      h('/ok', [
        { name: 'X-Probe', value: 'yes' },
        { name: 'Host', value: 'example.test' },
      ]),
      ctx(port),
    );
    const last = requests.at(-1)!;
    assert.equal(last['user-agent'], 'kube-probe/runpod');
    assert.equal(last.accept, '*/*');
    assert.equal(last['x-probe'], 'yes');
    assert.equal(last.host, 'example.test');
  });
  it("a failing probe's output is one line however many its body has, cut to 200 characters (runProbe)", async () => {
    const r = await runProbe(h('/html'), ctx(port));
    assert.equal(r.ok, false);
    assert.doesNotMatch(r.output, /[\r\n]/);
    assert.ok(r.output.startsWith('HTTP probe failed with statuscode: 500: <html> <head><title>500 Internal Server Error</title></head> <body> <center>'), r.output);
    assert.equal(r.output.length, 200);
    assert.ok(r.output.endsWith('x…'), r.output);
  });
  it('fails at timeoutSeconds', async () => {
    const r = await httpProbe(h('/slow'), ctx(port, 200));
    assert.equal(r.ok, false);
    assert.match(r.output, /timeout after 0.2s/);
  });
});

describe('tcpSocket probe', () => {
  it('passes when a connection opens, fails when refused', async () => {
    const server = net.createServer((s) => s.end());
    const port = await listen(server);
    assert.equal((await tcpProbe({ type: 'tcpSocket', host: '', port: 1 }, ctx(port))).ok, true);
    await new Promise((r) => server.close(r));
    const r = await tcpProbe({ type: 'tcpSocket', host: '', port: 1 }, ctx(port));
    assert.equal(r.ok, false);
    assert.match(r.output, /ECONNREFUSED/);
  });
});

describe('where probes connect', () => {
  const rows: Array<{ address: string; platform: NodeJS.Platform; podIpReachable: boolean; engineHost: string }> = [
    { address: 'unix:///var/run/docker.sock', platform: 'linux', podIpReachable: true, engineHost: '127.0.0.1' },
    { address: 'unix:///var/run/docker.sock', platform: 'darwin', podIpReachable: false, engineHost: '127.0.0.1' },
    { address: 'tcp://10.0.0.5:2376', platform: 'linux', podIpReachable: false, engineHost: '10.0.0.5' },
    { address: 'ssh://me@build-host', platform: 'linux', podIpReachable: false, engineHost: 'build-host' },
  ];
  for (const row of rows) {
    it(`${row.address} on ${row.platform}: ${row.podIpReachable ? 'the pod IP' : `published ports on ${row.engineHost}`}`, () => {
      assert.deepEqual(addressingFor(row.address, row.platform), { podIpReachable: row.podIpReachable, engineHost: row.engineHost });
    });
  }
});
