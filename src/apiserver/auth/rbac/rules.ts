/**
 * RBAC rule matching (plugin/pkg/auth/authorizer/rbac/rbac.go `RuleAllows`, pkg/apis/rbac/v1/evaluation_helpers.go):
 * verbs, API groups, resources (with `*`, `*\/sub` and `res/*`), resource names and non-resource URLs
 * (`/prefix/*`).
 */
import type { PolicyRule, Subject } from 'kubernetes-types/rbac/v1.js';
import type { UserInfo } from '../../registry/policy.js';
import type { AuthorizationAttributes } from '../authz.js';

export const verbAll = '*';

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === verbAll || v === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === '*' || g === group);
}

export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === '*') return true;
    if (r === combined) return true;
    if (subresource === '') continue;
    // `*/status` matches the subresource of every resource; `pods/*` every subresource of pods.
    if (r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  if (names.length === 0) return true;
  return names.includes(name);
}

export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

/** Whether one rule allows the request (`RuleAllows`). */
export function ruleAllows(a: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (a.resourceRequest) {
    const combined = a.subresource !== '' ? `${a.resource}/${a.subresource}` : a.resource;
    return verbMatches(rule, a.verb) && apiGroupMatches(rule, a.group) && resourceMatches(rule, combined, a.subresource) && resourceNameMatches(rule, a.name);
  }
  return verbMatches(rule, a.verb) && nonResourceURLMatches(rule, a.path);
}

export function rulesAllow(a: AuthorizationAttributes, rules: readonly PolicyRule[]): boolean {
  return rules.some((r) => ruleAllows(a, r));
}

/** Whether a binding subject names the user (`appliesToUser`; service accounts as `system:serviceaccount:<ns>:<name>`). */
export function subjectAppliesTo(user: UserInfo, s: Subject, bindingNamespace: string): boolean {
  switch (s.kind) {
    case 'User':
      return user.username === s.name;
    case 'Group':
      return user.groups.includes(s.name);
    case 'ServiceAccount': {
      const ns = s.namespace !== undefined && s.namespace !== '' ? s.namespace : bindingNamespace;
      if (ns === '') return false;
      return user.username === `system:serviceaccount:${ns}:${s.name}`;
    }
    default:
      return false;
  }
}
