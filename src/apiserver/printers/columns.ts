/**
 * Server-side printing column definitions, exactly as kube-apiserver 1.32 sends them in `meta.k8s.io/v1`
 * Tables (upstream `pkg/printers/internalversion/printers.go` `AddHandlers`). kube-apiserver always prints
 * with `Wide: true`, so every column, priority 1 included, is present; kubectl hides priority-1 columns
 * unless `-o wide`. Descriptions come from the Go types' `SwaggerDoc()`, see `_swagger-doc.ts`.
 */
import { extensionsV1beta1Doc, swaggerDoc } from './_swagger-doc.js';

export interface TableColumnDefinition {
  name: string;
  /** OpenAPI type of the cells: `string`, `integer`, `number`, `boolean`, `date`. */
  type: string;
  /** `name` for the object-name column, else empty. */
  format: string;
  description: string;
  /** 0: shown by default; 1: `-o wide` only. */
  priority: number;
}

function doc(key: string): string {
  const d = swaggerDoc[key];
  if (d === undefined) throw new Error(`printers: no swagger description for ${key}`);
  return d;
}

function extDoc(key: string): string {
  const d = extensionsV1beta1Doc[key];
  if (d === undefined) throw new Error(`printers: no extensions/v1beta1 description for ${key}`);
  return d;
}

function col(name: string, type: string, description: string, priority = 0, format = ''): TableColumnDefinition {
  return { name, type, format, description, priority };
}

const nameCol = (priority = 0): TableColumnDefinition => col('Name', 'string', doc('ObjectMeta.name'), priority, 'name');
const ageCol = (): TableColumnDefinition => col('Age', 'string', doc('ObjectMeta.creationTimestamp'));
const containersCol = (): TableColumnDefinition => col('Containers', 'string', 'Names of each container in the template.', 1);
const imagesCol = (): TableColumnDefinition => col('Images', 'string', 'Images referenced by each container in the template.', 1);

/** Column definitions by `group/resource` (`/pods` for the core group). */
export const columnDefinitions: Readonly<Record<string, readonly TableColumnDefinition[]>> = {
  '/pods': [
    nameCol(),
    col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    col('Status', 'string', 'The aggregate status of the containers in this pod.'),
    col('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
    ageCol(),
    col('IP', 'string', doc('PodStatus.podIP'), 1),
    col('Node', 'string', doc('PodSpec.nodeName'), 1),
    col('Nominated Node', 'string', doc('PodStatus.nominatedNodeName'), 1),
    col('Readiness Gates', 'string', doc('PodSpec.readinessGates'), 1),
  ],
  'policy/poddisruptionbudgets': [
    nameCol(),
    col('Min Available', 'string', 'The minimum number of pods that must be available.'),
    col('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    col('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
    ageCol(),
  ],
  'apps/replicasets': [
    nameCol(),
    col('Desired', 'integer', doc('ReplicaSetSpec.replicas')),
    col('Current', 'integer', doc('ReplicaSetStatus.replicas')),
    col('Ready', 'integer', extDoc('ReplicaSetStatus.readyReplicas')),
    ageCol(),
    containersCol(),
    imagesCol(),
    col('Selector', 'string', extDoc('ReplicaSetSpec.selector'), 1),
  ],
  'apps/daemonsets': [
    nameCol(),
    col('Desired', 'integer', doc('DaemonSetStatus.desiredNumberScheduled')),
    col('Current', 'integer', doc('DaemonSetStatus.currentNumberScheduled')),
    col('Ready', 'integer', extDoc('DaemonSetStatus.numberReady')),
    col('Up-to-date', 'integer', doc('DaemonSetStatus.updatedNumberScheduled')),
    col('Available', 'integer', doc('DaemonSetStatus.numberAvailable')),
    col('Node Selector', 'string', doc('PodSpec.nodeSelector')),
    ageCol(),
    containersCol(),
    imagesCol(),
    col('Selector', 'string', extDoc('DaemonSetSpec.selector'), 1),
  ],
  'batch/jobs': [
    nameCol(),
    col('Status', 'string', 'Status of the job.'),
    col('Completions', 'string', doc('JobStatus.succeeded')),
    col('Duration', 'string', 'Time required to complete the job.'),
    ageCol(),
    containersCol(),
    imagesCol(),
    col('Selector', 'string', doc('JobSpec.selector'), 1),
  ],
  'batch/cronjobs': [
    nameCol(),
    col('Schedule', 'string', doc('CronJobSpec.schedule')),
    col('Timezone', 'string', extDoc('CronJobSpec.timeZone')),
    col('Suspend', 'boolean', doc('CronJobSpec.suspend')),
    col('Active', 'integer', doc('CronJobStatus.active')),
    col('Last Schedule', 'string', doc('CronJobStatus.lastScheduleTime')),
    ageCol(),
    containersCol(),
    imagesCol(),
    col('Selector', 'string', doc('JobSpec.selector'), 1),
  ],
  '/services': [
    nameCol(),
    col('Type', 'string', doc('ServiceSpec.type')),
    col('Cluster-IP', 'string', doc('ServiceSpec.clusterIP')),
    col('External-IP', 'string', doc('ServiceSpec.externalIPs')),
    col('Port(s)', 'string', doc('ServiceSpec.ports')),
    ageCol(),
    col('Selector', 'string', doc('ServiceSpec.selector'), 1),
  ],
  'networking.k8s.io/ingresses': [
    nameCol(),
    col('Class', 'string', 'The name of the IngressClass resource that should be used for additional configuration'),
    col('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
    col('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
    col('Ports', 'string', 'Ports of TLS configurations that open'),
    ageCol(),
  ],
  'networking.k8s.io/ingressclasses': [
    nameCol(),
    col('Controller', 'string', 'Controller that is responsible for handling this class'),
    col('Parameters', 'string', 'A reference to a resource with additional parameters'),
    ageCol(),
  ],
  'apps/statefulsets': [
    nameCol(),
    col('Ready', 'string', 'Number of the pod with ready state'),
    ageCol(),
    containersCol(),
    imagesCol(),
  ],
  '/endpoints': [nameCol(), col('Endpoints', 'string', doc('Endpoints.subsets')), ageCol()],
  '/nodes': [
    nameCol(),
    col('Status', 'string', 'The status of the node'),
    col('Roles', 'string', 'The roles of the node'),
    ageCol(),
    col('Version', 'string', doc('NodeSystemInfo.kubeletVersion')),
    col('Internal-IP', 'string', doc('NodeStatus.addresses'), 1),
    col('External-IP', 'string', doc('NodeStatus.addresses'), 1),
    col('OS-Image', 'string', doc('NodeSystemInfo.osImage'), 1),
    col('Kernel-Version', 'string', doc('NodeSystemInfo.kernelVersion'), 1),
    col('Container-Runtime', 'string', doc('NodeSystemInfo.containerRuntimeVersion'), 1),
  ],
  '/events': [
    col('Last Seen', 'string', doc('Event.lastTimestamp')),
    col('Type', 'string', doc('Event.type')),
    col('Reason', 'string', doc('Event.reason')),
    col('Object', 'string', doc('Event.involvedObject')),
    col('Subobject', 'string', doc('ObjectReference.fieldPath'), 1),
    col('Source', 'string', doc('Event.source'), 1),
    col('Message', 'string', doc('Event.message')),
    col('First Seen', 'string', doc('Event.firstTimestamp'), 1),
    col('Count', 'string', doc('Event.count'), 1),
    nameCol(1),
  ],
  '/namespaces': [nameCol(), col('Status', 'string', 'The status of the namespace'), ageCol()],
  '/secrets': [nameCol(), col('Type', 'string', doc('Secret.type')), col('Data', 'string', doc('Secret.data')), ageCol()],
  '/serviceaccounts': [nameCol(), col('Secrets', 'string', doc('ServiceAccount.secrets')), ageCol()],
  '/persistentvolumes': [
    nameCol(),
    col('Capacity', 'string', doc('PersistentVolumeSpec.capacity')),
    col('Access Modes', 'string', doc('PersistentVolumeSpec.accessModes')),
    col('Reclaim Policy', 'string', doc('PersistentVolumeSpec.persistentVolumeReclaimPolicy')),
    col('Status', 'string', doc('PersistentVolumeStatus.phase')),
    col('Claim', 'string', doc('PersistentVolumeSpec.claimRef')),
    col('StorageClass', 'string', 'StorageClass of the pv'),
    col('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
    col('Reason', 'string', doc('PersistentVolumeStatus.reason')),
    ageCol(),
    col('VolumeMode', 'string', doc('PersistentVolumeSpec.volumeMode'), 1),
  ],
  '/persistentvolumeclaims': [
    nameCol(),
    col('Status', 'string', doc('PersistentVolumeClaimStatus.phase')),
    col('Volume', 'string', doc('PersistentVolumeClaimSpec.volumeName')),
    col('Capacity', 'string', doc('PersistentVolumeClaimStatus.capacity')),
    col('Access Modes', 'string', doc('PersistentVolumeClaimStatus.accessModes')),
    col('StorageClass', 'string', 'StorageClass of the pvc'),
    col('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
    ageCol(),
    col('VolumeMode', 'string', doc('PersistentVolumeClaimSpec.volumeMode'), 1),
  ],
  'apps/deployments': [
    nameCol(),
    col('Ready', 'string', 'Number of the pod with ready state'),
    col('Up-to-date', 'string', doc('DeploymentStatus.updatedReplicas')),
    col('Available', 'string', doc('DeploymentStatus.availableReplicas')),
    ageCol(),
    containersCol(),
    imagesCol(),
    col('Selector', 'string', extDoc('DeploymentSpec.selector'), 1),
  ],
  'autoscaling/horizontalpodautoscalers': [
    nameCol(),
    col('Reference', 'string', doc('HorizontalPodAutoscalerSpec.scaleTargetRef')),
    col('Targets', 'string', extDoc('HorizontalPodAutoscalerSpec.metrics')),
    col('MinPods', 'string', doc('HorizontalPodAutoscalerSpec.minReplicas')),
    col('MaxPods', 'string', doc('HorizontalPodAutoscalerSpec.maxReplicas')),
    col('Replicas', 'string', doc('HorizontalPodAutoscalerStatus.currentReplicas')),
    ageCol(),
  ],
  '/configmaps': [nameCol(), col('Data', 'string', doc('ConfigMap.data')), ageCol()],
  'networking.k8s.io/networkpolicies': [nameCol(), col('Pod-Selector', 'string', extDoc('NetworkPolicySpec.podSelector')), ageCol()],
  'rbac.authorization.k8s.io/rolebindings': [
    nameCol(),
    col('Role', 'string', extDoc('RoleBinding.roleRef')),
    ageCol(),
    col('Users', 'string', 'Users in the roleBinding', 1),
    col('Groups', 'string', 'Groups in the roleBinding', 1),
    col('ServiceAccounts', 'string', 'ServiceAccounts in the roleBinding', 1),
  ],
  'rbac.authorization.k8s.io/clusterrolebindings': [
    nameCol(),
    col('Role', 'string', extDoc('ClusterRoleBinding.roleRef')),
    ageCol(),
    col('Users', 'string', 'Users in the clusterRoleBinding', 1),
    col('Groups', 'string', 'Groups in the clusterRoleBinding', 1),
    col('ServiceAccounts', 'string', 'ServiceAccounts in the clusterRoleBinding', 1),
  ],
  'coordination.k8s.io/leases': [nameCol(), col('Holder', 'string', doc('LeaseSpec.holderIdentity')), ageCol()],
  'storage.k8s.io/storageclasses': [
    nameCol(),
    col('Provisioner', 'string', doc('StorageClass.provisioner')),
    col('ReclaimPolicy', 'string', doc('StorageClass.reclaimPolicy')),
    col('VolumeBindingMode', 'string', doc('StorageClass.volumeBindingMode')),
    col('AllowVolumeExpansion', 'string', doc('StorageClass.allowVolumeExpansion')),
    ageCol(),
  ],
  'apps/controllerrevisions': [
    nameCol(),
    col('Controller', 'string', 'Controller of the object'),
    col('Revision', 'string', doc('ControllerRevision.revision')),
    ageCol(),
  ],
  '/resourcequotas': [
    nameCol(),
    col('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
    col('Limit', 'string', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
    ageCol(),
  ],
  'scheduling.k8s.io/priorityclasses': [
    nameCol(),
    col('Value', 'integer', doc('PriorityClass.value')),
    col('Global-Default', 'boolean', doc('PriorityClass.globalDefault')),
    ageCol(),
    col('PreemptionPolicy', 'string', doc('PriorityClass.preemptionPolicy')),
  ],
  '/replicationcontrollers': [
    nameCol(),
    col('Desired', 'integer', doc('ReplicationControllerSpec.replicas')),
    col('Current', 'integer', doc('ReplicationControllerStatus.replicas')),
    col('Ready', 'integer', doc('ReplicationControllerStatus.readyReplicas')),
    ageCol(),
    containersCol(),
    imagesCol(),
    col('Selector', 'string', doc('ReplicationControllerSpec.selector'), 1),
  ],
  '/podtemplates': [
    nameCol(),
    col('Containers', 'string', 'Names of each container in the template.'),
    col('Images', 'string', 'Images referenced by each container in the template.'),
    col('Pod Labels', 'string', 'The labels for the pod template.'),
  ],
  // Upstream reads the certificates/v1beta1 docs; the v1 text is used here (see the report).
  'certificates.k8s.io/certificatesigningrequests': [
    nameCol(),
    ageCol(),
    col('SignerName', 'string', doc('CertificateSigningRequestSpec.signerName')),
    col('Requestor', 'string', doc('CertificateSigningRequestSpec.request')),
    col('RequestedDuration', 'string', doc('CertificateSigningRequestSpec.expirationSeconds')),
    col('Condition', 'string', doc('CertificateSigningRequestStatus.conditions')),
  ],
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': [
    nameCol(),
    col('Webhooks', 'integer', 'Webhooks indicates the number of webhooks registered in this configuration'),
    ageCol(),
  ],
  'admissionregistration.k8s.io/validatingwebhookconfigurations': [
    nameCol(),
    col('Webhooks', 'integer', 'Webhooks indicates the number of webhooks registered in this configuration'),
    ageCol(),
  ],
  'storage.k8s.io/volumeattachments': [
    nameCol(),
    col('Attacher', 'string', doc('VolumeAttachmentSpec.attacher'), 0, 'name'),
    col('PV', 'string', doc('VolumeAttachmentSource.persistentVolumeName')),
    col('Node', 'string', doc('VolumeAttachmentSpec.nodeName')),
    col('Attached', 'boolean', doc('VolumeAttachmentStatus.attached')),
    ageCol(),
  ],
  'storage.k8s.io/csinodes': [
    nameCol(),
    col('Drivers', 'integer', 'Drivers indicates the number of CSI drivers registered on the node'),
    ageCol(),
  ],
  'storage.k8s.io/csidrivers': [
    nameCol(),
    col('AttachRequired', 'boolean', doc('CSIDriverSpec.attachRequired')),
    col('PodInfoOnMount', 'boolean', doc('CSIDriverSpec.podInfoOnMount')),
    col('StorageCapacity', 'boolean', doc('CSIDriverSpec.storageCapacity')),
    col('TokenRequests', 'string', doc('CSIDriverSpec.tokenRequests')),
    col('RequiresRepublish', 'boolean', doc('CSIDriverSpec.requiresRepublish')),
    col('Modes', 'string', doc('CSIDriverSpec.volumeLifecycleModes')),
    ageCol(),
  ],
  // Upstream reads `metav1.ObjectMeta{}.SwaggerDoc()["handler"]`, which does not exist: the description is empty.
  'node.k8s.io/runtimeclasses': [nameCol(), col('Handler', 'string', ''), ageCol()],
  'discovery.k8s.io/endpointslices': [
    nameCol(),
    col('AddressType', 'string', doc('EndpointSlice.addressType')),
    col('Ports', 'string', doc('EndpointSlice.ports')),
    col('Endpoints', 'string', doc('EndpointSlice.endpoints')),
    ageCol(),
  ],
};

/**
 * The default table of `k8s.io/apiserver/pkg/registry/rest` `DefaultTableConvertor`, used for every resource
 * without a printer (roles, clusterroles, limitranges, customresourcedefinitions, ...): Name and Created At.
 */
export const defaultColumnDefinitions: readonly TableColumnDefinition[] = [
  nameCol(),
  col('Created At', 'date', doc('ObjectMeta.creationTimestamp')),
];

/** Resources printed with another resource's printer (events.k8s.io Events convert to core Events). */
export const printedAs: Readonly<Record<string, string>> = {
  'events.k8s.io/events': '/events',
};

/** The column definitions kube-apiserver uses for `group/resource`. */
export function columnsFor(group: string, resource: string): readonly TableColumnDefinition[] {
  const key = `${group}/${resource}`;
  return columnDefinitions[printedAs[key] ?? key] ?? defaultColumnDefinitions;
}
