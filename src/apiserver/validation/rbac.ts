/**
 * rbac.authorization.k8s.io/v1 Roles, ClusterRoles and their bindings as `pkg/apis/rbac/validation` (v1.32)
 * checks them, with the ClusterRole strategy's ratcheting of stored aggregation selectors. Names are path
 * segments (`ValidateRBACName`), for `generateName` too. Whether the requester may grant what a role holds
 * (escalation) is authorization's business, not validation's.
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject } from 'kubernetes-types/rbac/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { type FieldError, fieldErrors, GoValue, goQuote, Path } from '../../api/field-errors.js';
import { nameIsDNSSubdomain, validatePathSegmentName } from './_names.js';
import { goStringSlice } from './_go.js';
import { type LabelSelectorValidationOptions, validateLabelSelector, validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';

/** The API group of roles and of users and groups in subjects (`rbac.GroupName`). */
export const rbacGroupName = 'rbac.authorization.k8s.io';

/** `ValidateRBACName`: a path segment name, whether or not it is a `generateName` prefix. */
export function validateRBACName(name: string, _prefix: boolean): string[] {
  return validatePathSegmentName(name, false);
}

/** `ValidatePolicyRule`: verbs, and either non-resource URLs (cluster rules only) or API groups and resources. */
export function validatePolicyRule(rule: PolicyRule, isNamespaced: boolean, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  if ((rule.verbs ?? []).length === 0) errs.push(fieldErrors.required(path.child('verbs'), 'verbs must contain at least one value'));
  const urls = rule.nonResourceURLs ?? [];
  if (urls.length > 0) {
    const shown = goStringSlice(urls);
    if (isNamespaced) errs.push(fieldErrors.invalid(path.child('nonResourceURLs'), shown, 'namespaced rules cannot apply to non-resource URLs'));
    if ((rule.apiGroups ?? []).length > 0 || (rule.resources ?? []).length > 0 || (rule.resourceNames ?? []).length > 0) {
      errs.push(fieldErrors.invalid(path.child('nonResourceURLs'), shown, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if ((rule.apiGroups ?? []).length === 0) errs.push(fieldErrors.required(path.child('apiGroups'), 'resource rules must supply at least one api group'));
  if ((rule.resources ?? []).length === 0) errs.push(fieldErrors.required(path.child('resources'), 'resource rules must supply at least one resource'));
  return errs;
}

function validateRules(rules: readonly PolicyRule[] | undefined, isNamespaced: boolean): FieldError[] {
  return (rules ?? []).flatMap((r, i) => validatePolicyRule(r, isNamespaced, Path.root('rules').index(i)));
}

const metaOpts = (namespaced: boolean): { namespaced: boolean; nameFn: typeof validateRBACName } => ({ namespaced, nameFn: validateRBACName });

/** `ValidateRole`. */
export function validateRole(role: Role): FieldError[] {
  return [...validateObjectMeta(role.metadata, metaOpts(true)), ...validateRules(role.rules, true)];
}

/** `ValidateRoleUpdate`. */
export function validateRoleUpdate(role: Role, old: Role): FieldError[] {
  return [...validateRole(role), ...validateObjectMetaUpdate(role.metadata, old.metadata)];
}

/** `ValidateClusterRole`: rules, and an aggregation rule with at least one valid selector. */
function validateClusterRoleWith(role: ClusterRole, opts: LabelSelectorValidationOptions): FieldError[] {
  const errs = [...validateObjectMeta(role.metadata, metaOpts(false)), ...validateRules(role.rules, false)];
  const agg = role.aggregationRule;
  if (agg != null) {
    const path = Path.root('aggregationRule').child('clusterRoleSelectors');
    const selectors = agg.clusterRoleSelectors ?? [];
    if (selectors.length === 0) errs.push(fieldErrors.required(path, 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
    selectors.forEach((sel, i) => {
      errs.push(...validateLabelSelector(sel, path.index(i), opts));
      // metav1.LabelSelectorAsSelector fails exactly where the strict check does; its nil result prints as "null".
      if (validateLabelSelector(sel, path.index(i)).length > 0) errs.push(fieldErrors.invalid(path.index(i), 'null', 'invalid label selector.'));
    });
  }
  return errs;
}

/**
 * The ClusterRole strategy's `hasInvalidLabelValueInLabelSelector`: a stored aggregation selector with
 * invalid values may keep them.
 */
function clusterRoleValidationOptions(old: ClusterRole | undefined): LabelSelectorValidationOptions {
  const selectors = old?.aggregationRule?.clusterRoleSelectors ?? [];
  return { allowInvalidLabelValueInSelector: selectors.some((s) => validateLabelSelector(s, Path.root('')).length > 0) };
}

/** `ValidateClusterRole` (create). */
export function validateClusterRole(role: ClusterRole): FieldError[] {
  return validateClusterRoleWith(role, clusterRoleValidationOptions(undefined));
}

/** `ValidateClusterRoleUpdate`. */
export function validateClusterRoleUpdate(role: ClusterRole, old: ClusterRole): FieldError[] {
  return [...validateClusterRoleWith(role, clusterRoleValidationOptions(old)), ...validateObjectMetaUpdate(role.metadata, old.metadata)];
}

/** `ValidateRoleBindingSubject`: a name, a known kind, the API group that kind takes. */
export function validateRoleBindingSubject(subject: Subject, isNamespaced: boolean, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const name = subject.name ?? '';
  const apiGroup = subject.apiGroup ?? '';
  if (name === '') errs.push(fieldErrors.required(path.child('name'), ''));
  switch (subject.kind) {
    case 'ServiceAccount':
      if (name !== '') for (const m of nameIsDNSSubdomain(name, false)) errs.push(fieldErrors.invalid(path.child('name'), name, m));
      if (apiGroup !== '') errs.push(fieldErrors.notSupported(path.child('apiGroup'), apiGroup, ['']));
      if (!isNamespaced && (subject.namespace ?? '') === '') errs.push(fieldErrors.required(path.child('namespace'), ''));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== rbacGroupName) errs.push(fieldErrors.notSupported(path.child('apiGroup'), apiGroup, [rbacGroupName]));
      break;
    default:
      errs.push(fieldErrors.notSupported(path.child('kind'), subject.kind ?? '', ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

/** The checks `ValidateRoleBinding` and `ValidateClusterRoleBinding` share, given the role kinds allowed. */
function validateBinding(meta: ObjectMeta | undefined, roleRef: RoleRef | undefined, subjects: readonly Subject[] | undefined, isNamespaced: boolean, roleKinds: string[]): FieldError[] {
  const errs = validateObjectMeta(meta, metaOpts(isNamespaced));
  const ref = Path.root('roleRef');
  const apiGroup = roleRef?.apiGroup ?? '';
  if (apiGroup !== rbacGroupName) errs.push(fieldErrors.notSupported(ref.child('apiGroup'), apiGroup, [rbacGroupName]));
  const kind = roleRef?.kind ?? '';
  if (!roleKinds.includes(kind)) errs.push(fieldErrors.notSupported(ref.child('kind'), kind, roleKinds));
  const name = roleRef?.name ?? '';
  if (name === '') errs.push(fieldErrors.required(ref.child('name'), ''));
  else for (const m of validateRBACName(name, false)) errs.push(fieldErrors.invalid(ref.child('name'), name, m));
  (subjects ?? []).forEach((s, i) => errs.push(...validateRoleBindingSubject(s, isNamespaced, Path.root('subjects').index(i))));
  return errs;
}

/** `rbac.RoleRef` as `%#v`. */
function goRoleRef(ref: RoleRef | undefined): GoValue {
  return new GoValue(`rbac.RoleRef{APIGroup:${goQuote(ref?.apiGroup ?? '')}, Kind:${goQuote(ref?.kind ?? '')}, Name:${goQuote(ref?.name ?? '')}}`);
}

/** The roleRef of a binding may not change (bindings are deleted and recreated instead). */
function validateRoleRefUnchanged(ref: RoleRef | undefined, old: RoleRef | undefined): FieldError[] {
  const same = (ref?.apiGroup ?? '') === (old?.apiGroup ?? '') && (ref?.kind ?? '') === (old?.kind ?? '') && (ref?.name ?? '') === (old?.name ?? '');
  return same ? [] : [fieldErrors.invalid(Path.root('roleRef'), goRoleRef(ref), 'cannot change roleRef')];
}

/** `ValidateRoleBinding`: a Role or ClusterRole; subjects' namespaces default to the binding's. */
export function validateRoleBinding(rb: RoleBinding): FieldError[] {
  return validateBinding(rb.metadata, rb.roleRef, rb.subjects, true, ['Role', 'ClusterRole']);
}

/** `ValidateRoleBindingUpdate`. */
export function validateRoleBindingUpdate(rb: RoleBinding, old: RoleBinding): FieldError[] {
  return [...validateRoleBinding(rb), ...validateObjectMetaUpdate(rb.metadata, old.metadata), ...validateRoleRefUnchanged(rb.roleRef, old.roleRef)];
}

/** `ValidateClusterRoleBinding`: a ClusterRole; service account subjects name their namespace. */
export function validateClusterRoleBinding(crb: ClusterRoleBinding): FieldError[] {
  return validateBinding(crb.metadata, crb.roleRef, crb.subjects, false, ['ClusterRole']);
}

/** `ValidateClusterRoleBindingUpdate`. */
export function validateClusterRoleBindingUpdate(crb: ClusterRoleBinding, old: ClusterRoleBinding): FieldError[] {
  return [...validateClusterRoleBinding(crb), ...validateObjectMetaUpdate(crb.metadata, old.metadata), ...validateRoleRefUnchanged(crb.roleRef, old.roleRef)];
}
