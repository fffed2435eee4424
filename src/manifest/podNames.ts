// A lenient reader for the commands that only need to know which pods (and Services) a manifest names (down,
// status). `run` refuses a whole input for one bad field; cleaning up must not depend on that, so here every
// document is read for its kind, metadata.name and metadata.namespace alone, and whatever cannot be read is a
// problem of its own line that skips only that document (or List item). Files are found and decoded as load.ts does.

import type { ManifestProblem } from '../errors.js';
import { workloadRefName } from '../workloads/expand.js';
import { kindVerdict } from './kinds.js';
import { helmHook } from './helmHooks.js';
import { readManifestTexts } from './load.js';
import { sortByFileAndLine } from './parse.js';
import { type PathSegment, formatPath } from '../kube/path.js';
import { dns1035Label, dns1123Label, dns1123Subdomain } from '../kube/syntax.js';
import { type Obj, describe, isObj } from '../kube/object.js';
import { type ParsedYaml, type YamlDocument, lineOf, noDocuments, parseYaml } from '../input/yaml.js';

export interface NamedPod {
  namespace: string;
  name: string;
  file: string;
  /** 1-based line where the pod starts (its document, or its List item). */
  line?: number;
}

/** A workload the inputs name: its pods are found on the engine by its owner label (workloads/expand.ts). */
export interface NamedOwner {
  namespace: string;
  /** kubectl's kind/name: deployment/web. */
  ref: string;
  file: string;
  line?: number;
  /** The pods it wants, when the manifest says: replicas (default 1; a DaemonSet 1 on one host); a Job's completions. */
  desired?: number;
  /** A Job (or a CronJob's job template) with spec.suspend: true. */
  suspended?: boolean;
  /** A StatefulSet's volumeClaimTemplates' names: its pods' claims are <template>-<name>-<ordinal>. */
  claimTemplates?: string[];
  /** A StatefulSet whose persistentVolumeClaimRetentionPolicy.whenDeleted is Delete: its claims go with it. */
  claimsGoWithOwner?: boolean;
}

/**
 * A claim the inputs name: a PersistentVolumeClaim, or a persistentVolumeClaim volume of a Pod or of a workload's
 * pod template (what `down --delete-claims` removes, even when the pods that mounted it are gone).
 */
export interface NamedClaim {
  namespace: string;
  name: string;
}

/** A Service the inputs name: what runpod made for it on the engine goes when `down` takes the input down. */
export interface NamedService {
  namespace: string;
  name: string;
  file: string;
  line?: number;
}

/** What could not be read: a file, a document or a List item that names no pod. */
export interface NameProblem {
  file: string;
  line?: number;
  message: string;
}

interface Found {
  pods: NamedPod[];
  owners: NamedOwner[];
  claims: NamedClaim[];
  services: NamedService[];
  problems: NameProblem[];
}

const notAPod = 'not a Pod; runpod names no pods from it';

/**
 * The pods the inputs name, in file order then line, each namespace/name once; and every problem met, in the same
 * order. Never throws for the content of an input (a missing file is a problem too).
 */
export async function readPodNames(
  paths: readonly string[],
  defaultNamespace: string,
  readStdin: () => Promise<Buffer>,
): Promise<{ pods: NamedPod[]; owners: NamedOwner[]; services: NamedService[]; claims: NamedClaim[]; problems: NameProblem[] }> {
  const read = await readManifestTexts(paths, readStdin);
  const found: Found = { pods: [], owners: [], services: [], claims: [], problems: read.problems.map(toNameProblem) };
  for (const { source, text } of read.texts) {
    const parsed = parseEachDocument(text, source.file);
    found.problems.push(...parsed.problems.map(toNameProblem));
    for (const doc of parsed.documents) namesOfDocument(doc, source.file, defaultNamespace, found);
  }
  const owners = sortByFileAndLine(found.owners, read.fileOrder).filter((o, i, all) => all.findIndex((x) => x.namespace === o.namespace && x.ref === o.ref) === i);
  return {
    pods: unique(sortByFileAndLine(found.pods, read.fileOrder)),
    owners,
    services: unique(sortByFileAndLine(found.services, read.fileOrder)),
    claims: unique(found.claims),
    problems: sortByFileAndLine(found.problems, read.fileOrder),
  };
}

function toNameProblem(p: ManifestProblem): NameProblem {
  const message = p.path ? `${p.path}: ${p.message}` : p.message;
  return { file: p.file, ...(p.line !== undefined ? { line: p.line } : {}), message };
}

/** The first of each namespace/name: a pod (or Service) written twice is still one to take down. */
export function unique<T extends { namespace: string; name: string }>(pods: readonly T[]): T[] {
  const seen = new Set<string>();
  return pods.filter((p) => {
    const key = `${p.namespace}/${p.name}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Parse a file's documents. js-yaml gives up on the whole file at its first syntax error; so that one bad document
 * does not hide the pods of the others, a file that fails is parsed again one document at a time.
 */
function parseEachDocument(text: string, file: string): ParsedYaml {
  const whole = parseYaml(text, file);
  if (whole.documents.length > 0) return whole;
  const parts = splitDocuments(text);
  if (parts.length < 2) return whole;
  const result: ParsedYaml = { documents: [], problems: [] };
  for (const part of parts) {
    const parsed = parseYaml(part.text, file);
    result.documents.push(...parsed.documents.map((d) => shiftDocument(d, part.offset)));
    // A part before the first "---" (or between two) may hold only comments: that is no problem here.
    for (const p of parsed.problems) {
      if (p.message !== noDocuments) result.problems.push(p.line !== undefined ? { ...p, line: p.line + part.offset } : p);
    }
  }
  return result.documents.length + result.problems.length > 0 ? result : whole;
}

/** "---" at the start of a line always begins a document: YAML forbids it inside content, even in a block scalar. */
const documentStart = /^---(?:[ \t\r]|$)/;

/** The text cut before each document marker; offset: the lines before the part. */
function splitDocuments(text: string): Array<{ text: string; offset: number }> {
  const lines = text.split('\n');
  const parts: Array<{ text: string; offset: number }> = [];
  let start = 0;
  lines.forEach((line, i) => {
    if (i === start || !documentStart.test(line)) return;
    parts.push({ text: lines.slice(start, i).join('\n'), offset: start });
    start = i;
  });
  parts.push({ text: lines.slice(start).join('\n'), offset: start });
  return parts;
}

function shiftDocument(doc: YamlDocument, offset: number): YamlDocument {
  const lines = new Map<string, number>();
  for (const [path, line] of doc.lines) lines.set(path, line + offset);
  return { ...doc, line: doc.line + offset, lines };
}

/** One document: an object, or a List (any apiVersion: only its items matter) of objects. */
function namesOfDocument(doc: YamlDocument, file: string, defaultNamespace: string, found: Found): void {
  // A message prefixed with the path it is about (items[1].metadata.name), at the line of `linePath` (or of its
  // nearest written ancestor, else where its object starts).
  const problem = (path: readonly PathSegment[], linePath: readonly PathSegment[], objectLine: number, message: string): void => {
    const where = formatPath(path);
    found.problems.push({ file, line: lineOf(doc.lines, linePath) ?? objectLine, message: where ? `${where}: ${message}` : message });
  };
  const object = (obj: Obj, at: readonly PathSegment[]): void => {
    const line = lineOf(doc.lines, at) ?? doc.line;
    const kind = obj.kind;
    if (kind === 'PersistentVolumeClaim') {
      const named = podName(obj, defaultNamespace);
      if (!('problem' in named)) found.claims.push(named);
      return;
    }
    // Configuration for pods, not pods: nothing to name and nothing wrong; so are the kinds a run skips. A
    // PersistentVolume is the user's host directory: runpod makes nothing for it, so takes nothing down for it.
    if (kind === 'ConfigMap' || kind === 'Secret' || kind === 'PersistentVolume') return;
    if (typeof kind === 'string' && typeof obj.apiVersion === 'string' && kindVerdict(obj.apiVersion, kind, new Set(), new Set())?.action === 'skip') return;
    if (helmHook(isObj(obj.metadata) ? obj.metadata.annotations : undefined)?.action === 'skip') return;
    // A CronJob's pods are those of the Job --from-cronjob made of it: <name>-manual.
    const workload = typeof kind === 'string' ? (kind === 'CronJob' ? 'job' : workloadRefName(kind)) : undefined;
    if (workload !== undefined) {
      const named = podName(obj, defaultNamespace);
      if ('problem' in named) problem([...at, ...named.path], [...at, ...named.path], line, `${named.problem}; runpod cannot name this ${String(kind)}`);
      else {
        found.owners.push({
          namespace: named.namespace,
          ref: `${workload}/${named.name}${kind === 'CronJob' ? '-manual' : ''}`,
          file,
          line,
          ...desiredOf(obj, String(kind)),
          ...claimTemplatesOf(obj, String(kind)),
        });
        found.claims.push(...claimVolumesOf(templateSpecOf(obj, String(kind))).map((name) => ({ namespace: named.namespace, name })));
      }
      return;
    }
    // A Service's name is a DNS-1035 label (ValidateServiceName); one that is not was never run.
    if (kind === 'Service') {
      const named = podName(obj, defaultNamespace, dns1035Label);
      if ('problem' in named) problem([...at, ...named.path], [...at, ...named.path], line, `${named.problem}; runpod cannot name this Service`);
      else found.services.push({ ...named, file, line });
      return;
    }
    if (kind !== 'Pod') {
      problem(at, [...at, 'kind'], line, `${kindText(kind)}: ${notAPod}`);
      return;
    }
    const named = podName(obj, defaultNamespace);
    if ('problem' in named) {
      const path = [...at, ...named.path];
      problem(path, path, line, `${named.problem}; runpod cannot name this Pod`);
    } else {
      found.pods.push({ ...named, file, line });
      found.claims.push(...claimVolumesOf(isObj(obj.spec) ? obj.spec : {}).map((name) => ({ namespace: named.namespace, name })));
    }
  };

  const value = doc.value;
  if (!isObj(value)) {
    problem([], [], doc.line, `expected a mapping (a Kubernetes object), got ${describe(value)}; runpod names no pods from it`);
    return;
  }
  if (value.kind !== 'List') {
    object(value, []);
    return;
  }
  const items = value.items;
  if (!Array.isArray(items)) {
    problem(['items'], ['items'], doc.line, `expected a list of Pods, got ${describe(items)}; runpod names no pods from it`);
    return;
  }
  items.forEach((item: unknown, i) => {
    if (isObj(item)) object(item, ['items', i]);
    else problem(['items', i], ['items', i], doc.line, `expected a mapping (a Pod), got ${describe(item)}; runpod names no pods from it`);
  });
}

/** "kind Deployment", short whatever the value (a kind can be a list nested a hundred deep). */
function kindText(kind: unknown): string {
  if (kind === undefined || kind === null || kind === '') return 'no kind';
  return `kind ${typeof kind === 'string' && kind.length <= 63 ? kind : describe(kind)}`;
}

type PodName = { namespace: string; name: string } | { path: PathSegment[]; problem: string };

/** metadata.name (a DNS-1123 subdomain) and metadata.namespace (a DNS-1123 label, else the default): all run checks of a name. */
/** What a workload wants, read leniently (the run validates): its replicas, a Job's completions and suspend. */
function desiredOf(obj: Obj, kind: string): { desired?: number; suspended?: boolean } {
  const outer = isObj(obj.spec) ? obj.spec : {};
  const template = isObj(outer.jobTemplate) && isObj(outer.jobTemplate.spec) ? outer.jobTemplate.spec : {};
  const spec = kind === 'CronJob' ? template : outer;
  const count = (v: unknown): number | undefined => (v === undefined || v === null ? 1 : typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined);
  const desired = kind === 'DaemonSet' ? 1 : kind === 'Job' || kind === 'CronJob' ? count(spec.completions) : count(spec.replicas);
  return { ...(desired !== undefined ? { desired } : {}), ...((kind === 'Job' || kind === 'CronJob') && spec.suspend === true ? { suspended: true } : {}) };
}

/** A workload's pod spec: spec.template.spec; a CronJob's, spec.jobTemplate.spec.template.spec. Read leniently. */
function templateSpecOf(obj: Obj, kind: string): Obj {
  const outer = isObj(obj.spec) ? obj.spec : {};
  const spec = kind === 'CronJob' ? (isObj(outer.jobTemplate) && isObj(outer.jobTemplate.spec) ? outer.jobTemplate.spec : {}) : outer;
  const template = isObj(spec.template) ? spec.template : {};
  return isObj(template.spec) ? template.spec : {};
}

/** The claims a pod spec's volumes name (volumes[].persistentVolumeClaim.claimName), read leniently. */
function claimVolumesOf(spec: Obj): string[] {
  const volumes = Array.isArray(spec.volumes) ? spec.volumes : [];
  return volumes.flatMap((v: unknown) => {
    const claim = isObj(v) && isObj(v.persistentVolumeClaim) ? v.persistentVolumeClaim.claimName : undefined;
    return typeof claim === 'string' && claim !== '' ? [claim] : [];
  });
}

/** A StatefulSet's claim templates' names and whether its claims go with it (whenDeleted: Delete), read leniently. */
function claimTemplatesOf(obj: Obj, kind: string): { claimTemplates?: string[]; claimsGoWithOwner?: boolean } {
  if (kind !== 'StatefulSet') return {};
  const spec = isObj(obj.spec) ? obj.spec : {};
  const templates = (Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates : []).flatMap((t: unknown) => {
    const name = isObj(t) && isObj(t.metadata) ? t.metadata.name : undefined;
    return typeof name === 'string' && name !== '' ? [name] : [];
  });
  const policy = isObj(spec.persistentVolumeClaimRetentionPolicy) ? spec.persistentVolumeClaimRetentionPolicy : {};
  return { ...(templates.length > 0 ? { claimTemplates: templates } : {}), ...(policy.whenDeleted === 'Delete' ? { claimsGoWithOwner: true } : {}) };
}

function podName(pod: Obj, defaultNamespace: string, nameRule: (v: string) => string | undefined = dns1123Subdomain): PodName {
  const meta = isObj(pod.metadata) ? pod.metadata : {};
  const name = meta.name;
  if (name === undefined || name === null || name === '') return { path: ['metadata', 'name'], problem: 'required' };
  if (typeof name !== 'string') return { path: ['metadata', 'name'], problem: `expected a string, got ${describe(name)}` };
  const badName = nameRule(name);
  if (badName !== undefined) return { path: ['metadata', 'name'], problem: badName };
  // An empty or null namespace is none given, as defaults.ts reads it.
  const namespace = meta.namespace;
  if (namespace === undefined || namespace === null || namespace === '') return { namespace: defaultNamespace, name };
  if (typeof namespace !== 'string') return { path: ['metadata', 'namespace'], problem: `expected a string, got ${describe(namespace)}` };
  const badNamespace = dns1123Label(namespace);
  return badNamespace !== undefined ? { path: ['metadata', 'namespace'], problem: badNamespace } : { namespace, name };
}
