// runpod's own table of the Pod object's fields: the single source of truth for which fields are accepted,
// accepted with a warning, or refused, and for README's table of supported fields. It lists every field that
// Kubernetes v1 defines on Pod, ObjectMeta, PodSpec, Container, ContainerPort, EnvVar and ResourceRequirements
// (as of Kubernetes 1.34), so that a key outside it is a field Kubernetes does not have: an error, as under
// `kubectl apply --validate=strict`. Supporting a field later means flipping its status here (and giving it a
// nested table when runpod should check the keys inside it).

import type { FieldPath, PathSegment } from './path.js';

export type FieldStatus = 'supported' | 'warn' | 'unsupported';

export interface FieldEntry {
  status: FieldStatus;
  /** README note; for `warn` the warning text, for `unsupported` a hint appended to the refusal. */
  note?: string;
  /** Fields of the value (or of each item when the value is a list), checked strictly. */
  fields?: FieldLevel;
  /** A read-only field the API server populates: ignored wholesale, its contents are not validated either. */
  readOnly?: boolean;
}

export interface FieldLevel {
  /** Kubernetes type name, for README. */
  type: string;
  fields: Readonly<Record<string, FieldEntry>>;
  /** For maps with free keys (resource names): how keys outside `fields` are treated instead of "unknown". */
  otherKeys?: FieldEntry;
}

const scheduling = 'ignored, scheduling has no meaning on one host';
const serverSet = 'ignored, read-only and set by the API server';
const later = (hint?: string): FieldEntry => (hint !== undefined ? { status: 'unsupported', note: hint } : { status: 'unsupported' });
const supported = (note?: string, fields?: FieldLevel): FieldEntry => ({
  status: 'supported',
  ...(note !== undefined ? { note } : {}),
  ...(fields !== undefined ? { fields } : {}),
});
const warn = (note: string): FieldEntry => ({ status: 'warn', note });
const readOnly = (): FieldEntry => ({ status: 'warn', note: serverSet, readOnly: true });

// Resource names: Kubernetes allows any qualified name (extended resources such as nvidia.com/gpu); a Docker engine
// limits only CPU and memory, so other names are refused rather than silently not enforced.
const resourceList: FieldLevel = {
  type: 'ResourceList',
  fields: {
    cpu: supported('cores: 500m, 1, 2.5'),
    memory: supported('bytes: 128Mi, 1G'),
  },
  otherKeys: later('runpod limits only cpu and memory'),
};

export const resourceRequirementsFields: FieldLevel = {
  type: 'ResourceRequirements',
  fields: {
    limits: supported('cpu and memory', resourceList),
    requests: supported('cpu and memory; defaults to the limit; must not exceed it', resourceList),
    claims: later('dynamic resource allocation needs a cluster'),
  },
};

export const containerPortFields: FieldLevel = {
  type: 'ContainerPort',
  fields: {
    containerPort: supported('required, 1-65535'),
    hostPort: supported('published on the host; unique per protocol and host IP across all pods'),
    hostIP: supported('an IP address to publish on'),
    protocol: supported('TCP (default), UDP or SCTP'),
    name: supported('IANA service name, unique in the pod'),
  },
};

export const envVarFields: FieldLevel = {
  type: 'EnvVar',
  fields: {
    name: supported('required; printable ASCII, no "="'),
    value: supported('$(VAR) expands from earlier entries'),
    valueFrom: later(),
  },
};

export const containerFields: FieldLevel = {
  type: 'Container',
  fields: {
    name: supported('required; DNS-1123 label, unique in the pod'),
    image: supported('required'),
    command: supported('replaces the image ENTRYPOINT'),
    args: supported('replaces the image CMD'),
    env: supported(undefined, envVarFields),
    workingDir: supported(),
    ports: supported(undefined, containerPortFields),
    resources: supported('cpu and memory only', resourceRequirementsFields),
    imagePullPolicy: supported('Always, IfNotPresent or Never; default by tag'),
    stdin: supported(),
    stdinOnce: supported(),
    tty: supported(),
    envFrom: later(),
    lifecycle: later(),
    livenessProbe: later(),
    readinessProbe: later(),
    startupProbe: later(),
    resizePolicy: later(),
    restartPolicy: later('sidecar init containers are not supported'),
    restartPolicyRules: later(),
    securityContext: later(),
    terminationMessagePath: later(),
    terminationMessagePolicy: later(),
    volumeDevices: later(),
    volumeMounts: later(),
  },
};

// Scheduling-only fields (warn): they choose a node or order pods for a scheduler, and on one host there is no node
// to choose and no scheduler, so ignoring them changes nothing about how the containers run. nodeName is the
// scheduler's output, so it is scheduling too. Not warned but refused: overhead (set by RuntimeClass admission
// together with runtimeClassName, and sizes the pod's cgroup, which is not scheduling) and readinessGates (the
// pod is Ready only when an outside controller sets the condition; ignoring them would call a pod ready that
// Kubernetes would not).
export const podSpecFields: FieldLevel = {
  type: 'PodSpec',
  fields: {
    containers: supported('required, at least one', containerFields),
    restartPolicy: supported('Always (default), OnFailure or Never; also the engine restart policy'),
    terminationGracePeriodSeconds: supported('default 30; 0 kills at once'),
    hostname: supported('DNS-1123 label; default the pod name'),
    enableServiceLinks: supported('accepted; no Services exist on one host, so nothing is injected'),
    serviceAccountName: supported('recorded only; no token is mounted'),
    serviceAccount: supported('deprecated alias of serviceAccountName; recorded only'),
    affinity: warn(scheduling),
    nodeName: warn(scheduling),
    nodeSelector: warn(scheduling),
    preemptionPolicy: warn(scheduling),
    priority: warn(scheduling),
    priorityClassName: warn(scheduling),
    schedulerName: warn(scheduling),
    schedulingGates: warn(scheduling),
    tolerations: warn(scheduling),
    topologySpreadConstraints: warn(scheduling),
    activeDeadlineSeconds: later(),
    automountServiceAccountToken: later(),
    dnsConfig: later(),
    dnsPolicy: later(),
    ephemeralContainers: later('added by the API server only'),
    hostAliases: later(),
    hostIPC: later(),
    hostNetwork: later(),
    hostPID: later(),
    hostUsers: later(),
    hostnameOverride: later(),
    imagePullSecrets: later(),
    initContainers: later(),
    os: later(),
    overhead: later('set with runtimeClassName by RuntimeClass admission'),
    readinessGates: later('no controller on one host would set the condition'),
    resourceClaims: later(),
    resources: later('pod-level resources; set them per container'),
    runtimeClassName: later(),
    securityContext: later(),
    setHostnameAsFQDN: later(),
    shareProcessNamespace: later(),
    subdomain: later(),
    volumes: later(),
  },
};

export const objectMetaFields: FieldLevel = {
  type: 'ObjectMeta',
  fields: {
    name: supported('required; DNS-1123 subdomain'),
    namespace: supported('DNS-1123 label; default "default" or -n'),
    uid: supported('names the containers; default derived from namespace/name'),
    labels: supported('Kubernetes label syntax'),
    annotations: supported('keys are qualified names'),
    generateName: later('runpod needs a stable name: set metadata.name'),
    finalizers: later('no controller on one host would remove them'),
    ownerReferences: later('no garbage collector on one host'),
    creationTimestamp: readOnly(),
    deletionGracePeriodSeconds: readOnly(),
    deletionTimestamp: readOnly(),
    generation: readOnly(),
    managedFields: readOnly(),
    resourceVersion: readOnly(),
    selfLink: readOnly(),
  },
};

export const podFields: FieldLevel = {
  type: 'Pod',
  fields: {
    apiVersion: supported('v1'),
    kind: supported('Pod (or a v1 List of Pods)'),
    metadata: supported(undefined, objectMetaFields),
    spec: supported(undefined, podSpecFields),
    status: { status: 'warn', note: 'ignored, runpod reports the status it observes', readOnly: true },
  },
};

/** Where each level lives, in the order "belongs in …" hints prefer. */
const levelPaths: ReadonlyArray<readonly [string, FieldLevel]> = [
  ['the top level', podFields],
  ['metadata', objectMetaFields],
  ['spec', podSpecFields],
  ['spec.containers[*]', containerFields],
  ['spec.containers[*].ports[*]', containerPortFields],
  ['spec.containers[*].env[*]', envVarFields],
  ['spec.containers[*].resources', resourceRequirementsFields],
];

export interface FieldFinding {
  path: PathSegment[];
  message: string;
}

export interface FieldWalk {
  problems: FieldFinding[];
  warnings: FieldFinding[];
  /** Subtrees already reported (unknown, unsupported) or ignored (read-only): no other check reports inside them. */
  settled: FieldPath[];
}

/** True for a value that asks for nothing: Kubernetes treats null as unset, and an empty list or object sets nothing. */
function isEmptyValue(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isPlainObject(v) && Object.keys(v).length === 0;
}

/** A YAML mapping; not a list, and not a timestamp or binary scalar (which js-yaml builds as objects). */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * Check every key of `value` against `level`, descending into supported fields that have a nested table (into
 * each item of a list). Values of the wrong type are left to the schema validator.
 */
export function walkFields(value: unknown, level: FieldLevel, base: FieldPath = []): FieldWalk {
  const out: FieldWalk = { problems: [], warnings: [], settled: [] };
  walkLevel(value, level, [...base], out);
  return out;
}

function walkLevel(value: unknown, level: FieldLevel, path: PathSegment[], out: FieldWalk): void {
  if (!isPlainObject(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const childPath = [...path, key];
    const entry = Object.prototype.hasOwnProperty.call(level.fields, key) ? level.fields[key] : level.otherKeys;
    if (entry === undefined) {
      out.problems.push({ path: childPath, message: unknownFieldMessage(key, level) });
      out.settled.push(childPath);
      continue;
    }
    switch (entry.status) {
      case 'unsupported':
        if (isEmptyValue(child)) break;
        out.problems.push({
          path: childPath,
          message: entry.note !== undefined ? `not supported by runpod (${entry.note})` : 'not supported by runpod',
        });
        out.settled.push(childPath);
        break;
      case 'warn':
        if (entry.readOnly === true) out.settled.push(childPath);
        if (!isEmptyValue(child)) out.warnings.push({ path: childPath, message: entry.note ?? 'ignored' });
        break;
      case 'supported':
        if (entry.fields === undefined) break;
        if (Array.isArray(child)) child.forEach((item, i) => walkLevel(item, entry.fields!, [...childPath, i], out));
        else walkLevel(child, entry.fields, childPath, out);
        break;
    }
  }
}

/** `unknown field "x"`, with where it belongs when another level defines it, or the closest name at this level. */
export function unknownFieldMessage(key: string, level: FieldLevel): string {
  const base = `unknown field "${key}"`;
  for (const [where, other] of levelPaths) {
    if (other !== level && Object.prototype.hasOwnProperty.call(other.fields, key)) return `${base} (${key} belongs in ${where})`;
  }
  const guess = closestName(key, Object.keys(level.fields));
  return guess !== undefined ? `${base}; did you mean "${guess}"?` : base;
}

/** The known name nearest to `key` when it is close enough to be a typo: a case slip or a few edits. */
export function closestName(key: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of names) {
    const d = name.toLowerCase() === key.toLowerCase() ? 0 : editDistance(key.toLowerCase(), name.toLowerCase());
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  const allowed = Math.max(1, Math.min(3, Math.floor(key.length / 4)));
  return bestDistance <= allowed ? best : undefined;
}

/** Levenshtein distance (insert, delete, substitute), two rows at a time. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** The warning/refusal status of one rendered path, for tests and docs (e.g. "spec.nodeSelector"). */
export function fieldEntryAt(path: FieldPath): FieldEntry | undefined {
  let level: FieldLevel | undefined = podFields;
  let entry: FieldEntry | undefined;
  for (const seg of path) {
    if (typeof seg === 'number') continue;
    if (level === undefined) return undefined;
    entry = Object.prototype.hasOwnProperty.call(level.fields, seg) ? level.fields[seg] : level.otherKeys;
    if (entry === undefined) return undefined;
    level = entry.fields;
  }
  return entry;
}

const statusLabel: Record<FieldStatus, string> = {
  supported: 'supported',
  warn: 'ignored (warning)',
  unsupported: 'not supported',
};

/** README's table of Pod fields: every field runpod knows, with its status and a note. */
export function supportedFieldsMarkdown(): string {
  const rows: string[] = ['| Field | Status | Note |', '|---|---|---|'];
  // Lists of objects are shown with [] so a row reads as the path of each item's field.
  const listFields = new Set(['containers', 'ports', 'env']);
  const visit = (level: FieldLevel, prefix: string): void => {
    for (const [name, entry] of Object.entries(level.fields)) {
      const path = (prefix === '' ? name : `${prefix}.${name}`) + (listFields.has(name) ? '[]' : '');
      const note = (entry.note ?? '').replace(/\|/g, '\\|');
      rows.push(`| \`${path}\` | ${statusLabel[entry.status]} | ${note} |`);
      if (entry.fields !== undefined) visit(entry.fields, path);
    }
    if (level.otherKeys !== undefined) {
      rows.push(`| \`${prefix}.<other>\` | ${statusLabel[level.otherKeys.status]} | ${level.otherKeys.note ?? ''} |`);
    }
  };
  visit(podFields, '');
  return rows.join('\n') + '\n';
}
