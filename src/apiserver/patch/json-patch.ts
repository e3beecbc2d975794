/**
 * RFC 6902 JSON patch as kube-apiserver applies `application/json-patch+json` (gopkg.in/evanphx/json-patch.v4):
 * the same operations, the same quirks (`replace` of a missing object key adds it; negative array indices
 * count from the end) and the same error texts, wrapped the way the API server wraps them (`jsonPatchApiError`).
 */
import { ApiError, StatusReason } from '../../api/errors.js';
import { deepCopy, isObject, jsonEqual, type JsonObject, type JsonValue } from './json.js';

/** kube-apiserver's `maxJSONPatchOperations`. */
export const maxJSONPatchOperations = 10000;

/** An error from applying a patch; `message` is the upstream library's text. */
export class PatchError extends Error {
  override name = 'PatchError';
}

const ErrMissing = 'missing value';
const ErrInvalidIndex = 'invalid index referenced';
const ErrTestFailed = 'test failed';

function decodeKey(k: string): string {
  return k.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Go's strconv.Atoi, with its error text. */
function atoi(s: string): number {
  if (!/^[+-]?\d+$/.test(s)) throw new PatchError(`strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`);
  return Number(s);
}

/** Where an array lives, so it can be replaced after insertion/removal. */
interface Slot {
  get(): JsonValue | undefined;
  set(v: JsonValue): void;
}

interface Found {
  container: JsonObject | JsonValue[];
  slot: Slot;
  key: string;
}

function findObject(root: JsonObject, path: string): Found | undefined {
  const split = path.split('/');
  if (split.length < 2) return undefined;
  const parts = split.slice(1, -1);
  const key = decodeKey(split[split.length - 1] ?? '');
  let doc: JsonObject | JsonValue[] = root;
  let slot: Slot = { get: () => root, set: () => undefined };
  for (const raw of parts) {
    const part = decodeKey(raw);
    let next: JsonValue | undefined;
    let nextSlot: Slot;
    if (Array.isArray(doc)) {
      let idx: number;
      try {
        idx = arrayIndex(doc, part);
      } catch {
        return undefined;
      }
      const arr: JsonValue[] = doc;
      next = arr[idx];
      nextSlot = { get: () => arr[idx], set: (v) => (arr[idx] = v) };
    } else {
      const obj: JsonObject = doc;
      next = obj[part];
      nextSlot = { get: () => obj[part], set: (v) => (obj[part] = v) };
    }
    if (next === undefined || next === null || typeof next !== 'object') return undefined;
    doc = next;
    slot = nextSlot;
  }
  return { container: doc, slot, key };
}

function arrayIndex(arr: readonly JsonValue[], key: string): number {
  let idx = atoi(key);
  if (idx >= arr.length) throw new PatchError(`Unable to access invalid index: ${idx}: ${ErrInvalidIndex}`);
  if (idx < 0) {
    if (idx < -arr.length) throw new PatchError(`Unable to access invalid index: ${idx}: ${ErrInvalidIndex}`);
    idx += arr.length;
  }
  return idx;
}

function get(f: Found): JsonValue | undefined {
  if (Array.isArray(f.container)) return f.container[arrayIndex(f.container, f.key)];
  return f.container[f.key];
}

function set(f: Found, v: JsonValue): void {
  if (Array.isArray(f.container)) f.container[arrayIndex(f.container, f.key)] = v;
  else f.container[f.key] = v;
}

function add(f: Found, v: JsonValue): void {
  if (!Array.isArray(f.container)) {
    f.container[f.key] = v;
    return;
  }
  const cur = f.container;
  if (f.key === '-') {
    cur.push(v);
    return;
  }
  let idx: number;
  try {
    idx = atoi(f.key);
  } catch (e) {
    throw new PatchError(`value was not a proper array index: '${f.key}': ${(e as Error).message}`);
  }
  const size = cur.length + 1;
  if (idx >= size) throw new PatchError(`Unable to access invalid index: ${idx}: ${ErrInvalidIndex}`);
  if (idx < 0) {
    if (idx < -size) throw new PatchError(`Unable to access invalid index: ${idx}: ${ErrInvalidIndex}`);
    idx += size;
  }
  cur.splice(idx, 0, v);
}

function remove(f: Found): void {
  if (!Array.isArray(f.container)) {
    if (!Object.prototype.hasOwnProperty.call(f.container, f.key)) {
      throw new PatchError(`Unable to remove nonexistent key: ${f.key}: ${ErrMissing}`);
    }
    delete f.container[f.key];
    return;
  }
  const idx = arrayIndex(f.container, f.key);
  f.container.splice(idx, 1);
}

function wrap(prefix: string, fn: () => void): void {
  try {
    fn();
  } catch (e) {
    if (e instanceof PatchError) throw new PatchError(`${prefix}: ${e.message}`);
    throw e;
  }
}

function pathOf(op: JsonObject, field: 'path' | 'from', opName: string): string {
  const p = op[field];
  if (typeof p !== 'string') throw new PatchError(`${opName} operation failed to decode ${field}: ${ErrMissing}`);
  return p;
}

/** Parses a JSON patch document; a non-array body is a 400 in kube-apiserver (`jsonPatchDecodeError`). */
export function decodeJsonPatch(body: string): JsonObject[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (e) {
    throw new PatchError((e as Error).message);
  }
  if (!Array.isArray(parsed)) throw new PatchError('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  return parsed.map((op) => (isObject(op) ? op : {}));
}

/**
 * Applies RFC 6902 operations to a copy of `doc`. Throws `PatchError` with evanphx/json-patch's message.
 */
export function applyJsonPatch(doc: JsonObject, ops: readonly JsonObject[]): JsonObject {
  const root = deepCopy(doc);
  for (const op of ops) {
    const kind = typeof op['op'] === 'string' ? op['op'] : 'unknown';
    const value = op['value'] ?? null;
    switch (kind) {
      case 'add': {
        const path = pathOf(op, 'path', 'add');
        const f = findObject(root, path);
        if (!f) throw new PatchError(`add operation does not apply: doc is missing path: "${path}": ${ErrMissing}`);
        wrap(`error in add for path: '${path}'`, () => add(f, deepCopy(value)));
        break;
      }
      case 'remove': {
        const path = pathOf(op, 'path', 'remove');
        const f = findObject(root, path);
        if (!f) throw new PatchError(`remove operation does not apply: doc is missing path: "${path}": ${ErrMissing}`);
        wrap(`error in remove for path: '${path}'`, () => remove(f));
        break;
      }
      case 'replace': {
        const path = pathOf(op, 'path', 'replace');
        const f = findObject(root, path);
        if (!f) throw new PatchError(`replace operation does not apply: doc is missing path: ${path}: ${ErrMissing}`);
        try {
          get(f);
        } catch {
          throw new PatchError(`replace operation does not apply: doc is missing key: ${path}: ${ErrMissing}`);
        }
        wrap(`error in remove for path: '${path}'`, () => set(f, deepCopy(value)));
        break;
      }
      case 'move': {
        const from = pathOf(op, 'from', 'move');
        const f = findObject(root, from);
        if (!f) throw new PatchError(`move operation does not apply: doc is missing from path: ${from}: ${ErrMissing}`);
        let val: JsonValue | undefined;
        wrap(`error in move for path: '${f.key}'`, () => {
          val = get(f);
          remove(f);
        });
        const path = pathOf(op, 'path', 'move');
        const t = findObject(root, path);
        if (!t) throw new PatchError(`move operation does not apply: doc is missing destination path: ${path}: ${ErrMissing}`);
        wrap(`error in move for path: '${path}'`, () => add(t, val ?? null));
        break;
      }
      case 'copy': {
        const from = pathOf(op, 'from', 'copy');
        const f = findObject(root, from);
        if (!f) throw new PatchError(`copy operation does not apply: doc is missing from path: ${from}: ${ErrMissing}`);
        let val: JsonValue | undefined;
        wrap(`error in copy for from: '${from}'`, () => (val = get(f)));
        const path = pathOf(op, 'path', 'copy');
        const t = findObject(root, path);
        if (!t) throw new PatchError(`copy operation does not apply: doc is missing destination path: ${path}: ${ErrMissing}`);
        wrap('error while adding value during copy', () => add(t, deepCopy(val ?? null)));
        break;
      }
      case 'test': {
        const path = pathOf(op, 'path', 'test');
        const f = findObject(root, path);
        if (!f) throw new PatchError(`test operation does not apply: is missing path: ${path}: ${ErrMissing}`);
        let val: JsonValue | undefined;
        wrap(`error in test for path: '${path}'`, () => (val = get(f)));
        const want = op['value'];
        if (val === undefined || val === null) {
          if (want === undefined || want === null) break;
          throw new PatchError(`testing value ${path} failed: ${ErrTestFailed}`);
        }
        if (!jsonEqual(val, want)) throw new PatchError(`testing value ${path} failed: ${ErrTestFailed}`);
        break;
      }
      default:
        throw new PatchError(`Unexpected kind: ${kind}`);
    }
  }
  return root;
}

/**
 * The Status kube-apiserver answers for a JSON patch that fails to apply:
 * `NewGenericServerResponse(422, ...)` with the library's message as the cause.
 */
export function jsonPatchApiError(err: PatchError): ApiError {
  return new ApiError(422, StatusReason.Invalid, 'the server rejected our request due to an error in our request', {
    causes: [{ reason: 'UnexpectedServerResponse', message: err.message }],
  });
}

/** The 413 for patches with too many operations. */
export function tooManyOperations(n: number): ApiError {
  return new ApiError(413, StatusReason.RequestEntityTooLarge, `The allowed maximum operations in a JSON patch is ${maxJSONPatchOperations}, got ${n}`);
}
