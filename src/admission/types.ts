/**
 * The admission seam: what kube-apiserver's admission chain sees of a request (`admission.Attributes`),
 * what the plugins may read (the API server's watch cache), and the two plugin kinds.
 *
 * Upstream runs the chain in two phases around the registry: every mutating plugin (`Admit`) in order
 * before the object reaches the registry, then every validating plugin (`Validate`) after the registry
 * has defaulted, prepared and validated the object, just before it is stored.
 */
import type { LimitRange, Namespace, Node, Pod, ResourceQuota, ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import type { IngressClass } from 'kubernetes-types/networking/v1.js';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from 'kubernetes-types/admissionregistration/v1.js';
import type { ResourceType } from '../api/resources.js';
import type { KubeObject } from '../client/client.js';
import type { AuthorizationAttributes, Decision } from '../apiserver/auth/authz.js';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface UserInfo {
  username: string;
  groups: string[];
}

/** One request as admission sees it. `object` is the new object (CREATE/UPDATE), `oldObject` the stored one. */
export interface AdmissionAttributes {
  operation: AdmissionOperation;
  resource: ResourceType;
  /** `''` for the main resource; `status`, `binding`, `eviction`, ... */
  subresource: string;
  /** `''` for cluster-scoped resources. */
  namespace: string;
  /** The object name; may be `''` on CREATE (take it from `object.metadata.name`). */
  name: string;
  object: KubeObject | undefined;
  oldObject: KubeObject | undefined;
  userInfo: UserInfo;
  dryRun: boolean;
  /**
   * The response's warnings (`warning.AddWarning`), sent as `Warning: 299 - "..."` headers; absent when the
   * caller has no response to carry them (in-process and offline callers).
   */
  warnings?: string[];
}

/**
 * What the API server provides to plugins: reads from its watch cache (missing objects are `undefined`),
 * and the one write admission makes, ResourceQuota's usage (`quotaAccessor` of
 * plugin/pkg/admission/resourcequota/resource_access.go).
 */
export interface AdmissionLookup {
  getRuntimeClass(name: string): Promise<RuntimeClass | undefined>;
  getPriorityClass(name: string): Promise<PriorityClass | undefined>;
  listPriorityClasses(): Promise<PriorityClass[]>;
  getNamespace(name: string): Promise<Namespace | undefined>;
  getServiceAccount(namespace: string, name: string): Promise<ServiceAccount | undefined>;
  listLimitRanges(namespace: string): Promise<LimitRange[]>;
  getNode(name: string): Promise<Node | undefined>;
  getPod(namespace: string, name: string): Promise<Pod | undefined>;
  /** The namespace's pods (PodSecurity's check of a new enforce level). */
  listPods(namespace: string): Promise<Pod[]>;
  listStorageClasses(): Promise<StorageClass[]>;
  listIngressClasses(): Promise<IngressClass[]>;
  /** The namespace's ResourceQuotas: from the watch cache, or with `fresh` a quorum read of storage. */
  listResourceQuotas(namespace: string, opts?: { fresh?: boolean }): Promise<ResourceQuota[]>;
  /**
   * Writes `quota.status` (the status subresource, preconditioned on `metadata.resourceVersion`); answers
   * the stored quota. Throws the API's 409 Conflict when the quota changed meanwhile.
   */
  updateResourceQuotaStatus(quota: ResourceQuota): Promise<ResourceQuota>;
  /**
   * The ValidatingAdmissionPolicies and their bindings, from the watch cache (the objects are shared: do not
   * mutate). Asked on every request: answers at once when there are none.
   */
  listValidatingAdmissionPolicies(): Promise<ValidatingAdmissionPolicy[]>;
  listValidatingAdmissionPolicyBindings(): Promise<ValidatingAdmissionPolicyBinding[]>;
  /** The served resource of a kind (a policy's `paramKind`: `apiVersion` and `kind`), or undefined. */
  resourceForKind(apiVersion: string, kind: string): ResourceType | undefined;
  /** An object of any served resource (a policy's param), from the watch cache; undefined when missing. */
  getObject(resource: ResourceType, namespace: string, name: string): Promise<KubeObject | undefined>;
  /** The objects of any served resource in a namespace (all namespaces, or cluster-scoped, for `''`). */
  listObjects(resource: ResourceType, namespace: string): Promise<KubeObject[]>;
  /**
   * The API server's authorizer (`authorizer.Authorize`), for the CEL `authorizer` of admission policies: may
   * `a.user` do this? Throws when the authorizer fails.
   */
  authorize(a: AuthorizationAttributes): Promise<{ decision: Decision; reason: string }>;
}

/** A mutating plugin (`admission.MutationInterface`): mutates `a.object` in place; throws `ApiError` to refuse. */
export interface MutatingPlugin {
  readonly name: string;
  admit(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void>;
}

/** A validating plugin (`admission.ValidationInterface`): must not mutate; throws `ApiError` to refuse. */
export interface ValidatingPlugin {
  readonly name: string;
  validate(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void>;
}

/** The chain the API server runs: all mutating plugins in order, later all validating plugins in order. */
export interface AdmissionChain {
  mutating: MutatingPlugin[];
  validating: ValidatingPlugin[];
}
