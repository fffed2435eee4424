// Validation of parsed documents: which kinds are accepted, the field table (strictness), the Kubernetes schema
// (types, enums, formats, via kubernetes-models' compiled validators) and the API server's and kubelet's own rules
// that the schema does not express (pkg/apis/core/validation). Pure: values in, problems and warnings out.
// Every problem found is reported, one per field, at the line of the field (or of its nearest ancestor with one).

import type { ManifestProblem } from '../errors.js';
import type { ManifestWarning, SkippedObject, WorkloadKind } from './types.js';
import type { PathSegment } from '../kube/path.js';
import { type LineMap, type YamlDocument, checkExpansion, lineOf } from '../input/yaml.js';
import { validateConfig } from './configs.js';
import { apiGroup, kindVerdict, kindsNotRun, removedApiVersion } from './kinds.js';
import { helmHook, hookAnnotation } from './helmHooks.js';
import { validateWorkload } from './workloadRules.js';
import { validateService } from './serviceRules.js';
import { describe, type Obj, isObj } from '../kube/object.js';
import { validatePod } from './pod.js';
import { ProblemSink } from './problems.js';

export interface ValidPod {
  value: Obj;
  /** Path of the pod inside its document: [] for a Pod document, ['items', i] for a List item. */
  at: PathSegment[];
  /** 1-based line where the pod starts. */
  line: number;
  lines: LineMap;
}

/** A ConfigMap or Secret that passed validation, with where it was written. */
export interface ValidConfig {
  kind: 'ConfigMap' | 'Secret';
  value: Obj;
  at: PathSegment[];
  line: number;
  lines: LineMap;
}

/** A workload, PersistentVolumeClaim or PersistentVolume that passed validation, with where it was written. */
export interface ValidWorkload {
  kind: WorkloadKind;
  value: Obj;
  at: PathSegment[];
  line: number;
  lines: LineMap;
}

/** A Service that passed validation, with where it was written. */
export interface ValidService {
  value: Obj;
  at: PathSegment[];
  line: number;
  lines: LineMap;
}

export interface DocumentResult {
  pods: ValidPod[];
  configs: ValidConfig[];
  services: ValidService[];
  workloads: ValidWorkload[];
  /** Objects skipped on purpose (each also a warning). */
  skipped: SkippedObject[];
  /** CronJobs whose job template runs once (--from-cronjob), by name. */
  cronJobsRun: string[];
  problems: ManifestProblem[];
  warnings: ManifestWarning[];
}

const kindsHint =
  'runpod reads kinds Pod, ConfigMap, Secret, Service, PersistentVolumeClaim, PersistentVolume and ReplicationController (v1), Deployment, ReplicaSet, StatefulSet and DaemonSet (apps/v1), Job (batch/v1), or a List of them';
type Kind = 'Pod' | 'ConfigMap' | 'Secret' | 'Service' | WorkloadKind | 'List';
/** The kinds runpod reads, each with the one apiVersion it has. */
const readKinds = new Map<string, string>([
  ['Pod', 'v1'],
  ['ConfigMap', 'v1'],
  ['Secret', 'v1'],
  ['Service', 'v1'],
  ['PersistentVolumeClaim', 'v1'],
  ['PersistentVolume', 'v1'],
  ['ReplicationController', 'v1'],
  ['Deployment', 'apps/v1'],
  ['ReplicaSet', 'apps/v1'],
  ['StatefulSet', 'apps/v1'],
  ['DaemonSet', 'apps/v1'],
  ['Job', 'batch/v1'],
]);
const workloadKinds: ReadonlySet<string> = new Set<WorkloadKind>([
  'Deployment',
  'ReplicaSet',
  'ReplicationController',
  'StatefulSet',
  'DaemonSet',
  'Job',
  'PersistentVolumeClaim',
  'PersistentVolume',
]);
function isWorkloadKind(kind: string | undefined): kind is WorkloadKind {
  return kind !== undefined && workloadKinds.has(kind);
}
/** The same kinds keyed as manifest/kinds.ts keys them: core kinds by name, others as group/Kind (apps/Deployment). */
const readKindSet: ReadonlySet<string> = new Set([...readKinds].map(([kind, apiVersion]) => (apiGroup(apiVersion) === '' ? kind : `${apiGroup(apiVersion)}/${kind}`)));

/**
 * The --skip-kind names no document of the input had (kubectl's habit of a comma list, or a lower-case kind, would
 * otherwise skip nothing without a word): one note each, naming the kind meant when only the case differs.
 */
export function unmatchedSkipKinds(asked: readonly string[], skipped: readonly { kind: string }[]): string[] {
  const met = new Set(skipped.map((s) => s.kind));
  const known = [...readKinds.keys(), ...kindsNotRun];
  return [...new Set(asked)]
    .filter((k) => !met.has(k))
    .map((k) => {
      const meant = known.find((x) => x !== k && x.toLowerCase() === k.toLowerCase());
      return `--skip-kind ${k}: no document of the input is of kind ${k}, so nothing was skipped for it${meant !== undefined ? ` (kinds are matched as written: did you mean ${meant}?)` : ''}`;
    });
}

export interface DocumentOptions {
  /** --skip-kind: kinds to skip on purpose (by Kind), even those refused otherwise. */
  skipKinds?: ReadonlySet<string>;
  /** --from-cronjob: CronJobs (by name) whose job template runs once, as a Job (kubectl create job --from=cronjob/…). */
  fromCronJobs?: ReadonlySet<string>;
}

/** Validate one YAML document: an object of a kind runpod reads, or a v1 List of them; cluster-only kinds skipped. */
export function validateDocument(doc: YamlDocument, file: string, options: DocumentOptions = {}): DocumentResult {
  const docProblem = (message: string): DocumentResult => ({
    pods: [],
    configs: [],
    services: [],
    workloads: [],
    skipped: [],
    cronJobsRun: [],
    problems: [{ file, line: doc.line, path: '', message }],
    warnings: [],
  });
  // Refuse alias bombs and self-referencing anchors before anything walks the document as a tree.
  const expansion = checkExpansion(doc.value, doc.sourceNodes);
  if (!expansion.ok) {
    return docProblem(
      expansion.reason === 'cycle'
        ? 'a YAML alias refers to a node that contains it; a manifest must be a tree'
        : `YAML aliases expand this document to more than ${expansion.expanded - 1} nodes; write it out instead`,
    );
  }
  if (!isObj(doc.value)) return docProblem(`expected a mapping (a Kubernetes object), got ${describe(doc.value)}`);
  const w: DocWalk = {
    file,
    lines: doc.lines,
    options,
    sink: new ProblemSink(file, doc.lines, doc.line),
    pods: [],
    configs: [],
    services: [],
    workloads: [],
    skipped: [],
    cronJobsRun: [],
  };
  const top = hookSkipped(w, doc.value, [], doc.line) ? undefined : checkKind(w, doc.value, [], false, doc.line);
  if (top === 'List') acceptList(w, doc.value, doc.line);
  else if (top !== undefined) accept(w, doc.value, [], top, doc.line);
  const { pods, configs, services, workloads, skipped, cronJobsRun, sink } = w;
  return { pods, configs, services, workloads, skipped, cronJobsRun, problems: sink.problems, warnings: sink.warnings };
}

/** One document's walk: where it is, what it has found so far, and the sink for its problems and warnings. */
interface DocWalk {
  readonly file: string;
  readonly lines: LineMap;
  readonly options: DocumentOptions;
  readonly sink: ProblemSink;
  readonly pods: ValidPod[];
  readonly configs: ValidConfig[];
  readonly services: ValidService[];
  readonly workloads: ValidWorkload[];
  readonly skipped: SkippedObject[];
  readonly cronJobsRun: string[];
}

function metaOf(o: Obj): Obj {
  return isObj(o.metadata) ? o.metadata : {};
}

/** A v1 List (what `kubectl get -o yaml` prints for several objects): apiVersion, kind, metadata, items. */
function acceptList(w: DocWalk, list: Obj, docLine: number): void {
  const { sink } = w;
  for (const key of Object.keys(list)) {
    if (!['apiVersion', 'kind', 'metadata', 'items'].includes(key)) sink.add([key], `unknown field "${key}" in a List`);
  }
  const items = list.items;
  if (items === undefined || items === null) sink.add(['items'], 'required (the Pods of the List)');
  else if (!Array.isArray(items)) sink.add(['items'], `expected a list, got ${describe(items)}`);
  else if (items.length === 0) sink.add(['items'], 'the List has no items');
  else {
    items.forEach((item, i) => {
      const at = ['items', i];
      if (!isObj(item)) {
        sink.add(at, `expected a mapping (a Pod), got ${describe(item)}`);
        return;
      }
      const line = lineOf(w.lines, at) ?? docLine;
      if (hookSkipped(w, item, at, line)) return;
      const kind = checkKind(w, item, at, true, line);
      if (kind !== undefined) accept(w, item, at, kind, line);
    });
  }
}

function checkKind(w: DocWalk, obj: Obj, at: PathSegment[], inList: boolean, line: number): Kind | undefined {
  const { sink, options } = w;
  const kind = obj.kind;
  const apiVersion = obj.apiVersion;
  const missing = (v: unknown): boolean => v === undefined || v === null || v === '';
  let ok = true;
  if (missing(kind)) {
    sink.add([...at, 'kind'], `required (${kindsHint})`);
    ok = false;
  } else if (typeof kind !== 'string' || (!readKinds.has(kind) && kind !== 'List') || (options.skipKinds?.has(kind) === true && kind !== 'List')) {
    // describe() keeps a message short whatever the value (a kind can be a list nested a hundred deep).
    const name = typeof kind === 'string' && kind.length <= 63 ? kind : describe(kind);
    if (typeof kind === 'string' && typeof apiVersion === 'string') notRun(w, obj, at, line, apiVersion, kind);
    else sink.add([...at, 'kind'], `kind ${name} is not supported (${kindsHint})`);
    return undefined;
  } else if (kind === 'List' && inList) {
    sink.add([...at, 'kind'], `a List cannot hold a List (${kindsHint})`);
    return undefined;
  }
  const want = typeof kind === 'string' ? (readKinds.get(kind) ?? 'v1') : 'v1';
  if (missing(apiVersion)) {
    sink.add([...at, 'apiVersion'], `required (${want})`);
    ok = false;
  } else if (apiVersion !== want) {
    const gone = typeof apiVersion === 'string' && typeof kind === 'string' ? removedApiVersion(apiVersion, kind) : undefined;
    const shown = typeof apiVersion === 'string' ? `"${apiVersion}"` : describe(apiVersion);
    sink.add([...at, 'apiVersion'], gone ?? `expected ${want} for kind ${typeof kind === 'string' ? kind : 'Pod'}, got ${shown}`);
    ok = false;
  }
  return ok ? (kind as Kind) : undefined;
}

/** A kind runpod does not run: skipped (cluster-only, or --skip-kind) with a warning, refused with why, or unknown. */
function notRun(w: DocWalk, obj: Obj, at: PathSegment[], line: number, apiVersion: string, kind: string): void {
  const { sink, options } = w;
  const verdict = kindVerdict(apiVersion, kind, readKindSet, options.skipKinds ?? new Set());
  const meta = metaOf(obj);
  const objName = typeof meta.name === 'string' ? meta.name : undefined;
  if (kind === 'CronJob' && apiVersion === 'batch/v1' && objName !== undefined && options.fromCronJobs?.has(objName) && verdict?.action !== 'skip') {
    cronJobOnce(w, obj, at, line, objName);
    return;
  }
  const shown = `${kind}${objName !== undefined ? ` ${objName}` : ''}`;
  // A removed apiVersion is refused whatever runpod would do with the kind (unless --skip-kind names it); a
  // --from-cronjob of its name is answered here, not as a CronJob missing from the input.
  const gone = options.skipKinds?.has(kind) === true ? undefined : removedApiVersion(apiVersion, kind);
  if (gone !== undefined) {
    sink.add(
      [...at, 'apiVersion'],
      `${gone}${kind === 'CronJob' && objName !== undefined && options.fromCronJobs?.has(objName) ? ` (--from-cronjob ${objName} runs a batch/v1 CronJob)` : ''}`,
    );
    if (kind === 'CronJob' && objName !== undefined) w.cronJobsRun.push(objName);
    return;
  }
  if (verdict?.action === 'skip') {
    w.skipped.push({
      file: w.file,
      line,
      apiVersion,
      kind,
      ...(typeof meta.namespace === 'string' ? { namespace: meta.namespace } : {}),
      ...(objName !== undefined ? { name: objName } : {}),
      why: verdict.why,
    });
    sink.warn([...at, 'kind'], `${shown} skipped: ${verdict.why}`);
  } else if (verdict?.action === 'refuse') {
    sink.add([...at, 'kind'], `${shown} is refused: ${verdict.why}; ${verdict.hint}`);
  } else {
    sink.add([...at, 'kind'], `kind ${kind.length <= 63 ? kind : describe(kind)} is not supported (${kindsHint}; --skip-kind ${kind.length <= 63 ? kind : '<Kind>'} skips it)`);
  }
}

/**
 * --from-cronjob: the CronJob's jobTemplate as a Job named <cronjob>-manual, validated as any Job at
 * spec.jobTemplate (its problems point there). The schedule and its companions mean nothing for one run: warned.
 */
function cronJobOnce(w: DocWalk, obj: Obj, at: PathSegment[], line: number, name: string): void {
  const { sink } = w;
  const spec = isObj(obj.spec) ? obj.spec : {};
  for (const key of Object.keys(obj)) if (!['apiVersion', 'kind', 'metadata', 'spec', 'status'].includes(key)) sink.add([...at, key], `unknown field "${key}" in a CronJob`);
  const scheduling = ['schedule', 'timeZone', 'concurrencyPolicy', 'suspend', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit', 'startingDeadlineSeconds'];
  for (const key of Object.keys(spec)) {
    if (key === 'jobTemplate') continue;
    if (scheduling.includes(key)) sink.warn([...at, 'spec', key], `not used: --from-cronjob runs the job template once, now`);
    else sink.add([...at, 'spec', key], `unknown field "${key}" in a CronJobSpec (expected ${[...scheduling, 'jobTemplate'].join(', ')})`);
  }
  if (typeof spec.schedule !== 'string' || spec.schedule === '') sink.add([...at, 'spec', 'schedule'], 'required');
  const template = spec.jobTemplate;
  if (!isObj(template)) {
    sink.add([...at, 'spec', 'jobTemplate'], 'required (the Job to run)');
    return;
  }
  const tmeta = isObj(template.metadata) ? template.metadata : {};
  const job: Obj = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { ...tmeta, name: `${name}-manual`, ...(typeof metaOf(obj).namespace === 'string' ? { namespace: metaOf(obj).namespace } : {}) },
    spec: template.spec,
  };
  const jobAt = [...at, 'spec', 'jobTemplate'];
  if (validateWorkload(job, jobAt, 'Job', sink)) w.workloads.push({ kind: 'Job', value: job, at: jobAt, line, lines: w.lines });
  w.cronJobsRun.push(name);
}

function accept(w: DocWalk, obj: Obj, at: PathSegment[], kind: Kind | undefined, line: number): void {
  const { sink, lines } = w;
  if (kind === 'Pod') {
    if (validatePod(obj, at, sink)) w.pods.push({ value: obj, at, line, lines });
  } else if (kind === 'ConfigMap' || kind === 'Secret') {
    if (validateConfig(obj, at, kind, sink)) w.configs.push({ kind, value: obj, at, line, lines });
  } else if (kind === 'Service') {
    if (validateService(obj, at, sink)) w.services.push({ value: obj, at, line, lines });
  } else if (isWorkloadKind(kind)) {
    if (validateWorkload(obj, at, kind, sink)) w.workloads.push({ kind, value: obj, at, line, lines });
  }
}

/** A Helm hook object: skipped (test, delete, rollback hooks) with a warning, or run with a note on its ordering. */
function hookSkipped(w: DocWalk, obj: Obj, at: PathSegment[], line: number): boolean {
  const hook = helmHook(metaOf(obj).annotations);
  if (hook === undefined) return false;
  const where = [...at, 'metadata', 'annotations', hookAnnotation];
  if (hook.action === 'run') {
    w.sink.warn(where, hook.note);
    return false;
  }
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const meta = metaOf(obj);
  const name = typeof meta.name === 'string' ? meta.name : undefined;
  w.skipped.push({
    file: w.file,
    line,
    apiVersion: typeof obj.apiVersion === 'string' ? obj.apiVersion : '',
    kind,
    ...(typeof meta.namespace === 'string' ? { namespace: meta.namespace } : {}),
    ...(name !== undefined ? { name } : {}),
    why: hook.why,
  });
  w.sink.warn(where, `${kind}${name !== undefined ? ` ${name}` : ''} skipped: ${hook.why}`);
  return true;
}
