/**
 * Structural sharing between two versions of a JSON object: the parts of a freshly decoded version that
 * equal the previous version's are replaced by the previous version's own values.
 *
 * A thread that keeps every pod read-only (the informers of the controllers and the scheduler, the node
 * host) decodes each change of a pod in full, and each decoded version lives until the next replaces it,
 * seconds later: long enough for V8's young-generation collector to copy it twice before it dies in the
 * old generation. A status change leaves the spec and most of the metadata as they were; with them taken
 * from the previous version, only what changed is new, and the rest of the new tree dies at once.
 */

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * `next` with every part that equals the same part of `prev` (the same JSON value; object members in any
 * order) replaced by `prev`'s: `prev` itself when they are equal throughout, else `next`, updated in place.
 * `next` must be a tree nobody else holds yet (a fresh decode); `prev` is only read.
 */
export function reuseUnchanged(next: unknown, prev: unknown): unknown {
  if (next === prev) return prev;
  if (typeof next !== 'object' || next === null || typeof prev !== 'object' || prev === null) return next;
  if (Array.isArray(next)) {
    if (!Array.isArray(prev)) return next;
    let same = next.length === prev.length;
    for (let i = 0; i < next.length; i++) {
      const v = next[i] as unknown;
      const r = i < prev.length ? reuseUnchanged(v, prev[i]) : v;
      if (r !== v) next[i] = r;
      if (r !== prev[i]) same = false;
    }
    return same ? prev : next;
  }
  if (!isObject(prev)) return next;
  const obj = next as Record<string, unknown>;
  // `for...in` rather than `Object.keys`: no array per object visited (decoded JSON inherits no members).
  let members = 0;
  let same = true;
  for (const k in obj) {
    members++;
    const v = obj[k];
    if (!Object.hasOwn(prev, k)) {
      same = false;
      continue;
    }
    const p = prev[k];
    const r = reuseUnchanged(v, p);
    if (r !== v) obj[k] = r;
    if (r !== p) same = false;
  }
  if (!same) return next;
  for (const _ in prev) members--;
  return members === 0 ? prev : next;
}
