export { deepCopy, isObject, jsonEqual, type JsonObject, type JsonValue } from './json.js';
export { applyJsonPatch, decodeJsonPatch, jsonPatchApiError, maxJSONPatchOperations, PatchError, tooManyOperations } from './json-patch.js';
export { applyMergePatch } from './merge-patch.js';
export { applyStrategicMergePatch, smpErrors, strategicMergePatchApiError, type PatchSchema } from './strategic-merge-patch.js';
export { FieldSet, comparePathElements, pathString } from './fieldpath.js';
export {
  applyConflictError,
  applyPatch,
  updateManagedFields,
  type ApplyOptions,
  type ApplySchema,
  type ManagedFieldsEntry,
  type ManagedFieldsOperation,
  type ManagedFieldsOptions,
} from './managed-fields.js';
