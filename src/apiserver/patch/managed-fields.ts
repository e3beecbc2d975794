/**
 * Server-side apply and managed fields, after sigs.k8s.io/structured-merge-diff (`merge.Updater`) and
 * k8s.io/apiserver `fieldmanager`: who owns which field (`metadata.managedFields`, FieldsV1), how an apply
 * merges into the live object (list-maps by `x-kubernetes-list-map-keys`, sets by value, atomic values
 * replaced), conflicts (409 with upstream's message), `force`, and removal of fields an applier stopped
 * applying and nobody else owns. Ordinary writes record ownership with `updateManagedFields`.
 */
import { ApiError, StatusReason } from '../../api/errors.js';
import { ShapeMemo } from './creation-shape.js';
import { childNode, kindOf, type Kind } from './schema-kind.js';
import { FieldSet, inPathElementOrder, pathString } from './fieldpath.js';
import { deepCopy, isEmptyObject, isObject, jsonEqual, type JsonObject, type JsonValue } from './json.js';
import { deepFreeze } from '../../util/deep-freeze.js';

/** The schema view server-side apply needs; the OpenAPI `SchemaNode` satisfies it. */
export interface ApplySchema {
  field(name: string): ApplySchema | undefined;
  items(): ApplySchema | undefined;
  readonly meta: { patchStrategy?: string; patchMergeKey?: string; listType?: 'atomic' | 'set' | 'map'; listMapKeys?: string[]; mapType?: 'atomic' | 'granular' };
  isList(): boolean;
  isStruct(): boolean;
  isMap(): boolean;
  /** The OpenAPI default of a struct field, for list-map keys the object omits. */
  defaultOf(field: string): unknown;
  /** A struct's required fields. */
  required(): readonly string[];
  /** `string`, `integer`, `number`, `boolean` for scalars. */
  scalarType(): string | undefined;
}

export type ManagedFieldsOperation = 'Apply' | 'Update';

/** `metav1.ManagedFieldsEntry`, in the key order kube-apiserver writes. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: ManagedFieldsOperation;
  apiVersion: string;
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: JsonObject;
  subresource?: string;
}

export interface ManagedFieldsOptions {
  /** The writer (`fieldManager`, or what kube-apiserver derives from the user agent). */
  manager: string;
  /** The API version the request used (`apps/v1`, `v1`). */
  apiVersion: string;
  /** `status`, `scale`, ... for writes through a subresource. */
  subresource?: string;
  /** The server's clock, ms since the epoch. */
  now: number;
  /**
   * Paths the write cannot change and nobody owns through it (the strategy's reset fields), e.g.
   * `[['status']]` for the main resource and `[['spec']]` for `status`.
   */
  resetFields?: readonly (readonly string[])[];
}

export interface ApplyOptions extends ManagedFieldsOptions {
  /** `?force=true`: take ownership of conflicting fields instead of failing. */
  force?: boolean;
}

interface Entry {
  manager: string;
  operation: ManagedFieldsOperation;
  apiVersion: string;
  time: string | undefined;
  subresource: string | undefined;
  /**
   * `fieldsV1` as read, until the entry's set is replaced. Most writes change one entry at most, so the
   * others are neither decoded nor encoded: their FieldsV1 is written back as it was when it already is
   * what `toFieldsV1` would write.
   */
  raw: unknown;
  /** The set, decoded from `raw` on first use (`fieldsOf`). */
  decoded: FieldSet | undefined;
  /** `raw` is known to be what `toFieldsV1` writes (no need to check it). */
  canonical?: true;
}

function fieldsOf(e: Entry): FieldSet {
  return (e.decoded ??= FieldSet.fromFieldsV1(e.raw));
}

function setFields(e: Entry, s: FieldSet): void {
  e.decoded = s;
  e.raw = undefined;
}

function entryIsEmpty(e: Entry): boolean {
  return e.decoded !== undefined ? e.decoded.isEmpty() : rawIsEmpty(e.raw, true);
}

/** The fields fieldmanager never tracks (`stripMeta`). */
const strippedMeta = ['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'];

/** `2026-11-22T04:23:08Z`: the time to the second, as toISOString writes it without the milliseconds. */
export function rfc3339(ms: number): string {
  const days = Math.floor(ms / 86_400_000);
  const secs = Math.floor((ms - days * 86_400_000) / 1000);
  // Howard Hinnant's civil_from_days (days since 1970-01-01 to year, month, day).
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  // toISOString writes other years with a sign and six digits (and throws outside its range).
  if (!Number.isInteger(ms) || y < 0 || y > 9999) return `${new Date(ms).toISOString().slice(0, -5)}Z`;
  const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
  return `${String(y).padStart(4, '0')}-${two(m)}-${two(d)}T${two(Math.floor(secs / 3600))}:${two(Math.floor(secs / 60) % 60)}:${two(secs % 60)}Z`;
}

/**
 * What ownership does not see, as a tree of keys: `skip` at this level, `below` for deeper levels. The
 * root skips apiVersion and kind, `metadata` the server-owned fields (`stripMeta`), and each reset path
 * its last key. Like deleting those keys from a copy, it applies only where the value is an object.
 */
interface Untracked {
  readonly skip: Set<string>;
  readonly below: Map<string, Untracked>;
}

/** `metadata`'s part of every `Untracked`; never changed (a reset path below `metadata` gets a copy). */
const untrackedMetadata: Untracked = { skip: new Set(strippedMeta), below: new Map() };

function untracked(reset: readonly (readonly string[])[]): Untracked {
  const root: Untracked = { skip: new Set(['apiVersion', 'kind']), below: new Map([['metadata', untrackedMetadata]]) };
  for (const p of reset) {
    let u = root;
    for (let i = 0; i < p.length - 1; i++) {
      const k = p[i] ?? '';
      let next = u.below.get(k);
      if (!next || next === untrackedMetadata) {
        next = { skip: new Set(next?.skip), below: new Map() };
        u.below.set(k, next);
      }
      u = next;
    }
    u.skip.add(p[p.length - 1] ?? '');
  }
  return root;
}

/** The value as ownership sees it (a filtered copy where `u` filters something, else the value itself). */
function view(v: JsonValue, u: Untracked | undefined): JsonValue {
  if (u === undefined || !isObject(v)) return v;
  const out: JsonObject = {};
  for (const k in v) {
    if (u.skip.has(k)) continue;
    out[k] = view(v[k] as JsonValue, u.below.get(k));
  }
  return out;
}

/** `metadata` itself is never owned, only what is inside it (stripMeta's `metadata` path). */
function stripMetadataMember(s: FieldSet): FieldSet {
  const m = s.children.get('f:metadata');
  if (m) {
    m.member = false;
    if (m.isEmpty()) s.children.delete('f:metadata');
  }
  return s;
}

function removePath(o: JsonObject, path: readonly string[]): void {
  let cur: JsonValue | undefined = o;
  for (let i = 0; i < path.length - 1; i++) {
    if (!isObject(cur)) return;
    cur = cur[path[i] ?? ''];
  }
  if (isObject(cur)) delete cur[path[path.length - 1] ?? ''];
}

// ---- typed walking ----

function listKeys(node: ApplySchema | undefined): string[] {
  const m = node?.meta;
  return m?.listMapKeys ?? (m?.patchMergeKey !== undefined ? [m.patchMergeKey] : []);
}

/** The path elements of list items: `k:{"name":"a"}` (keys sorted, omitted keys defaulted) or `v:<json>`. */
function indexItems(kind: Kind, node: ApplySchema | undefined, list: readonly JsonValue[]): Array<[string, JsonValue]> {
  if (kind === 'listSet') return list.map((item) => [`v:${JSON.stringify(item)}`, item]);
  const itemNode = node?.items();
  const keys = [...listKeys(node)].sort();
  return list.map((item) => {
    const key: JsonObject = {};
    for (const k of keys) {
      let v = isObject(item) ? item[k] : undefined;
      if (v === undefined) v = itemNode?.defaultOf(k) as JsonValue | undefined;
      if (v !== undefined) key[k] = v;
    }
    return [`k:${JSON.stringify(key)}`, item];
  });
}

/** Whether a value has a schema-dependent shape (an object or a list); scalars and null are leaves. */
function composite(v: JsonValue | undefined): boolean {
  return typeof v === 'object' && v !== null;
}

/** `TypedValue.ToFieldSet`: the leaves and list items of an applied configuration. */
function toFieldSet(v: JsonValue, node: ApplySchema | undefined, into: FieldSet): void {
  const kind = kindOf(node, v);
  switch (kind) {
    case 'struct':
    case 'map': {
      if (!isObject(v) || isEmptyObject(v)) {
        into.member = true;
        return;
      }
      for (const k in v) toFieldSet(v[k] as JsonValue, childNode(node, kind, k), into.child(`f:${k}`));
      return;
    }
    case 'listMap':
    case 'listSet': {
      if (!Array.isArray(v) || v.length === 0) {
        into.member = true;
        return;
      }
      const itemNode = node?.items();
      for (const [pe, item] of indexItems(kind, node, v)) {
        const c = into.child(pe);
        c.member = true;
        if (kind === 'listMap' && isObject(item) && kindOf(itemNode, item) !== 'atomic') {
          for (const k in item) toFieldSet(item[k] as JsonValue, itemNode?.field(k), c.child(`f:${k}`));
        }
      }
      return;
    }
    default:
      into.member = true;
  }
}

/** Every path of a value, each a member: what an added or removed subtree contributes. */
function fullSet(v: JsonValue, node: ApplySchema | undefined, into: FieldSet): void {
  into.member = true;
  // A scalar is a leaf whatever its schema says.
  if (!composite(v)) return;
  const kind = kindOf(node, v);
  if ((kind === 'struct' || kind === 'map') && isObject(v)) {
    for (const k in v) {
      const x = v[k] as JsonValue;
      const c = into.child(`f:${k}`);
      if (composite(x)) fullSet(x, childNode(node, kind, k), c);
      else c.member = true;
    }
  } else if ((kind === 'listMap' || kind === 'listSet') && Array.isArray(v)) {
    const itemNode = node?.items();
    let itemKind: Kind | undefined;
    for (const [pe, item] of indexItems(kind, node, v)) {
      const c = into.child(pe);
      c.member = true;
      // With a schema, the kind of an object item does not depend on the item.
      if (kind === 'listMap' && isObject(item) && (itemNode ? (itemKind ??= kindOf(itemNode, item)) : kindOf(itemNode, item)) !== 'atomic') {
        for (const k in item) {
          const x = item[k] as JsonValue;
          const f = c.child(`f:${k}`);
          if (composite(x)) fullSet(x, itemNode?.field(k), f);
          else f.member = true;
        }
      }
    }
  }
}

interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** The state of one `compare`: the three sets, built only where something differs, and the current path. */
interface Walk extends Comparison {
  path: string[];
}

function at(s: FieldSet, path: readonly string[]): FieldSet {
  let c = s;
  for (const pe of path) c = c.child(pe);
  return c;
}

/**
 * `TypedValue.Compare` of the objects as ownership sees them: what an update added, changed and removed.
 * Walks the two objects side by side, leaving out what `u` filters, and skips equal subtrees without
 * looking at their schema.
 */
function compare(oldObj: JsonObject, newObj: JsonObject, node: ApplySchema | undefined, u: Untracked): Comparison {
  const w: Walk = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet(), path: [] };
  compareInto(oldObj, newObj, node, u, w);
  const c: Comparison = { added: w.added, modified: w.modified, removed: w.removed };
  stripMetadataMember(c.added);
  stripMetadataMember(c.modified);
  stripMetadataMember(c.removed);
  return c;
}

function same(a: JsonValue, b: JsonValue): boolean {
  return a === b || (typeof a === 'object' && typeof b === 'object' && jsonEqual(a, b));
}

function compareInto(o: JsonValue | undefined, n: JsonValue | undefined, node: ApplySchema | undefined, u: Untracked | undefined, w: Walk): void {
  if (o === n) return;
  if (o === undefined) {
    fullSet(view(n as JsonValue, u), node, at(w.added, w.path));
    return;
  }
  if (n === undefined) {
    fullSet(view(o, u), node, at(w.removed, w.path));
    return;
  }
  if (n === null || typeof n !== 'object') {
    // A scalar (or null) differing from the old value is a change whatever the schema says.
    at(w.modified, w.path).member = true;
    return;
  }
  const kind = kindOf(node, n);
  if (kind === 'struct' || kind === 'map') {
    if (!isObject(n) || (!isObject(o) && o !== null)) {
      if (!jsonEqual(view(o, u), view(n, u))) at(w.modified, w.path).member = true;
      return;
    }
    const ov = isObject(o) ? o : {};
    for (const k in ov) {
      if (u?.skip.has(k) === true) continue;
      const a = ov[k] as JsonValue;
      const b = n[k];
      const below = u?.below.get(k);
      // Where something is filtered out below (metadata), the walk itself skips what is equal.
      if (b !== undefined && below === undefined && same(a, b)) continue;
      w.path.push(`f:${k}`);
      // Scalars compare without their schema.
      compareInto(a, b, composite(a) || composite(b) ? childNode(node, kind, k) : undefined, below, w);
      w.path.pop();
    }
    for (const k in n) {
      if (Object.prototype.hasOwnProperty.call(ov, k) || u?.skip.has(k) === true) continue;
      const a = ov[k];
      const b = n[k];
      w.path.push(`f:${k}`);
      compareInto(a, b, composite(a) || composite(b) ? childNode(node, kind, k) : undefined, u?.below.get(k), w);
      w.path.pop();
    }
    return;
  }
  if (kind === 'listMap' || kind === 'listSet') {
    if (!Array.isArray(n) || (!Array.isArray(o) && o !== null)) {
      if (!jsonEqual(view(o, u), view(n, u))) at(w.modified, w.path).member = true;
      return;
    }
    if (Array.isArray(o) && jsonEqual(o, n)) return;
    const ol = new Map(indexItems(kind, node, Array.isArray(o) ? o : []));
    const nl = new Map(indexItems(kind, node, n));
    const itemNode = node?.items();
    const visit = (pe: string): void => {
      const a = ol.get(pe);
      const b = nl.get(pe);
      if (kind === 'listSet' || a === undefined || b === undefined) {
        if (a === undefined && b !== undefined) fullSet(b, kind === 'listMap' ? itemNode : undefined, at(w.added, w.path).child(pe));
        else if (b === undefined && a !== undefined) fullSet(a, kind === 'listMap' ? itemNode : undefined, at(w.removed, w.path).child(pe));
        return;
      }
      if (same(a, b)) return;
      w.path.push(pe);
      compareInto(a, b, itemNode, undefined, w);
      w.path.pop();
    };
    for (const pe of ol.keys()) visit(pe);
    for (const pe of nl.keys()) if (!ol.has(pe)) visit(pe);
    return;
  }
  if (!jsonEqual(view(o, u), view(n, u))) at(w.modified, w.path).member = true;
}

// ---- merging an applied configuration ----

/** `TypedValue.Merge`: the applied configuration over the live object. */
function merge(l: JsonValue | undefined, r: JsonValue | undefined, node: ApplySchema | undefined): JsonValue | undefined {
  if (r === undefined) return l;
  if (l === undefined || l === null) return deepCopy(r);
  const kind = kindOf(node, r);
  if ((kind === 'struct' || kind === 'map') && isObject(r) && isObject(l)) {
    const out = deepCopy(l);
    for (const [k, v] of Object.entries(r)) {
      if (v === null) {
        delete out[k];
        continue;
      }
      const m = merge(l[k], v, childNode(node, kind, k));
      if (m !== undefined) out[k] = m;
    }
    return out;
  }
  if ((kind === 'listMap' || kind === 'listSet') && Array.isArray(r) && Array.isArray(l)) return mergeList(kind, l, r, node);
  return deepCopy(r);
}

/** structured-merge-diff `visitListItems`: live order kept, applied items placed in applied order. */
function mergeList(kind: Kind, lhs: JsonValue[], rhs: JsonValue[], node: ApplySchema | undefined): JsonValue[] {
  const itemNode = kind === 'listMap' ? node?.items() : undefined;
  const lPEs = indexItems(kind, node, lhs);
  const rPEs = indexItems(kind, node, rhs);
  const observedL = new Map<string, JsonValue>();
  for (const [pe, v] of lPEs) if (!observedL.has(pe)) observedL.set(pe, v);
  const observedR = new Map<string, JsonValue>();
  for (const [pe, v] of rPEs) if (!observedR.has(pe)) observedR.set(pe, v);
  const sharedOrder = rPEs.map(([pe]) => pe).filter((pe) => observedL.has(pe));
  let nextShared = sharedOrder.shift();
  const mergedR = new Set<string>();
  const out: JsonValue[] = [];
  const mergeItem = (pe: string, l: JsonValue | undefined, r: JsonValue | undefined): void => {
    const m = kind === 'listSet' ? (r ?? l) : merge(l, r, itemNode);
    if (m !== undefined) out.push(m);
    void pe;
  };
  let lI = 0;
  let rI = 0;
  while (lI < lPEs.length || rI < rPEs.length) {
    if (lI < lPEs.length && rI < rPEs.length) {
      const pe = lPEs[lI]?.[0] ?? '';
      if (pe === rPEs[rI]?.[0]) {
        mergedR.add(pe);
        mergeItem(pe, observedL.get(pe), observedR.get(pe));
        lI++;
        rI++;
        nextShared = sharedOrder.shift();
        continue;
      }
      if (observedR.has(pe) && nextShared !== undefined && nextShared !== pe) {
        lI++;
        continue;
      }
    }
    if (lI < lPEs.length) {
      const [pe, item] = lPEs[lI] ?? ['', null];
      if (!observedR.has(pe)) {
        mergeItem(pe, item, undefined);
        lI++;
        continue;
      } else if (mergedR.has(pe)) {
        lI++;
        continue;
      }
    }
    if (rI < rPEs.length) {
      const pe = rPEs[rI]?.[0] ?? '';
      mergedR.add(pe);
      mergeItem(pe, observedL.get(pe), observedR.get(pe));
      rI++;
      if (nextShared === pe) nextShared = sharedOrder.shift();
    }
  }
  return out;
}

/** Removes the value at a FieldsV1 path from an object; true when something was removed. */
function removeAt(obj: JsonValue, path: readonly string[], node: ApplySchema | undefined): boolean {
  if (path.length === 0) return false;
  const [pe, ...rest] = path as [string, ...string[]];
  const kind = kindOf(node, obj);
  if (pe.startsWith('f:') && isObject(obj)) {
    const k = pe.slice(2);
    if (!(k in obj)) return false;
    if (rest.length === 0) {
      delete obj[k];
      return true;
    }
    const child = obj[k];
    return child !== undefined && removeAt(child, rest, childNode(node, kind, k));
  }
  if (Array.isArray(obj)) {
    const idx = indexItems(kind, node, obj).findIndex(([p]) => p === pe);
    if (idx < 0) return false;
    if (rest.length === 0) {
      obj.splice(idx, 1);
      return true;
    }
    return removeAt(obj[idx] as JsonValue, rest, node?.items());
  }
  return false;
}

// ---- entries ----

function decode(mf: unknown): Entry[] {
  if (!Array.isArray(mf)) return [];
  const out: Entry[] = [];
  for (const e of mf) {
    if (!isObject(e)) continue;
    out.push({
      manager: typeof e['manager'] === 'string' ? e['manager'] : '',
      operation: e['operation'] === 'Apply' ? 'Apply' : 'Update',
      apiVersion: typeof e['apiVersion'] === 'string' ? e['apiVersion'] : '',
      time: typeof e['time'] === 'string' ? e['time'] : undefined,
      subresource: typeof e['subresource'] === 'string' && e['subresource'] !== '' ? e['subresource'] : undefined,
      raw: e['fieldsV1'],
      decoded: undefined,
    });
  }
  return out;
}

/** The FieldsV1 an entry is written with: the one read when it is unchanged and canonical, else encoded. */
function fieldsV1Of(e: Entry): JsonObject {
  if (e.raw !== undefined && isObject(e.raw) && (e.canonical === true || isCanonicalFieldsV1(e.raw))) return e.raw;
  return fieldsOf(e).toFieldsV1();
}

function encode(entries: readonly Entry[]): ManagedFieldsEntry[] {
  const keyed = entries.map((e) => ({ e, s: entries.length > 1 ? seconds(e.time) : 0 }));
  keyed.sort(({ e: p, s: ps }, { e: q, s: qs }) => {
    if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1;
    if (ps !== qs) return ps - qs;
    if (p.manager !== q.manager) return p.manager < q.manager ? -1 : 1;
    if (p.apiVersion !== q.apiVersion) return p.apiVersion < q.apiVersion ? -1 : 1;
    return (p.subresource ?? '') < (q.subresource ?? '') ? -1 : (p.subresource ?? '') > (q.subresource ?? '') ? 1 : 0;
  });
  return keyed.map(({ e }) => {
    // Key order as kube-apiserver writes it: manager, operation, apiVersion, time, fieldsType, fieldsV1, subresource.
    const out: ManagedFieldsEntry =
      e.time !== undefined
        ? { manager: e.manager, operation: e.operation, apiVersion: e.apiVersion, time: e.time, fieldsType: 'FieldsV1', fieldsV1: fieldsV1Of(e) }
        : { manager: e.manager, operation: e.operation, apiVersion: e.apiVersion, fieldsType: 'FieldsV1', fieldsV1: fieldsV1Of(e) };
    if (e.subresource !== undefined) out.subresource = e.subresource;
    return out;
  });
}

/** Whether `fromFieldsV1` reads this FieldsV1 node as a member: `"."` inside, or (below the root) `{}` or a non-object. */
function rawIsMember(raw: unknown, root: boolean): boolean {
  if (!isObject(raw)) return !root;
  if (hasOwn(raw, '.')) return true;
  return !root && isEmptyObject(raw);
}

function hasOwn(o: object, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/** Whether the set FieldsV1 `raw` stands for is empty. */
function rawIsEmpty(raw: unknown, root: boolean): boolean {
  if (rawIsMember(raw, root)) return false;
  if (!isObject(raw)) return true;
  for (const k in raw) if (k !== '.' && !rawIsEmpty(raw[k], false)) return false;
  return true;
}

/** Whether the set FieldsV1 `raw` stands for and `s` have a member in common. */
function rawOverlaps(raw: unknown, root: boolean, s: FieldSet): boolean {
  if (s.member && rawIsMember(raw, root)) return true;
  if (!isObject(raw)) return false;
  for (const [pe, c] of s.children) if (pe !== '.' && hasOwn(raw, pe) && rawOverlaps(raw[pe], false, c)) return true;
  return false;
}

/** Whether every member of `s` is a member of the set FieldsV1 `raw` stands for. */
function rawContains(raw: unknown, root: boolean, s: FieldSet): boolean {
  if (s.member && !rawIsMember(raw, root)) return false;
  for (const [pe, c] of s.children) {
    if (pe !== '.' && isObject(raw) && hasOwn(raw, pe)) {
      if (!rawContains(raw[pe], false, c)) return false;
    } else if (!c.isEmpty()) {
      return false;
    }
  }
  return true;
}

function overlaps(e: Entry, s: FieldSet): boolean {
  return e.decoded !== undefined ? !e.decoded.intersection(s).isEmpty() : rawOverlaps(e.raw, true, s);
}

function contains(e: Entry, s: FieldSet): boolean {
  return e.decoded !== undefined ? s.difference(e.decoded).isEmpty() : rawContains(e.raw, true, s);
}

/**
 * Whether FieldsV1 is exactly what `FieldSet.fromFieldsV1(raw).toFieldsV1()` gives: `"."` (as `{}`) first
 * and only beside other elements, every other element a member `{}` or a canonical non-empty object, the
 * elements in `comparePathElements` order.
 */
function isCanonicalFieldsV1(raw: JsonObject): boolean {
  const keys = Object.keys(raw);
  let from = 0;
  if (keys[0] === '.') {
    const dot = raw['.'];
    if (keys.length < 2 || !isObject(dot) || Object.keys(dot).length > 0) return false;
    from = 1;
  }
  for (let i = from; i < keys.length; i++) {
    const v = raw[keys[i] as string];
    if (keys[i] === '.' || !isObject(v) || !isCanonicalFieldsV1(v)) return false;
  }
  return inPathElementOrder(keys, from);
}

function sameIdentity(e: Entry, manager: string, operation: ManagedFieldsOperation, subresource: string | undefined, apiVersion: string): boolean {
  // Appliers are identified without their API version (fieldmanager BuildManagerIdentifier).
  return e.manager === manager && e.operation === operation && e.subresource === subresource && (operation === 'Apply' || e.apiVersion === apiVersion);
}

/** `printManager`: `"kubectl"`, `"kube-controller-manager" using apps/v1`, `... with subresource "status" ...`. */
function printManager(e: Entry): string {
  let s = JSON.stringify(e.manager);
  if (e.subresource !== undefined) s = `${s} with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') s = `${s} using ${e.apiVersion}`;
  return s;
}

/** The 409 of a conflicting apply, as `fieldmanager` words it. */
export function applyConflictError(conflicts: ReadonlyArray<{ manager: string; path: string }>): ApiError {
  const causes = conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${c.manager}`, field: c.path }));
  let message: string;
  const first = conflicts[0];
  if (conflicts.length === 1 && first) {
    message = `Apply failed with 1 conflict: conflict with ${first.manager}: ${first.path}`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), c.path]);
    const lines: string[] = [];
    for (const m of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${m}:`);
      for (const p of byManager.get(m) ?? []) lines.push(`- ${p}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError(409, StatusReason.Conflict, message, { causes });
}

/** fieldmanager's cap on Update entries; older ones are merged into `ancient-changes` per API version. */
export const maxUpdateManagers = 10;
const oldUpdatesManagerName = 'ancient-changes';

function seconds(t: string | undefined): number {
  return t === undefined ? 0 : Math.floor(Date.parse(t) / 1000);
}

/** `capManagersManager.capUpdateManagers`. */
function capUpdateManagers(entries: Entry[]): Entry[] {
  const updaters = entries.filter((e) => e.operation === 'Update');
  if (updaters.length <= maxUpdateManagers) return entries;
  updaters.sort((a, b) => seconds(a.time) - seconds(b.time) || (a.manager < b.manager ? -1 : a.manager > b.manager ? 1 : 0));
  let out = [...entries];
  const firstByVersion = new Map<string, Entry>();
  const buckets = new Map<string, Entry>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > maxUpdateManagers; i++) {
    const e = updaters[i];
    if (!e) continue;
    const first = firstByVersion.get(e.apiVersion);
    if (!first) {
      firstByVersion.set(e.apiVersion, e);
      continue;
    }
    let bucket = buckets.get(e.apiVersion);
    if (!bucket) {
      bucket = { manager: oldUpdatesManagerName, operation: 'Update', apiVersion: e.apiVersion, time: first.time, subresource: undefined, raw: undefined, decoded: fieldsOf(first) };
      buckets.set(e.apiVersion, bucket);
      out = out.filter((x) => x !== first);
      out.push(bucket);
    }
    setFields(bucket, fieldsOf(e).union(fieldsOf(bucket)));
    bucket.time = e.time;
    out = out.filter((x) => x !== e);
    length--;
  }
  return out;
}

/**
 * `obj` with the entries as its managedFields. Only the root and `metadata` are copied: the result shares
 * every other value with `obj`.
 */
function withManagedFields(obj: JsonObject, entries: readonly Entry[]): JsonObject {
  const out: JsonObject = { ...obj };
  const meta: JsonObject = isObject(out['metadata']) ? { ...out['metadata'] } : {};
  const live = capUpdateManagers(entries.filter((e) => !entryIsEmpty(e)));
  if (live.length > 0) meta['managedFields'] = encode(live) as unknown as JsonValue;
  else delete meta['managedFields'];
  out['metadata'] = meta;
  return out;
}

/**
 * The object a create is compared with: Go's zero value of the type as kube-apiserver's fieldmanager sees
 * it (`objectCreater.New`, then to JSON). Non-pointer structs marshal as objects even when empty and
 * required fields without `omitempty` marshal as their zero values, so a create owns what is inside
 * `spec`, `spec.template`, `spec.strategy`, ... but not those structs themselves (`f:spec` has no `"."`).
 * OpenAPI cannot tell pointers from values, so the non-pointer struct fields are named here.
 */
const valueStructFields = new Set(['metadata', 'spec', 'status', 'template', 'strategy', 'updateStrategy', 'jobTemplate']);

/**
 * The zero object, or with `only` just the part of it at the paths `only` has: what a create compares with
 * when no manager can lose fields, so only what the new object added or changed matters. (The zero value
 * of a struct field is compared with a non-object only to find it different, so its content is left out.)
 */
function zeroObject(schema: ApplySchema | undefined, only?: JsonObject): JsonObject {
  return schema ? zeroStruct(schema, 0, only) : {};
}

function zeroStruct(node: ApplySchema, depth: number, only: JsonObject | undefined): JsonObject {
  const out: JsonObject = {};
  if (depth > 6) return out;
  const wanted = (k: string): boolean => only === undefined || Object.prototype.hasOwnProperty.call(only, k);
  // ObjectMeta's creationTimestamp is a non-pointer metav1.Time: it marshals as null.
  if (wanted('creationTimestamp') && node.field('creationTimestamp') && node.field('managedFields')) out['creationTimestamp'] = null;
  const requiredFields = node.required();
  const zeroField = (k: string, required: boolean): void => {
    if (!wanted(k)) return;
    const f = node.field(k);
    if (!f) return;
    if (f.isStruct() && f.meta.mapType !== 'atomic') {
      const below = only?.[k];
      out[k] = only !== undefined && !isObject(below) ? {} : zeroStruct(f, depth + 1, isObject(below) ? below : undefined);
    } else if (!required) return;
    else if (f.isList() || f.isMap() || f.isStruct()) out[k] = null;
    else {
      const t = f.scalarType();
      out[k] = t === 'integer' || t === 'number' ? 0 : t === 'boolean' ? false : t === 'string' ? '' : null;
    }
  };
  for (const k of requiredFields) zeroField(k, true);
  for (const k of valueStructFields) if (!requiredFields.includes(k)) zeroField(k, false);
  return out;
}

/**
 * Records an ordinary write (create, update, patch; `operation: Update`) in `metadata.managedFields`:
 * the writer gains every field it added or changed, other managers lose those, and removed fields leave
 * every manager. `old` is undefined for a create. Returns `updated` with the new managedFields.
 * When the request carried its own, different managedFields they replace the live ones first (as upstream).
 */
export function updateManagedFields(old: JsonObject | undefined, updated: JsonObject, schema: ApplySchema | undefined, opts: ManagedFieldsOptions): JsonObject {
  const oldMeta = old?.['metadata'];
  const oldMF = isObject(oldMeta) ? oldMeta['managedFields'] : undefined;
  const newMF = isObject(updated['metadata']) ? updated['metadata']['managedFields'] : undefined;
  const entries = decode(newMF !== undefined && !jsonEqual(newMF, oldMF) ? newMF : oldMF);
  if (old === undefined && entries.length === 0 && schema !== undefined) return withCreateEntry(updated, schema, opts);
  const cmp = compare(old ?? zeroObject(schema), updated, schema, untracked(opts.resetFields ?? []));
  const changed = cmp.added.absorb(cmp.modified);
  const anyChanged = !changed.isEmpty();
  const anyRemoved = !cmp.removed.isEmpty();
  let self = entries.find((e) => sameIdentity(e, opts.manager, 'Update', opts.subresource, opts.apiVersion));
  for (const e of entries) {
    if (e === self) continue;
    // The difference with sets that share no member with the entry's is the entry's set itself.
    if ((anyChanged && overlaps(e, changed)) || (anyRemoved && overlaps(e, cmp.removed))) {
      setFields(e, fieldsOf(e).difference(changed).difference(cmp.removed));
    }
  }
  if (anyChanged || self) {
    if (!self) {
      // The new entry's set: the empty set less what was removed plus what changed.
      self = { manager: opts.manager, operation: 'Update', apiVersion: opts.apiVersion, time: undefined, subresource: opts.subresource, raw: undefined, decoded: changed };
      entries.push(self);
    } else if ((anyRemoved && overlaps(self, cmp.removed)) || (anyChanged && !contains(self, changed))) {
      setFields(self, fieldsOf(self).difference(cmp.removed).union(changed));
    }
    // managedFieldsUpdater: the time moves only when this write took fields.
    if (anyChanged) self.time = rfc3339(opts.now);
  }
  return withManagedFields(updated, entries);
}

/**
 * A create without managedFields of its own: one entry for the writer, owning what the object added to
 * (or changed from) the zero object, if anything. Nobody else can lose fields, so the set depends only on
 * the object's shape (`creationShape`) and is computed once per shape.
 */
function withCreateEntry(updated: JsonObject, schema: ApplySchema, opts: ManagedFieldsOptions): JsonObject {
  const fieldsV1 = createdFieldsV1(updated, schema, opts.resetFields ?? []);
  if (fieldsV1 === undefined) return withManagedFields(updated, []);
  const entry: Entry = {
    manager: opts.manager,
    operation: 'Update',
    apiVersion: opts.apiVersion,
    time: rfc3339(opts.now),
    subresource: opts.subresource,
    raw: fieldsV1,
    decoded: undefined,
    canonical: true,
  };
  return withManagedFields(updated, [entry]);
}

/** The FieldsV1 creates own, by schema, then by reset paths and creation shape; null for none. */
const createdFieldsByShape = new WeakMap<ApplySchema, Map<string, ShapeMemo<JsonObject | null>>>();

function createdFieldsV1(updated: JsonObject, schema: ApplySchema, reset: readonly (readonly string[])[]): JsonObject | undefined {
  let byReset = createdFieldsByShape.get(schema);
  if (byReset === undefined) createdFieldsByShape.set(schema, (byReset = new Map<string, ShapeMemo<JsonObject | null>>()));
  const resetKey = reset.map((p) => p.join('.')).join(';');
  let memo = byReset.get(resetKey);
  if (memo === undefined) byReset.set(resetKey, (memo = new ShapeMemo<JsonObject | null>()));
  const fieldsV1 = memo.get(updated, schema, () => {
    // Only what the object added or changed matters, so the zero object is built only where it has keys.
    const cmp = compare(zeroObject(schema, updated), updated, schema, untracked(reset));
    const owned = cmp.added.absorb(cmp.modified);
    // Shared by every object of this shape: frozen, so that no writer can change the others' entries.
    return owned.isEmpty() ? null : deepFreeze(owned.toFieldsV1());
  });
  return fieldsV1 ?? undefined;
}

/**
 * Server-side apply (`application/apply-patch+yaml`, already parsed): merges `applied` into `live`
 * (undefined for a create), checks and reports conflicts (throws the 409 `ApiError` unless `force`),
 * removes fields this manager applied before, no longer applies and nobody else owns, and records the
 * manager's Apply entry. Returns the new object with managedFields.
 */
export function applyPatch(live: JsonObject | undefined, applied: JsonObject, schema: ApplySchema | undefined, opts: ApplyOptions): JsonObject {
  const reset = opts.resetFields ?? [];
  const u = untracked(reset);
  const patchVersion = applied['apiVersion'];
  if (typeof patchVersion === 'string' && patchVersion !== opts.apiVersion) {
    throw new ApiError(400, StatusReason.BadRequest, `Incorrect version specified in apply patch. Specified patch version: ${patchVersion}, expected: ${opts.apiVersion}`);
  }
  const appliedMetaIn = applied['metadata'];
  if (isObject(appliedMetaIn) && appliedMetaIn['managedFields'] !== undefined && appliedMetaIn['managedFields'] !== null) {
    throw new ApiError(400, StatusReason.BadRequest, 'metadata.managedFields must be nil');
  }
  let liveObj = live ?? {};
  if (live !== undefined && decode(isObject(live['metadata']) ? live['metadata']['managedFields'] : undefined).length === 0) {
    // skipNonAppliedManager: the fields of an object nobody tracked yet belong to `before-first-apply`.
    liveObj = updateManagedFields(undefined, live, schema, { manager: 'before-first-apply', apiVersion: opts.apiVersion, now: opts.now, resetFields: reset });
  }
  const entries = decode(isObject(liveObj['metadata']) ? liveObj['metadata']['managedFields'] : undefined);
  const config = view(applied, u);
  const configSet = new FieldSet();
  toFieldSet(config, schema, configSet);
  configSet.member = false;
  stripMetadataMember(configSet);

  const appliedMerged = deepCopy(applied);
  for (const p of reset) removePath(appliedMerged, p);
  const appliedMeta = appliedMerged['metadata'];
  if (isObject(appliedMeta)) delete appliedMeta['managedFields'];
  const merged = (merge(liveObj, appliedMerged, schema) ?? {}) as JsonObject;

  const self = entries.find((e) => sameIdentity(e, opts.manager, 'Apply', opts.subresource, opts.apiVersion));
  const lastSet = self ? fieldsOf(self) : undefined;
  const cmp = compare(liveObj, merged, schema, u);
  const changed = cmp.added.union(cmp.modified);

  const conflicts: Array<{ entry: Entry; set: FieldSet }> = [];
  for (const e of entries) {
    if (e === self) continue;
    const c = fieldsOf(e).intersection(changed);
    if (!c.isEmpty()) conflicts.push({ entry: e, set: c });
  }
  if (conflicts.length > 0 && opts.force !== true) {
    const list = conflicts
      .flatMap(({ entry, set }) => set.paths().map((p) => ({ manager: printManager(entry), path: pathString(p) })))
      .sort((a, b) => (a.manager < b.manager ? -1 : a.manager > b.manager ? 1 : 0));
    throw applyConflictError(list);
  }
  for (const { entry, set } of conflicts) setFields(entry, fieldsOf(entry).difference(set));

  // Prune what this manager applied before, no longer applies, and nobody else owns.
  const others = entries.filter((e) => e !== self);
  if (lastSet) prune(merged, lastSet, configSet, [], schema, [...others.map(fieldsOf), configSet]);
  const after = compare(liveObj, merged, schema, u);
  for (const e of others) setFields(e, fieldsOf(e).difference(after.removed));

  const now = rfc3339(opts.now);
  const objectChanged = !after.added.isEmpty() || !after.modified.isEmpty() || !after.removed.isEmpty();
  // managedFieldsUpdater stamps every apply; IgnoreManagedFieldsTimestampsTransformer then restores the old
  // managedFields when nothing but timestamps changed. Net effect: the time moves when the object or the
  // ownership changed.
  if (self) {
    const setChanged = !jsonEqual(fieldsOf(self).toFieldsV1(), configSet.toFieldsV1());
    setFields(self, configSet);
    self.apiVersion = opts.apiVersion;
    if (setChanged || objectChanged) self.time = now;
  } else {
    entries.push({ manager: opts.manager, operation: 'Apply', apiVersion: opts.apiVersion, time: now, subresource: opts.subresource, raw: undefined, decoded: configSet });
  }
  return withManagedFields(merged, entries);
}

function prune(obj: JsonObject, last: FieldSet, config: FieldSet | undefined, path: string[], schema: ApplySchema | undefined, owners: readonly FieldSet[]): void {
  for (const [pe, lastChild] of last.children) {
    const cfgChild = config?.children.get(pe);
    const p = [...path, pe];
    if (cfgChild && !cfgChild.isEmpty()) {
      prune(obj, lastChild, cfgChild, p, schema, owners);
      continue;
    }
    if (!owners.some((s) => s.touches(p))) removeAt(obj, p, schema);
    else if (lastChild.children.size > 0) prune(obj, lastChild, undefined, p, schema, owners);
  }
}
