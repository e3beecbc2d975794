/**
 * The API server as kubemix runs it: `ApiServer` with the real seams plugged in (table printers,
 * OpenAPI, patches, validation and admission, allocators, eviction policy). Tests of the bare registry
 * construct `ApiServer` directly; everything else uses `createApiServer`.
 */
import { printTable } from './printers/index.js';
import { OpenApi } from './openapi/index.js';
import { ApiServer, type ApiServerOptions } from './server.js';
import type { OpenApiProvider, TableConvertor } from './seams.js';
import { kubemixObjectPolicy, storeLookup } from './object-policy.js';
import { ServiceHooks } from './service-hooks.js';
import { defaultAdmissionChain } from '../admission/index.js';
import { kubernetesServiceIP } from './allocators/index.js';

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

export type CreateApiServerOptions = Omit<ApiServerOptions, 'tables' | 'openapi' | 'policy' | 'hooks'> & {
  /** The service CIDR (default 10.96.0.0/12) and node port range (default 30000-32767). */
  serviceCIDR?: string;
  nodePortRange?: string;
};

export function createApiServer(opts: CreateApiServerOptions): ApiServer {
  const openapi = new OpenApi();
  const services = new ServiceHooks({
    ...(opts.serviceCIDR !== undefined ? { clusterIPs: { cidr: opts.serviceCIDR } } : {}),
    ...(opts.nodePortRange !== undefined ? { nodePorts: { range: opts.nodePortRange } } : {}),
  });
  const holder: { server?: ApiServer } = {};
  const policy = kubemixObjectPolicy({
    chain: defaultAdmissionChain(),
    lookup: () => {
      const s = holder.server;
      if (s === undefined) throw new Error('API server not constructed');
      return storeLookup(s.table, s.store);
    },
  });
  const server = new ApiServer({
    ...opts,
    ...(opts.serviceCIDR !== undefined ? { kubernetesServiceIP: kubernetesServiceIP(opts.serviceCIDR) } : {}),
    tables: tableConvertor,
    openapi: openApiProvider(openapi),
    policy,
    hooks: (def) => (def.group === '' && def.resource === 'services' ? services : undefined),
    prepare: async (s) => {
      await services.rebuild(s);
      await opts.prepare?.(s);
    },
  });
  holder.server = server;
  return server;
}
