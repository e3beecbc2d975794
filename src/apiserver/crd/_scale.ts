/**
 * The replicas and selector a CRD's scale subresource points at, checked as apiextensions-apiserver's
 * `customResourceValidator.ValidateScaleSpec`/`ValidateScaleStatus` (`pkg/registry/customresource/validator.go`)
 * do: read with unstructured's `NestedInt64`/`NestedString`, whose accessor errors name Go types, and
 * reported at the path as the CRD writes it (`.spec.replicas`, leading dot included).
 */
import { fieldErrors, type FieldError } from '../../api/field-errors.js';
import { goNumber } from './_go-value.js';

/** `spec.versions[*].subresources.scale` of a CRD. */
export interface CustomResourceScale {
  specReplicasPath?: string;
  statusReplicasPath?: string;
  labelSelectorPath?: string;
}

/** Go's `%T` of an unstructured value. */
function goType(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
}

/** Go's `%v` of an unstructured value. */
function goV(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v !== 'object') return '';
  if (Array.isArray(v)) return `[${v.map(goV).join(' ')}]`;
  const rec = v as Record<string, unknown>;
  return `map[${Object.keys(rec)
    .sort()
    .map((k) => `${k}:${goV(rec[k])}`)
    .join(' ')}]`;
}

type Nested = { value: unknown; found: boolean } | { error: string };

/** `unstructured.NestedFieldNoCopy`: a null on the way is not found; a value on the way that is not a map is an error. */
function nested(obj: Record<string, unknown>, fields: string[]): Nested {
  let cur: unknown = obj;
  for (const [i, f] of fields.entries()) {
    if (cur === null || cur === undefined) return { value: undefined, found: false };
    if (typeof cur !== 'object' || Array.isArray(cur)) {
      return { error: `${accessorError(fields.slice(0, i + 1), cur, 'map[string]interface{}')}` };
    }
    const rec = cur as Record<string, unknown>;
    if (!Object.hasOwn(rec, f)) return { value: undefined, found: false };
    cur = rec[f];
  }
  return { value: cur, found: true };
}

function accessorError(fields: string[], v: unknown, want: string): string {
  return `.${fields.join('.')} accessor error: ${goV(v)} is of the type ${goType(v)}, expected ${want}`;
}

function validateReplicas(obj: Record<string, unknown>, path: string): FieldError[] {
  const fields = path.replace(/^\./, '').split('.');
  const n = nested(obj, fields);
  if ('error' in n) return [fieldErrors.invalid(path, 0, n.error)];
  if (!n.found) return [];
  if (typeof n.value !== 'number' || !Number.isInteger(n.value)) return [fieldErrors.invalid(path, 0, accessorError(fields, n.value, 'int64'))];
  if (n.value < 0) return [fieldErrors.invalid(path, n.value, 'should be a non-negative integer')];
  if (n.value > 2147483647) return [fieldErrors.invalid(path, n.value, 'should be less than or equal to 2147483647')];
  return [];
}

/** `ValidateScaleSpec`: spec replicas. */
export function validateScaleSpec(obj: Record<string, unknown>, scale: CustomResourceScale | undefined): FieldError[] {
  if (scale === undefined) return [];
  return validateReplicas(obj, scale.specReplicasPath ?? '');
}

/** `ValidateScaleStatus`: status replicas, and the label selector when the CRD names one. */
export function validateScaleStatus(obj: Record<string, unknown>, scale: CustomResourceScale | undefined): FieldError[] {
  if (scale === undefined) return [];
  const errs = validateReplicas(obj, scale.statusReplicasPath ?? '');
  if (scale.labelSelectorPath !== undefined) {
    const fields = scale.labelSelectorPath.replace(/^\./, '').split('.');
    const n = nested(obj, fields);
    if ('error' in n) errs.push(fieldErrors.invalid(scale.labelSelectorPath, '', n.error));
    else if (n.found && typeof n.value !== 'string') errs.push(fieldErrors.invalid(scale.labelSelectorPath, '', accessorError(fields, n.value, 'string')));
  }
  return errs;
}
