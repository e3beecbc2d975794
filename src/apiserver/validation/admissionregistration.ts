/**
 * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding as
 * `pkg/apis/admissionregistration/validation` (v1.32) checks them: metadata, the spec's required fields,
 * match resources and their rules, param kinds and refs, validation actions, and every CEL expression compiled
 * as the ValidatingAdmissionPolicy plugin compiles it (`compilation failed: ...`; src/admission/
 * validating-admission-policy/_compile.ts, with its approximation of cel-go's type checker).
 *
 * Not checked: the cost estimates (`estimated rule cost exceeds budget`), return types that only a full type
 * checker finds, and the status (typeChecking warnings), which no controller writes here.
 */
import { type FieldError, fieldErrors, GoValue, goQuote, Path } from '../../api/field-errors.js';
import { auditAnnotationReturn, boolReturn, compileExpression, stringReturn, type ReturnTypes } from '../../admission/validating-admission-policy/_compile.js';
import type {
  MatchResources,
  NamedRuleWithOperations,
  ParamKind,
  ParamRef,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  ValidatingAdmissionPolicySpec,
  Validation,
} from '../../admission/validating-admission-policy/_api.js';
import { goStringSlice } from './_go.js';
import { isDNS1035Label, isDNS1123Subdomain, isQualifiedName, nameIsDNSSubdomain, validatePathSegmentName } from './_names.js';
import { validateLabelSelector, validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';

const supportedFailurePolicies = ['Fail', 'Ignore'];
const supportedMatchPolicies = ['Equivalent', 'Exact'];
const supportedOperations = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const validScopes = ['*', 'Cluster', 'Namespaced'];
const validValidationActions = ['Audit', 'Deny', 'Warn'];
const supportedValidationPolicyReasons = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const maxAuditAnnotations = 20;
const maxAuditAnnotationValueExpressionLength = 5 * 1024;

const metaOpts = { namespaced: false, nameFn: nameIsDNSSubdomain, kubeFinalizers: false };

function goSlice(type: string, values: readonly string[]): GoValue {
  return new GoValue(`[]${type}{${values.map(goQuote).join(', ')}}`);
}

/** `validateResources`: subresource wildcards and their conflicts. */
function validateResources(resources: readonly string[] | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const list = resources ?? [];
  if (list.length === 0) errs.push(fieldErrors.required(path, ''));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let hasDoubleWildcard = false;
  let hasSingleWildcard = false;
  let hasResourceWithoutSubresource = false;
  list.forEach((resSub, i) => {
    if (resSub === '') {
      errs.push(fieldErrors.required(path.index(i), ''));
      return;
    }
    if (resSub === '*/*') hasDoubleWildcard = true;
    if (resSub === '*') hasSingleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      hasResourceWithoutSubresource = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (withWildcardSub.has(res)) errs.push(fieldErrors.invalid(path.index(i), resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subWithWildcardRes.has(sub)) errs.push(fieldErrors.invalid(path.index(i), resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') withWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  });
  if (list.length > 1 && hasDoubleWildcard) errs.push(fieldErrors.invalid(path, goStringSlice(list), "if '*/*' is present, must not specify other resources"));
  if (hasSingleWildcard && hasResourceWithoutSubresource) errs.push(fieldErrors.invalid(path, goStringSlice(list), "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

/** `validateNamedRuleWithOperations`: resourceNames, operations, and `validateRule` with subresources allowed. */
function validateNamedRuleWithOperations(r: NamedRuleWithOperations, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (r.resourceNames ?? []).forEach((n, i) => {
    for (const msg of validatePathSegmentName(n, false)) errs.push(fieldErrors.invalid(path.child('resourceNames').index(i), n, msg));
    if (names.has(n)) errs.push(fieldErrors.duplicate(path.child('resourceNames').index(i), n));
    else names.add(n);
  });
  const ops = r.operations ?? [];
  if (ops.length === 0) errs.push(fieldErrors.required(path.child('operations'), ''));
  if (ops.length > 1 && ops.includes('*')) errs.push(fieldErrors.invalid(path.child('operations'), goSlice('admissionregistration.OperationType', ops), "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => {
    if (!supportedOperations.includes(op)) errs.push(fieldErrors.notSupported(path.child('operations').index(i), op, supportedOperations));
  });
  const groups = r.apiGroups ?? [];
  if (groups.length === 0) errs.push(fieldErrors.required(path.child('apiGroups'), ''));
  if (groups.length > 1 && groups.includes('*')) errs.push(fieldErrors.invalid(path.child('apiGroups'), goStringSlice(groups), "if '*' is present, must not specify other API groups"));
  const versions = r.apiVersions ?? [];
  if (versions.length === 0) errs.push(fieldErrors.required(path.child('apiVersions'), ''));
  if (versions.length > 1 && versions.includes('*')) errs.push(fieldErrors.invalid(path.child('apiVersions'), goStringSlice(versions), "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(fieldErrors.required(path.child('apiVersions').index(i), ''));
  });
  errs.push(...validateResources(r.resources, path.child('resources')));
  if (r.scope !== undefined && r.scope !== null && !validScopes.includes(r.scope)) errs.push(fieldErrors.notSupported(path.child('scope'), r.scope, validScopes));
  return errs;
}

/** `validateMatchResources`. */
function validateMatchResources(m: MatchResources | undefined, path: Path): FieldError[] {
  if (m === undefined || m === null) return [];
  const errs: FieldError[] = [];
  if (m.matchPolicy === undefined || m.matchPolicy === null) errs.push(fieldErrors.required(path.child('matchPolicy'), ''));
  else if (!supportedMatchPolicies.includes(m.matchPolicy)) errs.push(fieldErrors.notSupported(path.child('matchPolicy'), m.matchPolicy, supportedMatchPolicies));
  if (m.namespaceSelector === undefined || m.namespaceSelector === null) errs.push(fieldErrors.required(path.child('namespaceSelector'), ''));
  else errs.push(...validateLabelSelector(m.namespaceSelector, path.child('namespaceSelector')));
  if (m.objectSelector === undefined || m.objectSelector === null) errs.push(fieldErrors.required(path.child('objectSelector'), ''));
  else errs.push(...validateLabelSelector(m.objectSelector, path.child('objectSelector')));
  (m.resourceRules ?? []).forEach((r, i) => errs.push(...validateNamedRuleWithOperations(r, path.child('resourceRules').index(i))));
  (m.excludeResourceRules ?? []).forEach((r, i) => errs.push(...validateNamedRuleWithOperations(r, path.child('excludeResourceRules').index(i))));
  return errs;
}

/** `validateParamKind`. */
function validateParamKind(pk: ParamKind, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = pk.apiVersion ?? '';
  if (apiVersion === '') {
    errs.push(fieldErrors.required(path.child('apiVersion'), ''));
  } else if (apiVersion !== '/' && apiVersion.split('/').length > 2) {
    errs.push(fieldErrors.invalid(path.child('apiVersion'), apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
  } else {
    const slash = apiVersion.indexOf('/');
    const group = apiVersion === '/' ? '' : slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = apiVersion === '/' ? '' : slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    if (group !== '') {
      const e = isDNS1123Subdomain(group);
      if (e.length > 0) errs.push(fieldErrors.invalid(path.child('apiVersion'), group, e.join(',')));
    }
    if (version === '') errs.push(fieldErrors.invalid(path.child('apiVersion'), apiVersion, 'version must be specified'));
    else {
      const e = isDNS1035Label(version);
      if (e.length > 0) errs.push(fieldErrors.invalid(path.child('apiVersion'), version, e.join(',')));
    }
  }
  const kind = pk.kind ?? '';
  if (kind === '') errs.push(fieldErrors.required(path.child('kind'), ''));
  else {
    const e = isDNS1035Label(kind.toLowerCase());
    if (e.length > 0) errs.push(fieldErrors.invalid(path.child('kind'), kind, `may have mixed case, but should otherwise match: ${e.join(',')}`));
  }
  return errs;
}

/** A compile error as a field error (`convertCELErrorToValidationError`). */
function compileErrors(expression: string, path: Path, decls: Parameters<typeof compileExpression>[1], returnTypes?: ReturnTypes): FieldError[] {
  const r = compileExpression(expression, decls, returnTypes);
  return r.error !== undefined ? [fieldErrors.invalid(path, expression, r.error)] : [];
}

const celIdent = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const celReserved = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

/** `validateValidatingAdmissionPolicySpec`. */
function validatePolicySpec(name: string, spec: ValidatingAdmissionPolicySpec, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const hasParams = spec.paramKind !== undefined && spec.paramKind !== null;
  // With no variables upstream compiles without variable composition: `variables` is then undeclared.
  const composition = (spec.variables ?? []).length > 0;
  const declared: string[] = [];
  const variableTypes = new Map<string, string>();
  if (spec.failurePolicy === undefined || spec.failurePolicy === null) errs.push(fieldErrors.required(path.child('failurePolicy'), ''));
  else if (!supportedFailurePolicies.includes(spec.failurePolicy)) errs.push(fieldErrors.notSupported(path.child('failurePolicy'), spec.failurePolicy, ['Fail', 'Ignore']));
  if (hasParams) errs.push(...validateParamKind(spec.paramKind ?? {}, path.child('paramKind')));
  if (spec.matchConstraints === undefined || spec.matchConstraints === null) {
    errs.push(fieldErrors.required(path.child('matchConstraints'), ''));
  } else {
    errs.push(...validateMatchResources(spec.matchConstraints, path.child('matchConstraints')));
    if ((spec.matchConstraints.resourceRules ?? []).length === 0) errs.push(fieldErrors.required(path.child('matchConstraints', 'resourceRules'), ''));
  }
  const conditions = spec.matchConditions ?? [];
  const mcPath = path.child('matchConditions');
  if (conditions.length > 64) errs.push(fieldErrors.tooMany(mcPath, conditions.length, 64));
  const conditionNames = new Set<string>();
  conditions.forEach((mc, i) => {
    const expr = (mc.expression ?? '').trim();
    if (expr === '') errs.push(fieldErrors.required(mcPath.index(i).child('expression'), ''));
    else errs.push(...compileErrors(expr, mcPath.index(i).child('expression'), { hasParams, variables: [], composition: false }, boolReturn));
    if ((mc.name ?? '') === '') errs.push(fieldErrors.required(mcPath.index(i).child('name'), ''));
    else for (const msg of isQualifiedName(mc.name)) errs.push(fieldErrors.invalid(mcPath.index(i).child('name'), mc.name, msg));
    if ((mc.name ?? '') !== '') {
      if (conditionNames.has(mc.name)) errs.push(fieldErrors.duplicate(mcPath.index(i).child('name'), mc.name));
      else conditionNames.add(mc.name);
    }
  });
  (spec.variables ?? []).forEach((v, i) => {
    const vp = path.child('variables').index(i);
    if ((v.name ?? '').trim() === '') errs.push(fieldErrors.required(vp.child('name'), 'name is not specified'));
    else if (!celIdent.test(v.name) || celReserved.has(v.name)) errs.push(fieldErrors.invalid(vp.child('name'), v.name, 'name is not a valid CEL identifier'));
    if ((v.expression ?? '').trim() === '') errs.push(fieldErrors.required(vp.child('expression'), 'expression is not specified'));
    else {
      const r = compileExpression(v.expression, { hasParams, variables: [...declared], variableTypes: new Map(variableTypes) });
      if (r.error !== undefined) errs.push(fieldErrors.invalid(vp.child('expression'), v.expression, r.error));
      if (r.outputType !== undefined) variableTypes.set(v.name, r.outputType);
    }
    declared.push(v.name);
  });
  const decls = { hasParams, variables: declared, composition, variableTypes };
  const validations = spec.validations ?? [];
  const auditAnnotations = spec.auditAnnotations ?? [];
  if (validations.length === 0 && auditAnnotations.length === 0) {
    errs.push(fieldErrors.required(path.child('validations'), 'validations or auditAnnotations must contain at least one item'));
    errs.push(fieldErrors.required(path.child('auditAnnotations'), 'validations or auditAnnotations must contain at least one item'));
    return errs;
  }
  validations.forEach((v, i) => errs.push(...validateValidation(v, decls, path.child('validations').index(i))));
  if (auditAnnotations.length > maxAuditAnnotations) {
    errs.push(fieldErrors.invalid(path.child('auditAnnotations'), new GoValue(`[]admissionregistration.AuditAnnotation{...}`), `must not have more than ${maxAuditAnnotations} auditAnnotations`));
  }
  const keys = new Set<string>();
  auditAnnotations.forEach((a, i) => {
    const ap = path.child('auditAnnotations').index(i);
    if (name !== '') for (const msg of isQualifiedName(`${name}/${a.key ?? ''}`)) errs.push(fieldErrors.invalid(ap.child('key'), `${name}/${a.key ?? ''}`, msg));
    else errs.push(fieldErrors.invalid(ap.child('key'), a.key ?? '', 'requires metadata.name be non-empty'));
    const value = (a.valueExpression ?? '').trim();
    if (value === '') errs.push(fieldErrors.required(ap.child('valueExpression'), 'valueExpression is not specified'));
    else if (value.length > maxAuditAnnotationValueExpressionLength) errs.push(fieldErrors.required(ap.child('valueExpression'), `must not exceed ${maxAuditAnnotationValueExpressionLength} bytes in length`));
    else {
      const r = compileExpression(value, decls, auditAnnotationReturn);
      if (r.error !== undefined) errs.push(fieldErrors.invalid(ap.child('valueExpression'), a.valueExpression, r.error));
    }
    if (keys.has(a.key ?? '')) errs.push(fieldErrors.duplicate(ap.child('key'), a.key ?? ''));
    keys.add(a.key ?? '');
  });
  return errs;
}

/** `validateValidation`. */
function validateValidation(v: Validation, decls: Parameters<typeof compileExpression>[1], path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const expr = (v.expression ?? '').trim();
  const msg = (v.message ?? '').trim();
  const msgExpr = (v.messageExpression ?? '').trim();
  if (expr === '') errs.push(fieldErrors.required(path.child('expression'), 'expression is not specified'));
  else errs.push(...compileErrors(v.expression, path.child('expression'), decls, boolReturn));
  if ((v.messageExpression ?? '') !== '' && msgExpr === '') errs.push(fieldErrors.invalid(path.child('messageExpression'), v.messageExpression, 'must be non-empty if specified'));
  else if (msgExpr !== '') errs.push(...compileErrors(v.messageExpression ?? '', path.child('messageExpression'), decls, stringReturn));
  if ((v.message ?? '') !== '' && msg === '') errs.push(fieldErrors.invalid(path.child('message'), v.message, 'message must be non-empty if specified'));
  else if (/[\n\r]/.test(msg)) errs.push(fieldErrors.invalid(path.child('message'), v.message, 'message must not contain line breaks'));
  if (v.reason !== undefined && v.reason !== null && !supportedValidationPolicyReasons.includes(v.reason)) {
    errs.push(fieldErrors.notSupported(path.child('reason'), v.reason, supportedValidationPolicyReasons));
  }
  return errs;
}

/** `ValidateValidatingAdmissionPolicy`. */
export function validateValidatingAdmissionPolicy(p: ValidatingAdmissionPolicy): FieldError[] {
  return [...validateObjectMeta(p.metadata, metaOpts), ...validatePolicySpec(p.metadata?.name ?? '', p.spec ?? {}, Path.root('spec'))];
}

/** `ValidateValidatingAdmissionPolicyUpdate`: the policy as on create, and metadata's update rules. */
export function validateValidatingAdmissionPolicyUpdate(p: ValidatingAdmissionPolicy, old: ValidatingAdmissionPolicy): FieldError[] {
  return [...validateObjectMetaUpdate(p.metadata, old.metadata, undefined, { kubeFinalizers: false }), ...validatePolicySpec(p.metadata?.name ?? '', p.spec ?? {}, Path.root('spec'))];
}

/** `validateParamRef`. */
function validateParamRef(pr: ParamRef | undefined, path: Path): FieldError[] {
  if (pr === undefined || pr === null) return [];
  const errs: FieldError[] = [];
  const name = pr.name ?? '';
  const hasSelector = pr.selector !== undefined && pr.selector !== null;
  if (name !== '') {
    for (const msg of validatePathSegmentName(name, false)) errs.push(fieldErrors.invalid(path.child('name'), name, msg));
    if (hasSelector) errs.push(fieldErrors.forbidden(path.child('name'), 'name and selector are mutually exclusive'));
  }
  if (hasSelector) {
    errs.push(...validateLabelSelector(pr.selector, path.child('selector')));
    if (name !== '') errs.push(fieldErrors.forbidden(path.child('selector'), 'name and selector are mutually exclusive'));
  }
  if (name === '' && !hasSelector) errs.push(fieldErrors.required(path, 'one of name or selector must be specified'));
  const action: string = pr.parameterNotFoundAction ?? '';
  if (action === '') errs.push(fieldErrors.required(path.child('parameterNotFoundAction'), ''));
  // Upstream passes the field's pointer (printed as an address); the value is shown instead.
  else if (action !== 'Deny' && action !== 'Allow') errs.push(fieldErrors.notSupported(path.child('parameterNotFoundAction'), action, ['Deny', 'Allow']));
  return errs;
}

/** `validateValidationActions`. */
function validateValidationActions(actions: readonly string[] | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (actions ?? []).forEach((a, i) => {
    if (!validValidationActions.includes(a)) errs.push(fieldErrors.notSupported(path.index(i), a, validValidationActions));
    if (seen.has(a)) errs.push(fieldErrors.duplicate(path.index(i), a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(fieldErrors.invalid(path, goSlice('admissionregistration.ValidationAction', actions ?? []), 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  if (seen.size === 0) errs.push(fieldErrors.required(path, 'at least one validation action is required'));
  return errs;
}

function validateBindingSpec(b: ValidatingAdmissionPolicyBinding): FieldError[] {
  const spec = b.spec ?? {};
  const path = Path.root('spec');
  const errs: FieldError[] = [];
  const policyName = spec.policyName ?? '';
  if (policyName === '') errs.push(fieldErrors.required(path.child('policyName'), ''));
  else for (const msg of nameIsDNSSubdomain(policyName, false)) errs.push(fieldErrors.invalid(path.child('policyName'), policyName, msg));
  errs.push(...validateParamRef(spec.paramRef, path.child('paramRef')));
  errs.push(...validateMatchResources(spec.matchResources, path.child('matchResources')));
  errs.push(...validateValidationActions(spec.validationActions, path.child('validationActions')));
  return errs;
}

/** `ValidateValidatingAdmissionPolicyBinding`. */
export function validateValidatingAdmissionPolicyBinding(b: ValidatingAdmissionPolicyBinding): FieldError[] {
  return [...validateObjectMeta(b.metadata, metaOpts), ...validateBindingSpec(b)];
}

/** `ValidateValidatingAdmissionPolicyBindingUpdate`. */
export function validateValidatingAdmissionPolicyBindingUpdate(b: ValidatingAdmissionPolicyBinding, old: ValidatingAdmissionPolicyBinding): FieldError[] {
  return [...validateObjectMetaUpdate(b.metadata, old.metadata, undefined, { kubeFinalizers: false }), ...validateBindingSpec(b)];
}
