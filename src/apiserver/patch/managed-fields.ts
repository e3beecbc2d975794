/**
 * Server-side apply and managed fields, after sigs.k8s.io/structured-merge-diff (`merge.Updater`) and
 * k8s.io/apiserver `fieldmanager`: who owns which field (`metadata.managedFields`, FieldsV1), how an apply
 * merges into the live object (list-maps by `x-kubernetes-list-map-keys`, sets by value, atomic values
 * replaced), conflicts (409 with upstream's message), `force`, and removal of fields an applier stopped
 * applying and nobody else owns. Ordinary writes record ownership with `updateManagedFields`.
 */
import { ApiError, StatusReason } from '../../api/errors.js';
import { FieldSet, pathString } from './fieldpath.js';
import { deepCopy, isObject, jsonEqual, type JsonObject, type JsonValue } from './json.js';

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
  set: FieldSet;
}

/** The fields fieldmanager never tracks (`stripMeta`). */
const strippedMeta = ['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'];

function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The object as ownership sees it: no apiVersion/kind, no server-owned metadata, no reset fields. */
function tracked(obj: JsonObject | undefined, reset: readonly (readonly string[])[]): JsonObject {
  const o = deepCopy(obj ?? {});
  delete o['apiVersion'];
  delete o['kind'];
  const meta = o['metadata'];
  if (isObject(meta)) for (const k of strippedMeta) delete meta[k];
  for (const p of reset) removePath(o, p);
  return o;
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

type Kind = 'scalar' | 'atomic' | 'struct' | 'map' | 'listMap' | 'listSet' | 'listAtomic';

function kindOf(node: ApplySchema | undefined, v: JsonValue | undefined): Kind {
  if (!node) {
    if (isObject(v)) return 'map';
    if (Array.isArray(v)) return 'listAtomic';
    return 'scalar';
  }
  const m = node.meta;
  if (node.isList()) {
    const strategies = (m.patchStrategy ?? '').split(',');
    const lt = m.listType ?? (strategies.includes('merge') ? (m.patchMergeKey !== undefined ? 'map' : 'set') : 'atomic');
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

function listKeys(node: ApplySchema | undefined): string[] {
  const m = node?.meta;
  return m?.listMapKeys ?? (m?.patchMergeKey !== undefined ? [m.patchMergeKey] : []);
}

/** The path element of a list item: `k:{"name":"a"}` (keys sorted, omitted keys defaulted) or `v:<json>`. */
function itemElement(kind: Kind, node: ApplySchema | undefined, item: JsonValue): string {
  if (kind === 'listSet') return `v:${JSON.stringify(item)}`;
  const itemNode = node?.items();
  const key: JsonObject = {};
  for (const k of [...listKeys(node)].sort()) {
    let v = isObject(item) ? item[k] : undefined;
    if (v === undefined) v = itemNode?.defaultOf(k) as JsonValue | undefined;
    if (v !== undefined) key[k] = v;
  }
  return `k:${JSON.stringify(key)}`;
}

function indexItems(kind: Kind, node: ApplySchema | undefined, list: readonly JsonValue[]): Array<[string, JsonValue]> {
  return list.map((item) => [itemElement(kind, node, item), item]);
}

function childNode(node: ApplySchema | undefined, kind: Kind, key: string): ApplySchema | undefined {
  if (kind === 'struct' || kind === 'map') return node?.field(key);
  return node?.items();
}

/** `TypedValue.ToFieldSet`: the leaves and list items of an applied configuration. */
function toFieldSet(v: JsonValue, node: ApplySchema | undefined, into: FieldSet): void {
  const kind = kindOf(node, v);
  switch (kind) {
    case 'struct':
    case 'map': {
      if (!isObject(v) || Object.keys(v).length === 0) {
        into.member = true;
        return;
      }
      for (const [k, x] of Object.entries(v)) toFieldSet(x, childNode(node, kind, k), into.child(`f:${k}`));
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
          for (const [k, x] of Object.entries(item)) toFieldSet(x, itemNode?.field(k), c.child(`f:${k}`));
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
  const kind = kindOf(node, v);
  if ((kind === 'struct' || kind === 'map') && isObject(v)) {
    for (const [k, x] of Object.entries(v)) fullSet(x, childNode(node, kind, k), into.child(`f:${k}`));
  } else if ((kind === 'listMap' || kind === 'listSet') && Array.isArray(v)) {
    const itemNode = node?.items();
    for (const [pe, item] of indexItems(kind, node, v)) {
      const c = into.child(pe);
      c.member = true;
      if (kind === 'listMap' && isObject(item) && kindOf(itemNode, item) !== 'atomic') {
        for (const [k, x] of Object.entries(item)) fullSet(x, itemNode?.field(k), c.child(`f:${k}`));
      }
    }
  }
}

interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** `TypedValue.Compare`: what an update added, changed and removed. */
function compare(oldV: JsonValue | undefined, newV: JsonValue | undefined, node: ApplySchema | undefined): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareInto(oldV, newV, node, c.added, c.modified, c.removed, true);
  stripMetadataMember(c.added);
  stripMetadataMember(c.modified);
  stripMetadataMember(c.removed);
  return c;
}

function compareInto(o: JsonValue | undefined, n: JsonValue | undefined, node: ApplySchema | undefined, added: FieldSet, modified: FieldSet, removed: FieldSet, root: boolean): void {
  if (o === undefined && n === undefined) return;
  if (o === undefined) {
    fullSet(n as JsonValue, node, added);
    if (root) added.member = false;
    return;
  }
  if (n === undefined) {
    fullSet(o, node, removed);
    if (root) removed.member = false;
    return;
  }
  const kind = kindOf(node, n ?? o);
  if (kind === 'struct' || kind === 'map') {
    if (!isObject(n) || (!isObject(o) && o !== null)) {
      if (!jsonEqual(o, n)) modified.member = true;
      return;
    }
    const ov = isObject(o) ? o : {};
    for (const k of new Set([...Object.keys(ov), ...Object.keys(n)])) {
      const pe = `f:${k}`;
      compareInto(ov[k], n[k], childNode(node, kind, k), added.child(pe), modified.child(pe), removed.child(pe), false);
    }
    return;
  }
  if (kind === 'listMap' || kind === 'listSet') {
    if (!Array.isArray(n) || (!Array.isArray(o) && o !== null)) {
      if (!jsonEqual(o, n)) modified.member = true;
      return;
    }
    const ol = new Map(indexItems(kind, node, Array.isArray(o) ? o : []));
    const nl = new Map(indexItems(kind, node, n));
    const itemNode = node?.items();
    for (const pe of new Set([...ol.keys(), ...nl.keys()])) {
      const a = ol.get(pe);
      const b = nl.get(pe);
      if (kind === 'listSet' || a === undefined || b === undefined) {
        if (a === undefined && b !== undefined) fullSet(b, kind === 'listMap' ? itemNode : undefined, added.child(pe));
        else if (b === undefined && a !== undefined) fullSet(a, kind === 'listMap' ? itemNode : undefined, removed.child(pe));
        continue;
      }
      compareInto(a, b, itemNode, added.child(pe), modified.child(pe), removed.child(pe), false);
    }
    return;
  }
  if (!jsonEqual(o, n)) modified.member = true;
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
      set: FieldSet.fromFieldsV1(e['fieldsV1']),
    });
  }
  return out;
}

function encode(entries: readonly Entry[]): ManagedFieldsEntry[] {
  const sorted = [...entries].sort((p, q) => {
    if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1;
    const ps = p.time !== undefined ? Math.floor(Date.parse(p.time) / 1000) : 0;
    const qs = q.time !== undefined ? Math.floor(Date.parse(q.time) / 1000) : 0;
    if (ps !== qs) return ps - qs;
    if (p.manager !== q.manager) return p.manager < q.manager ? -1 : 1;
    if (p.apiVersion !== q.apiVersion) return p.apiVersion < q.apiVersion ? -1 : 1;
    return (p.subresource ?? '') < (q.subresource ?? '') ? -1 : (p.subresource ?? '') > (q.subresource ?? '') ? 1 : 0;
  });
  return sorted.map((e) => {
    const out: ManagedFieldsEntry = { manager: e.manager, operation: e.operation, apiVersion: e.apiVersion, fieldsType: 'FieldsV1', fieldsV1: e.set.toFieldsV1() };
    if (e.time !== undefined) {
      // Key order as kube-apiserver writes it: manager, operation, apiVersion, time, fieldsType, fieldsV1, subresource.
      const { manager, operation, apiVersion, fieldsType, fieldsV1 } = out;
      const ordered: ManagedFieldsEntry = { manager, operation, apiVersion, time: e.time, fieldsType, fieldsV1 };
      if (e.subresource !== undefined) ordered.subresource = e.subresource;
      return ordered;
    }
    if (e.subresource !== undefined) out.subresource = e.subresource;
    return out;
  });
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
      bucket = { manager: oldUpdatesManagerName, operation: 'Update', apiVersion: e.apiVersion, time: first.time, subresource: undefined, set: first.set };
      buckets.set(e.apiVersion, bucket);
      out = out.filter((x) => x !== first);
      out.push(bucket);
    }
    bucket.set = e.set.union(bucket.set);
    bucket.time = e.time;
    out = out.filter((x) => x !== e);
    length--;
  }
  return out;
}

function withManagedFields(obj: JsonObject, entries: readonly Entry[]): JsonObject {
  const out = deepCopy(obj);
  const meta = isObject(out['metadata']) ? out['metadata'] : {};
  const live = capUpdateManagers(entries.filter((e) => !e.set.isEmpty()));
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

function zeroObject(schema: ApplySchema | undefined): JsonObject {
  return schema ? zeroStruct(schema, 0) : {};
}

function zeroStruct(node: ApplySchema, depth: number): JsonObject {
  const out: JsonObject = {};
  if (depth > 6) return out;
  // ObjectMeta's creationTimestamp is a non-pointer metav1.Time: it marshals as null.
  if (node.field('creationTimestamp') && node.field('managedFields')) out['creationTimestamp'] = null;
  const fields = new Set([...node.required(), ...valueStructFields]);
  for (const k of fields) {
    const f = node.field(k);
    if (!f) continue;
    const required = node.required().includes(k);
    if (f.isStruct() && f.meta.mapType !== 'atomic') out[k] = zeroStruct(f, depth + 1);
    else if (!required) continue;
    else if (f.isList() || f.isMap() || f.isStruct()) out[k] = null;
    else {
      const t = f.scalarType();
      out[k] = t === 'integer' || t === 'number' ? 0 : t === 'boolean' ? false : t === 'string' ? '' : null;
    }
  }
  return out;
}

/**
 * Records an ordinary write (create, update, patch; `operation: Update`) in `metadata.managedFields`:
 * the writer gains every field it added or changed, other managers lose those, and removed fields leave
 * every manager. `old` is undefined for a create. Returns `updated` with the new managedFields.
 * When the request carried its own, different managedFields they replace the live ones first (as upstream).
 */
export function updateManagedFields(old: JsonObject | undefined, updated: JsonObject, schema: ApplySchema | undefined, opts: ManagedFieldsOptions): JsonObject {
  const reset = opts.resetFields ?? [];
  const oldMeta = old?.['metadata'];
  const oldMF = isObject(oldMeta) ? oldMeta['managedFields'] : undefined;
  const newMF = isObject(updated['metadata']) ? updated['metadata']['managedFields'] : undefined;
  const entries = decode(newMF !== undefined && !jsonEqual(newMF, oldMF) ? newMF : oldMF);
  const cmp = compare(tracked(old ?? zeroObject(schema), reset), tracked(updated, reset), schema);
  const changed = cmp.added.union(cmp.modified);
  const now = rfc3339(opts.now);
  let self = entries.find((e) => sameIdentity(e, opts.manager, 'Update', opts.subresource, opts.apiVersion));
  for (const e of entries) {
    if (e === self) continue;
    e.set = e.set.difference(changed).difference(cmp.removed);
  }
  if (!changed.isEmpty() || self) {
    if (!self) {
      self = { manager: opts.manager, operation: 'Update', apiVersion: opts.apiVersion, time: now, subresource: opts.subresource, set: new FieldSet() };
      entries.push(self);
    }
    const next = self.set.difference(cmp.removed).union(changed);
    // managedFieldsUpdater: the time moves only when this write took fields.
    if (!changed.isEmpty()) self.time = now;
    self.set = next;
  }
  return withManagedFields(updated, entries);
}

/**
 * Server-side apply (`application/apply-patch+yaml`, already parsed): merges `applied` into `live`
 * (undefined for a create), checks and reports conflicts (throws the 409 `ApiError` unless `force`),
 * removes fields this manager applied before, no longer applies and nobody else owns, and records the
 * manager's Apply entry. Returns the new object with managedFields.
 */
export function applyPatch(live: JsonObject | undefined, applied: JsonObject, schema: ApplySchema | undefined, opts: ApplyOptions): JsonObject {
  const reset = opts.resetFields ?? [];
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
  const config = tracked(applied, reset);
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
  const lastSet = self?.set;
  const cmp = compare(tracked(liveObj, reset), tracked(merged, reset), schema);
  const changed = cmp.added.union(cmp.modified);

  const conflicts: Array<{ entry: Entry; set: FieldSet }> = [];
  for (const e of entries) {
    if (e === self) continue;
    const c = e.set.intersection(changed);
    if (!c.isEmpty()) conflicts.push({ entry: e, set: c });
  }
  if (conflicts.length > 0 && opts.force !== true) {
    const list = conflicts
      .flatMap(({ entry, set }) => set.paths().map((p) => ({ manager: printManager(entry), path: pathString(p) })))
      .sort((a, b) => (a.manager < b.manager ? -1 : a.manager > b.manager ? 1 : 0));
    throw applyConflictError(list);
  }
  for (const { entry, set } of conflicts) entry.set = entry.set.difference(set);

  // Prune what this manager applied before, no longer applies, and nobody else owns.
  const others = entries.filter((e) => e !== self);
  if (lastSet) prune(merged, lastSet, configSet, [], schema, [...others.map((e) => e.set), configSet]);
  const after = compare(tracked(liveObj, reset), tracked(merged, reset), schema);
  for (const e of others) e.set = e.set.difference(after.removed);

  const now = rfc3339(opts.now);
  const objectChanged = !after.added.isEmpty() || !after.modified.isEmpty() || !after.removed.isEmpty();
  // managedFieldsUpdater stamps every apply; IgnoreManagedFieldsTimestampsTransformer then restores the old
  // managedFields when nothing but timestamps changed. Net effect: the time moves when the object or the
  // ownership changed.
  if (self) {
    const setChanged = !jsonEqual(self.set.toFieldsV1(), configSet.toFieldsV1());
    self.set = configSet;
    self.apiVersion = opts.apiVersion;
    if (setChanged || objectChanged) self.time = now;
  } else {
    entries.push({ manager: opts.manager, operation: 'Apply', apiVersion: opts.apiVersion, time: now, subresource: opts.subresource, set: configSet });
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
