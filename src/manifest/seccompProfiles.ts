// seccompProfile type Localhost: the kubelet reads <seccomp profile root>/<localhostProfile> on its node
// (https://kubernetes.io/docs/tutorials/security/seccomp/: "the path is relative to the kubelet's configured
// seccomp profile location (configured with the --root-dir flag)", by default /var/lib/kubelet/seccomp). runpod
// reads the file on the client, under --seccomp-profile-root, and hands its JSON to the engine (SecurityOpt
// "seccomp=<json>": the Engine API takes a profile's content, not a path, as `docker run --security-opt
// seccomp=FILE` sends it). Reading is injected, so the rules are tested without files.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ManifestProblem } from '../errors.js';
import { formatPath } from '../kube/path.js';
import type { LoadedPod } from './types.js';

/** The kubelet's default: its root directory /var/lib/kubelet, and seccomp/ under it. */
export const defaultSeccompProfileRoot = '/var/lib/kubelet/seccomp';

/** A Localhost profile a pod names, and where (a path from the Pod). */
export interface LocalhostProfileUse {
  profile: string;
  at: readonly (string | number)[];
}

/** Every Localhost profile the pod names: its own securityContext's and each container's. */
export function localhostProfilesOf(loaded: LoadedPod): LocalhostProfileUse[] {
  const spec = loaded.pod.spec;
  const out: LocalhostProfileUse[] = [];
  const add = (sp: { type: string; localhostProfile?: string | null } | null | undefined, at: (string | number)[]): void => {
    if (sp?.type === 'Localhost' && sp.localhostProfile) out.push({ profile: sp.localhostProfile, at: [...at, 'seccompProfile', 'localhostProfile'] });
  };
  add(spec.securityContext?.seccompProfile, ['spec', 'securityContext']);
  for (const field of ['initContainers', 'containers'] as const) {
    (spec[field] ?? []).forEach((c, i) => add(c.securityContext?.seccompProfile, ['spec', field, i, 'securityContext']));
  }
  return out;
}

/** A file's bytes, or the error code of the failed read (ENOENT, EACCES, EISDIR …). */
export type ReadProfile = (file: string) => Promise<Buffer | { code: string }>;

/** The real read, from the client's filesystem. */
export const readProfileFile: ReadProfile = (file) => readFile(file).catch((err: unknown) => ({ code: err instanceof Error && 'code' in err ? String(err.code) : 'EIO' }));

export interface SeccompProfiles {
  /** By localhostProfile: the profile's JSON, compacted as the docker CLI sends it. */
  profiles: Map<string, string>;
  problems: ManifestProblem[];
}

/** What a read error code means, for the message. */
function readProblem(code: string): string {
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'a directory, not a file';
  return `cannot be read (${code})`;
}

/**
 * The profiles every pod names, each read once from `root`; a missing, unreadable or non-JSON file is a problem of
 * the field that names it (file, line, field), so the run stops before the engine is touched (exit 2).
 */
export async function readSeccompProfiles(pods: readonly LoadedPod[], root: string, read: ReadProfile): Promise<SeccompProfiles> {
  const profiles = new Map<string, string>();
  const failed = new Map<string, string>();
  const problems: ManifestProblem[] = [];
  for (const loaded of pods) {
    for (const use of localhostProfilesOf(loaded)) {
      const where = loaded.locate?.(use.at) ?? { file: loaded.source.file, line: loaded.line, path: formatPath(use.at) };
      // validateLocalDescendingPath (the API server): a relative path with no ".." element, so it stays in the root.
      if (path.isAbsolute(use.profile) || use.profile.split(/[\\/]/).includes('..')) {
        problems.push({ ...where, message: `"${use.profile}" must be a relative path under the seccomp profile root, without ".." elements` });
        continue;
      }
      const file = path.join(root, use.profile);
      if (!profiles.has(use.profile) && !failed.has(use.profile)) {
        const why = await readOne(file, read);
        if (typeof why === 'string') failed.set(use.profile, why);
        else profiles.set(use.profile, why.json);
      }
      const why = failed.get(use.profile);
      if (why !== undefined) problems.push({ ...where, message: `seccomp profile ${file}: ${why}; put the profile there, or point --seccomp-profile-root at its directory` });
    }
  }
  return { profiles, problems };
}

async function readOne(file: string, read: ReadProfile): Promise<{ json: string } | string> {
  const got = await read(file);
  if (!Buffer.isBuffer(got)) return readProblem(got.code);
  let value: unknown;
  try {
    value = JSON.parse(got.toString('utf8'));
  } catch (err) {
    return `not JSON (${err instanceof Error ? err.message : String(err)})`;
  }
  // A seccomp profile is a JSON object (defaultAction, syscalls …); the engine refuses anything else at create.
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'not a seccomp profile (a JSON object with defaultAction and syscalls)';
  return { json: JSON.stringify(value) };
}
