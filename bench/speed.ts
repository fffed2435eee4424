// `npm run bench` (speed): runpod against the bare Engine API and the docker CLI doing the same work, side by
// side, as medians of BENCH_RUNS runs (default 5), with each child's peak memory (/usr/bin/time's maximum RSS).
// Needs a running engine and the test image (scripts/engine-up.sh). Prints a Markdown table for BENCHMARKS.md.
//   npm run bench            BENCH_RUNS=9 npm run bench
//   BENCH_SECTIONS='start-up,one pod,no-op re-run' npm run bench    (only those; the 20-pod section loads the
//   machine for minutes, which the rows measured after it feel)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadManifests } from '../src/manifest/load.js';
import { instanceCreateOptions, translatePod } from '../src/plan/translate.js';
import { pauseImageRef } from '../src/reconcile/pauseImage.js';
import { podSelector } from '../src/kube/labels.js';
import { infraTerminationLogPath } from '../src/plan/volumes.js';
import type { BarePod, BareSpec } from './lib/bare.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const runpodBin = path.join(root, 'bin', 'runpod');
const bareBin = path.join(here, 'lib', 'bare.js');
// The single executable (npm run build:exe, which npm run bench runs first): the same commands from it, where built.
const exeBin = path.join(root, 'dist', `runpod-linux-${process.arch}`);
const hasExe = fs.existsSync(exeBin);
const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 5));
const image = process.env.BENCH_IMAGE ?? 'runpod-test/busybox:1';
const socketPath = (process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock').replace(/^unix:\/\//, '');
const timeBin = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const env = { ...process.env, CI: 'true', NO_COLOR: '1' };

interface Sample {
  ms: number;
  /** Peak resident memory of the process (or of its largest child, for a shell script), KiB. */
  peakKb?: number;
}

/** Run a command to completion; its wall time and peak RSS. Fails the benchmark on a non-zero exit. */
function measure(cmd: string, args: string[]): Sample {
  const started = process.hrtime.bigint();
  const r = timeBin ? spawnSync(timeBin, ['-f', '@@peak %M', cmd, ...args], { env, encoding: 'utf8' }) : spawnSync(cmd, args, { env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}\n${r.stdout}\n${r.stderr}`);
  const peak = /@@peak (\d+)/.exec(r.stderr ?? '');
  return { ms, ...(peak ? { peakKb: Number(peak[1]) } : {}) };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const command = ['sh', '-c', "trap 'exit 0' TERM; sleep 3600 & wait"];

function podYaml(name: string, containers: number): string {
  const cs = Array.from({ length: containers }, (_, i) => `  - name: c${i}\n    image: ${image}\n    command: ${JSON.stringify(command)}\n`).join('');
  return `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  terminationGracePeriodSeconds: 1\n  containers:\n${cs}`;
}

/** runpod's own plan for the manifests: what the bare client and the docker CLI create too. */
async function planPods(inputs: string[]): Promise<BarePod[]> {
  const arch = spawnSync('docker', ['version', '--format', '{{.Server.Arch}}'], { encoding: 'utf8' }).stdout.trim();
  const { pods } = await loadManifests(inputs, { defaultNamespace: 'default' });
  return pods.map((p) => {
    const plan = translatePod(p, { infraImage: pauseImageRef(arch) });
    const infra = instanceCreateOptions(plan, plan.infra, 0);
    // Without the termination-log volume the infra container holds for runpod (see the containers below).
    const infraMounts = (infra.options.HostConfig?.Mounts ?? []).filter((m) => m.Target !== infraTerminationLogPath);
    const infraOptions = { ...infra.options, HostConfig: { ...infra.options.HostConfig, Mounts: infraMounts } };
    return {
      infra: { name: infra.name, options: infraOptions as Record<string, unknown> },
      containers: plan.containers.map((c) => {
        // Without the termination-message bind: its volume and files are runpod's own extra work (a volume, and
        // one archive through the infra container while it starts), which the bare client and the CLI skip.
        const unbound = c.terminationMessage ? { ...c, terminationMessage: { ...c.terminationMessage, bound: false } } : c;
        const x = instanceCreateOptions(plan, unbound, 0);
        // Without the pod's files (the namespace file, a pod's own resolv.conf): runpod writes them into that same
        // volume, and their sources are resolved only when it exists (a runtime reference to its mount point).
        const mounts = (x.options.HostConfig?.Mounts ?? []).filter((m) => !String(m.Source ?? '').includes('\u0000runpod:'));
        return { name: x.name, options: { ...x.options, HostConfig: { ...x.options.HostConfig, Mounts: mounts } } as Record<string, unknown> };
      }),
      selector: podSelector(plan.namespace, plan.name),
      grace: plan.gracePeriodSeconds,
    };
  });
}

const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The docker CLI commands for one pod: docker run -d per container (infra first), and docker stop + rm. */
function dockerScripts(pod: BarePod): { up: string; down: string } {
  const run = (c: BarePod['infra'], infraName?: string): string => {
    const o = c.options as {
      Image: string;
      Hostname?: string;
      StopTimeout?: number;
      Env?: string[];
      Entrypoint?: string[];
      Cmd?: string[];
      Labels: Record<string, string>;
      HostConfig: { IpcMode?: string; NetworkMode?: string; RestartPolicy?: { Name: string }; CpuShares?: number };
    };
    const a = ['docker', 'run', '-d', '-q', '--name', c.name];
    for (const [k, v] of Object.entries(o.Labels)) a.push('--label', `${k}=${v}`);
    if (o.Hostname) a.push('--hostname', o.Hostname);
    if (o.StopTimeout !== undefined) a.push('--stop-timeout', String(o.StopTimeout));
    if (o.HostConfig.RestartPolicy) a.push('--restart', o.HostConfig.RestartPolicy.Name);
    if (o.HostConfig.CpuShares) a.push('--cpu-shares', String(o.HostConfig.CpuShares));
    if (infraName) a.push('--network', `container:${infraName}`, '--ipc', `container:${infraName}`);
    else {
      if (o.HostConfig.IpcMode) a.push('--ipc', o.HostConfig.IpcMode);
      if (o.HostConfig.NetworkMode) a.push('--network', o.HostConfig.NetworkMode);
    }
    for (const e of o.Env ?? []) a.push('-e', e);
    const entry = o.Entrypoint ?? [];
    if (entry.length > 0) a.push('--entrypoint', entry[0]!);
    a.push(o.Image, ...entry.slice(1), ...(o.Cmd ?? []));
    return a.map(q).join(' ');
  };
  const names = pod.containers.map((c) => q(c.name)).join(' ');
  const up = [
    `${run(pod.infra)} >/dev/null`,
    ...pod.containers.map((c) => `${run(c, pod.infra.name)} >/dev/null &`),
    'wait',
    `docker inspect -f '{{.State.Running}}' ${q(pod.infra.name)} ${names} | grep -qv false`,
  ].join('\n');
  const down = [
    `docker stop -t ${pod.grace} ${names} >/dev/null`,
    `docker stop -t ${pod.grace} ${q(pod.infra.name)} >/dev/null`,
    `docker rm -f -v ${q(pod.infra.name)} ${names} >/dev/null`,
  ].join('\n');
  return { up, down };
}

/**
 * Several pods from the docker CLI: each pod's commands in order, the pods in parallel. The namespaces' networks
 * are made (when missing) before them and removed after them, once each, as runpod does: made by every pod at
 * once they would be made several times over (Docker does not create a network by name atomically).
 */
function dockerScript(pods: BarePod[], which: 'up' | 'down'): string {
  const networks = [...new Set(pods.map((p) => (p.infra.options.HostConfig as { NetworkMode?: string } | undefined)?.NetworkMode ?? '').filter((n) => n.startsWith('runpod_')))];
  const ensure = networks.map(
    (n) =>
      `docker network inspect ${q(n)} >/dev/null 2>&1 || docker network create --label app.kubernetes.io/managed-by=runpod --label io.runpod.network.namespace=${q(n.slice('runpod_'.length).split('.')[0] ?? '')} ${q(n)} >/dev/null`,
  );
  const drop = networks.map((n) => `docker network rm ${q(n)} >/dev/null 2>&1 || true`);
  const body = pods.length === 1 ? dockerScripts(pods[0]!)[which] : `${pods.map((p) => `(\n${dockerScripts(p)[which]}\n) &`).join('\n')}\nwait`;
  return [...(which === 'up' ? ensure : []), body, ...(which === 'down' ? drop : [])].join('\n') + '\n';
}

/** Remove the benchmark's pods: their containers, then runpod's volumes of them (termination messages). */
function cleanup(prefix: string): void {
  const ids = spawnSync('docker', ['ps', '-aq', '--filter', 'label=app.kubernetes.io/managed-by=runpod', '--filter', `name=_${prefix}`], { encoding: 'utf8' }).stdout.trim();
  if (ids) spawnSync('docker', ['rm', '-f', '-v', ...ids.split('\n')]);
  const pod = prefix.replace(/_$/, '');
  const volumes = spawnSync('docker', ['volume', 'ls', '--filter', 'label=app.kubernetes.io/managed-by=runpod', '--format', '{{.Name}} {{.Label "io.kubernetes.pod.name"}}'], {
    encoding: 'utf8',
  })
    .stdout.split('\n')
    .map((l) => l.split(' '))
    .filter(([name, of]) => name && of !== undefined && (prefix.endsWith('_') ? of === pod : of.startsWith(prefix)))
    .map(([name]) => name!);
  if (volumes.length > 0) spawnSync('docker', ['volume', 'rm', ...volumes]);
}

interface Row {
  what: string;
  variant: string;
  samples: Sample[];
}
const rows: Row[] = [];

function record(what: string, variant: string, s: Sample): void {
  let row = rows.find((r) => r.what === what && r.variant === variant);
  if (!row) rows.push((row = { what, variant, samples: [] }));
  row.samples.push(s);
}

const exeVariant = (target: string): [string, () => Sample, () => Sample] => [
  'runpod executable',
  () => measure(exeBin, ['--timeout', '120s', target]),
  () => measure(exeBin, ['down', target]),
];

async function upDown(what: string, target: string, inputs: string[], prefix: string): Promise<void> {
  const pods = await planPods(inputs);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-bench-'));
  const spec = path.join(dir, 'spec.json');
  fs.writeFileSync(spec, JSON.stringify({ socketPath, pods } satisfies BareSpec));
  const up = path.join(dir, 'up.sh');
  const down = path.join(dir, 'down.sh');
  fs.writeFileSync(up, dockerScript(pods, 'up'));
  fs.writeFileSync(down, dockerScript(pods, 'down'));
  cleanup(prefix);
  // A warm-up of each: images, page cache, runpod's infra image imported once.
  measure(process.execPath, [runpodBin, '--timeout', '120s', target]);
  measure(process.execPath, [runpodBin, 'down', target]);
  if (hasExe) {
    measure(exeBin, ['--timeout', '120s', target]);
    measure(exeBin, ['down', target]);
  }
  measure(process.execPath, [bareBin, 'up', spec]);
  measure(process.execPath, [bareBin, 'down', spec]);
  for (let i = 0; i < runs; i++) {
    // Interleaved, so a slow spell on the machine falls on every variant alike.
    const variants: Array<[string, () => Sample, () => Sample]> = [
      ['runpod', () => measure(process.execPath, [runpodBin, '--timeout', '120s', target]), () => measure(process.execPath, [runpodBin, 'down', target])],
      // The bare client counts a container as running on its first inspect; runpod waits --settle (100ms by
      // default) of uptime first. With --settle 0 both do the same work, and the gap is runpod's own overhead.
      [
        'runpod --settle 0',
        () => measure(process.execPath, [runpodBin, '--settle', '0', '--timeout', '120s', target]),
        () => measure(process.execPath, [runpodBin, 'down', target]),
      ],
      ...(hasExe ? [exeVariant(target)] : []),
      ['bare Engine API', () => measure(process.execPath, [bareBin, 'up', spec]), () => measure(process.execPath, [bareBin, 'down', spec])],
      ['docker CLI', () => measure('sh', [up]), () => measure('sh', [down])],
    ];
    for (const [variant, u, d] of variants) {
      try {
        const a = u();
        const b = d();
        record(what, variant, { ms: a.ms + b.ms, ...(a.peakKb !== undefined ? { peakKb: Math.max(a.peakKb, b.peakKb ?? 0) } : {}) });
        record(`${what}: up`, variant, a);
        record(`${what}: down`, variant, b);
      } finally {
        cleanup(prefix);
      }
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

const failures: string[] = [];

/** One section of the benchmark; a failure (the engine refusing, say) is reported and the others still run. */
const sections = process.env.BENCH_SECTIONS ? new Set(process.env.BENCH_SECTIONS.split(',').map((s) => s.trim())) : undefined;

async function section(what: string, body: () => Promise<void> | void): Promise<void> {
  if (sections !== undefined && !sections.has(what)) return;
  try {
    await body();
  } catch (err) {
    // The command and its first error line (a stack's first line is only where it was thrown).
    const lines = err instanceof Error ? err.message.split('\n').filter((l) => l.trim() !== '') : [String(err)];
    const cause = lines.find((l) => /^\s*Error: /.test(l));
    failures.push(`${what}: ${[lines[0], ...(cause !== undefined && cause !== lines[0] ? [cause] : [])].join(' / ')}`);
  }
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-bench-'));
  try {
    await section('start-up', () => {
      const pod = path.join(dir, 'validate.yaml');
      fs.writeFileSync(pod, podYaml('bench-validate', 1));
      for (let i = 0; i < runs + 1; i++) {
        const keep = i > 0; // the first round warms the page cache
        const n = measure(process.execPath, ['-e', '0']);
        const v = measure(process.execPath, [runpodBin, '--version']);
        const h = measure(process.execPath, [runpodBin, '--help']);
        const val = measure(process.execPath, [runpodBin, 'validate', pod]);
        const ev = hasExe ? measure(exeBin, ['--version']) : undefined;
        const eval_ = hasExe ? measure(exeBin, ['validate', pod]) : undefined;
        if (!keep) continue;
        record('node -e 0', 'node', n);
        record('runpod --version', 'runpod', v);
        record('runpod --help', 'runpod', h);
        record('runpod validate (one pod)', 'runpod', val);
        if (ev) record('runpod --version', 'single executable', ev);
        if (eval_) record('runpod validate (one pod)', 'single executable', eval_);
      }
    });

    const one = path.join(dir, 'one.yaml');
    fs.writeFileSync(one, podYaml('bench-one', 3));
    await section('one pod', () => upDown('one pod (infra + 3 containers), up and down', one, [one], 'bench-one_'));

    const many = path.join(dir, 'twenty');
    fs.mkdirSync(many);
    for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(many, `pod-${String(i).padStart(2, '0')}.yaml`), podYaml(`bench-many-${i}`, 3));
    await section('20 pods', () => upDown('20 pods (a directory), up and down', many, [many], 'bench-many-'));

    const ten = path.join(dir, 'ten.yaml');
    fs.writeFileSync(ten, podYaml('bench-ten', 10));
    await section('no-op re-run', () => {
      cleanup('bench-ten_');
      try {
        measure(process.execPath, [runpodBin, '--timeout', '120s', ten]);
        measure(process.execPath, [runpodBin, '--timeout', '120s', ten]); // warm-up
        for (let i = 0; i < runs; i++) {
          record('no-op re-run of an unchanged 10-container pod', 'runpod', measure(process.execPath, [runpodBin, '--timeout', '120s', ten]));
          if (hasExe) record('no-op re-run of an unchanged 10-container pod', 'runpod executable', measure(exeBin, ['--timeout', '120s', ten]));
        }
      } finally {
        // runpod's own down, so the namespace network it made goes too (cleanup removes containers and volumes only).
        spawnSync(process.execPath, [runpodBin, 'down', '--grace', '0', ten], { stdio: 'ignore' });
        cleanup('bench-ten_');
      }
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  report();
  if (failures.length > 0) {
    console.log(`\nnot measured:\n${failures.map((f) => `- ${f}`).join('\n')}`);
    process.exitCode = 1;
  }
}

function report(): void {
  const base = (what: string): Row | undefined => rows.find((r) => r.what === what && (r.variant === 'bare Engine API' || r.variant === 'node'));
  const out: string[] = [];
  out.push(
    `runs: ${runs} (medians) · node ${process.version} · ${os.cpus().length} CPUs · load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} · ${new Date().toISOString()}`,
  );
  out.push('');
  out.push('| measurement | variant | median ms | ratio | peak RSS MiB |');
  out.push('|---|---|---:|---:|---:|');
  for (const r of rows) {
    const ms = median(r.samples.map((s) => s.ms));
    const b = r.what.startsWith('runpod --') || r.what.startsWith('runpod validate') ? rows.find((x) => x.what === 'node -e 0') : base(r.what);
    const ratio = b && b !== r ? (ms / median(b.samples.map((s) => s.ms))).toFixed(2) + '×' : '';
    const peaks = r.samples.flatMap((s) => (s.peakKb !== undefined ? [s.peakKb] : []));
    const peak = peaks.length ? (median(peaks) / 1024).toFixed(0) : 'n/a';
    out.push(`| ${r.what} | ${r.variant} | ${ms.toFixed(0)} | ${ratio} | ${peak} |`);
  }
  console.log(out.join('\n'));
}

await main();
