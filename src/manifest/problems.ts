// What validation reports and how: the problem sink of one document, the Kubernetes schema's findings as one
// message per field, and the metadata rules every object shares (pkg/apis/core/validation ValidateObjectMeta). Pure.

import { Pod as PodModel } from 'kubernetes-models/v1/Pod';
import type { ManifestProblem } from '../errors.js';
import type { ManifestWarning } from './types.js';
import { valueAt } from './ruleHelpers.js';
import { type FieldPath, type PathSegment, formatPath, fromJsonPointer, isWithin } from '../kube/path.js';
import { dns1123Label, dns1123Subdomain, labelValue, qualifiedName, quantityExample } from '../kube/syntax.js';
import { type LineMap, lineOf } from '../input/yaml.js';
import { describe, isObj, type Obj } from '../kube/object.js';

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
export function schemaProblems(pod: Obj, model: new (value: never) => { validate(): void } = PodModel): Array<{ path: PathSegment[]; message: string; wrongType: boolean }> {
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
  const quantity = errors.some((e) => e.keyword === 'format' && e.params.format === 'quantity') || (types.includes('number') && types.includes('string'));
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
export function report(sink: ProblemSink, path: FieldPath, problem: string | undefined): boolean {
  if (problem === undefined) return false;
  sink.add(path, problem);
  return true;
}
