// The baseline of `npm run bench`: the bare Engine API calls that do the work of one `runpod` up or down, from a
// minimal client over the unix socket (node:http, nothing else loaded). It creates exactly the containers runpod
// creates — names, labels, options computed by runpod's own plan (bench/speed.ts writes them to a JSON file) — in
// the same order: infra created and started, then the app containers created and started in parallel, then one
// inspect each to see them running. Down: list by runpod's labels, stop the app containers in parallel within the
// grace period, then the infra container, then remove them all.
//   node dist/bench/lib/bare.js up|down <spec.json>
import http from 'node:http';
import fs from 'node:fs';

export interface BareContainer {
  name: string;
  options: Record<string, unknown>;
}
export interface BarePod {
  infra: BareContainer;
  containers: BareContainer[];
  /** runpod's label selector for the pod ("key=value"). */
  selector: string[];
  grace: number;
}
export interface BareSpec {
  socketPath: string;
  pods: BarePod[];
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

function call(socketPath: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request({ socketPath, method, path, agent, headers: data ? { 'Content-Type': 'application/json', 'Content-Length': data.length } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 0;
        if (status >= 400) return reject(new Error(`${method} ${path}: ${status} ${text}`));
        resolve({ status, json: text ? (JSON.parse(text) as unknown) : undefined });
      });
    });
    req.on('error', reject);
    req.end(data);
  });
}

async function createAndStart(socketPath: string, c: BareContainer, options: Record<string, unknown>): Promise<string> {
  const created = await call(socketPath, 'POST', `/containers/create?name=${encodeURIComponent(c.name)}`, options);
  const id = (created.json as { Id: string }).Id;
  await call(socketPath, 'POST', `/containers/${id}/start`);
  return id;
}

async function ensureNetwork(socketPath: string, name: string): Promise<void> {
  const found = await call(socketPath, 'GET', `/networks/${encodeURIComponent(name)}`).catch(() => undefined);
  if (found !== undefined) return;
  const namespace = name.slice('runpod_'.length).split('.')[0] ?? '';
  await call(socketPath, 'POST', '/networks/create', {
    Name: name,
    Driver: 'bridge',
    CheckDuplicate: true,
    Labels: { 'app.kubernetes.io/managed-by': 'runpod', 'io.runpod.network.namespace': namespace },
  });
}

async function up(spec: BareSpec, pod: BarePod): Promise<void> {
  const s = spec.socketPath;
  const infraId = await createAndStart(s, pod.infra, pod.infra.options);
  const ids = await Promise.all(
    pod.containers.map((c) => {
      const host = (c.options.HostConfig ?? {}) as Record<string, unknown>;
      return createAndStart(s, c, { ...c.options, HostConfig: { ...host, NetworkMode: `container:${infraId}`, IpcMode: `container:${infraId}` } });
    }),
  );
  const states = await Promise.all([infraId, ...ids].map((id) => call(s, 'GET', `/containers/${id}/json`)));
  for (const st of states) {
    if (!(st.json as { State: { Running: boolean } }).State.Running) throw new Error('a container is not running');
  }
}

async function down(spec: BareSpec, pod: BarePod): Promise<void> {
  const s = spec.socketPath;
  const filters = encodeURIComponent(JSON.stringify({ label: pod.selector }));
  const list = (await call(s, 'GET', `/containers/json?all=1&filters=${filters}`)).json as { Id: string; State: string; Labels: Record<string, string> }[];
  const isInfra = (c: { Labels: Record<string, string> }): boolean => c.Labels['io.kubernetes.container.name'] === 'POD';
  const stop = (cs: typeof list): Promise<unknown> => Promise.all(cs.filter((c) => c.State === 'running').map((c) => call(s, 'POST', `/containers/${c.Id}/stop?t=${pod.grace}`)));
  await stop(list.filter((c) => !isInfra(c)));
  await stop(list.filter(isInfra));
  await Promise.all(list.map((c) => call(s, 'DELETE', `/containers/${c.Id}?force=1&v=1`)));
}

const [mode, file] = process.argv.slice(2);
if ((mode === 'up' || mode === 'down') && file !== undefined) {
  const spec = JSON.parse(fs.readFileSync(file, 'utf8')) as BareSpec;
  // The namespace's network, as runpod makes it before its pods and removes it after them (the same work).
  const networks = [
    ...new Set(spec.pods.map((p) => String((p.infra.options.HostConfig as Record<string, unknown> | undefined)?.NetworkMode ?? '')).filter((n) => n.startsWith('runpod_'))),
  ];
  if (mode === 'up') await Promise.all(networks.map((n) => ensureNetwork(spec.socketPath, n)));
  await Promise.all(spec.pods.map((p) => (mode === 'up' ? up(spec, p) : down(spec, p))));
  if (mode === 'down') await Promise.all(networks.map((n) => call(spec.socketPath, 'DELETE', `/networks/${encodeURIComponent(n)}`).catch(() => undefined)));
  agent.destroy();
}
