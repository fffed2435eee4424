// The patch strategies and merge keys kustomize's strategic merge uses, per API type: the x-kubernetes-patch-strategy,
// x-kubernetes-patch-merge-key and x-kubernetes-list-map-keys of the Kubernetes v1.21.2 OpenAPI document, which
// kustomize v5 embeds as its default schema (kyaml/openapi, DefaultOpenAPI "v1.21.2"); those extensions come from
// the patchStrategy/patchMergeKey struct tags of the API types. Only the types through which a list with a patch
// strategy can be reached are listed: every other field has no strategy, and kustomize treats it the same way.
//
// Encoding, one type a line: `field=K:TYPE:STRATEGY:KEYS` with K `o` (object of TYPE), `l` (list of TYPE, or of
// scalars/unlisted objects when TYPE is empty) or `m` (map whose values are TYPE); KEYS comma-separated (the
// list-map keys when the document gives them, else the merge key, as kyaml's PatchStrategyAndKeyList picks).

/** The schema of one value, as the merge walks it. */
export type FieldSchema = { kind: 'object'; type: string } | { kind: 'list'; item: string; strategy: string; keys: string[] } | { kind: 'map'; value: string };

const TYPES: Record<string, string> = {
  'admissionregistration.v1.MutatingWebhook': 'namespaceSelector=o:meta.v1.LabelSelector objectSelector=o:meta.v1.LabelSelector',
  'admissionregistration.v1.MutatingWebhookConfiguration': 'metadata=o:meta.v1.ObjectMeta webhooks=l:admissionregistration.v1.MutatingWebhook:merge:name',
  'admissionregistration.v1.ValidatingWebhook': 'namespaceSelector=o:meta.v1.LabelSelector objectSelector=o:meta.v1.LabelSelector',
  'admissionregistration.v1.ValidatingWebhookConfiguration': 'metadata=o:meta.v1.ObjectMeta webhooks=l:admissionregistration.v1.ValidatingWebhook:merge:name',
  'admissionregistration.v1beta1.MutatingWebhook': 'namespaceSelector=o:meta.v1.LabelSelector objectSelector=o:meta.v1.LabelSelector',
  'admissionregistration.v1beta1.MutatingWebhookConfiguration': 'metadata=o:meta.v1.ObjectMeta webhooks=l:admissionregistration.v1beta1.MutatingWebhook:merge:name',
  'admissionregistration.v1beta1.ValidatingWebhook': 'namespaceSelector=o:meta.v1.LabelSelector objectSelector=o:meta.v1.LabelSelector',
  'admissionregistration.v1beta1.ValidatingWebhookConfiguration': 'metadata=o:meta.v1.ObjectMeta webhooks=l:admissionregistration.v1beta1.ValidatingWebhook:merge:name',
  'apps.v1.ControllerRevision': 'metadata=o:meta.v1.ObjectMeta',
  'apps.v1.DaemonSet': 'metadata=o:meta.v1.ObjectMeta spec=o:apps.v1.DaemonSetSpec status=o:apps.v1.DaemonSetStatus',
  'apps.v1.DaemonSetSpec': 'selector=o:meta.v1.LabelSelector template=o:core.v1.PodTemplateSpec',
  'apps.v1.DaemonSetStatus': 'conditions=l::merge:type',
  'apps.v1.Deployment': 'metadata=o:meta.v1.ObjectMeta spec=o:apps.v1.DeploymentSpec status=o:apps.v1.DeploymentStatus',
  'apps.v1.DeploymentSpec': 'selector=o:meta.v1.LabelSelector strategy=o::retainKeys template=o:core.v1.PodTemplateSpec',
  'apps.v1.DeploymentStatus': 'conditions=l::merge:type',
  'apps.v1.ReplicaSet': 'metadata=o:meta.v1.ObjectMeta spec=o:apps.v1.ReplicaSetSpec status=o:apps.v1.ReplicaSetStatus',
  'apps.v1.ReplicaSetSpec': 'selector=o:meta.v1.LabelSelector template=o:core.v1.PodTemplateSpec',
  'apps.v1.ReplicaSetStatus': 'conditions=l::merge:type',
  'apps.v1.StatefulSet': 'metadata=o:meta.v1.ObjectMeta spec=o:apps.v1.StatefulSetSpec status=o:apps.v1.StatefulSetStatus',
  'apps.v1.StatefulSetSpec': 'selector=o:meta.v1.LabelSelector template=o:core.v1.PodTemplateSpec volumeClaimTemplates=l:core.v1.PersistentVolumeClaim',
  'apps.v1.StatefulSetStatus': 'conditions=l::merge:type',
  'authentication.v1.TokenRequest': 'metadata=o:meta.v1.ObjectMeta',
  'authentication.v1.TokenReview': 'metadata=o:meta.v1.ObjectMeta',
  'authentication.v1beta1.TokenReview': 'metadata=o:meta.v1.ObjectMeta',
  'authorization.v1.LocalSubjectAccessReview': 'metadata=o:meta.v1.ObjectMeta',
  'authorization.v1.SelfSubjectAccessReview': 'metadata=o:meta.v1.ObjectMeta',
  'authorization.v1.SelfSubjectRulesReview': 'metadata=o:meta.v1.ObjectMeta',
  'authorization.v1.SubjectAccessReview': 'metadata=o:meta.v1.ObjectMeta',
  'authorization.v1beta1.LocalSubjectAccessReview': 'metadata=o:meta.v1.ObjectMeta',
  'authorization.v1beta1.SelfSubjectAccessReview': 'metadata=o:meta.v1.ObjectMeta',
  'authorization.v1beta1.SelfSubjectRulesReview': 'metadata=o:meta.v1.ObjectMeta',
  'authorization.v1beta1.SubjectAccessReview': 'metadata=o:meta.v1.ObjectMeta',
  'autoscaling.v1.HorizontalPodAutoscaler': 'metadata=o:meta.v1.ObjectMeta',
  'autoscaling.v1.Scale': 'metadata=o:meta.v1.ObjectMeta',
  'autoscaling.v2beta1.ExternalMetricSource': 'metricSelector=o:meta.v1.LabelSelector',
  'autoscaling.v2beta1.ExternalMetricStatus': 'metricSelector=o:meta.v1.LabelSelector',
  'autoscaling.v2beta1.HorizontalPodAutoscaler':
    'metadata=o:meta.v1.ObjectMeta spec=o:autoscaling.v2beta1.HorizontalPodAutoscalerSpec status=o:autoscaling.v2beta1.HorizontalPodAutoscalerStatus',
  'autoscaling.v2beta1.HorizontalPodAutoscalerSpec': 'metrics=l:autoscaling.v2beta1.MetricSpec',
  'autoscaling.v2beta1.HorizontalPodAutoscalerStatus': 'currentMetrics=l:autoscaling.v2beta1.MetricStatus',
  'autoscaling.v2beta1.MetricSpec':
    'external=o:autoscaling.v2beta1.ExternalMetricSource object=o:autoscaling.v2beta1.ObjectMetricSource pods=o:autoscaling.v2beta1.PodsMetricSource',
  'autoscaling.v2beta1.MetricStatus':
    'external=o:autoscaling.v2beta1.ExternalMetricStatus object=o:autoscaling.v2beta1.ObjectMetricStatus pods=o:autoscaling.v2beta1.PodsMetricStatus',
  'autoscaling.v2beta1.ObjectMetricSource': 'selector=o:meta.v1.LabelSelector',
  'autoscaling.v2beta1.ObjectMetricStatus': 'selector=o:meta.v1.LabelSelector',
  'autoscaling.v2beta1.PodsMetricSource': 'selector=o:meta.v1.LabelSelector',
  'autoscaling.v2beta1.PodsMetricStatus': 'selector=o:meta.v1.LabelSelector',
  'autoscaling.v2beta2.ExternalMetricSource': 'metric=o:autoscaling.v2beta2.MetricIdentifier',
  'autoscaling.v2beta2.ExternalMetricStatus': 'metric=o:autoscaling.v2beta2.MetricIdentifier',
  'autoscaling.v2beta2.HorizontalPodAutoscaler':
    'metadata=o:meta.v1.ObjectMeta spec=o:autoscaling.v2beta2.HorizontalPodAutoscalerSpec status=o:autoscaling.v2beta2.HorizontalPodAutoscalerStatus',
  'autoscaling.v2beta2.HorizontalPodAutoscalerSpec': 'metrics=l:autoscaling.v2beta2.MetricSpec',
  'autoscaling.v2beta2.HorizontalPodAutoscalerStatus': 'currentMetrics=l:autoscaling.v2beta2.MetricStatus',
  'autoscaling.v2beta2.MetricIdentifier': 'selector=o:meta.v1.LabelSelector',
  'autoscaling.v2beta2.MetricSpec':
    'external=o:autoscaling.v2beta2.ExternalMetricSource object=o:autoscaling.v2beta2.ObjectMetricSource pods=o:autoscaling.v2beta2.PodsMetricSource',
  'autoscaling.v2beta2.MetricStatus':
    'external=o:autoscaling.v2beta2.ExternalMetricStatus object=o:autoscaling.v2beta2.ObjectMetricStatus pods=o:autoscaling.v2beta2.PodsMetricStatus',
  'autoscaling.v2beta2.ObjectMetricSource': 'metric=o:autoscaling.v2beta2.MetricIdentifier',
  'autoscaling.v2beta2.ObjectMetricStatus': 'metric=o:autoscaling.v2beta2.MetricIdentifier',
  'autoscaling.v2beta2.PodsMetricSource': 'metric=o:autoscaling.v2beta2.MetricIdentifier',
  'autoscaling.v2beta2.PodsMetricStatus': 'metric=o:autoscaling.v2beta2.MetricIdentifier',
  'batch.v1.CronJob': 'metadata=o:meta.v1.ObjectMeta spec=o:batch.v1.CronJobSpec',
  'batch.v1.CronJobSpec': 'jobTemplate=o:batch.v1.JobTemplateSpec',
  'batch.v1.Job': 'metadata=o:meta.v1.ObjectMeta spec=o:batch.v1.JobSpec status=o:batch.v1.JobStatus',
  'batch.v1.JobSpec': 'selector=o:meta.v1.LabelSelector template=o:core.v1.PodTemplateSpec',
  'batch.v1.JobStatus': 'conditions=l::merge:type',
  'batch.v1.JobTemplateSpec': 'metadata=o:meta.v1.ObjectMeta spec=o:batch.v1.JobSpec',
  'batch.v1beta1.CronJob': 'metadata=o:meta.v1.ObjectMeta spec=o:batch.v1beta1.CronJobSpec',
  'batch.v1beta1.CronJobSpec': 'jobTemplate=o:batch.v1beta1.JobTemplateSpec',
  'batch.v1beta1.JobTemplateSpec': 'metadata=o:meta.v1.ObjectMeta spec=o:batch.v1.JobSpec',
  'certificates.v1.CertificateSigningRequest': 'metadata=o:meta.v1.ObjectMeta',
  'certificates.v1beta1.CertificateSigningRequest': 'metadata=o:meta.v1.ObjectMeta',
  'coordination.v1.Lease': 'metadata=o:meta.v1.ObjectMeta',
  'coordination.v1beta1.Lease': 'metadata=o:meta.v1.ObjectMeta',
  'core.v1.Affinity': 'podAffinity=o:core.v1.PodAffinity podAntiAffinity=o:core.v1.PodAntiAffinity',
  'core.v1.Binding': 'metadata=o:meta.v1.ObjectMeta',
  'core.v1.ComponentStatus': 'conditions=l::merge:type metadata=o:meta.v1.ObjectMeta',
  'core.v1.ConfigMap': 'metadata=o:meta.v1.ObjectMeta',
  'core.v1.Container': 'env=l::merge:name ports=l::merge:containerPort,protocol volumeDevices=l::merge:devicePath volumeMounts=l::merge:mountPath',
  'core.v1.Endpoints': 'metadata=o:meta.v1.ObjectMeta',
  'core.v1.EphemeralContainer': 'env=l::merge:name volumeDevices=l::merge:devicePath volumeMounts=l::merge:mountPath',
  'core.v1.EphemeralVolumeSource': 'volumeClaimTemplate=o:core.v1.PersistentVolumeClaimTemplate',
  'core.v1.Event': 'metadata=o:meta.v1.ObjectMeta',
  'core.v1.LimitRange': 'metadata=o:meta.v1.ObjectMeta',
  'core.v1.Namespace': 'metadata=o:meta.v1.ObjectMeta status=o:core.v1.NamespaceStatus',
  'core.v1.NamespaceStatus': 'conditions=l::merge:type',
  'core.v1.Node': 'metadata=o:meta.v1.ObjectMeta spec=o:core.v1.NodeSpec status=o:core.v1.NodeStatus',
  'core.v1.NodeSpec': 'podCIDRs=l::merge',
  'core.v1.NodeStatus': 'addresses=l::merge:type conditions=l::merge:type',
  'core.v1.PersistentVolume': 'metadata=o:meta.v1.ObjectMeta',
  'core.v1.PersistentVolumeClaim': 'metadata=o:meta.v1.ObjectMeta spec=o:core.v1.PersistentVolumeClaimSpec status=o:core.v1.PersistentVolumeClaimStatus',
  'core.v1.PersistentVolumeClaimSpec': 'selector=o:meta.v1.LabelSelector',
  'core.v1.PersistentVolumeClaimStatus': 'conditions=l::merge:type',
  'core.v1.PersistentVolumeClaimTemplate': 'metadata=o:meta.v1.ObjectMeta spec=o:core.v1.PersistentVolumeClaimSpec',
  'core.v1.Pod': 'metadata=o:meta.v1.ObjectMeta spec=o:core.v1.PodSpec status=o:core.v1.PodStatus',
  'core.v1.PodAffinity':
    'preferredDuringSchedulingIgnoredDuringExecution=l:core.v1.WeightedPodAffinityTerm requiredDuringSchedulingIgnoredDuringExecution=l:core.v1.PodAffinityTerm',
  'core.v1.PodAffinityTerm': 'labelSelector=o:meta.v1.LabelSelector namespaceSelector=o:meta.v1.LabelSelector',
  'core.v1.PodAntiAffinity':
    'preferredDuringSchedulingIgnoredDuringExecution=l:core.v1.WeightedPodAffinityTerm requiredDuringSchedulingIgnoredDuringExecution=l:core.v1.PodAffinityTerm',
  'core.v1.PodSpec':
    'affinity=o:core.v1.Affinity containers=l:core.v1.Container:merge:name ephemeralContainers=l:core.v1.EphemeralContainer:merge:name hostAliases=l::merge:ip imagePullSecrets=l::merge:name initContainers=l:core.v1.Container:merge:name topologySpreadConstraints=l:core.v1.TopologySpreadConstraint:merge:topologyKey,whenUnsatisfiable volumes=l:core.v1.Volume:merge,retainKeys:name',
  'core.v1.PodStatus': 'conditions=l::merge:type podIPs=l::merge:ip',
  'core.v1.PodTemplate': 'metadata=o:meta.v1.ObjectMeta template=o:core.v1.PodTemplateSpec',
  'core.v1.PodTemplateSpec': 'metadata=o:meta.v1.ObjectMeta spec=o:core.v1.PodSpec',
  'core.v1.ReplicationController': 'metadata=o:meta.v1.ObjectMeta spec=o:core.v1.ReplicationControllerSpec status=o:core.v1.ReplicationControllerStatus',
  'core.v1.ReplicationControllerSpec': 'template=o:core.v1.PodTemplateSpec',
  'core.v1.ReplicationControllerStatus': 'conditions=l::merge:type',
  'core.v1.ResourceQuota': 'metadata=o:meta.v1.ObjectMeta',
  'core.v1.Secret': 'metadata=o:meta.v1.ObjectMeta',
  'core.v1.Service': 'metadata=o:meta.v1.ObjectMeta spec=o:core.v1.ServiceSpec status=o:core.v1.ServiceStatus',
  'core.v1.ServiceAccount': 'metadata=o:meta.v1.ObjectMeta secrets=l::merge:name',
  'core.v1.ServiceSpec': 'ports=l::merge:port,protocol',
  'core.v1.ServiceStatus': 'conditions=l::merge:type',
  'core.v1.TopologySpreadConstraint': 'labelSelector=o:meta.v1.LabelSelector',
  'core.v1.Volume': 'ephemeral=o:core.v1.EphemeralVolumeSource',
  'core.v1.WeightedPodAffinityTerm': 'podAffinityTerm=o:core.v1.PodAffinityTerm',
  'discovery.v1.EndpointSlice': 'metadata=o:meta.v1.ObjectMeta',
  'discovery.v1beta1.EndpointSlice': 'metadata=o:meta.v1.ObjectMeta',
  'events.v1.Event': 'metadata=o:meta.v1.ObjectMeta',
  'events.v1beta1.Event': 'metadata=o:meta.v1.ObjectMeta',
  'extensions.v1beta1.Ingress': 'metadata=o:meta.v1.ObjectMeta',
  'flowcontrol.v1beta1.FlowSchema': 'metadata=o:meta.v1.ObjectMeta',
  'flowcontrol.v1beta1.PriorityLevelConfiguration': 'metadata=o:meta.v1.ObjectMeta',
  'networking.v1.Ingress': 'metadata=o:meta.v1.ObjectMeta',
  'networking.v1.IngressClass': 'metadata=o:meta.v1.ObjectMeta',
  'networking.v1.NetworkPolicy': 'metadata=o:meta.v1.ObjectMeta spec=o:networking.v1.NetworkPolicySpec',
  'networking.v1.NetworkPolicyEgressRule': 'to=l:networking.v1.NetworkPolicyPeer',
  'networking.v1.NetworkPolicyIngressRule': 'from=l:networking.v1.NetworkPolicyPeer',
  'networking.v1.NetworkPolicyPeer': 'namespaceSelector=o:meta.v1.LabelSelector podSelector=o:meta.v1.LabelSelector',
  'networking.v1.NetworkPolicySpec': 'egress=l:networking.v1.NetworkPolicyEgressRule ingress=l:networking.v1.NetworkPolicyIngressRule podSelector=o:meta.v1.LabelSelector',
  'networking.v1beta1.Ingress': 'metadata=o:meta.v1.ObjectMeta',
  'networking.v1beta1.IngressClass': 'metadata=o:meta.v1.ObjectMeta',
  'node.v1.RuntimeClass': 'metadata=o:meta.v1.ObjectMeta',
  'node.v1beta1.RuntimeClass': 'metadata=o:meta.v1.ObjectMeta',
  'policy.v1.PodDisruptionBudget': 'metadata=o:meta.v1.ObjectMeta spec=o:policy.v1.PodDisruptionBudgetSpec status=o:policy.v1.PodDisruptionBudgetStatus',
  'policy.v1.PodDisruptionBudgetSpec': 'selector=o:meta.v1.LabelSelector:replace',
  'policy.v1.PodDisruptionBudgetStatus': 'conditions=l::merge:type',
  'policy.v1beta1.Eviction': 'metadata=o:meta.v1.ObjectMeta',
  'policy.v1beta1.PodDisruptionBudget': 'metadata=o:meta.v1.ObjectMeta spec=o:policy.v1beta1.PodDisruptionBudgetSpec status=o:policy.v1beta1.PodDisruptionBudgetStatus',
  'policy.v1beta1.PodDisruptionBudgetSpec': 'selector=o:meta.v1.LabelSelector:replace',
  'policy.v1beta1.PodDisruptionBudgetStatus': 'conditions=l::merge:type',
  'policy.v1beta1.PodSecurityPolicy': 'metadata=o:meta.v1.ObjectMeta',
  'rbac.v1.AggregationRule': 'clusterRoleSelectors=l:meta.v1.LabelSelector',
  'rbac.v1.ClusterRole': 'aggregationRule=o:rbac.v1.AggregationRule metadata=o:meta.v1.ObjectMeta',
  'rbac.v1.ClusterRoleBinding': 'metadata=o:meta.v1.ObjectMeta',
  'rbac.v1.Role': 'metadata=o:meta.v1.ObjectMeta',
  'rbac.v1.RoleBinding': 'metadata=o:meta.v1.ObjectMeta',
  'rbac.v1beta1.AggregationRule': 'clusterRoleSelectors=l:meta.v1.LabelSelector',
  'rbac.v1beta1.ClusterRole': 'aggregationRule=o:rbac.v1beta1.AggregationRule metadata=o:meta.v1.ObjectMeta',
  'rbac.v1beta1.ClusterRoleBinding': 'metadata=o:meta.v1.ObjectMeta',
  'rbac.v1beta1.Role': 'metadata=o:meta.v1.ObjectMeta',
  'rbac.v1beta1.RoleBinding': 'metadata=o:meta.v1.ObjectMeta',
  'scheduling.v1.PriorityClass': 'metadata=o:meta.v1.ObjectMeta',
  'scheduling.v1beta1.PriorityClass': 'metadata=o:meta.v1.ObjectMeta',
  'storage.v1.CSIDriver': 'metadata=o:meta.v1.ObjectMeta',
  'storage.v1.CSINode': 'metadata=o:meta.v1.ObjectMeta spec=o:storage.v1.CSINodeSpec',
  'storage.v1.CSINodeSpec': 'drivers=l::merge:name',
  'storage.v1.StorageClass': 'metadata=o:meta.v1.ObjectMeta',
  'storage.v1.VolumeAttachment': 'metadata=o:meta.v1.ObjectMeta',
  'storage.v1beta1.CSIDriver': 'metadata=o:meta.v1.ObjectMeta',
  'storage.v1beta1.CSINode': 'metadata=o:meta.v1.ObjectMeta spec=o:storage.v1beta1.CSINodeSpec',
  'storage.v1beta1.CSINodeSpec': 'drivers=l::merge:name',
  'storage.v1beta1.CSIStorageCapacity': 'metadata=o:meta.v1.ObjectMeta nodeTopology=o:meta.v1.LabelSelector',
  'storage.v1beta1.StorageClass': 'metadata=o:meta.v1.ObjectMeta',
  'storage.v1beta1.VolumeAttachment': 'metadata=o:meta.v1.ObjectMeta',
  'ext.apiextensions.v1.CustomResourceDefinition': 'metadata=o:meta.v1.ObjectMeta',
  'ext.apiextensions.v1beta1.CustomResourceDefinition': 'metadata=o:meta.v1.ObjectMeta',
  'meta.v1.LabelSelector': 'matchExpressions=l:meta.v1.LabelSelectorRequirement',
  'meta.v1.LabelSelectorRequirement': 'key=o::merge:key',
  'meta.v1.ObjectMeta': 'finalizers=l::merge ownerReferences=l::merge:uid',
  'agg.apiregistration.v1.APIService': 'metadata=o:meta.v1.ObjectMeta status=o:agg.apiregistration.v1.APIServiceStatus',
  'agg.apiregistration.v1.APIServiceStatus': 'conditions=l::merge:type',
  'agg.apiregistration.v1beta1.APIService': 'metadata=o:meta.v1.ObjectMeta status=o:agg.apiregistration.v1beta1.APIServiceStatus',
  'agg.apiregistration.v1beta1.APIServiceStatus': 'conditions=l::merge:type',
};

/** apiVersion and kind → the type of the whole object. */
const KINDS: Record<string, string> = {
  'admissionregistration.k8s.io/v1 MutatingWebhookConfiguration': 'admissionregistration.v1.MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration': 'admissionregistration.v1.ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1beta1 MutatingWebhookConfiguration': 'admissionregistration.v1beta1.MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1beta1 ValidatingWebhookConfiguration': 'admissionregistration.v1beta1.ValidatingWebhookConfiguration',
  'apiextensions.k8s.io/v1 CustomResourceDefinition': 'ext.apiextensions.v1.CustomResourceDefinition',
  'apiextensions.k8s.io/v1beta1 CustomResourceDefinition': 'ext.apiextensions.v1beta1.CustomResourceDefinition',
  'apiregistration.k8s.io/v1 APIService': 'agg.apiregistration.v1.APIService',
  'apiregistration.k8s.io/v1beta1 APIService': 'agg.apiregistration.v1beta1.APIService',
  'apps/v1 ControllerRevision': 'apps.v1.ControllerRevision',
  'apps/v1 DaemonSet': 'apps.v1.DaemonSet',
  'apps/v1 Deployment': 'apps.v1.Deployment',
  'apps/v1 ReplicaSet': 'apps.v1.ReplicaSet',
  'apps/v1 StatefulSet': 'apps.v1.StatefulSet',
  'authentication.k8s.io/v1 TokenRequest': 'authentication.v1.TokenRequest',
  'authentication.k8s.io/v1 TokenReview': 'authentication.v1.TokenReview',
  'authentication.k8s.io/v1beta1 TokenReview': 'authentication.v1beta1.TokenReview',
  'authorization.k8s.io/v1 LocalSubjectAccessReview': 'authorization.v1.LocalSubjectAccessReview',
  'authorization.k8s.io/v1 SelfSubjectAccessReview': 'authorization.v1.SelfSubjectAccessReview',
  'authorization.k8s.io/v1 SelfSubjectRulesReview': 'authorization.v1.SelfSubjectRulesReview',
  'authorization.k8s.io/v1 SubjectAccessReview': 'authorization.v1.SubjectAccessReview',
  'authorization.k8s.io/v1beta1 LocalSubjectAccessReview': 'authorization.v1beta1.LocalSubjectAccessReview',
  'authorization.k8s.io/v1beta1 SelfSubjectAccessReview': 'authorization.v1beta1.SelfSubjectAccessReview',
  'authorization.k8s.io/v1beta1 SelfSubjectRulesReview': 'authorization.v1beta1.SelfSubjectRulesReview',
  'authorization.k8s.io/v1beta1 SubjectAccessReview': 'authorization.v1beta1.SubjectAccessReview',
  'autoscaling/v1 HorizontalPodAutoscaler': 'autoscaling.v1.HorizontalPodAutoscaler',
  'autoscaling/v1 Scale': 'autoscaling.v1.Scale',
  'autoscaling/v2beta1 HorizontalPodAutoscaler': 'autoscaling.v2beta1.HorizontalPodAutoscaler',
  'autoscaling/v2beta2 HorizontalPodAutoscaler': 'autoscaling.v2beta2.HorizontalPodAutoscaler',
  'batch/v1 CronJob': 'batch.v1.CronJob',
  'batch/v1 Job': 'batch.v1.Job',
  'batch/v1beta1 CronJob': 'batch.v1beta1.CronJob',
  'certificates.k8s.io/v1 CertificateSigningRequest': 'certificates.v1.CertificateSigningRequest',
  'certificates.k8s.io/v1beta1 CertificateSigningRequest': 'certificates.v1beta1.CertificateSigningRequest',
  'coordination.k8s.io/v1 Lease': 'coordination.v1.Lease',
  'coordination.k8s.io/v1beta1 Lease': 'coordination.v1beta1.Lease',
  'discovery.k8s.io/v1 EndpointSlice': 'discovery.v1.EndpointSlice',
  'discovery.k8s.io/v1beta1 EndpointSlice': 'discovery.v1beta1.EndpointSlice',
  'events.k8s.io/v1 Event': 'events.v1.Event',
  'events.k8s.io/v1beta1 Event': 'events.v1beta1.Event',
  'extensions/v1beta1 Ingress': 'extensions.v1beta1.Ingress',
  'flowcontrol.apiserver.k8s.io/v1beta1 FlowSchema': 'flowcontrol.v1beta1.FlowSchema',
  'flowcontrol.apiserver.k8s.io/v1beta1 PriorityLevelConfiguration': 'flowcontrol.v1beta1.PriorityLevelConfiguration',
  'networking.k8s.io/v1 Ingress': 'networking.v1.Ingress',
  'networking.k8s.io/v1 IngressClass': 'networking.v1.IngressClass',
  'networking.k8s.io/v1 NetworkPolicy': 'networking.v1.NetworkPolicy',
  'networking.k8s.io/v1beta1 Ingress': 'networking.v1beta1.Ingress',
  'networking.k8s.io/v1beta1 IngressClass': 'networking.v1beta1.IngressClass',
  'node.k8s.io/v1 RuntimeClass': 'node.v1.RuntimeClass',
  'node.k8s.io/v1beta1 RuntimeClass': 'node.v1beta1.RuntimeClass',
  'policy/v1 PodDisruptionBudget': 'policy.v1.PodDisruptionBudget',
  'policy/v1beta1 Eviction': 'policy.v1beta1.Eviction',
  'policy/v1beta1 PodDisruptionBudget': 'policy.v1beta1.PodDisruptionBudget',
  'policy/v1beta1 PodSecurityPolicy': 'policy.v1beta1.PodSecurityPolicy',
  'rbac.authorization.k8s.io/v1 ClusterRole': 'rbac.v1.ClusterRole',
  'rbac.authorization.k8s.io/v1 ClusterRoleBinding': 'rbac.v1.ClusterRoleBinding',
  'rbac.authorization.k8s.io/v1 Role': 'rbac.v1.Role',
  'rbac.authorization.k8s.io/v1 RoleBinding': 'rbac.v1.RoleBinding',
  'rbac.authorization.k8s.io/v1beta1 ClusterRole': 'rbac.v1beta1.ClusterRole',
  'rbac.authorization.k8s.io/v1beta1 ClusterRoleBinding': 'rbac.v1beta1.ClusterRoleBinding',
  'rbac.authorization.k8s.io/v1beta1 Role': 'rbac.v1beta1.Role',
  'rbac.authorization.k8s.io/v1beta1 RoleBinding': 'rbac.v1beta1.RoleBinding',
  'scheduling.k8s.io/v1 PriorityClass': 'scheduling.v1.PriorityClass',
  'scheduling.k8s.io/v1beta1 PriorityClass': 'scheduling.v1beta1.PriorityClass',
  'storage.k8s.io/v1 CSIDriver': 'storage.v1.CSIDriver',
  'storage.k8s.io/v1 CSINode': 'storage.v1.CSINode',
  'storage.k8s.io/v1 StorageClass': 'storage.v1.StorageClass',
  'storage.k8s.io/v1 VolumeAttachment': 'storage.v1.VolumeAttachment',
  'storage.k8s.io/v1beta1 CSIDriver': 'storage.v1beta1.CSIDriver',
  'storage.k8s.io/v1beta1 CSINode': 'storage.v1beta1.CSINode',
  'storage.k8s.io/v1beta1 CSIStorageCapacity': 'storage.v1beta1.CSIStorageCapacity',
  'storage.k8s.io/v1beta1 StorageClass': 'storage.v1beta1.StorageClass',
  'storage.k8s.io/v1beta1 VolumeAttachment': 'storage.v1beta1.VolumeAttachment',
  'v1 Binding': 'core.v1.Binding',
  'v1 ComponentStatus': 'core.v1.ComponentStatus',
  'v1 ConfigMap': 'core.v1.ConfigMap',
  'v1 Endpoints': 'core.v1.Endpoints',
  'v1 Event': 'core.v1.Event',
  'v1 LimitRange': 'core.v1.LimitRange',
  'v1 Namespace': 'core.v1.Namespace',
  'v1 Node': 'core.v1.Node',
  'v1 PersistentVolume': 'core.v1.PersistentVolume',
  'v1 PersistentVolumeClaim': 'core.v1.PersistentVolumeClaim',
  'v1 Pod': 'core.v1.Pod',
  'v1 PodTemplate': 'core.v1.PodTemplate',
  'v1 ReplicationController': 'core.v1.ReplicationController',
  'v1 ResourceQuota': 'core.v1.ResourceQuota',
  'v1 Secret': 'core.v1.Secret',
  'v1 Service': 'core.v1.Service',
  'v1 ServiceAccount': 'core.v1.ServiceAccount',
};

/** group/kind of the kinds whose scope the same document gives as Cluster (kustomize's EffectiveNamespace). */
const CLUSTER_SCOPED = new Set<string>([
  '/ComponentStatus',
  '/Namespace',
  '/Node',
  '/NodeProxyOptions',
  '/PersistentVolume',
  'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
  'apiextensions.k8s.io/CustomResourceDefinition',
  'apiregistration.k8s.io/APIService',
  'certificates.k8s.io/CertificateSigningRequest',
  'flowcontrol.apiserver.k8s.io/FlowSchema',
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration',
  'networking.k8s.io/IngressClass',
  'node.k8s.io/RuntimeClass',
  'policy/PodSecurityPolicy',
  'rbac.authorization.k8s.io/ClusterRole',
  'rbac.authorization.k8s.io/ClusterRoleBinding',
  'scheduling.k8s.io/PriorityClass',
  'storage.k8s.io/CSIDriver',
  'storage.k8s.io/CSINode',
  'storage.k8s.io/StorageClass',
  'storage.k8s.io/VolumeAttachment',
]);

const parsed = new Map<string, Map<string, FieldSchema>>();

function fieldsOf(type: string): Map<string, FieldSchema> | undefined {
  const cached = parsed.get(type);
  if (cached) return cached;
  const text = TYPES[type];
  if (text === undefined) return undefined;
  const fields = new Map<string, FieldSchema>();
  for (const entry of text.split(' ')) {
    const [name, spec] = entry.split('=') as [string, string];
    const [k, t = '', strategy = '', keys = ''] = spec.split(':');
    if (k === 'l') fields.set(name, { kind: 'list', item: t, strategy, keys: keys ? keys.split(',') : [] });
    else if (k === 'm') fields.set(name, { kind: 'map', value: t });
    else fields.set(name, { kind: 'object', type: t });
  }
  parsed.set(type, fields);
  return fields;
}

/** The schema of the object of this apiVersion and kind, when the embedded document knows one with strategies. */
export function schemaForKind(apiVersion: string, kind: string): FieldSchema | undefined {
  const type = KINDS[`${apiVersion} ${kind}`];
  return type === undefined ? undefined : { kind: 'object', type };
}

/** The schema of a field of an object (or of any key of a map), as kyaml's ResourceSchema.Field resolves it. */
export function fieldSchema(schema: FieldSchema | undefined, key: string): FieldSchema | undefined {
  if (!schema) return undefined;
  if (schema.kind === 'map') return schema.value ? { kind: 'object', type: schema.value } : undefined;
  if (schema.kind !== 'object') return undefined;
  return fieldsOf(schema.type)?.get(key);
}

/** The schema of a list's elements. */
export function elementSchema(schema: FieldSchema | undefined): FieldSchema | undefined {
  if (schema?.kind !== 'list' || !schema.item) return undefined;
  return { kind: 'object', type: schema.item };
}

/** Whether a kind is cluster-scoped (then kustomize gives it no namespace when it compares ids). */
export function isClusterScoped(group: string, kind: string): boolean {
  return CLUSTER_SCOPED.has(`${group}/${kind}`);
}
