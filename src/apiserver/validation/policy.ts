/**
 * policy/v1 PodDisruptionBudgets as `pkg/apis/policy/validation` (v1.32) checks them, run the way the PDB
 * registry strategy and the generic registry do. The strategy validates the spec only; metadata is left
 * to the generic registry's `BeforeCreate`/`BeforeUpdate`, which check it with apimachinery's rules
 * (names are path segments, not DNS subdomains) — on create only once the strategy found nothing.
 */
import type { PodDisruptionBudget, PodDisruptionBudgetSpec, PodDisruptionBudgetStatus } from 'kubernetes-types/policy/v1.js';
import { type FieldError, fieldErrors, Path } from '../../api/field-errors.js';
import { validatePathSegmentName } from './_names.js';
import { goPodDisruptionBudgetSpec } from './_go.js';
import { isNotMoreThan100Percent, validatePositiveIntOrPercent } from './apps.js';
import { type LabelSelectorValidationOptions, validateConditions, validateLabelSelector, validateNonnegativeField, validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';

const supportedUnhealthyPodEvictionPolicies = ['AlwaysAllow', 'IfHealthyBudget'];

const genericMetaOpts = { namespaced: true, nameFn: validatePathSegmentName, kubeFinalizers: false };

/** `ValidatePodDisruptionBudgetSpec`. */
export function validatePodDisruptionBudgetSpec(spec: PodDisruptionBudgetSpec | undefined, opts: LabelSelectorValidationOptions, path: Path): FieldError[] {
  const s = spec ?? {};
  const errs: FieldError[] = [];
  if (s.minAvailable != null && s.maxUnavailable != null) {
    errs.push(fieldErrors.invalid(path, goPodDisruptionBudgetSpec(s), 'minAvailable and maxUnavailable cannot be both set'));
  }
  for (const f of ['minAvailable', 'maxUnavailable'] as const) {
    const v = s[f];
    if (v == null) continue;
    errs.push(...validatePositiveIntOrPercent(v, path.child(f)));
    errs.push(...isNotMoreThan100Percent(v, path.child(f)));
  }
  errs.push(...validateLabelSelector(s.selector, path.child('selector'), opts));
  const policy = s.unhealthyPodEvictionPolicy;
  if (policy != null && !supportedUnhealthyPodEvictionPolicies.includes(policy)) {
    errs.push(fieldErrors.notSupported(path.child('unhealthyPodEvictionPolicy'), policy, supportedUnhealthyPodEvictionPolicies));
  }
  return errs;
}

/** `ValidatePodDisruptionBudget`: the spec only (the strategy's `Validate`). */
function validatePodDisruptionBudgetObject(pdb: PodDisruptionBudget, opts: LabelSelectorValidationOptions): FieldError[] {
  return validatePodDisruptionBudgetSpec(pdb.spec, opts, Path.root('spec'));
}

/**
 * The strategy's `hasInvalidLabelValueInLabelSelector`: a stored selector with invalid values may keep them
 * (validation ratcheting).
 */
function hasInvalidLabelValueInLabelSelector(pdb: PodDisruptionBudget): boolean {
  return pdb.spec?.selector != null && validateLabelSelector(pdb.spec.selector, Path.root('')).length > 0;
}

/** `podDisruptionBudgetStrategy.Validate`, then `BeforeCreate`'s generic metadata checks if it passed. */
export function validatePodDisruptionBudget(pdb: PodDisruptionBudget): FieldError[] {
  const errs = validatePodDisruptionBudgetObject(pdb, { allowInvalidLabelValueInSelector: false });
  if (errs.length > 0) return errs;
  return validateObjectMeta(pdb.metadata, genericMetaOpts);
}

/** `BeforeUpdate`'s common field checks (generic metadata, then its update rules). */
function validateCommonFields(pdb: PodDisruptionBudget, old: PodDisruptionBudget): FieldError[] {
  return [...validateObjectMeta(pdb.metadata, genericMetaOpts), ...validateObjectMetaUpdate(pdb.metadata, old.metadata, undefined, { kubeFinalizers: false })];
}

/** `podDisruptionBudgetStrategy.ValidateUpdate` after the common checks: the spec is mutable since 1.15. */
export function validatePodDisruptionBudgetUpdate(pdb: PodDisruptionBudget, old: PodDisruptionBudget): FieldError[] {
  const opts = { allowInvalidLabelValueInSelector: hasInvalidLabelValueInLabelSelector(old) };
  return [...validateCommonFields(pdb, old), ...validatePodDisruptionBudgetObject(pdb, opts)];
}

/** `ValidatePodDisruptionBudgetStatusUpdate` (policy/v1: counts are non-negative, conditions well-formed). */
export function validatePodDisruptionBudgetStatus(status: PodDisruptionBudgetStatus | undefined, path: Path): FieldError[] {
  const errs = validateConditions(status?.conditions, path.child('conditions'));
  for (const f of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'] as const) {
    errs.push(...validateNonnegativeField(status?.[f] ?? 0, path.child(f)));
  }
  return errs;
}

/** `podDisruptionBudgetStatusStrategy.ValidateUpdate` after the common checks. */
export function validatePodDisruptionBudgetStatusUpdate(pdb: PodDisruptionBudget, old: PodDisruptionBudget): FieldError[] {
  return [...validateCommonFields(pdb, old), ...validatePodDisruptionBudgetStatus(pdb.status, Path.root('status'))];
}
