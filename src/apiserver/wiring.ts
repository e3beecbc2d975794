/**
 * The API server as kubemix runs it: `ApiServer` with the real seams plugged in (table printers,
 * OpenAPI, patches, validation and admission, allocators, eviction policy). Tests of the bare registry
 * construct `ApiServer` directly; everything else uses `createApiServer`.
 */
import { printTable } from './printers/index.js';
import { OpenApi } from './openapi/index.js';
import { ApiServer, type ApiServerOptions } from './server.js';
import type { OpenApiProvider, Patcher, TableConvertor } from './seams.js';
import type { ManagedFieldsUpdater } from './registry/policy.js';
import type { ResourceDef } from './discovery/resource-defs.js';
import type { StoredObject } from './storage/watch-cache.js';
import { statusResetFields } from './registry/strategy.js';
import {
  applyJsonPatch,
  applyMergePatch,
  applyPatch,
  applyStrategicMergePatch,
  jsonPatchApiError,
  maxJSONPatchOperations,
  PatchError,
  strategicMergePatchApiError,
  tooManyOperations,
  updateManagedFields,
  type JsonObject,
} from './patch/index.js';
import { ApiError, apiErrors } from '../api/errors.js';
import { apiVersionOf } from '../api/resources.js';
import type { EvictionPolicy } from './subresources.js';
import { checkEviction } from '../controllers/disruption/eviction.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { kubemixObjectPolicy, storeLookup } from './object-policy.js';
import { ServiceHooks } from './service-hooks.js';
import { defaultAdmissionChain, type AdmissionLookup } from '../admission/index.js';
import { kubernetesServiceIP } from './allocators/index.js';
import { installSecurity, type ServiceAccountOptions } from './auth/security.js';
import { setCsrRequester } from './auth/csr-requester.js';

export const tableConvertor: TableConvertor = {
  toTable(def, objects, opts) {
    return printTable(def.resource, def.group, objects, opts) as unknown as Record<string, unknown>;
  },
};

/** Kubernetes 1.32's published OpenAPI documents, filtered to what kubemix serves. */
export function openApiProvider(openapi: OpenApi): OpenApiProvider {
  return {
    v2: () => openapi.openapiV2(),
    v3Root: () => openapi.openapiV3Paths(),
    v3Doc: (path) => openapi.openapiV3Doc(path),
  };
}

function schemaOf(openapi: OpenApi, def: ResourceDef): ReturnType<OpenApi['nodeFor']> {
  return def.custom ? undefined : openapi.nodeFor({ group: def.group, version: def.version, kind: def.kind });
}

/** The fields a write through the main resource or a subresource cannot change (the strategy resets them). */
function resetFields(def: ResourceDef, subresource: string): string[][] {
  if (subresource === 'status') return statusResetFields(def);
  return def.subresources.has('status') ? [['status']] : [];
}

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** JSON, merge and strategic merge patches and server-side apply, typed by the 1.32 OpenAPI. */
export function patcher(openapi: OpenApi, now: () => number = Date.now): Patcher {
  return {
    patch(def, live, type, body) {
      try {
        if (type === 'json') {
          if (!Array.isArray(body)) throw apiErrors.badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
          if (body.length > maxJSONPatchOperations) throw tooManyOperations(body.length);
          return applyJsonPatch(live as JsonObject, body as JsonObject[]);
        }
        if (!isObject(body)) throw apiErrors.badRequest('json: cannot unmarshal array into Go value of type map[string]interface {}');
        if (type === 'merge') {
          const out = applyMergePatch(live as JsonObject, body);
          if (!isObject(out)) throw apiErrors.badRequest('the patch did not produce an object');
          return out;
        }
        if (def.custom) {
          // Custom resources have no strategic merge metadata (kube-apiserver answers 415 for them).
          throw new ApiError(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml', {});
        }
        try {
          return applyStrategicMergePatch(live as JsonObject, body, schemaOf(openapi, def));
        } catch (e) {
          if (e instanceof PatchError) throw strategicMergePatchApiError(e);
          throw e;
        }
      } catch (e) {
        if (e instanceof PatchError) throw jsonPatchApiError(e);
        throw e;
      }
    },
    apply(def, live, applied, ctx) {
      return applyPatch(live as JsonObject | undefined, applied as JsonObject, schemaOf(openapi, def), {
        manager: ctx.fieldManager,
        apiVersion: apiVersionOf(def),
        ...(ctx.subresource !== '' ? { subresource: ctx.subresource } : {}),
        now: now(),
        force: ctx.force,
        resetFields: resetFields(def, ctx.subresource),
      });
    },
  };
}

/** `metadata.managedFields` for ordinary writes (Update operations), as a real server keeps them. */
export function managedFieldsUpdater(openapi: OpenApi, now: () => number = Date.now): ManagedFieldsUpdater {
  return {
    update(def, live, obj, manager, subresource) {
      const updated = updateManagedFields(live as JsonObject | undefined, obj as JsonObject, schemaOf(openapi, def), {
        manager,
        apiVersion: apiVersionOf(def),
        ...(subresource !== '' ? { subresource } : {}),
        now: now(),
        resetFields: resetFields(def, subresource),
      });
      const mf = (updated['metadata'] as { managedFields?: unknown } | undefined)?.managedFields;
      const md = (obj.metadata ??= {});
      if (mf === undefined) delete md.managedFields;
      else md.managedFields = mf as NonNullable<typeof md.managedFields>;
    },
  };
}

/** The eviction subresource's PodDisruptionBudget decision (the disruption controller's rules). */
export const evictionPolicy: EvictionPolicy = {
  check(pod, pdbs, now) {
    const d = checkEviction(pod as Pod, pdbs as PodDisruptionBudget[], now.getTime());
    if (!d.allowed) throw d.error;
    return d.pdbUpdate !== undefined ? { pdbToUpdate: d.pdbUpdate as unknown as StoredObject } : {};
  },
};

export type CreateApiServerOptions = Omit<ApiServerOptions, 'tables' | 'openapi' | 'policy' | 'hooks' | 'patcher' | 'managedFields' | 'eviction'> & {
  /** The service CIDR (default 10.96.0.0/12) and node port range (default 30000-32767). */
  serviceCIDR?: string;
  nodePortRange?: string;
  /** kube-apiserver's `--anonymous-auth` (kubeadm: true; default false: no credentials -> 401). */
  anonymousAuth?: boolean;
  /** The service account key and issuer; without them no service account tokens are issued or accepted. */
  serviceAccount?: ServiceAccountOptions;
};

export function createApiServer(opts: CreateApiServerOptions): ApiServer {
  const openapi = new OpenApi();
  const services = new ServiceHooks({
    ...(opts.serviceCIDR !== undefined ? { clusterIPs: { cidr: opts.serviceCIDR } } : {}),
    ...(opts.nodePortRange !== undefined ? { nodePorts: { range: opts.nodePortRange } } : {}),
  });
  const holder: { server?: ApiServer; security?: ReturnType<typeof installSecurity>; lookup?: AdmissionLookup } = {};
  const basePolicy = kubemixObjectPolicy({
    openapi,
    customSchema: (def) => holder.server?.crds.schemaFor(def),
    customScale: (def) => holder.server?.crds.scaleFor(def),
    chain: defaultAdmissionChain(),
    // One lookup per server (it reads the table and the store at each call), not one per admission call.
    lookup: () => {
      if (holder.lookup !== undefined) return holder.lookup;
      const s = holder.server;
      if (s === undefined) throw new Error('API server not constructed');
      return (holder.lookup = storeLookup(s.table, s.store, s.authorizer));
    },
  });
  const policy: typeof basePolicy = {
    ...basePolicy,
    admit: async (req) => {
      setCsrRequester(req);
      await holder.security?.checkEscalation(req);
      await basePolicy.admit(req);
    },
  };
  const server = new ApiServer({
    ...opts,
    ...(opts.serviceCIDR !== undefined ? { kubernetesServiceIP: kubernetesServiceIP(opts.serviceCIDR) } : {}),
    tables: tableConvertor,
    openapi: openApiProvider(openapi),
    patcher: patcher(openapi),
    eviction: evictionPolicy,
    managedFields: managedFieldsUpdater(openapi),
    policy,
    hooks: (def) => (def.group === '' && def.resource === 'services' ? services : undefined),
    prepare: async (s) => {
      await services.rebuild(s);
      await holder.security?.prepare();
      await opts.prepare?.(s);
    },
  });
  holder.server = server;
  // Node,RBAC authorization, bootstrap tokens and impersonation, as kubeadm runs kube-apiserver.
  holder.security = installSecurity(server, {
    anonymousAuth: opts.anonymousAuth ?? false,
    ...(opts.serviceAccount !== undefined ? { serviceAccount: opts.serviceAccount } : {}),
  });
  return server;
}
