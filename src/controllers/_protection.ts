/**
 * What the pvc-protection and pv-protection controllers share (`pkg/controller/volume/protectionutil`):
 * when an object's protection finalizer is to be added or may be removed, and the object with it added
 * or removed.
 */
type WithFinalizers = { metadata?: { deletionTimestamp?: string; finalizers?: string[] } };

/** `protectionutil.IsDeletionCandidate`: being deleted and still carrying the finalizer. */
export function isDeletionCandidate(obj: WithFinalizers, finalizer: string): boolean {
  return obj.metadata?.deletionTimestamp !== undefined && (obj.metadata.finalizers ?? []).includes(finalizer);
}

/** `protectionutil.NeedToAddFinalizer`: not being deleted and missing the finalizer. */
export function needToAddFinalizer(obj: WithFinalizers, finalizer: string): boolean {
  return obj.metadata?.deletionTimestamp === undefined && !(obj.metadata?.finalizers ?? []).includes(finalizer);
}

/** A copy of `obj` with `finalizer` appended. */
export function withFinalizer<T extends WithFinalizers>(obj: T, finalizer: string): T {
  const clone = structuredClone(obj);
  const md = (clone.metadata ??= {});
  md.finalizers = [...(md.finalizers ?? []), finalizer];
  return clone;
}

/** A copy of `obj` without `finalizer` (and without an empty `finalizers` list). */
export function withoutFinalizer<T extends WithFinalizers>(obj: T, finalizer: string): T {
  const clone = structuredClone(obj);
  const md = (clone.metadata ??= {});
  const rest = (md.finalizers ?? []).filter((f) => f !== finalizer);
  if (rest.length === 0) delete md.finalizers;
  else md.finalizers = rest;
  return clone;
}
