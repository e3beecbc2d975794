export { OpenApi, SchemaNode, type FieldTypeMeta, type OpenApiOptions, type Schema } from './openapi.js';
export { isGAVersion, isServedDefinition, isServedGVK, isServedV2Path, isServedV3Path, type GroupVersionKind } from './served.js';
