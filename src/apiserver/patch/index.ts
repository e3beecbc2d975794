export { deepCopy, isObject, jsonEqual, type JsonObject, type JsonValue } from './json.js';
export { applyJsonPatch, decodeJsonPatch, jsonPatchApiError, maxJSONPatchOperations, PatchError, tooManyOperations } from './json-patch.js';
export { applyMergePatch } from './merge-patch.js';
export { applyStrategicMergePatch, smpErrors, type PatchSchema } from './strategic-merge-patch.js';
