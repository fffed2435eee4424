// A container's AppArmor profile, as the kubelet finds it, and the engine's security option for it. Pure: the
// manifest layer checks the annotation's format with it, the engine check (engineSupport.ts) refuses a profile on a
// host without AppArmor, and the plan (security.ts) turns it into `apparmor=<profile>`.
import type { Container, PodSpec } from 'kubernetes-types/core/v1.js';

/** The field's shape (AppArmorProfile, Kubernetes 1.30): type RuntimeDefault | Unconfined | Localhost. */
export interface AppArmorProfile {
  type: string;
  localhostProfile?: string;
}

/**
 * The deprecated per-container annotation (container.apparmor.security.beta.kubernetes.io/<container>), which the
 * API server still accepts and copies into the container's field when the field is unset (Kubernetes 1.30+).
 */
export const appArmorAnnotationPrefix = 'container.apparmor.security.beta.kubernetes.io/';

/** Docker's own profile, the one it applies when a container names none (moby: defaultAppArmorProfile). */
export const dockerDefaultAppArmorProfile = 'docker-default';

/**
 * An annotation's value as a profile: "runtime/default", "unconfined" or "localhost/<name>"
 * (ValidateAppArmorProfileFormat); a string is the reason it is not one.
 */
export function annotationProfile(value: string): AppArmorProfile | string {
  if (value === 'runtime/default') return { type: 'RuntimeDefault' };
  if (value === 'unconfined') return { type: 'Unconfined' };
  if (value.startsWith('localhost/') && value.length > 'localhost/'.length) return { type: 'Localhost', localhostProfile: value.slice('localhost/'.length) };
  return `invalid AppArmor profile name: "${value}" (runtime/default, unconfined or localhost/<profile>)`;
}

/** Where a container's effective profile was written. */
export type AppArmorSource = 'container' | 'annotation' | 'pod';

/**
 * The container's effective profile and where it came from: its own securityContext.appArmorProfile, else the
 * deprecated annotation for it, else the pod's securityContext.appArmorProfile (the container's setting overrides the
 * pod's, https://kubernetes.io/docs/tutorials/security/apparmor/#specifying-apparmor-confinement). undefined: none set,
 * so the runtime's default applies. A malformed annotation counts as none here (validation refuses it).
 */
export function effectiveAppArmor(
  spec: PodSpec,
  c: Container,
  annotations: Readonly<Record<string, string>> | undefined,
): { profile: AppArmorProfile; source: AppArmorSource } | undefined {
  const own = c.securityContext?.appArmorProfile;
  if (own) return { profile: plain(own), source: 'container' };
  const value = annotations?.[`${appArmorAnnotationPrefix}${c.name}`];
  if (value !== undefined) {
    const p = annotationProfile(value);
    if (typeof p !== 'string') return { profile: p, source: 'annotation' };
  }
  const pod = spec.securityContext?.appArmorProfile;
  if (pod) return { profile: plain(pod), source: 'pod' };
  return undefined;
}

function plain(p: { type: string; localhostProfile?: string | null }): AppArmorProfile {
  return { type: p.type, ...(p.localhostProfile ? { localhostProfile: p.localhostProfile } : {}) };
}

/**
 * The engine's security option for a profile (docker run --security-opt apparmor=<profile>):
 * - RuntimeDefault -> apparmor=docker-default, Docker's default profile. Not for a privileged container: the CRI
 *   runtimes leave a privileged container unconfined under the runtime default (containerd's
 *   generateApparmorSpecOpts), and Docker runs a privileged container unconfined when it names no profile;
 * - Unconfined -> apparmor=unconfined;
 * - Localhost -> apparmor=<localhostProfile>: a profile loaded on the engine host under that name, as the kubelet
 *   passes the name to the runtime.
 * undefined when nothing is to be set.
 */
export function appArmorSecurityOpt(profile: AppArmorProfile | undefined, privileged: boolean): string | undefined {
  if (profile === undefined) return undefined;
  switch (profile.type) {
    case 'RuntimeDefault':
      return privileged ? undefined : `apparmor=${dockerDefaultAppArmorProfile}`;
    case 'Unconfined':
      return 'apparmor=unconfined';
    case 'Localhost':
      return profile.localhostProfile !== undefined ? `apparmor=${profile.localhostProfile}` : undefined;
    default:
      return undefined;
  }
}
