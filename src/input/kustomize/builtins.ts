// kustomize's built-in field specs (api/internal/konfig/builtinpluginconsts): where common labels and
// annotations go, where a name may be referred to, which fields hold images and replicas. The facts are
// kustomize v5's; the tables are written here in runpod's own form.

import type { FieldSpec } from './fieldSpec.js';
import type { GvkSelector } from './gvk.js';

/** metadata.labels of every object, and the pod templates' labels of the workload kinds. */
const metadataLabels: FieldSpec[] = [
  { path: 'metadata/labels', create: true },
  { path: 'spec/template/metadata/labels', create: true, version: 'v1', kind: 'ReplicationController' },
  { path: 'spec/template/metadata/labels', create: true, kind: 'Deployment' },
  { path: 'spec/template/metadata/labels', create: true, kind: 'ReplicaSet' },
  { path: 'spec/template/metadata/labels', create: true, kind: 'DaemonSet' },
  { path: 'spec/template/metadata/labels', create: true, group: 'apps', kind: 'StatefulSet' },
  // kustomize v5.5 (api v0.18) labels a StatefulSet's claim templates with its templates; later versions moved this
  // behind labels' includeVolumeClaimTemplates.
  { path: 'spec/volumeClaimTemplates[]/metadata/labels', create: true, group: 'apps', kind: 'StatefulSet' },
  { path: 'spec/template/metadata/labels', create: true, group: 'batch', kind: 'Job' },
  { path: 'spec/jobTemplate/metadata/labels', create: true, group: 'batch', kind: 'CronJob' },
  { path: 'spec/jobTemplate/spec/template/metadata/labels', create: true, group: 'batch', kind: 'CronJob' },
];

export const volumeClaimTemplateLabels: FieldSpec[] = [{ path: 'spec/volumeClaimTemplates[]/metadata/labels', create: true, group: 'apps', kind: 'StatefulSet' }];

/** labels' includeTemplates: the metadata labels and the templates'. */
export const templateLabels: FieldSpec[] = metadataLabels;

const affinity = (group: string, kind: string): FieldSpec[] =>
  [
    'spec/template/spec/affinity/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels',
    'spec/template/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels',
    'spec/template/spec/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels',
    'spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels',
    'spec/template/spec/topologySpreadConstraints/labelSelector/matchLabels',
  ].map((path) => ({ path, create: false, group, kind }));

/** commonLabels (and labels with includeSelectors): selectors too, so a workload keeps selecting its pods. */
export const commonLabels: FieldSpec[] = [
  { path: 'spec/selector', create: true, version: 'v1', kind: 'Service' },
  { path: 'spec/selector', create: true, version: 'v1', kind: 'ReplicationController' },
  { path: 'spec/selector/matchLabels', create: true, kind: 'Deployment' },
  ...affinity('apps', 'Deployment'),
  { path: 'spec/selector/matchLabels', create: true, kind: 'ReplicaSet' },
  { path: 'spec/selector/matchLabels', create: true, kind: 'DaemonSet' },
  { path: 'spec/selector/matchLabels', create: true, group: 'apps', kind: 'StatefulSet' },
  ...affinity('apps', 'StatefulSet'),
  { path: 'spec/selector/matchLabels', create: false, group: 'batch', kind: 'Job' },
  { path: 'spec/jobTemplate/spec/selector/matchLabels', create: false, group: 'batch', kind: 'CronJob' },
  { path: 'spec/selector/matchLabels', create: false, group: 'policy', kind: 'PodDisruptionBudget' },
  { path: 'spec/podSelector/matchLabels', create: false, group: 'networking.k8s.io', kind: 'NetworkPolicy' },
  { path: 'spec/ingress/from/podSelector/matchLabels', create: false, group: 'networking.k8s.io', kind: 'NetworkPolicy' },
  { path: 'spec/egress/to/podSelector/matchLabels', create: false, group: 'networking.k8s.io', kind: 'NetworkPolicy' },
  ...metadataLabels,
];

export const commonAnnotations: FieldSpec[] = [
  { path: 'metadata/annotations', create: true },
  { path: 'spec/template/metadata/annotations', create: true, version: 'v1', kind: 'ReplicationController' },
  { path: 'spec/template/metadata/annotations', create: true, kind: 'Deployment' },
  { path: 'spec/template/metadata/annotations', create: true, kind: 'ReplicaSet' },
  { path: 'spec/template/metadata/annotations', create: true, kind: 'DaemonSet' },
  { path: 'spec/template/metadata/annotations', create: true, kind: 'StatefulSet' },
  { path: 'spec/template/metadata/annotations', create: true, group: 'batch', kind: 'Job' },
  { path: 'spec/jobTemplate/metadata/annotations', create: true, group: 'batch', kind: 'CronJob' },
  { path: 'spec/jobTemplate/spec/template/metadata/annotations', create: true, group: 'batch', kind: 'CronJob' },
];

/** Besides metadata.namespace: fields that hold the namespace of the object's own things. */
export const namespaceSpecs: FieldSpec[] = [
  { path: 'metadata/name', kind: 'Namespace', create: true },
  { path: 'spec/service/namespace', group: 'apiregistration.k8s.io', kind: 'APIService', create: true },
  { path: 'spec/conversion/webhook/clientConfig/service/namespace', group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' },
];

export const replicaSpecs: FieldSpec[] = ['Deployment', 'ReplicationController', 'ReplicaSet', 'StatefulSet'].map((kind) => ({ path: 'spec/replicas', create: true, kind }));

/**
 * The images field specs, applied after the containers found anywhere (so a pod's or a template's containers are
 * changed twice, which only a tagSuffix shows: kustomize v5.5 appends it twice there).
 */
export const imageSpecs: FieldSpec[] = [
  { path: 'spec/containers[]/image' },
  { path: 'spec/initContainers[]/image' },
  { path: 'spec/volumes[]/image/reference' },
  { path: 'spec/template/spec/containers[]/image' },
  { path: 'spec/template/spec/initContainers[]/image' },
  { path: 'spec/template/spec/volumes[]/image/reference' },
];

/** Kinds namePrefix and nameSuffix leave alone (PrefixTransformer's skip list). */
export const prefixSkip: GvkSelector[] = [{ kind: 'CustomResourceDefinition' }, { group: 'apiregistration.k8s.io', kind: 'APIService' }, { kind: 'Namespace' }];

export interface NameReference {
  target: GvkSelector;
  referrers: FieldSpec[];
}

const workloadKinds = ['Deployment', 'ReplicaSet', 'DaemonSet', 'StatefulSet', 'Job'];

/** A pod spec's places, under each kind's prefix, for the ConfigMap and Secret references. */
function podSpecRefs(paths: string[], cronPaths: string[], podVersion: boolean): FieldSpec[] {
  return [
    ...paths.map((p) => ({ path: `spec/${p}`, kind: 'Pod', ...(podVersion ? { version: 'v1' } : {}) })),
    ...paths.map((p) => ({ path: `template/spec/${p}`, kind: 'PodTemplate' })),
    ...workloadKinds.flatMap((kind) => paths.map((p) => ({ path: `spec/template/spec/${p}`, kind }))),
    ...cronPaths.map((p) => ({ path: `spec/jobTemplate/spec/template/spec/${p}`, kind: 'CronJob' })),
  ];
}

const configMapPaths = [
  'volumes/configMap/name',
  'containers/env/valueFrom/configMapKeyRef/name',
  'initContainers/env/valueFrom/configMapKeyRef/name',
  'containers/envFrom/configMapRef/name',
  'initContainers/envFrom/configMapRef/name',
  'volumes/projected/sources/configMap/name',
];
const secretPaths = [
  'volumes/secret/secretName',
  'containers/env/valueFrom/secretKeyRef/name',
  'initContainers/env/valueFrom/secretKeyRef/name',
  'containers/envFrom/secretRef/name',
  'initContainers/envFrom/secretRef/name',
  'imagePullSecrets/name',
  'volumes/projected/sources/secret/name',
];
const templated = (leaf: string): FieldSpec[] => [
  { path: `spec/${leaf}`, kind: 'Pod' },
  ...['StatefulSet', 'Deployment', 'ReplicationController'].map((kind) => ({ path: `spec/template/spec/${leaf}`, kind })),
  { path: `spec/jobTemplate/spec/template/spec/${leaf}`, kind: 'CronJob' },
  ...['Job', 'DaemonSet'].map((kind) => ({ path: `spec/template/spec/${leaf}`, kind })),
];

/** Where an object of each kind may be named by another (the nameReference table). */
export const nameReferences: NameReference[] = [
  ...['Deployment', 'ReplicationController', 'ReplicaSet', 'StatefulSet'].map((kind) => ({
    target: { kind },
    referrers: [{ path: 'spec/scaleTargetRef/name', kind: 'HorizontalPodAutoscaler' }],
  })),
  {
    target: { kind: 'ConfigMap', version: 'v1' },
    referrers: [
      ...podSpecRefs(
        configMapPaths,
        [
          'volumes/configMap/name',
          'volumes/projected/sources/configMap/name',
          'containers/env/valueFrom/configMapKeyRef/name',
          'initContainers/env/valueFrom/configMapKeyRef/name',
          'containers/envFrom/configMapRef/name',
          'initContainers/envFrom/configMapRef/name',
        ],
        true,
      ),
      { path: 'spec/configSource/configMap', kind: 'Node' },
      { path: 'rules/resourceNames', kind: 'Role' },
      { path: 'rules/resourceNames', kind: 'ClusterRole' },
      { path: 'metadata/annotations/nginx.ingress.kubernetes.io\\/fastcgi-params-configmap', kind: 'Ingress' },
    ],
  },
  {
    target: { kind: 'Secret', version: 'v1' },
    referrers: [
      ...podSpecRefs(
        secretPaths,
        [
          'volumes/secret/secretName',
          'volumes/projected/sources/secret/name',
          'containers/env/valueFrom/secretKeyRef/name',
          'initContainers/env/valueFrom/secretKeyRef/name',
          'containers/envFrom/secretRef/name',
          'initContainers/envFrom/secretRef/name',
          'imagePullSecrets/name',
        ],
        true,
      ),
      { path: 'spec/tls/secretName', kind: 'Ingress' },
      { path: 'metadata/annotations/ingress.kubernetes.io\\/auth-secret', kind: 'Ingress' },
      { path: 'metadata/annotations/nginx.ingress.kubernetes.io\\/auth-secret', kind: 'Ingress' },
      { path: 'metadata/annotations/nginx.ingress.kubernetes.io\\/auth-tls-secret', kind: 'Ingress' },
      { path: 'imagePullSecrets/name', kind: 'ServiceAccount' },
      { path: 'parameters/secretName', kind: 'StorageClass' },
      { path: 'parameters/adminSecretName', kind: 'StorageClass' },
      { path: 'parameters/userSecretName', kind: 'StorageClass' },
      { path: 'parameters/secretRef', kind: 'StorageClass' },
      { path: 'rules/resourceNames', kind: 'Role' },
      { path: 'rules/resourceNames', kind: 'ClusterRole' },
      { path: 'spec/template/spec/containers/env/valueFrom/secretKeyRef/name', kind: 'Service', group: 'serving.knative.dev', version: 'v1' },
      { path: 'spec/azureFile/secretName', kind: 'PersistentVolume' },
    ],
  },
  {
    target: { kind: 'Service', version: 'v1' },
    referrers: [
      { path: 'spec/serviceName', kind: 'StatefulSet', group: 'apps' },
      { path: 'spec/rules/http/paths/backend/serviceName', kind: 'Ingress' },
      { path: 'spec/backend/serviceName', kind: 'Ingress' },
      { path: 'spec/rules/http/paths/backend/service/name', kind: 'Ingress' },
      { path: 'spec/defaultBackend/service/name', kind: 'Ingress' },
      { path: 'spec/service/name', kind: 'APIService', group: 'apiregistration.k8s.io' },
      { path: 'webhooks/clientConfig/service', kind: 'ValidatingWebhookConfiguration', group: 'admissionregistration.k8s.io' },
      { path: 'webhooks/clientConfig/service', kind: 'MutatingWebhookConfiguration', group: 'admissionregistration.k8s.io' },
    ],
  },
  { target: { kind: 'Role', group: 'rbac.authorization.k8s.io' }, referrers: [{ path: 'roleRef/name', kind: 'RoleBinding', group: 'rbac.authorization.k8s.io' }] },
  {
    target: { kind: 'ClusterRole', group: 'rbac.authorization.k8s.io' },
    referrers: [
      { path: 'roleRef/name', kind: 'RoleBinding', group: 'rbac.authorization.k8s.io' },
      { path: 'roleRef/name', kind: 'ClusterRoleBinding', group: 'rbac.authorization.k8s.io' },
    ],
  },
  {
    target: { kind: 'ServiceAccount', version: 'v1' },
    referrers: [
      { path: 'subjects', kind: 'RoleBinding', group: 'rbac.authorization.k8s.io' },
      { path: 'subjects', kind: 'ClusterRoleBinding', group: 'rbac.authorization.k8s.io' },
      ...templated('serviceAccountName'),
    ],
  },
  { target: { kind: 'PersistentVolumeClaim', version: 'v1' }, referrers: templated('volumes/persistentVolumeClaim/claimName') },
  {
    target: { kind: 'PersistentVolume', version: 'v1' },
    referrers: [
      { path: 'spec/volumeName', kind: 'PersistentVolumeClaim' },
      { path: 'rules/resourceNames', kind: 'ClusterRole' },
    ],
  },
  {
    target: { kind: 'StorageClass', version: 'v1', group: 'storage.k8s.io' },
    referrers: [
      { path: 'spec/storageClassName', kind: 'PersistentVolume' },
      { path: 'spec/storageClassName', kind: 'PersistentVolumeClaim' },
      { path: 'spec/volumeClaimTemplates/spec/storageClassName', kind: 'StatefulSet' },
    ],
  },
  { target: { kind: 'PriorityClass', version: 'v1', group: 'scheduling.k8s.io' }, referrers: templated('priorityClassName') },
  // kustomize writes this target's group as "networking.k8s.io/v1", which no object's group is: it never matches.
  { target: { kind: 'IngressClass', version: 'v1', group: 'networking.k8s.io/v1' }, referrers: [{ path: 'spec/ingressClassName', kind: 'Ingress' }] },
  {
    target: { kind: 'ValidatingAdmissionPolicy', group: 'admissionregistration.k8s.io' },
    referrers: [{ path: 'spec/policyName', kind: 'ValidatingAdmissionPolicyBinding', group: 'admissionregistration.k8s.io' }],
  },
];

/** The legacy output order: these kinds first, in this order; the webhooks last; the rest between (gvk.go). */
export const orderFirst = [
  'Namespace',
  'ResourceQuota',
  'StorageClass',
  'CustomResourceDefinition',
  'ServiceAccount',
  'PodSecurityPolicy',
  'Role',
  'ClusterRole',
  'RoleBinding',
  'ClusterRoleBinding',
  'ConfigMap',
  'Secret',
  'Endpoints',
  'Service',
  'LimitRange',
  'PriorityClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'Deployment',
  'StatefulSet',
  'CronJob',
  'PodDisruptionBudget',
];
export const orderLast = ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'];
