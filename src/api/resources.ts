/**
 * The built-in resources kubemix serves, named as the API names them. Components pass these to the
 * `Client`; the API server builds its routes and discovery from the same table.
 */

export interface ResourceType {
  readonly group: string;
  readonly version: string;
  /** Plural, lower case: `pods`, `deployments`. */
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

/** `group/version`, or `version` for the core group. */
export function apiVersionOf(r: Pick<ResourceType, 'group' | 'version'>): string {
  return r.group === '' ? r.version : `${r.group}/${r.version}`;
}

function rt(group: string, version: string, resource: string, kind: string, namespaced: boolean): ResourceType {
  return { group, version, resource, kind, namespaced };
}

export const resources = {
  namespaces: rt('', 'v1', 'namespaces', 'Namespace', false),
  nodes: rt('', 'v1', 'nodes', 'Node', false),
  pods: rt('', 'v1', 'pods', 'Pod', true),
  services: rt('', 'v1', 'services', 'Service', true),
  endpoints: rt('', 'v1', 'endpoints', 'Endpoints', true),
  configmaps: rt('', 'v1', 'configmaps', 'ConfigMap', true),
  secrets: rt('', 'v1', 'secrets', 'Secret', true),
  serviceaccounts: rt('', 'v1', 'serviceaccounts', 'ServiceAccount', true),
  events: rt('', 'v1', 'events', 'Event', true),
  persistentvolumeclaims: rt('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', true),
  persistentvolumes: rt('', 'v1', 'persistentvolumes', 'PersistentVolume', false),
  limitranges: rt('', 'v1', 'limitranges', 'LimitRange', true),
  podtemplates: rt('', 'v1', 'podtemplates', 'PodTemplate', true),
  resourcequotas: rt('', 'v1', 'resourcequotas', 'ResourceQuota', true),
  replicationcontrollers: rt('', 'v1', 'replicationcontrollers', 'ReplicationController', true),
  deployments: rt('apps', 'v1', 'deployments', 'Deployment', true),
  replicasets: rt('apps', 'v1', 'replicasets', 'ReplicaSet', true),
  daemonsets: rt('apps', 'v1', 'daemonsets', 'DaemonSet', true),
  statefulsets: rt('apps', 'v1', 'statefulsets', 'StatefulSet', true),
  controllerrevisions: rt('apps', 'v1', 'controllerrevisions', 'ControllerRevision', true),
  jobs: rt('batch', 'v1', 'jobs', 'Job', true),
  cronjobs: rt('batch', 'v1', 'cronjobs', 'CronJob', true),
  endpointslices: rt('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice', true),
  eventsV1: rt('events.k8s.io', 'v1', 'events', 'Event', true),
  leases: rt('coordination.k8s.io', 'v1', 'leases', 'Lease', true),
  runtimeclasses: rt('node.k8s.io', 'v1', 'runtimeclasses', 'RuntimeClass', false),
  poddisruptionbudgets: rt('policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget', true),
  priorityclasses: rt('scheduling.k8s.io', 'v1', 'priorityclasses', 'PriorityClass', false),
  roles: rt('rbac.authorization.k8s.io', 'v1', 'roles', 'Role', true),
  rolebindings: rt('rbac.authorization.k8s.io', 'v1', 'rolebindings', 'RoleBinding', true),
  clusterroles: rt('rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', false),
  clusterrolebindings: rt('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings', 'ClusterRoleBinding', false),
  ingresses: rt('networking.k8s.io', 'v1', 'ingresses', 'Ingress', true),
  ingressclasses: rt('networking.k8s.io', 'v1', 'ingressclasses', 'IngressClass', false),
  networkpolicies: rt('networking.k8s.io', 'v1', 'networkpolicies', 'NetworkPolicy', true),
  horizontalpodautoscalers: rt('autoscaling', 'v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', true),
  customresourcedefinitions: rt('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', false),
  certificatesigningrequests: rt('certificates.k8s.io', 'v1', 'certificatesigningrequests', 'CertificateSigningRequest', false),
  storageclasses: rt('storage.k8s.io', 'v1', 'storageclasses', 'StorageClass', false),
  csinodes: rt('storage.k8s.io', 'v1', 'csinodes', 'CSINode', false),
} as const satisfies Record<string, ResourceType>;
