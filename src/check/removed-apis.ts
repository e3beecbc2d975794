/**
 * API versions a Kubernetes 1.32 API server no longer serves, with the version to use instead
 * (https://kubernetes.io/docs/reference/using-api/deprecation-guide/). kubectl reports such objects with
 * `no matches for kind "<Kind>" in version "<group/version>"` and creates nothing.
 */

export interface RemovedApi {
  apiVersion: string;
  kind: string;
  /** The release that stopped serving it. */
  removedIn: string;
  /** The apiVersion to write instead; undefined when the kind has no successor. */
  replacement: string | undefined;
  /** What else must change besides the apiVersion. */
  note?: string;
}

const appsNote = 'apps/v1 requires spec.selector (matching the template labels) and no longer defaults it';

const table: readonly RemovedApi[] = [
  ...['Deployment', 'DaemonSet', 'ReplicaSet'].map((kind) => ({ apiVersion: 'extensions/v1beta1', kind, removedIn: 'v1.16', replacement: 'apps/v1', note: appsNote })),
  { apiVersion: 'extensions/v1beta1', kind: 'NetworkPolicy', removedIn: 'v1.16', replacement: 'networking.k8s.io/v1' },
  { apiVersion: 'extensions/v1beta1', kind: 'Ingress', removedIn: 'v1.22', replacement: 'networking.k8s.io/v1' },
  { apiVersion: 'extensions/v1beta1', kind: 'PodSecurityPolicy', removedIn: 'v1.16', replacement: undefined, note: 'PodSecurityPolicy was removed in v1.25; use Pod Security Admission' },
  ...['apps/v1beta1', 'apps/v1beta2'].flatMap((apiVersion) =>
    ['Deployment', 'DaemonSet', 'ReplicaSet', 'StatefulSet', 'ControllerRevision'].map((kind) => ({ apiVersion, kind, removedIn: 'v1.16', replacement: 'apps/v1', note: appsNote })),
  ),
  { apiVersion: 'batch/v1beta1', kind: 'CronJob', removedIn: 'v1.25', replacement: 'batch/v1' },
  { apiVersion: 'node.k8s.io/v1beta1', kind: 'RuntimeClass', removedIn: 'v1.25', replacement: 'node.k8s.io/v1' },
  { apiVersion: 'node.k8s.io/v1alpha1', kind: 'RuntimeClass', removedIn: 'v1.22', replacement: 'node.k8s.io/v1', note: 'v1alpha1 kept handler and scheduling under spec; node.k8s.io/v1 has them at the top level' },
  { apiVersion: 'policy/v1beta1', kind: 'PodDisruptionBudget', removedIn: 'v1.25', replacement: 'policy/v1', note: 'in policy/v1 an empty spec.selector selects every pod of the namespace' },
  { apiVersion: 'policy/v1beta1', kind: 'PodSecurityPolicy', removedIn: 'v1.25', replacement: undefined, note: 'use Pod Security Admission' },
  { apiVersion: 'discovery.k8s.io/v1beta1', kind: 'EndpointSlice', removedIn: 'v1.25', replacement: 'discovery.k8s.io/v1' },
  { apiVersion: 'events.k8s.io/v1beta1', kind: 'Event', removedIn: 'v1.25', replacement: 'events.k8s.io/v1' },
  { apiVersion: 'autoscaling/v2beta1', kind: 'HorizontalPodAutoscaler', removedIn: 'v1.25', replacement: 'autoscaling/v2' },
  { apiVersion: 'autoscaling/v2beta2', kind: 'HorizontalPodAutoscaler', removedIn: 'v1.26', replacement: 'autoscaling/v2' },
  ...['FlowSchema', 'PriorityLevelConfiguration'].flatMap((kind) => [
    { apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta1', kind, removedIn: 'v1.26', replacement: 'flowcontrol.apiserver.k8s.io/v1' },
    { apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta2', kind, removedIn: 'v1.29', replacement: 'flowcontrol.apiserver.k8s.io/v1' },
  ]),
  { apiVersion: 'storage.k8s.io/v1beta1', kind: 'CSIStorageCapacity', removedIn: 'v1.27', replacement: 'storage.k8s.io/v1' },
  ...['CSIDriver', 'CSINode', 'StorageClass', 'VolumeAttachment'].map((kind) => ({ apiVersion: 'storage.k8s.io/v1beta1', kind, removedIn: 'v1.22', replacement: 'storage.k8s.io/v1' })),
  ...['Ingress', 'IngressClass'].map((kind) => ({ apiVersion: 'networking.k8s.io/v1beta1', kind, removedIn: 'v1.22', replacement: 'networking.k8s.io/v1' })),
  ...['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'].map((kind) => ({ apiVersion: 'rbac.authorization.k8s.io/v1beta1', kind, removedIn: 'v1.22', replacement: 'rbac.authorization.k8s.io/v1' })),
  ...['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'].map((kind) => ({ apiVersion: 'admissionregistration.k8s.io/v1beta1', kind, removedIn: 'v1.22', replacement: 'admissionregistration.k8s.io/v1' })),
  { apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'CustomResourceDefinition', removedIn: 'v1.22', replacement: 'apiextensions.k8s.io/v1' },
  { apiVersion: 'apiregistration.k8s.io/v1beta1', kind: 'APIService', removedIn: 'v1.22', replacement: 'apiregistration.k8s.io/v1' },
  { apiVersion: 'certificates.k8s.io/v1beta1', kind: 'CertificateSigningRequest', removedIn: 'v1.22', replacement: 'certificates.k8s.io/v1' },
  { apiVersion: 'coordination.k8s.io/v1beta1', kind: 'Lease', removedIn: 'v1.22', replacement: 'coordination.k8s.io/v1' },
];

/** The removal entry for `apiVersion` + `kind`, if that API is gone in 1.32. */
export function removedApi(apiVersion: string, kind: string): RemovedApi | undefined {
  return table.find((r) => r.apiVersion === apiVersion && r.kind === kind);
}

/** kubectl's message for a kind the server does not serve in that version. */
export function noMatchesMessage(apiVersion: string, kind: string): string {
  return `no matches for kind "${kind}" in version "${apiVersion}"`;
}
