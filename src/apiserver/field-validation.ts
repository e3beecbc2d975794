/**
 * Unknown fields in request bodies, as kube-apiserver's decoder treats them: a built-in type drops fields
 * its schema does not declare, and `fieldValidation` decides what the client hears about it
 * (`Strict`: 400 `strict decoding error: unknown field "spec.foo"`; `Warn`, the default: a `Warning`
 * header per field; `Ignore`: nothing). A value of the wrong JSON type where the schema wants a string, a
 * number or a boolean fails decoding outright, with encoding/json's `UnmarshalTypeError`.
 */
import { apiErrors } from '../api/errors.js';
import type { OpenApi, Schema } from './openapi/index.js';
import type { ResourceDef } from './discovery/resource-defs.js';
import type { StoredObject } from './storage/watch-cache.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export function parseFieldValidation(v: string | null): FieldValidation {
  if (v === null || v === '' || v === 'Warn') return 'Warn';
  if (v === 'Strict' || v === 'Ignore') return v;
  throw apiErrors.badRequest(`fieldValidation must be one of Ignore, Warn, or Strict`);
}

/** Removes the fields the kind's schema does not declare; returns their paths (`spec.template.spec.foo`). */
export function pruneUnknownFields(openapi: OpenApi, def: ResourceDef, obj: StoredObject): string[] {
  if (def.custom) return [];
  const root = openapi.nodeFor({ group: def.group, version: def.version, kind: def.kind });
  if (root === undefined) return [];
  const out: string[] = [];
  walk(openapi, root.resolved, obj, '', out);
  return out;
}

function walk(openapi: OpenApi, schema: Schema, value: unknown, path: string, out: string[]): void {
  if (value === null || value === undefined || schema['x-kubernetes-preserve-unknown-fields'] === true) return;
  if (Array.isArray(value)) {
    if (schema.type !== 'array' || schema.items === undefined) return;
    const items = openapi.resolve(schema.items);
    value.forEach((v, i) => walk(openapi, items, v, `${path}[${i}]`, out));
    return;
  }
  if (typeof value !== 'object') return;
  const rec = value as Record<string, unknown>;
  if (schema.properties !== undefined) {
    for (const k of Object.keys(rec)) {
      const p = schema.properties[k];
      const childPath = path === '' ? k : `${path}.${k}`;
      if (p === undefined) {
        out.push(childPath);
        delete rec[k];
        continue;
      }
      walk(openapi, openapi.resolve(p), rec[k], childPath, out);
    }
    return;
  }
  if (typeof schema.additionalProperties === 'object') {
    const vs = openapi.resolve(schema.additionalProperties);
    for (const [k, v] of Object.entries(rec)) walk(openapi, vs, v, path === '' ? k : `${path}.${k}`, out);
  }
}

/** Applies the request's field validation to what pruning found: throws for Strict, returns warnings for Warn. */
export function unknownFieldOutcome(def: ResourceDef, unknown: readonly string[], mode: FieldValidation): string[] {
  if (unknown.length === 0 || mode === 'Ignore') return [];
  const msgs = unknown.map((u) => `unknown field "${u}"`);
  if (mode === 'Strict') {
    throw apiErrors.badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: strict decoding error: ${msgs.join(', ')}`);
  }
  return msgs;
}

/** The JSON type of a value as encoding/json names it in an `UnmarshalTypeError`. */
function jsonTypeOf(v: unknown): string {
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'string') return 'string';
  return Array.isArray(v) ? 'array' : 'object';
}

/** The Go type of a scalar schema, or undefined when decoding takes more than one JSON type (or is not scalar). */
function goScalarType(s: Schema): string | undefined {
  if (s['x-kubernetes-int-or-string'] === true) return undefined;
  switch (s.type) {
    case 'string':
      // Times and base64 bytes unmarshal through their own types, with their own errors.
      return s.format === undefined || s.format === '' ? 'string' : undefined;
    case 'boolean':
      return 'bool';
    case 'integer':
      return s.format === 'int32' ? 'int32' : 'int64';
    case 'number':
      return 'float64';
    default:
      return undefined;
  }
}

/** Types whose own UnmarshalJSON takes several JSON types (a Quantity is a string or a number). */
const selfDecoding = new Set(['io.k8s.apimachinery.pkg.api.resource.Quantity']);

/**
 * The first value whose JSON type its field cannot take, as encoding/json reports it when decoding a request
 * body: `json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string`. The
 * struct is the innermost one holding the field (its definition's short name); the path counts neither list
 * indexes nor map keys. Undefined when every scalar fits.
 */
export function decodeTypeError(openapi: OpenApi, def: ResourceDef, obj: StoredObject): string | undefined {
  if (def.custom) return undefined;
  const root = openapi.nodeFor({ group: def.group, version: def.version, kind: def.kind });
  if (root === undefined) return undefined;
  return typeErrorIn(openapi, root.declared, obj, '', def.kind);
}

function definitionOf(s: Schema): string | undefined {
  const ref = s.$ref ?? (s.allOf?.length === 1 ? s.allOf[0]?.$ref : undefined);
  return ref?.slice(ref.lastIndexOf('/') + 1);
}

function typeErrorIn(openapi: OpenApi, declared: Schema, value: unknown, path: string, struct: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  const definition = definitionOf(declared);
  if (definition !== undefined && selfDecoding.has(definition)) return undefined;
  const schema = openapi.resolve(declared);
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) return undefined;
  const goType = goScalarType(schema);
  if (goType !== undefined) {
    const ok =
      goType === 'string' ? typeof value === 'string' : goType === 'bool' ? typeof value === 'boolean' : typeof value === 'number' && (goType === 'float64' || Number.isInteger(value));
    if (ok) return undefined;
    // A number that a numeric field cannot hold is named with its literal; one for a string field is not.
    const what = typeof value === 'number' && goType !== 'string' && goType !== 'bool' ? `number ${String(value)}` : jsonTypeOf(value);
    return `json: cannot unmarshal ${what} into Go struct field ${struct}.${path} of type ${goType}`;
  }
  const inner = definition !== undefined ? definition.slice(definition.lastIndexOf('.') + 1) : struct;
  if (Array.isArray(value)) {
    if (schema.type !== 'array' || schema.items === undefined) return undefined;
    for (const v of value) {
      const e = typeErrorIn(openapi, schema.items, v, path, inner);
      if (e !== undefined) return e;
    }
    return undefined;
  }
  if (typeof value !== 'object') return undefined;
  const rec = value as Record<string, unknown>;
  if (schema.properties !== undefined) {
    for (const [k, v] of Object.entries(rec)) {
      const p = schema.properties[k];
      if (p === undefined) continue;
      const e = typeErrorIn(openapi, p, v, path === '' ? k : `${path}.${k}`, inner);
      if (e !== undefined) return e;
    }
    return undefined;
  }
  if (typeof schema.additionalProperties === 'object') {
    for (const v of Object.values(rec)) {
      const e = typeErrorIn(openapi, schema.additionalProperties, v, path, inner);
      if (e !== undefined) return e;
    }
  }
  return undefined;
}
