/** The admission chain: the seam (types), the plugins, their registry, and the toleration helpers. */
export type { AdmissionAttributes, AdmissionChain, AdmissionLookup, AdmissionOperation, MutatingPlugin, UserInfo, ValidatingPlugin } from './types.js';
export { defaultAdmissionChain, defaultRegistry, isMutating, isValidating, Registry, runMutating, runValidating } from './registry.js';
export type { AdmissionPlugin, PluginFactory } from './registry.js';
export { names } from './names.js';
export { admissionForbidden } from './_errors.js';
export * from './tolerations.js';
export { NamespaceLifecycle } from './namespace-lifecycle/namespace-lifecycle.js';
export { LimitRanger } from './limit-ranger/limit-ranger.js';
export { ServiceAccount } from './service-account/service-account.js';
export { NodeRestriction, nodeIdentity } from './node-restriction/node-restriction.js';
export { TaintNodesByCondition } from './taint-nodes-by-condition/taint-nodes-by-condition.js';
export { Priority, systemPriorityClasses } from './priority/priority.js';
export { DefaultTolerationSeconds } from './default-toleration-seconds/default-toleration-seconds.js';
export { DefaultStorageClass } from './default-storage-class/default-storage-class.js';
export { StorageObjectInUseProtection } from './storage-object-in-use-protection/storage-object-in-use-protection.js';
export { RuntimeClass } from './runtime-class/runtime-class.js';
export { ResourceQuota } from './resource-quota/resource-quota.js';
