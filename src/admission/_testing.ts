/** Test helpers: admission attributes and an in-memory lookup. */
import type { LimitRange, Namespace, Node, Pod, ResourceQuota, ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import type { IngressClass } from 'kubernetes-types/networking/v1.js';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from 'kubernetes-types/admissionregistration/v1.js';
import { apiErrors } from '../api/errors.js';
import { apiVersionOf, resources, type ResourceType } from '../api/resources.js';
import type { KubeObject } from '../client/client.js';
import type { AdmissionAttributes, AdmissionLookup, AdmissionOperation, UserInfo } from './types.js';
import type { Decision } from '../apiserver/auth/authz.js';

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
  storageClasses?: StorageClass[];
  ingressClasses?: IngressClass[];
  /** Kept in place: `updateResourceQuotaStatus` replaces the entry and bumps its resourceVersion. */
  resourceQuotas?: ResourceQuota[];
  validatingAdmissionPolicies?: ValidatingAdmissionPolicy[];
  validatingAdmissionPolicyBindings?: ValidatingAdmissionPolicyBinding[];
  /** Objects of other resources (policy params), by resource; `resourceForKind` finds their resources here. */
  objects?: { resource: ResourceType; items: KubeObject[] }[];
  /**
   * What `authorize` answers: the first rule whose given fields all equal the check's decides (`error` makes
   * `authorize` throw); without a matching rule the decision is `noOpinion` with no reason.
   */
  authorizations?: FakeAuthorization[];
}

/** One rule of the fake authorizer; absent fields match anything. */
export interface FakeAuthorization {
  user?: string;
  verb?: string;
  group?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  path?: string;
  decision: Decision;
  reason?: string;
  error?: string;
}

export function fakeLookup(objs: FakeObjects = {}): AdmissionLookup {
  const itemsOf = (r: ResourceType): KubeObject[] => (objs.objects ?? []).find((o) => o.resource.group === r.group && o.resource.resource === r.resource)?.items ?? [];
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
    listPods: async (ns) => (objs.pods ?? []).filter((p) => p.metadata?.namespace === ns),
    listStorageClasses: async () => objs.storageClasses ?? [],
    listIngressClasses: async () => objs.ingressClasses ?? [],
    listResourceQuotas: async (ns) => structuredClone((objs.resourceQuotas ?? []).filter((q) => q.metadata?.namespace === ns)),
    updateResourceQuotaStatus: async (q) => {
      const list = (objs.resourceQuotas ??= []);
      const i = list.findIndex((o) => o.metadata?.name === q.metadata?.name && o.metadata?.namespace === q.metadata?.namespace);
      const live = list[i];
      if (live === undefined) throw apiErrors.notFound({ group: '', resource: 'resourcequotas' }, q.metadata?.name ?? '');
      if (q.metadata?.resourceVersion !== undefined && q.metadata.resourceVersion !== live.metadata?.resourceVersion) {
        throw apiErrors.modified({ group: '', resource: 'resourcequotas' }, q.metadata.name ?? '');
      }
      const next: ResourceQuota = { ...live, metadata: { ...live.metadata, resourceVersion: String(Number(live.metadata?.resourceVersion ?? '0') + 1) } };
      if (q.status !== undefined) next.status = structuredClone(q.status);
      list[i] = next;
      return structuredClone(next);
    },
    listValidatingAdmissionPolicies: async () => objs.validatingAdmissionPolicies ?? [],
    listValidatingAdmissionPolicyBindings: async () => objs.validatingAdmissionPolicyBindings ?? [],
    resourceForKind: (apiVersion, kind) => (objs.objects ?? []).find((o) => apiVersionOf(o.resource) === apiVersion && o.resource.kind === kind)?.resource,
    getObject: async (r, ns, n) => byName(itemsOf(r), n, r.namespaced ? ns : undefined),
    listObjects: async (r, ns) => itemsOf(r).filter((o) => ns === '' || o.metadata?.namespace === ns),
    authorize: async (a) => {
      const rule = (objs.authorizations ?? []).find(
        (r) =>
          (r.user === undefined || r.user === a.user.username) &&
          (r.verb === undefined || r.verb === a.verb) &&
          (r.group === undefined || (a.resourceRequest && r.group === a.group)) &&
          (r.resource === undefined || (a.resourceRequest && r.resource === a.resource)) &&
          (r.subresource === undefined || r.subresource === a.subresource) &&
          (r.namespace === undefined || r.namespace === a.namespace) &&
          (r.name === undefined || r.name === a.name) &&
          (r.path === undefined || (!a.resourceRequest && r.path === a.path)),
      );
      if (rule === undefined) return { decision: 'noOpinion', reason: '' };
      if (rule.error !== undefined) throw new Error(rule.error);
      return { decision: rule.decision, reason: rule.reason ?? '' };
    },
  };
}
