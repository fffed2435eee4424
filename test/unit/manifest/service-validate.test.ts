// Validation of v1 Services (manifest/serviceRules.ts) and their place in the loader (parse.ts, load.ts): the
// Kubernetes docs' examples pass, each rule of ValidateService and each of runpod's refusals fails with its message at
// its line, every problem of an input is reported at once, Services come out defaulted in input order.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { formatProblem } from '../../../src/errors.js';
import { loadManifests } from '../../../src/manifest/load.js';
import { parseManifests } from '../../../src/manifest/parse.js';

const options = { defaultNamespace: 'default' };
const parse = (text: string, defaultNamespace = 'default') => parseManifests([{ source: { file: 's.yaml' }, text }], { defaultNamespace });
const problems = (text: string): string[] => parse(text).problems.map(formatProblem);
const warnings = (text: string): string[] => parse(text).warnings.map((w) => `${w.line} ${w.path}: ${w.message}`);

// The Kubernetes docs' examples (concepts/services-networking/service), as written there.
const myService = `apiVersion: v1
kind: Service
metadata:
  name: my-service
spec:
  selector:
    app.kubernetes.io/name: MyApp
  ports:
    - protocol: TCP
      port: 80
      targetPort: 9376
`;

const multiPort = `apiVersion: v1
kind: Service
metadata:
  name: my-service
spec:
  selector:
    app.kubernetes.io/name: MyApp
  ports:
    - name: http
      protocol: TCP
      port: 80
      targetPort: 9376
    - name: https
      protocol: TCP
      port: 443
      targetPort: 9377
`;

const nodePort = `apiVersion: v1
kind: Service
metadata:
  name: my-service
spec:
  type: NodePort
  selector:
    app.kubernetes.io/name: MyApp
  ports:
    - port: 80
      # By default and for convenience, the \`targetPort\` is set to
      # the same value as the \`port\` field.
      targetPort: 80
      # Optional field
      # By default and for convenience, the Kubernetes control plane
      # will allocate a port from a range (default: 30000-32767)
      nodePort: 30007
`;

const namedTarget = `apiVersion: v1
kind: Service
metadata:
  name: nginx-service
spec:
  selector:
    app.kubernetes.io/name: proxy
  ports:
  - name: name-of-service-port
    protocol: TCP
    port: 80
    targetPort: http-web-svc
`;

const headless = `apiVersion: v1
kind: Service
metadata:
  name: nginx
  labels:
    app: nginx
spec:
  ports:
  - port: 80
    name: web
  clusterIP: None
  selector:
    app: nginx
`;

const loadBalancer = `apiVersion: v1
kind: Service
metadata:
  name: my-service
spec:
  selector:
    app.kubernetes.io/name: MyApp
  ports:
    - protocol: TCP
      port: 80
      targetPort: 9376
  type: LoadBalancer
`;

/** Replace the first occurrence of `from` in `text`, failing loudly when it is not there (a test that edits nothing). */
function edit(text: string, from: string, to: string): string {
  assert.ok(text.includes(from), `no ${JSON.stringify(from)} in the example`);
  return text.replace(from, to);
}

describe('Service: valid examples pass', () => {
  const cases: Array<[string, string]> = [
    ['my-service', myService],
    ['a multi-port Service', multiPort],
    ['a NodePort Service', nodePort],
    ['a named targetPort', namedTarget],
    ['the headless nginx Service of the StatefulSet example', headless],
    ['a LoadBalancer Service', loadBalancer],
  ];
  for (const [name, text] of cases) {
    it(name, () => {
      const r = parse(text);
      assert.deepEqual(r.problems.map(formatProblem), []);
      assert.deepEqual(r.warnings, []);
      assert.equal(r.services.length, 1);
    });
  }

  it('is defaulted as SetDefaults_Service does: type ClusterIP, protocol TCP, targetPort = port, sessionAffinity None', () => {
    const svc = edit(myService, '    - protocol: TCP\n      port: 80\n      targetPort: 9376\n', '    - port: 80\n');
    assert.deepEqual(parse(svc).services, [
      {
        namespace: 'default',
        name: 'my-service',
        file: 's.yaml',
        line: 1,
        type: 'ClusterIP',
        headless: false,
        selector: { 'app.kubernetes.io/name': 'MyApp' },
        ports: [{ protocol: 'TCP', port: 80, targetPort: 80 }],
        publishNotReadyAddresses: false,
        sessionAffinity: 'None',
      },
    ]);
  });

  it('keeps names, nodePorts, a named targetPort, headless, the namespace (-n) and the affinity', () => {
    const [h] = parse(edit(headless, 'clusterIP: None\n', 'clusterIP: None\n  publishNotReadyAddresses: true\n  sessionAffinity: ClientIP\n'), 'web').services;
    assert.deepEqual(h, {
      namespace: 'web',
      name: 'nginx',
      file: 's.yaml',
      line: 1,
      type: 'ClusterIP',
      headless: true,
      selector: { app: 'nginx' },
      ports: [{ name: 'web', protocol: 'TCP', port: 80, targetPort: 80 }],
      publishNotReadyAddresses: true,
      sessionAffinity: 'ClientIP',
    });
    assert.deepEqual(parse(nodePort).services[0]?.ports, [{ protocol: 'TCP', port: 80, targetPort: 80, nodePort: 30007 }]);
    assert.deepEqual(parse(namedTarget).services[0]?.ports, [{ name: 'name-of-service-port', protocol: 'TCP', port: 80, targetPort: 'http-web-svc' }]);
  });

  it('accepts the fields that mean the same on one host', () => {
    const lb = edit(
      loadBalancer,
      '  type: LoadBalancer\n',
      [
        '  type: LoadBalancer',
        '  allocateLoadBalancerNodePorts: false',
        '  externalTrafficPolicy: Local',
        '  internalTrafficPolicy: Local',
        '  trafficDistribution: PreferClose',
        '  ipFamilies: [IPv4]',
        '  ipFamilyPolicy: PreferDualStack',
        '  sessionAffinity: ClientIP',
        '  sessionAffinityConfig: {clientIP: {timeoutSeconds: 3600}}',
        '  clusterIP: ""',
        '',
      ].join('\n'),
    );
    assert.deepEqual(problems(lb), []);
    assert.deepEqual(warnings(lb), []);
  });
});

describe('Service: each rule, with its message and line', () => {
  const cases: Array<{ name: string; text: string; expect: string[] }> = [
    {
      name: 'name not a DNS-1035 label',
      text: edit(myService, 'name: my-service', 'name: 1st-service'),
      expect: [
        "s.yaml:4 metadata.name: must be a lowercase RFC 1035 label: lowercase letters, digits and '-', starting with a letter and ending with a letter or digit (e.g. 'my-name')",
      ],
    },
    {
      name: 'no spec',
      text: 'apiVersion: v1\nkind: Service\nmetadata: {name: a}\n',
      expect: ['s.yaml:1 spec: required (a Service needs spec.ports, and spec.selector to find its pods)'],
    },
    {
      name: 'no ports',
      text: edit(myService, '  ports:\n    - protocol: TCP\n      port: 80\n      targetPort: 9376\n', ''),
      expect: ['s.yaml:5 spec.ports: required: at least one port (only a headless Service, clusterIP: None, may have none)'],
    },
    {
      name: 'an empty ports list',
      text: edit(myService, '  ports:\n    - protocol: TCP\n      port: 80\n      targetPort: 9376\n', '  ports: []\n'),
      expect: ['s.yaml:8 spec.ports: required: at least one port (only a headless Service, clusterIP: None, may have none)'],
    },
    { name: 'a port without a number', text: edit(myService, '      port: 80\n', ''), expect: ['s.yaml:9 spec.ports[0].port: required'] },
    { name: 'a port out of range', text: edit(myService, 'port: 80', 'port: 65536'), expect: ['s.yaml:10 spec.ports[0].port: must be between 1 and 65535, inclusive'] },
    {
      name: 'a port name missing when there are two ports',
      text: edit(multiPort, '    - name: https\n      protocol: TCP', '    - protocol: TCP'),
      expect: ['s.yaml:13 spec.ports[1].name: required when the Service has more than one port (a DNS-1123 label such as http)'],
    },
    {
      name: 'a port name not a DNS-1123 label',
      text: edit(multiPort, 'name: https', 'name: HTTPS'),
      expect: ["s.yaml:13 spec.ports[1].name: must be a lowercase RFC 1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit (e.g. 'my-name')"],
    },
    {
      name: 'a duplicate port name',
      text: edit(multiPort, 'name: https', 'name: http'),
      expect: ['s.yaml:13 spec.ports[1].name: duplicate port name "http" (also spec.ports[0])'],
    },
    { name: 'a duplicate port and protocol', text: edit(multiPort, 'port: 443', 'port: 80'), expect: ['s.yaml:15 spec.ports[1].port: duplicate port 80/TCP (also spec.ports[0])'] },
    {
      name: 'one port for TCP and UDP is fine',
      text: edit(edit(multiPort, 'port: 443', 'port: 80'), 'protocol: TCP\n      port: 80\n      targetPort: 9377', 'protocol: UDP\n      port: 80\n      targetPort: 9377'),
      expect: [],
    },
    {
      name: 'SCTP',
      text: edit(myService, 'protocol: TCP', 'protocol: SCTP'),
      expect: ["s.yaml:9 spec.ports[0].protocol: SCTP is not supported by runpod: Docker's port forwarding here covers TCP and UDP"],
    },
    {
      name: 'an unknown protocol',
      text: edit(myService, 'protocol: TCP', 'protocol: HTTP'),
      expect: ['s.yaml:9 spec.ports[0].protocol: must be one of SCTP, TCP, UDP, got "HTTP"'],
    },
    {
      name: 'a targetPort out of range',
      text: edit(myService, 'targetPort: 9376', 'targetPort: 70000'),
      expect: ['s.yaml:11 spec.ports[0].targetPort: must be between 1 and 65535, inclusive'],
    },
    {
      name: 'a targetPort name too long',
      text: edit(myService, 'targetPort: 9376', 'targetPort: a-very-long-port-name'),
      expect: [
        's.yaml:11 spec.ports[0].targetPort: must be a port number 1-65535 or a container port name (IANA_SVC_NAME), and as a name it must be no more than 15 characters (has 21)',
      ],
    },
    {
      name: 'a quoted number as targetPort',
      text: edit(myService, 'targetPort: 9376', 'targetPort: "9376"'),
      expect: [
        's.yaml:11 spec.ports[0].targetPort: must be a port number 1-65535 or a container port name (IANA_SVC_NAME), and as a name it must contain at least one letter (a number must be written without quotes)',
      ],
    },
    {
      name: 'appProtocol not a qualified name',
      text: edit(myService, 'protocol: TCP\n', 'protocol: TCP\n      appProtocol: "a b"\n'),
      expect: [
        "s.yaml:10 spec.ports[0].appProtocol: name part must consist of letters, digits, '-', '_' or '.', starting and ending with a letter or digit (e.g. 'MyName', 'my.name', '123-abc')",
      ],
    },
    {
      name: 'a nodePort on a ClusterIP Service',
      text: edit(nodePort, '  type: NodePort\n', ''),
      expect: ["s.yaml:16 spec.ports[0].nodePort: may not be used when `type` is 'ClusterIP' (use NodePort or LoadBalancer to publish on the host)"],
    },
    {
      name: 'a nodePort out of the range',
      text: edit(nodePort, 'nodePort: 30007', 'nodePort: 8080'),
      expect: [
        "s.yaml:17 spec.ports[0].nodePort: provided port is not in the valid range: 8080; the range of valid ports is 30000-32767 (the API server's default); for another host port, use a pod's hostPort",
      ],
    },
    {
      name: 'a duplicate nodePort of one protocol',
      text: edit(nodePort, '      nodePort: 30007\n', '      nodePort: 30007\n      name: a\n    - port: 81\n      name: b\n      nodePort: 30007\n'),
      expect: ['s.yaml:21 spec.ports[1].nodePort: duplicate nodePort 30007/TCP (also spec.ports[0])'],
    },
    {
      name: 'ExternalName',
      text: 'apiVersion: v1\nkind: Service\nmetadata:\n  name: my-service\n  namespace: prod\nspec:\n  type: ExternalName\n  externalName: my.database.example.com\n',
      expect: [
        "s.yaml:7 spec.type: ExternalName is not supported by runpod: Docker's embedded DNS cannot serve CNAME records, so the Service's name cannot point at the external name; use the external name directly, or a hostAliases entry in the pods that need it",
        "s.yaml:8 spec.externalName: not supported by runpod (ExternalName Services are refused: Docker's embedded DNS cannot serve CNAME records; use the external name directly, or a hostAliases entry)",
      ],
    },
    {
      name: 'a fixed clusterIP',
      text: edit(myService, 'spec:\n', 'spec:\n  clusterIP: 10.96.0.10\n'),
      expect: [
        "s.yaml:6 spec.clusterIP: a fixed address (10.96.0.10) is refused: a Service's address on one host is chosen by runpod on the engine's network; remove it (or use None for a headless Service)",
      ],
    },
    {
      name: 'a clusterIP that is no address',
      text: edit(myService, 'spec:\n', 'spec:\n  clusterIP: nowhere\n'),
      expect: ['s.yaml:6 spec.clusterIP: must be a valid IP address (e.g. 10.9.8.7 or 2001:db8::ffff)'],
    },
    {
      name: 'fixed clusterIPs',
      text: edit(myService, 'spec:\n', 'spec:\n  clusterIP: None\n  clusterIPs: [None, 10.96.0.10]\n'),
      expect: [
        "s.yaml:7 spec.clusterIPs: 'None' must be the first and only value",
        "s.yaml:7 spec.clusterIPs[1]: a fixed address (10.96.0.10) is refused: a Service's address on one host is chosen by runpod on the engine's network; remove it (or use None for a headless Service)",
      ],
    },
    {
      name: 'clusterIPs not matching clusterIP',
      text: edit(myService, 'spec:\n', 'spec:\n  clusterIP: ""\n  clusterIPs: [None]\n'),
      expect: ['s.yaml:7 spec.clusterIPs: must be empty when `clusterIP` is not specified (set clusterIP too, e.g. clusterIP: None)'],
    },
    { name: 'clusterIPs matching clusterIP None', text: edit(headless, 'clusterIP: None\n', 'clusterIP: None\n  clusterIPs: [None]\n'), expect: [] },
    {
      name: 'a headless NodePort Service',
      text: edit(headless, 'clusterIP: None\n', 'clusterIP: None\n  type: NodePort\n'),
      expect: ["s.yaml:11 spec.clusterIP: may not be set to 'None' for NodePort services"],
    },
    {
      name: 'a headless LoadBalancer Service',
      text: edit(headless, 'clusterIP: None\n', 'clusterIP: None\n  type: LoadBalancer\n  allocateLoadBalancerNodePorts: true\n'),
      expect: ["s.yaml:11 spec.clusterIP: may not be set to 'None' for LoadBalancer services"],
    },
    { name: 'a headless Service without ports is fine', text: edit(headless, '  ports:\n  - port: 80\n    name: web\n', ''), expect: [] },
    {
      name: 'a bad selector key',
      text: edit(myService, 'app.kubernetes.io/name: MyApp', 'app/kubernetes/name: MyApp'),
      expect: [
        `s.yaml:7 spec.selector["app/kubernetes/name"]: invalid key: must be a qualified name: an optional DNS subdomain prefix and '/', then a name (e.g. 'example.com/MyName')`,
      ],
    },
    {
      name: 'a bad selector value',
      text: edit(myService, 'name: MyApp', 'name: "-MyApp"'),
      expect: [`s.yaml:7 spec.selector["app.kubernetes.io/name"]: must be empty or consist of letters, digits, '-', '_' or '.', starting and ending with a letter or digit`],
    },
    {
      name: 'an unknown type',
      text: edit(myService, 'spec:\n', 'spec:\n  type: Internal\n'),
      expect: ['s.yaml:6 spec.type: must be one of ClusterIP, ExternalName, LoadBalancer, NodePort, got "Internal"'],
    },
    {
      name: 'sessionAffinityConfig without ClientIP',
      text: edit(myService, 'spec:\n', 'spec:\n  sessionAffinityConfig: {clientIP: {timeoutSeconds: 10}}\n'),
      expect: ['s.yaml:6 spec.sessionAffinityConfig: must not be set when session affinity is None (it configures ClientIP)'],
    },
    {
      name: 'an affinity timeout too long',
      text: edit(myService, 'spec:\n', 'spec:\n  sessionAffinity: ClientIP\n  sessionAffinityConfig:\n    clientIP:\n      timeoutSeconds: 86401\n'),
      expect: ['s.yaml:9 spec.sessionAffinityConfig.clientIP.timeoutSeconds: must be greater than 0 and less than or equal to 86400, got 86401'],
    },
    {
      name: 'an unknown sessionAffinity',
      text: edit(myService, 'spec:\n', 'spec:\n  sessionAffinity: Sticky\n'),
      expect: ['s.yaml:6 spec.sessionAffinity: must be one of ClientIP, None, got "Sticky"'],
    },
    {
      name: 'externalTrafficPolicy on a ClusterIP Service',
      text: edit(myService, 'spec:\n', 'spec:\n  externalTrafficPolicy: Local\n'),
      expect: ['s.yaml:6 spec.externalTrafficPolicy: may only be set for externally-accessible services (type NodePort or LoadBalancer)'],
    },
    {
      name: 'an unknown internalTrafficPolicy',
      text: edit(myService, 'spec:\n', 'spec:\n  internalTrafficPolicy: Node\n'),
      expect: ['s.yaml:6 spec.internalTrafficPolicy: must be one of Cluster, Local, got "Node"'],
    },
    {
      name: 'an unknown trafficDistribution',
      text: edit(myService, 'spec:\n', 'spec:\n  trafficDistribution: Anywhere\n'),
      expect: ['s.yaml:6 spec.trafficDistribution: Unsupported value: "Anywhere": supported values: PreferClose, PreferSameZone, PreferSameNode'],
    },
    {
      name: 'allocateLoadBalancerNodePorts without LoadBalancer',
      text: edit(nodePort, '  type: NodePort\n', '  type: NodePort\n  allocateLoadBalancerNodePorts: true\n'),
      expect: ["s.yaml:7 spec.allocateLoadBalancerNodePorts: may only be used when `type` is 'LoadBalancer'"],
    },
    {
      name: 'IPv6',
      text: edit(myService, 'spec:\n', 'spec:\n  ipFamilies: [IPv4, IPv6]\n  ipFamilyPolicy: RequireDualStack\n'),
      expect: [
        's.yaml:6 spec.ipFamilies[1]: IPv6 is not supported by runpod: runpod gives Services IPv4 addresses; use IPv4',
        's.yaml:7 spec.ipFamilyPolicy: RequireDualStack is not supported by runpod: runpod gives Services IPv4 addresses only; use SingleStack or PreferDualStack',
      ],
    },
    { name: 'a duplicate IP family', text: edit(myService, 'spec:\n', 'spec:\n  ipFamilies: [IPv4, IPv4]\n'), expect: ['s.yaml:6 spec.ipFamilies[1]: duplicate value "IPv4"'] },
    {
      name: 'externalIPs',
      text: edit(myService, 'spec:\n', 'spec:\n  externalIPs: [198.51.100.32]\n'),
      expect: [
        's.yaml:6 spec.externalIPs: not supported by runpod (addresses the nodes would capture traffic for; publish on the host with type NodePort or LoadBalancer instead)',
      ],
    },
    {
      name: 'loadBalancerSourceRanges',
      text: edit(loadBalancer, '  type: LoadBalancer\n', '  type: LoadBalancer\n  loadBalancerSourceRanges: [10.0.0.0/8]\n'),
      expect: [
        's.yaml:13 spec.loadBalancerSourceRanges: not supported by runpod (it restricts which clients may connect, and runpod cannot enforce that on one Docker host: remove it)',
      ],
    },
    {
      name: 'loadBalancerIP',
      text: edit(loadBalancer, '  type: LoadBalancer\n', '  type: LoadBalancer\n  loadBalancerIP: 192.0.2.127\n'),
      expect: [
        "s.yaml:13 spec.loadBalancerIP: not supported by runpod (deprecated in Kubernetes, and a Service's address on one host is chosen by runpod on the engine's network: remove it)",
      ],
    },
    {
      name: 'loadBalancerClass',
      text: edit(loadBalancer, '  type: LoadBalancer\n', '  type: LoadBalancer\n  loadBalancerClass: example.com/internal-vip\n'),
      expect: ['s.yaml:13 spec.loadBalancerClass: not supported by runpod (there is no load-balancer controller on one host to pick a class)'],
    },
    {
      name: 'healthCheckNodePort',
      text: edit(loadBalancer, '  type: LoadBalancer\n', '  type: LoadBalancer\n  healthCheckNodePort: 30100\n'),
      expect: ["s.yaml:13 spec.healthCheckNodePort: not supported by runpod (a cloud load balancer's health check of the nodes; there is none on one host)"],
    },
    {
      name: 'an unknown field, with the closest name',
      text: edit(myService, 'spec:\n', 'spec:\n  selectors: {a: b}\n'),
      expect: ['s.yaml:6 spec.selectors: unknown field "selectors"; did you mean "selector"?'],
    },
    {
      name: 'a field of another level',
      text: edit(myService, '      port: 80\n', '      port: 80\n      containerPort: 80\n'),
      expect: ['s.yaml:11 spec.ports[0].containerPort: unknown field "containerPort" (not in the Kubernetes 1.34 API runpod knows)'],
    },
    { name: 'a port of the wrong type', text: edit(myService, 'port: 80', 'port: eighty'), expect: ['s.yaml:10 spec.ports[0].port: expected integer, got "eighty"'] },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(problems(c.text), c.expect));
  }
});

describe('Service: warnings', () => {
  it('a Service without selector gets no endpoints, and says so', () => {
    const svc = edit(myService, '  selector:\n    app.kubernetes.io/name: MyApp\n', '');
    assert.deepEqual(problems(svc), []);
    assert.deepEqual(warnings(svc), [
      '5 spec: no selector: the Service gets no endpoints (runpod does not read Endpoints or EndpointSlices), so its name leads nowhere; give it the labels of its pods',
    ]);
    assert.equal(parse(svc).services[0]?.selector, undefined);
  });

  it('an empty selector is no selector (the API server stores it as none)', () => {
    const svc = edit(myService, '  selector:\n    app.kubernetes.io/name: MyApp\n', '  selector: {}\n');
    assert.deepEqual(warnings(svc), [
      '6 spec.selector: no selector: the Service gets no endpoints (runpod does not read Endpoints or EndpointSlices), so its name leads nowhere; give it the labels of its pods',
    ]);
    assert.equal(parse(svc).services[0]?.selector, undefined);
  });

  it('status is read-only and ignored', () => {
    const svc = `${loadBalancer}status:\n  loadBalancer:\n    ingress:\n    - ip: 192.0.2.127\n`;
    assert.deepEqual(problems(svc), []);
    assert.deepEqual(warnings(svc), ['13 status: ignored, read-only and set by the API server']);
  });
});

describe('Service: in the loader', () => {
  it('reports every problem of a Service at once', () => {
    const svc = [
      'apiVersion: v1',
      'kind: Service',
      'metadata:',
      '  name: Web',
      'spec:',
      '  type: NodePort',
      '  clusterIP: None',
      '  selector: {app: web}',
      '  ports:',
      '  - port: 80',
      '    protocol: SCTP',
      '    nodePort: 80',
      '  - port: 80',
      '    targetPort: "80"',
      '',
    ].join('\n');
    assert.deepEqual(problems(svc), [
      "s.yaml:4 metadata.name: must be a lowercase RFC 1035 label: lowercase letters, digits and '-', starting with a letter and ending with a letter or digit (e.g. 'my-name')",
      "s.yaml:7 spec.clusterIP: may not be set to 'None' for NodePort services",
      's.yaml:10 spec.ports[0].name: required when the Service has more than one port (a DNS-1123 label such as http)',
      "s.yaml:11 spec.ports[0].protocol: SCTP is not supported by runpod: Docker's port forwarding here covers TCP and UDP",
      "s.yaml:12 spec.ports[0].nodePort: provided port is not in the valid range: 80; the range of valid ports is 30000-32767 (the API server's default); for another host port, use a pod's hostPort",
      's.yaml:13 spec.ports[1].name: required when the Service has more than one port (a DNS-1123 label such as http)',
      's.yaml:14 spec.ports[1].targetPort: must be a port number 1-65535 or a container port name (IANA_SVC_NAME), and as a name it must contain at least one letter (a number must be written without quotes)',
    ]);
  });

  it('reads Services in a List and across documents, in input order', () => {
    const list = `apiVersion: v1\nkind: List\nitems:\n- ${headless.trimEnd().split('\n').join('\n  ')}\n- ${edit(myService, 'my-service', 'second').trimEnd().split('\n').join('\n  ')}\n`;
    const text = `${list}---\n${edit(myService, 'my-service', 'third')}`;
    const r = parse(text);
    assert.deepEqual(r.problems.map(formatProblem), []);
    assert.deepEqual(
      r.services.map((s) => `${s.namespace}/${s.name}@${s.line}`),
      ['default/nginx@4', 'default/second@17', 'default/third@29'],
    );
  });

  it('refuses a Service defined twice in one namespace, and keeps the first', () => {
    const r = parse(`${myService}---\n${edit(myService, 'port: 80', 'port: 81')}`);
    assert.deepEqual(r.problems.map(formatProblem), ['s.yaml:16 metadata.name: Service default/my-service is already defined at s.yaml:1']);
    assert.deepEqual(
      r.services.map((s) => s.ports[0]?.port),
      [80],
    );
    // In another namespace it is another Service.
    assert.deepEqual(problems(`${myService}---\n${edit(myService, 'name: my-service', 'name: my-service\n  namespace: other')}`), []);
  });

  it('refuses a nodePort two Services use, whatever the protocols', () => {
    const other = edit(edit(nodePort, 'name: my-service', 'name: other'), '    - port: 80\n', '    - port: 53\n      protocol: UDP\n');
    assert.deepEqual(problems(`${nodePort}---\n${other}`), [
      's.yaml:36 spec.ports[0].nodePort: nodePort 30007 is already used by Service default/my-service (s.yaml:1, spec.ports[0].nodePort); choose another, or leave it out for runpod to choose',
    ]);
  });

  it("refuses a nodePort a pod's hostPort binds", () => {
    const pod = 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: busybox:1.36\n    ports: [{containerPort: 80, hostPort: 30007}]\n';
    assert.deepEqual(problems(`${pod}---\n${nodePort}`), [
      's.yaml:26 spec.ports[0].nodePort: nodePort 30007/TCP is already used as a host port by pod default/p (s.yaml:1); choose another, or leave it out for runpod to choose',
    ]);
  });

  it('--skip-kind Service skips Services, with a warning', () => {
    const r = parseManifests([{ source: { file: 's.yaml' }, text: myService }], { ...options, skipKinds: ['Service'] });
    assert.deepEqual(r.services, []);
    assert.deepEqual(
      r.warnings.map((w) => w.message),
      ['Service my-service skipped: skipped as asked (--skip-kind)'],
    );
  });
});

describe('Service: loadManifests', () => {
  let root = '';
  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'runpod-svc-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('reads Services from a directory and from stdin, in input order', async () => {
    const dir = path.join(root, 'k8s');
    await mkdir(dir);
    await writeFile(path.join(dir, 'a.yaml'), edit(myService, 'my-service', 'alpha'));
    await writeFile(path.join(dir, 'b.yaml'), edit(myService, 'my-service', 'beta'));
    const r = await loadManifests([dir, '-'], options, async () => edit(headless, 'name: nginx', 'name: gamma'));
    assert.deepEqual(
      r.services.map((s) => `${path.basename(s.file)}/${s.name}`),
      ['a.yaml/alpha', 'b.yaml/beta', '<stdin>/gamma'],
    );
    assert.deepEqual(r.pods, []);
  });
});
