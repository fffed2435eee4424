// Validation of parsed documents: which kinds are accepted, the field table (strictness), the Kubernetes schema
// (types, enums, formats, via kubernetes-models' compiled validators) and the API server's and kubelet's own rules
// that the schema does not express (pkg/apis/core/validation). Pure: values in, problems and warnings out.
// Every problem found is reported, one per field, at the line of the field (or of its nearest ancestor with one).

import { Pod as PodModel } from 'kubernetes-models/v1/Pod';
import type { ManifestProblem } from '../errors.js';
import type { ManifestWarning, SkippedObject } from './types.js';
import { type FieldPlaces, podFields, walkFields } from './fields.js';
import { probeRules } from './probeRules.js';
import { valueAt } from './ruleHelpers.js';
import { type FieldPath, type PathSegment, formatPath, fromJsonPointer, isWithin } from './path.js';
import {
  compareQuantities,
  dns1123Label,
  dns1123Subdomain,
  envVarName,
  ipAddress,
  labelValue,
  parseQuantity,
  portName,
  portNumber,
  qualifiedName,
  quantityExample,
  type Quantity,
} from './syntax.js';
import { type LineMap, type YamlDocument, checkExpansion, lineOf } from './yaml.js';
import { validateConfig } from './configs.js';
import { apiGroup, kindVerdict, kindsNotRun, removedApiVersion } from './kinds.js';
import { helmHook, hookAnnotation } from './helmHooks.js';
import { envSourceRules, mountRules, volumeRules } from './volumeRules.js';
import { securityRules } from './securityRules.js';
import { validateWorkload } from './workloadRules.js';
import { validateService } from './serviceRules.js';
import { containerRestartRules } from './restartRules.js';

export type Obj = Record<string, unknown>;

/** A YAML mapping; not a list, and not a timestamp or binary scalar (which js-yaml builds as objects). */
export function isObj(v: unknown): v is Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Collects problems for one document: at most one per field, none inside a field already refused as a whole. */
export class ProblemSink {
  readonly problems: ManifestProblem[] = [];
  readonly warnings: ManifestWarning[] = [];
  private readonly seen = new Set<string>();
  private readonly settled: FieldPath[] = [];

  constructor(
    readonly file: string,
    readonly lines: LineMap,
    /** Line for a field with no written ancestor (a missing top-level field): the document's first line. */
    readonly documentLine?: number,
  ) {}

  private where(path: FieldPath): { file: string; line?: number; path: string } {
    const line = lineOf(this.lines, path) ?? this.documentLine;
    return { file: this.file, ...(line !== undefined ? { line } : {}), path: formatPath(path) };
  }

  /** True when a problem was recorded (false when the field already has one, or lies in a refused subtree). */
  add(path: FieldPath, message: string): boolean {
    const key = formatPath(path);
    if (this.seen.has(key) || this.settled.some((s) => isWithin(path, s))) return false;
    this.seen.add(key);
    this.problems.push({ ...this.where(path), message });
    return true;
  }

  /** The field already has a problem. */
  has(path: FieldPath): boolean {
    return this.seen.has(formatPath(path)) || this.settled.some((s) => isWithin(path, s));
  }

  warn(path: FieldPath, message: string): void {
    this.warnings.push({ ...this.where(path), message });
  }

  /** Nothing more is reported at or under this path. */
  settle(path: FieldPath): void {
    this.settled.push(path);
  }
}

/** A Pod that passed validation, with where it was written. */
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

/** The kinds that run pods through a controller, and the claims they (and pods) mount. */
export type WorkloadKind = 'Deployment' | 'ReplicaSet' | 'ReplicationController' | 'StatefulSet' | 'DaemonSet' | 'Job' | 'PersistentVolumeClaim';

/** A workload or PersistentVolumeClaim that passed validation, with where it was written. */
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
  'runpod reads kinds Pod, ConfigMap, Secret, Service, PersistentVolumeClaim and ReplicationController (v1), Deployment, ReplicaSet, StatefulSet and DaemonSet (apps/v1), Job (batch/v1), or a List of them';
type Kind = 'Pod' | 'ConfigMap' | 'Secret' | 'Service' | WorkloadKind | 'List';
/** The kinds runpod reads, each with the one apiVersion it has. */
const readKinds = new Map<string, string>([
  ['Pod', 'v1'],
  ['ConfigMap', 'v1'],
  ['Secret', 'v1'],
  ['Service', 'v1'],
  ['PersistentVolumeClaim', 'v1'],
  ['ReplicationController', 'v1'],
  ['Deployment', 'apps/v1'],
  ['ReplicaSet', 'apps/v1'],
  ['StatefulSet', 'apps/v1'],
  ['DaemonSet', 'apps/v1'],
  ['Job', 'batch/v1'],
]);
const workloadKinds: ReadonlySet<string> = new Set<WorkloadKind>(['Deployment', 'ReplicaSet', 'ReplicationController', 'StatefulSet', 'DaemonSet', 'Job', 'PersistentVolumeClaim']);
function isWorkloadKind(kind: string | undefined): kind is WorkloadKind {
  return kind !== undefined && workloadKinds.has(kind);
}
/** The same kinds keyed as manifest/kinds.ts keys them: core kinds by name, others as group/Kind (apps/Deployment). */
const readKindSet: ReadonlySet<string> = new Set(
  [...readKinds].map(([kind, apiVersion]) => (apiGroup(apiVersion) === '' ? kind : `${apiGroup(apiVersion)}/${kind}`)),
);

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
  const sink = new ProblemSink(file, doc.lines, doc.line);
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

  const pods: ValidPod[] = [];
  const configs: ValidConfig[] = [];
  const services: ValidService[] = [];
  const workloads: ValidWorkload[] = [];
  const skipped: SkippedObject[] = [];
  const cronJobsRun: string[] = [];
  const checkKind = (obj: Obj, at: PathSegment[], inList: boolean, line: number): Kind | undefined => {
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
      if (typeof kind === 'string' && typeof apiVersion === 'string') notRun(obj, at, line, apiVersion, kind);
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
  };
  /** A kind runpod does not run: skipped (cluster-only, or --skip-kind) with a warning, refused with why, or unknown. */
  const notRun = (obj: Obj, at: PathSegment[], line: number, apiVersion: string, kind: string): void => {
    const verdict = kindVerdict(apiVersion, kind, readKindSet, options.skipKinds ?? new Set());
    const meta = isObj(obj.metadata) ? obj.metadata : {};
    const objName = typeof meta.name === 'string' ? meta.name : undefined;
    if (kind === 'CronJob' && apiVersion === 'batch/v1' && objName !== undefined && options.fromCronJobs?.has(objName) && verdict?.action !== 'skip') {
      cronJobOnce(obj, at, line, objName);
      return;
    }
    const shown = `${kind}${objName !== undefined ? ` ${objName}` : ''}`;
    // A removed apiVersion is refused whatever runpod would do with the kind (unless --skip-kind names it); a
    // --from-cronjob of its name is answered here, not as a CronJob missing from the input.
    const gone = options.skipKinds?.has(kind) === true ? undefined : removedApiVersion(apiVersion, kind);
    if (gone !== undefined) {
      sink.add([...at, 'apiVersion'], `${gone}${kind === 'CronJob' && objName !== undefined && options.fromCronJobs?.has(objName) ? ` (--from-cronjob ${objName} runs a batch/v1 CronJob)` : ''}`);
      if (kind === 'CronJob' && objName !== undefined) cronJobsRun.push(objName);
      return;
    }
    if (verdict?.action === 'skip') {
      skipped.push({ file, line, apiVersion, kind, ...(typeof meta.namespace === 'string' ? { namespace: meta.namespace } : {}), ...(objName !== undefined ? { name: objName } : {}), why: verdict.why });
      sink.warn([...at, 'kind'], `${shown} skipped: ${verdict.why}`);
    } else if (verdict?.action === 'refuse') {
      sink.add([...at, 'kind'], `${shown} is refused: ${verdict.why}; ${verdict.hint}`);
    } else {
      sink.add([...at, 'kind'], `kind ${kind.length <= 63 ? kind : describe(kind)} is not supported (${kindsHint}; --skip-kind ${kind.length <= 63 ? kind : '<Kind>'} skips it)`);
    }
  };
  /**
   * --from-cronjob: the CronJob's jobTemplate as a Job named <cronjob>-manual, validated as any Job at
   * spec.jobTemplate (its problems point there). The schedule and its companions mean nothing for one run: warned.
   */
  const cronJobOnce = (obj: Obj, at: PathSegment[], line: number, name: string): void => {
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
      metadata: { ...tmeta, name: `${name}-manual`, ...(typeof meta(obj).namespace === 'string' ? { namespace: meta(obj).namespace } : {}) },
      spec: template.spec,
    };
    const jobAt = [...at, 'spec', 'jobTemplate'];
    if (validateWorkload(job, jobAt, 'Job', sink)) workloads.push({ kind: 'Job', value: job, at: jobAt, line, lines: doc.lines });
    cronJobsRun.push(name);
  };
  const meta = (o: Obj): Obj => (isObj(o.metadata) ? o.metadata : {});
  const accept = (obj: Obj, at: PathSegment[], kind: Kind | undefined, line: number): void => {
    if (kind === 'Pod') {
      if (validatePod(obj, at, sink)) pods.push({ value: obj, at, line, lines: doc.lines });
    } else if (kind === 'ConfigMap' || kind === 'Secret') {
      if (validateConfig(obj, at, kind, sink)) configs.push({ kind, value: obj, at, line, lines: doc.lines });
    } else if (kind === 'Service') {
      if (validateService(obj, at, sink)) services.push({ value: obj, at, line, lines: doc.lines });
    } else if (isWorkloadKind(kind)) {
      if (validateWorkload(obj, at, kind, sink)) workloads.push({ kind, value: obj, at, line, lines: doc.lines });
    }
  };

  /** A Helm hook object: skipped (test, delete, rollback hooks) with a warning, or run with a note on its ordering. */
  const hookSkipped = (obj: Obj, at: PathSegment[], line: number): boolean => {
    const hook = helmHook(meta(obj).annotations);
    if (hook === undefined) return false;
    const where = [...at, 'metadata', 'annotations', hookAnnotation];
    if (hook.action === 'run') {
      sink.warn(where, hook.note);
      return false;
    }
    const kind = typeof obj.kind === 'string' ? obj.kind : '';
    const name = typeof meta(obj).name === 'string' ? (meta(obj).name as string) : undefined;
    skipped.push({ file, line, apiVersion: typeof obj.apiVersion === 'string' ? obj.apiVersion : '', kind, ...(typeof meta(obj).namespace === 'string' ? { namespace: meta(obj).namespace as string } : {}), ...(name !== undefined ? { name } : {}), why: hook.why });
    sink.warn(where, `${kind}${name !== undefined ? ` ${name}` : ''} skipped: ${hook.why}`);
    return true;
  };

  const top = hookSkipped(doc.value, [], doc.line) ? undefined : checkKind(doc.value, [], false, doc.line);
  if (top !== undefined && top !== 'List') {
    accept(doc.value, [], top, doc.line);
  } else if (top === 'List') {
    // A v1 List (what `kubectl get -o yaml` prints for several objects): apiVersion, kind, metadata, items.
    for (const key of Object.keys(doc.value)) {
      if (!['apiVersion', 'kind', 'metadata', 'items'].includes(key)) sink.add([key], `unknown field "${key}" in a List`);
    }
    const items = doc.value.items;
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
        const line = lineOf(doc.lines, at) ?? doc.line;
        if (hookSkipped(item, at, line)) return;
        const kind = checkKind(item, at, true, line);
        if (kind !== undefined) accept(item, at, kind, line);
      });
    }
  }
  return { pods, configs, services, workloads, skipped, cronJobsRun, problems: sink.problems, warnings: sink.warnings };
}

/** How a Pod is validated when it is not a Pod document but a workload's pod template (workloadRules.ts). */
export interface PodOptions {
  /** Where the Pod's levels are, for "belongs in" hints: podTemplatePlaces for a template. */
  places?: FieldPlaces;
  /** Names a volumeMount may refer to besides spec.volumes: a StatefulSet's volumeClaimTemplates. */
  claimVolumes?: ReadonlySet<string>;
}

/** Validate one Pod object found at `at` in its document. True when it has no problem. */
export function validatePod(pod: Obj, at: PathSegment[], sink: ProblemSink, options: PodOptions = {}): boolean {
  const before = sink.problems.length;
  // 1. The field table: unknown and unsupported fields, warnings for scheduling and read-only fields.
  const walk = walkFields(pod, podFields, at, options.places);
  for (const p of walk.problems) sink.add(p.path, p.message);
  for (const s of walk.settled) sink.settle(s);
  for (const w of walk.warnings) sink.warn(w.path, w.message);
  // 2. The Kubernetes schema: types, enums and formats.
  for (const p of schemaProblems(pod)) {
    const path = [...at, ...p.path];
    sink.add(path, p.message);
    // A value of the wrong type has no fields of its own to check.
    if (p.wrongType) sink.settle(path);
  }
  // 3. The rules the schema leaves to validation code.
  podRules(pod, at, sink, options.claimVolumes);
  return sink.problems.length === before;
}

interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

function isAjvError(v: unknown): v is AjvError {
  return isObj(v) && typeof v.instancePath === 'string' && typeof v.keyword === 'string' && isObj(v.params);
}

/** kubernetes-models' validator, with ajv's errors collapsed to one human message per field. */
export function schemaProblems(
  pod: Obj,
  model: new (value: never) => { validate(): void } = PodModel,
): Array<{ path: PathSegment[]; message: string; wrongType: boolean }> {
  let errors: AjvError[] = [];
  try {
    // The document itself is validated, not a model built from it: the model's constructor copies each field through
    // is-plain-object, which throws on a mapping holding "constructor: null", and a "__proto__" key would replace the
    // model's prototype, validate() with it. The compiled schema validator reads plain data as it is.
    (model.prototype as { validate(this: unknown): void }).validate.call(pod);
    return [];
  } catch (err) {
    const raw: unknown = err !== null && typeof err === 'object' && 'errors' in err ? err.errors : undefined;
    if (!Array.isArray(raw)) throw err;
    errors = raw.filter(isAjvError);
  }
  const byPath = new Map<string, { path: PathSegment[]; errors: AjvError[] }>();
  for (const e of errors) {
    let path = fromJsonPointer(e.instancePath, pod);
    // A missing required property is a problem of the property itself: spec.containers[0].name: required.
    if (e.keyword === 'required' && typeof e.params.missingProperty === 'string') path = [...path, e.params.missingProperty];
    const key = formatPath(path);
    const group = byPath.get(key) ?? { path, errors: [] };
    group.errors.push(e);
    byPath.set(key, group);
  }
  return [...byPath.values()].map(({ path, errors: errs }) => ({
    path,
    message: humanMessage(errs, valueAt(pod, path)),
    wrongType: errs.some((e) => e.keyword === 'type'),
  }));
}


const typeNames: Record<string, string> = {
  integer: 'integer',
  number: 'number',
  string: 'string',
  boolean: 'boolean (true or false)',
  array: 'a list',
  object: 'a mapping',
};

/** One message for all of ajv's errors at one field (a failed oneOf reports each branch and then itself). */
function humanMessage(errors: AjvError[], value: unknown): string {
  const by = (kw: string): AjvError | undefined => errors.find((e) => e.keyword === kw);
  if (by('required')) return 'required';
  const types = errors.filter((e) => e.keyword === 'type').map((e) => String(e.params.type));
  // A Quantity is oneOf a number or a string in quantity format; whichever branch failed, say what a quantity is.
  const quantity =
    errors.some((e) => e.keyword === 'format' && e.params.format === 'quantity') ||
    (types.includes('number') && types.includes('string'));
  if (quantity) return `${quantityExample}, got ${describe(value)}`;
  if (types.length > 0) {
    const names = [...new Set(types)].map((t) => typeNames[t] ?? t);
    const hint = typeof value === 'object' && value instanceof Date ? ' (quote the value)' : '';
    return `expected ${names.join(' or ')}, got ${describe(value)}${hint}`;
  }
  const en = by('enum');
  if (en !== undefined && Array.isArray(en.params.allowedValues)) {
    return `must be one of ${en.params.allowedValues.map(String).join(', ')}, got ${describe(value)}`;
  }
  const fmt = by('format');
  if (fmt !== undefined) {
    const format = String(fmt.params.format);
    if (format === 'int32') return 'expected a 32-bit integer';
    if (format === 'int64') return 'expected a 64-bit integer';
    if (format === 'date-time') return 'expected an RFC 3339 date-time such as 2024-01-31T12:00:00Z';
    return `expected format ${format}`;
  }
  const first = errors[0];
  return first?.message ?? 'invalid value';
}

/** A short description of a value for messages: "abc", 42, true, null, a list, a mapping. */
export function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 37)}...` : v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v)) return 'a list';
  if (v instanceof Date) return 'a timestamp';
  if (isObj(v)) return 'a mapping';
  return typeof v;
}

/** pkg/apis/core/validation: TotalAnnotationSizeLimitB. */
const totalAnnotationSizeLimit = 256 * 1024;

export function metadataRules(meta: unknown, at: PathSegment[], sink: ProblemSink): void {
  const m = [...at, 'metadata'];
  if (!isObj(meta)) {
    // The schema reports a metadata of the wrong type; a missing one leaves the pod without its required name.
    if (meta === undefined || meta === null) sink.add([...m, 'name'], 'required');
    return;
  }
  // ValidateObjectMeta with ValidatePodName (a DNS-1123 subdomain); runpod needs a name, as `kubectl apply` does.
  const name = meta.name;
  if (name === undefined || name === null || name === '') sink.add([...m, 'name'], 'required');
  else if (typeof name === 'string') report(sink, [...m, 'name'], dns1123Subdomain(name));
  // Namespaces are DNS-1123 labels (ValidateNamespaceName).
  if (typeof meta.namespace === 'string' && meta.namespace !== '') report(sink, [...m, 'namespace'], dns1123Label(meta.namespace));
  // The uid becomes part of container names (k8s_<container>_<pod>_<namespace>_<uid>_<attempt>), which Docker
  // limits to [a-zA-Z0-9_.-] and runpod splits at '_'.
  if (typeof meta.uid === 'string' && !/^[A-Za-z0-9][A-Za-z0-9-]{0,127}$/.test(meta.uid)) {
    sink.add([...m, 'uid'], "must consist of letters, digits and '-' (at most 128), such as a UUID");
  }
  // ValidateLabels: keys are qualified names, values valid label values.
  if (isObj(meta.labels)) {
    for (const [k, v] of Object.entries(meta.labels)) {
      const p = [...m, 'labels', k];
      if (report(sink, p, keyProblem(qualifiedName(k)))) continue;
      // The pod's labels go on its infra container beside runpod's own, which name and find what runpod made (its
      // isolation key, owner, source): a manifest may not set those.
      if (k.startsWith('io.runpod.') || k.startsWith('io.kubernetes.')) {
        sink.add(p, `label key ${k} is runpod's own (runpod sets io.runpod.* and io.kubernetes.* labels to find what it made); use another key`);
        continue;
      }
      if (typeof v === 'string') report(sink, p, labelValue(v));
    }
  }
  // ValidateAnnotations: keys are qualified names (checked lower-cased), total size at most 256 KiB.
  if (isObj(meta.annotations)) {
    let size = 0;
    for (const [k, v] of Object.entries(meta.annotations)) {
      report(sink, [...m, 'annotations', k], keyProblem(qualifiedName(k.toLowerCase())));
      size += k.length + (typeof v === 'string' ? v.length : 0);
    }
    if (size > totalAnnotationSizeLimit) sink.add([...m, 'annotations'], `may not be more than 256 KiB in total (has ${size} bytes)`);
  }
}

function keyProblem(p: string | undefined): string | undefined {
  return p === undefined ? undefined : `invalid key: ${p}`;
}

/** Add a problem when there is one; true when there was. */
function report(sink: ProblemSink, path: FieldPath, problem: string | undefined): boolean {
  if (problem === undefined) return false;
  sink.add(path, problem);
  return true;
}

/** Host ports in use, for conflicts within a pod and across pods (AccumulateUniqueHostPorts). */
export interface HostPortUse {
  hostPort: number;
  protocol: string;
  hostIP: string;
  path: PathSegment[];
}

/** Two bindings of one host port and protocol collide when their addresses overlap: equal, or either is any-address. */
export function hostPortsCollide(a: HostPortUse, b: HostPortUse): boolean {
  if (a.hostPort !== b.hostPort || a.protocol !== b.protocol) return false;
  const anyAddress = (ip: string): boolean => ip === '' || ip === '0.0.0.0' || ip === '::';
  return anyAddress(a.hostIP) || anyAddress(b.hostIP) || a.hostIP === b.hostIP;
}

/** The host ports a (raw or defaulted) pod binds; protocol defaults to TCP (SetDefaults_ContainerPort). */
export function hostPortsOf(pod: unknown, at: PathSegment[]): HostPortUse[] {
  const out: HostPortUse[] = [];
  const spec = isObj(pod) ? pod.spec : undefined;
  if (!isObj(spec)) return out;
  // Init containers' ports are the pod's too (published on the sandbox like the containers' ones).
  for (const field of ['initContainers', 'containers'] as const) {
    list(spec[field]).forEach((c, ci) => {
      if (!isObj(c)) return;
      list(c.ports).forEach((p, pi) => {
        if (!isObj(p) || typeof p.hostPort !== 'number' || p.hostPort === 0) return;
        out.push({
          hostPort: p.hostPort,
          protocol: typeof p.protocol === 'string' ? p.protocol : 'TCP',
          hostIP: typeof p.hostIP === 'string' ? p.hostIP : '',
          path: [...at, 'spec', field, ci, 'ports', pi, 'hostPort'],
        });
      });
    });
  }
  return out;
}

function podRules(pod: Obj, at: PathSegment[], sink: ProblemSink, claimVolumes: ReadonlySet<string> = new Set()): void {
  metadataRules(pod.metadata, at, sink);
  const s = [...at, 'spec'];
  const spec = pod.spec;
  if (spec === undefined || spec === null) {
    sink.add(s, 'required (a Pod needs spec.containers)');
    return;
  }
  if (!isObj(spec)) return;
  // ValidatePodSpec: at least one container.
  if (Array.isArray(spec.containers) && spec.containers.length === 0) sink.add([...s, 'containers'], 'must have at least one container');
  // ValidatePodSpec: terminationGracePeriodSeconds must be non-negative.
  const grace = spec.terminationGracePeriodSeconds;
  if (typeof grace === 'number' && grace < 0) sink.add([...s, 'terminationGracePeriodSeconds'], 'must be greater than or equal to 0');
  if (typeof spec.hostname === 'string') report(sink, [...s, 'hostname'], dns1123Label(spec.hostname));

  // validateInitContainers + validateContainers: names are unique among init containers and containers together,
  // and port names among all of them (init containers are checked first, as the API server does).
  const containerNames = new Map<string, string>();
  const portNames = new Map<string, PathSegment[]>();
  list(spec.initContainers).forEach((c, i) => {
    if (!isObj(c)) return;
    const p = [...s, 'initContainers', i];
    containerRules(c, p, containerNames, portNames, sink);
    initContainerRules(c, p, sink);
  });
  list(spec.containers).forEach((c, i) => {
    if (!isObj(c)) return;
    containerRules(c, [...s, 'containers', i], containerNames, portNames, sink);
    containerRestartRules(c, [...s, 'containers', i], sink);
  });
  // Volumes, then every container's mounts (which must name a declared volume) and env sources.
  const declared = volumeRules(spec, s, sink);
  // A StatefulSet's claim templates are volumes of its pods too (the controller adds one per template).
  for (const name of claimVolumes) if (!declared.has(name)) declared.set(name, 'persistentVolumeClaim');
  const names = new Set(containerNames.keys());
  for (const field of ['initContainers', 'containers'] as const) {
    list(spec[field]).forEach((c, i) => {
      if (!isObj(c)) return;
      mountRules(c, [...s, field, i], sink, declared);
      envSourceRules(c, [...s, field, i], sink, names);
    });
  }

  // Security contexts, host namespaces, hostname, hostAliases and DNS (securityRules.ts).
  const meta = isObj(pod.metadata) ? pod.metadata : {};
  securityRules(spec, s, sink, meta.name, meta.namespace, meta.annotations);

  // AccumulateUniqueHostPorts: one pod cannot bind the same host port and protocol twice.
  const used: HostPortUse[] = [];
  for (const use of hostPortsOf(pod, at)) {
    if (sink.has(use.path)) continue;
    const clash = used.find((u) => hostPortsCollide(u, use));
    if (clash !== undefined) sink.add(use.path, `host port ${use.hostPort}/${use.protocol} is already used by ${formatPath(clash.path.slice(at.length))}`);
    else used.push(use);
  }
}

function containerRules(
  c: Obj,
  p: PathSegment[],
  names: Map<string, string>,
  portNames: Map<string, PathSegment[]>,
  sink: ProblemSink,
): void {
  // validateContainers: the name is a DNS-1123 label, unique among the pod's containers.
  if (typeof c.name === 'string') {
    const at = [...p, 'name'];
    if (c.name === '') sink.add(at, 'required');
    else if (!report(sink, at, dns1123Label(c.name))) {
      const first = names.get(c.name);
      if (first !== undefined) sink.add(at, `duplicate container name "${c.name}" (also ${first})`);
      else names.set(c.name, formatPath(p.slice(p.indexOf('spec'))));
    }
  }
  // validateContainers: image is required (the API schema leaves it optional for controllers that fill it in),
  // and must not have leading or trailing whitespace.
  const image = c.image;
  if (image === undefined || image === null || image === '') sink.add([...p, 'image'], 'required');
  else if (typeof image === 'string' && image.trim() !== image) sink.add([...p, 'image'], 'must not have leading or trailing whitespace');

  // ValidateEnv: each name a valid environment variable name.
  list(c.env).forEach((e, i) => {
    if (isObj(e) && typeof e.name === 'string') report(sink, [...p, 'env', i, 'name'], envVarName(e.name));
  });

  // validateContainerPorts: port numbers in range, IANA port names unique in the pod, a valid host IP.
  list(c.ports).forEach((port, i) => {
    if (!isObj(port)) return;
    const pp = [...p, 'ports', i];
    if (typeof port.containerPort === 'number') report(sink, [...pp, 'containerPort'], portNumber(port.containerPort));
    if (typeof port.hostPort === 'number' && port.hostPort !== 0) report(sink, [...pp, 'hostPort'], portNumber(port.hostPort));
    if (typeof port.hostIP === 'string' && port.hostIP !== '') report(sink, [...pp, 'hostIP'], ipAddress(port.hostIP));
    if (typeof port.name === 'string' && port.name !== '') {
      const at = [...pp, 'name'];
      if (!report(sink, at, portName(port.name))) {
        const first = portNames.get(port.name);
        if (first !== undefined) sink.add(at, `duplicate port name "${port.name}" (also ${formatPath(first.slice(first.indexOf('spec')))})`);
        else portNames.set(port.name, pp);
      }
    }
  });

  resourceRules(c.resources, [...p, 'resources'], sink);
  resizePolicyRules(c.resizePolicy, [...p, 'resizePolicy'], sink);
  probeRules(c, p, sink);
  lifecycleRules(c, p, sink);
  // validateContainers: terminationMessagePolicy File or FallbackToLogsOnError; the path is absolute (runpod reads
  // it from the container's filesystem).
  const tmp = c.terminationMessagePolicy;
  if (typeof tmp === 'string' && tmp !== 'File' && tmp !== 'FallbackToLogsOnError') sink.add([...p, 'terminationMessagePolicy'], `must be File or FallbackToLogsOnError, got ${describe(tmp)}`);
  const tpath = c.terminationMessagePath;
  if (typeof tpath === 'string' && tpath !== '' && !tpath.startsWith('/')) sink.add([...p, 'terminationMessagePath'], 'must be an absolute path');
}

/**
 * validateResizePolicy (ContainerResizePolicy: "Supported values: cpu, memory"; restartPolicy NotRequired or
 * RestartContainer, "If not specified, it defaults to NotRequired"): one entry per resource.
 */
function resizePolicyRules(v: unknown, p: PathSegment[], sink: ProblemSink): void {
  const seen = new Map<string, number>();
  list(v).forEach((e, i) => {
    if (!isObj(e)) return;
    const name = e.resourceName;
    if (typeof name === 'string') {
      if (name !== 'cpu' && name !== 'memory') sink.add([...p, i, 'resourceName'], `must be cpu or memory (the resources a running container can be resized in), got ${describe(name)}`);
      else if (seen.has(name)) sink.add([...p, i, 'resourceName'], `duplicate resourceName "${name}" (also resizePolicy[${seen.get(name)}])`);
      else seen.set(name, i);
    }
    const policy = e.restartPolicy;
    if (typeof policy === 'string' && policy !== 'NotRequired' && policy !== 'RestartContainer') {
      sink.add([...p, i, 'restartPolicy'], `must be NotRequired (apply the change to the running container) or RestartContainer (replace it), got ${describe(policy)}`);
    }
  });
}

/**
 * validateInitContainers: restartPolicy on an init container is Always (a sidecar, KEP-753) or, from Kubernetes 1.34
 * (ContainerRestartRules), OnFailure or Never, which override the pod's restartPolicy for that init container; its
 * restartPolicyRules need that restartPolicy, and a sidecar "does not support restartPolicyRules" (pod lifecycle,
 * "Individual container restart policy and rules"; Kubernetes 1.35's RestartAllContainers allows them there). An init
 * container that is not a sidecar runs to completion, so lifecycle hooks and probes mean nothing for it and are
 * refused ("may not be set for init containers without restartPolicy=Always"). terminationMessagePolicy is one of
 * the two values (validateContainers; checked here for containers too, below).
 */
function initContainerRules(c: Obj, p: PathSegment[], sink: ProblemSink): void {
  const policy = c.restartPolicy;
  if (policy !== undefined && policy !== null && policy !== 'Always' && policy !== 'OnFailure' && policy !== 'Never') {
    sink.add([...p, 'restartPolicy'], `must be Always (a sidecar), OnFailure or Never (they override the pod's restartPolicy for this init container), or unset, got ${describe(policy)}`);
    return;
  }
  if (policy === 'Always') {
    if (c.restartPolicyRules !== undefined && c.restartPolicyRules !== null) sink.add([...p, 'restartPolicyRules'], 'may not be set on a sidecar (an init container with restartPolicy: Always, which always restarts)');
    // A sidecar's startupProbe gates the next init container; its liveness and readiness probes are not run by
    // runpod yet, and a probe that is accepted but never run would be a silent lie.
    for (const f of ['livenessProbe', 'readinessProbe']) {
      if (c[f] !== undefined && c[f] !== null) sink.add([...p, f], 'not supported by runpod on sidecars (startupProbe is)');
    }
    return;
  }
  containerRestartRules(c, p, sink, true);
  for (const f of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe']) {
    if (c[f] !== undefined && c[f] !== null) sink.add([...p, f], 'may not be set for init containers without restartPolicy: Always');
  }
}

/** validateLifecycle / validateHandler: exactly one handler each; a sleep's seconds non-negative. */
function lifecycleRules(c: Obj, p: PathSegment[], sink: ProblemSink): void {
  const lifecycle = c.lifecycle;
  if (!isObj(lifecycle)) return;
  for (const hook of ['postStart', 'preStop'] as const) {
    const h = lifecycle[hook];
    if (!isObj(h)) continue;
    const at = [...p, 'lifecycle', hook];
    const set = ['exec', 'httpGet', 'sleep', 'tcpSocket'].filter((k) => h[k] !== undefined && h[k] !== null);
    if (set.length === 0) sink.add(at, 'must specify a handler type (exec, httpGet or sleep)');
    else if (set.length > 1) sink.add([...at, set[1]!], `may not specify more than one handler type (also ${set[0]})`);
    const exec = h.exec;
    if (isObj(exec) && (!Array.isArray(exec.command) || exec.command.length === 0)) sink.add([...at, 'exec', 'command'], 'required');
    const sleep = h.sleep;
    if (isObj(sleep) && typeof sleep.seconds === 'number' && sleep.seconds < 0) sink.add([...at, 'sleep', 'seconds'], 'must be greater than or equal to 0');
    const http = h.httpGet;
    if (isObj(http)) {
      const port = http.port;
      if (port === undefined || port === null || port === '') sink.add([...at, 'httpGet', 'port'], 'required');
      else if (typeof port === 'number') report(sink, [...at, 'httpGet', 'port'], portNumber(port));
      else if (typeof port === 'string' && !/^[0-9]+$/.test(port)) {
        // A named port must be one of the container's own (the kubelet resolves it against them).
        const names = list(c.ports).filter(isObj).map((x) => x.name);
        if (!names.includes(port)) sink.add([...at, 'httpGet', 'port'], `no port named "${port}" in this container`);
      }
    }
  }
}

/** ValidateResourceRequirements: quantities parse and are non-negative; a request does not exceed its limit. */
function resourceRules(resources: unknown, p: PathSegment[], sink: ProblemSink): void {
  if (!isObj(resources)) return;
  const read = (which: 'limits' | 'requests'): Map<string, Quantity> => {
    const out = new Map<string, Quantity>();
    const rl = resources[which];
    if (!isObj(rl)) return out;
    for (const [name, v] of Object.entries(rl)) {
      const at = [...p, which, name];
      if (sink.has(at)) continue;
      const q = parseQuantity(v);
      if (q === undefined) sink.add(at, `${quantityExample}, got ${describe(v)}`);
      else if (q.negative) sink.add(at, 'must be greater than or equal to 0');
      else out.set(name, q);
    }
    return out;
  };
  const limits = read('limits');
  const requests = read('requests');
  for (const [name, req] of requests) {
    const lim = limits.get(name);
    if (lim !== undefined && compareQuantities(req, lim) > 0) {
      const raw = (resources.limits as Obj)[name];
      sink.add([...p, 'requests', name], `must be less than or equal to ${name} limit of ${String(raw)}`);
    }
  }
}
