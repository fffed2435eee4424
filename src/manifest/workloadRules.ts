// Validation of the workload kinds (Deployment, ReplicaSet, StatefulSet, DaemonSet, ReplicationController) and of
// PersistentVolumeClaims: the field tables (fields.ts), the Kubernetes schema (kubernetes-models' compiled validator
// of each kind), and the API server's rules the schema does not express (pkg/apis/apps/validation:
// ValidateDeploymentSpec, ValidateReplicaSetSpec, ValidateStatefulSetSpec, ValidateDaemonSetSpec; pkg/apis/core/
// validation: ValidateReplicationControllerSpec, ValidatePersistentVolumeClaimSpec; pkg/apis/batch/validation:
// ValidateJob, validateJobSpec). A pod template is validated as
// the Pod it stands for, with validatePod, so its problems read spec.template.spec.containers[0].image. Pure.

import { Deployment as DeploymentModel } from 'kubernetes-models/apps/v1/Deployment';
import { DaemonSet as DaemonSetModel } from 'kubernetes-models/apps/v1/DaemonSet';
import { Job as JobModel } from 'kubernetes-models/batch/v1/Job';
import { ReplicaSet as ReplicaSetModel } from 'kubernetes-models/apps/v1/ReplicaSet';
import { StatefulSet as StatefulSetModel } from 'kubernetes-models/apps/v1/StatefulSet';
import { PersistentVolume as PersistentVolumeModel } from 'kubernetes-models/v1/PersistentVolume';
import { PersistentVolumeClaim as PersistentVolumeClaimModel } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { ReplicationController as ReplicationControllerModel } from 'kubernetes-models/v1/ReplicationController';
import { labelSelectorFrom, selectorMatches, type Selector } from '../kube/selector.js';
import {
  type FieldLevel,
  type FieldPlaces,
  daemonSetFields,
  deploymentFields,
  jobFields,
  persistentVolumeClaimFields,
  persistentVolumeFields,
  placesOf,
  podTemplatePlaces,
  replicaSetFields,
  replicationControllerFields,
  statefulSetFields,
  walkFields,
} from './fields.js';
import { list, report, set, valueAt } from './ruleHelpers.js';
import { type FieldPath, type PathSegment, formatPath, isWithin } from '../kube/path.js';
import { dns1123Label, dns1123Subdomain, labelValue, parseQuantity, qualifiedName, quantityExample } from '../kube/syntax.js';
import { type Obj, describe, isObj } from '../kube/object.js';
import { type ProblemSink, metadataRules, schemaProblems } from './problems.js';
import { validatePod } from './pod.js';
import { persistentVolumeSpecRules } from './persistentVolumeRules.js';
import type { WorkloadKind } from './types.js';

type Model = new (value: never) => { validate(): void };

interface KindTable {
  fields: FieldLevel;
  places: FieldPlaces;
  model: Model;
}

const tables: Record<WorkloadKind, KindTable> = {
  Deployment: { fields: deploymentFields, places: placesOf(deploymentFields), model: DeploymentModel },
  ReplicaSet: { fields: replicaSetFields, places: placesOf(replicaSetFields), model: ReplicaSetModel },
  ReplicationController: { fields: replicationControllerFields, places: placesOf(replicationControllerFields), model: ReplicationControllerModel },
  StatefulSet: { fields: statefulSetFields, places: placesOf(statefulSetFields), model: StatefulSetModel },
  DaemonSet: { fields: daemonSetFields, places: placesOf(daemonSetFields), model: DaemonSetModel },
  Job: { fields: jobFields, places: placesOf(jobFields), model: JobModel },
  PersistentVolumeClaim: { fields: persistentVolumeClaimFields, places: placesOf(persistentVolumeClaimFields), model: PersistentVolumeClaimModel },
  PersistentVolume: { fields: persistentVolumeFields, places: placesOf(persistentVolumeFields), model: PersistentVolumeModel },
};

/** ValidateNonnegativeField. */
function nonNegative(v: unknown, p: PathSegment[], sink: ProblemSink): void {
  if (typeof v === 'number' && v < 0) sink.add(p, 'must be greater than or equal to 0');
}
/** field.NotSupported, as the API server words it. */
function notSupported(v: unknown, supported: readonly string[]): string {
  return `Unsupported value: ${typeof v === 'string' ? v : describe(v)}: supported values: ${supported.join(', ')}`;
}

/** Validate one workload or PersistentVolumeClaim found at `at` in its document. True when it has no problem. */
export function validateWorkload(obj: Obj, at: PathSegment[], kind: WorkloadKind, sink: ProblemSink): boolean {
  const before = sink.problems.length;
  const table = tables[kind];
  // 1. The field table: unknown and unsupported fields, warnings for ignored ones.
  const walk = walkFields(obj, table.fields, at, table.places);
  for (const p of walk.problems) sink.add(p.path, p.message);
  for (const s of walk.settled) sink.settle(s);
  for (const w of walk.warnings) sink.warn(w.path, w.message);

  // 2. The pod template, as a Pod (its own table, schema and rules).
  const spec = obj.spec;
  const s = [...at, 'spec'];
  const template = isObj(spec) && kind !== 'PersistentVolumeClaim' && kind !== 'PersistentVolume' ? spec.template : undefined;
  if (isObj(spec) && isObj(template)) podTemplate(obj, spec, template, s, kind, sink);

  // 3. The schema of the kind; the template's metadata and spec were checked as a Pod's above (but not the
  // template metadata's name and namespace, which the Pod is not given).
  const tm = ['spec', 'template', 'metadata'];
  const asPod = (path: FieldPath): boolean =>
    isObj(template) &&
    (isWithin(path, ['spec', 'template', 'spec']) || (isObj(template.metadata) && isWithin(path, tm) && !isWithin(path, [...tm, 'name']) && !isWithin(path, [...tm, 'namespace'])));
  // SetDefaults_Job: an onPodConditions pattern's status defaults to True (the documentation's examples leave it
  // out), though the published schema marks it required.
  const defaulted = (path: FieldPath): boolean =>
    kind === 'Job' && path.length === 7 && path[1] === 'podFailurePolicy' && path[4] === 'onPodConditions' && path[6] === 'status' && valueAt(obj, path) === undefined;
  for (const p of schemaProblems(obj, table.model)) {
    if (asPod(p.path) || defaulted(p.path)) continue;
    const path = [...at, ...p.path];
    sink.add(path, p.message);
    if (p.wrongType) sink.settle(path);
  }

  // 4. The rules the schema leaves to validation code.
  const meta = obj.metadata;
  // ValidateStatefulSetName: the pods are <name>-<ordinal> and each pod's name is its hostname, so a label.
  if (kind === 'StatefulSet' && isObj(meta) && typeof meta.name === 'string' && meta.name !== '') report(sink, [...at, 'metadata', 'name'], dns1123Label(meta.name));
  metadataRules(meta, at, sink);
  // A PersistentVolume belongs to no namespace: the API server drops one given (rest.BeforeCreate for a
  // cluster-scoped kind).
  if (kind === 'PersistentVolume' && isObj(meta) && typeof meta.namespace === 'string' && meta.namespace !== '') {
    sink.warn([...at, 'metadata', 'namespace'], "ignored: a PersistentVolume belongs to no namespace (its claimRef names the claim's)");
  }
  // A Job's name becomes its pods' job-name (and batch.kubernetes.io/job-name) label, whose value is at most 63
  // characters: the API server refuses a longer name at the template's labels.
  const np = [...at, 'metadata', 'name'];
  if (kind === 'Job' && isObj(meta) && typeof meta.name === 'string' && meta.name.length > 63 && !sink.has(np)) {
    sink.add(np, `must be no more than 63 characters (got ${meta.name.length}): a Job's name is its pods' job-name label value`);
  }
  if (spec === undefined || spec === null) {
    sink.add(
      s,
      kind === 'PersistentVolume'
        ? 'required (a PersistentVolume needs spec.capacity.storage, spec.accessModes and a source: hostPath or local)'
        : kind === 'PersistentVolumeClaim'
          ? 'required (a claim needs spec.accessModes and spec.resources.requests.storage)'
          : `required (a ${kind} needs ${kind === 'Job' ? 'spec.template' : 'spec.selector and spec.template'})`,
    );
  } else if (isObj(spec)) {
    if (kind === 'PersistentVolumeClaim') claimSpecRules(spec, s, sink);
    else if (kind === 'PersistentVolume') persistentVolumeSpecRules(spec, s, sink);
    else if (kind === 'Job') jobRules(spec, s, sink);
    else controllerRules(spec, s, kind, sink);
  }
  return sink.problems.length === before;
}

/** The names the pods get and the namespace they are in, when valid (a problem of the workload's own otherwise). */
function podIdentity(obj: Obj, kind: WorkloadKind): { name: string; namespace?: string } {
  const meta = isObj(obj.metadata) ? obj.metadata : {};
  const name = typeof meta.name === 'string' && dns1123Subdomain(meta.name) === undefined && (kind !== 'StatefulSet' || dns1123Label(meta.name) === undefined) ? meta.name : 'pod';
  const ns = meta.namespace;
  return typeof ns === 'string' && ns !== '' && dns1123Label(ns) === undefined ? { name, namespace: ns } : { name };
}

/**
 * The template validated as the Pod it stands for: its metadata (with the workload's name and namespace, which the
 * pods get; neither has a line, and both are valid, so neither produces a problem) and its spec, at spec.template.
 */
function podTemplate(obj: Obj, spec: Obj, template: Obj, s: PathSegment[], kind: WorkloadKind, sink: ProblemSink): void {
  const t = [...s, 'template'];
  const meta = template.metadata;
  const rest: Obj = {};
  if (isObj(meta)) {
    for (const [k, v] of Object.entries(meta)) {
      if (k !== 'name' && k !== 'namespace') rest[k] = v;
      // The API server ignores a template's name and namespace (the controller names the pods after the workload).
      else if (typeof v === 'string' && v !== '') {
        sink.warn([...t, 'metadata', k], k === 'name' ? `ignored: the pods are named after the ${kind}` : `ignored: the pods are in the ${kind}'s namespace`);
      }
    }
  }
  const pod: Obj = { apiVersion: 'v1', kind: 'Pod', metadata: { ...rest, ...podIdentity(obj, kind) } };
  if (Object.hasOwn(template, 'spec')) pod.spec = template.spec;
  // A StatefulSet's pods also mount a claim per volumeClaimTemplate, by the template's name.
  const claims = new Set<string>();
  if (kind === 'StatefulSet') {
    for (const c of list(spec.volumeClaimTemplates)) {
      if (isObj(c) && isObj(c.metadata) && typeof c.metadata.name === 'string' && c.metadata.name !== '') claims.add(c.metadata.name);
    }
  }
  validatePod(pod, t, sink, { places: podTemplatePlaces, claimVolumes: claims });
  const ps = template.spec;
  if (kind === 'Job') {
    if (isObj(ps))
      jobRestartPolicy(
        ps.restartPolicy,
        set(spec.podFailurePolicy) ? 'podFailurePolicy' : set(spec.backoffLimitPerIndex) ? 'backoffLimitPerIndex' : undefined,
        [...t, 'spec', 'restartPolicy'],
        sink,
      );
    return;
  }
  // ValidatePodTemplateSpecForReplicaSet (and ForStatefulSet, ForRC, the DaemonSet's): a controller restarts its
  // pods' containers always; a pod that stopped would be replaced.
  if (isObj(ps) && typeof ps.restartPolicy === 'string' && ps.restartPolicy !== 'Always') {
    sink.add([...t, 'spec', 'restartPolicy'], notSupported(ps.restartPolicy, ['Always']));
  }
}

function templateLabels(spec: Obj): Record<string, string> {
  const t = spec.template;
  const labels = isObj(t) && isObj(t.metadata) ? t.metadata.labels : undefined;
  const out: Record<string, string> = {};
  if (isObj(labels)) for (const [k, v] of Object.entries(labels)) if (typeof v === 'string') out[k] = v;
  return out;
}

function controllerRules(spec: Obj, s: PathSegment[], kind: Exclude<WorkloadKind, 'PersistentVolumeClaim' | 'PersistentVolume' | 'Job'>, sink: ProblemSink): void {
  const t = [...s, 'template'];
  if (!set(spec.template)) sink.add(t, 'required');
  if (kind !== 'DaemonSet') nonNegative(spec.replicas, [...s, 'replicas'], sink);
  nonNegative(spec.minReadySeconds, [...s, 'minReadySeconds'], sink);
  if (kind === 'Deployment' || kind === 'StatefulSet' || kind === 'DaemonSet') nonNegative(spec.revisionHistoryLimit, [...s, 'revisionHistoryLimit'], sink);

  // The selector must select the template's labels (or the controller would never see its own pods).
  const labels = templateLabels(spec);
  const mismatch = '`selector` does not match template `labels`';
  if (kind === 'ReplicationController') {
    // ValidateReplicationControllerSpec: a plain map, defaulted to the template's labels; after that not empty.
    const sel = spec.selector;
    if (!set(sel) || (isObj(sel) && Object.keys(sel).length === 0)) {
      if (Object.keys(labels).length === 0 && set(spec.template)) sink.add([...s, 'selector'], "required (it defaults to the template's labels, and the template has none)");
    } else if (isObj(sel)) {
      let valid = true;
      for (const [k, v] of Object.entries(sel)) {
        const p = [...s, 'selector', k];
        const bad = qualifiedName(k);
        if (bad !== undefined) valid = !report(sink, p, `invalid key: ${bad}`) && valid;
        else if (typeof v === 'string') valid = !report(sink, p, labelValue(v)) && valid;
        else valid = false;
      }
      if (valid && set(spec.template) && !Object.entries(sel).every(([k, v]) => labels[k] === v)) sink.add([...t, 'metadata', 'labels'], mismatch);
    }
  } else {
    const sel = labelSelector(spec.selector, [...s, 'selector'], sink);
    if (sel !== undefined) {
      if (sel.length === 0) sink.add([...s, 'selector'], `empty selector is invalid for ${kind.toLowerCase()}`);
      else if (set(spec.template) && !selectorMatches(sel, labels)) sink.add([...t, 'metadata', 'labels'], mismatch);
    }
  }

  if (kind === 'Deployment') deploymentRules(spec, s, sink);
  if (kind === 'StatefulSet') statefulSetRules(spec, s, sink);
  if (kind === 'DaemonSet') daemonSetRules(spec, s, sink);
}

/**
 * validateJobSpec: a Job's pods run to completion, so the API server takes only OnFailure or Never (an unset policy
 * defaults to Always, which it refuses); with a podFailurePolicy or backoffLimitPerIndex only Never, since both judge
 * failed pods and under OnFailure a pod's containers are restarted in place instead of the pod failing.
 */
function jobRestartPolicy(policy: unknown, neverFor: 'podFailurePolicy' | 'backoffLimitPerIndex' | undefined, p: PathSegment[], sink: ProblemSink): void {
  if (!set(policy) || policy === '') {
    sink.add(p, 'required in a Job: Never or OnFailure (unset means Always, which Kubernetes refuses for a Job: supported values: OnFailure, Never)');
  } else if (policy === 'OnFailure' && neverFor !== undefined) {
    sink.add(p, `only Never is supported when ${neverFor} is specified (got OnFailure): set restartPolicy: Never, or remove spec.${neverFor}`);
  } else if (typeof policy === 'string' && policy !== 'Never' && policy !== 'OnFailure') {
    // Always; another string already has the schema's enum problem, which the sink keeps.
    sink.add(p, notSupported(policy, ['OnFailure', 'Never']));
  }
}

/** The API server's bounds on an Indexed Job (pkg/apis/batch/validation: maxParallelismForIndexedJob and the like). */
const indexedLimit = 100_000;

/**
 * validateJobSpec (counts, the deadline, Indexed completions, the per-index limits) and runpod's own limits: it
 * labels a Job's pods itself (no selector).
 */
function jobRules(spec: Obj, s: PathSegment[], sink: ProblemSink): void {
  if (!set(spec.template)) sink.add([...s, 'template'], 'required');
  for (const f of ['completions', 'parallelism', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex', 'maxFailedIndexes'] as const)
    nonNegative(spec[f], [...s, f], sink);
  const deadline = spec.activeDeadlineSeconds;
  if (typeof deadline === 'number' && deadline <= 0) sink.add([...s, 'activeDeadlineSeconds'], 'must be greater than 0');
  const indexed = spec.completionMode === 'Indexed';
  // With Indexed completion each pod has an index 0..completions-1, so completions must be given.
  if (indexed && !set(spec.completions)) sink.add([...s, 'completions'], 'required when completionMode is Indexed');
  if (set(spec.maxFailedIndexes) && !set(spec.backoffLimitPerIndex)) sink.add([...s, 'backoffLimitPerIndex'], 'required when maxFailedIndexes is specified');
  if (indexed) {
    const { completions, parallelism, maxFailedIndexes: mfi } = spec;
    if (typeof parallelism === 'number' && parallelism > indexedLimit)
      sink.add([...s, 'parallelism'], `must be less than or equal to ${indexedLimit} when completion mode is Indexed (got ${parallelism})`);
    if (typeof mfi === 'number' && typeof completions === 'number' && mfi > completions)
      sink.add([...s, 'maxFailedIndexes'], `must be less than or equal to completions (${completions}), got ${mfi}`);
    else if (typeof mfi === 'number' && mfi > indexedLimit) sink.add([...s, 'maxFailedIndexes'], `must be less than or equal to ${indexedLimit}, got ${mfi}`);
    if (typeof completions === 'number' && completions > indexedLimit && set(spec.backoffLimitPerIndex)) {
      if (!set(mfi)) sink.add([...s, 'maxFailedIndexes'], `required when completions is above ${indexedLimit} with backoffLimitPerIndex`);
      if (typeof parallelism === 'number' && parallelism > 10_000)
        sink.add([...s, 'parallelism'], `must be less than or equal to 10000 when completions are above ${indexedLimit} and used with backoffLimitPerIndex`);
      if (typeof mfi === 'number' && mfi > 10_000)
        sink.add([...s, 'maxFailedIndexes'], `must be less than or equal to 10000 when completions are above ${indexedLimit} and used with backoffLimitPerIndex`);
    }
  } else {
    for (const f of ['backoffLimitPerIndex', 'maxFailedIndexes'] as const) {
      if (set(spec[f])) sink.add([...s, f], 'requires completionMode: Indexed (a limit per completion index needs indexes)');
    }
  }
  podFailurePolicyRules(spec, [...s, 'podFailurePolicy'], sink);
  if (spec.manualSelector === true) sink.add([...s, 'manualSelector'], "not supported by runpod (runpod labels a Job's pods itself)");
}

/** ValidatePodFailurePolicy (pkg/apis/batch/validation): what the API server checks of each rule. */
function podFailurePolicyRules(spec: Obj, p: PathSegment[], sink: ProblemSink): void {
  const policy = spec.podFailurePolicy;
  if (!isObj(policy)) return;
  const rules = policy.rules;
  if (!Array.isArray(rules)) {
    if (!set(rules)) sink.add([...p, 'rules'], 'required (at least one rule)');
    return;
  }
  if (rules.length > 20) sink.add([...p, 'rules'], `at most 20 rules, has ${rules.length}`);
  const template = isObj(spec.template) && isObj(spec.template.spec) ? spec.template.spec : {};
  const names = [...list(template.containers), ...list(template.initContainers)].flatMap((c) => (isObj(c) && typeof c.name === 'string' ? [c.name] : []));
  rules.forEach((rule, i) => {
    const r = [...p, 'rules', i];
    if (!isObj(rule)) return;
    if (rule.action === 'FailIndex') {
      if (!set(spec.backoffLimitPerIndex))
        sink.add([...r, 'action'], 'FailIndex requires spec.backoffLimitPerIndex to be set (it fails the index, which only a limit per index tracks)');
    } else if (!['FailJob', 'Ignore', 'Count'].includes(String(rule.action)))
      sink.add([...r, 'action'], `expected FailJob, FailIndex, Ignore or Count, got ${describeValue(rule.action)}`);
    const codes = rule.onExitCodes;
    const conditions = list(rule.onPodConditions);
    if (!set(codes) && conditions.length === 0) sink.add(r, 'one of onExitCodes and onPodConditions is required');
    if (set(codes) && conditions.length > 0) sink.add(r, 'specifying both onExitCodes and onPodConditions in one rule is not supported: make them two rules');
    podConditionRules(rule.onPodConditions, [...r, 'onPodConditions'], sink);
    if (!isObj(codes)) return;
    const c = [...r, 'onExitCodes'];
    if (codes.operator !== 'In' && codes.operator !== 'NotIn') sink.add([...c, 'operator'], `expected In or NotIn, got ${describeValue(codes.operator)}`);
    if (typeof codes.containerName === 'string' && !names.includes(codes.containerName)) {
      sink.add([...c, 'containerName'], `no container or init container named ${codes.containerName} in spec.template.spec (has ${names.join(', ') || 'none'})`);
    }
    const values = codes.values;
    if (!Array.isArray(values) || values.length === 0) {
      sink.add([...c, 'values'], 'required: at least one exit code');
      return;
    }
    if (values.length > 255) sink.add([...c, 'values'], `at most 255 values, has ${values.length}`);
    if (values.some((v, j) => typeof v !== 'number' || (j > 0 && v <= (values[j - 1] as number))))
      sink.add([...c, 'values'], 'must be whole numbers in increasing order, without duplicates');
    else if (codes.operator === 'In' && values.includes(0)) sink.add([...c, 'values'], '0 cannot be used with In: a container that exited 0 did not fail');
  });
}

/**
 * validatePodFailurePolicyRuleOnPodConditions: at most 20 patterns, each a condition type (a qualified name) and a
 * status True, False or Unknown (default True). Accepted so the documentation's policies run; on one host such a rule never
 * matches (nothing evicts, preempts or disrupts a pod here, so no pod ever carries DisruptionTarget or the like).
 */
function podConditionRules(patterns: unknown, p: PathSegment[], sink: ProblemSink): void {
  if (!Array.isArray(patterns)) return;
  if (patterns.length > 20) sink.add(p, `at most 20 patterns, has ${patterns.length}`);
  patterns.forEach((pattern, j) => {
    if (!isObj(pattern)) return;
    const at = [...p, j];
    if (typeof pattern.type !== 'string' || pattern.type === '') sink.add([...at, 'type'], 'required: a pod condition type such as DisruptionTarget');
    else report(sink, [...at, 'type'], qualifiedName(pattern.type));
    // Unset, it defaults to True (SetDefaults_Job).
    if (pattern.status === '') sink.add([...at, 'status'], 'required: True, False or Unknown');
    else if (set(pattern.status) && !['True', 'False', 'Unknown'].includes(String(pattern.status)))
      sink.add([...at, 'status'], notSupported(String(pattern.status), ['False', 'True', 'Unknown']));
  });
}

function describeValue(v: unknown): string {
  return v === undefined ? 'nothing' : JSON.stringify(v);
}

/** labelSelectorFrom's answer: the problems (strings), or the selector (requirements; empty selects everything). */
function isProblemList(r: Selector | string[]): r is string[] {
  return r.length > 0 && typeof r[0] === 'string';
}

/** ValidateLabelSelector (with kube/selector.ts's parser of the object); the selector when valid. */
function labelSelector(sel: unknown, p: PathSegment[], sink: ProblemSink): Selector | undefined {
  if (!set(sel)) {
    sink.add(p, 'required');
    return undefined;
  }
  if (!isObj(sel)) return undefined;
  const ml = sel.matchLabels;
  const me = sel.matchExpressions;
  // A field of the wrong type is the schema's problem; the selector is not read then.
  if ((set(ml) && !isObj(ml)) || (set(me) && !Array.isArray(me))) return undefined;
  const exprs = list(me);
  if (exprs.some((e) => !isObj(e))) return undefined;
  const matchLabels: Record<string, string> = {};
  if (isObj(ml)) {
    for (const [k, v] of Object.entries(ml)) {
      if (typeof v !== 'string') return undefined;
      matchLabels[k] = v;
    }
  }
  const matchExpressions = exprs.filter(isObj).map((e) => ({
    key: typeof e.key === 'string' ? e.key : '',
    operator: typeof e.operator === 'string' ? e.operator : describe(e.operator),
    ...(Array.isArray(e.values) ? { values: e.values.map((v) => (typeof v === 'string' ? v : String(v))) } : {}),
  }));
  const result = labelSelectorFrom({ matchLabels, matchExpressions });
  if (!isProblemList(result)) return result;
  // The parser's problems are "path: message", the path relative to the selector: put each at its field.
  const candidates: PathSegment[][] = [
    ...Object.keys(matchLabels).map((k) => ['matchLabels', k]),
    ...exprs.flatMap((e, i) => [
      ['matchExpressions', i, 'key'],
      ['matchExpressions', i, 'operator'],
      ['matchExpressions', i, 'values'],
      ...list(isObj(e) ? e.values : undefined).map((_, j) => ['matchExpressions', i, 'values', j]),
    ]),
  ];
  for (const problem of result) {
    const where = candidates
      .map((c) => ({ c, prefix: `${formatPath(c)}: ` }))
      .filter((x) => problem.startsWith(x.prefix))
      .sort((a, b) => b.prefix.length - a.prefix.length)[0];
    if (where !== undefined) sink.add([...p, ...where.c], problem.slice(where.prefix.length));
    else sink.add(p, problem);
  }
  return undefined;
}

/** An IntOrString of a rolling update: its value when valid (a number, or a percentage as "25%"). */
function intOrPercent(v: unknown, p: PathSegment[], sink: ProblemSink, atMost100: boolean): number | string | undefined {
  if (!set(v)) return undefined;
  // ValidatePositiveIntOrPercent.
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) return undefined;
    if (v < 0) {
      sink.add(p, 'must be greater than or equal to 0');
      return undefined;
    }
    return v;
  }
  if (typeof v !== 'string') return undefined;
  const m = /^([0-9]+)%$/.exec(v);
  if (m === null) {
    sink.add(p, "must be an integer or percentage (e.g. '5%')");
    return undefined;
  }
  // IsNotMoreThan100Percent.
  if (atMost100 && Number(m[1]) > 100) {
    sink.add(p, 'must not be greater than 100%');
    return undefined;
  }
  return v;
}

function isZero(v: number | string): boolean {
  return v === 0 || (typeof v === 'string' && Number(v.slice(0, -1)) === 0);
}

/** ValidateRollingUpdateDeployment / ValidateRollingUpdateDaemonSet, with the defaults of each. */
function rollingUpdateRules(ru: Obj, p: PathSegment[], sink: ProblemSink, defaults: { maxUnavailable: number | string; maxSurge: number | string }, surgeAtMost100: boolean): void {
  const unavailable = intOrPercent(ru.maxUnavailable, [...p, 'maxUnavailable'], sink, true);
  const surge = intOrPercent(ru.maxSurge, [...p, 'maxSurge'], sink, surgeAtMost100);
  if ((set(ru.maxUnavailable) && unavailable === undefined) || (set(ru.maxSurge) && surge === undefined)) return;
  // Nothing could ever be replaced: no pod may go, and none may be added.
  if (isZero(unavailable ?? defaults.maxUnavailable) && isZero(surge ?? defaults.maxSurge)) sink.add([...p, 'maxUnavailable'], 'may not be 0 when `maxSurge` is 0');
}

/** ValidateDeploymentSpec, ValidateDeploymentStrategy; and runpod's refusal of a paused Deployment. */
function deploymentRules(spec: Obj, s: PathSegment[], sink: ProblemSink): void {
  const strategy = spec.strategy;
  if (isObj(strategy)) {
    const type = set(strategy.type) ? strategy.type : 'RollingUpdate';
    const ru = strategy.rollingUpdate;
    const p = [...s, 'strategy', 'rollingUpdate'];
    if (type === 'Recreate' && set(ru)) sink.add(p, "may not be specified when strategy `type` is 'Recreate'");
    else if (type === 'RollingUpdate' && isObj(ru)) rollingUpdateRules(ru, p, sink, { maxUnavailable: '25%', maxSurge: '25%' }, false);
  }
  // progressDeadlineSeconds (default 600) must exceed minReadySeconds: a pod must be able to become available.
  const min = typeof spec.minReadySeconds === 'number' ? spec.minReadySeconds : 0;
  const deadline = spec.progressDeadlineSeconds;
  if (typeof deadline === 'number') {
    if (deadline < 0) sink.add([...s, 'progressDeadlineSeconds'], 'must be greater than or equal to 0');
    else if (deadline <= min) sink.add([...s, 'progressDeadlineSeconds'], 'must be greater than minReadySeconds');
  } else if (!set(deadline) && min >= 600) {
    sink.add([...s, 'minReadySeconds'], 'must be less than progressDeadlineSeconds (default 600)');
  }
  if (spec.paused === true) sink.add([...s, 'paused'], 'a paused Deployment rolls nothing out; runpod would run nothing new: remove paused');
}

/** ValidateStatefulSetSpec (and the claim templates, each a PersistentVolumeClaim's spec). */
function statefulSetRules(spec: Obj, s: PathSegment[], sink: ProblemSink): void {
  // The service name is the pods' subdomain (<pod>.<serviceName>.<namespace>.svc...), so a DNS-1123 label.
  if (typeof spec.serviceName === 'string' && spec.serviceName !== '') report(sink, [...s, 'serviceName'], dns1123Label(spec.serviceName));
  const us = spec.updateStrategy;
  if (isObj(us)) {
    const type = set(us.type) ? us.type : 'RollingUpdate';
    const ru = us.rollingUpdate;
    const p = [...s, 'updateStrategy', 'rollingUpdate'];
    if (type === 'OnDelete' && set(ru)) sink.add(p, "only allowed for updateStrategy 'RollingUpdate'");
    else if (isObj(ru)) nonNegative(ru.partition, [...p, 'partition'], sink);
  }
  const retention = spec.persistentVolumeClaimRetentionPolicy;
  if (isObj(retention)) {
    for (const f of ['whenDeleted', 'whenScaled'] as const) {
      const v = retention[f];
      if (typeof v === 'string' && v !== 'Retain' && v !== 'Delete') sink.add([...s, 'persistentVolumeClaimRetentionPolicy', f], notSupported(v, ['Retain', 'Delete']));
    }
  }
  if (isObj(spec.ordinals)) nonNegative(spec.ordinals.start, [...s, 'ordinals', 'start'], sink);

  // Claim templates: each named (a DNS-1123 label: the claim is <template>-<pod>) and unique. One named as a volume
  // of the pod template replaces that volume in each pod (the StatefulSet controller's updateStorage; the API server
  // accepts it), said as a warning on the volume.
  const volumes = new Map<string, number>();
  const t = spec.template;
  const ps = isObj(t) ? t.spec : undefined;
  if (isObj(ps)) {
    list(ps.volumes).forEach((v, i) => {
      if (isObj(v) && typeof v.name === 'string' && !volumes.has(v.name)) volumes.set(v.name, i);
    });
  }
  const claims = new Map<string, number>();
  list(spec.volumeClaimTemplates).forEach((c, i) => {
    if (!isObj(c)) return;
    const cp = [...s, 'volumeClaimTemplates', i];
    const meta = c.metadata;
    const np = [...cp, 'metadata', 'name'];
    const name = isObj(meta) ? meta.name : undefined;
    if (typeof name === 'string' && name !== '' && !report(sink, np, dns1123Label(name))) {
      const first = claims.get(name);
      const volume = volumes.get(name);
      if (first !== undefined) sink.add(np, `duplicate claim template name "${name}" (also spec.volumeClaimTemplates[${first}])`);
      else if (volume !== undefined)
        sink.warn(
          [...s, 'template', 'spec', 'volumes', volume],
          `replaced in each pod by the claim of spec.volumeClaimTemplates[${i}] (named "${name}" too), as the StatefulSet controller does`,
        );
      if (first === undefined) claims.set(name, i);
    }
    metadataRules(meta, cp, sink);
    if (!set(c.spec)) sink.add([...cp, 'spec'], 'required (a claim needs spec.accessModes and spec.resources.requests.storage)');
    else if (isObj(c.spec)) claimSpecRules(c.spec, [...cp, 'spec'], sink);
  });
}

/** ValidateDaemonSetSpec, ValidateDaemonSetUpdateStrategy. */
function daemonSetRules(spec: Obj, s: PathSegment[], sink: ProblemSink): void {
  const us = spec.updateStrategy;
  if (!isObj(us)) return;
  const type = set(us.type) ? us.type : 'RollingUpdate';
  const ru = us.rollingUpdate;
  const p = [...s, 'updateStrategy', 'rollingUpdate'];
  // The API server keeps a rollingUpdate beside OnDelete and never reads it.
  if (type === 'OnDelete' && set(ru)) sink.warn(p, 'ignored: updateStrategy type is OnDelete');
  else if (type === 'RollingUpdate' && isObj(ru)) rollingUpdateRules(ru, p, sink, { maxUnavailable: 1, maxSurge: 0 }, true);
}

const accessModes = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];

/** ValidatePersistentVolumeClaimSpec: access modes, a storage request; runpod's limits for a local engine volume. */
function claimSpecRules(spec: Obj, p: PathSegment[], sink: ProblemSink): void {
  const modes = spec.accessModes;
  const mp = [...p, 'accessModes'];
  if (!set(modes)) sink.add(mp, 'required (ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod)');
  else if (Array.isArray(modes)) {
    if (modes.length === 0) sink.add(mp, 'at least 1 access mode is required');
    else if (modes.includes('ReadWriteOncePod') && modes.length > 1) sink.add(mp, 'may not use ReadWriteOncePod with other access modes');
    modes.forEach((m, i) => {
      if (typeof m === 'string' && !accessModes.includes(m)) sink.add([...mp, i], notSupported(m, accessModes));
    });
  }
  const resources = spec.resources;
  const rp = [...p, 'resources'];
  const requests = isObj(resources) ? resources.requests : undefined;
  if (!set(resources) || (isObj(resources) && !set(requests)) || (isObj(requests) && !set(requests.storage)))
    sink.add([...rp, 'requests', 'storage'], 'required (a quantity such as 1Gi)');
  if (isObj(resources)) {
    for (const which of ['requests', 'limits'] as const) {
      const rl = resources[which];
      if (!isObj(rl) || !set(rl.storage)) continue;
      const at = [...rp, which, 'storage'];
      if (sink.has(at)) continue;
      const q = parseQuantity(rl.storage);
      if (q === undefined) sink.add(at, `${quantityExample}, got ${describe(rl.storage)}`);
      else if (q.negative || q.digits === 0n) sink.add(at, 'must be greater than zero');
      // As a disk-backed emptyDir's sizeLimit: Docker's local volumes have no size to enforce.
      else sink.warn(at, "not enforced: a claim is a local engine volume or a PersistentVolume's host directory, neither has a size limit on Docker");
    }
  }
  if (spec.volumeMode === 'Block') sink.add([...p, 'volumeMode'], 'not supported by runpod (a claim is a local engine volume or a host directory, a filesystem; use Filesystem)');
  if (typeof spec.volumeName === 'string' && spec.volumeName !== '') report(sink, [...p, 'volumeName'], dns1123Subdomain(spec.volumeName));
  // The claim's selector (a LabelSelector, ValidateLabelSelector) picks the PersistentVolumes it may bind.
  if (set(spec.selector)) labelSelector(spec.selector, [...p, 'selector'], sink);
}
