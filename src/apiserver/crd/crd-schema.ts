/**
 * Custom resources against their CRD's structural schema, as apiextensions-apiserver treats them:
 * unknown fields are pruned (unless `x-kubernetes-preserve-unknown-fields`), schema defaults are applied,
 * and the object is validated as `customResourceStrategy` does: kube-openapi's schema validation
 * (_schema-validation.ts), the scale subresource's paths (_scale.ts), embedded resources (_embedded.ts)
 * and the list-type invariants (_list-type.ts).
 */
import type { FieldError } from '../../api/field-errors.js';
import { validateCelRules } from './cel/index.js';
import { validateEmbeddedResources } from './_embedded.js';
import { validateListSetsAndMaps } from './_list-type.js';
import { validateScaleSpec, validateScaleStatus, type CustomResourceScale } from './_scale.js';
import { validateAgainstSchema } from './_schema-validation.js';

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
  uniqueItems?: boolean;
  multipleOf?: number;
  maxProperties?: number;
  minProperties?: number;
  pattern?: string;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  /** CEL rules (cel-compile.ts `ValidationRule`), run by cel-validator.ts. */
  'x-kubernetes-validations'?: unknown[];
}

const metaFields = new Set(['apiVersion', 'kind', 'metadata']);

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/**
 * Removes fields the schema does not declare and returns their paths; the apiVersion, kind and metadata
 * of the root and of embedded resources stay, the metadata of embedded resources coerced to ObjectMeta
 * (its unknown fields reported after the others). In between, as kube-apiserver's decoding does
 * (`PruneNonNullableNullsWithoutDefaults`), the nulls of fields that are neither nullable nor defaulted
 * are dropped, as if they had not been sent.
 */
export function pruneCustomResource(schema: JSONSchemaProps, obj: Record<string, unknown>): string[] {
  const out: string[] = [];
  prune(schema, obj, '', out, true);
  pruneNonNullableNullsWithoutDefaults(obj, schema);
  coerceEmbeddedResources(schema, obj, '', out);
  return out;
}

function prune(schema: JSONSchemaProps, value: unknown, path: string, out: string[], root = false): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    if (schema.items !== undefined) value.forEach((v, i) => prune(schema.items ?? {}, v, `${path}[${i}]`, out));
    return;
  }
  const rec = value as Record<string, unknown>;
  const resource = root || schema['x-kubernetes-embedded-resource'] === true;
  if (schema['x-kubernetes-preserve-unknown-fields'] === true && schema.properties === undefined) return;
  if (schema.properties !== undefined) {
    for (const k of Object.keys(rec)) {
      if (resource && metaFields.has(k)) continue;
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
      if (resource && metaFields.has(k)) continue;
      out.push(join(path, k));
      delete rec[k];
    }
  }
}

/** The JSON fields of metav1.ObjectMeta: Go omits them when empty, but for creationTimestamp (and a pointer's 0). */
const objectMetaFields = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

function emptyForOmitempty(v: unknown): boolean {
  if (v === null || v === undefined || v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === 'object' && Object.keys(v).length === 0;
}

/** `objectmeta.Coerce` below the root: each embedded resource's metadata. */
function coerceEmbeddedResources(s: JSONSchemaProps | undefined, x: unknown, path: string, out: string[]): void {
  if (s === undefined || x === null || typeof x !== 'object') return;
  if (Array.isArray(x)) {
    x.forEach((v, i) => coerceEmbeddedResources(s.items, v, `${path}[${i}]`, out));
    return;
  }
  const rec = x as Record<string, unknown>;
  if (path !== '' && s['x-kubernetes-embedded-resource'] === true) coerceEmbeddedMetadata(rec, path, out);
  for (const [k, v] of Object.entries(rec)) {
    const p = s.properties?.[k];
    if (p !== undefined) coerceEmbeddedResources(p, v, join(path, k), out);
    else if (typeof s.additionalProperties === 'object') coerceEmbeddedResources(s.additionalProperties, v, `${path}[${k}]`, out);
  }
}

/**
 * The metadata of an embedded resource round-trips through metav1.ObjectMeta when decoded
 * (`objectmeta.CoerceWithOptions`): fields ObjectMeta does not have are dropped (and reported as
 * unknown), empty ones vanish, and a zero `creationTimestamp` comes back as `null`.
 */
function coerceEmbeddedMetadata(rec: Record<string, unknown>, path: string, out: string[]): void {
  const meta = rec['metadata'];
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return;
  const m = meta as Record<string, unknown>;
  for (const k of Object.keys(m)) {
    if (!objectMetaFields.has(k)) {
      out.push(join(join(path, 'metadata'), k));
      delete m[k];
    } else if (k === 'deletionGracePeriodSeconds' ? m[k] === null : k !== 'creationTimestamp' && emptyForOmitempty(m[k])) {
      delete m[k];
    }
  }
  if (m['creationTimestamp'] === undefined || m['creationTimestamp'] === '') m['creationTimestamp'] = null;
}

/** The schema of an object's field (`getSchemaForField`): its property, else additionalProperties. */
function fieldSchema(s: JSONSchemaProps | undefined, k: string): JSONSchemaProps | undefined {
  if (s === undefined) return undefined;
  const p = s.properties?.[k];
  if (p !== undefined) return p;
  return typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
}

function hasDefault(s: JSONSchemaProps): boolean {
  return s.default !== undefined && s.default !== null;
}

function pruneNonNullableNullsWithoutDefaults(x: unknown, s: JSONSchemaProps | undefined): void {
  if (Array.isArray(x)) {
    for (const v of x) pruneNonNullableNullsWithoutDefaults(v, s?.items);
    return;
  }
  if (x === null || typeof x !== 'object') return;
  const rec = x as Record<string, unknown>;
  for (const [k, v] of Object.entries(rec)) {
    const sub = fieldSchema(s, k);
    if (v === null && sub !== undefined && sub.nullable !== true && !hasDefault(sub)) delete rec[k];
    else pruneNonNullableNullsWithoutDefaults(v, sub);
  }
}

function copyDefault(s: JSONSchemaProps | undefined): unknown {
  return s?.default === undefined ? null : (JSON.parse(JSON.stringify(s.default)) as unknown);
}

/**
 * Fills in schema defaults for absent fields and for nulls a non-nullable field was sent
 * (structural defaulting, `defaulting.Default`).
 */
export function defaultCustomResource(schema: JSONSchemaProps, value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    const items = schema.items;
    if (items === undefined) return;
    value.forEach((v, i) => {
      if (v === null && items.nullable !== true) value[i] = copyDefault(items);
      defaultCustomResource(items, value[i]);
    });
    return;
  }
  const rec = value as Record<string, unknown>;
  for (const [k, p] of Object.entries(schema.properties ?? {})) {
    if (hasDefault(p) && (rec[k] === undefined || (rec[k] === null && p.nullable !== true))) rec[k] = copyDefault(p);
  }
  for (const [k, v] of Object.entries(rec)) {
    const p = schema.properties?.[k];
    if (p !== undefined) defaultCustomResource(p, v);
    else if (typeof schema.additionalProperties === 'object') {
      const addl = schema.additionalProperties;
      if (v === null && addl.nullable !== true) rec[k] = copyDefault(addl);
      defaultCustomResource(addl, rec[k]);
    }
  }
}

export type { CustomResourceScale };

export interface CustomResourceValidationOptions {
  /** The version's scale subresource, whose replicas and selector paths are checked. */
  scale?: CustomResourceScale | undefined;
  /** The subresource written ('' for the resource itself). */
  subresource?: string;
}

/**
 * `customResourceStrategy.Validate`/`ValidateUpdate` after the metadata: the schema (kube-openapi, with
 * ratcheting against `old` on updates), the scale subresource's paths, embedded resources, then the
 * list-type invariants, which an update only checks when the old object met them, and last the
 * `x-kubernetes-validations` CEL rules (cel-validator.ts).
 * Field paths as kube-apiserver reports them (`spec.replicas`, `spec.ports[1]`).
 */
export function validateCustomResource(
  schema: JSONSchemaProps,
  obj: Record<string, unknown>,
  old?: Record<string, unknown>,
  opts: CustomResourceValidationOptions = {},
): FieldError[] {
  // The root's apiVersion, kind and metadata are always there once the server has decoded the object; the
  // schema may still restrict metadata.name and metadata.generateName (maxLength, pattern).
  const rootSchema = { ...schema, required: (schema.required ?? []).filter((r) => !metaFields.has(r)) };
  const errs = validateAgainstSchema(rootSchema, obj, old);
  // A status update checks only the status replicas and selector (`ValidateStatusUpdate`).
  if (opts.subresource !== 'status') errs.push(...validateScaleSpec(obj, opts.scale));
  errs.push(...validateScaleStatus(obj, opts.scale));
  errs.push(...validateEmbeddedResources(schema, obj));
  if (old === undefined || validateListSetsAndMaps('', schema, old).length === 0) errs.push(...validateListSetsAndMaps('', schema, obj));
  errs.push(...validateCelRules(schema, obj, old, errs));
  return errs;
}
