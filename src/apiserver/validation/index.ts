/**
 * Validation of the built-in kinds, as kube-apiserver 1.32's registry strategies run it: pure functions
 * returning `FieldError[]` (empty when valid). The API server turns a non-empty list into
 * `apiErrors.invalid({group, kind}, name, errs)` (422).
 *
 * `validate({group, kind}, obj)` validates a create; `validate(kind, obj, oldObj)` an update. Pass
 * `{ subresource: 'status' }` for status updates (only Pods, Deployments, Namespaces have specific rules;
 * other kinds check metadata only). Unknown kinds validate their metadata only.
 *
 * Job creation mutates the Job (selector generation), as upstream's strategy does; every other validator
 * leaves the object untouched.
 */
import type { KubeObject } from '../../client/client.js';
import type { FieldError } from '../../api/field-errors.js';
import * as admissionregistration from './admissionregistration.js';
import * as apiextensions from './apiextensions.js';
import * as apiregistration from './apiregistration.js';
import * as apps from './apps.js';
import * as autoscaling from './autoscaling.js';
import * as batch from './batch.js';
import * as core from './core.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { nameIsDNSSubdomain } from './_names.js';
import * as networking from './networking.js';
import * as pod from './pod.js';
import * as policy from './policy.js';
import * as rbac from './rbac.js';
import * as service from './service.js';
import * as storage from './storage.js';

export interface GroupKind {
  group: string;
  kind: string;
}

export interface ValidateOptions {
  subresource?: string;
  /** Names of namespaced kinds not in the table (for metadata-only validation of unknown kinds). */
  namespaced?: boolean;
}

// The kubernetes-types interfaces are structural; the dispatcher narrows by kind and casts.
type Create = (obj: never) => FieldError[];
type Update = (obj: never, old: never) => FieldError[];

interface KindValidators {
  create: Create;
  update: Update;
  status?: Update;
}

const table: Record<string, KindValidators> = {
  '/Pod': { create: pod.validatePodCreate, update: pod.validatePodUpdate, status: pod.validatePodStatusUpdate },
  '/Service': { create: service.validateService, update: service.validateServiceUpdate },
  '/Node': { create: core.validateNode, update: core.validateNodeUpdate, status: core.validateNodeUpdate },
  '/Namespace': { create: core.validateNamespace, update: core.validateNamespaceUpdate, status: core.validateNamespaceStatusUpdate },
  '/ConfigMap': { create: core.validateConfigMap, update: core.validateConfigMapUpdate },
  '/Secret': { create: core.validateSecret, update: core.validateSecretUpdate },
  '/ServiceAccount': { create: core.validateServiceAccount, update: (n: KubeObject, o: KubeObject) => validateObjectMetaUpdate(n.metadata, o.metadata) },
  '/Event': { create: core.validateEvent, update: (n: KubeObject, o: KubeObject) => validateObjectMetaUpdate(n.metadata, o.metadata) },
  '/Endpoints': { create: core.validateEndpoints, update: (n: KubeObject, o: KubeObject) => [...validateObjectMetaUpdate(n.metadata, o.metadata), ...core.validateEndpoints(n as never).filter((e) => !e.field.startsWith('metadata.'))] },
  '/ReplicationController': { create: core.validateReplicationController, update: core.validateReplicationControllerUpdate, status: core.validateReplicationControllerStatusUpdate },
  '/PersistentVolumeClaim': { create: storage.validatePersistentVolumeClaim, update: storage.validatePersistentVolumeClaimUpdate, status: storage.validatePersistentVolumeClaimStatusUpdate },
  '/LimitRange': { create: core.validateLimitRange, update: (n: KubeObject, o: KubeObject) => [...validateObjectMetaUpdate(n.metadata, o.metadata), ...core.validateLimitRange(n as never).filter((e) => !e.field.startsWith('metadata.'))] },
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy': {
    create: admissionregistration.validateValidatingAdmissionPolicy,
    update: admissionregistration.validateValidatingAdmissionPolicyUpdate,
  },
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding': {
    create: admissionregistration.validateValidatingAdmissionPolicyBinding,
    update: admissionregistration.validateValidatingAdmissionPolicyBindingUpdate,
  },
  'apiextensions.k8s.io/CustomResourceDefinition': {
    create: apiextensions.validateCustomResourceDefinition,
    update: apiextensions.validateCustomResourceDefinitionUpdate,
    status: apiextensions.validateCustomResourceDefinitionStatusUpdate,
  },
  'apiregistration.k8s.io/APIService': { create: apiregistration.validateAPIService, update: apiregistration.validateAPIServiceUpdate, status: apiregistration.validateAPIServiceStatusUpdate },
  'apps/Deployment': { create: apps.validateDeployment, update: apps.validateDeploymentUpdate, status: apps.validateDeploymentStatusUpdate },
  'apps/ReplicaSet': { create: apps.validateReplicaSet, update: apps.validateReplicaSetUpdate },
  'apps/DaemonSet': { create: apps.validateDaemonSet, update: apps.validateDaemonSetUpdate },
  'apps/StatefulSet': { create: apps.validateStatefulSet, update: apps.validateStatefulSetUpdate },
  'batch/Job': { create: batch.validateJob, update: batch.validateJobUpdate },
  'batch/CronJob': { create: batch.validateCronJob, update: batch.validateCronJobUpdate },
  'node.k8s.io/RuntimeClass': { create: core.validateRuntimeClass, update: core.validateRuntimeClassUpdate },
  'scheduling.k8s.io/PriorityClass': { create: core.validatePriorityClass, update: core.validatePriorityClassUpdate },
  'coordination.k8s.io/Lease': { create: core.validateLease, update: core.validateLeaseUpdate },
  'policy/PodDisruptionBudget': { create: policy.validatePodDisruptionBudget, update: policy.validatePodDisruptionBudgetUpdate, status: policy.validatePodDisruptionBudgetStatusUpdate },
  'discovery.k8s.io/EndpointSlice': {
    create: core.validateEndpointSlice,
    update: (n: KubeObject, o: KubeObject) => [...validateObjectMetaUpdate(n.metadata, o.metadata), ...core.validateEndpointSlice(n as never).filter((e) => !e.field.startsWith('metadata.'))],
  },
  'autoscaling/HorizontalPodAutoscaler': {
    create: autoscaling.validateHorizontalPodAutoscaler,
    update: autoscaling.validateHorizontalPodAutoscalerUpdate,
    status: autoscaling.validateHorizontalPodAutoscalerStatusUpdate,
  },
  'networking.k8s.io/Ingress': { create: networking.validateIngressCreate, update: networking.validateIngressUpdate, status: networking.validateIngressStatusUpdate },
  'networking.k8s.io/IngressClass': { create: networking.validateIngressClass, update: networking.validateIngressClassUpdate },
  'networking.k8s.io/NetworkPolicy': { create: networking.validateNetworkPolicy, update: networking.validateNetworkPolicyUpdate },
  'rbac.authorization.k8s.io/Role': { create: rbac.validateRole, update: rbac.validateRoleUpdate },
  'rbac.authorization.k8s.io/ClusterRole': { create: rbac.validateClusterRole, update: rbac.validateClusterRoleUpdate },
  'rbac.authorization.k8s.io/RoleBinding': { create: rbac.validateRoleBinding, update: rbac.validateRoleBindingUpdate },
  'rbac.authorization.k8s.io/ClusterRoleBinding': { create: rbac.validateClusterRoleBinding, update: rbac.validateClusterRoleBindingUpdate },
};

/** Validates a create (no `oldObj`) or an update of one object of the given kind. */
export function validate<T extends KubeObject>(kind: GroupKind, obj: T, oldObj?: T, opts: ValidateOptions = {}): FieldError[] {
  const key = `${kind.group}/${kind.kind}`;
  const v = table[key];
  if (v === undefined) {
    // Kinds outside the table (custom resources, CRDs, ...) get apimachinery's generic metadata rules.
    if (oldObj === undefined) {
      return validateObjectMeta(obj.metadata, { namespaced: opts.namespaced ?? (obj.metadata?.namespace ?? '') !== '', nameFn: nameIsDNSSubdomain, kubeFinalizers: false });
    }
    return validateObjectMetaUpdate(obj.metadata, oldObj.metadata, undefined, { kubeFinalizers: false });
  }
  if (oldObj === undefined) return v.create(obj as never);
  if (opts.subresource === 'status') {
    if (v.status !== undefined) return v.status(obj as never, oldObj as never);
    return validateObjectMetaUpdate(obj.metadata, oldObj.metadata);
  }
  if (opts.subresource === 'finalize' && key === '/Namespace') return core.validateNamespaceFinalizeUpdate(obj as never, oldObj as never);
  return v.update(obj as never, oldObj as never);
}

export { apps, batch, core, pod, service };
export * from './objectmeta.js';
export * from './scheduling.js';
export * from './resources.js';
export * as names from './_names.js';
export { generateJobSelector } from './batch.js';
export { validateOS, validateLinux, validateWindows, validateWindowsHostProcessPod, validatePodCreate, validatePodUpdate, validatePodStatusUpdate, validatePodSpec, validatePodTemplateSpec } from './pod.js';
export { validateService, validateServiceUpdate } from './service.js';
export * from './defaults.js';
