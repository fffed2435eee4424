// httpGet probe, from the host (pkg/probe/http): GET scheme://host:port/path with the probe's headers; a status
// in [200, 400) is success. As the kubelet does: User-Agent kube-probe and Accept */* unless the probe sets
// them, a Host header from httpHeaders names the virtual host, HTTPS does not verify the certificate,
// redirects to the same host are followed (at most 10), a redirect to another host is not followed and counts
// as success, and at most 10 KiB of the body is kept as the probe's output.
import { nodeHttp, nodeHttps } from '../../lazyBuiltins.js';
import type { ProbeContext } from './context.js';
import { type HttpGetHandler, type ProbeOutcome, maxProbeOutput, probeUserAgent } from '../../kube/probes.js';

const maxRedirects = 10;

interface Reply {
  status: number;
  location?: string;
  body: string;
}

function get(url: URL, headers: Record<string, string>, deadline: number): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const lib = url.protocol === 'https:' ? nodeHttps() : nodeHttp();
    const req = lib.request(url, { method: 'GET', headers, rejectUnauthorized: false, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        if (body.length < maxProbeOutput) body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ...(res.headers.location ? { location: res.headers.location } : {}), body: body.slice(0, maxProbeOutput) }));
      res.on('error', reject);
    });
    const timer = setTimeout(() => req.destroy(new Error('timeout')), Math.max(0, deadline - Date.now()));
    req.on('close', () => clearTimeout(timer));
    req.on('error', reject);
    req.end();
  });
}

export async function httpProbe(h: HttpGetHandler, ctx: ProbeContext): Promise<ProbeOutcome> {
  let target: ReturnType<ProbeContext['address']>;
  try {
    target = ctx.address(h.port, h.host);
  } catch (err) {
    return { ok: false, output: err instanceof Error ? err.message : String(err) };
  }
  const hostPart = target.host.includes(':') ? `[${target.host}]` : target.host;
  let url = new URL(`${h.scheme === 'HTTPS' ? 'https' : 'http'}://${hostPart}:${target.port}${h.path}`);
  const headers: Record<string, string> = {};
  for (const { name, value } of h.headers) headers[name.toLowerCase()] = value;
  headers['user-agent'] ??= probeUserAgent;
  headers.accept ??= '*/*';
  const deadline = Date.now() + ctx.timeoutMs;
  try {
    for (let i = 0; ; i++) {
      const r = await get(url, headers, deadline);
      if (r.status >= 300 && r.status < 400 && r.location !== undefined && i < maxRedirects) {
        const next = new URL(r.location, url);
        if (next.hostname !== url.hostname) return { ok: true, output: `HTTP probe redirected to ${next.href} (not followed): ${r.status}` };
        url = next;
        continue;
      }
      if (r.status >= 200 && r.status < 400) return { ok: true, output: r.body.trim() };
      return { ok: false, output: `HTTP probe failed with statuscode: ${r.status}${r.body.trim() ? `: ${r.body.trim()}` : ''}` };
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.message === 'timeout' ? `timeout after ${ctx.timeoutMs / 1000}s` : (e.code ?? e.message);
    return { ok: false, output: `Get "${url.href}" (${target.via}): ${why}` };
  }
}
