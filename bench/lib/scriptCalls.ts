// The docker CLI script of bench/dockerScript.ts, made as the same Engine API calls from one Node.js process: what
// any Node.js program doing that work pays at least (node's start, then the requests), with no namespace network,
// no settle, no look-ups. It measures the floor under runpod's own ratios to the script. Each pod: its infra
// container created and started on the default bridge, then its app containers created and started in parallel,
// joined to it; the pods in parallel. Down: one list by the script's label, every container removed with force
// at once (as `docker rm -f`).
//   node dist/bench/lib/scriptCalls.js up|down <spec.json>
import http from 'node:http';
import fs from 'node:fs';

export interface ScriptCallsSpec {
  socketPath: string;
  /** The label every container carries ("key=value"), as the script's `--label`. */
  label: string;
  infraImage: string;
  image: string;
  pods: { name: string; containers: number }[];
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function call(socketPath: string, method: string, path: string, body?: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers = data ? { 'Content-Type': 'application/json', 'Content-Length': data.length } : {};
    const req = http.request({ socketPath, method, path, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 0) >= 400) return reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`));
        resolve(text ? (JSON.parse(text) as unknown) : undefined);
      });
    });
    req.on('error', reject);
    req.end(data);
  });
}

async function run(s: ScriptCallsSpec, name: string, options: Record<string, unknown>): Promise<string> {
  const [k, v] = s.label.split('=') as [string, string];
  const created = (await call(s.socketPath, 'POST', `/containers/create?name=${encodeURIComponent(name)}`, { ...options, Labels: { [k]: v } })) as { Id: string };
  await call(s.socketPath, 'POST', `/containers/${created.Id}/start`);
  return created.Id;
}

async function up(s: ScriptCallsSpec): Promise<void> {
  await Promise.all(
    s.pods.map(async (p) => {
      const infra = await run(s, `${p.name}_infra`, { Image: s.infraImage });
      await Promise.all(
        Array.from({ length: p.containers }, (_, i) => run(s, `${p.name}_c${i}`, { Image: s.image, Cmd: ['sleep', '3600'], HostConfig: { NetworkMode: `container:${infra}` } })),
      );
    }),
  );
}

async function down(s: ScriptCallsSpec): Promise<void> {
  const filters = encodeURIComponent(JSON.stringify({ label: [s.label] }));
  const list = (await call(s.socketPath, 'GET', `/containers/json?all=1&filters=${filters}`)) as { Id: string }[];
  await Promise.all(list.map((c) => call(s.socketPath, 'DELETE', `/containers/${c.Id}?force=1`)));
}

const [mode, file] = process.argv.slice(2);
if ((mode === 'up' || mode === 'down') && file !== undefined) {
  const spec = JSON.parse(fs.readFileSync(file, 'utf8')) as ScriptCallsSpec;
  await (mode === 'up' ? up(spec) : down(spec));
  agent.destroy();
}
