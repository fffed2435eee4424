// How a kustomization enters as an input: `-k DIR` travels among the manifest arguments as a token no path can be,
// and a directory whose top holds a kustomization file is rendered as with -k. Reads through node:fs (the one
// place of this floor that does), then renders and prints the objects as `runpod kustomize` shows them.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { KustomizeError } from './errors.js';
import { noDocuments, type ParsedYaml, parseYaml } from '../yaml.js';
import { printDocuments, printDocumentsWithLines } from './print.js';
import { kustomizationFileIn, type KustomizeIo, renderKustomization } from './render.js';
import type { JsonObject } from './resource.js';

const prefix = '\u0000kustomize:';

/** `-k DIR` as a manifest argument. */
export function kustomizeInput(dir: string): string {
  return `${prefix}${dir}`;
}

/** The directory of a `-k DIR` argument, or undefined for any other. */
export function kustomizeDirOf(input: string): string | undefined {
  return input.startsWith(prefix) ? input.slice(prefix.length) : undefined;
}

export const nodeIo: KustomizeIo = {
  readFile: (file) => readFileSync(file),
  readDir: (dir) => readdirSync(dir),
  stat: (file) => {
    try {
      const st = statSync(file);
      return { isDirectory: st.isDirectory(), isFile: st.isFile() };
    } catch {
      return undefined;
    }
  },
};

/** The kustomization file at the top of dir, if any. */
export function kustomizationFile(dir: string, io: KustomizeIo = nodeIo): string | undefined {
  return kustomizationFileIn(dir, io);
}

/** Render dir and print it as `kubectl kustomize` does (Secrets included: the caller decides who sees it). */
export function renderToText(dir: string, io: KustomizeIo = nodeIo): string {
  return printDocuments(render(dir, io));
}

/**
 * Render dir as an input: the text renderToText prints, and its documents as parseYaml(text, file) reads them, with
 * their field lines, taken from the printing instead of parsing the text again.
 */
export function renderToDocuments(dir: string, file: string, io: KustomizeIo = nodeIo): { text: string; parsed: ParsedYaml } {
  const { text, documents } = printDocumentsWithLines(render(dir, io));
  if (documents === undefined) return { text, parsed: parseYaml(text, file) };
  return {
    text,
    parsed: {
      documents: documents.map((d) => ({ value: d.value, line: d.line, lines: d.lines, sourceNodes: d.nodes })),
      problems: documents.length === 0 ? [{ file, path: '', message: noDocuments }] : [],
    },
  };
}

function render(dir: string, io: KustomizeIo): JsonObject[] {
  const st = io.stat(dir);
  if (st === undefined || !st.isDirectory)
    throw new KustomizeError(
      { file: dir },
      '',
      st === undefined ? 'no such directory' : 'not a directory; -k takes the directory of a kustomization',
      'give the directory that holds kustomization.yaml',
    );
  return renderKustomization(dir, io).map((r) => r.object);
}
