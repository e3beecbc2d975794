/**
 * The API server as kubemix runs it: `ApiServer` with the real seams plugged in (table printers,
 * OpenAPI, patches, validation and admission, allocators, eviction policy). Tests of the bare registry
 * construct `ApiServer` directly; everything else uses `createApiServer`.
 */
import { printTable } from './printers/index.js';
import { OpenApi } from './openapi/index.js';
import { ApiServer, type ApiServerOptions } from './server.js';
import type { OpenApiProvider, TableConvertor } from './seams.js';

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

export type CreateApiServerOptions = Omit<ApiServerOptions, 'tables' | 'openapi'>;

export function createApiServer(opts: CreateApiServerOptions): ApiServer {
  const openapi = new OpenApi();
  return new ApiServer({ ...opts, tables: tableConvertor, openapi: openApiProvider(openapi) });
}
