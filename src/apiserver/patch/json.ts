/** JSON values as patches see them. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Structural equality of JSON values (object key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  let keys = 0;
  for (const k in a) {
    keys++;
    if (!Object.prototype.hasOwnProperty.call(b, k) || !jsonEqual((a as JsonObject)[k], (b as JsonObject)[k])) return false;
  }
  return keys === keyCount(b);
}

/*
 * The walks over JSON objects below use `for...in`, not `Object.keys`: JSON objects have no inherited
 * enumerable members, and `for...in` reads V8's key cache where `Object.keys` allocates an array each time
 * (on the API server's write path those arrays were a tenth of everything it allocated).
 */

/** The number of members of a JSON object. */
export function keyCount(o: object): number {
  let n = 0;
  for (const _ in o) n++;
  return n;
}

/** Whether a JSON object has no members. */
export function isEmptyObject(o: object): boolean {
  for (const _ in o) return false;
  return true;
}

export { deepCopy } from '../../util/deep-copy.js';
