// Random mutations of valid Pod manifests, for the property-based tests (fuzz.test.ts in-process, and a handful
// through the CLI in test/engine/bad-input.test.ts): delete, replace, duplicate and rename fields, wrong types,
// random and unicode strings, deep nesting, YAML-only values (.nan, timestamps, aliases) and byte-level damage.
import fc from 'fast-check';
import yaml from 'js-yaml';

/** Valid manifests the mutations start from: between them they use every supported field. */
export const validManifests: readonly string[] = [
  `apiVersion: v1
kind: Pod
metadata:
  name: fuzz-web
  namespace: team-a
  uid: 0b7c4e2a-1111-4d3e-9f00-aaaaaaaaaaaa
  labels: {app: web, tier: front}
  annotations: {example.com/owner: someone}
spec:
  restartPolicy: OnFailure
  terminationGracePeriodSeconds: 5
  hostname: web-host
  enableServiceLinks: false
  serviceAccountName: default
  nodeSelector: {disk: ssd}
  containers:
  - name: web
    image: busybox:1.36
    imagePullPolicy: IfNotPresent
    command: ["sh", "-c"]
    args: ["echo $(GREETING) && sleep 3600"]
    workingDir: /tmp
    env:
    - {name: GREETING, value: hello}
    - {name: TWICE, value: "$(GREETING) $(GREETING)"}
    ports:
    - {name: http, containerPort: 80, hostPort: 18080, hostIP: 127.0.0.1, protocol: TCP}
    - {containerPort: 53, protocol: UDP}
    resources:
      limits: {cpu: 500m, memory: 128Mi}
      requests: {cpu: 250m, memory: 64Mi}
    tty: false
    stdin: false
    stdinOnce: false
  - name: sidecar
    image: busybox
`,
  `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: fuzz-one}
  spec:
    containers: [{name: a, image: busybox, ports: [{containerPort: 8080, hostPort: 18081}]}]
- apiVersion: v1
  kind: Pod
  metadata: {name: fuzz-two}
  spec:
    restartPolicy: Never
    containers: [{name: b, image: "registry.example:5000/x/y@sha256:${'a'.repeat(64)}", resources: {limits: {memory: 1G}}}]
`,
  `apiVersion: v1
kind: Pod
metadata:
  name: fuzz-served
  labels: {app: fuzz}
spec:
  containers:
  - name: web
    image: nginx:1.27
    ports: [{name: http, containerPort: 80}, {name: dns, containerPort: 53, protocol: UDP}]
---
apiVersion: v1
kind: Service
metadata:
  name: fuzz-svc
spec:
  type: NodePort
  selector: {app: fuzz}
  sessionAffinity: ClientIP
  sessionAffinityConfig: {clientIP: {timeoutSeconds: 60}}
  ports:
  - {name: http, port: 80, targetPort: http, nodePort: 30080}
  - {name: dns, port: 53, protocol: UDP, targetPort: dns}
`,
  `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "fuzz-json"},
 "spec": {"containers": [{"name": "j", "image": "busybox", "env": [{"name": "A", "value": "1"}]}]}}
`,
];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const weirdKeys = ['__proto__', 'constructor', 'prototype', '<<', '', ' ', 'name', 'image', 'containers', 'spec', 'metadata', 'ünïcödé', '🚀', 'a.b/c', '-', '0'];

const key = fc.oneof(fc.constantFrom(...weirdKeys), fc.string({ maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 8 }));

const scalar: fc.Arbitrary<Json> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -70000, max: 70000 }),
  fc.constantFrom(0, -1, 1, 65535, 65536, 2 ** 31, 2 ** 53, -(2 ** 63), 1e300, 0.5, -0.0),
  fc.double(),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 10 }),
  fc.constantFrom('', ' ', 'busybox', 'Always', 'TCP', 'v1', 'Pod', 'List', '128Mi', '500m', '-1', '1e3', '0x1F', '$(A)', '$$', '127.0.0.1', '::1', 'a'.repeat(300)),
);

const value: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(key, tie('v'), { maxKeys: 4 })),
})).v;

/** A YAML-only value, written as text: what JSON cannot express and js-yaml builds as something else. */
const yamlOnly = fc.constantFrom(
  '.nan',
  '.inf',
  '-.inf',
  '2024-01-31',
  '2024-01-31T12:00:00Z',
  '!!binary aGVsbG8=',
  '0o17',
  '~',
  'yes',
  'NO',
  '!!set {a, b}',
  '!!omap [a: 1]',
  '!!pairs [a: 1]',
  '[*x]',
  '&x [1]',
);

export type Mutation =
  | { op: 'delete'; at: number }
  | { op: 'replace'; at: number; value: Json }
  | { op: 'duplicate'; at: number }
  | { op: 'addKey'; at: number; key: string; value: Json }
  | { op: 'nest'; at: number; depth: number; asList: boolean }
  | { op: 'yamlValue'; at: number; text: string };

// Weighted towards small, plausible damage, so that a good share of cases still validate and go on to be planned.
export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('delete' as const), at: fc.nat() }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('replace' as const), at: fc.nat(), value: scalar }), weight: 4 },
  { arbitrary: fc.record({ op: fc.constant('replace' as const), at: fc.nat(), value }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('duplicate' as const), at: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('addKey' as const), at: fc.nat(), key, value }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('nest' as const), at: fc.nat(), depth: fc.integer({ min: 1, max: 120 }), asList: fc.boolean() }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('yamlValue' as const), at: fc.nat(), text: yamlOnly }), weight: 1 },
);

/** Damage to the text after it is written: insert, delete or overwrite a few characters. */
export type TextEdit = { at: number; remove: number; insert: string };
export const textEdit: fc.Arbitrary<TextEdit> = fc.record({
  at: fc.nat(),
  remove: fc.integer({ min: 0, max: 3 }),
  insert: fc.oneof(
    fc.string({ maxLength: 3 }),
    fc.constantFrom(':', '- ', '\n', '\t', '{', '[', '&a ', '*a', '"', "'", '#', '---\n', '? ', '|', '>', '%YAML 1.1\n', '\u0000', '\uFEFF'),
  ),
});

export interface Case {
  base: number;
  mutations: Mutation[];
  format: 'yaml' | 'json' | 'flow';
  edits: TextEdit[];
}

export const fuzzCase: fc.Arbitrary<Case> = fc.record({
  base: fc.nat({ max: validManifests.length - 1 }),
  mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
  format: fc.constantFrom('yaml' as const, 'json' as const, 'flow' as const),
  edits: fc.oneof({ arbitrary: fc.constant<TextEdit[]>([]), weight: 4 }, { arbitrary: fc.array(textEdit, { minLength: 1, maxLength: 3 }), weight: 1 }),
});

type Slot = { parent: Json[] | { [key: string]: Json }; key: string | number };

/** Every place a value sits in the tree, depth first. */
function slots(root: Json): Slot[] {
  const out: Slot[] = [];
  const walk = (node: Json): void => {
    if (Array.isArray(node)) {
      node.forEach((child, i) => {
        out.push({ parent: node, key: i });
        walk(child);
      });
    } else if (node !== null && typeof node === 'object') {
      for (const k of Object.keys(node)) {
        out.push({ parent: node, key: k });
        walk(node[k]!);
      }
    }
  };
  walk(root);
  return out;
}

const yamlMarker = (i: number): string => `@@yaml-${i}@@`;

function setAt(slot: Slot, v: Json): void {
  if (Array.isArray(slot.parent)) slot.parent[slot.key as number] = v;
  else Object.defineProperty(slot.parent, slot.key, { value: v, enumerable: true, writable: true, configurable: true });
}

function getAt(slot: Slot): Json {
  return Array.isArray(slot.parent) ? slot.parent[slot.key as number]! : slot.parent[slot.key as string]!;
}

/** Apply a case to its base manifest and write it out as text. */
export function render(c: Case): string {
  const docs = yaml.loadAll(validManifests[c.base]!) as Json[];
  const yamlTexts: string[] = [];
  for (const m of c.mutations) {
    const all = docs.flatMap((d) => slots(d));
    if (all.length === 0) break;
    const slot = all[m.at % all.length]!;
    const current = getAt(slot);
    switch (m.op) {
      case 'delete':
        if (Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1);
        else delete slot.parent[slot.key as string];
        break;
      case 'replace':
        setAt(slot, m.value);
        break;
      case 'duplicate':
        if (Array.isArray(slot.parent)) slot.parent.push(structuredClone(current));
        else setAt({ parent: slot.parent, key: `${String(slot.key)}-copy` }, structuredClone(current));
        break;
      case 'addKey': {
        const target = current !== null && typeof current === 'object' && !Array.isArray(current) ? current : slot.parent;
        if (Array.isArray(target)) target.push({ [m.key]: m.value });
        else setAt({ parent: target, key: m.key }, m.value);
        break;
      }
      case 'nest': {
        let v: Json = current;
        for (let i = 0; i < m.depth; i++) v = m.asList ? [v] : { n: v };
        setAt(slot, v);
        break;
      }
      case 'yamlValue':
        yamlTexts.push(m.text);
        setAt(slot, yamlMarker(yamlTexts.length - 1));
        break;
    }
  }
  let text: string;
  if (c.format === 'json') text = docs.map((d) => JSON.stringify(d, null, 1)).join('\n---\n');
  else text = docs.map((d) => yaml.dump(d, { flowLevel: c.format === 'flow' ? 2 : -1, lineWidth: -1, noRefs: true })).join('---\n');
  yamlTexts.forEach((t, i) => {
    text = text
      .split(JSON.stringify(yamlMarker(i)))
      .join(t)
      .split(yamlMarker(i))
      .join(t);
  });
  for (const e of c.edits) {
    const at = text.length === 0 ? 0 : e.at % (text.length + 1);
    text = text.slice(0, at) + e.insert + text.slice(at + e.remove);
  }
  return text;
}
