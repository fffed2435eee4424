// A kustomization rendered as kustomize v5 renders it (api/internal/target/kusttarget.go), with no kustomize,
// kubectl or network: resources (files, directories of kustomizations, recursively), generators, components,
// then this kustomization's transformers in kustomize's order (patchesStrategicMerge, patches, namespace,
// namePrefix, nameSuffix, labels and commonLabels, commonAnnotations, patchesJson6902, replicas, images,
// replacements); at the top only: the generated objects' name hashes, the name references, vars, dropping
// local-config objects, and kustomize's legacy output order. The I/O is passed in; everything else is pure.

import path from 'node:path';
import { formatPath } from '../../kube/path.js';
import { parseYaml } from '../yaml.js';
import { orderFirst, orderLast } from './builtins.js';
import { KustomizeError } from './errors.js';
import type { FieldSpec } from './fieldSpec.js';
import { behaviorAnnotation, generate, needsHashAnnotation } from './generators.js';
import { formatId, gvkOf, idKey, idOf, isObject, metadataOf, nameOf, sameId } from './gvk.js';
import { nameHash } from './hash.js';
import { checkEntryFields, checkShape, type Kustomization, kustomizationFileNames, readKustomization, toJson } from './kustomization.js';
import { fixNameReferences } from './nameRef.js';
import { applyPatches, type PatchEntry, type PatchTarget } from './patches.js';
import { applyReplacements } from './replacements.js';
import type { JsonObject, JsonValue, Origin, Resource } from './resource.js';
import {
  addPrefixSuffix,
  applyCommonAnnotations,
  applyCommonLabels,
  applyImage,
  applyLabels,
  applyReplicas,
  type ImageEntry,
  type LabelEntry,
  prefixesAnnotation,
  setNamespace,
  storePreviousId,
  suffixesAnnotation,
} from './transforms.js';
import { applyVars } from './vars.js';

export interface KustomizeIo {
  readFile(file: string): Uint8Array;
  readDir(dir: string): string[];
  /** undefined when nothing is there. */
  stat(file: string): { isDirectory: boolean; isFile: boolean } | undefined;
}

/** The kustomization file of a directory, if it has one (kustomization.yaml, .yml or Kustomization). */
export function kustomizationFileIn(dir: string, io: KustomizeIo): string | undefined {
  for (const name of kustomizationFileNames) {
    const st = io.stat(path.join(dir, name));
    if (st?.isFile) return path.join(dir, name);
  }
  return undefined;
}

const buildAnnotations = [needsHashAnnotation, behaviorAnnotation, prefixesAnnotation, suffixesAnnotation];

interface Accumulated {
  resources: Resource[];
  vars: Array<{ value: JsonObject; origin: Origin }>;
}

/** Render the kustomization in dir. Throws a KustomizeError (exit 2) naming the file, line and field. */
export function renderKustomization(dir: string, io: KustomizeIo): Resource[] {
  const top = loadKustomization(dir, io, undefined, undefined);
  const acc = accumulate(top, io, { resources: [], vars: [] }, [{ abs: path.resolve(dir), shown: dir }]);
  let resources = acc.resources;
  // Generated objects get their content's hash as a name suffix, once, after every transformer of every level.
  for (const r of resources) {
    const ann = annotationsOf(r.object);
    if (ann?.[needsHashAnnotation] === 'enabled') {
      storePreviousId(r);
      metadataOf(r.object).name = `${nameOf(r.object)}-${nameHash(r.object)}`;
    }
  }
  fixNameReferences(resources);
  if (acc.vars.length > 0)
    resources = applyVars(
      resources,
      acc.vars.map((v) => v.value),
      acc.vars[0]!.origin,
    );
  // config.kubernetes.io/local-config: "true" marks an object only for the build (kustomize drops it).
  resources = resources.filter((r) => annotationsOf(r.object)?.['config.kubernetes.io/local-config'] !== 'true');
  for (const r of resources) stripBuildAnnotations(r.object);
  const sort = top.value.sortOptions;
  const order = isObject(sort) ? sort.order : undefined;
  return order === 'fifo' ? resources : legacySort(resources, isObject(sort) && isObject(sort.legacySortOptions) ? sort.legacySortOptions : undefined);
}

function annotationsOf(obj: JsonObject): JsonObject | undefined {
  const m = obj.metadata;
  return isObject(m) && isObject(m.annotations) ? m.annotations : undefined;
}

function stripBuildAnnotations(obj: JsonObject): void {
  const m = obj.metadata;
  if (!isObject(m) || !isObject(m.annotations)) return;
  for (const key of buildAnnotations) delete m.annotations[key];
  if (Object.keys(m.annotations).length === 0) delete m.annotations;
}

function loadKustomization(dir: string, io: KustomizeIo, from: Origin | undefined, field: string | undefined): Kustomization {
  const found = kustomizationFileNames.filter((n) => io.stat(path.join(dir, n))?.isFile === true);
  if (found.length === 0) {
    throw new KustomizeError(
      from ?? { file: dir },
      field ?? '',
      `no kustomization.yaml, kustomization.yml or Kustomization in ${dir}`,
      from ? 'point it at a directory that holds a kustomization, or at a file' : 'give the directory that holds the kustomization',
    );
  }
  if (found.length > 1) throw new KustomizeError({ file: path.join(dir, found[1]!) }, '', `${dir} holds more than one kustomization file (${found.join(', ')})`, 'keep one');
  const file = path.join(dir, found[0]!);
  const text = decode(io.readFile(file), { file }, '');
  return readKustomization(text, file, dir);
}

function decode(bytes: Uint8Array, origin: Origin, field: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new KustomizeError(origin, field, 'not UTF-8 text', 'save it as UTF-8');
  }
}

/** A URL or a git address: kustomize would fetch it; runpod reads local files only. */
function isRemote(entry: string): boolean {
  return (
    /^[a-z][a-z0-9+.-]*:\/\//i.test(entry) ||
    /^(git@|git::|github\.com\/|gitlab\.com\/|bitbucket\.org\/)/.test(entry) ||
    /\?(ref|version|submodules|timeout)=/.test(entry) ||
    /\.git(\/\/|$)/.test(entry)
  );
}

function within(root: string, file: string): boolean {
  const rel = path.relative(path.resolve(root), path.resolve(file));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Read a file a kustomization names, which kustomize allows only in or below the kustomization's directory. */
function readLocal(k: Kustomization, io: KustomizeIo, rel: string, origin: Origin, field: string): Uint8Array {
  if (isRemote(rel))
    throw new KustomizeError(origin, field, `${rel} is remote; runpod reads local files only (no network)`, 'download it next to the kustomization and name the local copy');
  const file = path.join(k.dir, rel);
  if (!within(k.dir, file))
    throw new KustomizeError(
      origin,
      field,
      `${rel} is outside ${k.dir}, where kustomize reads a kustomization's files (its load restrictor)`,
      "move the file in or below the kustomization's directory",
    );
  const st = io.stat(file);
  if (st === undefined) throw new KustomizeError(origin, field, `${file}: no such file`, 'fix the path');
  if (!st.isFile) throw new KustomizeError(origin, field, `${file} is not a file`, 'name a file');
  return io.readFile(file);
}

/** The kustomizations being rendered, outermost first: absolute (to compare) and as named (to say). */
type Stack = Array<{ abs: string; shown: string }>;

function accumulate(k: Kustomization, io: KustomizeIo, acc: Accumulated, stack: Stack): Accumulated {
  const resources = [...((k.value.resources as string[] | undefined) ?? []), ...((k.value.bases as string[] | undefined) ?? [])];
  const resourceField = (i: number): (string | number)[] => {
    const n = Array.isArray(k.value.resources) ? k.value.resources.length : 0;
    return i < n ? ['resources', i] : ['bases', i - n];
  };
  // The ids already accumulated, to find a duplicate without comparing each new object with all (nothing renames
  // an object while the resources are read: the transformers run after).
  const seen = idIndex(acc.resources);
  const append = (r: Resource, origin: Origin, field: string): void => appendUnique(acc.resources, seen, r, origin, field);
  resources.forEach((entry, i) => {
    const fieldPath = resourceField(i);
    const origin = k.at(fieldPath);
    const field = formatPath(fieldPath);
    if (isRemote(entry))
      throw new KustomizeError(
        origin,
        field,
        `remote resource ${entry}: runpod renders local kustomizations only (no network, no git)`,
        `clone or download it and name the local directory, or ${'render with kustomize where that runs and pipe the result: kustomize build DIR | runpod -'}`,
      );
    const target = path.join(k.dir, entry);
    const st = io.stat(target);
    if (st === undefined) throw new KustomizeError(origin, field, `${target}: no such file or directory`, 'fix the path, or remove the entry');
    if (st.isDirectory) {
      const child = loadKustomization(target, io, origin, field);
      if (child.kind === 'Component')
        throw new KustomizeError(origin, field, `${child.file} is a Component; a Component is listed under components:, not ${fieldPath[0]}:`, 'move it to components:');
      const abs = path.resolve(target);
      if (stack.some((s) => s.abs === abs))
        throw new KustomizeError(
          origin,
          field,
          `a cycle of kustomizations: ${[...stack.map((s) => s.shown), target].join(' → ')}`,
          'a kustomization cannot include itself, directly or through others',
        );
      const sub = accumulate(child, io, { resources: [], vars: [] }, [...stack, { abs, shown: target }]);
      for (const r of sub.resources) append(r, origin, field);
      acc.vars.push(...sub.vars);
      return;
    }
    if (!within(k.dir, target))
      throw new KustomizeError(
        origin,
        field,
        `${entry} is outside ${k.dir}, where kustomize reads a kustomization's files (its load restrictor)`,
        "move the file in or below the kustomization's directory, or make its directory a kustomization and name that",
      );
    for (const r of loadResourceFile(target, io, origin, field)) append(r, origin, field);
  });

  for (const g of generate(k, (rel, origin, field) => readLocal(k, io, rel, origin, field))) absorbGenerated(acc.resources, g.resource, g.field);

  ((k.value.components as string[] | undefined) ?? []).forEach((entry, i) => {
    const origin = k.at(['components', i]);
    const field = formatPath(['components', i]);
    if (isRemote(entry))
      throw new KustomizeError(
        origin,
        field,
        `remote component ${entry}: runpod renders local kustomizations only (no network, no git)`,
        'clone or download it and name the local directory',
      );
    const target = path.join(k.dir, entry);
    const st = io.stat(target);
    if (st === undefined || !st.isDirectory)
      throw new KustomizeError(
        origin,
        field,
        `${target}: ${st === undefined ? 'no such directory' : 'not a directory'}; a component is a directory with a kustomization of kind Component`,
        'fix the path',
      );
    const child = loadKustomization(target, io, origin, field);
    if (child.kind !== 'Component')
      throw new KustomizeError(origin, field, `${child.file} is of kind Kustomization; components: takes kind Component`, 'set kind: Component in it, or list it under resources:');
    const abs = path.resolve(target);
    if (stack.some((s) => s.abs === abs))
      throw new KustomizeError(
        origin,
        field,
        `a cycle of kustomizations: ${[...stack.map((s) => s.shown), target].join(' → ')}`,
        'a kustomization cannot include itself, directly or through others',
      );
    // A component works on the resources accumulated so far, as part of this kustomization.
    accumulate(child, io, acc, [...stack, { abs, shown: target }]);
  });

  acc.resources = transform(k, io, acc.resources);
  const vars = k.value.vars;
  if (Array.isArray(vars))
    vars.forEach((v, i) => {
      if (!isObject(v)) throw new KustomizeError(k.at(['vars', i]), formatPath(['vars', i]), 'expected a mapping (name, objref, fieldref)', "see kustomize's vars reference");
      acc.vars.push({ value: v, origin: k.at(['vars', i]) });
    });
  return acc;
}

/** The first object of each id in a list. */
function idIndex(list: readonly Resource[]): Map<string, Resource> {
  const index = new Map<string, Resource>();
  for (const r of list) {
    const key = idKey(idOf(r.object));
    if (!index.has(key)) index.set(key, r);
  }
  return index;
}

/** Add an object; one of the same id already there is an error (resWrangler.Append). */
function appendUnique(list: Resource[], index: Map<string, Resource>, r: Resource, origin: Origin, field: string): void {
  const id = idOf(r.object);
  const key = idKey(id);
  const other = index.get(key);
  if (other !== undefined)
    throw new KustomizeError(
      origin,
      field,
      `${formatId(id)} from ${where(r.origin)} is already defined at ${where(other.origin)}`,
      'keep one of them, or give them distinct names or namespaces',
    );
  index.set(key, r);
  list.push(r);
}

const where = (o: Origin): string => (o.line !== undefined ? `${o.file}:${o.line}` : o.file);

/** A generated object: created, or merged into / replacing one of its id (appendReplaceOrMerge). */
function absorbGenerated(list: Resource[], r: Resource, field: string): void {
  const ann = annotationsOf(r.object)!;
  const behavior = ann[behaviorAnnotation];
  const id = idOf(r.object);
  const matches = list.filter((x) => sameId(idOf(x.object), id) || x.previousIds.some((p) => sameId(p, id)));
  if (matches.length === 0) {
    if (behavior === 'merge' || behavior === 'replace')
      throw new KustomizeError(
        r.origin,
        field,
        `behavior ${behavior}: there is no ${String(r.object.kind)} ${nameOf(r.object)} to ${behavior}`,
        'use behavior create (the default), or name an object of a base',
      );
    list.push(r);
    return;
  }
  if (matches.length > 1) throw new KustomizeError(r.origin, field, `several objects could take the ${behavior} of ${nameOf(r.object)}`, 'give them distinct names');
  const old = matches[0]!;
  if (behavior !== 'merge' && behavior !== 'replace')
    throw new KustomizeError(
      r.origin,
      field,
      `${String(r.object.kind)} ${nameOf(r.object)} is already generated or defined at ${where(old.origin)}; two generators of one name`,
      'give it another name, or behavior: merge or replace to change the other',
    );
  const oldMeta = metadataOf(old.object);
  const meta = metadataOf(r.object);
  const oldAnn = isObject(oldMeta.annotations) ? oldMeta.annotations : {};
  const newAnn = isObject(meta.annotations) ? meta.annotations : {};
  const labels = { ...(isObject(oldMeta.labels) ? oldMeta.labels : {}), ...(isObject(meta.labels) ? meta.labels : {}) };
  const merged: JsonObject = { ...oldAnn, ...newAnn };
  // Build annotations (prefixes, the hash) are the old object's; the hash stays only if both asked for it.
  for (const key of buildAnnotations) {
    if (key in oldAnn) merged[key] = oldAnn[key]!;
    else delete merged[key];
  }
  if (!(needsHashAnnotation in newAnn)) delete merged[needsHashAnnotation];
  if (Object.keys(labels).length > 0) meta.labels = labels;
  meta.annotations = merged;
  meta.name = nameOf(old.object);
  if (typeof oldMeta.namespace === 'string') meta.namespace = oldMeta.namespace;
  else delete meta.namespace;
  if (behavior === 'merge') {
    for (const key of ['data', 'binaryData']) {
      const o = old.object[key];
      const n = r.object[key];
      const m = { ...(isObject(o) ? o : {}), ...(isObject(n) ? n : {}) };
      if (Object.keys(m).length > 0) r.object[key] = m;
    }
  }
  list[list.indexOf(old)] = { object: r.object, origin: behavior === 'merge' ? old.origin : r.origin, previousIds: [...old.previousIds] };
}

/** The documents of a resource file: each an object of the input (a List's items each one). */
function loadResourceFile(file: string, io: KustomizeIo, from: Origin, field: string): Resource[] {
  const text = decode(io.readFile(file), { file }, '');
  // Problems in a resource are reported at its document (the rendered objects are validated again, with lines, as
  // runpod's input): the field lines are not needed here.
  const parsed = parseYaml(text, file, { fieldLines: false });
  const problem = parsed.problems[0];
  if (problem !== undefined) throw new KustomizeError({ file, ...(problem.line !== undefined ? { line: problem.line } : {}) }, '', problem.message, 'fix the YAML');
  const out: Resource[] = [];
  for (const doc of parsed.documents) {
    const value = toJson(doc.value);
    const origin = { file, line: doc.line };
    if (!isObject(value)) throw new KustomizeError(origin, '', 'a resource is a mapping (apiVersion, kind, metadata …)', 'fix the document');
    const kind = value.kind;
    if (kind === 'Kustomization' || kind === 'Component')
      throw new KustomizeError(from, field, `${file} is a ${String(kind)}; name its directory instead`, `write ${path.dirname(field === '' ? file : file)} in resources:`);
    if (typeof kind !== 'string' || kind === '') throw new KustomizeError(origin, 'kind', 'missing kind', 'add kind: (and apiVersion:)');
    if (kind.endsWith('List') && Array.isArray(value.items)) {
      value.items.forEach((item) => {
        if (isObject(item)) out.push({ object: item, origin, previousIds: [] });
      });
      continue;
    }
    out.push({ object: value, origin, previousIds: [] });
  }
  return out;
}

function stringMap(k: Kustomization, key: string): Record<string, string> {
  const v = k.value[key];
  return isObject(v) ? (v as Record<string, string>) : {};
}

function transform(k: Kustomization, io: KustomizeIo, input: Resource[]): Resource[] {
  let resources = input;
  const smp = patchesStrategicMerge(k, io);
  if (smp.length > 0) resources = applyPatches(resources, smp);
  const patches = patchEntries(k, io);
  if (patches.length > 0) resources = applyPatches(resources, patches);
  const ns = k.value.namespace;
  if (typeof ns === 'string' && ns !== '') {
    const clash = setNamespace(resources, ns);
    if (clash !== undefined) throw new KustomizeError(k.at(['namespace']), 'namespace', clash, 'give the objects distinct names');
  }
  const prefix = typeof k.value.namePrefix === 'string' ? k.value.namePrefix : '';
  const suffix = typeof k.value.nameSuffix === 'string' ? k.value.nameSuffix : '';
  if (prefix !== '') addPrefixSuffix(resources, prefix, '');
  if (suffix !== '') addPrefixSuffix(resources, '', suffix);
  for (const entry of labelEntries(k)) applyLabels(resources, entry);
  const common = stringMap(k, 'commonLabels');
  if (Object.keys(common).length > 0) {
    for (const entry of labelEntries(k)) {
      const both = Object.keys(entry.pairs).find((key) => key in common);
      if (both !== undefined)
        throw new KustomizeError(k.at(['commonLabels', both]), `commonLabels.${both}`, `label ${both} is in both commonLabels and labels`, 'keep it in one of them');
    }
    applyCommonLabels(resources, common);
  }
  const annotations = stringMap(k, 'commonAnnotations');
  if (Object.keys(annotations).length > 0) applyCommonAnnotations(resources, annotations);
  const json6902 = patchesJson6902(k, io);
  if (json6902.length > 0) resources = applyPatches(resources, json6902);
  replicaEntries(k).forEach(({ name, count, origin }, i) => {
    if (applyReplicas(resources, name, count) === 0)
      throw new KustomizeError(
        origin,
        formatPath(['replicas', i, 'name']),
        `no Deployment, ReplicationController, ReplicaSet or StatefulSet named ${name}`,
        "name one of the resources' workloads",
      );
  });
  for (const image of imageEntries(k)) applyImage(resources, image);
  const replacements = replacementEntries(k, io);
  if (replacements.length > 0) resources = applyReplacements(resources, replacements, k.at(['replacements']));
  return resources;
}

function labelEntries(k: Kustomization): LabelEntry[] {
  const list = k.value.labels;
  if (!Array.isArray(list)) return [];
  return list.map((entry, i) => {
    const e = checkEntryFields(k, ['labels', i], entry, ['pairs', 'includeSelectors', 'includeTemplates', 'includeVolumeClaimTemplates', 'fields']);
    if (e.pairs !== undefined) checkShape(k, ['labels', i, 'pairs'], e.pairs, 'stringMap');
    for (const key of ['includeSelectors', 'includeTemplates', 'includeVolumeClaimTemplates']) if (e[key] !== undefined) checkShape(k, ['labels', i, key], e[key]!, 'bool');
    const fields: FieldSpec[] = [];
    if (e.fields !== undefined) {
      checkShape(k, ['labels', i, 'fields'], e.fields, 'list');
      (e.fields as JsonValue[]).forEach((f, j) => {
        const fs = checkEntryFields(k, ['labels', i, 'fields', j], f, ['path', 'group', 'version', 'kind', 'create']);
        if (typeof fs.path !== 'string')
          throw new KustomizeError(
            k.at(['labels', i, 'fields', j]),
            formatPath(['labels', i, 'fields', j, 'path']),
            'a field spec needs a path',
            'add path: (e.g. spec/selector/matchLabels)',
          );
        fields.push({
          path: fs.path,
          ...(typeof fs.group === 'string' ? { group: fs.group } : {}),
          ...(typeof fs.version === 'string' ? { version: fs.version } : {}),
          ...(typeof fs.kind === 'string' ? { kind: fs.kind } : {}),
          create: fs.create === true,
        });
      });
    }
    return {
      pairs: isObject(e.pairs) ? (e.pairs as Record<string, string>) : {},
      includeSelectors: e.includeSelectors === true,
      includeTemplates: e.includeTemplates === true,
      includeVolumeClaimTemplates: e.includeVolumeClaimTemplates === true,
      fields,
    };
  });
}

function imageEntries(k: Kustomization): ImageEntry[] {
  const out: ImageEntry[] = [];
  for (const key of ['images', 'imageTags']) {
    const list = k.value[key];
    if (!Array.isArray(list)) continue;
    list.forEach((entry, i) => {
      const e = checkEntryFields(k, [key, i], entry, ['name', 'newName', 'newTag', 'digest', 'tagSuffix']);
      for (const f of ['name', 'newName', 'newTag', 'digest', 'tagSuffix']) {
        // A tag written as a number (newTag: 1.25) is its text.
        if (typeof e[f] === 'number') e[f] = String(e[f]);
        if (e[f] !== undefined) checkShape(k, [key, i, f], e[f]!, 'string');
      }
      if (typeof e.name !== 'string' || e.name === '')
        throw new KustomizeError(k.at([key, i]), formatPath([key, i, 'name']), 'an image entry needs the name of the image it changes', 'add name:');
      if (e.tagSuffix !== undefined && (e.newTag !== undefined || e.digest !== undefined))
        throw new KustomizeError(k.at([key, i, 'tagSuffix']), formatPath([key, i, 'tagSuffix']), 'tagSuffix cannot go with newTag or digest', 'keep one');
      out.push(e as unknown as ImageEntry);
    });
  }
  return out;
}

function replicaEntries(k: Kustomization): Array<{ name: string; count: number; origin: Origin }> {
  const list = k.value.replicas;
  if (!Array.isArray(list)) return [];
  return list.map((entry, i) => {
    const e = checkEntryFields(k, ['replicas', i], entry, ['name', 'count']);
    if (typeof e.name !== 'string' || e.name === '')
      throw new KustomizeError(k.at(['replicas', i]), formatPath(['replicas', i, 'name']), 'a replicas entry needs a name', 'add name:');
    if (typeof e.count !== 'number' || !Number.isInteger(e.count) || e.count < 0)
      throw new KustomizeError(k.at(['replicas', i, 'count']), formatPath(['replicas', i, 'count']), 'expected a whole number, 0 or more', 'write count: N');
    return { name: e.name, count: e.count, origin: k.at(['replicas', i]) };
  });
}

/** A patch's text: a file in or below the kustomization's directory, or written inline. */
function patchDocuments(k: Kustomization, io: KustomizeIo, text: string, file: string, origin: Origin, field: string): { docs: JsonValue[]; origin: Origin } {
  const parsed = parseYaml(text, file, { fieldLines: false });
  const problem = parsed.problems[0];
  if (problem !== undefined && problem.message !== 'no documents')
    throw new KustomizeError(problem.line !== undefined && file !== k.file ? { file, line: problem.line } : origin, field, problem.message, 'fix the patch');
  void io;
  return { docs: parsed.documents.map((d) => toJson(d.value)), origin: file !== k.file ? { file, ...(parsed.documents[0] ? { line: parsed.documents[0].line } : {}) } : origin };
}

function target(k: Kustomization, path: (string | number)[], v: JsonValue | undefined): PatchTarget | undefined {
  if (v === undefined || v === null) return undefined;
  const t = checkEntryFields(k, path, v, ['group', 'version', 'kind', 'name', 'namespace', 'labelSelector', 'annotationSelector']);
  for (const key of Object.keys(t)) checkShape(k, [...path, key], t[key]!, 'string');
  return t as PatchTarget;
}

function patchesStrategicMerge(k: Kustomization, io: KustomizeIo): PatchEntry[] {
  const list = k.value.patchesStrategicMerge;
  if (!Array.isArray(list)) return [];
  const out: PatchEntry[] = [];
  list.forEach((entry, i) => {
    const origin = k.at(['patchesStrategicMerge', i]);
    const field = formatPath(['patchesStrategicMerge', i]);
    if (typeof entry !== 'string') throw new KustomizeError(origin, field, 'expected a file name or a patch written inline', 'write a path, or the patch as a block string');
    // A path when a file of that name exists, else the patch itself (kustomize's own test).
    const file = path.join(k.dir, entry);
    const isFile = !entry.includes('\n') && io.stat(file)?.isFile === true;
    const text = isFile ? decode(readLocal(k, io, entry, origin, field), { file }, '') : entry;
    if (!isFile && !/[:\n]/.test(entry)) throw new KustomizeError(origin, field, `${file}: no such file`, 'fix the path');
    const { docs, origin: o } = patchDocuments(k, io, text, isFile ? file : k.file, origin, field);
    for (const d of docs) {
      if (!isObject(d)) throw new KustomizeError(o, field, 'a strategic merge patch is an object', 'write it as a partial object with apiVersion, kind and metadata.name');
      out.push({ patch: d, kind: 'strategicMerge', origin: o, field: 'patchesStrategicMerge' });
    }
  });
  return out;
}

function patchEntries(k: Kustomization, io: KustomizeIo): PatchEntry[] {
  const list = k.value.patches;
  if (!Array.isArray(list)) return [];
  const out: PatchEntry[] = [];
  list.forEach((entry, i) => {
    const e = checkEntryFields(k, ['patches', i], entry, ['path', 'patch', 'target', 'options']);
    const origin = k.at(['patches', i]);
    const field = formatPath(['patches', i]);
    if ((e.path === undefined) === (e.patch === undefined))
      throw new KustomizeError(origin, field, 'a patch needs path: or patch: (one of them)', 'give the patch file, or write the patch inline');
    const file = typeof e.path === 'string' ? path.join(k.dir, e.path) : k.file;
    const text =
      typeof e.path === 'string' ? decode(readLocal(k, io, e.path, k.at(['patches', i, 'path']), `${field}.path`), { file }, '') : typeof e.patch === 'string' ? e.patch : '';
    const t = target(k, ['patches', i, 'target'], e.target);
    let options: PatchEntry['options'];
    if (e.options !== undefined && e.options !== null) {
      const o = checkEntryFields(k, ['patches', i, 'options'], e.options, ['allowNameChange', 'allowKindChange']);
      options = { ...(o.allowNameChange === true ? { allowNameChange: true } : {}), ...(o.allowKindChange === true ? { allowKindChange: true } : {}) };
    }
    const { docs, origin: o } = patchDocuments(k, io, text, file, typeof e.patch === 'string' ? k.at(['patches', i, 'patch']) : origin, field);
    // A YAML (or JSON) list is JSON 6902 operations; anything else a strategic merge patch.
    if (docs.length === 1 && Array.isArray(docs[0])) {
      out.push({ patch: docs[0], kind: 'json6902', ...(t ? { target: t } : {}), ...(options ? { options } : {}), origin: o, field: 'patches' });
      return;
    }
    for (const d of docs) {
      if (!isObject(d)) throw new KustomizeError(o, field, 'a patch is a strategic merge object or a list of JSON 6902 operations', 'fix the patch');
      out.push({ patch: d, kind: 'strategicMerge', ...(t ? { target: t } : {}), ...(options ? { options } : {}), origin: o, field: 'patches' });
    }
  });
  return out;
}

function patchesJson6902(k: Kustomization, io: KustomizeIo): PatchEntry[] {
  const list = k.value.patchesJson6902;
  if (!Array.isArray(list)) return [];
  return list.map((entry, i) => {
    const e = checkEntryFields(k, ['patchesJson6902', i], entry, ['target', 'path', 'patch']);
    const origin = k.at(['patchesJson6902', i]);
    const field = formatPath(['patchesJson6902', i]);
    const t = target(k, ['patchesJson6902', i, 'target'], e.target);
    if (t === undefined) throw new KustomizeError(origin, field, 'patchesJson6902 needs a target', 'add target: (kind, name …)');
    if ((e.path === undefined) === (e.patch === undefined))
      throw new KustomizeError(origin, field, 'a patch needs path: or patch: (one of them)', 'give the patch file, or write the patch inline');
    const file = typeof e.path === 'string' ? path.join(k.dir, e.path) : k.file;
    const text =
      typeof e.path === 'string'
        ? decode(readLocal(k, io, e.path, k.at(['patchesJson6902', i, 'path']), `${field}.path`), { file }, '')
        : typeof e.patch === 'string'
          ? e.patch
          : '';
    const { docs, origin: o } = patchDocuments(k, io, text, file, origin, field);
    if (docs.length !== 1 || !Array.isArray(docs[0]))
      throw new KustomizeError(o, field, 'a JSON 6902 patch is a list of operations (op, path, value)', 'write it as a YAML or JSON list');
    return { patch: docs[0], kind: 'json6902' as const, target: t, origin: o, field: 'patchesJson6902' };
  });
}

function replacementEntries(k: Kustomization, io: KustomizeIo): JsonObject[] {
  const list = k.value.replacements;
  if (!Array.isArray(list)) return [];
  const out: JsonObject[] = [];
  list.forEach((entry, i) => {
    const origin = k.at(['replacements', i]);
    const field = formatPath(['replacements', i]);
    if (isObject(entry) && typeof entry.path === 'string' && Object.keys(entry).length === 1) {
      const file = path.join(k.dir, entry.path);
      const text = decode(readLocal(k, io, entry.path, origin, field), { file }, '');
      const { docs } = patchDocuments(k, io, text, file, origin, field);
      for (const d of docs) for (const item of Array.isArray(d) ? d : [d]) if (isObject(item)) out.push(item);
      return;
    }
    if (!isObject(entry)) throw new KustomizeError(origin, field, 'expected a replacement (source, targets) or path:', "see kustomize's replacements reference");
    out.push(entry);
  });
  return out;
}

/** kustomize's legacy order: kinds of orderFirst first, of orderLast last, the rest between; then by id. */
export function legacySort(resources: Resource[], options?: JsonObject): Resource[] {
  const first = Array.isArray(options?.orderFirst) ? (options.orderFirst as string[]) : orderFirst;
  const last = Array.isArray(options?.orderLast) ? (options.orderLast as string[]) : orderLast;
  const rank = new Map<string, number>();
  first.forEach((kind, i) => rank.set(kind, -first.length + i));
  last.forEach((kind, i) => rank.set(kind, 1 + i));
  const gvkString = (o: JsonObject): string => {
    const g = gvkOf(o);
    return `${g.group || '~G'}_${g.version || '~V'}_${g.kind || '~K'}`;
  };
  const idString = (o: JsonObject): string => {
    const g = gvkOf(o);
    const ns =
      typeof (o.metadata as JsonObject | undefined)?.namespace === 'string' && (o.metadata as JsonObject).namespace !== ''
        ? ((o.metadata as JsonObject).namespace as string)
        : '~X';
    const name = nameOf(o) || '~N';
    return `${g.kind || '[noKind]'}.${g.version || '[noVer]'}.${g.group || '[noGrp]'}|${ns}|${name}`;
  };
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return resources
    .map((r, i) => ({ r, i }))
    .sort((x, y) => {
      const a = x.r.object;
      const b = y.r.object;
      const ga = gvkOf(a);
      const gb = gvkOf(b);
      if (ga.group !== gb.group || ga.version !== gb.version || ga.kind !== gb.kind) {
        const ra = rank.get(ga.kind) ?? 0;
        const rb = rank.get(gb.kind) ?? 0;
        if (ra !== rb) return ra - rb;
        if (ga.kind === 'Namespace' && gb.kind === 'Namespace' && (ga.group === '' || gb.group === '')) return cmp(gvkString(b), gvkString(a));
        return cmp(gvkString(a), gvkString(b));
      }
      return cmp(idString(a), idString(b)) || x.i - y.i;
    })
    .map(({ r }) => r);
}
