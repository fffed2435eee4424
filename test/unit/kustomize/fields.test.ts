// Table tests, one kustomization field at a time: the input files and exactly what `kubectl kustomize` (kustomize
// v5.5) printed for them, hash suffixes included. The expected texts were made with kubectl once; this test needs
// no kubectl. The rendering reads the files through an in-memory io, as every caller passes its I/O in.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { printDocuments } from '../../../src/input/kustomize/print.js';
import { renderKustomization } from '../../../src/input/kustomize/render.js';
import { memoryIo } from './memoryIo.js';

interface Case {
  name: string;
  files: Record<string, string>;
  expected: string;
}

const cases: Case[] = [
  {
    name: 'namespace',
    files: {
      'kustomization.yaml': 'namespace: team-a\nresources: [app.yaml]\n',
      'app.yaml':
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n        envFrom:\n        - configMapRef:\n            name: cfg\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector:\n    app: web\n  ports:\n  - port: 80\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: old\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: rb\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}\nsubjects:\n- {kind: ServiceAccount, name: default, namespace: x}\n- {kind: ServiceAccount, name: other, namespace: x}\n',
    },
    expected:
      'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: rb\n  namespace: team-a\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: view\nsubjects:\n- kind: ServiceAccount\n  name: default\n  namespace: team-a\n- kind: ServiceAccount\n  name: other\n  namespace: x\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: team-a\nspec:\n  ports:\n  - port: 80\n  selector:\n    app: web\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: team-a\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - envFrom:\n        - configMapRef:\n            name: cfg\n        image: nginx:1.25\n        name: web\n',
  },
  {
    name: 'namePrefix and nameSuffix',
    files: {
      'kustomization.yaml': 'namePrefix: a-\nnameSuffix: -z\nresources: [app.yaml]\nconfigMapGenerator:\n- name: cfg\n  literals: [K=v]\n',
      'app.yaml':
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n        envFrom:\n        - configMapRef:\n            name: cfg\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector:\n    app: web\n  ports:\n  - port: 80\n',
    },
    expected:
      'apiVersion: v1\ndata:\n  K: v\nkind: ConfigMap\nmetadata:\n  name: a-cfg-z-276ch85d82\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: a-web-z\nspec:\n  ports:\n  - port: 80\n  selector:\n    app: web\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a-web-z\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - envFrom:\n        - configMapRef:\n            name: a-cfg-z-276ch85d82\n        image: nginx:1.25\n        name: web\n',
  },
  {
    name: 'commonLabels',
    files: {
      'kustomization.yaml': 'commonLabels:\n  env: ci\nresources: [app.yaml]\n',
      'app.yaml':
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n        envFrom:\n        - configMapRef:\n            name: cfg\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector:\n    app: web\n  ports:\n  - port: 80\n',
    },
    expected:
      'apiVersion: v1\nkind: Service\nmetadata:\n  labels:\n    env: ci\n  name: web\nspec:\n  ports:\n  - port: 80\n  selector:\n    app: web\n    env: ci\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels:\n    env: ci\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n      env: ci\n  template:\n    metadata:\n      labels:\n        app: web\n        env: ci\n    spec:\n      containers:\n      - envFrom:\n        - configMapRef:\n            name: cfg\n        image: nginx:1.25\n        name: web\n',
  },
  {
    name: 'labels without selectors',
    files: {
      'kustomization.yaml': 'labels:\n- pairs: {env: ci}\nresources: [app.yaml]\n',
      'app.yaml':
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n        envFrom:\n        - configMapRef:\n            name: cfg\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector:\n    app: web\n  ports:\n  - port: 80\n',
    },
    expected:
      'apiVersion: v1\nkind: Service\nmetadata:\n  labels:\n    env: ci\n  name: web\nspec:\n  ports:\n  - port: 80\n  selector:\n    app: web\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels:\n    env: ci\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - envFrom:\n        - configMapRef:\n            name: cfg\n        image: nginx:1.25\n        name: web\n',
  },
  {
    name: 'labels includeTemplates',
    files: {
      'kustomization.yaml': 'labels:\n- pairs: {env: ci}\n  includeTemplates: true\nresources: [app.yaml]\n',
      'app.yaml':
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n        envFrom:\n        - configMapRef:\n            name: cfg\n',
    },
    expected:
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels:\n    env: ci\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n        env: ci\n    spec:\n      containers:\n      - envFrom:\n        - configMapRef:\n            name: cfg\n        image: nginx:1.25\n        name: web\n',
  },
  {
    name: 'labels includeSelectors',
    files: {
      'kustomization.yaml': 'labels:\n- pairs: {env: ci}\n  includeSelectors: true\nresources: [app.yaml]\n',
      'app.yaml':
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n        envFrom:\n        - configMapRef:\n            name: cfg\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector:\n    app: web\n  ports:\n  - port: 80\n',
    },
    expected:
      'apiVersion: v1\nkind: Service\nmetadata:\n  labels:\n    env: ci\n  name: web\nspec:\n  ports:\n  - port: 80\n  selector:\n    app: web\n    env: ci\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels:\n    env: ci\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n      env: ci\n  template:\n    metadata:\n      labels:\n        app: web\n        env: ci\n    spec:\n      containers:\n      - envFrom:\n        - configMapRef:\n            name: cfg\n        image: nginx:1.25\n        name: web\n',
  },
  {
    name: 'commonAnnotations',
    files: {
      'kustomization.yaml': 'commonAnnotations:\n  a.example.com/x: "1"\nresources: [app.yaml]\n',
      'app.yaml':
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n        envFrom:\n        - configMapRef:\n            name: cfg\n',
    },
    expected:
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  annotations:\n    a.example.com/x: "1"\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      annotations:\n        a.example.com/x: "1"\n      labels:\n        app: web\n    spec:\n      containers:\n      - envFrom:\n        - configMapRef:\n            name: cfg\n        image: nginx:1.25\n        name: web\n',
  },
  {
    name: 'images',
    files: {
      'kustomization.yaml': 'images:\n- name: nginx\n  newName: mirror/nginx\n  newTag: "1.27"\nresources: [app.yaml]\n',
      'app.yaml':
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n        envFrom:\n        - configMapRef:\n            name: cfg\n',
    },
    expected:
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - envFrom:\n        - configMapRef:\n            name: cfg\n        image: mirror/nginx:1.27\n        name: web\n',
  },
  {
    name: 'images digest',
    files: {
      'kustomization.yaml': 'images:\n- name: nginx\n  digest: sha256:0000000000000000000000000000000000000000000000000000000000000001\nresources: [app.yaml]\n',
      'app.yaml':
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n        envFrom:\n        - configMapRef:\n            name: cfg\n',
    },
    expected:
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - envFrom:\n        - configMapRef:\n            name: cfg\n        image: nginx@sha256:0000000000000000000000000000000000000000000000000000000000000001\n        name: web\n',
  },
  {
    name: 'replicas',
    files: {
      'kustomization.yaml': 'replicas:\n- name: web\n  count: 3\nresources: [app.yaml]\n',
      'app.yaml':
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n        envFrom:\n        - configMapRef:\n            name: cfg\n',
    },
    expected:
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - envFrom:\n        - configMapRef:\n            name: cfg\n        image: nginx:1.25\n        name: web\n',
  },
  {
    name: 'configMapGenerator literals',
    files: {
      'kustomization.yaml': 'configMapGenerator:\n- name: cfg\n  literals: [B=2, A=1, "Q=\'x y\'"]\n',
    },
    expected: 'apiVersion: v1\ndata:\n  A: "1"\n  B: "2"\n  Q: x y\nkind: ConfigMap\nmetadata:\n  name: cfg-fgtdd25hm7\n',
  },
  {
    name: 'configMapGenerator files and envs',
    files: {
      'kustomization.yaml': 'configMapGenerator:\n- name: cfg\n  files: [app.properties, key.txt=other.txt]\n  envs: [vars.env]\n',
      'app.properties': 'a=b\n',
      'other.txt': 'text',
      'vars.env': 'X=1\n# c\nY=two words\n',
    },
    expected: 'apiVersion: v1\ndata:\n  X: "1"\n  "Y": two words\n  app.properties: |\n    a=b\n  key.txt: text\nkind: ConfigMap\nmetadata:\n  name: cfg-c84hg568hk\n',
  },
  {
    name: 'secretGenerator',
    files: {
      'kustomization.yaml':
        'secretGenerator:\n- name: sec\n  type: Opaque\n  literals: [password=s3cret]\n- name: basic\n  type: kubernetes.io/basic-auth\n  literals: [username=admin, password=pw]\n',
    },
    expected:
      'apiVersion: v1\ndata:\n  password: cHc=\n  username: YWRtaW4=\nkind: Secret\nmetadata:\n  name: basic-2gh6fgtfgd\ntype: kubernetes.io/basic-auth\n---\napiVersion: v1\ndata:\n  password: czNjcmV0\nkind: Secret\nmetadata:\n  name: sec-bf5fk5d75b\ntype: Opaque\n',
  },
  {
    name: 'generatorOptions',
    files: {
      'kustomization.yaml':
        'generatorOptions:\n  labels: {gen: "yes"}\n  annotations: {a: b}\n  disableNameSuffixHash: true\nconfigMapGenerator:\n- name: cfg\n  literals: [K=v]\n  options:\n    labels: {own: label}\n    immutable: true\n',
    },
    expected: 'apiVersion: v1\ndata:\n  K: v\nimmutable: true\nkind: ConfigMap\nmetadata:\n  annotations:\n    a: b\n  labels:\n    gen: "yes"\n    own: label\n  name: cfg\n',
  },
  {
    name: 'generator name referenced',
    files: {
      'kustomization.yaml': 'resources: [app.yaml]\nconfigMapGenerator:\n- name: cfg\n  literals: [K=v]\n',
      'app.yaml':
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n        envFrom:\n        - configMapRef:\n            name: cfg\n',
    },
    expected:
      'apiVersion: v1\ndata:\n  K: v\nkind: ConfigMap\nmetadata:\n  name: cfg-276ch85d82\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - envFrom:\n        - configMapRef:\n            name: cfg-276ch85d82\n        image: nginx:1.25\n        name: web\n',
  },
  {
    name: 'bases and overlay merge',
    files: {
      'base/kustomization.yaml': 'resources: [app.yaml]\nconfigMapGenerator:\n- name: cfg\n  literals: [K=base, L=base]\n',
      'base/app.yaml':
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n        envFrom:\n        - configMapRef:\n            name: cfg\n',
      'kustomization.yaml': 'resources: [base]\nnamePrefix: ov-\nconfigMapGenerator:\n- name: cfg\n  behavior: merge\n  literals: [K=overlay]\n',
    },
    expected:
      'apiVersion: v1\ndata:\n  K: overlay\n  L: base\nkind: ConfigMap\nmetadata:\n  name: ov-cfg-gk96hh5h67\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ov-web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - envFrom:\n        - configMapRef:\n            name: ov-cfg-gk96hh5h67\n        image: nginx:1.25\n        name: web\n',
  },
  {
    name: 'behavior replace',
    files: {
      'base/kustomization.yaml': 'configMapGenerator:\n- name: cfg\n  literals: [K=base, L=base]\n',
      'kustomization.yaml': 'resources: [base]\nconfigMapGenerator:\n- name: cfg\n  behavior: replace\n  literals: [M=new]\n',
    },
    expected: 'apiVersion: v1\ndata:\n  M: new\nkind: ConfigMap\nmetadata:\n  name: cfg-kmhdgdb25k\n',
  },
  {
    name: 'components',
    files: {
      'comp/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonLabels: {feature: x}\n',
      'kustomization.yaml': 'resources: [app.yaml]\ncomponents: [comp]\n',
      'app.yaml': 'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector:\n    app: web\n  ports:\n  - port: 80\n',
    },
    expected: 'apiVersion: v1\nkind: Service\nmetadata:\n  labels:\n    feature: x\n  name: web\nspec:\n  ports:\n  - port: 80\n  selector:\n    app: web\n    feature: x\n',
  },
  {
    name: 'legacy order',
    files: {
      'kustomization.yaml': 'resources: [app.yaml]\n',
      'app.yaml':
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n        envFrom:\n        - configMapRef:\n            name: cfg\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector:\n    app: web\n  ports:\n  - port: 80\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: n}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n',
    },
    expected:
      'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: "n"\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n  selector:\n    app: web\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - envFrom:\n        - configMapRef:\n            name: cfg\n        image: nginx:1.25\n        name: web\n',
  },
];

describe('kustomize fields, as kubectl kustomize renders them', () => {
  for (const c of cases) {
    it(c.name, () => {
      const out = printDocuments(renderKustomization('/k', memoryIo('/k', c.files)).map((r) => r.object));
      assert.equal(out, c.expected);
    });
  }
});
