/**
 * Freezes a JSON value and everything in it, for values shared by readers that promised not to change
 * them. An object already frozen is taken as frozen all the way down and not walked again (a subtree
 * shared by many objects is frozen once).
 */
export function deepFreeze<T>(v: T): T {
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return v;
  Object.freeze(v);
  for (const x of Object.values(v)) deepFreeze(x);
  return v;
}
