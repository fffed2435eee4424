// Secrets (issue 6): a pod fed by a Secret (secretKeyRef env, envFrom secretRef, $(VAR) expansion into args, a
// secret volume) goes through --dry-run, -o json|yaml|env, -v, a failure report, status and down, and the values
// appear in none of them, plain or base64. The secret files are readable by the pod's user only, and nothing is
// written outside the engine's own storage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { uniqueName } from './harness.js';
import {
  busybox,
  checkNothingLeftBehind,
  cleanupFile,
  cleanupPod,
  docker,
  dockerTry,
  inspect,
  must,
  podContainerIds,
  podContainers,
  podObject,
  runpod,
  show,
  toYaml,
  writeManifest,
  type Obj,
} from './run-helpers.js';
import type { CliResult } from './harness.js';

checkNothingLeftBehind();

/**
 * Every base64 spelling of a value inside a larger base64 text: the characters that depend on the value's bytes
 * alone, for each of the three alignments it can have.
 */
function base64Forms(value: string): string[] {
  const v = Buffer.from(value);
  const forms: string[] = [];
  for (let k = 0; k < 3; k++) {
    const b = Buffer.concat([Buffer.alloc(k), v]).toString('base64');
    const first = Math.ceil(k / 3);
    const last = Math.floor((k + v.length) / 3);
    forms.push(b.slice(first * 4, last * 4));
  }
  // Also as a whole value (padded), as a Secret's data holds it.
  forms.push(v.toString('base64'));
  return [...new Set(forms)].filter((f) => f.length >= 8);
}

interface Secrets {
  password: string;
  token: string;
  /** Every spelling that must never be seen. */
  forms: string[];
}

function makeSecrets(): Secrets {
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const token = `tok-${randomBytes(12).toString('hex')}`;
  return { password, token, forms: [password, token, ...base64Forms(password), ...base64Forms(token)] };
}

function assertNoSecret(what: string, text: string, s: Secrets): void {
  for (const f of s.forms) assert.ok(!text.includes(f), `${what} shows a secret value (${f === s.password || f === s.token ? 'plain' : `base64 ${f}`}):\n${text}`);
}

function assertNoSecretIn(what: string, r: CliResult, s: Secrets): void {
  assertNoSecret(`${what} (stdout)`, r.stdout, s);
  assertNoSecret(`${what} (stderr)`, r.stderr, s);
}

const podUser = 1000;
/** fsGroup: the group that owns the pod's volume files, as the kubelet sets it. */
const podFsGroup = 2000;

/** The Secret and a pod that uses it every way a pod can; `fail` makes its container exit 3 (restartPolicy Never). */
function manifest(name: string, secretName: string, s: Secrets, fail: boolean, fsGroup: number | null = podFsGroup): Obj[] {
  const secret: Obj = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: secretName },
    data: { password: Buffer.from(s.password).toString('base64') },
    stringData: { token: s.token },
  };
  const script = fail ? 'echo failing on purpose >&2; exit 3' : 'exec sleep 3600';
  const pod = podObject({
    name,
    ...(fail ? { restartPolicy: 'Never' as const } : {}),
    containers: [
      {
        name: 'app',
        image: busybox,
        // "$0" is the expanded secret: a plan or report that printed the command would show it.
        command: ['sh', '-c', script, '$(PASSWORD)'],
        env: [
          { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: secretName, key: 'password' } } },
          { name: 'DERIVED', value: 'before-$(PASSWORD)-after' },
        ],
        envFrom: [{ prefix: 'FROM_', secretRef: { name: secretName } }],
        volumeMounts: [{ name: 'creds', mountPath: '/etc/creds' }],
      },
    ],
  });
  const spec = pod.spec as Obj;
  spec.securityContext = { runAsUser: podUser, runAsGroup: podUser, ...(fsGroup !== null ? { fsGroup } : {}) };
  spec.volumes = [{ name: 'creds', secret: { secretName } }];
  return [secret, pod];
}

/** The engine volume mounted at /etc/creds in a container. */
function secretVolume(id: string): string {
  return docker(['inspect', '--format', '{{range .Mounts}}{{if eq .Destination "/etc/creds"}}{{.Name}}{{end}}{{end}}', id]);
}

/** Files under the roots, changed since `since`, that hold any secret spelling; the engines' own storage excluded. */
function filesHoldingSecrets(since: string, s: Secrets, exclude: string[]): string[] {
  const roots = [os.tmpdir(), os.homedir(), '/var/tmp', '/dev/shm'].filter((r) => fs.existsSync(r));
  const found = spawnSync('find', [...roots, '-xdev', '-newer', since, '-type', 'f', '-size', '-64M'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const files = (found.stdout ?? '').split('\n').filter((f) => f !== '');
  const hits: string[] = [];
  for (const f of files) {
    // Second engines' data roots (engine2.ts, rp-e2-*) are an engine's own storage, as /var/lib/docker is.
    if (/\/rp-e2-[^/]+\//.test(f) || exclude.some((e) => f.startsWith(e))) continue;
    let content: Buffer;
    try {
      content = fs.readFileSync(f);
    } catch {
      continue;
    }
    const text = content.toString('latin1');
    if (s.forms.some((x) => text.includes(x))) hits.push(f);
  }
  return hits;
}

test("Secret values appear in no output (--dry-run, -o json|yaml|env, -v, failure report, status, down); files are the pod user's only; nothing is written outside the engine", async (t) => {
  const s = makeSecrets();
  const name = uniqueName('sec');
  const failing = uniqueName('sec-fail');
  const secretName = uniqueName('creds');
  cleanupPod(t, name);
  cleanupPod(t, failing);
  const volumesOf = (pod: string): string[] => {
    const out = docker(['volume', 'ls', '-q', '--filter', `label=io.kubernetes.pod.name=${pod}`]);
    return out ? out.split('\n') : [];
  };
  t.after(() => {
    for (const v of [...volumesOf(name), ...volumesOf(failing)]) dockerTry(['volume', 'rm', '-f', v]);
  });
  const marker = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'runpod-secret-marker-')), 'since');
  t.after(() => fs.rmSync(path.dirname(marker), { recursive: true, force: true }));
  fs.writeFileSync(marker, '');
  // mtime resolution: files written in the same instant as the marker must count as newer.
  const past = new Date(Date.now() - 2000);
  fs.utimesSync(marker, past, past);

  const file = writeManifest(toYaml(...manifest(name, secretName, s, false)));
  cleanupFile(t, file);
  const failFile = writeManifest(toYaml(...manifest(failing, secretName, s, true)));
  cleanupFile(t, failFile);
  const manifestDirs = [path.dirname(file), path.dirname(failFile)];

  // The plan, before anything exists and after: never the values.
  for (const o of ['text', 'json', 'yaml']) {
    const dry = await runpod(['--dry-run', '-o', o, '-v', file]);
    assert.equal(dry.code, 0, show(dry));
    assertNoSecretIn(`--dry-run -o ${o}`, dry, s);
    if (o === 'json') assert.match(dry.stdout, /<secret>/, 'the plan shows that a value is masked');
  }

  // The run: text with -v, then json, yaml and env on re-runs of the same pod.
  const up = await runpod(['-v', '--timeout', '120s', file], { timeoutMs: 180_000 });
  assert.equal(up.code, 0, show(up));
  assertNoSecretIn('run -v', up, s);
  for (const o of ['json', 'yaml', 'env']) {
    const r = await runpod(['-v', '-o', o, '--timeout', '120s', file], { timeoutMs: 180_000 });
    assert.equal(r.code, 0, show(r));
    assertNoSecretIn(`run -o ${o}`, r, s);
  }
  const dryAfter = await runpod(['--dry-run', '-o', 'yaml', file]);
  assert.equal(dryAfter.code, 0, show(dryAfter));
  assertNoSecretIn('--dry-run -o yaml of a running pod', dryAfter, s);

  // The pod really has the values (else the test proves nothing).
  const app = must(podContainers(name).get('app'), 'app');
  const exec = (args: string[], user?: string): { status: number | null; stdout: string; stderr: string } => dockerTry(['exec', ...(user ? ['-u', user] : []), app.Id, ...args]);
  assert.equal(exec(['sh', '-c', 'echo "$PASSWORD|$DERIVED|$FROM_token"']).stdout.trim(), `${s.password}|before-${s.password}-after|${s.token}`);
  assert.equal(exec(['cat', '/etc/creds/password']).stdout, s.password, "the pod's user reads the secret file");
  assert.equal(exec(['cat', '/etc/creds/token']).stdout, s.token);
  assert.equal(exec(['id', '-u']).stdout.trim(), String(podUser));

  // Secret files: readable by the pod's user, not by others (no "other" permission bits), from inside the container.
  for (const key of ['password', 'token']) {
    const st = exec(['stat', '-L', '-c', '%a %u %g', `/etc/creds/${key}`]);
    assert.equal(st.status, 0, st.stderr);
    const [mode, uid, gid] = st.stdout.trim().split(' ');
    const bits = parseInt(must(mode, 'mode'), 8);
    assert.equal(gid, String(podFsGroup), `/etc/creds/${key} belongs to the pod's fsGroup`);
    assert.equal(bits & 0o007, 0, `/etc/creds/${key} is ${mode} (owner ${uid}:${gid}): readable by every user`);
    assert.equal(bits & 0o022, 0, `/etc/creds/${key} is ${mode}: writable by group or others`);
    // Another user, without the pod's groups (docker exec -u would keep the container's fsGroup): a container of
    // its own on the same volume.
    const other = dockerTry(['run', '--rm', '--network', 'none', '-u', '4242:4242', '-v', `${secretVolume(app.Id)}:/c:ro`, busybox, 'cat', `/c/${key}`]);
    assert.notEqual(other.status, 0, `another user (4242) read /etc/creds/${key}: ${other.stdout}`);
    assert.match(other.stderr, /Permission denied/, other.stderr);
  }

  // What the engine shows to anyone who lists it: names and labels of the pod's containers and volumes.
  for (const c of inspect(podContainerIds(name))) {
    assertNoSecret(`container ${c.Name} name and labels`, `${c.Name} ${JSON.stringify(c.Config.Labels)}`, s);
  }
  for (const v of volumesOf(name)) assertNoSecret(`volume ${v} name and labels`, docker(['volume', 'inspect', '--format', '{{.Name}} {{json .Labels}}', v]), s);

  // status, every format, all pods and by name and by manifest.
  for (const args of [['status'], ['status', '-o', 'wide'], ['status', '-o', 'json', name], ['status', '-o', 'yaml', file], ['ps', name]]) {
    const st = await runpod(args);
    assert.equal(st.code, 0, show(st));
    assertNoSecretIn(args.join(' '), st, s);
  }

  // A failure report: the container exits 3 under restartPolicy Never; its command holds the expanded value.
  for (const o of ['text', 'json', 'yaml']) {
    const r = await runpod(['-v', '-o', o, '--retries', '2', '--retry-delay', '300ms', '--timeout', '120s', failFile], { timeoutMs: 180_000 });
    assert.equal(r.code, 1, show(r));
    assert.match(r.stderr, /failing on purpose/, `the report shows the container's last log lines\n${show(r)}`);
    assertNoSecretIn(`failure report -o ${o}`, r, s);
  }
  const st = await runpod(['status', '-o', 'wide', failing]);
  assertNoSecretIn('status of the failed pod', st, s);

  for (const f of [file, failFile]) {
    const down = await runpod(['down', '-v', f]);
    assert.equal(down.code, 0, show(down));
    assertNoSecretIn('down -v', down, s);
  }
  assert.deepEqual(volumesOf(name), [], 'runpod down removes the secret volume');

  // Nothing outside the engine's storage holds a value: not in the temporary directory, not in the home directory.
  const hits = filesHoldingSecrets(marker, s, manifestDirs);
  assert.deepEqual(hits, [], 'files outside the engine hold secret values');
  // The check can see a value where one is: the test's own manifests hold them.
  assert.ok(execFileSync('grep', ['-rlF', s.token, ...manifestDirs], { encoding: 'utf8' }).includes('.yaml'));
});

test('a non-root pod without fsGroup reads its own secret files, and other users cannot', async (t) => {
  const s = makeSecrets();
  const name = uniqueName('sec-nofsgroup');
  const secretName = uniqueName('creds');
  cleanupPod(t, name);
  t.after(() => {
    const out = docker(['volume', 'ls', '-q', '--filter', `label=io.kubernetes.pod.name=${name}`]);
    for (const v of out ? out.split('\n') : []) dockerTry(['volume', 'rm', '-f', v]);
  });
  const file = writeManifest(toYaml(...manifest(name, secretName, s, false, null)));
  cleanupFile(t, file);
  const up = await runpod(['--timeout', '120s', file], { timeoutMs: 180_000 });
  assert.equal(up.code, 0, show(up));
  const app = must(podContainers(name).get('app'), 'app');
  const read = dockerTry(['exec', app.Id, 'cat', '/etc/creds/password']);
  assert.equal(read.stdout, s.password, `the pod's user (${podUser}) cannot read its secret file: ${read.stderr}`);
  const other = dockerTry(['run', '--rm', '--network', 'none', '-u', '4242:4242', '-v', `${secretVolume(app.Id)}:/c:ro`, busybox, 'cat', '/c/password']);
  assert.notEqual(other.status, 0, 'another user read the secret file');
});
