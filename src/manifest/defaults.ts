// Kubernetes defaulting of a validated Pod, as the API server applies it on create (pkg/apis/core/v1/defaults.go),
// limited to the fields runpod supports. Pure: returns a new object and never mutates its input.

import type { Pod } from 'kubernetes-types/core/v1.js';
import { defaultPullPolicy } from '../imageRef.js';
import { objectMetaFields, podFields } from './fields.js';
import type { LoadedPod, LoadOptions } from './types.js';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * A deep copy as a plain tree: shared YAML aliases become separate copies (the caller has already bounded the
 * expanded size), so editing one container never edits another, and timestamps become RFC 3339 strings as in JSON.
 */
function cloneTree(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(cloneTree);
  if (v instanceof Date) return v.toISOString();
  if (isObj(v)) {
    const out: Obj = {};
    for (const [k, child] of Object.entries(v)) out[k] = cloneTree(child);
    return out;
  }
  return v;
}

/** Fields the API server populates; they are ignored (with a warning), so the defaulted Pod does not carry them. */
const readOnlyMeta = Object.entries(objectMetaFields.fields)
  .filter(([, e]) => e.readOnly === true)
  .map(([k]) => k);
const readOnlyTop = Object.entries(podFields.fields)
  .filter(([, e]) => e.readOnly === true)
  .map(([k]) => k);

/** Apply Kubernetes defaults to a Pod that passed validation. */
export function applyDefaults(raw: Obj, options: LoadOptions): LoadedPod['pod'] {
  const pod = cloneTree(raw) as Obj;
  for (const k of readOnlyTop) delete pod[k];
  const meta: Obj = isObj(pod.metadata) ? pod.metadata : {};
  for (const k of readOnlyMeta) delete meta[k];
  // The namespace comes from the request (kubectl's -n, else the context's namespace, else "default"), not from
  // defaults.go; an empty namespace means none was given.
  if (typeof meta.namespace !== 'string' || meta.namespace === '') meta.namespace = options.defaultNamespace;
  pod.metadata = meta;

  const spec: Obj = isObj(pod.spec) ? pod.spec : {};
  // SetDefaults_PodSpec: restartPolicy Always, terminationGracePeriodSeconds 30 (DefaultTerminationGracePeriodSeconds),
  // enableServiceLinks true (DefaultEnableServiceLinks).
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.enableServiceLinks ??= true;
  // The deprecated serviceAccount and serviceAccountName mirror each other (pkg/apis/core/v1/conversion.go).
  if (typeof spec.serviceAccountName !== 'string' || spec.serviceAccountName === '') {
    if (typeof spec.serviceAccount === 'string' && spec.serviceAccount !== '') spec.serviceAccountName = spec.serviceAccount;
  }
  if (Array.isArray(spec.containers)) {
    for (const c of spec.containers) if (isObj(c)) defaultContainer(c);
  }
  // SetDefaults_Pod (defaultHostNetworkPorts): with hostNetwork a container port is bound on the host, so its
  // hostPort defaults to the containerPort (and host ports are checked for conflicts across pods as such).
  if (spec.hostNetwork === true) {
    for (const field of ['initContainers', 'containers']) {
      const list = spec[field];
      if (!Array.isArray(list)) continue;
      for (const c of list) {
        if (!isObj(c) || !Array.isArray(c.ports)) continue;
        for (const p of c.ports) if (isObj(p) && (p.hostPort === undefined || p.hostPort === 0) && typeof p.containerPort === 'number') p.hostPort = p.containerPort;
      }
    }
  }
  // SetDefaults_Pod defaults init containers as containers.
  if (Array.isArray(spec.initContainers)) {
    for (const c of spec.initContainers) if (isObj(c)) defaultContainer(c);
  }
  pod.spec = spec;
  return pod as Pod as LoadedPod['pod'];
}

function defaultContainer(c: Obj): void {
  // SetDefaults_Container: imagePullPolicy Always for :latest or no tag, else IfNotPresent.
  if ((c.imagePullPolicy === undefined || c.imagePullPolicy === '') && typeof c.image === 'string') {
    c.imagePullPolicy = defaultPullPolicy(c.image);
  }
  // SetDefaults_ContainerPort: protocol TCP.
  if (Array.isArray(c.ports)) {
    for (const p of c.ports) if (isObj(p) && (p.protocol === undefined || p.protocol === '')) p.protocol = 'TCP';
  }
  // SetDefaults_Pod: a resource with a limit and no request gets the limit as its request.
  if (isObj(c.resources) && isObj(c.resources.limits)) {
    const limits = c.resources.limits;
    const requests: Obj = isObj(c.resources.requests) ? c.resources.requests : {};
    for (const [name, q] of Object.entries(limits)) if (requests[name] === undefined) requests[name] = q;
    if (Object.keys(requests).length > 0) c.resources.requests = requests;
  }
}
