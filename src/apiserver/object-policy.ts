/**
 * kubemix's `ObjectPolicy`: the registry's defaults and validation (src/apiserver/validation) and the
 * admission chain (src/admission) in kube-apiserver's order, reading what plugins need through the
 * watch cache (a quorum read when the cache does not have it yet).
 */
import type { LimitRange, Namespace, Node, Pod, ResourceQuota, ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import type { IngressClass } from 'kubernetes-types/networking/v1.js';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from 'kubernetes-types/admissionregistration/v1.js';
import type { KubeObject } from '../client/client.js';
import { isNotFound } from '../api/errors.js';
import { parseSelector } from '../api/labels.js';
import { FieldSelector } from '../api/fields.js';
import { runMutating, runValidating, type AdmissionAttributes, type AdmissionChain, type AdmissionLookup } from '../admission/index.js';
import { applyDefaults, validate } from './validation/index.js';
import type { ResourceDef, ResourceTable } from './discovery/resource-defs.js';
import type { AdmissionRequest, ObjectPolicy } from './registry/policy.js';
import { servedFromStorage, type Store } from './registry/store.js';
import type { StoredObject } from './storage/watch-cache.js';
import type { OpenApi } from './openapi/index.js';
import type { Authorizer } from './auth/authz.js';
import { decodeTypeError, pruneUnknownFields } from './field-validation.js';
import { defaultCustomResource, pruneCustomResource, validateCustomResource, type CustomResourceScale, type JSONSchemaProps } from './crd/crd-schema.js';

/** `authorizer` is the server's authorizer chain, which admission policies' CEL `authorizer` asks. */
export function storeLookup(table: ResourceTable, store: Store, authorizer: Authorizer): AdmissionLookup {
  const def = (group: string, version: string, resource: string): ResourceDef => {
    const d = table.get(group, version, resource);
    if (d === undefined) throw new Error(`resource ${group}/${version}/${resource} is not served`);
    return d;
  };
  const everything = { labelSelector: parseSelector(''), fieldSelector: FieldSelector.everything() };
  /** A quorum read of storage; undefined when the object does not exist. */
  const fromStorage = async <T>(d: ResourceDef, namespace: string, name: string): Promise<T | undefined> => {
    try {
      return (await store.get(d, namespace, name)) as T;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  };
  /** From the watch cache, or storage when the cache does not have it yet. */
  const get = async <T>(d: ResourceDef, namespace: string, name: string): Promise<T | undefined> => {
    const cache = await store.cache(d);
    const key = d.namespaced ? `${d.keyPrefix}${namespace}/${name}` : `${d.keyPrefix}${name}`;
    const cached = cache.get(key);
    return cached !== undefined ? (cached.obj as T) : fromStorage<T>(d, namespace, name);
  };
  // Some lists are asked on every request (the ValidatingAdmissionPolicy plugin's): an empty cache answers
  // without building a filter.
  const list = async <T>(d: ResourceDef, namespace?: string): Promise<T[]> => {
    const cache = await store.cache(d);
    if (cache.size() === 0) return [];
    return cache.list(store.filter(d, { ...(namespace !== undefined ? { namespace } : {}), ...everything })).map((c) => c.obj as T);
  };
  const quotas = def('', 'v1', 'resourcequotas');
  const policies = table.get('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies');
  const policyBindings = table.get('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicybindings');
  // A param's resource may stop being served (its CRD deleted): then it has no objects.
  const served = (r: { group: string; version: string; resource: string }): ResourceDef | undefined => table.get(r.group, r.version, r.resource);
  return {
    getRuntimeClass: (name) => get<RuntimeClass>(def('node.k8s.io', 'v1', 'runtimeclasses'), '', name),
    getPriorityClass: (name) => get<PriorityClass>(def('scheduling.k8s.io', 'v1', 'priorityclasses'), '', name),
    listPriorityClasses: () => list<PriorityClass>(def('scheduling.k8s.io', 'v1', 'priorityclasses')),
    getNamespace: (name) => get<Namespace>(def('', 'v1', 'namespaces'), '', name),
    getServiceAccount: (namespace, name) => get<ServiceAccount>(def('', 'v1', 'serviceaccounts'), namespace, name),
    listLimitRanges: (namespace) => list<LimitRange>(def('', 'v1', 'limitranges'), namespace),
    getNode: (name) => get<Node>(def('', 'v1', 'nodes'), '', name),
    getPod: (namespace, name) => get<Pod>(def('', 'v1', 'pods'), namespace, name),
    listPods: (namespace) => list<Pod>(def('', 'v1', 'pods'), namespace),
    listStorageClasses: () => list<StorageClass>(def('storage.k8s.io', 'v1', 'storageclasses')),
    listIngressClasses: () => list<IngressClass>(def('networking.k8s.io', 'v1', 'ingressclasses')),
    listResourceQuotas: async (namespace, opts) => {
      // Asked on every namespaced create: a namespace-index lookup in the cache, no selector parsing.
      if (opts?.fresh !== true) return (await store.cache(quotas)).list(store.filter(quotas, { namespace, ...everything })).map((c) => c.obj as ResourceQuota);
      const listed = await store.list(quotas, { namespace, ...everything });
      return listed.items.map((c) => structuredClone(c.obj) as ResourceQuota);
    },
    // The loopback write of kube-apiserver's quota admission: the status subresource, as the apiserver itself.
    updateResourceQuotaStatus: async (quota) => {
      const md = quota.metadata ?? {};
      const { object } = await store.update(quotas, md.namespace ?? '', md.name ?? '', 'status', structuredClone(quota) as StoredObject, {
        user: { username: 'system:apiserver', groups: ['system:masters'] },
        dryRun: false,
        fieldManager: 'kube-apiserver',
      });
      return object as ResourceQuota;
    },
    listValidatingAdmissionPolicies: async () => (policies === undefined ? [] : list<ValidatingAdmissionPolicy>(policies)),
    listValidatingAdmissionPolicyBindings: async () => (policyBindings === undefined ? [] : list<ValidatingAdmissionPolicyBinding>(policyBindings)),
    resourceForKind: (apiVersion, kind) => {
      const slash = apiVersion.indexOf('/');
      const group = slash < 0 ? '' : apiVersion.slice(0, slash);
      const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
      return table.all().find((d) => d.group === group && d.version === version && d.kind === kind && !d.virtual);
    },
    getObject: async (r, namespace, name) => {
      const d = served(r);
      if (d === undefined) return undefined;
      const ns = r.namespaced ? namespace : '';
      return servedFromStorage(d) ? fromStorage<KubeObject>(d, ns, name) : get<KubeObject>(d, ns, name);
    },
    listObjects: async (r, namespace) => {
      const d = served(r);
      if (d === undefined) return [];
      if (!servedFromStorage(d)) return list<KubeObject>(d, namespace === '' ? undefined : namespace);
      const listed = await store.list(d, { ...(namespace !== '' ? { namespace } : {}), ...everything });
      return listed.items.map((c) => c.obj as KubeObject);
    },
    authorize: (a) => authorizer.authorize(a),
  };
}

function attributes(req: AdmissionRequest): AdmissionAttributes {
  return {
    operation: req.operation,
    resource: req.def,
    subresource: req.subresource,
    namespace: req.namespace,
    name: req.name,
    object: req.object,
    oldObject: req.oldObject,
    userInfo: { username: req.userInfo.username, groups: req.userInfo.groups },
    dryRun: req.dryRun,
    ...(req.warnings !== undefined ? { warnings: req.warnings } : {}),
  };
}

export interface ObjectPolicyOptions {
  chain: AdmissionChain;
  lookup: () => AdmissionLookup;
  openapi?: OpenApi;
  /** The structural schema of a custom resource (from its CRD). */
  customSchema?: (def: ResourceDef) => JSONSchemaProps | undefined;
  /** The scale subresource of a custom resource (from its CRD), whose replicas paths are validated. */
  customScale?: (def: ResourceDef) => CustomResourceScale | undefined;
}

export function kubemixObjectPolicy(opts: ObjectPolicyOptions): ObjectPolicy {
  const openapi = opts.openapi;
  const custom = (def: ResourceDef): JSONSchemaProps | undefined => (def.custom ? opts.customSchema?.(def) : undefined);
  return {
    pruneUnknownFields(def: ResourceDef, obj: StoredObject): string[] {
      const schema = custom(def);
      if (schema !== undefined) return pruneCustomResource(schema, obj);
      return openapi !== undefined ? pruneUnknownFields(openapi, def, obj) : [];
    },
    decodeTypeError(def: ResourceDef, obj: StoredObject): string | undefined {
      return openapi !== undefined ? decodeTypeError(openapi, def, obj) : undefined;
    },
    applyDefaults(def, obj) {
      const schema = custom(def);
      if (schema !== undefined) defaultCustomResource(schema, obj);
      else if (!def.custom) applyDefaults({ group: def.group, version: def.version, kind: def.kind }, obj);
    },
    validate(def, obj: StoredObject, old, subresource) {
      const errs = validate({ group: def.group, kind: def.kind }, obj, old, { subresource, namespaced: def.namespaced });
      const schema = custom(def);
      return schema !== undefined ? [...errs, ...validateCustomResource(schema, obj, old, { scale: opts.customScale?.(def), subresource })] : errs;
    },
    async admit(req) {
      await runMutating(opts.chain, attributes(req), opts.lookup());
    },
    async validateAdmission(req) {
      await runValidating(opts.chain, attributes(req), opts.lookup());
    },
  };
}
