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

/**
 * Descriptions of the flowcontrol/v1 and storage/v1 fields the newer printers name, copied from the 1.32
 * swagger.json (the same text as the Go types' `SwaggerDoc()`) until `_swagger-doc.ts` is regenerated with them.
 */
const moreSwaggerDoc: Readonly<Record<string, string>> = {
  'PriorityLevelConfigurationReference.name': '`name` is the name of the priority level configuration being referenced Required.',
  'FlowSchemaSpec.matchingPrecedence':
    '`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default.',
  'FlowSchemaSpec.distinguisherMethod':
    '`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string.',
  'PriorityLevelConfigurationSpec.type':
    '`type` indicates whether this priority level is subject to limitation on request execution.  A value of `"Exempt"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `"Limited"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server\'s limited capacity is made available exclusively to this priority level. Required.',
  'LimitedPriorityLevelConfiguration.nominalConcurrencyShares':
    '`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level. This is the number of execution seats available at this priority level. This is used both for requests dispatched from this priority level as well as requests dispatched from other priority levels borrowing seats from this level. The server\'s concurrency limit (ServerCL) is divided among the Limited priority levels in proportion to their NCS values:\n\nNominalCL(i)  = ceil( ServerCL * NCS(i) / sum_ncs ) sum_ncs = sum[priority level k] NCS(k)\n\nBigger numbers mean a larger nominal concurrency limit, at the expense of every other priority level.\n\nIf not specified, this field defaults to a value of 30.\n\nSetting this field to zero supports the construction of a "jail" for this priority level that is used to hold some request(s)',
  'QueuingConfiguration.queues':
    '`queues` is the number of queues for this priority level. The queues exist independently at each apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of 64.',
  'QueuingConfiguration.handSize':
    '`handSize` is a small positive number that configures the shuffle sharding of requests into queues.  When enqueuing a request at this priority level the request\'s flow identifier (a string pair) is hashed and the hash value is used to shuffle the list of queues and deal a hand of the size specified here.  The request is put into one of the shortest queues in that hand. `handSize` must be no larger than `queues`, and should be significantly smaller (so that a few heavy flows do not saturate most of the queues).  See the user-facing documentation for more extensive guidance on setting this field.  This field has a default value of 8.',
  'QueuingConfiguration.queueLengthLimit':
    '`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, it will be defaulted to 50.',
  'CSIStorageCapacity.storageClassName':
    'storageClassName represents the name of the StorageClass that the reported capacity applies to. It must meet the same requirements as the name of a StorageClass object (non-empty, DNS subdomain). If that object no longer exists, the CSIStorageCapacity object is obsolete and should be removed by its creator. This field is immutable.',
  'CSIStorageCapacity.capacity':
    'capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.\n\nThe semantic is currently (CSI spec 1.2) defined as: The available capacity, in bytes, of the storage that can be used to provision volumes. If not set, that information is currently unavailable.',
};

function moreDoc(key: string): string {
  const d = moreSwaggerDoc[key];
  if (d === undefined) throw new Error(`printers: no swagger description for ${key}`);
  return d;
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
  // Age before Request and Limit, as upstream's resourceQuotaColumnDefinitions.
  '/resourcequotas': [
    nameCol(),
    ageCol(),
    col('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
    col('Limit', 'string', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
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
  '/componentstatuses': [
    nameCol(),
    col('Status', 'string', 'Status of the component conditions'),
    col('Message', 'string', 'Message of the component conditions'),
    col('Error', 'string', 'Error of the component conditions'),
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
  // Upstream has no Age column here.
  'storage.k8s.io/csistoragecapacities': [
    nameCol(),
    col('StorageClassName', 'string', moreDoc('CSIStorageCapacity.storageClassName')),
    col('Capacity', 'string', moreDoc('CSIStorageCapacity.capacity')),
  ],
  'admissionregistration.k8s.io/validatingadmissionpolicies': [
    nameCol(),
    col('Validations', 'integer', 'Validations indicates the number of validation rules defined in this configuration'),
    col('ParamKind', 'string', 'ParamKind specifies the kind of resources used to parameterize this policy'),
    ageCol(),
  ],
  // The descriptions' spelling ("binded", "configration") is upstream's.
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': [
    nameCol(),
    col('PolicyName', 'string', 'PolicyName indicates the policy definition which the policy binding binded to'),
    col('ParamRef', 'string', 'ParamRef indicates the param resource which sets the configration param'),
    ageCol(),
  ],
  'flowcontrol.apiserver.k8s.io/flowschemas': [
    nameCol(),
    col('PriorityLevel', 'string', moreDoc('PriorityLevelConfigurationReference.name')),
    col('MatchingPrecedence', 'string', moreDoc('FlowSchemaSpec.matchingPrecedence')),
    col('DistinguisherMethod', 'string', moreDoc('FlowSchemaSpec.distinguisherMethod')),
    ageCol(),
    col('MissingPL', 'string', 'references a broken or non-existent PriorityLevelConfiguration'),
  ],
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': [
    nameCol(),
    col('Type', 'string', moreDoc('PriorityLevelConfigurationSpec.type')),
    col('NominalConcurrencyShares', 'string', moreDoc('LimitedPriorityLevelConfiguration.nominalConcurrencyShares')),
    col('Queues', 'string', moreDoc('QueuingConfiguration.queues')),
    col('HandSize', 'string', moreDoc('QueuingConfiguration.handSize')),
    col('QueueLengthLimit', 'string', moreDoc('QueuingConfiguration.queueLengthLimit')),
    ageCol(),
  ],
  // kube-aggregator's own table convertor (`registry/apiservice/etcd` ConvertToTable), not printers.go.
  'apiregistration.k8s.io/apiservices': [
    nameCol(),
    col('Service', 'string', 'The reference to the service that hosts this API endpoint.'),
    col('Available', 'string', 'Whether this service is available.'),
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
