/**
 * The RBAC authorizer (plugin/pkg/auth/authorizer/rbac/rbac.go): a request is allowed when a rule of a
 * role bound to the user allows it. ClusterRoleBindings apply everywhere; RoleBindings in the request's
 * namespace. A binding to a missing role is an evaluation error that shows up in the reason
 * (`RBAC: clusterrole.rbac.authorization.k8s.io "x" not found`), as upstream prints it after the 403.
 * RBAC never denies: without a matching rule it has no opinion.
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { UserInfo } from '../../registry/policy.js';
import type { AuthorizationAttributes, Authorizer, Decision, RuleResolver, RulesForResult } from '../authz.js';
import { ruleAllows, subjectAppliesTo } from './rules.js';
import { labelSelectorAsSelector } from '../../../api/labels.js';

/**
 * Where the authorizer reads RBAC objects (the API server's watch caches; a fake in tests). The lists may
 * be shared between requests: readers do not change them.
 */
export interface RbacSource {
  getRole(namespace: string, name: string): Promise<Role | undefined>;
  getClusterRole(name: string): Promise<ClusterRole | undefined>;
  listClusterRoles(): Promise<readonly ClusterRole[]>;
  listRoleBindings(namespace: string): Promise<readonly RoleBinding[]>;
  listClusterRoleBindings(): Promise<readonly ClusterRoleBinding[]>;
  /**
   * A value that changes whenever any Role, ClusterRole, RoleBinding or ClusterRoleBinding does: while it
   * stays the same, the rules that apply to a user in a namespace do too. A source without it is read
   * afresh for every request.
   */
  policyVersion?(): Promise<string>;
}

/**
 * The rules a ClusterRole grants. A role with an aggregationRule grants the union of the roles its
 * selectors match (what the clusterrole-aggregation controller writes into `rules`), so a newly applied
 * `aggregate-to-view` role takes effect at once.
 */
export async function effectiveClusterRoleRules(source: RbacSource, role: ClusterRole, visiting: ReadonlySet<string> = new Set()): Promise<PolicyRule[]> {
  const selectors = role.aggregationRule?.clusterRoleSelectors ?? [];
  if (selectors.length === 0) return role.rules ?? [];
  const name = role.metadata?.name ?? '';
  const inChain = new Set([...visiting, name]);
  const compiled = selectors.map((s) => labelSelectorAsSelector(s));
  const out: PolicyRule[] = [];
  const seen = new Set<string>();
  const add = (rules: readonly PolicyRule[]): void => {
    for (const r of rules) {
      const k = ruleKey(r);
      if (!seen.has(k)) {
        seen.add(k);
        out.push(r);
      }
    }
  };
  add(role.rules ?? []);
  for (const other of await source.listClusterRoles()) {
    const otherName = other.metadata?.name ?? '';
    if (inChain.has(otherName)) continue;
    const labels = other.metadata?.labels ?? {};
    if (!compiled.some((sel) => sel.matches(labels))) continue;
    add(await effectiveClusterRoleRules(source, other, inChain));
  }
  return out;
}

/** A rule's identity regardless of key order. */
export function ruleKey(r: PolicyRule): string {
  return JSON.stringify([r.verbs, r.apiGroups ?? [], r.resources ?? [], r.resourceNames ?? [], r.nonResourceURLs ?? []]);
}

type Visitor = (rule: PolicyRule | undefined, err: string | undefined) => boolean;

/** The rules that apply to a user in a namespace, in visiting order, with a missing role's error text in its place. */
type AppliedRules = ReadonlyArray<PolicyRule | string>;

/** Users and namespaces whose applied rules are kept at once (cleared when full). */
const maxKeptRuleSets = 4096;

export class RbacAuthorizer implements Authorizer, RuleResolver {
  /**
   * Applied rules per user and namespace, for the `policyVersion` they were read at. Every request asks,
   * and walking every binding's subjects and reading its role again cost more than the request's own work
   * for small writes; the answer only changes with the RBAC objects.
   */
  private kept = new Map<string, AppliedRules>();
  private keptVersion: string | undefined = undefined;

  constructor(private readonly source: RbacSource) {}

  /** The rules `visitRules` would visit, from `kept` while the policy is unchanged. */
  private async appliedRules(user: UserInfo, namespace: string): Promise<AppliedRules> {
    const version = await this.source.policyVersion?.();
    if (version === undefined) return this.readAppliedRules(user, namespace);
    if (version !== this.keptVersion) {
      this.kept = new Map();
      this.keptVersion = version;
    }
    const key = `${user.username}\u0000${user.groups.join('\u0001')}\u0000${namespace}`;
    let rules = this.kept.get(key);
    if (rules === undefined) {
      rules = await this.readAppliedRules(user, namespace);
      // Another request may have seen a newer policy meanwhile: keep only what was read at the kept version.
      if (this.keptVersion === version) {
        if (this.kept.size >= maxKeptRuleSets) this.kept.clear();
        this.kept.set(key, rules);
      }
    }
    return rules;
  }

  private async readAppliedRules(user: UserInfo, namespace: string): Promise<AppliedRules> {
    const out: (PolicyRule | string)[] = [];
    await this.visitRules(user, namespace, (rule, err) => {
      out.push(err ?? (rule as PolicyRule));
      return true;
    });
    return out;
  }

  /** Visits every rule that applies to the user in the namespace; stops when the visitor returns false. */
  private async visitRules(user: UserInfo, namespace: string, visit: Visitor): Promise<void> {
    for (const b of await this.source.listClusterRoleBindings()) {
      if (!(b.subjects ?? []).some((s) => subjectAppliesTo(user, s, ''))) continue;
      const rules = await this.roleRules(b.roleRef.kind, b.roleRef.name, '');
      if (typeof rules === 'string') {
        if (!visit(undefined, rules)) return;
        continue;
      }
      for (const r of rules) if (!visit(r, undefined)) return;
    }
    if (namespace === '') return;
    for (const b of await this.source.listRoleBindings(namespace)) {
      if (!(b.subjects ?? []).some((s) => subjectAppliesTo(user, s, namespace))) continue;
      const rules = await this.roleRules(b.roleRef.kind, b.roleRef.name, namespace);
      if (typeof rules === 'string') {
        if (!visit(undefined, rules)) return;
        continue;
      }
      for (const r of rules) if (!visit(r, undefined)) return;
    }
  }

  /** The role's rules, or the error text when it is missing (`GetRoleReferenceRules`). */
  private async roleRules(kind: string, name: string, namespace: string): Promise<PolicyRule[] | string> {
    if (kind === 'ClusterRole') {
      const role = await this.source.getClusterRole(name);
      if (role === undefined) return `clusterrole.rbac.authorization.k8s.io "${name}" not found`;
      return effectiveClusterRoleRules(this.source, role);
    }
    if (kind === 'Role') {
      const role = await this.source.getRole(namespace, name);
      if (role === undefined) return `role.rbac.authorization.k8s.io "${name}" not found`;
      return role.rules ?? [];
    }
    return `unsupported role reference kind: "${kind}"`;
  }

  async authorize(a: AuthorizationAttributes): Promise<{ decision: Decision; reason: string }> {
    const errors: string[] = [];
    for (const r of await this.appliedRules(a.user, a.namespace)) {
      if (typeof r === 'string') errors.push(r);
      else if (ruleAllows(a, r)) return { decision: 'allow', reason: '' };
    }
    return { decision: 'noOpinion', reason: errors.length > 0 ? `RBAC: ${aggregate(errors)}` : '' };
  }

  async rulesFor(user: UserInfo, namespace: string): Promise<RulesForResult> {
    const resourceRules: RulesForResult['resourceRules'] = [];
    const nonResourceRules: RulesForResult['nonResourceRules'] = [];
    const errors: string[] = [];
    await this.visitRules(user, namespace, (rule, err) => {
      if (err !== undefined) errors.push(err);
      if (rule === undefined) return true;
      if ((rule.nonResourceURLs ?? []).length > 0) {
        nonResourceRules.push({ verbs: [...rule.verbs], nonResourceURLs: [...(rule.nonResourceURLs ?? [])] });
      } else {
        resourceRules.push({
          verbs: [...rule.verbs],
          apiGroups: [...(rule.apiGroups ?? [])],
          resources: [...(rule.resources ?? [])],
          ...(rule.resourceNames !== undefined && rule.resourceNames.length > 0 ? { resourceNames: [...rule.resourceNames] } : {}),
        });
      }
      return true;
    });
    return { resourceRules, nonResourceRules, incomplete: errors.length > 0, errors };
  }
}

/** utilerrors.NewAggregate's text: one error as is, several as `[a, b]`. */
export function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? (errors[0] ?? '') : `[${errors.join(', ')}]`;
}
