/**
 * RFC 7386 JSON merge patch (`application/merge-patch+json`): objects merge recursively, `null` deletes,
 * everything else (arrays included) replaces.
 */
import { deepCopy, isObject, type JsonValue } from './json.js';

/**
 * The patched document. `doc` is not changed; the result copies the objects along the patch's paths and the
 * patch's values, and shares every other value with `doc` (callers pass a copy of the live object they own).
 */
export function applyMergePatch(doc: JsonValue, patch: JsonValue): JsonValue {
  if (!isObject(patch)) return deepCopy(patch);
  const target = isObject(doc) ? { ...doc } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete target[k];
    else target[k] = applyMergePatch(target[k] ?? null, v);
  }
  return target;
}
