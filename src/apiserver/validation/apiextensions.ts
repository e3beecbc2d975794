/**
 * CustomResourceDefinition validation (apiextensions-apiserver `pkg/apis/apiextensions/validation`, 1.32),
 * run on the internal form upstream validates: a v1 CRD is first converted, and that conversion decides the
 * field paths a user sees. `spec.version` becomes `versions[0].name`, and when every version has the same
 * schema, subresources or printer columns, they move to the top level (`spec.validation`,
 * `spec.subresources`, `spec.additionalPrinterColumns`), so a one-version CRD's schema errors read
 * `spec.validation.openAPIV3Schema...`, not `spec.versions[0].schema...`.
 *
 * Ported: metadata (name `<plural>.<group>`), group, scope, names, versions (names, storage, schemas
 * required, deprecation warnings, subresources, printer columns), the structural-schema rules a user most
 * often meets (types, root rules, metadata restrictions, uniqueItems, additionalProperties), conversion,
 * stored versions, the `api-approved.kubernetes.io` rule of protected groups, preserveUnknownFields, and the
 * update rules, and the `x-kubernetes-validations` rules (their fields, and that each compiles: see
 * crd/cel-compile.ts for what compiling checks). Not ported: CEL cost estimation, defaults checks, list-type/map-type
 * rules, value validations under allOf/anyOf/oneOf/not, selectableFields, and the "only ... fields are
 * allowed at the root" rule whose message embeds a Go dump of the whole schema.
 */
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { CrdNames } from '../crd/crd-registrar.js';
import { type FieldError, fieldErrors, fieldErrorString, GoValue, goQuote, Path } from '../../api/field-errors.js';
import { compareStrings } from '../../util/compare-strings.js';
import { jsonDeepEqual } from '../../util/json-equal.js';
import { goStringSlice } from './_go.js';
import { isDNS1035Label, isDNS1123Subdomain, isValidPortNum, nameIsDNSSubdomain } from './_names.js';
import { validateImmutableField, validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { CelValidator, compileRule, newRuleEnv, validFieldPath, type ValidationRule } from '../crd/cel/index.js';
import type { JSONSchemaProps } from '../crd/crd-schema.js';

/** The v1 wire shape of a CRD, as far as validation reads it. */
export interface CustomResourceDefinition {
  metadata?: ObjectMeta;
  spec?: CrdSpec;
  status?: { acceptedNames?: CrdNames; storedVersions?: string[]; conditions?: { type: string; status: string }[] };
}

export interface CrdColumn {
  name?: string;
  type?: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath?: string;
}

export interface CrdSubresources {
  status?: object;
  scale?: { specReplicasPath?: string; statusReplicasPath?: string; labelSelectorPath?: string };
}

export interface CrdVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: Schema } | null;
  subresources?: CrdSubresources | null;
  additionalPrinterColumns?: CrdColumn[] | null;
  selectableFields?: { jsonPath?: string }[];
}

export interface CrdSpec {
  group?: string;
  names?: CrdNames;
  scope?: string;
  versions?: CrdVersion[];
  conversion?: {
    strategy?: string;
    webhook?: {
      conversionReviewVersions?: string[];
      clientConfig?: { url?: string; caBundle?: string; service?: { namespace?: string; name?: string; path?: string; port?: number } };
    };
  };
  preserveUnknownFields?: boolean;
}

/** A JSON schema as the CRD carries it (only what validation reads is typed). */
export interface Schema {
  type?: string;
  nullable?: boolean;
  uniqueItems?: boolean;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema | Schema[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  [k: string]: unknown;
}

/** `printerColumnDatatypes` and `customResourceColumnDefinitionFormats`, sorted as `sets.String.List()`. */
const printerColumnTypes = ['boolean', 'date', 'integer', 'number', 'string'];
const printerColumnFormats = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
/** `openapiV3Types`, sorted. */
const openapiV3Types = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const acceptedConversionReviewVersions = ['v1', 'v1beta1'];
const approvalAnnotation = 'api-approved.kubernetes.io';
/** Go prints a set pointer as its address; any address is as good as the server's, which changes per request. */
const goPointer = '0xc000000000';

/**
 * The internal spec's per-version fields after `Convert_v1_CustomResourceDefinitionSpec_To_apiextensions`:
 * identical values (including all unset) are hoisted to the top level and cleared per version.
 */
interface Hoisted {
  validation: boolean;
  subresources: boolean;
  columns: boolean;
}

function same(a: unknown, b: unknown): boolean {
  return jsonDeepEqual(a ?? null, b ?? null);
}

function hoisted(versions: readonly CrdVersion[]): Hoisted {
  const first = versions[0];
  return {
    validation: versions.every((v) => same(v.schema, first?.schema)),
    subresources: versions.every((v) => same(v.subresources, first?.subresources)),
    columns: versions.every((v) => same(v.additionalPrinterColumns, first?.additionalPrinterColumns)),
  };
}

function goPtr(type: string, set: boolean): string {
  return `(*${type})(${set ? goPointer : 'nil'})`;
}

function goColumns(cols: readonly CrdColumn[] | null | undefined): string {
  if (cols === undefined || cols === null) return '[]apiextensions.CustomResourceColumnDefinition(nil)';
  const items = cols.map(
    (c) =>
      `apiextensions.CustomResourceColumnDefinition{Name:${goQuote(c.name ?? '')}, Type:${goQuote(c.type ?? '')}, Format:${goQuote(c.format ?? '')}, Description:${goQuote(c.description ?? '')}, Priority:${c.priority ?? 0}, JSONPath:${goQuote(c.jsonPath ?? '')}}`,
  );
  return `[]apiextensions.CustomResourceColumnDefinition{${items.join(', ')}}`;
}

/** `%#v` of the internal `[]apiextensions.CustomResourceDefinitionVersion` (hoisted fields cleared). */
function goVersions(versions: readonly CrdVersion[] | undefined, h: Hoisted): GoValue {
  if (versions === undefined) return new GoValue('[]apiextensions.CustomResourceDefinitionVersion(nil)');
  const items = versions.map((v) => {
    const schema = !h.validation && v.schema !== undefined && v.schema !== null;
    const subresources = !h.subresources && v.subresources !== undefined && v.subresources !== null;
    const columns = h.columns ? undefined : v.additionalPrinterColumns;
    const selectable =
      v.selectableFields === undefined
        ? '[]apiextensions.SelectableField(nil)'
        : `[]apiextensions.SelectableField{${v.selectableFields.map((f) => `apiextensions.SelectableField{JSONPath:${goQuote(f.jsonPath ?? '')}}`).join(', ')}}`;
    return (
      `apiextensions.CustomResourceDefinitionVersion{Name:${goQuote(v.name ?? '')}, Served:${v.served === true}, Storage:${v.storage === true}, ` +
      `Deprecated:${v.deprecated === true}, DeprecationWarning:${goPtr('string', v.deprecationWarning !== undefined)}, ` +
      `Schema:${goPtr('apiextensions.CustomResourceValidation', schema)}, Subresources:${goPtr('apiextensions.CustomResourceSubresources', subresources)}, ` +
      `AdditionalPrinterColumns:${goColumns(columns)}, SelectableFields:${selectable}}`
    );
  });
  return new GoValue(`[]apiextensions.CustomResourceDefinitionVersion{${items.join(', ')}}`);
}

/** `value` as a DNS-1035 label; `checked` is the text checked when that differs (a kind, lower-cased). */
function dns1035(value: string, path: Path, prefix = '', checked = value): FieldError[] {
  const msgs = isDNS1035Label(checked);
  return msgs.length > 0 ? [fieldErrors.invalid(path, value, prefix + msgs.join(','))] : [];
}

/** `validateEnumStrings` (required). */
function validateEnum(path: Path, value: string | undefined, accepted: readonly string[]): FieldError[] {
  if ((value ?? '') === '') return [fieldErrors.required(path, '')];
  return accepted.includes(value ?? '') ? [] : [fieldErrors.notSupported(path, value, accepted)];
}

/** `ValidateCustomResourceDefinitionNames` (spec.names and status.acceptedNames). */
export function validateNames(names: CrdNames, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const { plural = '', singular = '', kind = '', listKind = '' } = names;
  if (plural !== '') errs.push(...dns1035(plural, path.child('plural')));
  if (singular !== '') errs.push(...dns1035(singular, path.child('singular')));
  const mixedCase = 'may have mixed case, but should otherwise match: ';
  if (kind !== '') errs.push(...dns1035(kind, path.child('kind'), mixedCase, kind.toLowerCase()));
  if (listKind !== '') errs.push(...dns1035(listKind, path.child('listKind'), mixedCase, listKind.toLowerCase()));
  (names.shortNames ?? []).forEach((s, i) => errs.push(...dns1035(s, path.child('shortNames').index(i))));
  if (kind !== '' && kind === listKind) errs.push(fieldErrors.invalid(path.child('listKind'), listKind, 'kind and listKind may not be the same'));
  (names.categories ?? []).forEach((c, i) => errs.push(...dns1035(c, path.child('categories').index(i))));
  return errs;
}

/** `validateSimpleJSONPath`. */
function validateSimpleJSONPath(s: string, path: Path): FieldError[] {
  if (s === '') return [fieldErrors.invalid(path, s, 'must not be empty')];
  if (!s.startsWith('.')) return [fieldErrors.invalid(path, s, 'must be a simple json path starting with .')];
  return [];
}

/** `ValidateCustomResourceColumnDefinition`: note upstream's `JSONPath` path segment. */
function validateColumn(col: CrdColumn, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  if ((col.name ?? '') === '') errs.push(fieldErrors.required(path.child('name'), ''));
  const typeMsg = `must be one of ${printerColumnTypes.join(',')}`;
  if ((col.type ?? '') === '') errs.push(fieldErrors.required(path.child('type'), typeMsg));
  else if (!printerColumnTypes.includes(col.type ?? '')) errs.push(fieldErrors.invalid(path.child('type'), col.type, typeMsg));
  if ((col.format ?? '') !== '' && !printerColumnFormats.includes(col.format ?? '')) {
    errs.push(fieldErrors.invalid(path.child('format'), col.format, `must be one of ${printerColumnFormats.join(',')}`));
  }
  if ((col.jsonPath ?? '') === '') errs.push(fieldErrors.required(path.child('JSONPath'), ''));
  else errs.push(...validateSimpleJSONPath(col.jsonPath ?? '', path.child('JSONPath')));
  return errs;
}

/** `ValidateCustomResourceDefinitionSubresources`: the scale paths. */
function validateSubresources(sub: CrdSubresources | null | undefined, path: Path): FieldError[] {
  const scale = sub?.scale;
  if (scale === undefined || scale === null) return [];
  const errs: FieldError[] = [];
  const scalePath = (under: 'spec' | 'status', value: string | undefined, child: string): void => {
    const p = path.child(`scale.${child}`);
    if ((value ?? '') === '') {
      errs.push(fieldErrors.required(p, ''));
      return;
    }
    const jsonErrs = validateSimpleJSONPath(value ?? '', p);
    if (jsonErrs.length > 0) errs.push(...jsonErrs);
    else if (!(value ?? '').startsWith(`.${under}.`)) errs.push(fieldErrors.invalid(p, value, `should be a json path under .${under}`));
  };
  scalePath('spec', scale.specReplicasPath, 'specReplicasPath');
  scalePath('status', scale.statusReplicasPath, 'statusReplicasPath');
  const sel = scale.labelSelectorPath ?? '';
  if (sel !== '') {
    const p = path.child('scale.labelSelectorPath');
    const jsonErrs = validateSimpleJSONPath(sel, p);
    if (jsonErrs.length > 0) errs.push(...jsonErrs);
    else if (!sel.startsWith('.spec.') && !sel.startsWith('.status.')) errs.push(fieldErrors.invalid(p, sel, 'should be a json path under either .spec or .status'));
  }
  return errs;
}

function validateDeprecationWarning(v: CrdVersion, path: Path): FieldError[] {
  const warning = v.deprecationWarning;
  if (warning === undefined) return [];
  const p = path.child('deprecationWarning');
  if (v.deprecated !== true) return [fieldErrors.invalid(p, warning, 'can only be set for deprecated versions')];
  const errs: FieldError[] = [];
  if (Buffer.byteLength(warning) > 256) errs.push(fieldErrors.invalid(p, warning, 'must be <= 256 characters long'));
  if (warning === '') errs.push(fieldErrors.invalid(p, warning, 'must not be an empty string'));
  let offset = 0;
  for (const ch of warning) {
    // unicode.IsPrint rejects controls (and spaces other than U+0020); IsControl is checked second upstream.
    if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|[^\P{Zs} ]/u.test(ch)) {
      errs.push(fieldErrors.invalid(p, warning, `must only contain printable UTF-8 characters; non-printable character found at index ${offset}`));
      break;
    }
    offset += Buffer.byteLength(ch);
  }
  return errs;
}

type Level = 'root' | 'item' | 'field';

/**
 * The structural-schema invariants of `ValidateStructural` this port covers (upstream sorts them by message),
 * then the per-node rules of `ValidateCustomResourceDefinitionOpenAPISchema` (properties in key order).
 */
function validateStructural(s: Schema, lvl: Level, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const items = Array.isArray(s.items) ? undefined : s.items;
  if (s.type === 'array' && items === undefined) errs.push(fieldErrors.required(path.child('items'), 'must be specified'));
  if (items !== undefined) errs.push(...validateStructural(items, 'item', path.child('items')));
  for (const k of Object.keys(s.properties ?? {}).sort()) errs.push(...validateStructural(s.properties?.[k] ?? {}, 'field', path.child('properties').key(k)));
  if (s.additionalProperties !== undefined && s.additionalProperties !== null && s.additionalProperties !== false) {
    if (lvl === 'root') errs.push(fieldErrors.forbidden(path.child('additionalProperties'), 'must not be used at the root'));
    if (typeof s.additionalProperties === 'object') errs.push(...validateStructural(s.additionalProperties, 'field', path.child('additionalProperties')));
  }
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (intOrString && preserve) errs.push(fieldErrors.invalid(path.child('x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
  if (intOrString && embedded) errs.push(fieldErrors.invalid(path.child('x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));
  const type = s.type ?? '';
  if (embedded && type !== 'object') {
    if (type === '') errs.push(fieldErrors.required(path.child('type'), 'must be object if x-kubernetes-embedded-resource is true'));
    else errs.push(fieldErrors.invalid(path.child('type'), type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (type === '' && !intOrString && !preserve) {
    const where = { root: 'at the root', item: 'for specified array items', field: 'for specified object fields' }[lvl];
    errs.push(fieldErrors.required(path.child('type'), `must not be empty ${where}`));
  }
  if (lvl === 'root' && type !== '' && type !== 'object') errs.push(fieldErrors.invalid(path.child('type'), type, 'must be object at the root'));
  const checkMetadata = lvl === 'root' || embedded;
  for (const k of ['kind', 'apiVersion']) {
    const p = s.properties?.[k];
    if (p !== undefined && checkMetadata && p.type !== 'string') errs.push(fieldErrors.invalid(path.child('properties').key(k).child('type'), p.type ?? '', 'must be string'));
  }
  const metadata = s.properties?.['metadata'];
  if (metadata !== undefined) errs.push(...validateMetadataSchema(metadata, checkMetadata, lvl, path.child('properties').key('metadata')));
  return errs;
}

/** `validateStructuralMetadataInvariants`: at the root, metadata may only restrict name and generateName. */
function validateMetadataSchema(s: Schema, checkMetadata: boolean, lvl: Level, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (checkMetadata && s.type !== 'object') errs.push(fieldErrors.invalid(path.child('type'), s.type ?? '', 'must be object'));
  if (lvl === 'root') {
    const rest: Record<string, unknown> = { ...s };
    delete rest['type'];
    delete rest['default'];
    delete rest['description'];
    const props = Object.keys(s.properties ?? {});
    if (props.every((p) => p === 'name' || p === 'generateName')) delete rest['properties'];
    if (Object.keys(rest).length > 0) errs.push(fieldErrors.forbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
  }
  return errs;
}

/** `specStandardValidatorV3.validate` and the recursive rules of `ValidateCustomResourceDefinitionOpenAPISchema` this port covers. */
function validateOpenAPISchema(s: Schema, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const type = s.type ?? '';
  if (type === 'null') errs.push(fieldErrors.forbidden(path.child('type'), 'type cannot be set to null, use nullable as an alternative'));
  else if (type !== '' && !openapiV3Types.includes(type)) errs.push(fieldErrors.notSupported(path.child('type'), type, openapiV3Types));
  if (s.uniqueItems === true) errs.push(fieldErrors.forbidden(path.child('uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  const additional = s.additionalProperties;
  if (additional !== undefined && additional !== null) {
    if (Object.keys(s.properties ?? {}).length > 0 && (additional === false || typeof additional === 'object')) {
      errs.push(fieldErrors.forbidden(path.child('additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
    if (typeof additional === 'object') errs.push(...validateOpenAPISchema(additional, path.child('additionalProperties')));
  }
  for (const k of Object.keys(s.properties ?? {}).sort()) errs.push(...validateOpenAPISchema(s.properties?.[k] ?? {}, path.child('properties').key(k)));
  if (Array.isArray(s.items)) errs.push(fieldErrors.forbidden(path.child('items'), 'items must be a schema object and not an array'));
  else if (s.items !== undefined) errs.push(...validateOpenAPISchema(s.items, path.child('items')));
  if (s['x-kubernetes-preserve-unknown-fields'] === false) errs.push(fieldErrors.invalid(path.child('x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  return errs;
}

/** `validateCustomResourceDefinitionValidation` for one schema (top-level or per-version). */
function validateSchema(validation: CrdVersion['schema'], statusEnabled: boolean, path: Path): FieldError[] {
  const schema = validation?.openAPIV3Schema;
  if (schema === undefined || schema === null) return [];
  const p = path.child('openAPIV3Schema');
  const errs: FieldError[] = [];
  if (statusEnabled && schema.type !== undefined && schema.type !== 'object') {
    errs.push(fieldErrors.invalid(path.child('openAPIV3Schema.type'), schema.type, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled'));
  }
  if (schema.nullable === true) errs.push(fieldErrors.forbidden(path.child('openAPIV3Schema.nullable'), 'nullable cannot be true at the root'));
  const structural = validateStructural(schema, 'root', p);
  structural.sort((a, b) => compareStrings(fieldErrorString(a), fieldErrorString(b)));
  errs.push(...structural, ...validateOpenAPISchema(schema, p));
  const cel: CelCheckErrors = { schemaErrors: [], celErrors: [], other: errs.slice() };
  validateXValidations(schema, p, undefined, cel, true);
  errs.push(...cel.schemaErrors, ...cel.celErrors);
  return errs;
}

/** `supportedValidationReason`, sorted. */
const supportedValidationReasons = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
/** `newlineMatcher`: the line breaks of CEL's grammar. */
const newlines = /[\n\r]+/;

/** `%#v` of the internal `apiextensions.ValidationRule`. */
function goValidationRule(r: ValidationRule): GoValue {
  const reason = goPtr('apiextensions.FieldValueErrorReason', r.reason !== undefined);
  const optionalOldSelf = goPtr('bool', r.optionalOldSelf !== undefined);
  return new GoValue(
    `apiextensions.ValidationRule{Rule:${goQuote(r.rule ?? '')}, Message:${goQuote(r.message ?? '')}, MessageExpression:${goQuote(r.messageExpression ?? '')}, Reason:${reason}, FieldPath:${goQuote(r.fieldPath ?? '')}, OptionalOldSelf:${optionalOldSelf}}`,
  );
}

const ruleEnv = newRuleEnv();

/**
 * `OpenAPISchemaErrorList`: schema errors and CEL errors (which upstream lists after all schema errors), and
 * the schema errors found before the rules were looked at, which also hold the rules' compilation back.
 */
interface CelCheckErrors {
  schemaErrors: FieldError[];
  celErrors: FieldError[];
  other: readonly FieldError[];
}

function under(e: FieldError, path: Path): boolean {
  const p = path.toString();
  return e.field === p || e.field.startsWith(`${p}.`) || e.field.startsWith(`${p}[`);
}

/**
 * The `x-kubernetes-validations` checks of `ValidateCustomResourceDefinitionOpenAPISchema`, children first as
 * upstream recurses before checking a node: the rule, message, messageExpression, reason and fieldPath
 * fields (schema errors); then, when this node and those below it have no schema error, each rule's
 * compilation (CEL errors); then, when nothing at all was found, the node's rules run against its enum values
 * and example. `uncorrelatable` is the path of the list (not a map list) the node is inside of, where
 * `oldSelf` has no value to compare with.
 */
function validateXValidations(s: Schema, path: Path, uncorrelatable: Path | undefined, out: CelCheckErrors, root = false): void {
  if (typeof s.additionalProperties === 'object' && s.additionalProperties !== null) validateXValidations(s.additionalProperties, path.child('additionalProperties'), uncorrelatable, out);
  for (const k of Object.keys(s.properties ?? {}).sort()) validateXValidations(s.properties?.[k] ?? {}, path.child('properties').key(k), uncorrelatable, out);
  if (s.items !== undefined && !Array.isArray(s.items)) {
    const listType = s['x-kubernetes-list-type'];
    validateXValidations(s.items, path.child('items'), uncorrelatable ?? (listType === 'map' ? undefined : path), out);
  }
  const rules = (Array.isArray(s['x-kubernetes-validations']) ? s['x-kubernetes-validations'] : []) as ValidationRule[];
  if (rules.length === 0) return;
  rules.forEach((rule, i) => {
    const rp = path.child('x-kubernetes-validations').index(i);
    const message = rule.message ?? '';
    const trimmedRule = (rule.rule ?? '').trim();
    const trimmedMsg = message.trim();
    if (trimmedRule === '') out.schemaErrors.push(fieldErrors.required(rp.child('rule'), 'rule is not specified'));
    else if (message !== '' && trimmedMsg === '') out.schemaErrors.push(fieldErrors.invalid(rp.child('message'), message, 'message must be non-empty if specified'));
    else if (message.length > 2048) out.schemaErrors.push(fieldErrors.invalid(rp.child('message'), `${message.slice(0, 10)}...`, 'message must have a maximum length of 2048 characters'));
    else if (newlines.test(trimmedMsg)) out.schemaErrors.push(fieldErrors.invalid(rp.child('message'), message, 'message must not contain line breaks'));
    else if (newlines.test(trimmedRule) && trimmedMsg === '') out.schemaErrors.push(fieldErrors.required(rp.child('message'), 'message must be specified if rule contains line breaks'));
    if ((rule.messageExpression ?? '') !== '' && (rule.messageExpression ?? '').trim() === '') {
      out.schemaErrors.push(fieldErrors.required(rp.child('messageExpression'), 'messageExpression must be non-empty if specified'));
    }
    if (rule.reason !== undefined && !supportedValidationReasons.includes(rule.reason)) {
      out.schemaErrors.push(fieldErrors.notSupported(rp.child('reason'), rule.reason, supportedValidationReasons));
    }
    const fieldPath = rule.fieldPath ?? '';
    if (fieldPath !== '' && fieldPath.trim() === '') out.schemaErrors.push(fieldErrors.invalid(rp.child('fieldPath'), fieldPath, 'fieldPath must be non-empty if specified'));
    if (newlines.test(fieldPath)) out.schemaErrors.push(fieldErrors.invalid(rp.child('fieldPath'), fieldPath, 'fieldPath must not contain line breaks'));
    if (fieldPath !== '') {
      const valid = validFieldPath(fieldPath, s as JSONSchemaProps);
      if (valid instanceof Error) out.schemaErrors.push(fieldErrors.invalid(rp.child('fieldPath'), fieldPath, `fieldPath must be a valid path: ${valid.message}`));
    }
  });
  // "If any schema related validation errors have been found at this level or deeper, skip CEL expression
  // validation."
  if ([...out.schemaErrors, ...out.other].some((e) => under(e, path))) return;
  const celBefore = out.celErrors.length;
  rules.forEach((rule, i) => {
    const rp = path.child('x-kubernetes-validations').index(i);
    const cr = compileRule(ruleEnv, rule, s as JSONSchemaProps, root);
    if (cr.error !== undefined) {
      if (cr.errorRequired === true) out.celErrors.push(fieldErrors.required(rp.child('rule'), cr.error));
      else out.celErrors.push(fieldErrors.invalid(rp.child('rule'), goValidationRule(rule), cr.error));
    }
    if (cr.messageError !== undefined) out.celErrors.push(fieldErrors.invalid(rp.child('messageExpression'), goValidationRule(rule), cr.messageError));
    if (cr.error === undefined && cr.usesOldSelf && uncorrelatable !== undefined) {
      out.celErrors.push(fieldErrors.invalid(rp.child('rule'), rule.rule ?? '', `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable.toString()}`));
    } else if (cr.error === undefined && !cr.usesOldSelf && rule.optionalOldSelf !== undefined) {
      out.celErrors.push(fieldErrors.invalid(rp.child('optionalOldSelf'), rule.optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
    }
  });
  if (out.celErrors.slice(celBefore).length > 0 || out.celErrors.some((e) => under(e, path))) return;
  // The example and enum values must pass the node's rules too.
  const validator = new CelValidator(s as JSONSchemaProps);
  if (s['example'] !== undefined && s['example'] !== null) out.celErrors.push(...validator.validate(s['example'], undefined, { path: path.child('example').toString(), resourceRoot: false }));
  const enumValues = Array.isArray(s['enum']) ? (s['enum'] as unknown[]) : [];
  enumValues.forEach((v, i) => {
    if (v !== null && v !== undefined) out.celErrors.push(...validator.validate(v, undefined, { path: path.child('enum').index(i).toString(), resourceRoot: false }));
  });
}

function hasStatus(sub: CrdSubresources | null | undefined): boolean {
  return sub !== undefined && sub !== null && sub.status !== undefined && sub.status !== null;
}

/** `validateCustomResourceConversion` on the internal form (`spec.conversion.webhookClientConfig`, ...). */
function validateConversion(spec: CrdSpec, path: Path): FieldError[] {
  const conversion = spec.conversion;
  if (conversion === undefined || conversion === null) return [];
  const errs: FieldError[] = [];
  if ((conversion.strategy ?? 'None') !== 'None' && spec.preserveUnknownFields === true) {
    errs.push(fieldErrors.invalid(path.child('strategy'), conversion.strategy, 'must be None if spec.preserveUnknownFields is true'));
  }
  errs.push(...validateEnum(path.child('strategy'), conversion.strategy, ['None', 'Webhook']));
  const cc = conversion.webhook?.clientConfig;
  const reviewVersions = conversion.webhook?.conversionReviewVersions;
  if (conversion.strategy !== 'Webhook') {
    if (cc !== undefined && cc !== null) errs.push(fieldErrors.forbidden(path.child('webhookClientConfig'), 'should not be set when strategy is not set to Webhook'));
    if ((reviewVersions ?? []).length > 0) errs.push(fieldErrors.forbidden(path.child('conversionReviewVersions'), 'should not be set when strategy is not set to Webhook'));
    return errs;
  }
  const ccPath = path.child('webhookClientConfig');
  if (cc === undefined || cc === null) {
    errs.push(fieldErrors.required(ccPath, 'required when strategy is set to Webhook'));
  } else if ((cc.url === undefined) === (cc.service === undefined)) {
    errs.push(fieldErrors.required(ccPath, 'exactly one of url or service is required'));
  } else if (cc.url !== undefined) {
    errs.push(...validateWebhookURL(cc.url, ccPath.child('url')));
  } else if (cc.service !== undefined) {
    // Upstream passes (name, namespace) to ValidateWebhookService(namespace, name): an empty name is reported
    // as the namespace and the other way round (kubernetes/kubernetes#141353). Reproduced as served.
    const svc = cc.service;
    const svcPath = ccPath.child('service');
    if ((svc.namespace ?? '') === '') errs.push(fieldErrors.required(svcPath.child('name'), ''));
    if ((svc.name ?? '') === '') errs.push(fieldErrors.required(svcPath.child('namespace'), ''));
    const port = svc.port ?? 443;
    const portErrs = isValidPortNum(port);
    if (portErrs.length > 0) errs.push(fieldErrors.invalid(svcPath.child('port'), port, `port is not valid: ${portErrs.join(', ')}`));
  }
  const rvPath = path.child('conversionReviewVersions');
  if (reviewVersions === undefined || reviewVersions.length === 0) {
    errs.push(fieldErrors.required(rvPath, ''));
  } else {
    const seen = new Set<string>();
    let accepted = false;
    reviewVersions.forEach((v, i) => {
      if (seen.has(v)) {
        errs.push(fieldErrors.invalid(rvPath.index(i), v, 'duplicate version'));
        return;
      }
      seen.add(v);
      for (const m of isDNS1035Label(v)) errs.push(fieldErrors.invalid(rvPath.index(i), v, m));
      if (acceptedConversionReviewVersions.includes(v)) accepted = true;
    });
    if (!accepted) errs.push(fieldErrors.invalid(rvPath, goStringSlice(reviewVersions), `must include at least one of ${acceptedConversionReviewVersions.join(', ')}`));
  }
  return errs;
}

/** `webhook.ValidateWebhookURL` with https forced. */
function validateWebhookURL(raw: string, path: Path): FieldError[] {
  const form = '; desired format: https://host[/path]';
  let u: URL | undefined;
  try {
    u = new URL(raw);
  } catch {
    // Go's url.Parse takes a string without a scheme as a path: no scheme, no host.
    u = undefined;
  }
  if (u === undefined) return [fieldErrors.invalid(path, '', `'https' is the only allowed URL scheme${form}`), fieldErrors.invalid(path, '', `host must be specified${form}`)];
  const errs: FieldError[] = [];
  const scheme = u.protocol.replace(/:$/, '');
  if (scheme !== 'https') errs.push(fieldErrors.invalid(path, scheme, `'https' is the only allowed URL scheme${form}`));
  if (u.host === '') errs.push(fieldErrors.invalid(path, u.host, `host must be specified${form}`));
  if (u.username !== '') errs.push(fieldErrors.invalid(path, u.password !== '' ? `${u.username}:${u.password}` : u.username, 'user information is not permitted in the URL'));
  if (u.hash.length > 1) errs.push(fieldErrors.invalid(path, u.hash.slice(1), 'fragments are not permitted in the URL'));
  if (u.search.length > 1) errs.push(fieldErrors.invalid(path, u.search.slice(1), 'query parameters are not permitted in the URL'));
  return errs;
}

/** `validateCustomResourceDefinitionSpec` with the create options (schemas required, structural). */
function validateSpec(spec: CrdSpec, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const group = spec.group ?? '';
  const groupMsgs = isDNS1123Subdomain(group);
  if (group === '') errs.push(fieldErrors.required(path.child('group'), ''));
  else if (groupMsgs.length > 0) errs.push(fieldErrors.invalid(path.child('group'), group, groupMsgs.join(',')));
  else if (group.split('.').length < 2) errs.push(fieldErrors.invalid(path.child('group'), group, 'should be a domain with at least one dot'));
  errs.push(...validateEnum(path.child('scope'), spec.scope, ['Cluster', 'Namespaced']));

  const versions = spec.versions ?? [];
  const h = hoisted(versions);
  const topSchema = h.validation ? versions[0]?.schema : undefined;
  const topSubresources = h.subresources ? versions[0]?.subresources : undefined;
  const topColumns = h.columns ? versions[0]?.additionalPrinterColumns : undefined;
  const versionsPath = path.child('versions');
  if (topSchema?.openAPIV3Schema === undefined || topSchema.openAPIV3Schema === null) {
    versions.forEach((v, i) => {
      if (v.schema?.openAPIV3Schema === undefined || v.schema.openAPIV3Schema === null) {
        errs.push(fieldErrors.required(versionsPath.index(i).child('schema').child('openAPIV3Schema'), 'schemas are required'));
      }
    });
  }
  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    const vp = versionsPath.index(i);
    if (v.storage === true) storageCount++;
    if (seen.has(v.name ?? '')) unique = false;
    seen.add(v.name ?? '');
    errs.push(...dns1035(v.name ?? '', vp.child('name')));
    errs.push(...validateDeprecationWarning(v, vp));
    const statusEnabled = hasStatus(h.subresources ? topSubresources : v.subresources);
    if (!h.validation) errs.push(...validateSchema(v.schema, statusEnabled, vp.child('schema')));
    if (!h.subresources) errs.push(...validateSubresources(v.subresources, vp.child('subresources')));
    if (!h.columns) (v.additionalPrinterColumns ?? []).forEach((c, j) => errs.push(...validateColumn(c, vp.child('additionalPrinterColumns').index(j))));
  });
  if (!unique) errs.push(fieldErrors.invalid(versionsPath, goVersions(spec.versions, h), 'must contain unique version names'));
  if (storageCount !== 1) errs.push(fieldErrors.invalid(versionsPath, goVersions(spec.versions, h), 'must have exactly one version marked as storage version'));
  // The internal spec.version is versions[0].name: an invalid first version name is reported twice.
  const first = versions[0]?.name ?? '';
  if (first !== '') errs.push(...dns1035(first, path.child('version')));

  const names = spec.names ?? {};
  const namesPath = path.child('names');
  for (const k of ['plural', 'singular', 'kind', 'listKind'] as const) {
    if ((names[k] ?? '') === '') errs.push(fieldErrors.required(namesPath.child(k), ''));
  }
  errs.push(...validateNames(names, namesPath));
  const anyStatus = hasStatus(topSubresources) || versions.some((v) => !h.subresources && hasStatus(v.subresources));
  errs.push(...validateSchema(topSchema, anyStatus, path.child('validation')));
  errs.push(...validateSubresources(topSubresources, path.child('subresources')));
  (topColumns ?? []).forEach((c, j) => errs.push(...validateColumn(c, path.child('additionalPrinterColumns').index(j))));
  errs.push(...validateConversion(spec, path.child('conversion')));
  return errs;
}

/** `ValidateCustomResourceDefinitionStoredVersions`. Go iterates a map for the last rule: we go in index order. */
function validateStoredVersions(stored: readonly string[] | undefined, versions: readonly CrdVersion[], path: Path): FieldError[] {
  if (stored === undefined || stored.length === 0) return [fieldErrors.invalid(path, goStringSlice(stored), 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map<string, number>();
  stored.forEach((v, i) => remaining.set(v, i));
  for (const v of versions) {
    const name = v.name ?? '';
    if (v.storage === true && !remaining.has(name)) errs.push(fieldErrors.invalid(path, goStringSlice(stored), `must have the storage version ${name}`));
    remaining.delete(name);
  }
  for (const [v, i] of [...remaining].sort((a, b) => a[1] - b[1])) {
    errs.push(
      fieldErrors.invalid(
        path.index(i),
        v,
        `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`,
      ),
    );
  }
  return errs;
}

function isProtectedCommunityGroup(group: string): boolean {
  return group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');
}

type Approval = 'approved' | 'bypassed' | 'missing' | 'invalid';

/** `apihelpers.GetAPIApprovalState`. */
function approvalState(annotations: Record<string, string> | undefined): { state: Approval; reason: string } {
  const a = annotations?.[approvalAnnotation] ?? '';
  const see = 'see https://github.com/kubernetes/enhancements/pull/1111';
  if (a === '') return { state: 'missing', reason: `protected groups must have approval annotation ${goQuote(approvalAnnotation)}, ${see}` };
  if (a.startsWith('unapproved')) return { state: 'bypassed', reason: '' };
  try {
    const u = new URL(a);
    if (u.host !== '' && u.protocol !== '') return { state: 'approved', reason: '' };
  } catch {
    // not a URL: invalid
  }
  return { state: 'invalid', reason: `protected groups must have approval annotation ${goQuote(approvalAnnotation)} with either a URL or a reason starting with "unapproved", ${see}` };
}

/** `validateAPIApproval`: CRDs in *.k8s.io and *.kubernetes.io need the approval annotation. */
function validateAPIApproval(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): FieldError[] {
  if (!isProtectedCommunityGroup(crd.spec?.group ?? '')) return [];
  const next = approvalState(crd.metadata?.annotations);
  if (old !== undefined && approvalState(old.metadata?.annotations).state === next.state) return [];
  const p = Path.root('metadata').child('annotations').key(approvalAnnotation);
  if (next.state === 'missing') return [fieldErrors.required(p, next.reason)];
  if (next.state === 'invalid') return [fieldErrors.invalid(p, crd.metadata?.annotations?.[approvalAnnotation] ?? '', next.reason)];
  return [];
}

function validatePreserveUnknownFields(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): FieldError[] {
  if (old?.spec?.preserveUnknownFields === true || crd.spec?.preserveUnknownFields !== true) return [];
  return [fieldErrors.invalid(Path.root('spec').child('preserveUnknownFields'), true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead')];
}

function validateStatusAndApproval(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): FieldError[] {
  return [
    ...validateNames(crd.status?.acceptedNames ?? {}, Path.root('status').child('acceptedNames')),
    ...validateStoredVersions(crd.status?.storedVersions, crd.spec?.versions ?? [], Path.root('status').child('storedVersions')),
    ...validateAPIApproval(crd, old),
    ...validatePreserveUnknownFields(crd, old),
  ];
}

/** `ValidateCustomResourceDefinition`. */
export function validateCustomResourceDefinition(crd: CustomResourceDefinition): FieldError[] {
  const spec = crd.spec ?? {};
  const requiredName = `${spec.names?.plural ?? ''}.${spec.group ?? ''}`;
  const errs = validateObjectMeta(crd.metadata, {
    namespaced: false,
    kubeFinalizers: false,
    nameFn: (name, prefix) => [...nameIsDNSSubdomain(name, prefix), ...(name !== requiredName ? ['must be spec.names.plural+"."+spec.group'] : [])],
  });
  return [...errs, ...validateSpec(spec, Path.root('spec')), ...validateStatusAndApproval(crd, undefined)];
}

function established(crd: CustomResourceDefinition): boolean {
  return (crd.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
}

/**
 * `ValidateCustomResourceDefinitionUpdate`. Upstream relaxes the create rules for a stored CRD that already
 * breaks them (no schema, non-structural schema) so that it stays updatable; kubemix never stored such a
 * CRD through this validation, so only the schema requirement is relaxed.
 */
export function validateCustomResourceDefinitionUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): FieldError[] {
  const spec = crd.spec ?? {};
  const oldSpec = old.spec ?? {};
  const p = Path.root('spec');
  let specErrs = validateSpec(spec, p);
  const oldHasSchemas = (oldSpec.versions ?? []).every((v) => v.schema?.openAPIV3Schema !== undefined && v.schema.openAPIV3Schema !== null);
  if (!oldHasSchemas) specErrs = specErrs.filter((e) => e.detail !== 'schemas are required');
  const errs = [...validateObjectMetaUpdate(crd.metadata, old.metadata, undefined, { kubeFinalizers: false }), ...specErrs];
  if (established(old)) {
    errs.push(...validateImmutableField(spec.scope ?? '', oldSpec.scope ?? '', p.child('scope')));
    errs.push(...validateImmutableField(spec.names?.kind ?? '', oldSpec.names?.kind ?? '', p.child('names', 'kind')));
  }
  errs.push(...validateImmutableField(spec.group ?? '', oldSpec.group ?? '', p.child('group')));
  errs.push(...validateImmutableField(spec.names?.plural ?? '', oldSpec.names?.plural ?? '', p.child('names', 'plural')));
  return [...errs, ...validateStatusAndApproval(crd, old)];
}

/** `ValidateUpdateCustomResourceDefinitionStatus`: metadata and the accepted names. */
export function validateCustomResourceDefinitionStatusUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): FieldError[] {
  return [...validateObjectMetaUpdate(crd.metadata, old.metadata, undefined, { kubeFinalizers: false }), ...validateNames(crd.status?.acceptedNames ?? {}, Path.root('status').child('acceptedNames'))];
}
