/**
 * Custom resources against their CRD's structural schema, as apiextensions-apiserver treats them:
 * unknown fields are pruned (unless `x-kubernetes-preserve-unknown-fields`), schema defaults are applied,
 * and the object is validated (types, required, enums, bounds, patterns, sizes) with kube-openapi's
 * messages.
 */
import { fieldErrors, GoValue, type FieldError } from '../../api/field-errors.js';

export interface JSONSchemaProps {
  type?: string;
  format?: string;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  maximum?: number;
  minimum?: number;
  exclusiveMaximum?: boolean;
  exclusiveMinimum?: boolean;
  maxLength?: number;
  minLength?: number;
  maxItems?: number;
  minItems?: number;
  pattern?: string;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
}

const metaFields = new Set(['apiVersion', 'kind', 'metadata']);

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** Removes fields the schema does not declare; returns their paths. The root's apiVersion/kind/metadata stay. */
export function pruneCustomResource(schema: JSONSchemaProps, obj: Record<string, unknown>): string[] {
  const out: string[] = [];
  prune(schema, obj, '', out, true);
  return out;
}

function prune(schema: JSONSchemaProps, value: unknown, path: string, out: string[], root = false): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    if (schema.items !== undefined) value.forEach((v, i) => prune(schema.items ?? {}, v, `${path}[${i}]`, out));
    return;
  }
  const rec = value as Record<string, unknown>;
  if (schema['x-kubernetes-preserve-unknown-fields'] === true && schema.properties === undefined) return;
  if (schema.properties !== undefined) {
    for (const k of Object.keys(rec)) {
      if (root && metaFields.has(k)) continue;
      const p = schema.properties[k];
      if (p === undefined) {
        if (schema['x-kubernetes-preserve-unknown-fields'] === true) continue;
        out.push(join(path, k));
        delete rec[k];
      } else prune(p, rec[k], join(path, k), out);
    }
    return;
  }
  if (typeof schema.additionalProperties === 'object') {
    for (const [k, v] of Object.entries(rec)) prune(schema.additionalProperties, v, join(path, k), out);
    return;
  }
  if (schema.additionalProperties === true || root) return;
  if (schema.type === 'object' && schema['x-kubernetes-preserve-unknown-fields'] !== true) {
    for (const k of Object.keys(rec)) {
      out.push(join(path, k));
      delete rec[k];
    }
  }
}

/** Fills in schema defaults for absent fields (structural defaulting). */
export function defaultCustomResource(schema: JSONSchemaProps, value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    if (schema.items !== undefined) for (const v of value) defaultCustomResource(schema.items, v);
    return;
  }
  const rec = value as Record<string, unknown>;
  for (const [k, p] of Object.entries(schema.properties ?? {})) {
    if (rec[k] === undefined && p.default !== undefined) rec[k] = JSON.parse(JSON.stringify(p.default)) as unknown;
    if (rec[k] !== undefined) defaultCustomResource(p, rec[k]);
  }
  if (typeof schema.additionalProperties === 'object') {
    for (const v of Object.values(rec)) defaultCustomResource(schema.additionalProperties, v);
  }
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(schema: JSONSchemaProps, v: unknown): boolean {
  if (schema['x-kubernetes-int-or-string'] === true) return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
  const t = schema.type;
  if (t === undefined || t === '') return true;
  const actual = typeOf(v);
  if (t === 'number') return actual === 'number' || actual === 'integer';
  return actual === t;
}

/** Validates against the schema; field paths as kube-apiserver reports them (`spec.replicas`). */
export function validateCustomResource(schema: JSONSchemaProps, obj: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (!metaFields.has(k)) rest[k] = v;
  validate({ ...schema, required: (schema.required ?? []).filter((r) => !metaFields.has(r)) }, rest, '', errs);
  return errs;
}

function validate(schema: JSONSchemaProps, v: unknown, path: string, errs: FieldError[]): void {
  if (v === null) {
    if (schema.nullable !== true && path !== '') errs.push(fieldErrors.invalid(path, new GoValue('"null"'), `${path} in body must be of type ${schema.type ?? 'object'}: "null"`));
    return;
  }
  if (!typeMatches(schema, v)) {
    const actual = typeOf(v);
    errs.push(fieldErrors.invalid(path, new GoValue(JSON.stringify(actual)), `${path} in body must be of type ${schema.type ?? ''}: ${JSON.stringify(actual)}`));
    return;
  }
  if (schema.enum !== undefined && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
    errs.push(fieldErrors.notSupported(path, v, schema.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)))));
  }
  if (typeof v === 'number') {
    if (schema.maximum !== undefined && (schema.exclusiveMaximum === true ? v >= schema.maximum : v > schema.maximum)) {
      errs.push(fieldErrors.invalid(path, v, `${path} in body should be less than ${schema.exclusiveMaximum === true ? '' : 'or equal to '}${schema.maximum}`));
    }
    if (schema.minimum !== undefined && (schema.exclusiveMinimum === true ? v <= schema.minimum : v < schema.minimum)) {
      errs.push(fieldErrors.invalid(path, v, `${path} in body should be greater than ${schema.exclusiveMinimum === true ? '' : 'or equal to '}${schema.minimum}`));
    }
  }
  if (typeof v === 'string') {
    if (schema.maxLength !== undefined && [...v].length > schema.maxLength) {
      errs.push({ type: 'FieldValueTooLong', field: path, badValue: v, detail: `may not be more than ${schema.maxLength} bytes` });
    }
    if (schema.minLength !== undefined && [...v].length < schema.minLength) {
      errs.push(fieldErrors.invalid(path, v, `${path} in body should be at least ${schema.minLength} chars long`));
    }
    if (schema.pattern !== undefined) {
      let re: RegExp | undefined;
      try {
        re = new RegExp(schema.pattern, 'u');
      } catch {
        re = undefined;
      }
      if (re !== undefined && !re.test(v)) errs.push(fieldErrors.invalid(path, v, `${path} in body should match '${schema.pattern}'`));
    }
  }
  if (Array.isArray(v)) {
    if (schema.maxItems !== undefined && v.length > schema.maxItems) errs.push(fieldErrors.tooMany(path, v.length, schema.maxItems));
    if (schema.minItems !== undefined && v.length < schema.minItems) {
      errs.push(fieldErrors.invalid(path, v.length, `${path} in body should have at least ${schema.minItems} items`));
    }
    if (schema.items !== undefined) v.forEach((x, i) => validate(schema.items ?? {}, x, `${path}[${i}]`, errs));
    return;
  }
  if (typeof v === 'object') {
    const rec = v as Record<string, unknown>;
    for (const r of schema.required ?? []) if (rec[r] === undefined) errs.push(fieldErrors.required(join(path, r)));
    for (const [k, p] of Object.entries(schema.properties ?? {})) if (rec[k] !== undefined) validate(p, rec[k], join(path, k), errs);
    if (typeof schema.additionalProperties === 'object') {
      for (const [k, x] of Object.entries(rec)) if (schema.properties?.[k] === undefined) validate(schema.additionalProperties, x, join(path, k), errs);
    }
  }
}
