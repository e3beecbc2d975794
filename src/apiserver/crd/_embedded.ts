/**
 * Objects a CRD schema marks `x-kubernetes-embedded-resource` (a pod template in a custom resource, say):
 * their `apiVersion`, `kind` and `metadata` are checked as apiextensions-apiserver's
 * `pkg/apiserver/schema/objectmeta/validation.go` does after schema validation.
 */
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { fieldErrors, type FieldError, Path } from '../../api/field-errors.js';
import { validateObjectMeta } from '../validation/objectmeta.js';
import { isDNS1035Label, validatePathSegmentName } from '../validation/_names.js';
import type { JSONSchemaProps } from './crd-schema.js';
import { goBadValue } from './_go-value.js';

function child(path: string, k: string): string {
  return path === '' ? k : `${path}.${k}`;
}

/** `objectmeta.Validate(nil, obj, schema, false)`: every embedded resource under the custom resource's root. */
export function validateEmbeddedResources(s: JSONSchemaProps, obj: Record<string, unknown>): FieldError[] {
  return validate('', obj, s);
}

function validate(path: string, x: unknown, s: JSONSchemaProps | undefined): FieldError[] {
  if (s === undefined || x === null || typeof x !== 'object') return [];
  const errs: FieldError[] = [];
  if (Array.isArray(x)) {
    x.forEach((v, i) => errs.push(...validate(`${path}[${i}]`, v, s.items)));
    return errs;
  }
  const rec = x as Record<string, unknown>;
  if (s['x-kubernetes-embedded-resource'] === true) errs.push(...validateEmbeddedResource(path, rec));
  for (const [k, v] of Object.entries(rec)) {
    const prop = s.properties?.[k];
    if (prop !== undefined) errs.push(...validate(child(path, k), v, prop));
    else if (typeof s.additionalProperties === 'object') errs.push(...validate(`${path}[${k}]`, v, s.additionalProperties));
  }
  return errs;
}

/** `schema.ParseGroupVersion`'s error, if any. */
function groupVersionError(gv: string): string | undefined {
  if (gv === '' || gv === '/') return undefined;
  return gv.split('/').length > 2 ? `unexpected GroupVersion string: ${gv}` : undefined;
}

function validateEmbeddedResource(path: string, x: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  if (!Object.hasOwn(x, 'apiVersion')) errs.push(fieldErrors.required(child(path, 'apiVersion')));
  if (!Object.hasOwn(x, 'kind')) errs.push(fieldErrors.required(child(path, 'kind')));
  for (const [k, v] of Object.entries(x)) {
    if (k === 'apiVersion') {
      const p = child(path, k);
      if (typeof v !== 'string') errs.push(fieldErrors.invalid(p, goBadValue(v), 'must be a string'));
      else if (v === '') errs.push(fieldErrors.required(p));
      else {
        const e = groupVersionError(v);
        if (e !== undefined) errs.push(fieldErrors.invalid(p, v, e));
      }
    } else if (k === 'kind') {
      const p = child(path, k);
      if (typeof v !== 'string') errs.push(fieldErrors.invalid(p, goBadValue(v), 'must be a string'));
      else if (v === '') errs.push(fieldErrors.required(p));
      else {
        const msgs = isDNS1035Label(v.toLowerCase());
        if (msgs.length > 0) errs.push(fieldErrors.invalid(p, v, `may have mixed case, but should otherwise match: ${msgs.join(',')}`));
      }
    } else if (k === 'metadata' && v !== null && typeof v === 'object' && !Array.isArray(v)) {
      // Metadata Go cannot decode into an ObjectMeta was refused when the request was decoded.
      const meta = { ...(v as ObjectMeta) };
      if ((meta.name ?? '') === '') meta.name = 'fakename';
      const namespaced = (meta.namespace ?? '') !== '';
      const base = path === '' ? Path.root('metadata') : Path.root(path).child('metadata');
      errs.push(...validateObjectMeta(meta, { namespaced, nameFn: validatePathSegmentName, kubeFinalizers: false }, base));
    }
  }
  return errs;
}
