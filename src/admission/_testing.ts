/** Test helpers: admission attributes and an in-memory lookup. */
import type { LimitRange, Namespace, Node, Pod, ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import { resources, type ResourceType } from '../api/resources.js';
import type { KubeObject } from '../client/client.js';
import type { AdmissionAttributes, AdmissionLookup, AdmissionOperation, UserInfo } from './types.js';

export function attrs(
  object: KubeObject | undefined,
  opts: { operation?: AdmissionOperation; resource?: ResourceType; subresource?: string; namespace?: string; name?: string; oldObject?: KubeObject; userInfo?: UserInfo } = {},
): AdmissionAttributes {
  return {
    operation: opts.operation ?? 'CREATE',
    resource: opts.resource ?? resources.pods,
    subresource: opts.subresource ?? '',
    namespace: opts.namespace ?? object?.metadata?.namespace ?? '',
    name: opts.name ?? object?.metadata?.name ?? '',
    object,
    oldObject: opts.oldObject,
    userInfo: opts.userInfo ?? { username: 'admin', groups: ['system:masters'] },
    dryRun: false,
  };
}

export interface FakeObjects {
  runtimeClasses?: RuntimeClass[];
  priorityClasses?: PriorityClass[];
  namespaces?: Namespace[];
  serviceAccounts?: ServiceAccount[];
  limitRanges?: LimitRange[];
  nodes?: Node[];
  pods?: Pod[];
}

export function fakeLookup(objs: FakeObjects = {}): AdmissionLookup {
  const byName = <T extends KubeObject>(list: T[] | undefined, name: string, ns?: string): T | undefined =>
    (list ?? []).find((o) => o.metadata?.name === name && (ns === undefined || o.metadata?.namespace === ns));
  return {
    getRuntimeClass: async (n) => byName(objs.runtimeClasses, n),
    getPriorityClass: async (n) => byName(objs.priorityClasses, n),
    listPriorityClasses: async () => objs.priorityClasses ?? [],
    getNamespace: async (n) => byName(objs.namespaces, n),
    getServiceAccount: async (ns, n) => byName(objs.serviceAccounts, n, ns),
    listLimitRanges: async (ns) => (objs.limitRanges ?? []).filter((l) => l.metadata?.namespace === ns),
    getNode: async (n) => byName(objs.nodes, n),
    getPod: async (ns, n) => byName(objs.pods, n, ns),
  };
}
