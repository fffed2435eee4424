// The manifest layer's only I/O: inputs (files, directories, "-" for stdin) → text, then parse.ts does the rest.
// Every problem in every input is collected and thrown as one ManifestError.

import { isUtf8 } from 'node:buffer';
import { readdir, readFile, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import path from 'node:path';
import { ManifestError, type ManifestProblem, UsageError } from '../errors.js';
import { KustomizeError } from '../input/kustomize/errors.js';
import { kustomizationFile, kustomizeDirOf, renderToDocuments } from '../input/kustomize/input.js';
import { type ManifestText, parseManifests, sortByFileAndLine } from './parse.js';
import type { LoadOptions, LoadResult } from './types.js';

/** The API server refuses request bodies over 3 MiB; a larger manifest could never be applied anyway. */
export const maxManifestBytes = 3 * 1024 * 1024;

/** Extensions read from a directory, as `kubectl apply -f <dir>` does. */
const manifestExtensions = new Set(['.yaml', '.yml', '.json']);

export const stdinName = '<stdin>';

/**
 * Read a stream (stdin) to the end, keeping no more than one byte past the size limit: an endless or huge input
 * (`yes | runpod -`) is refused without holding it in memory. Bytes, so that load can refuse text that is not UTF-8.
 */
export async function readManifestStream(stream: AsyncIterable<Buffer | string>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (size + buf.length > maxManifestBytes) {
      chunks.push(buf.subarray(0, maxManifestBytes + 1 - size));
      size = maxManifestBytes + 1;
      break;
    }
    chunks.push(buf);
    size += buf.length;
  }
  return Buffer.concat(chunks);
}

/** Read the process's stdin (see readManifestStream). */
export function readProcessStdin(): Promise<Buffer> {
  return readManifestStream(process.stdin);
}

function tooLarge(file: string, bytes: number | undefined): ManifestProblem {
  const size = bytes !== undefined && bytes <= maxManifestBytes * 4 ? ` (${bytes} bytes)` : '';
  return { file, path: '', message: `larger than 3 MiB${size}, the API server's request limit; refused before parsing` };
}

/**
 * Manifests are UTF-8 (the API server's YAML and JSON decoders refuse anything else). Decoding invalid bytes
 * would silently turn them into U+FFFD; a binary file or a Latin-1 file is refused instead, at the first bad line.
 */
export function decodeManifest(file: string, bytes: Buffer): string | ManifestProblem {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  let line = 1;
  let start = 0;
  for (;;) {
    const nl = bytes.indexOf(0x0a, start);
    const end = nl < 0 ? bytes.length : nl;
    if (!isUtf8(bytes.subarray(start, end))) break;
    if (nl < 0) break;
    line++;
    start = nl + 1;
  }
  return { file, line, path: '', message: 'not UTF-8 text (a manifest must be UTF-8; is this a binary file?)' };
}

function ioMessage(err: unknown): string {
  const code = err instanceof Error && 'code' in err ? String(err.code) : '';
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return err instanceof Error ? err.message : String(err);
}

/** The text of every input, with what could not be read (missing, too large, not UTF-8) and the inputs' order. */
export interface ManifestTexts {
  texts: ManifestText[];
  problems: ManifestProblem[];
  /** Every file met, in the order given: problems and warnings are sorted by it. */
  fileOrder: string[];
  /** Notes about how an input was read (a directory rendered as a kustomization). */
  notes: Array<{ file: string; message: string }>;
}

/**
 * The name a rendered kustomization's objects are reported under: the lines of its problems are those of
 * `runpod kustomize DIR`'s output.
 */
export function renderedName(dir: string): string {
  return `${dir} (kustomize)`;
}

/**
 * Read the inputs: files, directories (their *.yaml, *.yml and *.json) and "-" (stdin, once). Never throws for an
 * input that cannot be read: that is a problem of its file, so a caller may go on with the others.
 */
export async function readManifestTexts(inputs: readonly string[], readStdin: () => Promise<string | Buffer>): Promise<ManifestTexts> {
  const r: Reading = { texts: [], problems: [], fileOrder: [], notes: [], stdinRead: false };
  for (const input of inputs) {
    const kustomizeDir = kustomizeDirOf(input);
    if (kustomizeDir !== undefined) renderOne(r, kustomizeDir);
    else if (input === '-') await readStdinOnce(r, readStdin);
    else await readPath(r, input);
  }
  const { texts, problems, fileOrder, notes } = r;
  return { texts, problems, fileOrder, notes };
}

/** What reading the inputs has gathered so far, in the order the inputs were given. */
interface Reading extends ManifestTexts {
  stdinRead: boolean;
}

/**
 * A kustomization is rendered by runpod (input/kustomize) into one text, whose pods' source is its directory; its
 * documents come with it, read from the printing (the text is not parsed again).
 */
function renderOne(r: Reading, dir: string): void {
  const name = renderedName(dir);
  r.fileOrder.push(name);
  try {
    r.texts.push({ source: { file: name, origin: path.resolve(dir) }, ...renderToDocuments(dir, name) });
  } catch (err) {
    if (!(err instanceof KustomizeError)) throw err;
    // Reported in the order the inputs were given, like any input's problems.
    for (const p of err.problems) r.fileOrder.push(p.file);
    r.problems.push(...err.problems);
  }
}

async function readOne(r: Reading, file: string, origin: string, size: number): Promise<void> {
  r.fileOrder.push(file);
  if (size > maxManifestBytes) {
    r.problems.push(tooLarge(file, size));
    return;
  }
  try {
    const text = decodeManifest(file, await readFile(file));
    if (typeof text === 'string') r.texts.push({ source: { file, origin }, text });
    else r.problems.push(text);
  } catch (err) {
    r.problems.push({ file, path: '', message: ioMessage(err) });
  }
}

async function readStdinOnce(r: Reading, readStdin: () => Promise<string | Buffer>): Promise<void> {
  r.fileOrder.push(stdinName);
  if (r.stdinRead) {
    r.problems.push({ file: stdinName, path: '', message: 'stdin ("-") can be read only once' });
    return;
  }
  r.stdinRead = true;
  const input = await readStdin();
  const bytes = typeof input === 'string' ? Buffer.byteLength(input, 'utf8') : input.length;
  if (bytes > maxManifestBytes) {
    r.problems.push(tooLarge(stdinName, undefined));
    return;
  }
  const text = typeof input === 'string' ? input : decodeManifest(stdinName, input);
  if (typeof text === 'string') r.texts.push({ source: { file: stdinName }, text });
  else r.problems.push(text);
}

/** A file, or a directory: a kustomization's, or one of manifests. */
async function readPath(r: Reading, input: string): Promise<void> {
  let info: Stats;
  try {
    info = await stat(input);
  } catch (err) {
    r.fileOrder.push(input);
    r.problems.push({ file: input, path: '', message: ioMessage(err) });
    return;
  }
  if (!info.isDirectory()) return readOne(r, input, path.resolve(input), info.size);
  // A directory whose top holds a kustomization is one, as with -k (kubectl apply -f would refuse its
  // kustomization.yaml as a manifest; running its files one by one would run something else than intended).
  const kfile = kustomizationFile(input);
  if (kfile !== undefined) {
    r.notes.push({ file: kfile, message: `a kustomization: rendered by runpod, as with -k ${input}` });
    renderOne(r, input);
    return;
  }
  await readDirectory(r, input);
}

/** A directory: its *.yaml, *.yml and *.json files, sorted by name, not recursive (kubectl apply -f <dir> without -R). */
async function readDirectory(r: Reading, input: string): Promise<void> {
  const origin = path.resolve(input);
  let names: string[];
  try {
    names = (await readdir(input)).filter((n) => manifestExtensions.has(path.extname(n))).sort();
  } catch (err) {
    r.fileOrder.push(input);
    r.problems.push({ file: input, path: '', message: ioMessage(err) });
    return;
  }
  let count = 0;
  for (const name of names) {
    const file = path.join(input, name);
    let entry: Stats;
    try {
      entry = await stat(file);
    } catch {
      continue; // a dangling symlink is not a manifest
    }
    if (!entry.isFile()) continue;
    count++;
    await readOne(r, file, origin, entry.size);
  }
  if (count === 0) {
    r.fileOrder.push(input);
    r.problems.push({ file: input, path: '', message: 'no manifests (*.yaml, *.yml or *.json) in this directory' });
  }
}

/**
 * Load every Pod from the inputs. Throws one ManifestError listing every problem (sorted by file, then line) when
 * there is any; otherwise returns the pods, defaulted, with the warnings.
 */
export async function loadManifests(inputs: string[], options: LoadOptions, readStdin: () => Promise<string | Buffer> = readProcessStdin): Promise<LoadResult> {
  // Nothing to load is a usage mistake, never a successful run of zero pods.
  if (inputs.length === 0) throw new UsageError('no manifest given: name files, directories, or - for stdin');
  const { texts, problems, fileOrder, notes } = await readManifestTexts(inputs, readStdin);
  const result = parseManifests(texts, options);
  problems.push(...result.problems);
  if (problems.length > 0) throw new ManifestError(sortByFileAndLine(problems, fileOrder));
  return {
    pods: result.pods,
    skipped: result.skipped,
    workloads: result.workloads,
    claims: result.claims,
    volumes: result.volumes,
    services: result.services,
    warnings: sortByFileAndLine(result.warnings, fileOrder),
    notes: notes.map((n) => `${n.file}: ${n.message}`),
  };
}
