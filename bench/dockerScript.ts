// `npm run bench` (dockerScript): runpod beside the shell script a user would otherwise write for the same work
// (issue 28): `docker run -d` an infra container, `docker run -d --network container:<infra>` each app container
// (in parallel, `&` and `wait`), `docker rm -f` of them all at the end. Rounds are paired and interleaved (the
// order flips every round), so a slow spell of a shared machine falls on both sides alike; it prints each
// variant's median and the median of the per-round ratios, which is the figure to read on a loaded machine.
//   node dist/bench/dockerScript.js                 (after npm run build:exe; BENCH_RUNS=11 for more rounds)
//   BENCH_SECTIONS='one pod,no-op' node dist/bench/dockerScript.js
// Sections: "one pod" (infra + 3 sleep containers, grace 0: up+down, up, down), "ten pods" (of two containers,
// up+down), "no-op" (a re-run of the unchanged one pod against one `docker ps --filter label=…`), "validate"
// (the single executable's `validate` against `node -e 0`). Floors in the same rounds: the script's own calls from
// one node process (bench/lib/scriptCalls.ts; BENCH_NODE_FLOOR=0 leaves them out), `node -e 0` and the
// executable's `--version` beside the no-op's list, `--version` beside validate's `node -e 0`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pauseImageRef } from '../src/reconcile/pauseImage.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
// BENCH_EXE: another build of the executable; BENCH_EXE_BEFORE: a second one beside it (the build before a change);
// BENCH_BIN_RUNPOD=0 leaves bin/runpod out (fewer rounds' time).
const exeBin = process.env.BENCH_EXE ?? path.join(root, 'dist', `runpod-linux-${process.arch}`);
const runpodBin = path.join(root, 'bin', 'runpod');
const callsBin = path.join(here, 'lib', 'scriptCalls.js');
const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 7));
const image = process.env.BENCH_IMAGE ?? 'runpod-test/busybox:1';
const env = { ...process.env, CI: 'true', NO_COLOR: '1' };
const sections = process.env.BENCH_SECTIONS ? new Set(process.env.BENCH_SECTIONS.split(',').map((s) => s.trim())) : undefined;
const key = `rpb${process.pid}`;

/** Run a command to completion; its wall time in ms. A non-zero exit fails the benchmark. */
function measure(cmd: string, args: string[]): number {
  const started = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status ?? r.signal}\n${r.stdout}\n${r.stderr}`);
  return ms;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

interface ScriptPod {
  name: string;
  containers: number;
}

/** The docker CLI script: each pod's infra first, then its app containers in parallel; the pods in parallel. */
function upScript(pods: ScriptPod[], infraImage: string): string {
  const label = `--label io.runpod.bench=${key}`;
  const pod = (p: ScriptPod): string =>
    [
      `docker run -d -q ${label} --name ${p.name}_infra ${q(infraImage)} >/dev/null`,
      ...Array.from({ length: p.containers }, (_, i) => `docker run -d -q ${label} --name ${p.name}_c${i} --network container:${p.name}_infra ${q(image)} sleep 3600 >/dev/null &`),
      'wait',
    ].join('\n');
  return pods.length === 1 ? pod(pods[0]!) + '\n' : pods.map((p) => `(\n${pod(p)}\n) &`).join('\n') + '\nwait\n';
}

function downScript(pods: ScriptPod[]): string {
  const names = pods.flatMap((p) => [`${p.name}_infra`, ...Array.from({ length: p.containers }, (_, i) => `${p.name}_c${i}`)]);
  return `docker rm -f ${names.join(' ')} >/dev/null\n`;
}

function podYaml(name: string, containers: number): string {
  const cs = Array.from({ length: containers }, (_, i) => `  - name: c${i}\n    image: ${image}\n    command: ["sleep", "3600"]\n`).join('');
  return `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  terminationGracePeriodSeconds: 0\n  containers:\n${cs}`;
}

/** Remove what this benchmark made: the script's containers by its label, runpod's pods by `runpod down`. */
function cleanup(manifests: string[]): void {
  const ids = spawnSync('docker', ['ps', '-aq', '--filter', `label=io.runpod.bench=${key}`], { encoding: 'utf8' }).stdout.trim();
  if (ids) spawnSync('docker', ['rm', '-f', ...ids.split('\n')]);
  for (const m of manifests) spawnSync(exeBin, ['down', '--project', key, m], { env });
}

interface Row {
  what: string;
  base: string;
  variant: string;
  baseMs: number[];
  variantMs: number[];
}
const rows: Row[] = [];

function row(what: string, base: string, variant: string): Row {
  let r = rows.find((x) => x.what === what && x.variant === variant);
  if (!r) rows.push((r = { what, base, variant, baseMs: [], variantMs: [] }));
  return r;
}

/** One pair of a row: the baseline then the variant, or the other way round. */
function timePair(r: Row, base: () => number, variant: () => number, baseFirst: boolean): void {
  if (baseFirst) {
    r.baseMs.push(base());
    r.variantMs.push(variant());
  } else {
    r.variantMs.push(variant());
    r.baseMs.push(base());
  }
}

/** Paired rounds: base then variant on even rounds, variant then base on odd ones. */
function pairs(rounds: number, body: (round: number, baseFirst: boolean) => void): void {
  for (let i = 0; i < rounds; i++) body(i, i % 2 === 0);
}

const runpods: Array<[string, string, string[]]> = [
  ['runpod executable', exeBin, []],
  // BENCH_EXE_BEFORE: a build from before a change, measured in the same rounds (before and after side by side).
  ...(process.env.BENCH_EXE_BEFORE ? [['runpod executable, before', process.env.BENCH_EXE_BEFORE, []] as [string, string, string[]]] : []),
  ...(process.env.BENCH_BIN_RUNPOD === '0' ? [] : [['runpod (bin/runpod)', process.execPath, [runpodBin]] as [string, string, string[]]]),
];

/** One side of a paired round: its up and its down, each timed as a whole process. */
interface UpDown {
  variant: string;
  up: () => number;
  down: () => number;
}

/**
 * The script's own calls from one Node.js process (bench/lib/scriptCalls.ts): the floor of any Node.js program
 * doing this work, beside runpod in the same rounds. BENCH_NODE_FLOOR=0 leaves it out.
 */
function nodeFloor(dir: string, pods: ScriptPod[], infraImage: string): UpDown[] {
  if (process.env.BENCH_NODE_FLOOR === '0') return [];
  const spec = path.join(dir, 'calls.json');
  const socketPath = (process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock').replace(/^unix:\/\//, '');
  const callsPods = pods.map((p) => ({ name: p.name.replace(/-s-/, '-n-'), containers: p.containers }));
  fs.writeFileSync(spec, JSON.stringify({ socketPath, label: `io.runpod.bench=${key}`, infraImage, image, pods: callsPods }));
  return [
    {
      variant: 'the same calls from one node process (no network, no settle)',
      up: () => measure(process.execPath, [callsBin, 'up', spec]),
      down: () => measure(process.execPath, [callsBin, 'down', spec]),
    },
  ];
}

function upDown(what: string, manifest: string, pods: ScriptPod[], infraImage: string, split: boolean): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-bench-'));
  const up = path.join(dir, 'up.sh');
  const down = path.join(dir, 'down.sh');
  fs.writeFileSync(up, upScript(pods, infraImage));
  fs.writeFileSync(down, downScript(pods));
  const rp = (cmd: string, pre: string[], args: string[]): number => measure(cmd, [...pre, '--project', key, ...args]);
  const variants: UpDown[] = [
    ...runpods.map(([variant, cmd, pre]) => ({
      variant,
      up: () => rp(cmd, pre, ['--timeout', '120s', manifest]),
      down: () => rp(cmd, pre, ['down', manifest]),
    })),
    ...nodeFloor(dir, pods, infraImage),
  ];
  try {
    // Warm-up: images, page cache, runpod's infra image and the code caches.
    measure('sh', [up]);
    measure('sh', [down]);
    for (const v of variants) {
      v.up();
      v.down();
    }
    pairs(runs, (_, baseFirst) => {
      for (const variant of variants) {
        const script = (): [number, number] => [measure('sh', [up]), measure('sh', [down])];
        const other = (): [number, number] => [variant.up(), variant.down()];
        let b: [number, number];
        let v: [number, number];
        if (baseFirst) {
          b = script();
          v = other();
        } else {
          v = other();
          b = script();
        }
        const add = (w: string, bi: number, vi: number): void => {
          const r = row(w, 'docker CLI script', variant.variant);
          r.baseMs.push(bi);
          r.variantMs.push(vi);
        };
        add(`${what}: up + down`, b[0] + b[1], v[0] + v[1]);
        if (split) {
          add(`${what}: up`, b[0], v[0]);
          add(`${what}: down`, b[1], v[1]);
        }
      }
    });
  } finally {
    cleanup([manifest]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function report(): void {
  const out: string[] = [];
  out.push(
    `rounds: ${runs} (paired, interleaved) · node ${process.version} · ${os.cpus().length} CPUs · load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} · ${new Date().toISOString()}`,
  );
  out.push('');
  out.push('| measurement | baseline | median ms | variant | median ms | median of paired ratios | ratio of medians |');
  out.push('|---|---|---:|---|---:|---:|---:|');
  for (const r of rows) {
    const b = median(r.baseMs);
    const v = median(r.variantMs);
    const paired = median(r.variantMs.map((x, i) => x / r.baseMs[i]!));
    out.push(`| ${r.what} | ${r.base} | ${b.toFixed(0)} | ${r.variant} | ${v.toFixed(0)} | **${paired.toFixed(2)}×** | ${(v / b).toFixed(2)}× |`);
  }
  console.log(out.join('\n'));
}

function main(): void {
  if (!fs.existsSync(exeBin)) {
    console.error(`bench: ${exeBin} is missing (npm run build:exe)`);
    process.exit(1);
  }
  const arch = spawnSync('docker', ['version', '--format', '{{.Server.Arch}}'], { encoding: 'utf8' }).stdout.trim();
  const infraImage = pauseImageRef(arch);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-bench-'));
  const on = (s: string): boolean => sections === undefined || sections.has(s);
  const failures: string[] = [];
  const section = (name: string, body: () => void): void => {
    if (!on(name)) return;
    try {
      body();
    } catch (err) {
      failures.push(`${name}: ${err instanceof Error ? err.message.split('\n').slice(0, 4).join(' / ') : String(err)}`);
    }
  };
  try {
    const one = path.join(dir, 'one.yaml');
    fs.writeFileSync(one, podYaml(`${key}-one`, 3));
    section('one pod', () => upDown('one pod (infra + 3 containers)', one, [{ name: `${key}-s-one`, containers: 3 }], infraImage, true));

    const ten = path.join(dir, 'ten.yaml');
    fs.writeFileSync(ten, Array.from({ length: 10 }, (_, i) => podYaml(`${key}-ten-${i}`, 2)).join('---\n'));
    section('ten pods', () =>
      upDown(
        'ten pods of 2 containers',
        ten,
        Array.from({ length: 10 }, (_, i) => ({ name: `${key}-s-ten-${i}`, containers: 2 })),
        infraImage,
        false,
      ),
    );

    section('no-op', () => {
      try {
        measure(exeBin, ['--project', key, '--timeout', '120s', one]);
        const list = ['ps', '--filter', `label=io.kubernetes.pod.name=${key}-one`, '--filter', `label=io.runpod.project=${key}`];
        measure('docker', list);
        for (const [, cmd, pre] of runpods) measure(cmd, [...pre, '--project', key, '--timeout', '120s', one]);
        // The floor of any Node.js program beside the same list: a node process that does nothing, and the
        // executable's own start (--version).
        const floors: Array<[string, string, string[]]> = [
          ['`node -e 0` (the floor: a Node.js process that does nothing)', process.execPath, ['-e', '0']],
          ['runpod executable `--version` (its start alone)', exeBin, ['--version']],
        ];
        pairs(runs, (_, baseFirst) => {
          for (const [variant, cmd, args] of [
            ...runpods.map(([v, c, pre]): [string, string, string[]] => [v, c, [...pre, '--project', key, '--timeout', '120s', one]]),
            ...floors,
          ]) {
            const r = row('no-op re-run of the one pod', 'one `docker ps --filter label=…`', variant);
            timePair(
              r,
              () => measure('docker', list),
              () => measure(cmd, args),
              baseFirst,
            );
          }
        });
      } finally {
        cleanup([one]);
      }
    });

    section('validate', () => {
      measure(exeBin, ['validate', one]);
      measure(process.execPath, ['-e', '0']);
      // Beside it, the executable's start alone (--version): what of validate's ratio is the start.
      const sides: Array<[string, string, string[]]> = [
        ['validate of the one pod', 'runpod executable', ['validate', one]],
        ['start alone', 'runpod executable `--version`', ['--version']],
      ];
      pairs(runs * 2 + 1, (_, baseFirst) => {
        for (const [what, variant, args] of sides) {
          const r = row(what, '`node -e 0`', variant);
          timePair(
            r,
            () => measure(process.execPath, ['-e', '0']),
            () => measure(exeBin, args),
            baseFirst,
          );
        }
      });
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

main();
