/** Structural equality of JSON data, shared by the API server and the controllers. */

/** A scalar as `jsonDeepEqual` compares it: as JSON (NaN and the infinities as null). */
function scalarJson(v: unknown): string {
  return JSON.stringify(v) ?? 'undefined';
}

function hasOwn(o: object, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/**
 * Deep equality of JSON data that ignores key order and undefined members. Scalars compare as their JSON;
 * arrays element by element. Objects, arrays and strings are compared without allocating: controllers
 * compare whole statuses on every sync, and the API server compares fields of every update it validates.
 */
export function jsonDeepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const aObject = a !== null && typeof a === 'object';
  const bObject = b !== null && typeof b === 'object';
  if (!aObject || !bObject) {
    // Two different strings have different JSON.
    if (typeof a === 'string' && typeof b === 'string') return false;
    return !aObject && !bObject && scalarJson(a) === scalarJson(b);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonDeepEqual(a[i], b[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  // Every defined member of x equals y's, and y has no other defined member.
  let members = 0;
  for (const k in x) {
    if (!hasOwn(x, k) || x[k] === undefined) continue;
    members++;
    if (!hasOwn(y, k) || !jsonDeepEqual(x[k], y[k])) return false;
  }
  for (const k in y) if (hasOwn(y, k) && y[k] !== undefined) members--;
  return members === 0;
}
