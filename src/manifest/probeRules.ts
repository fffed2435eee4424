// The API server's rules for a container's probes (pkg/apis/core/validation: validateProbe, handlers,
// validateLivenessProbe / validateReadinessProbe / validateStartupProbe), and the kubelet's FindPort rule that a
// named port must be one of the container's own ports, checked up front so a typo is a manifest error (exit 2)
// instead of a probe that can never pass.
import type { PathSegment } from '../kube/path.js';
import { portName, portNumber } from '../kube/syntax.js';
import type { ProblemSink } from './problems.js';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

const handlerNames = ['exec', 'httpGet', 'tcpSocket', 'grpc'] as const;
const probeNames = ['livenessProbe', 'readinessProbe', 'startupProbe'] as const;
/** RFC 7230 token: what net/http (and IsHTTPHeaderName) accepts as a header name. */
const headerName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function probeRules(c: Obj, p: PathSegment[], sink: ProblemSink): void {
  const portNames = new Set<string>();
  if (Array.isArray(c.ports)) for (const port of c.ports) if (isObj(port) && typeof port.name === 'string') portNames.add(port.name);
  for (const which of probeNames) {
    const probe = c[which];
    if (!isObj(probe)) continue;
    const at = [...p, which];
    // handlers: exactly one of exec, httpGet, tcpSocket, grpc ("must specify a handler type" /
    // "may not specify more than 1 handler type").
    const given = handlerNames.filter((h) => probe[h] !== undefined && probe[h] !== null);
    if (given.length === 0) sink.add(at, `must specify a handler type (one of ${handlerNames.join(', ')})`);
    for (const extra of given.slice(1)) sink.add([...at, extra], `may not specify more than 1 handler type (${given[0]} is already given)`);

    // ValidateNonnegativeField for each timing field; 0 then means the default (SetDefaults_Probe), so every
    // effective threshold, period and timeout is at least 1.
    for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) {
      const v = probe[f];
      if (typeof v === 'number' && v < 0) sink.add([...at, f], 'must be greater than or equal to 0');
    }
    // validateLivenessProbe / validateStartupProbe: successThreshold must be 1 (0 defaults to 1).
    if (which !== 'readinessProbe' && typeof probe.successThreshold === 'number' && probe.successThreshold > 1) {
      sink.add([...at, 'successThreshold'], `must be 1 for a ${which}`);
    }
    // Probe-level terminationGracePeriodSeconds: positive, and meaningless for readiness (nothing is killed).
    const grace = probe.terminationGracePeriodSeconds;
    if (grace !== undefined && grace !== null) {
      if (which === 'readinessProbe') sink.add([...at, 'terminationGracePeriodSeconds'], 'must not be set for readinessProbes');
      else if (typeof grace === 'number' && grace <= 0) sink.add([...at, 'terminationGracePeriodSeconds'], 'must be greater than 0');
    }

    const exec = probe.exec;
    if (isObj(exec) && (!Array.isArray(exec.command) || exec.command.length === 0)) sink.add([...at, 'exec', 'command'], 'required');
    const http = probe.httpGet;
    if (isObj(http)) {
      portRule(http.port, [...at, 'httpGet', 'port'], portNames, sink);
      if (typeof http.scheme === 'string' && http.scheme !== 'HTTP' && http.scheme !== 'HTTPS') {
        sink.add([...at, 'httpGet', 'scheme'], `must be HTTP or HTTPS, got "${http.scheme}"`);
      }
      if (Array.isArray(http.httpHeaders)) {
        http.httpHeaders.forEach((h, i) => {
          if (isObj(h) && typeof h.name === 'string' && !headerName.test(h.name)) {
            sink.add([...at, 'httpGet', 'httpHeaders', i, 'name'], "must be a valid HTTP header name (letters, digits and !#$%&'*+-.^_`|~)");
          }
        });
      }
    }
    const tcp = probe.tcpSocket;
    if (isObj(tcp)) portRule(tcp.port, [...at, 'tcpSocket', 'port'], portNames, sink);
    const grpc = probe.grpc;
    if (isObj(grpc)) {
      if (grpc.port === undefined || grpc.port === null) sink.add([...at, 'grpc', 'port'], 'required');
      else if (typeof grpc.port === 'number') {
        const problem = portNumber(grpc.port);
        if (problem) sink.add([...at, 'grpc', 'port'], problem);
      }
    }
  }
}

/** validatePortNumOrName, then the kubelet's FindPort: a name must be one of this container's ports. */
function portRule(port: unknown, at: PathSegment[], names: ReadonlySet<string>, sink: ProblemSink): void {
  if (port === undefined || port === null || port === '') {
    sink.add(at, 'required');
    return;
  }
  if (typeof port === 'number') {
    const problem = portNumber(port);
    if (problem) sink.add(at, problem);
    return;
  }
  if (typeof port !== 'string') return; // the schema reports the type
  const problem = portName(port);
  if (problem) {
    sink.add(at, problem);
    return;
  }
  if (!names.has(port)) {
    const known = [...names];
    sink.add(at, `port name "${port}" is not among the container's ports${known.length ? ` (${known.join(', ')})` : ' (it declares no named port)'}`);
  }
}
