// runpod's own table of the Pod object's fields: the single source of truth for which fields are accepted,
// accepted with a warning, or refused, and for README's table of supported fields. It lists every field that
// Kubernetes v1 defines on Pod, ObjectMeta, PodSpec, Container, ContainerPort, EnvVar and ResourceRequirements
// (as of Kubernetes 1.34), so that a key outside it is a field Kubernetes does not have: an error, as under
// `kubectl apply --validate=strict`. Supporting a field later means flipping its status here (and giving it a
// nested table when runpod should check the keys inside it).
// The other kinds runpod reads (ConfigMap, Secret, Service, the workloads and PersistentVolumeClaim) have their tables below,
// with every field of their Kubernetes types too.

import type { FieldPath, PathSegment } from '../kube/path.js';

export type FieldStatus = 'supported' | 'warn' | 'unsupported';

export interface FieldEntry {
  status: FieldStatus;
  /** README note; for `warn` the warning text, for `unsupported` a hint appended to the refusal. */
  note?: string;
  /** Fields of the value (or of each item when the value is a list), checked strictly. */
  fields?: FieldLevel;
  /** A read-only field the API server populates: ignored wholesale, its contents are not validated either. */
  readOnly?: boolean;
  /**
   * The Kubernetes version that added the field, when it is newer than the OpenAPI schema runpod validates types
   * against (schemaKubernetesVersion): its refusal says so, rather than leaving a reader to think it a typo.
   */
  since?: string;
}

/** The Kubernetes version of the OpenAPI schema bundled in kubernetes-models 4.5.1 (README, "Supported fields"). */
export const schemaKubernetesVersion = '1.33';

/**
 * The Kubernetes version whose API runpod's field tables follow (1.34: the schema's 1.33 and 1.34's fields, marked
 * `since`). A field of a later Kubernetes that the tables do not list is unknown to runpod; its message says which
 * version runpod knows, so a user of a newer cluster sees why. Fields that later versions added to the Pod API
 * (kubernetes/api core/v1/types.go, v0.35.0 and v0.36.0) are listed with their `since` where they have a meaning on
 * one host to speak of.
 */
export const tableKubernetesVersion = '1.34';

/**
 * "from Kubernetes 1.34, newer than the 1.33 schema runpod validates against"; for a version after the tables' own,
 * "from Kubernetes 1.36, newer than the Kubernetes 1.34 API runpod knows".
 */
export function newerThanSchema(since: string): string {
  const [major, minor] = since.split('.').map(Number);
  const [tMajor, tMinor] = tableKubernetesVersion.split('.').map(Number);
  const afterTables = major! > tMajor! || (major === tMajor && minor! > tMinor!);
  return afterTables
    ? `from Kubernetes ${since}, newer than the Kubernetes ${tableKubernetesVersion} API runpod knows`
    : `from Kubernetes ${since}, newer than the ${schemaKubernetesVersion} schema runpod validates against`;
}

export interface FieldLevel {
  /** Kubernetes type name, for README. */
  type: string;
  fields: Readonly<Record<string, FieldEntry>>;
  /** For maps with free keys (resource names): how keys outside `fields` are treated instead of "unknown". */
  otherKeys?: FieldEntry;
  /** The same fields as another level, for README: only the rows that differ from it are listed. */
  sameAs?: { level: FieldLevel; path: string };
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

// Volumes, mounts and env sources (issue 3). Sources that need a cluster (network and cloud disks, CSI, tokens an
// API server issues) are refused; the rest are made on the engine as named volumes or bind mounts.
const keyToPathFields: FieldLevel = {
  type: 'KeyToPath',
  fields: {
    key: supported('required; a key of the ConfigMap or Secret'),
    path: supported('required; relative, no ".." element'),
    mode: supported("file mode 0-0777; default the volume's defaultMode"),
  },
};

const objectFieldSelectorFields: FieldLevel = {
  type: 'ObjectFieldSelector',
  fields: {
    apiVersion: supported('v1 (default)'),
    fieldPath: supported('required'),
  },
};

const resourceFieldSelectorFields: FieldLevel = {
  type: 'ResourceFieldSelector',
  fields: {
    containerName: supported('required in volumes; in env, default the container itself'),
    resource: supported("limits.cpu, limits.memory, requests.cpu or requests.memory; an unset limit reads the engine host's capacity"),
    divisor: supported('default 1'),
  },
};

const configMapKeySelectorFields: FieldLevel = {
  type: 'ConfigMapKeySelector',
  fields: {
    name: supported('required; a ConfigMap in the input'),
    key: supported('required'),
    optional: supported('a missing ConfigMap or key leaves the variable unset'),
  },
};

const secretKeySelectorFields: FieldLevel = {
  type: 'SecretKeySelector',
  fields: {
    name: supported('required; a Secret in the input'),
    key: supported('required'),
    optional: supported('a missing Secret or key leaves the variable unset'),
  },
};

export const envVarSourceFields: FieldLevel = {
  type: 'EnvVarSource',
  fields: {
    fieldRef: supported(
      "metadata.name, namespace, uid, labels['k'], annotations['k'], spec.nodeName, spec.serviceAccountName, status.podIP(s), status.hostIP(s)",
      objectFieldSelectorFields,
    ),
    resourceFieldRef: supported(undefined, resourceFieldSelectorFields),
    configMapKeyRef: supported(undefined, configMapKeySelectorFields),
    secretKeyRef: supported('never printed (--dry-run, -o, -v mask it)', secretKeySelectorFields),
    fileKeyRef: { ...later(), since: '1.34' },
  },
};

export const envVarFields: FieldLevel = {
  type: 'EnvVar',
  fields: {
    name: supported('required; printable ASCII, no "="'),
    value: supported('$(VAR) expands from earlier entries'),
    valueFrom: supported('one source; not with value', envVarSourceFields),
  },
};

export const envFromSourceFields: FieldLevel = {
  type: 'EnvFromSource',
  fields: {
    prefix: supported('prepended to every key'),
    configMapRef: supported(undefined, {
      type: 'ConfigMapEnvSource',
      fields: { name: supported('required; a ConfigMap in the input'), optional: supported() },
    }),
    secretRef: supported(undefined, {
      type: 'SecretEnvSource',
      fields: { name: supported('required; a Secret in the input'), optional: supported() },
    }),
  },
};

export const volumeMountFields: FieldLevel = {
  type: 'VolumeMount',
  fields: {
    name: supported('required; a volume declared in spec.volumes'),
    mountPath: supported('required; absolute, unique in the container'),
    readOnly: supported('configMap, secret, downwardAPI and projected volumes are always read-only'),
    subPath: supported('relative, no ".." element, no symlink; bind-mounts the path inside the volume'),
    mountPropagation: supported('None, HostToContainer or Bidirectional (privileged only); for bind mounts (hostPath, subPath)'),
    subPathExpr: later(),
    recursiveReadOnly: supported(
      'Disabled (default), IfPossible or Enabled, with readOnly: true; recursive on Docker 25+ (Engine API 1.44), where Disabled is made non-recursive; before it IfPossible falls back to read-only and Enabled is refused',
    ),
  },
};

const itemsNote = 'rendered as files; default every key';
const configMapVolumeFields: FieldLevel = {
  type: 'ConfigMapVolumeSource',
  fields: {
    name: supported('required; a ConfigMap in the input'),
    items: supported(itemsNote, keyToPathFields),
    defaultMode: supported('default 0644'),
    optional: supported('a missing ConfigMap gives an empty volume'),
  },
};

const secretVolumeFields: FieldLevel = {
  type: 'SecretVolumeSource',
  fields: {
    secretName: supported('required; a Secret in the input'),
    items: supported(itemsNote, keyToPathFields),
    defaultMode: supported('default 0644; secret files are never world-readable (o= bits dropped)'),
    optional: supported('a missing Secret gives an empty volume'),
  },
};

const downwardAPIFileFields: FieldLevel = {
  type: 'DownwardAPIVolumeFile',
  fields: {
    path: supported('required; relative, no ".." element'),
    fieldRef: supported("metadata.name, namespace, uid, labels, annotations, labels['k'], annotations['k']", objectFieldSelectorFields),
    resourceFieldRef: supported(undefined, resourceFieldSelectorFields),
    mode: supported('file mode 0-0777'),
  },
};

const downwardAPIVolumeFields: FieldLevel = {
  type: 'DownwardAPIVolumeSource',
  fields: {
    items: supported(undefined, downwardAPIFileFields),
    defaultMode: supported('default 0644'),
  },
};

const projectionFields: FieldLevel = {
  type: 'VolumeProjection',
  fields: {
    configMap: supported(undefined, {
      type: 'ConfigMapProjection',
      fields: { name: supported('required'), items: supported(undefined, keyToPathFields), optional: supported() },
    }),
    secret: supported(undefined, {
      type: 'SecretProjection',
      fields: { name: supported('required'), items: supported(undefined, keyToPathFields), optional: supported() },
    }),
    downwardAPI: supported(undefined, { type: 'DownwardAPIProjection', fields: { items: supported(undefined, downwardAPIFileFields) } }),
    serviceAccountToken: later('no API server issues tokens on one host'),
    clusterTrustBundle: later('needs an API server'),
    podCertificate: { ...later('needs an API server'), since: '1.34' },
  },
};

const cluster = 'needs a cluster or a volume plugin; use hostPath or persistentVolumeClaim';
export const volumeFields: FieldLevel = {
  type: 'Volume',
  fields: {
    name: supported('required; DNS-1123 label, unique in the pod'),
    emptyDir: supported('an engine volume owned by the pod: kept across re-runs, removed by runpod down', {
      type: 'EmptyDirVolumeSource',
      fields: {
        medium: supported('"" (disk) or Memory (tmpfs)'),
        sizeLimit: supported('enforced for Memory (tmpfs size); on disk not enforceable by Docker (warning)'),
      },
    }),
    hostPath: supported('a bind mount', {
      type: 'HostPathVolumeSource',
      fields: {
        path: supported('required; absolute, no ".." element'),
        type: supported('"", DirectoryOrCreate, Directory, FileOrCreate, File, Socket, CharDevice, BlockDevice; checked on a local engine'),
      },
    }),
    configMap: supported('files in a read-only engine volume', configMapVolumeFields),
    secret: supported("files in a read-only engine volume (on the engine's disk, not tmpfs)", secretVolumeFields),
    downwardAPI: supported(undefined, downwardAPIVolumeFields),
    projected: supported(undefined, {
      type: 'ProjectedVolumeSource',
      fields: { sources: supported('configMap, secret and downwardAPI', projectionFields), defaultMode: supported('default 0644') },
    }),
    persistentVolumeClaim: supported('a named engine volume pvc_<namespace>_<claim> that outlives the pod', {
      type: 'PersistentVolumeClaimVolumeSource',
      fields: { claimName: supported('required'), readOnly: supported('mounts read-only') },
    }),
    awsElasticBlockStore: later(cluster),
    azureDisk: later(cluster),
    azureFile: later(cluster),
    cephfs: later(cluster),
    cinder: later(cluster),
    csi: later(cluster),
    ephemeral: later(cluster),
    fc: later(cluster),
    flexVolume: later(cluster),
    flocker: later(cluster),
    gcePersistentDisk: later(cluster),
    gitRepo: later('deprecated in Kubernetes; clone in an init container instead'),
    glusterfs: later(cluster),
    image: supported('an OCI image mounted read-only (Docker 28+, Engine API 1.48; refused on older engines), pulled by its pullPolicy', {
      type: 'ImageVolumeSource',
      fields: {
        reference: supported('required; an image reference'),
        pullPolicy: supported("Always, IfNotPresent or Never; default by tag, as a container's"),
      },
    }),
    iscsi: later(cluster),
    nfs: later(cluster),
    photonPersistentDisk: later(cluster),
    portworxVolume: later(cluster),
    quobyte: later(cluster),
    rbd: later(cluster),
    scaleIO: later(cluster),
    storageos: later(cluster),
    vsphereVolume: later(cluster),
  },
};

// Lifecycle hooks (issue 3). The kubelet runs them (pkg/kubelet/lifecycle/handlers.go): exec through the runtime, httpGet
// from the node against the pod IP, sleep in the kubelet. tcpSocket is kept in the API for compatibility only and the
// kubelet never runs it ("TCPSocket is NOT supported as a LifecycleHandler"), so runpod refuses it rather than ignore it.
const lifecycleHandlerFields: FieldLevel = {
  type: 'LifecycleHandler',
  fields: {
    exec: supported("in the container, through the engine's exec API", {
      type: 'ExecAction',
      fields: { command: supported('required; not run in a shell') },
    }),
    httpGet: supported('from the host, to the pod IP unless host is set', {
      type: 'HTTPGetAction',
      fields: {
        path: supported('default /'),
        port: supported("required; a number or one of the container's port names"),
        host: supported('default the pod IP'),
        scheme: supported('HTTP (default) or HTTPS (not verified)'),
        httpHeaders: supported(undefined, {
          type: 'HTTPHeader',
          fields: { name: supported('required'), value: supported('required') },
        }),
      },
    }),
    sleep: supported('seconds to wait', { type: 'SleepAction', fields: { seconds: supported('required, >= 0') } }),
    tcpSocket: later('not run by the kubelet either: use exec, httpGet or sleep'),
  },
};

export const lifecycleFields: FieldLevel = {
  type: 'Lifecycle',
  fields: {
    postStart: supported('right after the container starts; a failure kills it (FailedPostStartHook)', lifecycleHandlerFields),
    preStop: supported('before the stop signal, on down and on replacement; counts against the grace period', lifecycleHandlerFields),
    stopSignal: later(),
  },
};

// Probes (issue 4): run by runpod from the host while it watches the pod, as the kubelet runs them from the node
// (pkg/kubelet/prober): exec through the engine, httpGet, tcpSocket and grpc against the pod's address.
export const probeFields: FieldLevel = {
  type: 'Probe',
  fields: {
    exec: supported('through the engine; timeoutSeconds enforced (a timed-out command is abandoned)', {
      type: 'ExecAction',
      fields: { command: supported('required; run directly, not in a shell') },
    }),
    httpGet: supported('from the host, to the pod IP (or its published port) unless host is set; 200-399 passes', {
      type: 'HTTPGetAction',
      fields: {
        path: supported('default /'),
        port: supported("required; a number or a name from the container's ports"),
        host: supported('default the pod IP'),
        scheme: supported('HTTP (default) or HTTPS (certificate not verified)'),
        httpHeaders: supported(undefined, {
          type: 'HTTPHeader',
          fields: { name: supported('required'), value: supported('required') },
        }),
      },
    }),
    tcpSocket: supported('from the host: passes when a connection opens', {
      type: 'TCPSocketAction',
      fields: { port: supported("required; a number or a name from the container's ports"), host: supported('default the pod IP') },
    }),
    grpc: supported('grpc.health.v1.Health/Check over cleartext HTTP/2; SERVING passes', {
      type: 'GRPCAction',
      fields: { port: supported('required, 1-65535'), service: supported('sent in the HealthCheckRequest; default empty') },
    }),
    initialDelaySeconds: supported("default 0, from the container's start"),
    periodSeconds: supported('default 10'),
    timeoutSeconds: supported('default 1'),
    successThreshold: supported('default 1; must be 1 for liveness and startup'),
    failureThreshold: supported('default 3'),
    terminationGracePeriodSeconds: supported('liveness and startup only: the grace period of the kill that follows a failure'),
  },
};

// Security contexts (issue 3), translated in src/plan/security.ts. The pod's fields are defaults for every container;
// a container's own override them (https://kubernetes.io/docs/tasks/configure-pod-container/security-context/).
const seccompProfileFields: FieldLevel = {
  type: 'SeccompProfile',
  fields: {
    type: supported("RuntimeDefault (the engine's default profile; also when unset), Unconfined or Localhost"),
    localhostProfile: supported(
      'Localhost: a JSON profile under --seccomp-profile-root (default /var/lib/kubelet/seccomp, as the kubelet), read by runpod and handed to the engine',
    ),
  },
};

// AppArmor (https://kubernetes.io/docs/tutorials/security/apparmor/), translated in src/kube/apparmor.ts: honoured
// where the engine host has AppArmor enabled (GET /info lists it), refused otherwise when the run asks the engine.
const appArmorProfileFields: FieldLevel = {
  type: 'AppArmorProfile',
  fields: {
    type: supported("RuntimeDefault (Docker's docker-default profile), Unconfined or Localhost; needs AppArmor on the engine host (except Unconfined)"),
    localhostProfile: supported('Localhost: the name of a profile loaded on the engine host'),
  },
};

const capabilitiesFields: FieldLevel = {
  type: 'Capabilities',
  fields: {
    add: supported('Linux capability names without CAP_ (NET_ADMIN), or ALL'),
    drop: supported('Linux capability names without CAP_, or ALL'),
  },
};

const appArmorNote = 'honoured where the engine host has AppArmor enabled; the deprecated container.apparmor.security.beta.kubernetes.io annotation too';
const windowsNote = 'Linux containers only';
const seLinuxNote = 'SELinux labels are not applied by runpod';

export const securityContextFields: FieldLevel = {
  type: 'SecurityContext',
  fields: {
    runAsUser: supported("uid 0-2147483647; overrides the pod's"),
    runAsGroup: supported("gid; with runAsUser, or with the image's user"),
    runAsNonRoot: supported('checked against the image\'s user before the container is created: root (uid 0, "root" or no user) or a non-numeric user fails the pod (exit 1)'),
    privileged: supported('a privileged engine container'),
    capabilities: supported(undefined, capabilitiesFields),
    readOnlyRootFilesystem: supported('a read-only root filesystem'),
    allowPrivilegeEscalation: supported('false sets no_new_privs (no-new-privileges); not with privileged or SYS_ADMIN'),
    seccompProfile: supported("overrides the pod's", seccompProfileFields),
    procMount: supported('Default only (Unmasked needs hostUsers: false)'),
    appArmorProfile: supported(`overrides the pod's; ${appArmorNote}`, appArmorProfileFields),
    seLinuxOptions: later(seLinuxNote),
    windowsOptions: later(windowsNote),
  },
};

const sysctlFields: FieldLevel = {
  type: 'Sysctl',
  fields: {
    name: supported('required; namespaced only: net.* (not with hostNetwork), kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.* (not with hostIPC)'),
    value: supported('required'),
  },
};

export const podSecurityContextFields: FieldLevel = {
  type: 'PodSecurityContext',
  fields: {
    runAsUser: supported('default for every container'),
    runAsGroup: supported('default for every container'),
    runAsNonRoot: supported('default for every container'),
    seccompProfile: supported('default for every container', seccompProfileFields),
    supplementalGroups: supported("extra groups of every container's process"),
    supplementalGroupsPolicy: supported("Merge (default) only: the engine always adds the image's /etc/group groups"),
    fsGroup: supported(
      "an extra group of every container's process; group owner of emptyDir (setgid), configMap, secret, downwardAPI and projected volumes, and of every file and directory of a claim (setgid directories, group read-write), as the kubelet's SetVolumeOwnership",
    ),
    fsGroupChangePolicy: supported(
      "Always (default): a claim's files are given the fsGroup each time a pod mounts it (up to 256 MiB of it, rewritten through the engine); OnRootMismatch: not when its root has the group, setgid and the group's permissions already",
    ),
    sysctls: supported("set in the pod's namespaces (on the infra container)", sysctlFields),
    appArmorProfile: supported(`default for every container; ${appArmorNote}`, appArmorProfileFields),
    seLinuxOptions: later(seLinuxNote),
    seLinuxChangePolicy: later(seLinuxNote),
    windowsOptions: later(windowsNote),
  },
};

const pullSecretFields: FieldLevel = {
  type: 'LocalObjectReference',
  fields: { name: supported("required; a Secret in the input, in the pod's namespace") },
};

const hostAliasFields: FieldLevel = {
  type: 'HostAlias',
  fields: {
    ip: supported('required; an IP address'),
    hostnames: supported('DNS-1123 subdomains'),
  },
};

const podDNSConfigFields: FieldLevel = {
  type: 'PodDNSConfig',
  fields: {
    nameservers: supported('at most 3 IP addresses'),
    searches: supported('at most 32 domains'),
    options: supported('name and optional value (ndots:2)', {
      type: 'PodDNSConfigOption',
      fields: { name: supported('required'), value: supported() },
    }),
  },
};

// resizePolicy (in-place pod resize, beta in Kubernetes 1.33): plan/resize.ts.
const resizePolicyFields: FieldLevel = {
  type: 'ContainerResizePolicy',
  fields: {
    resourceName: supported('required; cpu or memory, each at most once'),
    restartPolicy: supported('required; NotRequired or RestartContainer'),
  },
};

// restartPolicyRules (Kubernetes 1.34, KEP-5307): not in the 1.33 schema, so restartRules.ts checks the values too.
const restartRuleFields: FieldLevel = {
  type: 'ContainerRestartRule',
  fields: {
    action: supported('required; Restart (the only action)'),
    exitCodes: supported('required', {
      type: 'ContainerRestartRuleOnExitCodes',
      fields: {
        operator: supported('required; In or NotIn'),
        values: supported('exit codes, at most 255'),
      },
    }),
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
    envFrom: supported('ConfigMaps and Secrets in the input; env entries override', envFromSourceFields),
    lifecycle: supported('not on init containers except sidecars', lifecycleFields),
    livenessProbe: supported(
      "a failure past failureThreshold kills the container; its restartPolicy restarts it (engine restart count); an exec probe is also the engine's HEALTHCHECK",
      probeFields,
    ),
    readinessProbe: supported('--wait ready waits for it to pass', { ...probeFields, sameAs: { level: probeFields, path: 'spec.containers[].livenessProbe' } }),
    startupProbe: supported('holds off liveness and readiness until it passes; a failure kills the container as liveness does', {
      ...probeFields,
      sameAs: { level: probeFields, path: 'spec.containers[].livenessProbe' },
    }),
    resizePolicy: supported(
      'per resource (cpu, memory): NotRequired (default) applies a change of its resources to the running container (docker update), RestartContainer replaces the container',
      resizePolicyFields,
    ),
    restartPolicy: supported(
      "Always, OnFailure or Never: overrides the pod's restartPolicy for this container (Kubernetes 1.34, ContainerRestartRules); also its engine restart policy",
    ),
    restartPolicyRules: {
      ...supported(
        "evaluated in order on each exit, the first match restarting it, else its restartPolicy decides; needs the container's restartPolicy; at most 20. A restart only a rule asks for is made by runpod while it watches the pod (the engine keeps only the restartPolicy)",
        restartRuleFields,
      ),
      since: '1.34',
    },
    securityContext: supported("merged over the pod's securityContext", securityContextFields),
    terminationMessagePath: supported('default /dev/termination-log; a 0666 file per instance is bound there, as the kubelet does, and read for the failure report'),
    terminationMessagePolicy: supported('File (default) or FallbackToLogsOnError (last log lines when the file is empty and the container failed)'),
    volumeDevices: later(),
    volumeMounts: supported(undefined, volumeMountFields),
  },
};

// Init containers are Containers; their fields are the containers' (probes and lifecycle only on sidecars, a
// validation rule), except restartPolicy, which only an init container may set: Always makes it a sidecar
// (KEP-753), started before the next init container and kept running beside the containers.
export const initContainerFields: FieldLevel = {
  type: 'Container',
  fields: {
    ...containerFields.fields,
    restartPolicy: supported(
      "Always: a sidecar, started (running, or past its startupProbe) before the next init container; OnFailure or Never (Kubernetes 1.34, ContainerRestartRules): overrides the pod's restartPolicy for this init container (Never: its first failure fails the pod)",
    ),
    restartPolicyRules: {
      ...supported(
        "not on sidecars; needs the init container's restartPolicy (OnFailure or Never): a failure whose exit code a rule matches runs it again, others as its restartPolicy says; exit 0 completes it",
        restartRuleFields,
      ),
      since: '1.34',
    },
    resizePolicy: later(
      "on init containers: runpod resizes app containers only; a change of a sidecar's resources replaces the sidecar, of another init container's the pod (Kubernetes refuses resizePolicy on those)",
    ),
  },
  sameAs: { level: containerFields, path: 'spec.containers[]' },
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
    enableServiceLinks: supported(
      "default true: the variables of the Services of the pod's namespace in the input are set (for a Service web: WEB_SERVICE_HOST, WEB_SERVICE_PORT, WEB_PORT, …), as the kubelet sets them; the container's own env wins",
    ),
    serviceAccountName: supported('recorded only; no token is mounted (every container gets the namespace file at /var/run/secrets/kubernetes.io/serviceaccount/namespace)'),
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
    // Gang scheduling (GangScheduling, alpha): the pod's place in a Workload's pod group, for a scheduler that
    // places the group at once; one host has no scheduler. workloadRef was 1.35's; 1.36 replaced it with
    // schedulingGroup (its protobuf tag tombstoned in kubernetes/api core/v1/types.go).
    workloadRef: { ...warn(`${scheduling} (Kubernetes 1.35's gang scheduling; replaced by schedulingGroup in 1.36)`), since: '1.35' },
    schedulingGroup: { ...warn(`${scheduling} (gang scheduling)`), since: '1.36' },
    activeDeadlineSeconds: later(),
    automountServiceAccountToken: supported(
      'false: no namespace file at /var/run/secrets/kubernetes.io/serviceaccount (by default every container has one there; no token, as there is no API server)',
    ),
    dnsConfig: supported(
      "merged as the kubelet merges it: with dnsPolicy None exactly the pod's resolv.conf, with Default into the node's resolv.conf, with ClusterFirst its searches after the cluster's and the node's and its options over ndots:5; nameservers are refused with ClusterFirst on the pod network (the engine's DNS is the only nameserver there)",
      podDNSConfigFields,
    ),
    dnsPolicy: supported(
      "ClusterFirst (default), ClusterFirstWithHostNet: the kubelet's search list for the namespace, then the engine host's searches when runpod can read its resolv.conf, and ndots:5, answered by the engine's DNS on the namespace's network (a hostNetwork pod gets Default, as the kubelet gives it under ClusterFirst); Default: the engine host's resolv.conf (/run/systemd/resolve/resolv.conf when /etc/resolv.conf names only loopback resolvers) with dnsConfig merged, refused on an engine not on this machine unless hostNetwork; None: exactly dnsConfig",
    ),
    ephemeralContainers: later('added by the API server only'),
    hostAliases: supported('extra /etc/hosts lines, shared by every container; not with hostNetwork', hostAliasFields),
    hostIPC: supported("every container in the host's IPC namespace"),
    hostNetwork: supported("the host's network and hostname; hostPort defaults to containerPort and must equal it"),
    hostPID: supported("every container in the host's PID namespace"),
    hostUsers: later(),
    hostnameOverride: { ...later(), since: '1.34' },
    imagePullSecrets: supported('registry credentials from kubernetes.io/dockerconfigjson (or dockercfg) Secrets in the input, tried before the Docker config', pullSecretFields),
    initContainers: supported('one at a time, in order, each to exit 0, before the containers start', initContainerFields),
    os: later(),
    overhead: later('set with runtimeClassName by RuntimeClass admission'),
    readinessGates: later('no controller on one host would set the condition'),
    resourceClaims: later(),
    // PodLevelResources (alpha 1.32; beta, on by default, 1.34): requests and limits for the pod as a whole, which
    // the kubelet sets on the pod's own cgroup, shared by its containers. The Engine API can put a container under a
    // parent cgroup (HostConfig.CgroupParent) but has no call that creates that cgroup or sets its limits (with the
    // cgroupfs driver it is made bare; with systemd it is a slice only systemd on the engine host can limit), so
    // nothing would enforce them: refused, pointing at what the engine does enforce.
    resources: later(
      "pod-level resources (Kubernetes PodLevelResources, beta in 1.34) are limits on the pod's own cgroup, shared by its containers; the Engine API can put containers under a parent cgroup (CgroupParent) but cannot create it or set its limits, so nothing would enforce them: set resources on each container instead (their sum bounds the pod)",
    ),
    runtimeClassName: later(),
    securityContext: supported("defaults for every container's securityContext; groups, sysctls", podSecurityContextFields),
    setHostnameAsFQDN: supported('with subdomain: the hostname is the FQDN (at most 64 characters)'),
    shareProcessNamespace: supported("one PID namespace: the infra container's pause process is PID 1 and reaps orphans; not with hostPID"),
    subdomain: supported(
      'DNS-1123 label; FQDN <hostname>.<subdomain>.<namespace>.svc.cluster.local in /etc/hosts (hostname -f), and in DNS when the headless Service of that name selects the pod',
    ),
    volumes: supported(undefined, volumeFields),
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

// ConfigMaps and Secrets in the input feed the pods beside them (volumes, env, envFrom); they exist only for this
// invocation, as runpod has no API server to store them.
const configMapDataNote = 'keys: letters, digits, "-", "_", "."';
export const configMapFields: FieldLevel = {
  type: 'ConfigMap',
  fields: {
    apiVersion: supported('v1'),
    kind: supported('ConfigMap'),
    metadata: supported('name required; namespace default "default" or -n', objectMetaFields),
    data: supported(configMapDataNote),
    binaryData: supported('base64; keys distinct from data'),
    immutable: supported('accepted; every run reads the input afresh'),
  },
};

export const secretFields: FieldLevel = {
  type: 'Secret',
  fields: {
    apiVersion: supported('v1'),
    kind: supported('Secret'),
    metadata: supported('name required; namespace default "default" or -n', objectMetaFields),
    data: supported('base64; never printed'),
    stringData: supported('plain text, merged over data; never printed'),
    type: supported('default Opaque; kubernetes.io/tls and dockerconfigjson keys checked'),
    immutable: supported('accepted; every run reads the input afresh'),
  },
};

// Workloads (issue 13): the controllers of apps/v1 and the core ReplicationController, and PersistentVolumeClaims.
// Every field of their specs (as of Kubernetes 1.34) is listed; the pod template is a Pod's metadata and spec, checked
// with the Pod's own table above (validate.ts validates it as a Pod), so its level lists only the two keys.
const historyNote = (what: string): FieldEntry => warn(`no ${what} history is kept on one host: to roll back, run the old manifest`);
const minReadySeconds = (): FieldEntry => supported('default 0, >= 0: seconds a new pod must be ready before it counts as available');
const intOrPercent = (dflt: string, extra?: string): FieldEntry =>
  supported(`an integer >= 0 or a percentage such as "25%"; default ${dflt}${extra !== undefined ? `; ${extra}` : ''}`);

export const labelSelectorFields: FieldLevel = {
  type: 'LabelSelector',
  fields: {
    matchLabels: supported('label key: value pairs, ANDed'),
    matchExpressions: supported('ANDed with matchLabels', {
      type: 'LabelSelectorRequirement',
      fields: {
        key: supported('required; a label key'),
        operator: supported('In, NotIn, Exists or DoesNotExist'),
        values: supported('non-empty for In and NotIn, empty for Exists and DoesNotExist'),
      },
    }),
  },
};

/** A pod template: validated as a Pod (its fields are those of the Pod's metadata and spec above). */
export const podTemplateFields: FieldLevel = {
  type: 'PodTemplateSpec',
  fields: {
    metadata: supported("as a Pod's metadata; labels must match the selector; name and namespace are ignored (warning), as the API server ignores them"),
    spec: supported("as a Pod's spec (every field and rule above); restartPolicy Always (default) only"),
  },
};

/** A Job's pod template: a Pod's metadata and spec, as podTemplateFields, but its pods run to completion. */
export const jobPodTemplateFields: FieldLevel = {
  type: 'PodTemplateSpec',
  fields: {
    metadata: supported("as a Pod's metadata; name and namespace are ignored (warning), as the API server ignores them"),
    spec: supported(
      "as a Pod's spec (every field and rule above); restartPolicy required: Never or OnFailure (Always is refused by Kubernetes); Never only with podFailurePolicy or backoffLimitPerIndex",
    ),
  },
};

const storageList: FieldLevel = {
  type: 'ResourceList',
  fields: {
    storage: supported('a quantity such as 1Gi, > 0; not enforced (warning): an engine volume or a host directory has no size limit on Docker'),
  },
  otherKeys: later('a claim asks only for storage'),
};

export const persistentVolumeClaimSpecFields: FieldLevel = {
  type: 'PersistentVolumeClaimSpec',
  fields: {
    accessModes: supported(
      'required, at least one: ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod (alone); a PersistentVolume must offer them all to bind; on one host all pods share the volume alike',
    ),
    resources: supported('requests.storage required', {
      type: 'VolumeResourceRequirements',
      fields: {
        requests: supported('storage required', storageList),
        limits: supported(undefined, storageList),
      },
    }),
    storageClassName: supported(
      'binds a PersistentVolume of the input of that class (the PV controller\'s rule); unset: runpod\'s default class, a local engine volume; "" or a class only PersistentVolumes of the input name: a PersistentVolume must match, else the claim is refused (it would stay Pending)',
    ),
    volumeMode: supported('Filesystem (default) only: an engine volume or a host directory is a filesystem, Block is refused'),
    selector: supported('labels a PersistentVolume of the input must carry to bind (no claim with a selector is provisioned: refused when none matches)', labelSelectorFields),
    volumeName: supported(
      'binds that PersistentVolume of the input only (its class, capacity, volumeMode and access modes must fit); refused when the input has none of that name',
    ),
    dataSource: later('no provisioner on one host fills a volume from a snapshot or another claim'),
    dataSourceRef: later('no provisioner on one host fills a volume from a snapshot or another claim'),
    volumeAttributesClassName: later('no CSI driver on one host applies volume attributes'),
  },
};

const pvSource =
  'runpod mounts hostPath and local PersistentVolumes only (one host has no volume plugins); use hostPath or local, or a claim with no PersistentVolume (a local engine volume)';
/** A PersistentVolume (issue 24): a static volume claims bind to, as on a one-node cluster with the PV controller. */
export const persistentVolumeSpecFields: FieldLevel = {
  type: 'PersistentVolumeSpec',
  fields: {
    capacity: supported('storage required: what a claim may request at most; not enforced (a host directory has no size limit)', {
      type: 'ResourceList',
      fields: { storage: supported('a quantity such as 10Gi, > 0') },
      otherKeys: later('a PersistentVolume offers only storage'),
    }),
    accessModes: supported(
      'required, at least one: ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod (alone); a claim binds only when the volume offers all its modes',
    ),
    storageClassName: supported('the class claims name to bind it; unset: only claims with storageClassName ""'),
    volumeMode: supported('Filesystem (default) only; Block is refused'),
    claimRef: supported('reserves the volume for that claim (name, namespace default "default"): it binds no other claim', {
      type: 'ObjectReference',
      fields: {
        name: supported('required: the claim'),
        namespace: supported('the claim\'s namespace (default "default")'),
        kind: supported('PersistentVolumeClaim'),
        apiVersion: supported('v1'),
        uid: later('a claim of the input has no uid before the API server makes it; leave it out'),
        resourceVersion: later('set by the API server; leave it out'),
        fieldPath: later('a claim has no field to refer to'),
      },
    }),
    persistentVolumeReclaimPolicy: supported('Retain (default for a PersistentVolume written by hand) only: runpod never deletes or recycles the host directory, which is yours'),
    nodeAffinity: warn('not used: one host is the only node (a local PersistentVolume needs it on a cluster, runpod mounts it here)'),
    mountOptions: later('hostPath and local volumes take no mount options (the kubelet refuses them for these plugins)'),
    hostPath: supported("the host directory (or file) the claim's pods mount, its type checked as a hostPath volume's (DirectoryOrCreate creates it); never removed by runpod", {
      type: 'HostPathVolumeSource',
      fields: {
        path: supported('required; absolute, no ".." element'),
        type: supported('"", DirectoryOrCreate, Directory, FileOrCreate, File, Socket, CharDevice, BlockDevice; checked on a local engine'),
      },
    }),
    local: supported("a directory of the host that must exist (checked on a local engine), mounted by the claim's pods; never removed by runpod", {
      type: 'LocalVolumeSource',
      fields: {
        path: supported('required; absolute, no ".." element; a directory'),
        fsType: later("a local block device formatted on mount needs the kubelet's mounter; use a directory"),
      },
    }),
    awsElasticBlockStore: later(pvSource),
    azureDisk: later(pvSource),
    azureFile: later(pvSource),
    cephfs: later(pvSource),
    cinder: later(pvSource),
    csi: later(pvSource),
    fc: later(pvSource),
    flexVolume: later(pvSource),
    flocker: later(pvSource),
    gcePersistentDisk: later(pvSource),
    glusterfs: later(pvSource),
    iscsi: later(pvSource),
    nfs: later(pvSource),
    photonPersistentDisk: later(pvSource),
    portworxVolume: later(pvSource),
    quobyte: later(pvSource),
    rbd: later(pvSource),
    scaleIO: later(pvSource),
    storageos: later(pvSource),
    vsphereVolume: later(pvSource),
    volumeAttributesClassName: later('no CSI driver on one host applies volume attributes'),
  },
};

export const persistentVolumeFields: FieldLevel = {
  type: 'PersistentVolume',
  fields: {
    apiVersion: supported('v1'),
    kind: supported('PersistentVolume'),
    metadata: supported(
      "name required, DNS-1123 subdomain; no namespace (a PersistentVolume belongs to none: ignored with a warning, as the API server drops it); labels are what claims' selectors match",
      objectMetaFields,
    ),
    spec: supported('required: capacity.storage, accessModes and one source (hostPath or local)', persistentVolumeSpecFields),
    status: readOnly(),
  },
};

export const persistentVolumeClaimFields: FieldLevel = {
  type: 'PersistentVolumeClaim',
  fields: {
    apiVersion: supported('v1'),
    kind: supported('PersistentVolumeClaim'),
    metadata: supported('name required, DNS-1123 subdomain; namespace default "default" or -n', objectMetaFields),
    spec: supported('required', persistentVolumeClaimSpecFields),
    status: readOnly(),
  },
};

const deploymentStrategyFields: FieldLevel = {
  type: 'DeploymentStrategy',
  fields: {
    type: supported('RollingUpdate (default) or Recreate'),
    rollingUpdate: supported('with type RollingUpdate only', {
      type: 'RollingUpdateDeployment',
      fields: {
        maxUnavailable: intOrPercent('25%', 'at most 100%; not 0 when maxSurge is 0'),
        maxSurge: intOrPercent('25%'),
      },
    }),
  },
};

export const deploymentSpecFields: FieldLevel = {
  type: 'DeploymentSpec',
  fields: {
    replicas: supported('default 1, >= 0'),
    selector: supported("required, not empty; must select the template's labels", labelSelectorFields),
    template: supported('required', podTemplateFields),
    strategy: supported(undefined, deploymentStrategyFields),
    minReadySeconds: minReadySeconds(),
    progressDeadlineSeconds: supported('default 600; greater than minReadySeconds'),
    revisionHistoryLimit: historyNote('ReplicaSet'),
    paused: supported('false only: a paused Deployment rolls nothing out'),
  },
};

export const replicaSetSpecFields: FieldLevel = {
  type: 'ReplicaSetSpec',
  fields: {
    replicas: supported('default 1, >= 0'),
    selector: supported("required, not empty; must select the template's labels", labelSelectorFields),
    template: supported('required', podTemplateFields),
    minReadySeconds: minReadySeconds(),
  },
};

export const replicationControllerSpecFields: FieldLevel = {
  type: 'ReplicationControllerSpec',
  fields: {
    replicas: supported('default 1, >= 0'),
    selector: supported("label key: value pairs; default the template's labels; must match them"),
    template: supported('required', podTemplateFields),
    minReadySeconds: minReadySeconds(),
  },
};

const claimTemplateFields: FieldLevel = {
  type: 'PersistentVolumeClaim',
  fields: {
    apiVersion: supported('v1, optional'),
    kind: supported('PersistentVolumeClaim, optional'),
    metadata: supported(
      'name required: a DNS-1123 label, unique; a volume of the template with the same name is replaced by the claim (warning), as the StatefulSet controller does',
      objectMetaFields,
    ),
    spec: supported("as a PersistentVolumeClaim's spec", persistentVolumeClaimSpecFields),
    status: readOnly(),
  },
};

export const statefulSetSpecFields: FieldLevel = {
  type: 'StatefulSetSpec',
  fields: {
    replicas: supported('default 1, >= 0'),
    selector: supported("required, not empty; must select the template's labels", labelSelectorFields),
    template: supported('required; pods are <name>-<ordinal>', podTemplateFields),
    serviceName: supported("optional; a DNS-1123 label, the pods' subdomain"),
    podManagementPolicy: supported('OrderedReady (default) or Parallel'),
    updateStrategy: supported(undefined, {
      type: 'StatefulSetUpdateStrategy',
      fields: {
        type: supported('RollingUpdate (default) or OnDelete'),
        rollingUpdate: supported('with type RollingUpdate only', {
          type: 'RollingUpdateStatefulSetStrategy',
          fields: {
            partition: supported('default 0, >= 0: pods with a lower ordinal keep the old template'),
            maxUnavailable: later('alpha in Kubernetes (MaxUnavailableStatefulSet): pods are replaced one at a time'),
          },
        }),
      },
    }),
    volumeClaimTemplates: supported("a claim <template>-<pod> for each pod; the template's volumeMounts name it by the template name", claimTemplateFields),
    persistentVolumeClaimRetentionPolicy: supported(undefined, {
      type: 'StatefulSetPersistentVolumeClaimRetentionPolicy',
      fields: {
        whenDeleted: supported('Retain (default) or Delete'),
        whenScaled: supported('Retain (default) or Delete'),
      },
    }),
    ordinals: supported(undefined, { type: 'StatefulSetOrdinals', fields: { start: supported("default 0, >= 0: the first pod's ordinal") } }),
    minReadySeconds: minReadySeconds(),
    revisionHistoryLimit: historyNote('ControllerRevision'),
  },
};

export const daemonSetSpecFields: FieldLevel = {
  type: 'DaemonSetSpec',
  fields: {
    selector: supported("required, not empty; must select the template's labels", labelSelectorFields),
    template: supported('required; one pod: one host is one node', podTemplateFields),
    updateStrategy: supported(undefined, {
      type: 'DaemonSetUpdateStrategy',
      fields: {
        type: supported('RollingUpdate (default) or OnDelete'),
        rollingUpdate: supported('with type RollingUpdate; ignored (warning) with OnDelete', {
          type: 'RollingUpdateDaemonSet',
          fields: {
            maxUnavailable: intOrPercent('1', 'at most 100%; not 0 when maxSurge is 0'),
            maxSurge: intOrPercent('0', 'at most 100%'),
          },
        }),
      },
    }),
    minReadySeconds: minReadySeconds(),
    revisionHistoryLimit: historyNote('ControllerRevision'),
  },
};

// Job (batch/v1; pkg/apis/batch/validation ValidateJob). Its pods run to completion: runpod labels them itself,
// counts failures against backoffLimit, and ends when the Job does (so no controller is left to act after it).
const jobFailure = (purpose: string): FieldEntry => later(`${purpose}; not implemented yet`);

/** podFailurePolicy: rules on the exit codes of a failed pod's containers (batch/v1 PodFailurePolicy). */
const podFailurePolicyFields: FieldLevel = {
  type: 'PodFailurePolicy',
  fields: {
    rules: supported('the first rule that matches a failed pod decides (at most 20)', {
      type: 'PodFailurePolicyRule',
      fields: {
        action: supported('FailJob (fail it at once), FailIndex (fail the index; needs backoffLimitPerIndex), Ignore (retry, not counted), Count (the default handling)'),
        onExitCodes: supported('containerName, operator In or NotIn, values (containers that exited 0 are left out)', {
          type: 'PodFailurePolicyOnExitCodesRequirement',
          fields: {
            containerName: supported('a container or init container of the template'),
            operator: supported('In or NotIn'),
            values: supported('exit codes, sorted, no duplicates, at most 255; In may not hold 0'),
          },
        }),
        onPodConditions: supported(
          'type and status (True, False, Unknown), at most 20; not with onExitCodes in one rule; accepted, but never matches on one host: nothing evicts, preempts or disrupts a pod here, so no pod carries DisruptionTarget or the like',
          {
            type: 'PodFailurePolicyOnPodConditionsPattern',
            fields: {
              type: supported('a condition type (a qualified name), e.g. DisruptionTarget'),
              status: supported('True, False or Unknown'),
            },
          },
        ),
      },
    }),
  },
};
export const jobSpecFields: FieldLevel = {
  type: 'JobSpec',
  fields: {
    template: supported('required; restartPolicy Never or OnFailure', jobPodTemplateFields),
    completions: supported(
      '>= 0; required with completionMode Indexed; unset with parallelism > 1 (the work-queue pattern): parallelism pods start, none after the first success, and the Job is complete once one has succeeded and all have ended',
    ),
    parallelism: supported('default 1, >= 0: pods at a time'),
    completionMode: supported('NonIndexed (default) or Indexed (each pod gets a completion index 0..completions-1)'),
    backoffLimit: supported('default 6 (unlimited with backoffLimitPerIndex), >= 0: failed pods before the Job fails; under OnFailure, container restarts'),
    activeDeadlineSeconds: supported('> 0: the Job fails when it runs longer'),
    ttlSecondsAfterFinished: supported(
      '>= 0: 0 removes the pods as soon as the Job finishes; N > 0 keeps them until N seconds after it finished, then runpod gc removes them, or a re-run removes them and runs the Job anew',
    ),
    suspend: supported('true: no pods are made (active ones are removed) and the run does not wait for it (exit 0, with a warning); false runs it'),
    selector: later("runpod labels a Job's pods itself"),
    manualSelector: supported("false only: runpod labels a Job's pods itself"),
    podFailurePolicy: supported('rules on exit codes (FailJob, FailIndex, Ignore, Count), in order, the first match deciding; restartPolicy Never only', podFailurePolicyFields),
    backoffLimitPerIndex: supported('Indexed only, >= 0, restartPolicy Never: an index fails once its own failures exceed it, and is not retried'),
    maxFailedIndexes: supported('with backoffLimitPerIndex, 0..completions: the Job fails as soon as more indexes have failed (MaxFailedIndexesExceeded)'),
    successPolicy: jobFailure('which succeeded indexes complete the Job early'),
    podReplacementPolicy: jobFailure('when a replacement pod may start'),
    managedBy: jobFailure('hands the Job to another controller'),
  },
};

const workloadStatus: FieldEntry = { status: 'warn', note: 'ignored, runpod reports the status it observes', readOnly: true };
const nameRule: Readonly<Record<string, string>> = {
  StatefulSet: ', a DNS-1123 label',
  Job: ", a DNS-1123 subdomain of at most 63 characters (the pods' job-name label value)",
};
function workloadFields(kind: string, apiVersion: string, spec: FieldLevel): FieldLevel {
  return {
    type: kind,
    fields: {
      apiVersion: supported(apiVersion),
      kind: supported(kind),
      metadata: supported(`name required${nameRule[kind] ?? ''}; namespace default "default" or -n`, objectMetaFields),
      spec: supported('required', spec),
      status: workloadStatus,
    },
  };
}

export const deploymentFields = workloadFields('Deployment', 'apps/v1', deploymentSpecFields);
export const replicaSetFields = workloadFields('ReplicaSet', 'apps/v1', replicaSetSpecFields);
export const replicationControllerFields = workloadFields('ReplicationController', 'v1', replicationControllerSpecFields);
export const statefulSetFields = workloadFields('StatefulSet', 'apps/v1', statefulSetSpecFields);
export const daemonSetFields = workloadFields('DaemonSet', 'apps/v1', daemonSetSpecFields);
export const jobFields = workloadFields('Job', 'batch/v1', jobSpecFields);

// Service (v1; pkg/apis/core/validation ValidateService). Every field of ServiceSpec and ServicePort (as of
// Kubernetes 1.34) is listed. On one host the Service's name resolves on the pods' network and its ports forward to
// the pods its selector picks; what needs a cloud, a load-balancer controller or a fixed address plan is refused.
const oneHost = 'on one host every endpoint is local to the one node';
const servicePortFields: FieldLevel = {
  type: 'ServicePort',
  fields: {
    name: supported('required when the Service has more than one port; DNS-1123 label, unique in the Service'),
    protocol: supported("TCP (default) or UDP; SCTP is refused (Docker's port forwarding here covers TCP and UDP)"),
    appProtocol: supported('a qualified name; recorded only'),
    port: supported('required, 1-65535; unique with protocol in the Service'),
    targetPort: supported('a number 1-65535 or a container port name of the selected pods (IANA_SVC_NAME); default port'),
    nodePort: supported(
      "NodePort and LoadBalancer only: the host port, 30000-32767 (the API server's default range), unique per protocol in the Service and not used by another Service or a pod's hostPort; default chosen by runpod",
    ),
  },
};

const clientIPConfigFields: FieldLevel = {
  type: 'SessionAffinityConfig',
  fields: {
    clientIP: supported(undefined, {
      type: 'ClientIPConfig',
      fields: { timeoutSeconds: supported('1-86400 (default 10800): how long a client stays on its endpoint after its last connection') },
    }),
  },
};

const serviceAddress = "a Service's address on one host is chosen by runpod on the engine's network";
export const serviceSpecFields: FieldLevel = {
  type: 'ServiceSpec',
  fields: {
    ports: supported('required unless headless', servicePortFields),
    selector: supported(
      "label key: value pairs; the pods of the Service's namespace whose labels hold them all; none (or empty): no endpoints (warning), as runpod reads no Endpoints or EndpointSlices",
    ),
    type: supported(
      "ClusterIP (default), NodePort or LoadBalancer (both publish on the host); ExternalName is refused (Docker's embedded DNS cannot serve the CNAME record it needs)",
    ),
    clusterIP: supported(`"" (default) or None (headless: the name gives the pods' own addresses); a fixed address is refused (${serviceAddress})`),
    clusterIPs: supported('as clusterIP: [] or [None]; its first value must match clusterIP'),
    sessionAffinity: supported(
      "None (default) or ClientIP: a client (by its address) goes back to the endpoint it last reached, for timeoutSeconds, as kube-proxy's iptables rules do it (the `recent` match)",
    ),
    sessionAffinityConfig: supported('with sessionAffinity ClientIP only', clientIPConfigFields),
    publishNotReadyAddresses: supported('true: pods count as endpoints before they are ready'),
    externalTrafficPolicy: supported(`Cluster (default) or Local, NodePort and LoadBalancer only; both mean the same: ${oneHost}`),
    internalTrafficPolicy: supported(`Cluster (default) or Local; both mean the same: ${oneHost}`),
    trafficDistribution: supported(`PreferClose, PreferSameZone or PreferSameNode; accepted: ${oneHost}`),
    ipFamilies: supported('IPv4 only: runpod gives Services IPv4 addresses'),
    ipFamilyPolicy: supported('SingleStack (default) or PreferDualStack: IPv4 is used; RequireDualStack is refused'),
    allocateLoadBalancerNodePorts: supported('LoadBalancer only; accepted: a LoadBalancer Service is published on the host either way'),
    externalName: later("ExternalName Services are refused: Docker's embedded DNS cannot serve CNAME records; use the external name directly, or a hostAliases entry"),
    externalIPs: later('addresses the nodes would capture traffic for; publish on the host with type NodePort or LoadBalancer instead'),
    loadBalancerIP: later(`deprecated in Kubernetes, and ${serviceAddress}: remove it`),
    loadBalancerSourceRanges: later('it restricts which clients may connect, and runpod cannot enforce that on one Docker host: remove it'),
    loadBalancerClass: later('there is no load-balancer controller on one host to pick a class'),
    healthCheckNodePort: later("a cloud load balancer's health check of the nodes; there is none on one host"),
  },
};

export const serviceFields: FieldLevel = {
  type: 'Service',
  fields: {
    apiVersion: supported('v1'),
    kind: supported('Service'),
    metadata: supported('name required, DNS-1035 label; namespace default "default" or -n', objectMetaFields),
    spec: supported('required', serviceSpecFields),
    status: readOnly(),
  },
};

/** Where each level of an object lives, in the order "belongs in …" hints prefer. */
export type FieldPlaces = ReadonlyArray<readonly [string, FieldLevel]>;

/** A Pod's levels. */
export const podPlaces: FieldPlaces = [
  ['the top level', podFields],
  ['metadata', objectMetaFields],
  ['spec', podSpecFields],
  ['spec.containers[*]', containerFields],
  ['spec.containers[*].ports[*]', containerPortFields],
  ['spec.containers[*].env[*]', envVarFields],
  ['spec.containers[*].resources', resourceRequirementsFields],
  ['spec.containers[*].env[*].valueFrom', envVarSourceFields],
  ['spec.containers[*].envFrom[*]', envFromSourceFields],
  ['spec.containers[*].volumeMounts[*]', volumeMountFields],
  ['spec.volumes[*]', volumeFields],
  ['spec.securityContext', podSecurityContextFields],
  ['spec.containers[*].securityContext', securityContextFields],
];

/** Lists of objects: README shows them with [], hints with [*]. */
const listFields = new Set([
  'containers',
  'initContainers',
  'httpHeaders',
  'ports',
  'env',
  'envFrom',
  'volumes',
  'volumeMounts',
  'items',
  'sources',
  'sysctls',
  'hostAliases',
  'options',
  'imagePullSecrets',
  'matchExpressions',
  'volumeClaimTemplates',
]);

/** A pod template's levels: a Pod's, under spec.template of its workload. */
export const podTemplatePlaces: FieldPlaces = podPlaces.map(([where, level]) => [where === 'the top level' ? 'spec.template' : `spec.template.${where}`, level] as const);

/**
 * A workload's (or a claim's) levels: its own, found by walking its table (the metadata once, the pod template's
 * levels as a Pod's under spec.template), in that order.
 */
export function placesOf(top: FieldLevel): FieldPlaces {
  const out: Array<readonly [string, FieldLevel]> = [
    ['the top level', top],
    ['metadata', objectMetaFields],
  ];
  const seen = new Set<FieldLevel>([top, objectMetaFields]);
  let template = false;
  const visit = (level: FieldLevel, prefix: string): void => {
    for (const [name, entry] of Object.entries(level.fields)) {
      const sub = entry.fields;
      if (entry.status !== 'supported' || sub === undefined) continue;
      const path = `${prefix === '' ? '' : `${prefix}.`}${name}${listFields.has(name) ? '[*]' : ''}`;
      if (sub === podTemplateFields || sub === jobPodTemplateFields) {
        template = true;
        continue;
      }
      if (seen.has(sub)) continue;
      seen.add(sub);
      out.push([path, sub]);
      visit(sub, path);
    }
  };
  visit(top, '');
  return template ? [...out, ...podTemplatePlaces.filter(([, level]) => level !== podFields)] : out;
}

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
export function walkFields(value: unknown, level: FieldLevel, base: FieldPath = [], places: FieldPlaces = podPlaces): FieldWalk {
  const out: FieldWalk = { problems: [], warnings: [], settled: [] };
  walkLevel(value, level, [...base], out, places);
  return out;
}

function walkLevel(value: unknown, level: FieldLevel, path: PathSegment[], out: FieldWalk, places: FieldPlaces): void {
  if (!isPlainObject(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const childPath = [...path, key];
    const entry = Object.hasOwn(level.fields, key) ? level.fields[key] : level.otherKeys;
    if (entry === undefined) {
      out.problems.push({ path: childPath, message: unknownFieldMessage(key, level, places) });
      out.settled.push(childPath);
      continue;
    }
    switch (entry.status) {
      case 'unsupported':
        if (isEmptyValue(child)) break;
        out.problems.push({
          path: childPath,
          message: `${entry.since !== undefined ? `a field ${newerThanSchema(entry.since)}: ` : ''}${entry.note !== undefined ? `not supported by runpod (${entry.note})` : 'not supported by runpod'}`,
        });
        out.settled.push(childPath);
        break;
      case 'warn':
        if (entry.readOnly === true) out.settled.push(childPath);
        if (!isEmptyValue(child))
          out.warnings.push({ path: childPath, message: `${entry.note ?? 'ignored'}${entry.since !== undefined ? ` (a field ${newerThanSchema(entry.since)})` : ''}` });
        break;
      case 'supported':
        if (entry.fields === undefined) break;
        if (Array.isArray(child)) child.forEach((item, i) => walkLevel(item, entry.fields!, [...childPath, i], out, places));
        else walkLevel(child, entry.fields, childPath, out, places);
        break;
    }
  }
}

/** `unknown field "x"`, with where it belongs when another level defines it, or the closest name at this level. */
export function unknownFieldMessage(key: string, level: FieldLevel, places: FieldPlaces = podPlaces): string {
  const base = `unknown field "${key}"`;
  for (const [where, other] of places) {
    if (other !== level && Object.hasOwn(other.fields, key)) return `${base} (${key} belongs in ${where})`;
  }
  const guess = closestName(key, Object.keys(level.fields));
  return guess !== undefined ? `${base}; did you mean "${guess}"?` : `${base} (not in the Kubernetes ${tableKubernetesVersion} API runpod knows)`;
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
    entry = Object.hasOwn(level.fields, seg) ? level.fields[seg] : level.otherKeys;
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

/** README's table of fields: every field runpod knows, of every kind it reads, with its status and a note. */
export function supportedFieldsMarkdown(): string {
  const rows: string[] = ['| Field | Status | Note |', '|---|---|---|'];
  // Lists of objects are shown with [] so a row reads as the path of each item's field. `listed`: for the workload
  // kinds, where each level's rows already are, so a level they share (a selector, a pod template) is listed once.
  const visit = (level: FieldLevel, prefix: string, listed?: Map<FieldLevel, string>): void => {
    for (const [name, entry] of Object.entries(level.fields)) {
      // A level that repeats another (initContainers: containers) lists only what differs.
      if (level.sameAs !== undefined && level.sameAs.level.fields[name] === entry) continue;
      const path = (prefix === '' ? name : `${prefix}.${name}`) + (listFields.has(name) ? '[]' : '');
      const sub = entry.fields;
      const first = sub !== undefined ? listed?.get(sub) : undefined;
      let note = sub?.sameAs !== undefined ? `${entry.note ?? ''}; fields as \`${sub.sameAs.path}\`, except those below` : (entry.note ?? '');
      if (first !== undefined) note = `${note === '' ? '' : `${note}; `}fields as \`${first}\``;
      if (entry.since !== undefined) note = `${note === '' ? '' : `${note}; `}${newerThanSchema(entry.since)}`;
      rows.push(`| \`${path}\` | ${statusLabel[entry.status]} | ${note.replace(/\|/g, '\\|')} |`);
      // Another kind's metadata is a Pod's: its rows are not repeated.
      if (sub === undefined || (sub === objectMetaFields && prefix !== '') || first !== undefined) continue;
      listed?.set(sub, path);
      visit(sub, path, listed);
    }
    if (level.otherKeys !== undefined) {
      rows.push(`| \`${prefix}.<other>\` | ${statusLabel[level.otherKeys.status]} | ${level.otherKeys.note ?? ''} |`);
    }
  };
  visit(podFields, '');
  // The other kinds an input may hold, their paths prefixed with the kind.
  visit(configMapFields, 'ConfigMap');
  visit(secretFields, 'Secret');
  visit(serviceFields, 'Service');
  const listed = new Map<FieldLevel, string>();
  for (const level of [
    persistentVolumeClaimFields,
    persistentVolumeFields,
    deploymentFields,
    replicaSetFields,
    replicationControllerFields,
    statefulSetFields,
    daemonSetFields,
    jobFields,
  ]) {
    visit(level, level.type, listed);
  }
  return rows.join('\n') + '\n';
}
