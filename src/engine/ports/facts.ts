// What the engine can do, read once per command from GET /version and GET /info, as plain data: the plan step and
// the engine checks (plan/engineSupport.ts) take it as an argument, so they stay pure and are tested with any
// engine's facts. Nothing here is cached on disk: an engine can be upgraded, or AppArmor enabled, between runs.

export interface EngineSecurity {
  /** AppArmor is enabled on the engine host (the engine lists "name=apparmor"): `apparmor=<profile>` works. */
  apparmor: boolean;
  /** The engine applies seccomp profiles ("name=seccomp,profile=…"): `seccomp=<json>` works. */
  seccomp: boolean;
  selinux: boolean;
  /** The engine runs rootless. */
  rootless: boolean;
  /** Containers get a private cgroup namespace by default (cgroup v2). */
  cgroupns: boolean;
}

export interface EngineFacts {
  /** The engine's version, as /version's Version says: "20.10.24+dfsg1", "28.1.1". */
  version: string;
  /** The newest Engine API version the engine speaks ("1.41"); runpod's requests are unversioned, so this one. */
  apiVersion: string;
  security: EngineSecurity;
  /** "1" or "2", when the engine says (/info CgroupVersion, API 1.40 and later). */
  cgroupVersion?: string;
  /** "cgroupfs" or "systemd", when the engine says. */
  cgroupDriver?: string;
  /**
   * The engine host's resolv.conf, which dnsPolicy Default gives a pod (plan/dns.ts): its path and text when runpod
   * read it (the engine is on this machine), else why it is not known. Absent when no pod's resolv.conf is the node's.
   */
  resolvConf?: { path: string; text: string } | { unknown: string };
}

/** The parts of the /version answer read here. */
export interface RawVersion {
  Version?: string;
  ApiVersion?: string;
}

/** The parts of the /info answer read here. */
export interface RawInfo {
  SecurityOptions?: string[] | null;
  CgroupVersion?: string;
  CgroupDriver?: string;
}

/**
 * /info's SecurityOptions: since Engine API 1.24 each entry is "name=<option>[,key=value…]" (seccomp carries
 * "profile=default"); older engines listed bare names ("apparmor", "seccomp"). Both are read.
 */
function securityNames(options: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const entry of options) {
    const first = entry.split(',')[0] ?? '';
    names.add(first.startsWith('name=') ? first.slice('name='.length) : first);
  }
  return names;
}

export function engineFacts(version: RawVersion, info: RawInfo): EngineFacts {
  const names = securityNames(info.SecurityOptions ?? []);
  return {
    version: version.Version ?? 'unknown',
    apiVersion: version.ApiVersion ?? '0',
    security: {
      apparmor: names.has('apparmor'),
      seccomp: names.has('seccomp'),
      selinux: names.has('selinux'),
      rootless: names.has('rootless'),
      cgroupns: names.has('cgroupns'),
    },
    ...(info.CgroupVersion ? { cgroupVersion: info.CgroupVersion } : {}),
    ...(info.CgroupDriver ? { cgroupDriver: info.CgroupDriver } : {}),
  };
}

/** "1.44" → [1, 44]; a part that is not a number counts as 0. */
function apiParts(v: string): [number, number] {
  const [major, minor] = v.split('.');
  const n = (s: string | undefined): number => (s !== undefined && /^\d+$/.test(s) ? Number(s) : 0);
  return [n(major), n(minor)];
}

/** The engine speaks Engine API `min` or later (versions compare as major.minor numbers: 1.9 < 1.41). */
export function apiAtLeast(facts: Pick<EngineFacts, 'apiVersion'>, min: string): boolean {
  const [a, b] = apiParts(facts.apiVersion);
  const [c, d] = apiParts(min);
  return a !== c ? a > c : b >= d;
}

/**
 * The Engine API versions that brought what runpod asks for, each with the first Docker release that speaks it
 * (https://docs.docker.com/reference/api/engine/version-history/), for refusals that say what would make it work.
 */
export const EngineFeature = {
  /** BindOptions.ReadOnlyNonRecursive and ReadOnlyForceRecursive. */
  recursiveReadOnly: { api: '1.44', docker: '25' },
  /** Mounts of Type "image". */
  imageMount: { api: '1.48', docker: '28' },
} as const;

/** "Docker 20.10.24+dfsg1 (Engine API 1.41)": how a refusal names the engine. */
export function describeEngine(facts: Pick<EngineFacts, 'version' | 'apiVersion'>): string {
  return `Docker ${facts.version} (Engine API ${facts.apiVersion})`;
}
