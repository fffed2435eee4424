// Isolation keys ("projects", as compose calls them): two CI jobs on one engine running the same manifests under
// two keys never meet. The key is part of every name and label runpod derives from a pod (names.ts: the uid and
// the namespace part of engine names; the io.runpod.project label on every container and volume), and every
// lookup is confined to it (engine/ports/project.ts), so a job sees, shares and removes only its own pods. Pure.
import { Label } from './labels.js';

/** The environment variable that gives the key when --project does not (a CI job id, say). */
export const projectEnvVar = 'RUNPOD_PROJECT';

/** Longest key: it is part of container and volume names, and of the pod's uid seed. */
export const maxProjectLength = 40;

/**
 * A key is a DNS-1123 label (lower-case letters, digits and '-', starting and ending with a letter or digit),
 * so <namespace>.<key> in an engine name reads back unambiguously. undefined when valid, else what is wrong.
 */
export function projectProblem(key: string): string | undefined {
  if (key.length === 0) return 'it is empty';
  if (key.length > maxProjectLength) return `it is ${key.length} characters long; at most ${maxProjectLength}`;
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(key)) return 'expected lower-case letters, digits and "-", starting and ending with a letter or digit (e.g. ci-1234)';
  return undefined;
}

/** The label selector that finds what was made under the key (none without a key: see inProject). */
export function projectSelector(project: string | undefined): string[] {
  return project === undefined ? [] : [`${Label.project}=${project}`];
}

/**
 * Whether an object's labels put it under the key. Without a key only objects made without one belong: a run
 * with no key never sees (or prunes, or takes down) an isolated job's pods.
 */
export function inProject(labels: Readonly<Record<string, string>>, project: string | undefined): boolean {
  return labels[Label.project] === project;
}

/** The label to put on what is made under the key. */
export function projectLabels(project: string | undefined): Record<string, string> {
  return project === undefined ? {} : { [Label.project]: project };
}
