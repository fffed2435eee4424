// A kustomization file read and checked: which file it is (kustomization.yaml, .yml or Kustomization, exactly one),
// every field known to runpod or refused by name with its line, values of the types kustomize's Go structs take
// (it decodes strictly: an unknown field is an error there too). Pure: text in, a checked value out.

import { type FieldPath, formatPath } from '../../kube/path.js';
import { lineOf, type LineMap, parseYaml } from '../yaml.js';
import { KustomizeError } from './errors.js';
import { isObject } from './gvk.js';
import type { JsonObject, JsonValue, Origin } from './resource.js';

/** The names kustomize looks for, in its order (konfig.RecognizedKustomizationFileNames). */
export const kustomizationFileNames = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

export interface Kustomization {
  /** The file, as the user would name it (joined with the directory given). */
  file: string;
  /** The directory paths in it are relative to. */
  dir: string;
  kind: 'Kustomization' | 'Component';
  value: JsonObject;
  /** Where a field of the file is: its line, when known. */
  at: (path: FieldPath) => Origin;
}

const pipeInstead = 'render it with kustomize where that runs and pipe the result: kustomize build DIR | runpod -';

/** Fields runpod refuses by name: each needs plugins, the network or build machinery it does not have. */
const refused: Record<string, string> = {
  helmCharts: `Helm charts are inflated by running helm, which runpod does not do; ${pipeInstead}`,
  helmGlobals: `Helm charts are inflated by running helm, which runpod does not do; ${pipeInstead}`,
  helmChartInflationGenerator: `Helm charts are inflated by running helm, which runpod does not do; ${pipeInstead}`,
  generators: `generator plugins run programs or containers, which runpod does not do; ${pipeInstead}`,
  transformers: `transformer plugins run programs or containers, which runpod does not do; ${pipeInstead}`,
  validators: `validator plugins run programs or containers, which runpod does not do; ${pipeInstead}`,
  openapi: `a custom OpenAPI schema changes how kustomize merges patches, which runpod does not follow; ${pipeInstead}`,
  crds: `CRD schemas for name references and merges are not read by runpod; ${pipeInstead}`,
  configurations: `custom transformer configurations are not read by runpod; ${pipeInstead}`,
  buildMetadata: `runpod does not write kustomize's build annotations (origin, transformations); remove buildMetadata, or ${pipeInstead}`,
};

const known = new Set([
  'apiVersion',
  'kind',
  'metadata',
  'resources',
  'bases',
  'components',
  'namespace',
  'namePrefix',
  'nameSuffix',
  'commonLabels',
  'labels',
  'commonAnnotations',
  'images',
  'imageTags',
  'replicas',
  'configMapGenerator',
  'secretGenerator',
  'generatorOptions',
  'patches',
  'patchesStrategicMerge',
  'patchesJson6902',
  'replacements',
  'vars',
  'sortOptions',
]);

/** Parse and check one kustomization file's text. */
export function readKustomization(text: string, file: string, dir: string): Kustomization {
  const parsed = parseYaml(text, file);
  const first = parsed.problems[0];
  if (first !== undefined)
    throw new KustomizeError(
      { file, ...(first.line !== undefined ? { line: first.line } : {}) },
      '',
      first.message.replace(/^invalid YAML/, 'invalid YAML in a kustomization'),
      'fix the YAML',
    );
  const doc = parsed.documents[0];
  // An empty kustomization renders nothing, as kustomize's does.
  const value = doc === undefined ? {} : toJson(doc.value);
  if (parsed.documents.length > 1) throw new KustomizeError({ file, line: parsed.documents[1]!.line }, '', 'a kustomization file holds one document', 'remove the second one');
  if (!isObject(value)) throw new KustomizeError({ file, line: doc?.line ?? 1 }, '', 'a kustomization is a mapping of fields (resources:, namespace: …)', 'write it as one');
  const lines: LineMap = doc?.lines ?? new Map();
  const at = (path: FieldPath): Origin => {
    const line = lineOf(lines, path);
    return { file, ...(line !== undefined ? { line } : doc !== undefined ? { line: doc.line } : {}) };
  };
  const kind = value.kind ?? 'Kustomization';
  if (kind !== 'Kustomization' && kind !== 'Component')
    throw new KustomizeError(
      at(['kind']),
      'kind',
      `kind ${JSON.stringify(kind)} is not a kustomization (Kustomization or Component)`,
      'write kind: Kustomization, or leave kind out',
    );
  const apiVersion = value.apiVersion;
  if (apiVersion !== undefined && typeof apiVersion !== 'string')
    throw new KustomizeError(at(['apiVersion']), 'apiVersion', 'expected a string', 'write kustomize.config.k8s.io/v1beta1');
  for (const key of Object.keys(value)) {
    const why = refused[key];
    if (why !== undefined) throw new KustomizeError(at([key]), key, `${key} is not supported`, why);
    if (!known.has(key))
      throw new KustomizeError(at([key]), key, `unknown kustomization field ${key} (kustomize refuses it too)`, "check its spelling against kustomize v5's fields, or remove it");
  }
  // kustomize refuses a kustomization with no field but apiVersion and kind (Kustomization.CheckEmpty).
  if (!Object.entries(value).some(([key, v]) => key !== 'apiVersion' && key !== 'kind' && v !== null)) {
    throw new KustomizeError({ file, line: doc?.line ?? 1 }, '', 'the kustomization is empty (kustomize refuses it too)', 'list its resources:, or remove it');
  }
  const k: Kustomization = { file, dir, kind, value, at };
  checkTypes(k);
  return k;
}

/** YAML values as JSON: a timestamp YAML 1.1 decodes as a date is the text the API server would read. */
export function toJson(v: unknown): JsonValue {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.toISOString().replace('.000Z', 'Z');
  if (Array.isArray(v)) return v.map(toJson);
  if (typeof v === 'object') {
    const out: JsonObject = {};
    for (const [key, val] of Object.entries(v as Record<string, unknown>)) out[key] = toJson(val);
    return out;
  }
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  return String(v);
}

type Shape = 'string' | 'strings' | 'stringMap' | 'list' | 'object' | 'bool';

const shapes: Record<string, Shape> = {
  namespace: 'string',
  namePrefix: 'string',
  nameSuffix: 'string',
  resources: 'strings',
  bases: 'strings',
  components: 'strings',
  commonLabels: 'stringMap',
  commonAnnotations: 'stringMap',
  labels: 'list',
  images: 'list',
  imageTags: 'list',
  replicas: 'list',
  configMapGenerator: 'list',
  secretGenerator: 'list',
  generatorOptions: 'object',
  patches: 'list',
  patchesStrategicMerge: 'list',
  patchesJson6902: 'list',
  replacements: 'list',
  vars: 'list',
  sortOptions: 'object',
  metadata: 'object',
};

function checkTypes(k: Kustomization): void {
  for (const [key, shape] of Object.entries(shapes)) {
    const v = k.value[key];
    if (v === undefined || v === null) continue;
    checkShape(k, [key], v, shape);
  }
}

export function checkShape(k: Kustomization, path: FieldPath, v: JsonValue, shape: Shape): void {
  const where = formatPath(path);
  const fail = (expected: string): never => {
    throw new KustomizeError(k.at(path), where, `expected ${expected}`, "see kustomize's reference for this field");
  };
  switch (shape) {
    case 'string':
      if (typeof v !== 'string') fail('a string');
      return;
    case 'bool':
      if (typeof v !== 'boolean') fail('true or false');
      return;
    case 'strings':
      if (!Array.isArray(v)) fail('a list of strings');
      (v as JsonValue[]).forEach((item, i) => checkShape(k, [...path, i], item, 'string'));
      return;
    case 'stringMap':
      if (!isObject(v)) fail('a mapping of strings');
      for (const [key, val] of Object.entries(v as JsonObject)) {
        // kustomize decodes map[string]string: a number or a bool is refused there too.
        if (typeof val !== 'string') checkShape(k, [...path, key], val, 'string');
      }
      return;
    case 'list':
      if (!Array.isArray(v)) fail('a list');
      return;
    case 'object':
      if (!isObject(v)) fail('a mapping');
      return;
  }
}

/** One entry's fields must be among these (kustomize decodes each entry strictly). */
export function checkEntryFields(k: Kustomization, path: FieldPath, entry: JsonValue, fields: readonly string[]): JsonObject {
  if (!isObject(entry)) throw new KustomizeError(k.at(path), formatPath(path), 'expected a mapping', "see kustomize's reference for this field");
  for (const key of Object.keys(entry)) {
    if (!fields.includes(key))
      throw new KustomizeError(k.at([...path, key]), formatPath([...path, key]), `unknown field ${key} (known: ${fields.join(', ')})`, 'check its spelling, or remove it');
  }
  return entry;
}
