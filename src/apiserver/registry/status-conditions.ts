/**
 * How the API server's own controllers (the bootstrap's, the CRD APIService registration) give an object a
 * status condition, as upstream's status patches do: conditions merge by type.
 */
import type { ResourceDef } from '../discovery/resource-defs.js';
import type { StoredObject } from '../storage/watch-cache.js';
import type { RequestContext, Store } from './store.js';

/** A status condition, as far as the writers compare them. */
export interface StatusCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

/**
 * Gives cluster-scoped `stored` condition `c` unless it has one of that type with the same status, reason
 * and message (the time aside): replaces the one of its type, through the status subresource,
 * unconditionally (no writer of these conditions races another). Idempotent.
 */
export async function ensureStatusCondition(store: Store, def: ResourceDef, stored: StoredObject, c: StatusCondition, writer: RequestContext): Promise<void> {
  const conditions = [...(((stored['status'] ?? {}) as { conditions?: StatusCondition[] }).conditions ?? [])];
  const i = conditions.findIndex((x) => x.type === c.type);
  const had = conditions[i];
  if (had !== undefined && had.status === c.status && had.reason === c.reason && had.message === c.message) return;
  if (i >= 0) conditions[i] = c;
  else conditions.push(c);
  const input = structuredClone(stored);
  delete input.metadata?.resourceVersion;
  input['status'] = { ...((input['status'] ?? {}) as Record<string, unknown>), conditions };
  await store.update(def, '', input.metadata?.name ?? '', 'status', input, writer);
}
