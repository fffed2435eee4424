// `npm run bench` (kustomize): what rendering a kustomization adds to `runpod validate` (issue 26's target: less than
// 50 ms for a kustomization of 50 resources). Made at bench time in a temporary directory: a base of 16 apps (a
// Deployment, a Service and a generated ConfigMap each, one generated from a file) and an overlay over it
// (namePrefix, namespace, commonLabels, images, a merged and a new ConfigMap generator, a Secret generator, a
// strategic-merge patch by label selector and a JSON 6902 patch): 50 objects. The same 50 objects rendered once
// (`runpod kustomize`) to one plain YAML file. Then, in interleaved pairs (A B, A B …, so a slow spell falls on both),
// `runpod validate -k overlay` against `runpod validate rendered.yaml`, for bin/runpod and the single executable
// where built; the medians of each side and of the pairs' differences, in wall time and in CPU time (the child's
// user + system, as bash's `times` reports it, in milliseconds). Needs no engine.
//   BENCH_FILES=kustomize node scripts/bench.mjs        BENCH_PAIRS=41 … (default 21)
//   BENCH_KZ_BEFORE=<another checkout, built> …          that checkout's bin/runpod too, in the same rounds
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const runpodBin = path.join(root, 'bin', 'runpod');
const exeBin = path.join(root, 'dist', `runpod-linux-${process.arch}`);
const pairs = Math.max(3, Number(process.env.BENCH_PAIRS ?? 21));
const before = process.env.BENCH_KZ_BEFORE;
const apps = 16;
/** Issue 26: rendering a kustomization of 50 resources adds less than this to `validate`. */
const targetMs = 50;
const env = { ...process.env, CI: 'true', NO_COLOR: '1' };

const pad = (i: number): string => String(i).padStart(2, '0');

function deployment(i: number): string {
  const n = `app-${pad(i)}`;
  const tier = i % 2 === 0 ? 'backend' : 'frontend';
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${n}
  labels:
    app: ${n}
    tier: ${tier}
spec:
  replicas: 1
  selector:
    matchLabels:
      app: ${n}
  template:
    metadata:
      labels:
        app: ${n}
        tier: ${tier}
    spec:
      serviceAccountName: default
      terminationGracePeriodSeconds: 5
      containers:
      - name: main
        image: example.invalid/app:latest
        command: ["sh", "-c", "exec httpd -f -p 8080 -h /srv"]
        ports:
        - name: http
          containerPort: 8080
        envFrom:
        - configMapRef:
            name: ${n}-config
        - configMapRef:
            name: shared-settings
        env:
        - name: API_TOKEN
          valueFrom:
            secretKeyRef:
              name: api-credentials
              key: token
        - name: POD_NAME
          valueFrom:
            fieldRef:
              fieldPath: metadata.name
        resources:
          requests:
            cpu: 10m
            memory: 16Mi
          limits:
            memory: 64Mi
        readinessProbe:
          tcpSocket:
            port: http
          periodSeconds: 2
        volumeMounts:
        - name: config
          mountPath: /etc/app
      volumes:
      - name: config
        configMap:
          name: ${n}-config
`;
}

function service(i: number): string {
  const n = `app-${pad(i)}`;
  return `apiVersion: v1
kind: Service
metadata:
  name: ${n}
spec:
  selector:
    app: ${n}
  ports:
  - name: http
    port: 80
    targetPort: http
`;
}

/** The base and the overlay in dir; returns the overlay's directory. */
export function writeKustomization(dir: string): string {
  const base = path.join(dir, 'base');
  const overlay = path.join(dir, 'overlays', 'ci');
  fs.mkdirSync(base, { recursive: true });
  fs.mkdirSync(overlay, { recursive: true });
  const resources: string[] = [];
  const generators: string[] = [];
  for (let i = 0; i < apps; i++) {
    fs.writeFileSync(path.join(base, `deployment-${pad(i)}.yaml`), deployment(i));
    fs.writeFileSync(path.join(base, `service-${pad(i)}.yaml`), service(i));
    resources.push(`- deployment-${pad(i)}.yaml`, `- service-${pad(i)}.yaml`);
    generators.push(
      i === 0
        ? `- name: app-${pad(i)}-config\n  files:\n  - app.properties\n  literals:\n  - LOG_LEVEL=info`
        : `- name: app-${pad(i)}-config\n  literals:\n  - LOG_LEVEL=info\n  - APP_INDEX=${i}\n  - UPSTREAM=app-${pad((i + 1) % apps)}`,
    );
  }
  fs.writeFileSync(path.join(base, 'app.properties'), 'cache.size=64\ncache.ttl=30s\nfeature.search=true\n');
  fs.writeFileSync(
    path.join(base, 'kustomization.yaml'),
    `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
labels:
- pairs:
    app.kubernetes.io/part-of: bench
resources:
${resources.join('\n')}
configMapGenerator:
${generators.join('\n')}
`,
  );
  fs.writeFileSync(
    path.join(overlay, 'backend-resources.yaml'),
    `apiVersion: apps/v1
kind: Deployment
metadata:
  name: not-used-with-a-target
spec:
  template:
    spec:
      containers:
      - name: main
        resources:
          limits:
            memory: 128Mi
        env:
        - name: TIER
          value: backend
`,
  );
  fs.writeFileSync(
    path.join(overlay, 'kustomization.yaml'),
    `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- ../../base
namePrefix: ci-
namespace: bench-ci
commonLabels:
  env: ci
commonAnnotations:
  bench.example/owner: platform
images:
- name: example.invalid/app
  newName: runpod-test/busybox
  newTag: "1"
configMapGenerator:
- name: app-00-config
  behavior: merge
  literals:
  - LOG_LEVEL=debug
- name: shared-settings
  literals:
  - REGION=local
  - STAGE=ci
secretGenerator:
- name: api-credentials
  literals:
  - token=bench-token
patches:
- path: backend-resources.yaml
  target:
    kind: Deployment
    labelSelector: tier=backend
- target:
    group: apps
    version: v1
    kind: Deployment
    name: app-03
  patch: |-
    - op: replace
      path: /spec/replicas
      value: 2
    - op: add
      path: /spec/template/metadata/annotations
      value:
        bench.example/patched: "true"
`,
  );
  return overlay;
}

interface Sample {
  wallMs: number;
  cpuMs: number;
}

/**
 * Run `cmd args` under bash and read its CPU time from `times` (the second line: the children's user and system
 * time, to the millisecond); the wall time around the whole. Fails on a non-zero exit of the command.
 */
function measure(cmd: string, args: string[]): Sample {
  const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  const script = `${[cmd, ...args].map(q).join(' ')} >/dev/null 2>/tmp/.runpod-bench-kz-err.$$ || { cat /tmp/.runpod-bench-kz-err.$$ >&2; rm -f /tmp/.runpod-bench-kz-err.$$; exit 1; }; rm -f /tmp/.runpod-bench-kz-err.$$; times`;
  const started = process.hrtime.bigint();
  const r = spawnSync('bash', ['-c', script], { env, encoding: 'utf8' });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
  const children = r.stdout.trim().split('\n')[1] ?? '';
  const secs = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  if (secs.length !== 2) throw new Error(`bash times printed ${JSON.stringify(r.stdout)}`);
  return { wallMs, cpuMs: (secs[0]! + secs[1]!) * 1000 };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

interface Result {
  variant: string;
  k: Sample[];
  plain: Sample[];
}

interface Variant {
  variant: string;
  run: (args: string[]) => Sample;
}

/**
 * Every variant's pairs, interleaved: each round runs each variant's pair (the variants' order reversed every other
 * round, and which command of a pair goes first alternating), so a slow spell of a shared machine falls on all.
 */
function compare(variants: readonly Variant[], overlay: string, rendered: string): Result[] {
  const kArgs = ['validate', '-k', overlay];
  const plainArgs = ['validate', rendered];
  // Warm-up: the page cache, bin/runpod's code cache for the chunks each command loads.
  for (const { run } of variants) {
    for (let i = 0; i < 2; i++) {
      run(kArgs);
      run(plainArgs);
    }
  }
  const out: Result[] = variants.map(({ variant }) => ({ variant, k: [], plain: [] }));
  for (let i = 0; i < pairs; i++) {
    const order = variants.map((_, v) => v);
    if (i % 2 === 1) order.reverse();
    for (const v of order) {
      const { run } = variants[v]!;
      const res = out[v]!;
      if ((i + v) % 2 === 0) {
        res.k.push(run(kArgs));
        res.plain.push(run(plainArgs));
      } else {
        res.plain.push(run(plainArgs));
        res.k.push(run(kArgs));
      }
    }
  }
  return out;
}

function main(): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-bench-kz-'));
  try {
    const overlay = writeKustomization(dir);
    const rendered = path.join(dir, 'rendered.yaml');
    const r = spawnSync(process.execPath, [runpodBin, 'kustomize', overlay], { env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`runpod kustomize: exit ${r.status}\n${r.stderr}`);
    fs.writeFileSync(rendered, r.stdout);
    const objects = r.stdout.split(/^---$/m).filter((d) => /\bkind:/.test(d)).length;
    if (objects !== 50) throw new Error(`the kustomization rendered ${objects} objects, not 50`);

    const variants: Variant[] = [{ variant: 'bin/runpod', run: (args) => measure(process.execPath, [runpodBin, ...args]) }];
    if (fs.existsSync(exeBin)) variants.push({ variant: 'single executable', run: (args) => measure(exeBin, args) });
    // Another checkout, built (npm run build), measured in the same rounds: a before and after on one machine state.
    if (before !== undefined) {
      const beforeBin = path.join(path.resolve(before), 'bin', 'runpod');
      if (!fs.existsSync(beforeBin)) throw new Error(`BENCH_KZ_BEFORE: no ${beforeBin}`);
      variants.push({ variant: `bin/runpod of ${before}`, run: (args) => measure(process.execPath, [beforeBin, ...args]) });
    }
    const results = compare(variants, overlay, rendered);

    const out: string[] = [];
    out.push(
      `pairs: ${pairs} (medians) · ${objects} objects · node ${process.version} · ${os.cpus().length} CPUs · load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} · ${new Date().toISOString()}`,
    );
    out.push('');
    out.push(
      '| runpod | `validate rendered.yaml` wall / CPU ms | `validate -k overlay` wall / CPU ms | validate -k (50 resources) minus validate (same objects), wall ms (median of pairs) | the same, CPU ms | target |',
    );
    out.push('|---|---:|---:|---:|---:|---:|');
    const summary: string[] = [];
    for (const res of results) {
      const f = (xs: number[]): string => median(xs).toFixed(0);
      const wallAdded = median(res.k.map((k, i) => k.wallMs - res.plain[i]!.wallMs));
      const cpuAdded = median(res.k.map((k, i) => k.cpuMs - res.plain[i]!.cpuMs));
      const verdict = Math.max(wallAdded, cpuAdded) < targetMs ? 'met' : 'missed';
      out.push(
        `| ${res.variant} | ${f(res.plain.map((s) => s.wallMs))} / ${f(res.plain.map((s) => s.cpuMs))} | ${f(res.k.map((s) => s.wallMs))} / ${f(res.k.map((s) => s.cpuMs))} | **${wallAdded.toFixed(0)}** | ${cpuAdded.toFixed(0)} | < ${targetMs} ${verdict === 'met' ? 'met' : '**missed**'} |`,
      );
      summary.push(
        `${res.variant}: validate -k (${objects} resources) minus validate (same objects): ${wallAdded.toFixed(0)} ms wall, ${cpuAdded.toFixed(0)} ms CPU (target < ${targetMs} ms: ${verdict})`,
      );
    }
    out.push('', ...summary);
    console.log(out.join('\n'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// Run when started as a script (npm run bench), not when imported for its kustomization.
if (process.argv[1] === fileURLToPath(import.meta.url)) main();
