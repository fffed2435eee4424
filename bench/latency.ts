// Detection latency: the time from "the wait condition holds" to runpod's exit, measured on the real engine,
// beside what a pure backoff schedule (check at 1s, then 2s, 4s … after it, the kubelet's run-once delays) would
// give for the same moment. Two conditions:
// - ready: an exec readinessProbe passes. The probe command itself records, on its first success, the kernel's
//   uptime (a clock the container and the host share), and runpod's exit is read on the same clock.
// - running: a container started late (its command sleeps, then execs), measured from its StartedAt plus the
//   settle time to runpod's exit.
// Run: npm run bench (builds, then runs every dist/bench/*.js).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { busybox, docker, removePod, runpod, uniqueName, writeManifest } from '../test/engine/harness.js';

function uptimeMs(): number {
  return Number(fs.readFileSync('/proc/uptime', 'utf8').split(' ')[0]) * 1000;
}

/** When a check on the pure backoff schedule (first at 0, then after 1s, 2s, 4s … capped at 30s) first sees t. */
function backoffDetection(tMs: number): number {
  let at = 0;
  let delay = 1000;
  while (at < tMs) {
    at += delay;
    delay = Math.min(delay * 2, 30_000);
  }
  return at;
}

function containerId(pod: string): string {
  return docker(['ps', '-q', '--no-trunc', '--filter', `label=io.kubernetes.pod.name=${pod}`, '--filter', 'label=io.kubernetes.container.name=app']);
}

interface Sample {
  mode: string;
  holdsAfterMs: number;
  runpodMs: number;
  backoffMs: number;
}

async function measureReady(delayMs: number): Promise<Sample> {
  const name = uniqueName('bench-ready');
  const stamp = "tr -d . < /proc/uptime | cut -d' ' -f1";
  const file = writeManifest(`apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - name: app
    image: ${busybox}
    command: [sh, -c, '${stamp.replace(/'/g, "''")} > /tmp/start; sleep ${delayMs / 1000}; touch /tmp/ready; exec sleep 3600']
    readinessProbe:
      exec: {command: [sh, -c, 'test -f /tmp/ready && { [ -f /tmp/passed ] || ${stamp.replace(/'/g, "''")} > /tmp/passed; }']}
      periodSeconds: 1
`);
  try {
    const r = await runpod(['--wait', 'ready', file]);
    const exitAt = uptimeMs();
    if (r.code !== 0) throw new Error(`runpod exited ${r.code}: ${r.stderr}`);
    const id = containerId(name);
    const start = Number(docker(['exec', id, 'cat', '/tmp/start'])) * 10;
    const passed = Number(docker(['exec', id, 'cat', '/tmp/passed'])) * 10;
    const holdsAfter = passed - start;
    return {
      mode: `ready (exec probe, period 1s, ready after ${delayMs}ms)`,
      holdsAfterMs: holdsAfter,
      runpodMs: exitAt - passed,
      backoffMs: backoffDetection(holdsAfter) - holdsAfter,
    };
  } finally {
    removePod(name);
    fs.rmSync(file, { force: true });
  }
}

async function measureRunning(delayMs: number): Promise<Sample> {
  const name = uniqueName('bench-run');
  // The condition holds once the container has been up for the settle time: StartedAt + settle.
  const file = writeManifest(`apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - name: app
    image: ${busybox}
    command: [sleep, '3600']
`);
  try {
    const startedCall = Date.now();
    const r = await runpod(['--settle', `${delayMs}ms`, file]);
    const exitAt = Date.now();
    if (r.code !== 0) throw new Error(`runpod exited ${r.code}: ${r.stderr}`);
    const startedAt = Date.parse(docker(['inspect', '-f', '{{.State.StartedAt}}', containerId(name)]));
    const holds = startedAt + delayMs;
    const holdsAfter = holds - startedCall;
    return { mode: `running (settle ${delayMs}ms)`, holdsAfterMs: holdsAfter, runpodMs: exitAt - holds, backoffMs: backoffDetection(holdsAfter) - holdsAfter };
  } finally {
    removePod(name);
    fs.rmSync(file, { force: true });
  }
}

async function main(): Promise<void> {
  if (spawnSync('docker', ['image', 'inspect', busybox]).status !== 0) {
    console.log(`bench/latency: skipped, image ${busybox} is missing (run scripts/engine-up.sh)`);
    return;
  }
  const samples: Sample[] = [];
  for (const d of [1500, 2500, 4500]) samples.push(await measureReady(d));
  for (const d of [100, 1500]) samples.push(await measureRunning(d));
  console.log('detection latency: from "the condition holds" to runpod\'s exit, beside a pure backoff schedule (1s, x2)');
  console.log('| condition | holds after | runpod | pure backoff |');
  console.log('|---|---|---|---|');
  for (const s of samples) {
    console.log(`| ${s.mode} | ${Math.round(s.holdsAfterMs)} ms | ${Math.round(s.runpodMs)} ms | ${Math.round(s.backoffMs)} ms |`);
  }
  console.log('(ready: probe success to exit, on the kernel uptime clock, 10 ms resolution; running: StartedAt + settle to exit.)');
}

await main();
