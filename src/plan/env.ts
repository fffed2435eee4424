// A container's environment as the kubelet builds it (pkg/kubelet/kubelet_pods.go makeEnvironmentVariables):
// envFrom sources first, in order, each key with its prefix; then env entries, which override. Only an entry's
// `value` is $(VAR)-expanded, from what is defined before it; values from valueFrom are taken literally.
// Pure; values that only the engine knows are runtime markers (runtime.ts). Every variable whose value comes
// from a Secret, or whose expansion used one, is remembered so that no output ever shows it.
import type { Container, EnvVarSource, Pod } from 'kubernetes-types/core/v1.js';
import { type ConfigObject, configKey } from '../manifest/types.js';
import type { BoundVolume } from '../manifest/volumeBinding.js';
import { fieldSubscript } from '../manifest/volumeRules.js';
import { expandVars } from './expand.js';
import { memoryBytes, milliCpu } from '../kube/quantity.js';
import { runtimeRef } from './runtime.js';

export interface EnvContext {
  pod: Pod & { metadata: { name: string; namespace: string }; spec: NonNullable<Pod['spec']> };
  uid: string;
  configs: ReadonlyMap<string, ConfigObject>;
  /** The isolation key (kube/project.ts): a claim's engine volume is the key's own. */
  project?: string;
  /** The pod's claims bound to PersistentVolumes of the input, by claim name (mounted from the host). */
  boundClaims?: ReadonlyMap<string, BoundVolume>;
  /** The Service variables of the pod's namespace (serviceEnv.ts): under the container's own, which win. */
  serviceEnv?: ReadonlyArray<{ name: string; value: string }>;
}

export interface ContainerEnv {
  env: Map<string, string>;
  /** Names whose value holds Secret data. */
  secret: Set<string>;
}

export function containerEnv(c: Container, ctx: EnvContext): ContainerEnv {
  const env = new Map<string, string>();
  const secret = new Set<string>();
  const setVar = (name: string, value: string, isSecret: boolean): void => {
    env.set(name, value);
    if (isSecret) secret.add(name);
    else secret.delete(name);
  };
  // The kubelet: a container's env and envFrom override the Service variables, which $(VAR) may still read.
  for (const v of ctx.serviceEnv ?? []) setVar(v.name, v.value, false);
  for (const from of c.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    if (ref?.name === undefined) continue;
    const obj = ctx.configs.get(configKey(from.configMapRef ? 'ConfigMap' : 'Secret', ref.name));
    // A missing optional source sets nothing (the loader refused a missing required one).
    if (obj === undefined) continue;
    for (const k of Object.keys(obj.strings).sort()) setVar(`${from.prefix ?? ''}${k}`, obj.strings[k]!, obj.kind === 'Secret');
  }
  for (const e of c.env ?? []) {
    if (e.valueFrom !== undefined) {
      const v = fromSource(e.valueFrom, c, ctx);
      if (v !== undefined) setVar(e.name, v.value, v.secret);
      continue;
    }
    const used = new Set<string>();
    const value = expandVars(e.value ?? '', (n) => {
      used.add(n);
      return env.get(n);
    });
    setVar(
      e.name,
      value,
      [...used].some((n) => secret.has(n) && env.has(n)),
    );
  }
  return { env, secret };
}

/** True when expanding s reads a secret variable (an argument that must be masked too). */
export function expandsSecret(s: string, env: ContainerEnv): boolean {
  let hit = false;
  expandVars(s, (n) => {
    if (env.secret.has(n) && env.env.has(n)) hit = true;
    return env.env.get(n);
  });
  return hit;
}

function fromSource(src: EnvVarSource, c: Container, ctx: EnvContext): { value: string; secret: boolean } | undefined {
  if (src.fieldRef !== undefined) return { value: fieldValue(src.fieldRef.fieldPath, ctx), secret: false };
  if (src.resourceFieldRef !== undefined) {
    const r = src.resourceFieldRef;
    // In env, containerName defaults to the container itself.
    const target = r.containerName ? ([...(ctx.pod.spec.initContainers ?? []), ...ctx.pod.spec.containers].find((x) => x.name === r.containerName) ?? c) : c;
    return { value: resourceValue(target, r.resource, r.divisor), secret: false };
  }
  const ref = src.configMapKeyRef ?? src.secretKeyRef;
  if (ref === undefined) return undefined;
  const kind = src.configMapKeyRef ? 'ConfigMap' : 'Secret';
  const value = ctx.configs.get(configKey(kind, ref.name ?? ''))?.strings[ref.key];
  // optional: a missing object or key leaves the variable unset (kubelet: `continue`).
  return value === undefined ? undefined : { value, secret: kind === 'Secret' };
}

/** A downward API field (env set; the volume set is a subset plus whole labels/annotations, see volumes.ts). */
export function fieldValue(path: string, ctx: EnvContext): string {
  const meta = ctx.pod.metadata;
  const sub = fieldSubscript(path);
  // A missing label or annotation reads as "" (the kubelet's ExtractFieldPathAsString).
  if (sub !== undefined) return (sub.map === 'labels' ? meta.labels : meta.annotations)?.[sub.key] ?? '';
  switch (path) {
    case 'metadata.name':
      return meta.name;
    case 'metadata.namespace':
      return meta.namespace;
    case 'metadata.uid':
      return ctx.uid;
    case 'metadata.labels':
      return formatMap(meta.labels ?? {});
    case 'metadata.annotations':
      return formatMap(meta.annotations ?? {});
    // The ServiceAccount admission plugin sets "default" when none is named; the same manifest on a cluster
    // would see that.
    case 'spec.serviceAccountName':
      return ctx.pod.spec.serviceAccountName || 'default';
    case 'spec.nodeName':
      return runtimeRef('spec.nodeName');
    case 'status.podIP':
    case 'status.podIPs':
      return runtimeRef('status.podIP');
    case 'status.hostIP':
    case 'status.hostIPs':
      return runtimeRef('status.hostIP');
    default:
      return '';
  }
}

/** The kubelet's fieldpath.FormatMap: sorted key="value" lines (values quoted as Go's %q). */
function formatMap(m: Readonly<Record<string, string>>): string {
  return Object.keys(m)
    .sort()
    .map((k) => `${k}=${JSON.stringify(m[k])}`)
    .join('\n');
}

/**
 * resourceFieldRef (pkg/api/v1/resource ExtractContainerResourceValue): ceil(value / divisor). A limit that is
 * unset reads the node's allocatable (MergeContainerResourceLimits), here the engine host's capacity, known
 * only at apply time; an unset request reads 0.
 */
export function resourceValue(c: Container, resource: string, divisor: string | number | undefined): string {
  const [which, name] = resource.split('.') as ['limits' | 'requests', 'cpu' | 'memory'];
  const list = c.resources?.[which] ?? {};
  const q = list[name];
  if (name === 'cpu') {
    const div = milliCpu(divisor ?? '1') ?? 1000;
    if (q === undefined) return which === 'limits' ? runtimeRef(`node.cpu/${div}`) : '0';
    return String(Math.ceil((milliCpu(q) ?? 0) / div));
  }
  const div = memoryBytes(divisor ?? '1') ?? 1;
  if (q === undefined) return which === 'limits' ? runtimeRef(`node.memory/${div}`) : '0';
  return String(Math.ceil((memoryBytes(q) ?? 0) / div));
}
