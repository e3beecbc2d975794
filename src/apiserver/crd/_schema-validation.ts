/**
 * A custom resource against its CRD's OpenAPI schema, as kube-apiserver 1.32 validates it: kube-openapi's
 * `validate.SchemaValidator` (`pkg/validation/validate`: type, schema props, string, format, number, slice,
 * enum and object validators, in that order, each message word for word from `pkg/validation/errors`),
 * its errors turned into field errors by apiextensions-apiserver's `kubeOpenAPIResultToFieldErrors`
 * (`pkg/apiserver/validation/validation.go`), and the ratcheting of `CRDValidationRatcheting` (on by
 * default in 1.32): on an update, a value equal to the old one at the same place keeps its errors to itself.
 *
 * kube-openapi names a value by its path with a leading dot at the root (`.spec` for a required field);
 * the field error drops that dot, and an error without a name (the anyOf, oneOf, allOf and not failures)
 * is reported at Go's nil path, `<nil>`.
 */
import { fieldErrors, FieldErrorType, goQuote, type FieldError } from '../../api/field-errors.js';
import { jsonDeepEqual } from '../../util/json-equal.js';
import type { JSONSchemaProps } from './crd-schema.js';
import { isKnownFormat, supportedFormat, validatesFormat } from './_formats.js';
import { goBadValue, goFloat, goJson } from './_go-value.js';

/** The old value a new one is compared with for ratcheting; undefined when nothing correlates. */
type Correlation = { readonly old: unknown } | undefined;

/** `field.Error.Field` for a kube-openapi error name. */
function errPath(name: string): string {
  if (name === '' || name === '.') return '<nil>';
  return name.startsWith('.') ? name.slice(1) : name;
}

/** Errors kube-openapi builds with `errors.New` (no name): `field.Invalid(nil, "", message)`. */
function compositeError(message: string): FieldError {
  return fieldErrors.invalid('<nil>', '', message);
}

function typeError(name: string, typeName: string, value: string): FieldError {
  return { type: FieldErrorType.TypeInvalid, field: errPath(name), badValue: value, detail: `${name} in body must be of type ${typeName}: ${goQuote(value)}` };
}

/** The `default` case: `field.Invalid(path, value, message)`, a nil value printed as `""`. */
function invalid(name: string, value: unknown, message: string): FieldError {
  return fieldErrors.invalid(errPath(name), goBadValue(value ?? ''), message);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `swag.IsFloat64AJSONInteger`. */
function isFloat64AJSONInteger(f: number): boolean {
  const maxJSONFloat = 2 ** 53 - 1;
  if (!Number.isFinite(f) || f < -maxJSONFloat || f > maxJSONFloat) return false;
  if (Number.isInteger(f)) return true;
  const g = Math.trunc(f);
  const diff = Math.abs(f - g);
  if (g === 0) return diff < 1e-9 * Number.MIN_VALUE;
  return diff / Math.min(Math.abs(f) + Math.abs(g), Number.MAX_VALUE) < 1e-9;
}

/** The JSON type and format kube-openapi infers for a decoded value (`schemaInfoForType`). */
function schemaInfo(v: unknown): [string, string] {
  if (typeof v === 'boolean') return ['boolean', ''];
  if (typeof v === 'string') return ['string', ''];
  if (typeof v === 'number') return Number.isInteger(v) ? ['integer', 'int64'] : ['number', 'float64'];
  if (Array.isArray(v)) return ['array', ''];
  return ['object', ''];
}

/** The schema's types as kube-openapi sees them: `x-kubernetes-int-or-string` is `integer,string`. */
function typesOf(s: JSONSchemaProps): string[] {
  if (s['x-kubernetes-int-or-string'] === true) return ['integer', 'string'];
  return s.type !== undefined && s.type !== '' ? [s.type] : [];
}

/** The format left after apiextensions' `StripUnsupportedFormatsPostProcess`. */
function formatOf(s: JSONSchemaProps): string {
  const types = typesOf(s);
  return supportedFormat(s.format, types.length === 1 ? (types[0] ?? '') : '');
}

/**
 * Validates `v` (named `name`) against `s`. A value unchanged from its correlated old value reports
 * nothing (`ratchetingValueValidator`).
 */
function validateSchema(s: JSONSchemaProps, v: unknown, name: string, corr: Correlation): FieldError[] {
  const errs = validateValue(s, v, name, corr);
  if (errs.length > 0 && corr !== undefined && jsonDeepEqual(corr.old, v)) return [];
  return errs;
}

function validateValue(s: JSONSchemaProps, v: unknown, name: string, corr: Correlation): FieldError[] {
  if (v === null || v === undefined) return [...validateNullType(s, name), ...validateEnum(s, null, name)];
  const errs = validateType(s, v, name);
  errs.push(...validateSchemaProps(s, v, name, corr));
  if (typeof v === 'string') {
    errs.push(...validateString(s, v, name));
    const format = formatOf(s);
    if (isKnownFormat(format) && !validatesFormat(format, v)) errs.push(typeError(name, format, v));
  }
  if (typeof v === 'number') errs.push(...validateNumber(s, v, name));
  if (Array.isArray(v)) errs.push(...validateSlice(s, v, name, corr));
  errs.push(...validateEnum(s, v, name));
  if (isObject(v)) errs.push(...validateObject(s, v, name, corr));
  return errs;
}

function validateNullType(s: JSONSchemaProps, name: string): FieldError[] {
  const types = typesOf(s);
  if (types.length > 0 && !types.includes('null') && s.nullable !== true) return [typeError(name, types.join(','), 'null')];
  return [];
}

/** `typeValidator.Validate` for a non-null value. */
function validateType(s: JSONSchemaProps, v: unknown, name: string): FieldError[] {
  const types = typesOf(s);
  const format = formatOf(s);
  if (types.length === 0 && format === '') return [];
  const [schType, dataFormat] = schemaInfo(v);
  const stringOrSlice = typeof v === 'string' || Array.isArray(v);
  const isFloatInt = schType === 'number' && isFloat64AJSONInteger(v as number) && types.includes('integer');
  const isIntFloat = schType === 'integer' && types.includes('number');
  if (!stringOrSlice && format !== '' && !(types.includes(schType) || dataFormat === format || isFloatInt || isIntFloat)) {
    return [typeError(name, format, dataFormat)];
  }
  if (!(types.includes('number') || types.includes('integer')) && format !== '' && stringOrSlice) return [];
  if (!(types.includes(schType) || isFloatInt || isIntFloat)) return [typeError(name, types.join(','), schType)];
  return [];
}

/** `schemaPropsValidator`: anyOf, oneOf, allOf and not, each alternative validated at the same path. */
function validateSchemaProps(s: JSONSchemaProps, v: unknown, name: string, corr: Correlation): FieldError[] {
  const errs: FieldError[] = [];
  // kube-openapi keeps the failures of the alternative with the most passing checks; the one with the
  // fewest errors stands in for it.
  const best = (results: FieldError[][]): FieldError[] => results.reduce((a, b) => (b.length < a.length ? b : a));
  if (s.anyOf !== undefined && s.anyOf.length > 0) {
    const results: FieldError[][] = [];
    for (const sub of s.anyOf) {
      const r = validateValue(sub, v, name, corr);
      if (r.length === 0) {
        results.length = 0;
        break;
      }
      results.push(r);
    }
    if (results.length > 0) errs.push(compositeError(`${goQuote(name)} must validate at least one schema (anyOf)`), ...best(results));
  }
  if (s.oneOf !== undefined && s.oneOf.length > 0) {
    const results = s.oneOf.map((sub) => validateValue(sub, v, name, corr));
    const validated = results.filter((r) => r.length === 0).length;
    if (validated !== 1) {
      errs.push(compositeError(`${goQuote(name)} must validate one and only one schema (oneOf). ${validated === 0 ? 'Found none valid' : `Found ${validated} valid alternatives`}`));
      if (validated === 0) errs.push(...best(results));
    }
  }
  if (s.allOf !== undefined && s.allOf.length > 0) {
    let validated = 0;
    for (const sub of s.allOf) {
      const r = validateValue(sub, v, name, corr);
      if (r.length === 0) validated++;
      errs.push(...r);
    }
    if (validated !== s.allOf.length) errs.push(compositeError(`${goQuote(name)} must validate all the schemas (allOf)${validated === 0 ? '. None validated' : ''}`));
  }
  if (s.not !== undefined && validateValue(s.not, v, name, corr).length === 0) errs.push(compositeError(`${goQuote(name)} must not validate the schema (not)`));
  return errs;
}

/** `stringValidator`: maxLength, minLength, pattern; only the first failure is reported. */
function validateString(s: JSONSchemaProps, v: string, name: string): FieldError[] {
  const runes = [...v].length;
  if (s.maxLength !== undefined && runes > s.maxLength) return [fieldErrors.tooLong(errPath(name), v, s.maxLength)];
  if (s.minLength !== undefined && runes < s.minLength) return [invalid(name, v, `${name} in body should be at least ${s.minLength} chars long`)];
  if (s.pattern !== undefined && s.pattern !== '') {
    let re: RegExp | undefined;
    try {
      re = new RegExp(s.pattern, 'u');
    } catch {
      // CRD validation refuses a pattern Go cannot compile; one only JavaScript cannot is not enforced.
      re = undefined;
    }
    if (re !== undefined && !re.test(v)) return [invalid(name, v, `${name} in body should match '${s.pattern}'`)];
  }
  return [];
}

/**
 * `numberValidator`: multipleOf, minimum, maximum. A whole number is an int64 in Go and is compared with
 * the bound truncated to an integer (`MaximumNativeType`), which the message prints as such.
 */
function validateNumber(s: JSONSchemaProps, v: number, name: string): FieldError[] {
  const errs: FieldError[] = [];
  const isInt = Number.isInteger(v);
  const bound = (b: number): [number, string] => (isInt ? [Math.trunc(b), String(Math.trunc(b))] : [b, goFloat(b)]);
  if (s.multipleOf !== undefined) {
    const factor = s.multipleOf;
    if (isInt && Math.trunc(factor) !== 0) {
      const f = Math.trunc(factor);
      if (f < 0) errs.push(invalid(name, f, `factor MultipleOf declared for ${name} must be positive: ${f}`));
      else if (v % f !== 0) errs.push(invalid(name, v, `${name} in body should be a multiple of ${f}`));
    } else if (factor < 0) {
      errs.push(invalid(name, factor, `factor MultipleOf declared for ${name} must be positive: ${goFloat(factor)}`));
    } else {
      const mult = factor < 1 ? (1 / factor) * v : v / factor;
      if (!isFloat64AJSONInteger(mult)) errs.push(invalid(name, v, `${name} in body should be a multiple of ${goFloat(factor)}`));
    }
  }
  if (s.minimum !== undefined) {
    const [min, shown] = bound(s.minimum);
    const exclusive = s.exclusiveMinimum === true;
    if (exclusive ? v <= min : v < min) errs.push(invalid(name, v, `${name} in body should be greater than ${exclusive ? '' : 'or equal to '}${shown}`));
  }
  if (s.maximum !== undefined) {
    const [max, shown] = bound(s.maximum);
    const exclusive = s.exclusiveMaximum === true;
    if (exclusive ? v >= max : v > max) errs.push(invalid(name, v, `${name} in body should be less than ${exclusive ? '' : 'or equal to '}${shown}`));
  }
  return errs;
}

/** `schemaSliceValidator`: the items first, then minItems, maxItems and uniqueItems. */
function validateSlice(s: JSONSchemaProps, v: unknown[], name: string, corr: Correlation): FieldError[] {
  const errs: FieldError[] = [];
  if (s.items !== undefined) {
    const items = s.items;
    v.forEach((x, i) => errs.push(...validateSchema(items, x, `${name}[${i}]`, correlateIndex(s, corr, x))));
  }
  if (s.minItems !== undefined && v.length < s.minItems) errs.push(invalid(name, v.length, `${name} in body should have at least ${s.minItems} items`));
  if (s.maxItems !== undefined && v.length > s.maxItems) errs.push(fieldErrors.tooMany(errPath(name), v.length, s.maxItems));
  if (s.uniqueItems === true && new Set(v.map(goJson)).size !== v.length) errs.push(invalid(name, '', `${name} in body shouldn't contain duplicates`));
  return errs;
}

/**
 * The old item a new list item correlates with: only in `x-kubernetes-list-type: map` lists, by its keys
 * (`common.CorrelatedObject.Index`); atomic lists and sets do not correlate.
 */
function correlateIndex(s: JSONSchemaProps, corr: Correlation, item: unknown): Correlation {
  if (corr === undefined || s['x-kubernetes-list-type'] !== 'map' || !Array.isArray(corr.old) || !isObject(item)) return undefined;
  const keys = s['x-kubernetes-list-map-keys'] ?? [];
  const old = (corr.old as unknown[]).find((o) => isObject(o) && keys.every((k) => jsonDeepEqual(o[k], item[k])));
  return old === undefined ? undefined : { old };
}

/**
 * Whether Go's enum check takes `data` for `enumValue`: equal once converted to the enum value's type
 * (`reflect.Value.Convert`): numbers convert to numbers (an int64 enum truncates a float), and an int64 to
 * a string as a rune. JSON null never matches, not even a null in the enum.
 */
function enumMatches(data: unknown, enumValue: unknown): boolean {
  if (data === null || enumValue === null || enumValue === undefined) return false;
  if (typeof enumValue === 'number') return typeof data === 'number' && (Number.isInteger(enumValue) ? Math.trunc(data) === enumValue : data === enumValue);
  if (typeof enumValue === 'string') {
    if (typeof data === 'string') return data === enumValue;
    if (typeof data === 'number' && Number.isInteger(data)) {
      const rune = data >= 0 && data <= 0x10ffff && !(data >= 0xd800 && data <= 0xdfff) ? String.fromCodePoint(data) : '\uFFFD';
      return rune === enumValue;
    }
    return false;
  }
  if (typeof enumValue === 'boolean') return data === enumValue;
  if (Array.isArray(enumValue)) return Array.isArray(data) && jsonDeepEqual(data, enumValue);
  return isObject(data) && jsonDeepEqual(data, enumValue);
}

/** `basicCommonValidator`: the enum, its values listed as strings or their JSON. */
function validateEnum(s: JSONSchemaProps, v: unknown, name: string): FieldError[] {
  if (s.enum === undefined || s.enum.length === 0) return [];
  if (s.enum.some((e) => enumMatches(v, e))) return [];
  return [fieldErrors.notSupported(errPath(name), goBadValue(v), s.enum.map((e) => (typeof e === 'string' ? e : goJson(e))))];
}

/**
 * `objectValidator`: minProperties and maxProperties (either stops the rest), additionalProperties, the
 * properties, then required.
 */
function validateObject(s: JSONSchemaProps, v: Record<string, unknown>, name: string, corr: Correlation): FieldError[] {
  const numKeys = Object.keys(v).length;
  if (s.minProperties !== undefined && numKeys < s.minProperties) return [invalid(name, numKeys, `${name} in body should have at least ${s.minProperties} properties`)];
  if (s.maxProperties !== undefined && numKeys > s.maxProperties) return [fieldErrors.tooMany(errPath(name), numKeys, s.maxProperties)];
  const errs: FieldError[] = [];
  const oldObj = corr !== undefined && isObject(corr.old) ? corr.old : undefined;
  const correlate = (k: string): Correlation => (oldObj !== undefined && Object.hasOwn(oldObj, k) ? { old: oldObj[k] } : undefined);
  const props = s.properties ?? {};
  if (s.additionalProperties === false) {
    for (const k of Object.keys(v)) if (!Object.hasOwn(props, k)) errs.push(invalid(name, k, `${name}.${k} in body is a forbidden property`));
  } else if (typeof s.additionalProperties === 'object') {
    const addl = s.additionalProperties;
    for (const [k, x] of Object.entries(v)) if (!Object.hasOwn(props, k)) errs.push(...validateSchema(addl, x, `${name}.${k}`, correlate(k)));
  }
  for (const [k, p] of Object.entries(props)) {
    if (Object.hasOwn(v, k)) errs.push(...validateSchema(p, v[k], name === '' ? k : `${name}.${k}`, correlate(k)));
  }
  for (const r of s.required ?? []) if (!Object.hasOwn(v, r)) errs.push(fieldErrors.required(errPath(`${name}.${r}`)));
  return errs;
}

/**
 * `ValidateCustomResourceUpdate(nil, obj, old, validator)` (`ValidateCustomResource` when `old` is
 * undefined). The root itself is not ratcheted: its metadata differs on every update.
 */
export function validateAgainstSchema(s: JSONSchemaProps, obj: Record<string, unknown>, old: Record<string, unknown> | undefined): FieldError[] {
  return validateValue(s, obj, '', old === undefined ? undefined : { old });
}
