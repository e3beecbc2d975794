/**
 * How field ownership reads a value against its schema (structured-merge-diff's typed values): a struct or
 * map walked by field, a list keyed by its map keys (list-map), by value (set) or owned whole (atomic), and
 * values whose schema makes them atomic.
 */
import type { ApplySchema } from './managed-fields.js';
import { isObject, type JsonValue } from './json.js';

export type Kind = 'scalar' | 'atomic' | 'struct' | 'map' | 'listMap' | 'listSet' | 'listAtomic';

/** What a value is as ownership walks it, by its schema node (without one: by the value itself). */
export function kindOf(node: ApplySchema | undefined, v: JsonValue | undefined): Kind {
  if (!node) {
    if (isObject(v)) return 'map';
    if (Array.isArray(v)) return 'listAtomic';
    return 'scalar';
  }
  const m = node.meta;
  if (node.isList()) {
    const lt = m.listType ?? (hasMergeStrategy(m.patchStrategy) ? (m.patchMergeKey !== undefined ? 'map' : 'set') : 'atomic');
    if (lt === 'map') return 'listMap';
    if (lt === 'set') return 'listSet';
    return 'listAtomic';
  }
  if (m.mapType === 'atomic') return 'atomic';
  if (node.isStruct()) return 'struct';
  if (node.isMap()) return 'map';
  if (isObject(v)) return 'map';
  return 'scalar';
}

/** Whether `x-kubernetes-patch-strategy` (comma-separated) includes `merge`. */
function hasMergeStrategy(ps: string | undefined): boolean {
  if (ps === undefined) return false;
  return ps === 'merge' || ps.startsWith('merge,') || ps.endsWith(',merge') || ps.includes(',merge,');
}

/** The schema of member `key` of a struct or map, or of the items of a list. */
export function childNode(node: ApplySchema | undefined, kind: Kind, key: string): ApplySchema | undefined {
  if (kind === 'struct' || kind === 'map') return node?.field(key);
  return node?.items();
}
