// Validation of v1 Services: the field table (fields.ts), the Kubernetes schema (kubernetes-models' compiled
// validator) and the API server's rules the schema does not express (pkg/apis/core/validation ValidateService,
// validateServicePort, ValidateServiceClusterIPsRelatedFields, validateClientIPAffinityConfig), with the defaults
// the API server applies first (pkg/apis/core/v1 SetDefaults_Service). runpod's own refusals say what one Docker
// host cannot do. Pure: values in, problems and warnings out; and the defaulted ServiceObject of a valid Service.

import { isIP } from 'node:net';
import { Service as ServiceModel } from 'kubernetes-models/v1/Service';
import { placesOf, serviceFields, walkFields } from './fields.js';
import { list, report, set } from './ruleHelpers.js';
import { type PathSegment, formatPath } from '../kube/path.js';
import { dns1035Label, dns1123Label, ipAddress, labelValue, portName, portNumber, qualifiedName } from '../kube/syntax.js';
import type { ServiceObject, ServicePortSpec } from './types.js';
import { describe, type Obj, isObj } from '../kube/object.js';
import { type ProblemSink, schemaProblems, metadataRules } from './problems.js';

const servicePlaces = placesOf(serviceFields);

/** The API server's default --service-node-port-range. */
export const nodePortRange = { min: 30000, max: 32767 } as const;

/** core.MaxClientIPServiceAffinitySeconds. */
const maxAffinitySeconds = 86400;

/** The values of spec.trafficDistribution the API server takes (PreferSameZone and PreferSameNode since 1.33). */
const trafficDistributions = ['PreferClose', 'PreferSameZone', 'PreferSameNode'];

/** Where a path is, relative to the Service, for "also spec.ports[0]". */
function rel(path: readonly PathSegment[], at: readonly PathSegment[]): string {
  return formatPath(path.slice(at.length));
}

/** The Service's type after defaulting (SetDefaults_Service: an unset type is ClusterIP). */
function typeOf(spec: Obj): string {
  return typeof spec.type === 'string' && spec.type !== '' ? spec.type : 'ClusterIP';
}

/** clusterIP None: the name resolves to the endpoint pods' own addresses (isHeadlessService). */
function isHeadless(spec: Obj): boolean {
  return spec.clusterIP === 'None';
}

/** Validate one Service found at `at` in its document. True when it has no problem. */
export function validateService(obj: Obj, at: PathSegment[], sink: ProblemSink): boolean {
  const before = sink.problems.length;
  // 1. The field table: unknown and refused fields, the read-only status.
  const walk = walkFields(obj, serviceFields, at, servicePlaces);
  for (const p of walk.problems) sink.add(p.path, p.message);
  for (const s of walk.settled) sink.settle(s);
  for (const w of walk.warnings) sink.warn(w.path, w.message);
  // 2. The schema: types and enums.
  for (const p of schemaProblems(obj, ServiceModel)) {
    const path = [...at, ...p.path];
    sink.add(path, p.message);
    if (p.wrongType) sink.settle(path);
  }
  // 3. ValidateObjectMeta with ValidateServiceName: a DNS-1035 label (the name is a DNS label and the prefix of the
  // pods' environment variables, so it may not start with a digit).
  const meta = obj.metadata;
  if (isObj(meta) && typeof meta.name === 'string' && meta.name !== '') report(sink, [...at, 'metadata', 'name'], dns1035Label(meta.name));
  metadataRules(meta, at, sink);
  const s = [...at, 'spec'];
  const spec = obj.spec;
  if (!set(spec)) sink.add(s, 'required (a Service needs spec.ports, and spec.selector to find its pods)');
  else if (isObj(spec)) specRules(spec, s, at, sink);
  return sink.problems.length === before;
}

function specRules(spec: Obj, s: PathSegment[], at: PathSegment[], sink: ProblemSink): void {
  const type = typeOf(spec);
  if (type === 'ExternalName') {
    sink.add(
      [...s, 'type'],
      "ExternalName is not supported by runpod: Docker's embedded DNS cannot serve CNAME records, so the Service's name cannot point at the external name; use the external name directly, or a hostAliases entry in the pods that need it",
    );
  }
  clusterIPRules(spec, s, sink);
  const headless = isHeadless(spec);
  // ValidateService: a headless Service has no address to forward from, so it cannot be published on a node.
  if (headless && (type === 'NodePort' || type === 'LoadBalancer')) sink.add([...s, 'clusterIP'], `may not be set to 'None' for ${type} services`);

  portRules(spec, s, at, type, headless, sink);
  selectorRules(spec, s, type, sink);
  affinityRules(spec, s, sink);

  // validateServiceExternalTrafficPolicy: only a Service reachable from outside the cluster has an external policy
  // (externalIPs, the other way to be reachable, is refused).
  if (typeof spec.externalTrafficPolicy === 'string' && spec.externalTrafficPolicy !== '' && type === 'ClusterIP') {
    sink.add([...s, 'externalTrafficPolicy'], 'may only be set for externally-accessible services (type NodePort or LoadBalancer)');
  }
  // validateServiceTrafficDistribution.
  const td = spec.trafficDistribution;
  if (typeof td === 'string' && !trafficDistributions.includes(td))
    sink.add([...s, 'trafficDistribution'], `Unsupported value: ${describe(td)}: supported values: ${trafficDistributions.join(', ')}`);
  if (set(spec.allocateLoadBalancerNodePorts) && type !== 'LoadBalancer') sink.add([...s, 'allocateLoadBalancerNodePorts'], "may only be used when `type` is 'LoadBalancer'");
  ipFamilyRules(spec, s, sink);
}

/**
 * ValidateServiceClusterIPsRelatedFields, and runpod's rule: clusterIP is "" (an address runpod chooses) or None
 * (headless). On create the API server copies clusterIP into an empty clusterIPs, never the other way (strategy
 * NormalizeClusterIPs), so clusterIPs alone is refused.
 */
function clusterIPRules(spec: Obj, s: PathSegment[], sink: ProblemSink): void {
  const fixed = (ip: string): string =>
    `a fixed address (${ip}) is refused: a Service's address on one host is chosen by runpod on the engine's network; remove it (or use None for a headless Service)`;
  const one = (v: unknown, path: PathSegment[]): void => {
    if (typeof v !== 'string' || v === 'None') return;
    if (isIP(v) !== 0) sink.add(path, fixed(v));
    else if (v !== '' || path[path.length - 1] !== 'clusterIP') report(sink, path, ipAddress(v));
  };
  const cip = spec.clusterIP;
  one(cip, [...s, 'clusterIP']);
  const cips = spec.clusterIPs;
  if (!Array.isArray(cips)) return;
  const cp = [...s, 'clusterIPs'];
  if (cips.length > 2) sink.add(cp, 'may only hold up to 2 values');
  cips.forEach((v, i) => {
    if (v === 'None' && i === 0) {
      if (cips.length > 1) sink.add(cp, "'None' must be the first and only value");
      return;
    }
    one(v, [...cp, i]);
  });
  if (typeof cip === 'string' && cip !== '') {
    if (cips.length > 0 && cips[0] !== cip) sink.add(cp, 'first value must match `clusterIP`');
  } else if (cips.length > 0) {
    sink.add(cp, 'must be empty when `clusterIP` is not specified (set clusterIP too, e.g. clusterIP: None)');
  }
}

function protocolOf(p: Obj): string {
  return typeof p.protocol === 'string' && p.protocol !== '' ? p.protocol : 'TCP';
}

/** ValidateService's port rules (validateServicePort, the duplicate checks) and the node port range. */
function portRules(spec: Obj, s: PathSegment[], at: PathSegment[], type: string, headless: boolean, sink: ProblemSink): void {
  const ports = spec.ports;
  const pp = [...s, 'ports'];
  if ((!set(ports) || (Array.isArray(ports) && ports.length === 0)) && !headless && type !== 'ExternalName') {
    sink.add(pp, 'required: at least one port (only a headless Service, clusterIP: None, may have none)');
  }
  if (!Array.isArray(ports)) return;
  const requireName = ports.length > 1;
  const names = new Map<string, PathSegment[]>();
  const portsSeen = new Map<string, PathSegment[]>();
  const nodePortsSeen = new Map<string, PathSegment[]>();
  ports.forEach((port, i) => {
    if (!isObj(port)) return;
    const p = [...pp, i];
    // The kubelet names a variable after each port (<SVC>_SERVICE_PORT_<NAME>), and DNS an SRV record.
    const name = port.name;
    if (requireName && (!set(name) || name === '')) sink.add([...p, 'name'], 'required when the Service has more than one port (a DNS-1123 label such as http)');
    else if (typeof name === 'string' && name !== '' && !report(sink, [...p, 'name'], dns1123Label(name))) {
      const first = names.get(name);
      if (first !== undefined) sink.add([...p, 'name'], `duplicate port name "${name}" (also ${rel(first, at)})`);
      else names.set(name, p);
    }
    if (typeof port.port === 'number') report(sink, [...p, 'port'], portNumber(port.port));
    const protocol = protocolOf(port);
    if (protocol === 'SCTP') sink.add([...p, 'protocol'], "SCTP is not supported by runpod: Docker's port forwarding here covers TCP and UDP");
    targetPortRule(port.targetPort, [...p, 'targetPort'], sink);
    if (typeof port.appProtocol === 'string') {
      const bad = qualifiedName(port.appProtocol);
      if (bad !== undefined) sink.add([...p, 'appProtocol'], bad);
    }
    // (port, protocol) pairs are unique: one address cannot forward one port twice.
    if (typeof port.port === 'number') {
      const key = `${port.port}/${protocol}`;
      const first = portsSeen.get(key);
      if (first !== undefined) sink.add([...p, 'port'], `duplicate port ${key} (also ${rel(first, at)})`);
      else portsSeen.set(key, p);
    }
    const np = port.nodePort;
    if (typeof np === 'number' && np !== 0) {
      const npp = [...p, 'nodePort'];
      if (type === 'ClusterIP') sink.add(npp, "may not be used when `type` is 'ClusterIP' (use NodePort or LoadBalancer to publish on the host)");
      else if (np < nodePortRange.min || np > nodePortRange.max) {
        // The API server's allocator refuses a port outside --service-node-port-range (default 30000-32767).
        sink.add(
          npp,
          `provided port is not in the valid range: ${np}; the range of valid ports is ${nodePortRange.min}-${nodePortRange.max} (the API server's default); for another host port, use a pod's hostPort`,
        );
      } else {
        const key = `${np}/${protocol}`;
        const first = nodePortsSeen.get(key);
        if (first !== undefined) sink.add(npp, `duplicate nodePort ${key} (also ${rel(first, at)})`);
        else nodePortsSeen.set(key, p);
      }
    }
  });
}

/** ValidatePortNumOrName; 0 and "" are unset (SetDefaults_Service: targetPort defaults to port). */
function targetPortRule(v: unknown, path: PathSegment[], sink: ProblemSink): void {
  if (typeof v === 'number' && v !== 0) report(sink, path, portNumber(v));
  else if (typeof v === 'string' && v !== '') {
    const bad = portName(v);
    if (bad === undefined) return;
    const quoted = /^[0-9]+$/.test(v) ? ' (a number must be written without quotes)' : '';
    sink.add(path, `must be a port number 1-65535 or a container port name (IANA_SVC_NAME), and as a name it ${bad}${quoted}`);
  }
}

/** ValidateLabels of spec.selector; a Service without one gets no endpoints, which runpod says. */
function selectorRules(spec: Obj, s: PathSegment[], type: string, sink: ProblemSink): void {
  const sel = spec.selector;
  if (isObj(sel)) {
    for (const [k, v] of Object.entries(sel)) {
      const p = [...s, 'selector', k];
      const bad = qualifiedName(k);
      if (bad !== undefined) sink.add(p, `invalid key: ${bad}`);
      else if (typeof v === 'string') report(sink, p, labelValue(v));
    }
  }
  // The endpoints controllers skip a Service whose selector is nil; an empty one is stored as nil. Its endpoints
  // would be hand-written Endpoints or EndpointSlices, which runpod does not read.
  if ((!set(sel) || (isObj(sel) && Object.keys(sel).length === 0)) && type !== 'ExternalName') {
    sink.warn(
      set(sel) ? [...s, 'selector'] : s,
      'no selector: the Service gets no endpoints (runpod does not read Endpoints or EndpointSlices), so its name leads nowhere; give it the labels of its pods',
    );
  }
}

/** ValidateService's sessionAffinity rules and validateClientIPAffinityConfig. */
function affinityRules(spec: Obj, s: PathSegment[], sink: ProblemSink): void {
  const affinity = typeof spec.sessionAffinity === 'string' && spec.sessionAffinity !== '' ? spec.sessionAffinity : 'None';
  const config = spec.sessionAffinityConfig;
  if (affinity === 'None' && set(config)) {
    sink.add([...s, 'sessionAffinityConfig'], 'must not be set when session affinity is None (it configures ClientIP)');
    return;
  }
  const timeout = isObj(config) && isObj(config.clientIP) ? config.clientIP.timeoutSeconds : undefined;
  if (typeof timeout === 'number' && (timeout <= 0 || timeout > maxAffinitySeconds)) {
    sink.add([...s, 'sessionAffinityConfig', 'clientIP', 'timeoutSeconds'], `must be greater than 0 and less than or equal to ${maxAffinitySeconds}, got ${timeout}`);
  }
}

/** ipFamilies and ipFamilyPolicy: runpod gives a Service one IPv4 address. */
function ipFamilyRules(spec: Obj, s: PathSegment[], sink: ProblemSink): void {
  const seen = new Set<string>();
  list(spec.ipFamilies).forEach((f, i) => {
    const p = [...s, 'ipFamilies', i];
    if (f === 'IPv6') sink.add(p, 'IPv6 is not supported by runpod: runpod gives Services IPv4 addresses; use IPv4');
    else if (f === '') sink.add(p, 'Unsupported value: "": supported values: IPv4, IPv6');
    if (typeof f === 'string' && seen.has(f)) sink.add(p, `duplicate value ${describe(f)}`);
    if (typeof f === 'string') seen.add(f);
  });
  if (spec.ipFamilyPolicy === 'RequireDualStack') {
    sink.add([...s, 'ipFamilyPolicy'], 'RequireDualStack is not supported by runpod: runpod gives Services IPv4 addresses only; use SingleStack or PreferDualStack');
  }
}

/** The defaulted ServiceObject of a Service that passed validation (SetDefaults_Service). */
export function toServiceObject(obj: Obj, defaultNamespace: string, file: string, line: number): ServiceObject {
  const meta = isObj(obj.metadata) ? obj.metadata : {};
  const spec = isObj(obj.spec) ? obj.spec : {};
  const namespace = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : defaultNamespace;
  const type = typeOf(spec) as ServiceObject['type'];
  const ports: ServicePortSpec[] = list(spec.ports)
    .filter(isObj)
    .map((p) => {
      const port = typeof p.port === 'number' ? p.port : 0;
      const target = p.targetPort;
      const targetPort = (typeof target === 'number' && target !== 0) || (typeof target === 'string' && target !== '') ? target : port;
      return {
        ...(typeof p.name === 'string' && p.name !== '' ? { name: p.name } : {}),
        protocol: protocolOf(p) as ServicePortSpec['protocol'],
        port,
        targetPort,
        ...(typeof p.nodePort === 'number' && p.nodePort !== 0 ? { nodePort: p.nodePort } : {}),
      };
    });
  const selector: Record<string, string> = {};
  if (isObj(spec.selector)) for (const [k, v] of Object.entries(spec.selector)) if (typeof v === 'string') selector[k] = v;
  return {
    namespace,
    name: String(meta.name),
    file,
    line,
    type,
    headless: isHeadless(spec),
    ...(Object.keys(selector).length > 0 ? { selector } : {}),
    ports,
    publishNotReadyAddresses: spec.publishNotReadyAddresses === true,
    sessionAffinity: spec.sessionAffinity === 'ClientIP' ? 'ClientIP' : 'None',
  };
}
