/**
 * Unknown fields in request bodies, as kube-apiserver's decoder treats them: a built-in type drops fields
 * its schema does not declare, and `fieldValidation` decides what the client hears about it
 * (`Strict`: 400 `strict decoding error: unknown field "spec.foo"`; `Warn`, the default: a `Warning`
 * header per field; `Ignore`: nothing).
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
