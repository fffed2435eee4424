// The httpGet lifecycle handler, from the host: GET scheme://host:port/path with the hook's headers. As the
// kubelet's lifecycle handler runner does, the hook has run when the server answered (whatever the status);
// it fails when the request does. HTTPS is not verified (the kubelet skips verification for hooks too).
import { nodeHttp, nodeHttps } from '../lazyBuiltins.js';
import type { HookHandler } from '../plan/lifecycle.js';

type HttpHook = Extract<HookHandler, { type: 'httpGet' }>;

export function httpGetOnce(h: HttpHook, host: string, timeoutMs: number): Promise<{ ok: boolean; message: string }> {
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const url = new URL(`${h.scheme === 'HTTPS' ? 'https' : 'http'}://${hostPart}:${h.port}${h.path}`);
  const headers: Record<string, string> = {};
  for (const { name, value } of h.headers) headers[name.toLowerCase()] = value;
  headers['user-agent'] ??= 'kube-lifecycle/runpod';
  return new Promise((resolve) => {
    const lib = url.protocol === 'https:' ? nodeHttps() : nodeHttp();
    const req = lib.request(url, { method: 'GET', headers, rejectUnauthorized: false, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ ok: true, message: `GET ${url.href}: ${res.statusCode ?? 0}` }));
      res.on('error', (err) => resolve({ ok: false, message: `GET ${url.href}: ${err.message}` }));
    });
    const timer = setTimeout(() => req.destroy(new Error(`timeout after ${Math.round(timeoutMs / 1000)}s`)), timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ ok: false, message: `GET ${url.href}: ${err.code ?? err.message}` }));
    req.end();
  });
}
