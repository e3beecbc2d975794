/**
 * RFC 7386 JSON merge patch (`application/merge-patch+json`): objects merge recursively, `null` deletes,
 * everything else (arrays included) replaces.
 */
import { deepCopy, isObject, type JsonValue } from './json.js';

export function applyMergePatch(doc: JsonValue, patch: JsonValue): JsonValue {
  if (!isObject(patch)) return deepCopy(patch);
  const target = isObject(doc) ? deepCopy(doc) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete target[k];
    else target[k] = applyMergePatch(target[k] ?? null, v);
  }
  return target;
}
