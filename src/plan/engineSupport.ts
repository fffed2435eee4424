// The fields a Docker engine honours only when it has what they need, checked against that engine's facts
// (engine/ports/facts.ts) once it answers and before anything is created. Validation is engine-less and accepts them;
// here a field the engine cannot honour is refused as a manifest problem (file, line, field; exit 2), naming the
// engine and what would make it work, as the kubelet refuses a pod its node cannot run at admission. Pure.
import type { ManifestProblem } from '../errors.js';
import { formatPath } from '../kube/path.js';
import type { LoadedPod, ManifestWarning } from '../manifest/types.js';
import { apiAtLeast, describeEngine, EngineFeature, type EngineFacts } from '../engine/ports/facts.js';
import { appArmorAnnotationPrefix, effectiveAppArmor } from '../kube/apparmor.js';
import { needsNodeResolvConf } from './dns.js';
import { imageVolumeSource } from './volumes.js';

export interface EngineSupport {
  /** Fields this engine cannot honour: the run stops with them, nothing made. */
  problems: ManifestProblem[];
  /** Fields honoured in a lesser way this engine allows (recursiveReadOnly IfPossible on an old engine). */
  notes: ManifestWarning[];
}

/** One use of an engine-dependent field: what it needs of the engine, and where it is (a path from the Pod). */
type Use =
  | { need: 'apparmor'; at: readonly (string | number)[]; profile: string }
  | { need: 'seccomp'; at: readonly (string | number)[] }
  | { need: 'recursiveReadOnly'; at: readonly (string | number)[]; value: 'Enabled' | 'IfPossible' }
  | { need: 'imageMount'; at: readonly (string | number)[] }
  | { need: 'nodeResolvConf'; at: readonly (string | number)[] };

/** Every engine-dependent field the pod uses, each once (a pod-level setting reaches every container). */
function usesOf(loaded: LoadedPod): Use[] {
  const out: Use[] = [];
  const seen = new Set<string>();
  const push = (u: Use): void => {
    const key = formatPath(u.at);
    if (seen.has(key)) return;
    seen.add(key);
    out.push(u);
  };
  const spec = loaded.pod.spec;
  const annotations = loaded.pod.metadata.annotations ?? undefined;
  for (const field of ['initContainers', 'containers'] as const) {
    (spec[field] ?? []).forEach((c, i) => {
      // AppArmor: the kubelet refuses a pod that asks for a profile when AppArmor is not enabled on the node
      // (pkg/security/apparmor validate: "AppArmor is not enabled on the host"); Unconfined needs nothing. Docker would
      // silently run the container unconfined (it applies a profile only where the host supports AppArmor).
      const aa = effectiveAppArmor(spec, c, annotations);
      if (aa && aa.profile.type !== 'Unconfined') {
        const at =
          aa.source === 'container'
            ? ['spec', field, i, 'securityContext', 'appArmorProfile', 'type']
            : aa.source === 'annotation'
              ? ['metadata', 'annotations', `${appArmorAnnotationPrefix}${c.name}`]
              : ['spec', 'securityContext', 'appArmorProfile', 'type'];
        push({ need: 'apparmor', at, profile: `${aa.profile.type}${aa.profile.localhostProfile !== undefined ? ` ${aa.profile.localhostProfile}` : ''}` });
      }
      // seccomp Localhost: the profile's JSON is handed to the engine, which must apply seccomp profiles.
      const own = c.securityContext?.seccompProfile;
      const sp = own ?? spec.securityContext?.seccompProfile;
      if (sp?.type === 'Localhost') {
        push({ need: 'seccomp', at: own ? ['spec', field, i, 'securityContext', 'seccompProfile', 'type'] : ['spec', 'securityContext', 'seccompProfile', 'type'] });
      }
      (c.volumeMounts ?? []).forEach((m, j) => {
        if (m.readOnly === true && (m.recursiveReadOnly === 'Enabled' || m.recursiveReadOnly === 'IfPossible')) {
          push({ need: 'recursiveReadOnly', at: ['spec', field, i, 'volumeMounts', j, 'recursiveReadOnly'], value: m.recursiveReadOnly });
        }
      });
    });
  }
  // Image volumes (KEP-4639) are the engine's mounts of Type "image".
  (spec.volumes ?? []).forEach((v, i) => {
    if (imageVolumeSource(v)) push({ need: 'imageMount', at: ['spec', 'volumes', i, 'image'] });
  });
  // dnsPolicy Default is the node's resolv.conf with dnsConfig merged in (plan/dns.ts): the engine host's file.
  if (needsNodeResolvConf(spec)) push({ need: 'nodeResolvConf', at: spec.dnsPolicy !== undefined ? ['spec', 'dnsPolicy'] : ['spec', 'dnsConfig'] });
  return out;
}

function locate(loaded: LoadedPod, at: readonly (string | number)[]): { file: string; line?: number; path: string } {
  return loaded.locate?.(at) ?? { file: loaded.source.file, line: loaded.line, path: formatPath(at) };
}

function warning(loaded: LoadedPod, at: readonly (string | number)[], message: string): ManifestWarning {
  const w = locate(loaded, at);
  return { file: w.file, ...(w.line !== undefined ? { line: w.line } : {}), path: w.path, message };
}

/** Every engine-dependent field of the pod, checked against the engine's facts. */
export function engineSupport(loaded: LoadedPod, facts: EngineFacts): EngineSupport {
  const problems: ManifestProblem[] = [];
  const notes: ManifestWarning[] = [];
  const engine = describeEngine(facts);
  const refuse = (at: readonly (string | number)[], message: string): void => {
    problems.push({ ...locate(loaded, at), message });
  };
  for (const u of usesOf(loaded)) {
    switch (u.need) {
      case 'apparmor':
        if (!facts.security.apparmor) {
          refuse(
            u.at,
            `AppArmor profile ${u.profile} cannot be applied: the engine host has no AppArmor enabled (${engine} lists no apparmor in its security options); enable AppArmor on the engine host, or use type Unconfined`,
          );
        }
        break;
      case 'seccomp':
        if (!facts.security.seccomp) {
          refuse(
            u.at,
            `a Localhost seccomp profile cannot be applied: ${engine} has no seccomp support (it lists no seccomp in its security options); use an engine built with seccomp`,
          );
        }
        break;
      case 'recursiveReadOnly': {
        if (apiAtLeast(facts, EngineFeature.recursiveReadOnly.api)) break;
        const { api, docker } = EngineFeature.recursiveReadOnly;
        if (u.value === 'Enabled') {
          refuse(
            u.at,
            `Enabled needs recursively read-only mounts, which ${engine} does not have; Docker ${docker} or later (Engine API ${api}) does; use IfPossible to fall back to a read-only mount`,
          );
        } else {
          // The kubelet falls back to a read-only, not recursively read-only, mount when the runtime cannot do it.
          notes.push(
            warning(
              loaded,
              u.at,
              `IfPossible: ${engine} has no recursively read-only mounts (Docker ${docker} or later, Engine API ${api}, has), so the mount is read-only but mounts under it are not`,
            ),
          );
        }
        break;
      }
      case 'imageMount': {
        if (apiAtLeast(facts, EngineFeature.imageMount.api)) break;
        const { api, docker } = EngineFeature.imageMount;
        refuse(u.at, `${engine} has no image mounts; Docker ${docker} or later (Engine API ${api}) does; copy the files in an init container instead`);
        break;
      }
      case 'nodeResolvConf': {
        if (facts.resolvConf !== undefined && 'text' in facts.resolvConf) break;
        const why = facts.resolvConf?.unknown ?? "the engine host's resolv.conf was not read";
        refuse(
          u.at,
          `dnsPolicy Default gives the pod the node's resolv.conf (the engine host's), which runpod cannot read: ${why}; run runpod on the engine host, or use dnsPolicy None with the resolvers in dnsConfig`,
        );
        break;
      }
    }
  }
  return { problems, notes };
}

/** What each engine-dependent field needs, for `validate`, which asks no engine. */
const needs: Record<Use['need'], string> = {
  apparmor: 'needs AppArmor enabled on the engine host',
  seccomp: 'needs an engine with seccomp',
  recursiveReadOnly: `recursive on Docker ${EngineFeature.recursiveReadOnly.docker} or later (Engine API ${EngineFeature.recursiveReadOnly.api}); on older engines Enabled is refused and IfPossible is plain read-only`,
  imageMount: `needs Docker ${EngineFeature.imageMount.docker} or later (Engine API ${EngineFeature.imageMount.api})`,
  nodeResolvConf: "needs the engine host's resolv.conf, which runpod reads when the engine runs on this machine",
};

/** The pod's engine-dependent fields, each with what it needs: accepted by validation, decided when a run asks the engine. */
export function engineDependentFields(loaded: LoadedPod): ManifestWarning[] {
  return usesOf(loaded).map((u) => warning(loaded, u.at, `depends on the engine: ${needs[u.need]}; runpod run checks it against the engine before creating anything`));
}
