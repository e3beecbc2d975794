/**
 * The uniqueness invariants of `x-kubernetes-list-type: set` (whole items) and `map` (the tuple of
 * `x-kubernetes-list-map-keys`), as apiextensions-apiserver's
 * `pkg/apiserver/schema/listtype/validation.go` checks them after schema validation.
 */
import { fieldErrors, type FieldError } from '../../api/field-errors.js';
import type { JSONSchemaProps } from './crd-schema.js';
import { goBadValue, goJson } from './_go-value.js';

function child(path: string, k: string): string {
  return path === '' ? k : `${path}.${k}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * `ValidateListSetsAndMaps(nil, schema, obj)`: duplicate set items and map keys, at `spec.ports[1]`.
 * `path` is the object's own path ('' at the root of a custom resource).
 */
export function validateListSetsAndMaps(path: string, s: JSONSchemaProps | undefined, obj: Record<string, unknown>): FieldError[] {
  if (s === undefined) return [];
  const errs: FieldError[] = [];
  if (typeof s.additionalProperties === 'object') {
    for (const [k, v] of Object.entries(obj)) errs.push(...validateValue(`${path}[${k}]`, s.additionalProperties, v));
  }
  if (s.properties !== undefined) {
    for (const [k, v] of Object.entries(obj)) {
      const sub = s.properties[k];
      if (sub !== undefined) errs.push(...validateValue(child(path, k), sub, v));
    }
  }
  return errs;
}

function validateValue(path: string, s: JSONSchemaProps, v: unknown): FieldError[] {
  if (Array.isArray(v)) return validateArray(path, s, v);
  if (isObject(v)) return validateListSetsAndMaps(path, s, v);
  return [];
}

function validateArray(path: string, s: JSONSchemaProps, list: unknown[]): FieldError[] {
  const errs: FieldError[] = [];
  const listType = s['x-kubernetes-list-type'];
  if (listType === 'set') {
    for (const i of nonUniqueIndices(list)) errs.push(fieldErrors.duplicate(`${path}[${i}]`, goBadValue(list[i])));
  } else if (listType === 'map') {
    errs.push(...validateListMap(path, s, list));
  }
  if (s.items !== undefined) list.forEach((x, i) => errs.push(...validateValue(`${path}[${i}]`, s.items ?? {}, x)));
  return errs;
}

/** A key field a list-map item does not have: unlike `null`, never equal to a value that is present. */
const unspecified = Symbol('unspecifiedKeyValue');

/**
 * `validateListSet`: the index of each item's second appearance (a third one is not reported again).
 * Compound items compare as their JSON; scalars (and the unspecified key) by identity.
 */
function nonUniqueIndices(items: readonly unknown[]): number[] {
  const seen = new Map<unknown, number>();
  const out: number[] = [];
  items.forEach((x, i) => {
    const key = x !== null && typeof x === 'object' ? `json:${goJson(x)}` : x;
    const times = seen.get(key) ?? 0;
    seen.set(key, times + 1);
    if (times === 1) out.push(i);
  });
  return out;
}

function validateListMap(path: string, s: JSONSchemaProps, list: unknown[]): FieldError[] {
  for (const [i, x] of list.entries()) {
    if (x !== null && !isObject(x)) return [fieldErrors.invalid(`${path}[${i}]`, goBadValue(x), 'must be an object for an array of list-type map')];
  }
  if (list.length <= 1) return [];
  const keyFields = s['x-kubernetes-list-map-keys'] ?? [];
  if (keyFields.length === 1) {
    const keyField = keyFields[0] ?? '';
    const keys = list.map((x) => (isObject(x) && Object.hasOwn(x, keyField) ? x[keyField] : unspecified));
    return nonUniqueIndices(keys).map((i) => {
      const k = keys[i];
      return fieldErrors.duplicate(`${path}[${i}]`, goBadValue(k === unspecified ? {} : { [keyField]: k }));
    });
  }
  const keys = list.map((x) => {
    const key: Record<string, unknown> = {};
    if (isObject(x)) for (const f of keyFields) if (Object.hasOwn(x, f)) key[f] = x[f];
    return key;
  });
  return nonUniqueIndices(keys).map((i) => fieldErrors.duplicate(`${path}[${i}]`, goBadValue(keys[i])));
}
