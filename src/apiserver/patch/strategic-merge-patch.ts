/**
 * Strategic merge patch (`application/strategic-merge-patch+json`) as
 * `k8s.io/apimachinery/pkg/util/strategicpatch` applies it on the server (`MergeParallelList` and
 * `IgnoreUnmatchedNulls` on): lists merge by `x-kubernetes-patch-merge-key` when their strategy is `merge`,
 * maps with strategy `replace` are replaced, and the directives `$patch: replace|merge|delete`,
 * `$setElementOrder/<list>`, `$retainKeys` and `$deleteFromPrimitiveList/<list>` work as upstream.
 */
import { deepCopy, isObject, jsonEqual, type JsonObject, type JsonValue } from './json.js';
import { ApiError, StatusReason } from '../../api/errors.js';
import { jsonPatchApiError, PatchError } from './json-patch.js';

/** Where the patch metadata comes from: the OpenAPI `SchemaNode` satisfies this. */
export interface PatchSchema {
  /** A struct field's schema, or a map's value schema. */
  field(name: string): PatchSchema | undefined;
  /** A list's element schema. */
  items(): PatchSchema | undefined;
  readonly meta: { patchStrategy?: string; patchMergeKey?: string };
}

const directiveMarker = '$patch';
const deleteDirective = 'delete';
const replaceDirective = 'replace';
const mergeDirective = 'merge';
const retainKeysStrategy = 'retainKeys';
const retainKeysDirective = '$retainKeys';
const setElementOrderDirectivePrefix = '$setElementOrder';
const deleteFromPrimitiveListDirectivePrefix = '$deleteFromPrimitiveList';

/** mergepatch errors, word for word. */
export const smpErrors = {
  badPatchFormatForRetainKeys: 'invalid patch format of retainKeys',
  badPatchFormatForSetElementOrderList: 'invalid patch format of setElementOrder list',
  badPatchFormatForPrimitiveList: 'invalid patch format of primitive list',
  noListOfLists: 'lists of lists are not supported',
};

/** Go's `%v` of a map, close enough for error texts: `map[k:v k2:v2]` with sorted keys. */
function goValue(v: JsonValue): string {
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (isObject(v)) {
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${goValue(v[k] ?? null)}`)
      .join(' ')}]`;
  }
  if (v === null) return '<nil>';
  return String(v);
}

function errBadPatchType(t: JsonValue, m: JsonObject): PatchError {
  return new PatchError(`unknown patch type: ${goValue(t)} in map: ${goValue(m)}`);
}

function errNoMergeKey(m: JsonObject, k: string): PatchError {
  return new PatchError(`map: ${goValue(m)} does not contain declared merge key: ${k}`);
}

interface FieldMeta {
  schema: PatchSchema | undefined;
  strategy: string;
  retainKeys: boolean;
  mergeKey: string;
}

function lookup(schema: PatchSchema | undefined, key: string, list: boolean): FieldMeta {
  const field = schema?.field(key);
  const strategies = (field?.meta.patchStrategy ?? '').split(',').filter((s) => s !== '');
  const retainKeys = strategies.includes(retainKeysStrategy);
  const strategy = strategies.find((s) => s !== retainKeysStrategy) ?? '';
  return {
    schema: list ? field?.items() : field,
    strategy,
    retainKeys,
    mergeKey: field?.meta.patchMergeKey ?? '',
  };
}

/** Applies a strategic merge patch to a copy of `original`. Throws `PatchError` with upstream's message. */
export function applyStrategicMergePatch(original: JsonObject, patch: JsonObject, schema: PatchSchema | undefined): JsonObject {
  return mergeMap(deepCopy(original), deepCopy(patch), schema);
}

function mergeMap(original: JsonObject | undefined, patch: JsonObject, schema: PatchSchema | undefined): JsonObject {
  if (Object.prototype.hasOwnProperty.call(patch, directiveMarker)) {
    const directive = patch[directiveMarker] ?? null;
    if (directive === replaceDirective) {
      delete patch[directiveMarker];
      return patch;
    }
    if (directive === deleteDirective) return {};
    throw errBadPatchType(directive, patch);
  }
  const orig = original ?? {};
  applyRetainKeysDirective(orig, patch);
  mergePatchIntoOriginal(orig, patch, schema);

  for (const [key, patchV] of Object.entries(patch)) {
    let k = key;
    let isDeleteList = false;
    if (k.startsWith(`${deleteFromPrimitiveListDirectivePrefix}/`)) {
      k = k.slice(deleteFromPrimitiveListDirectivePrefix.length + 1);
      isDeleteList = true;
    }
    if (patchV === null) {
      delete orig[k];
      continue;
    }
    const origV = orig[k];
    if (origV === undefined) {
      if (!isDeleteList) {
        discardNullValuesFromPatch(patchV);
        orig[k] = patchV;
      }
      continue;
    }
    if (kindOf(origV) !== kindOf(patchV)) {
      if (!isDeleteList) {
        discardNullValuesFromPatch(patchV);
        orig[k] = patchV;
      }
      continue;
    }
    if (isObject(origV) && isObject(patchV)) {
      const m = lookup(schema, k, false);
      orig[k] = m.strategy === replaceDirective ? patchV : mergeMap(origV, patchV, m.schema);
    } else if (Array.isArray(origV) && Array.isArray(patchV)) {
      const m = lookup(schema, k, true);
      // Delete lists are handled the same way whatever the field's strategy (mergeSliceHandler).
      orig[k] = m.strategy === mergeDirective || isDeleteList ? mergeSlice(origV, patchV, m.schema, m.mergeKey, isDeleteList) : patchV;
    } else {
      orig[k] = patchV;
    }
  }
  return orig;
}

function kindOf(v: JsonValue): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  return typeof v;
}

function discardNullValuesFromPatch(v: JsonValue): void {
  if (isObject(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (x === null) delete v[k];
      else discardNullValuesFromPatch(x);
    }
  } else if (Array.isArray(v)) {
    for (const x of v) discardNullValuesFromPatch(x);
  }
}

function applyRetainKeysDirective(original: JsonObject, patch: JsonObject): void {
  if (!Object.prototype.hasOwnProperty.call(patch, retainKeysDirective)) return;
  const retain = patch[retainKeysDirective];
  delete patch[retainKeysDirective];
  if (!Array.isArray(retain)) throw new PatchError(smpErrors.badPatchFormatForRetainKeys);
  const keep = new Set(retain.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))));
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(deleteFromPrimitiveListDirectivePrefix) || k.startsWith(setElementOrderDirectivePrefix)) continue;
    if (!keep.has(k)) throw new PatchError(smpErrors.badPatchFormatForRetainKeys);
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

function mergePatchIntoOriginal(original: JsonObject, patch: JsonObject, schema: PatchSchema | undefined): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(setElementOrderDirectivePrefix)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw new PatchError(smpErrors.badPatchFormatForSetElementOrderList);
    const originalKey = key.slice(setElementOrderDirectivePrefix.length + 1);
    const foundOriginal = Object.prototype.hasOwnProperty.call(original, originalKey);
    const foundPatch = Object.prototype.hasOwnProperty.call(patch, originalKey);
    const origV = original[originalKey];
    const patchV = patch[originalKey];
    if (foundOriginal && !Array.isArray(origV)) throw new PatchError(`expected []interface{}, but got ${goValue(origV ?? null)}`);
    if (foundPatch && !Array.isArray(patchV)) throw new PatchError(`expected []interface{}, but got ${goValue(patchV ?? null)}`);
    // The live list; mergeSlice may rewrite it in place the way Go's append/delete on a shared backing array
    // does, and the final ordering reads it afterwards (upstream compares against the mutated live list).
    const originalList = Array.isArray(origV) ? origV : [];
    const patchList = Array.isArray(patchV) ? patchV : [];
    const m = lookup(schema, originalKey, true);
    validatePatchWithSetOrderList(patchList, order, m.mergeKey);
    let merged: JsonValue[];
    if (foundOriginal && !foundPatch) merged = originalList;
    else if (!foundOriginal && foundPatch) merged = removeDirectives(patchList) as JsonValue[];
    else if (foundOriginal && foundPatch) merged = m.strategy === mergeDirective ? mergeSlice(originalList, patchList, m.schema, m.mergeKey, false) : patchList;
    else continue;
    const [patchItems, serverOnly] = partition(merged, order, m.mergeKey);
    original[originalKey] = normalizeElementOrder(patchItems, serverOnly, order, originalList, m.mergeKey);
    delete patch[originalKey];
  }
}

/** Drops `$patch` maps (and their entries) from a value taken from the patch as is. */
function removeDirectives(v: JsonValue): JsonValue | undefined {
  if (Array.isArray(v)) return v.map(removeDirectives).filter((x): x is JsonValue => x !== undefined);
  if (isObject(v)) {
    if (Object.prototype.hasOwnProperty.call(v, directiveMarker)) return undefined;
    for (const [k, x] of Object.entries(v)) {
      const r = removeDirectives(x);
      if (r === undefined) delete v[k];
      else v[k] = r;
    }
  }
  return v;
}

/** Every patch item must appear in the order list, in the same relative order (upstream's text on mismatch). */
function validatePatchWithSetOrderList(patchList: readonly JsonValue[], order: readonly JsonValue[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const nonDelete = mergeKey === '' ? patchList : patchList.filter((p) => !(isObject(p) && p[directiveMarker] === deleteDirective));
  let pi = 0;
  let oi = 0;
  while (pi < nonDelete.length && oi < order.length) {
    if (jsonEqual(keyOf(nonDelete[pi] ?? null, mergeKey), keyOf(order[oi] ?? null, mergeKey))) pi++;
    oi++;
  }
  if (pi < nonDelete.length && oi >= order.length) {
    throw new PatchError(`The order in patch list:\n${goValue([...patchList])}\n doesn't match ${setElementOrderDirectivePrefix} list:\n${goValue([...order])}\n`);
  }
}

function keyOf(item: JsonValue, mergeKey: string): JsonValue | undefined {
  if (mergeKey === '') return item;
  return isObject(item) ? item[mergeKey] : undefined;
}

function indexIn(list: readonly JsonValue[], item: JsonValue, mergeKey: string): number {
  const k = keyOf(item, mergeKey);
  return list.findIndex((x) => jsonEqual(keyOf(x, mergeKey), k));
}

function partition(merged: readonly JsonValue[], patch: readonly JsonValue[], mergeKey: string): [JsonValue[], JsonValue[]] {
  const inPatch: JsonValue[] = [];
  const serverOnly: JsonValue[] = [];
  for (const item of merged) (indexIn(patch, item, mergeKey) >= 0 ? inPatch : serverOnly).push(item);
  return [inPatch, serverOnly];
}

function normalizeSliceOrder(toSort: JsonValue[], order: readonly JsonValue[], mergeKey: string): JsonValue[] {
  const toDelete = order.filter((o) => isObject(o) && o[directiveMarker] === deleteDirective);
  const sorted = toSort
    .map((item, i) => ({ item, i, at: indexIn(order, item, mergeKey) }))
    .sort((a, b) => (a.at >= 0 && b.at >= 0 ? a.at - b.at : a.i - b.i))
    .map((x) => x.item);
  return sorted.filter((item) => !toDelete.some((d) => jsonEqual(keyOf(d, mergeKey), keyOf(item, mergeKey))));
}

/** Sorts the patch items by the patch order and the server-only items by the server order, then interleaves them. */
function normalizeElementOrder(patch: JsonValue[], serverOnly: JsonValue[], patchOrder: readonly JsonValue[], serverOrder: readonly JsonValue[], mergeKey: string): JsonValue[] {
  const right = normalizeSliceOrder(patch, patchOrder, mergeKey);
  const left = normalizeSliceOrder(serverOnly, serverOrder, mergeKey);
  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++] as JsonValue);
    else if (j >= right.length) out.push(left[i++] as JsonValue);
    else {
      const li = indexIn(serverOrder, left[i] as JsonValue, mergeKey);
      const ri = indexIn(serverOrder, right[j] as JsonValue, mergeKey);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++] as JsonValue);
      else out.push(right[j++] as JsonValue);
    }
  }
  return out;
}

/**
 * `mergeSlice`. For lists of maps it works on `original` in place like Go's slices over one backing array:
 * deleted entries shift the array left (leaving a stale last element) and appended items land in the
 * array while it has room (capacity = the live list's length, as after `ToUnstructured`). Callers that
 * look at the live list afterwards see those writes, as upstream's ordering does.
 */
function mergeSlice(original: JsonValue[], patch: JsonValue[], schema: PatchSchema | undefined, mergeKey: string, isDeleteList: boolean): JsonValue[] {
  if (original.length === 0 && patch.length === 0) return original;
  const first = original[0] ?? patch[0] ?? null;
  if (Array.isArray(first)) throw new PatchError(smpErrors.noListOfLists);
  const kind = isObject(first) ? 'map' : 'scalar';
  for (const v of [...original, ...patch]) {
    if ((isObject(v) ? 'map' : 'scalar') !== kind || Array.isArray(v)) throw new PatchError('mismatched types');
  }
  if (kind === 'scalar') {
    if (isDeleteList) return original.filter((o) => !patch.some((p) => jsonEqual(o, p)));
    const merged: JsonValue[] = [];
    for (const v of [...original, ...patch]) if (!merged.some((m) => jsonEqual(m, v))) merged.push(v);
    const [inPatch, serverOnly] = partition(merged, patch, '');
    return normalizeElementOrder(inPatch, serverOnly, patch, original, '');
  }
  if (mergeKey === '') throw new PatchError('cannot merge lists without merge key for ');

  // mergeSliceWithSpecialElements
  const plain: JsonValue[] = [];
  let replace = false;
  let backing = original;
  let n = original.length;
  for (const v of patch) {
    const m = v as JsonObject;
    if (!Object.prototype.hasOwnProperty.call(m, directiveMarker)) {
      plain.push(v);
      continue;
    }
    const directive = m[directiveMarker] ?? null;
    if (directive === deleteDirective) {
      if (!Object.prototype.hasOwnProperty.call(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
      for (;;) {
        const k = findByKey(backing, n, mergeKey, m[mergeKey] ?? null);
        if (k < 0) break;
        backing.copyWithin(k, k + 1, n);
        n--;
      }
    } else if (directive === replaceDirective) {
      replace = true;
    } else if (directive === mergeDirective) {
      throw new PatchError('merging lists cannot yet be specified in the patch');
    } else {
      throw errBadPatchType(directive, m);
    }
  }
  if (replace) {
    // The patch's own items replace the list; the ordering step then sees no patch items.
    const replaced = plain;
    return normalizeElementOrder([], replaced, [], replaced, mergeKey);
  }
  const serverOrderLen = n;
  // mergeSliceWithoutSpecialElements
  for (const v of plain) {
    const m = v as JsonObject;
    if (!Object.prototype.hasOwnProperty.call(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
    const idx = findByKey(backing, n, mergeKey, m[mergeKey] ?? null);
    if (idx >= 0) {
      backing[idx] = mergeMap(backing[idx] as JsonObject, m, schema);
    } else if (n < backing.length) {
      backing[n] = v;
      n++;
    } else {
      backing = backing.slice(0, n);
      backing.push(v);
      n++;
    }
  }
  const merged = backing.slice(0, n);
  // Go's `original` slice header still covers the first entries of the live backing array.
  const serverOrder = original.slice(0, serverOrderLen);
  const [inPatch, serverOnly] = partition(merged, plain, mergeKey);
  return normalizeElementOrder(inPatch, serverOnly, plain, serverOrder, mergeKey);
}

function findByKey(list: readonly JsonValue[], n: number, mergeKey: string, value: JsonValue): number {
  for (let i = 0; i < n; i++) {
    const o = list[i];
    if (!isObject(o)) throw new PatchError(`value for key ${i} is not a map`);
    if (Object.prototype.hasOwnProperty.call(o, mergeKey) && jsonEqual(o[mergeKey], value)) return i;
  }
  return -1;
}

/**
 * The Status kube-apiserver answers when a strategic merge patch fails (`interpretStrategicMergePatchError`):
 * 400 for malformed directives, 422 for lists of lists, and a 500 with the bare message for the rest
 * (`map: ... does not contain declared merge key: name`).
 */
export function strategicMergePatchApiError(err: PatchError): ApiError {
  switch (err.message) {
    case smpErrors.badPatchFormatForPrimitiveList:
    case smpErrors.badPatchFormatForRetainKeys:
    case smpErrors.badPatchFormatForSetElementOrderList:
      return new ApiError(400, StatusReason.BadRequest, err.message);
    case smpErrors.noListOfLists:
      return jsonPatchApiError(err);
    default:
      return new ApiError(500, StatusReason.Unknown, err.message);
  }
}
