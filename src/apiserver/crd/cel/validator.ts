/**
 * Running a CRD's `x-kubernetes-validations` rules on a custom resource (apiextensions-apiserver
 * `schema/cel/validation.go` `Validator.Validate`): each schema node's rules run with `self` bound to the
 * value there (and `oldSelf` to the old value on updates), then the rules of its `allOf` entries, then the
 * nodes below: additionalProperties values, then properties, then list items. Transition rules (those that
 * reference `oldSelf`) run only where an old value correlates — object properties and the items of
 * `x-kubernetes-list-type: map` lists matched by key — unless `optionalOldSelf` binds `oldSelf` as an optional.
 * On updates, an error of a rule that does not use oldSelf is dropped when its value (or, below an
 * uncorrelatable part, the nearest correlatable ancestor's) did not change (CRDValidationRatcheting, on by
 * default in 1.32; upstream returns it as a warning).
 *
 * Not ported: the cost budget, and set/map lists' order-insensitive equality (`self == oldSelf` on a list
 * compares in order).
 */
import type { CelEnv, CelInput, CelValue } from '@bufbuild/cel';
import { fieldErrors, GoValue, type FieldError } from '../../../api/field-errors.js';
import { jsonDeepEqual } from '../../../util/json-equal.js';
import { compileRule, newRuleEnv, OldScopedVarName, ScopedVarName, type CelProgram, type CompiledRule, type ValidationRule } from './compile.js';
import { optionalNone, optionalOf } from '../../cel/library.js';
import { runtimeErrorMessage } from '../../cel/expr.js';
import { CelValueError, toCelValue } from './values.js';
import type { JSONSchemaProps } from '../crd-schema.js';

/** `celconfig.MaxEvaluatedMessageExpressionSizeBytes`. */
const maxEvaluatedMessageExpressionSizeBytes = 5 * 1024;

/** A field path that may be Go's nil `*field.Path`, which prints as `<nil>` (rules on the root). */
type FieldPath = string | undefined;

function child(p: FieldPath, name: string): string {
  return p === undefined ? name : `${p}.${name}`;
}

function index(p: FieldPath, i: number | string): string {
  return `${p ?? ''}[${i}]`;
}

/** Correlation of a node with its old value for ratcheting (`common.CorrelatedObject`), undefined when none. */
interface Correlated {
  value: unknown;
  old: unknown;
}

interface Ratcheting {
  current?: Correlated | undefined;
  nearestParent?: Correlated | undefined;
}

function deepEqualCorrelated(c: Correlated | undefined): boolean {
  return c !== undefined && jsonDeepEqual(c.value, c.old);
}

function shouldRatchet(r: Ratcheting): boolean {
  return r.current !== undefined ? deepEqualCorrelated(r.current) : deepEqualCorrelated(r.nearestParent);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function ratchetKey(r: Ratcheting, key: string, schema: JSONSchemaProps): Ratcheting {
  if (r.current === undefined) return r;
  if (r.nearestParent === undefined && (key === 'apiVersion' || key === 'kind')) return {};
  const { value, old } = r.current;
  const next = isObject(value) && isObject(old) && key in value && key in old && mapCorrelatable(schema) ? { value: value[key], old: old[key] } : undefined;
  return { current: next, nearestParent: r.current };
}

function ratchetIndex(r: Ratcheting, i: number, oldItem: unknown): Ratcheting {
  if (r.current === undefined) return r;
  const value: unknown = Array.isArray(r.current.value) ? (r.current.value as unknown[])[i] : undefined;
  return { current: oldItem === undefined ? undefined : { value, old: oldItem }, nearestParent: r.current };
}

/** `MapIsCorrelatable`. */
function mapCorrelatable(s: JSONSchemaProps): boolean {
  const t = s['x-kubernetes-map-type'];
  return t === undefined || t === 'granular' || t === 'atomic';
}

/** The old item of a map-type list with the same keys (`makeMapList(...).Get`); other lists correlate nothing. */
function correlatedOldItem(s: JSONSchemaProps, item: unknown, oldList: unknown): unknown {
  const keys = s['x-kubernetes-list-map-keys'];
  if (s['x-kubernetes-list-type'] !== 'map' || keys === undefined || !Array.isArray(oldList) || !isObject(item)) return undefined;
  return oldList.find((o) => isObject(o) && keys.every((k) => jsonDeepEqual(o[k], item[k])));
}

function hasRules(s: JSONSchemaProps | undefined): boolean {
  if (s === undefined) return false;
  if ((s['x-kubernetes-validations'] ?? []).length > 0) return true;
  if (hasRules(s.items)) return true;
  if (typeof s.additionalProperties === 'object' && hasRules(s.additionalProperties)) return true;
  return Object.values(s.properties ?? {}).some(hasRules);
}

function ruleErrorString(rule: ValidationRule): string {
  const msg = (rule.message ?? '').trim();
  return msg !== '' ? msg : (rule.rule ?? '').trim();
}

function ruleMessageOrDefault(rule: ValidationRule): string {
  const msg = (rule.message ?? '').trim();
  return msg === '' ? `failed rule: ${ruleErrorString(rule)}` : msg;
}

/** `fieldErrorForReason`. */
function fieldErrorForReason(path: string, value: string, detail: string, reason: string | undefined): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return fieldErrors.forbidden(path, detail);
    case 'FieldValueRequired':
      return fieldErrors.required(path, detail);
    case 'FieldValueDuplicate':
      return fieldErrors.duplicate(path, value);
    default:
      return fieldErrors.invalid(path, value, detail);
  }
}

/** Runs a program; an exception the evaluator lets through is a runtime error like any other. */
function evaluate(program: CelProgram, vars: Record<string, CelInput>): CelValue | Error {
  try {
    return program(vars);
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

/** `evalMessageExpression` without the budget: the message, or undefined to fall back to the rule's message. */
function evalMessageExpression(rule: CompiledRule, vars: Record<string, CelInput>): string | undefined {
  if (rule.messageProgram === undefined) return undefined;
  const v = evaluate(rule.messageProgram, vars);
  if (typeof v !== 'string') return undefined;
  const trimmed = v.trim();
  if (Buffer.byteLength(trimmed) > maxEvaluatedMessageExpressionSizeBytes || /\n/.test(trimmed) || trimmed === '') return undefined;
  return trimmed;
}

/**
 * The rules of one CRD version's schema, compiled once (`NewValidator`). Create one per schema and reuse
 * it for every object of that version.
 */
export class CelValidator {
  private readonly env: CelEnv = newRuleEnv();
  private readonly compiled = new WeakMap<JSONSchemaProps, CompiledRule[]>();
  private readonly withRules = new WeakMap<JSONSchemaProps, boolean>();

  constructor(private readonly schema: JSONSchemaProps) {}

  /** True when the schema has any rule: upstream builds no validator otherwise. */
  get hasRules(): boolean {
    return hasRules(this.schema);
  }

  /**
   * `Validate`: `old` is the stored value on updates. By default the value is a custom resource reported
   * from Go's nil path; `path` names the root instead and `resourceRoot: false` validates a value that is not
   * a resource (upstream's tests do both).
   */
  validate(obj: unknown, old?: unknown, opts: { path?: string; resourceRoot?: boolean } = {}): FieldError[] {
    const errs: FieldError[] = [];
    const ratchet: Ratcheting = old === undefined ? {} : { current: { value: obj, old } };
    this.walk(this.schema, obj, old, opts.path, opts.resourceRoot ?? true, ratchet, errs);
    return errs;
  }

  /** Whether a node or any node below it has rules, looked up once per node. */
  private hasRulesBelow(s: JSONSchemaProps): boolean {
    let has = this.withRules.get(s);
    if (has === undefined) {
      has = hasRules(s);
      this.withRules.set(s, has);
    }
    return has;
  }

  private rules(node: JSONSchemaProps, validations: JSONSchemaProps, resourceRoot: boolean): CompiledRule[] {
    let rules = this.compiled.get(validations);
    if (rules === undefined) {
      const list = (validations['x-kubernetes-validations'] ?? []) as ValidationRule[];
      rules = list.map((r) => compileRule(this.env, r, node, resourceRoot));
      this.compiled.set(validations, rules);
    }
    return rules;
  }

  private walk(s: JSONSchemaProps, value: unknown, old: unknown, path: FieldPath, resourceRoot: boolean, ratchet: Ratcheting, errs: FieldError[]): void {
    if (value === null || value === undefined) return;
    const oldValue = old === null ? undefined : old;
    this.validateExpressions(s, s, value, oldValue, path, resourceRoot, ratchet, errs);
    // allOf entries' rules run against the same value, typed by the node's schema, without ratcheting.
    for (const a of s.allOf ?? []) {
      if ((a['x-kubernetes-validations'] ?? []).length > 0) this.validateExpressions(a, s, value, oldValue, path, resourceRoot, { nearestParent: ratchet.nearestParent }, errs);
    }
    if (Array.isArray(value)) {
      const items = s.items;
      if (items === undefined || !this.hasRulesBelow(items)) return;
      value.forEach((v, i) => {
        const oldItem = correlatedOldItem(s, v, oldValue);
        this.walk(items, v, oldItem, index(path, i), items['x-kubernetes-embedded-resource'] === true, ratchetIndex(ratchet, i, oldItem), errs);
      });
      return;
    }
    if (!isObject(value)) return;
    const oldMap = isObject(oldValue) && mapCorrelatable(s) ? oldValue : undefined;
    const addl = s.additionalProperties;
    if (typeof addl === 'object' && this.hasRulesBelow(addl)) {
      for (const [k, v] of Object.entries(value)) {
        this.walk(addl, v, oldMap?.[k], index(path, k), addl['x-kubernetes-embedded-resource'] === true, ratchetKey(ratchet, k, s), errs);
      }
    }
    if (s.properties !== undefined) {
      for (const [k, v] of Object.entries(value)) {
        const p = s.properties[k];
        if (p === undefined || !this.hasRulesBelow(p)) continue;
        this.walk(p, v, oldMap?.[k], child(path, k), p['x-kubernetes-embedded-resource'] === true, ratchetKey(ratchet, k, s), errs);
      }
    }
  }

  /** `validateExpressions`: the rules of `validations` at a node typed by `node`. */
  private validateExpressions(
    validations: JSONSchemaProps,
    node: JSONSchemaProps,
    value: unknown,
    old: unknown,
    path: FieldPath,
    resourceRoot: boolean,
    ratchet: Ratcheting,
    errs: FieldError[],
  ): void {
    const rules = this.rules(node, validations, resourceRoot);
    if (rules.length === 0) return;
    const type = node.type ?? '';
    const at = path ?? '<nil>';
    let self: CelInput;
    let oldSelf: CelInput | undefined;
    try {
      self = toCelValue(value, node, resourceRoot);
      oldSelf = old === undefined || !rules.some((r) => r.usesOldSelf) ? undefined : toCelValue(old, node, resourceRoot);
    } catch (e) {
      if (!(e instanceof CelValueError)) throw e;
      for (const r of rules) errs.push(fieldErrors.invalid(at, type, `${e.message} evaluating rule: ${ruleErrorString(r.rule)}`));
      return;
    }
    const vars: Record<string, CelInput> = oldSelf === undefined ? { [ScopedVarName]: self } : { [ScopedVarName]: self, [OldScopedVarName]: oldSelf };
    for (const compiled of rules) {
      const rule = compiled.rule;
      if (compiled.error !== undefined) {
        errs.push(fieldErrors.invalid(at, type, `rule compile error: ${compiled.error}`));
        continue;
      }
      if (compiled.program === undefined) continue;
      const optionalOldSelf = rule.optionalOldSelf === true;
      if (compiled.usesOldSelf && oldSelf === undefined && !optionalOldSelf) continue;
      const ruleVars = optionalOldSelf ? { [ScopedVarName]: self, [OldScopedVarName]: oldSelf === undefined ? optionalNone : optionalOf(oldSelf) } : vars;
      const result = evaluate(compiled.program, ruleVars);
      if (result instanceof Error) {
        const msg = runtimeErrorMessage(result.message);
        if (msg === 'no such overload') {
          errs.push(fieldErrors.invalid(at, type, `'${msg}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`));
        } else {
          errs.push(fieldErrors.invalid(at, type, `${msg} evaluating rule: ${ruleErrorString(rule)}`));
        }
        continue;
      }
      if (result === true) continue;
      const errPath = compiled.fieldPath !== undefined ? child(path, compiled.fieldPath) : at;
      const detail = evalMessageExpression(compiled, vars) ?? ruleMessageOrDefault(rule);
      if (!compiled.usesOldSelf && shouldRatchet(ratchet)) continue;
      errs.push(fieldErrorForReason(errPath, type, detail, rule.reason));
    }
  }
}

/** The error upstream adds instead of running the rules when the schema errors make them meaningless. */
export function celBlockedError(): FieldError {
  return fieldErrors.invalid('<nil>', new GoValue('"null"'), 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation');
}

/** `hasBlockingErr`: a type, required, enum or size violation means the rules would not see the shape they were written for. */
function hasBlockingErr(errs: readonly FieldError[]): boolean {
  return errs.some((e) => ['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid'].includes(e.type));
}

/**
 * Compiled validators by schema object: a CRD version's schema object lives as long as the CRD's stored
 * form, so its rules are compiled once, not per request.
 */
const validators = new WeakMap<JSONSchemaProps, CelValidator>();

/**
 * The CEL step of `customResourceStrategy.Validate`/`ValidateUpdate`, after the schema, scale, embedded-resource
 * and list-type checks whose errors are `errs`: the rules' errors, or the single "not checked" error when
 * `errs` already has a blocking one. Nothing when the schema has no rules.
 */
export function validateCelRules(schema: JSONSchemaProps, obj: Record<string, unknown>, old: Record<string, unknown> | undefined, errs: readonly FieldError[]): FieldError[] {
  let v = validators.get(schema);
  if (v === undefined) {
    v = new CelValidator(schema);
    validators.set(schema, v);
  }
  if (!v.hasRules) return [];
  if (hasBlockingErr(errs)) return [celBlockedError()];
  return v.validate(obj, old);
}
