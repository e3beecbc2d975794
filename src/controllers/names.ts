/**
 * Controller names as kube-controller-manager's `--controllers` flag spells them
 * (cmd/kube-controller-manager/names/controller_names.go, v1.32), and the event source components.
 */
export const names = {
  ReplicaSet: 'replicaset-controller',
  ReplicationController: 'replicationcontroller-controller',
  Deployment: 'deployment-controller',
  DaemonSet: 'daemonset-controller',
  NodeLifecycle: 'node-lifecycle-controller',
  TaintEviction: 'taint-eviction-controller',
  Endpoints: 'endpoints-controller',
  EndpointSlice: 'endpointslice-controller',
  GarbageCollector: 'garbage-collector-controller',
  Namespace: 'namespace-controller',
  Disruption: 'disruption-controller',
  HorizontalPodAutoscaler: 'horizontal-pod-autoscaler-controller',
  StatefulSet: 'statefulset-controller',
  Job: 'job-controller',
  CronJob: 'cronjob-controller',
  ServiceAccount: 'serviceaccount-controller',
  ServiceAccountToken: 'serviceaccount-token-controller',
  RootCACertPublisher: 'root-ca-certificate-publisher-controller',
  PodGC: 'pod-garbage-collector-controller',
  TTLAfterFinished: 'ttl-after-finished-controller',
  TTL: 'ttl-controller',
  ResourceQuota: 'resourcequota-controller',
  /** Approves and signs kubelet client CSRs (upstream's csrapproving and csrsigning together). */
  CertificateSigning: 'certificatesigningrequest-signing-controller',
  TokenCleaner: 'token-cleaner-controller',
  BootstrapSigner: 'bootstrap-signer-controller',
  PersistentVolumeBinder: 'persistentvolume-binder-controller',
  PersistentVolumeClaimProtection: 'persistentvolumeclaim-protection-controller',
  PersistentVolumeProtection: 'persistentvolume-protection-controller',
  ValidatingAdmissionPolicyStatus: 'validatingadmissionpolicy-status-controller',
} as const;

export type ControllerName = (typeof names)[keyof typeof names];

/** `source.component` of the events each controller records (the names upstream's recorders use). */
export const eventComponents = {
  replicaSet: 'replicaset-controller',
  replicationController: 'replication-controller',
  deployment: 'deployment-controller',
  daemonSet: 'daemonset-controller',
  node: 'node-controller',
  taintEviction: 'taint-eviction-controller',
  endpoints: 'endpoint-controller',
  endpointSlice: 'endpoint-slice-controller',
  garbageCollector: 'garbage-collector-controller',
  namespace: 'namespace-controller',
  disruption: 'controllermanager',
  statefulSet: 'statefulset-controller',
  job: 'job-controller',
  cronJob: 'cronjob-controller',
  horizontalPodAutoscaler: 'horizontal-pod-autoscaler',
  persistentVolume: 'persistentvolume-controller',
} as const;
