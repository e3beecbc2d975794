/**
 * RBAC's escalation check (pkg/registry/rbac/validation/rule.go `ConfirmNoEscalation`, and the role,
 * clusterrole and binding storages): a user may only write a Role/ClusterRole whose rules it holds itself
 * (or with the `escalate` verb on it), and only bind a role whose rules it holds (or with `bind` on it).
 * Refusals are 403s worded as kube-apiserver's.
 */
import type { ClusterRole, PolicyRule, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { UserInfo } from '../../registry/policy.js';
import type { AdmissionRequest } from '../../registry/policy.js';
import { apiErrors } from '../../../api/errors.js';
import type { Authorizer, RuleResolver } from '../authz.js';
import { effectiveClusterRoleRules, type RbacSource } from './rbac.js';

const rbacGroup = 'rbac.authorization.k8s.io';

/** One (group, resource, name, verb) or (url, verb) per rule (`BreakdownRule`). */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        if ((rule.resourceNames ?? []).length > 0) {
          for (const name of rule.resourceNames ?? []) out.push({ apiGroups: [group], resources: [resource], resourceNames: [name], verbs: [verb] });
        } else {
          out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

/** Whether one owner rule covers one atomic rule (`ruleCovers`). */
function covers(owner: PolicyRule, r: PolicyRule): boolean {
  const has = (list: readonly string[] | undefined, v: string): boolean => (list ?? []).some((x) => x === '*' || x === v);
  if (!r.verbs.every((v) => has(owner.verbs, v))) return false;
  if ((r.nonResourceURLs ?? []).length > 0) {
    return (r.nonResourceURLs ?? []).every((u) => (owner.nonResourceURLs ?? []).some((o) => o === '*' || o === u || (o.endsWith('*') && u.startsWith(o.slice(0, -1)))));
  }
  if (!(r.apiGroups ?? []).every((g) => has(owner.apiGroups, g))) return false;
  const resourceCovered = (res: string): boolean =>
    (owner.resources ?? []).some((o) => {
      if (o === '*' || o === res) return true;
      const slash = res.indexOf('/');
      return slash > 0 && o.startsWith('*/') && o.slice(2) === res.slice(slash + 1);
    });
  if (!(r.resources ?? []).every(resourceCovered)) return false;
  const ownerNames = owner.resourceNames ?? [];
  if (ownerNames.length === 0) return true;
  const names = r.resourceNames ?? [];
  return names.length > 0 && names.every((n) => ownerNames.includes(n));
}

/** The requested rules the owner does not hold (`Covers`). */
export function missingRules(owner: readonly PolicyRule[], requested: readonly PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const r of requested) for (const atom of breakdownRule(r)) if (!owner.some((o) => covers(o, atom))) missing.push(atom);
  return missing;
}

/** `CompactRules`: atomic rules of the same single group/resource merge their verbs. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const byKey = new Map<string, PolicyRule>();
  for (const r of rules) {
    const simple = (r.apiGroups ?? []).length === 1 && (r.resources ?? []).length === 1 && (r.resourceNames ?? []).length === 0 && (r.nonResourceURLs ?? []).length === 0;
    if (!simple) {
      out.push(r);
      continue;
    }
    const key = `${r.apiGroups?.[0] ?? ''}\u0000${r.resources?.[0] ?? ''}`;
    const have = byKey.get(key);
    if (have === undefined) {
      const copy = { ...r, verbs: [...r.verbs] };
      byKey.set(key, copy);
      out.push(copy);
    } else {
      for (const v of r.verbs) if (!have.verbs.includes(v)) have.verbs.push(v);
    }
  }
  return out;
}

const goQuoteList = (l: readonly string[]): string => `[${l.map((s) => JSON.stringify(s)).join(' ')}]`;

/** `rbacv1helpers.CompactString`. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if ((r.apiGroups ?? []).length > 0) parts.push(`APIGroups:${goQuoteList(r.apiGroups ?? [])}`);
  if ((r.resources ?? []).length > 0) parts.push(`Resources:${goQuoteList(r.resources ?? [])}`);
  if ((r.nonResourceURLs ?? []).length > 0) parts.push(`NonResourceURLs:${goQuoteList(r.nonResourceURLs ?? [])}`);
  if ((r.resourceNames ?? []).length > 0) parts.push(`ResourceNames:${goQuoteList(r.resourceNames ?? [])}`);
  if (r.verbs.length > 0) parts.push(`Verbs:${goQuoteList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

export interface EscalationCheckOptions {
  authorizer: Authorizer;
  resolver: RuleResolver;
  source: RbacSource;
}

/**
 * Refuses writes of roles and bindings that would grant the requester more than it holds. Called before
 * admission for every write; ignores everything but the four RBAC kinds.
 */
export function escalationCheck(o: EscalationCheckOptions): (req: AdmissionRequest) => Promise<void> {
  const allowedVerb = async (user: UserInfo, verb: string, resource: string, namespace: string, name: string): Promise<boolean> =>
    (await o.authorizer.authorize({ user, verb, resourceRequest: true, group: rbacGroup, version: '', resource, subresource: '', namespace, name, path: '' })).decision === 'allow';

  const confirm = async (req: AdmissionRequest, rules: readonly PolicyRule[], namespace: string): Promise<void> => {
    const owned = await o.resolver.rulesFor(req.userInfo, namespace);
    const ownerRules: PolicyRule[] = [...owned.resourceRules.map((r) => ({ ...r })), ...owned.nonResourceRules.map((r) => ({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs }))];
    const missing = missingRules(ownerRules, rules);
    if (missing.length === 0) return;
    const lines = [...new Set(compactRules(missing).map(compactString))].sort();
    let msg = `user ${JSON.stringify(req.userInfo.username)} (groups=${goQuoteList(req.userInfo.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
    if (owned.errors.length > 0) msg += `; resolution errors: [${owned.errors.join(' ')}]`;
    throw apiErrors.forbidden({ group: rbacGroup, resource: req.def.resource }, req.name, msg);
  };

  return async (req) => {
    if (req.def.group !== rbacGroup || req.subresource !== '' || (req.operation !== 'CREATE' && req.operation !== 'UPDATE')) return;
    if (req.userInfo.groups.includes('system:masters')) return;
    const obj = req.object;
    if (obj === undefined) return;
    const namespace = req.def.resource === 'roles' || req.def.resource === 'rolebindings' ? req.namespace : '';
    if (req.def.resource === 'roles' || req.def.resource === 'clusterroles') {
      if (await allowedVerb(req.userInfo, 'escalate', req.def.resource, namespace, req.name)) return;
      const role = obj as unknown as ClusterRole & Role;
      const rules = req.def.resource === 'clusterroles' ? await effectiveClusterRoleRules(o.source, role) : (role.rules ?? []);
      await confirm(req, rules, namespace);
      return;
    }
    if (req.def.resource === 'rolebindings' || req.def.resource === 'clusterrolebindings') {
      const ref = (obj as unknown as RoleBinding).roleRef;
      const refResource = ref.kind === 'Role' ? 'roles' : 'clusterroles';
      if (await allowedVerb(req.userInfo, 'bind', refResource, ref.kind === 'Role' ? namespace : '', ref.name)) return;
      let rules: PolicyRule[] = [];
      if (ref.kind === 'Role') {
        const r = await o.source.getRole(namespace, ref.name);
        if (r === undefined) throw apiErrors.forbidden({ group: rbacGroup, resource: req.def.resource }, req.name, `role.rbac.authorization.k8s.io "${ref.name}" not found`);
        rules = r.rules ?? [];
      } else {
        const r = await o.source.getClusterRole(ref.name);
        if (r === undefined) throw apiErrors.forbidden({ group: rbacGroup, resource: req.def.resource }, req.name, `clusterrole.rbac.authorization.k8s.io "${ref.name}" not found`);
        rules = await effectiveClusterRoleRules(o.source, r);
      }
      await confirm(req, rules, namespace);
    }
  };
}
