/**
 * Authorization: may this user do this? A chain of authorizers (Node, RBAC) where the first decision
 * wins, behind the `system:masters` short-cut that kube-apiserver always has. Forbidden messages are
 * kube-apiserver's, word for word.
 */
import type { UserInfo } from '../registry/policy.js';

export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  /** Resource requests */
  resourceRequest: boolean;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /** Non-resource requests (`/healthz`, `/api`) */
  path: string;
}

export type Decision = 'allow' | 'deny' | 'noOpinion';

export interface Authorizer {
  authorize(a: AuthorizationAttributes): Promise<{ decision: Decision; reason: string }>;
}

/** SelfSubjectRulesReview's rule shapes (authorization.k8s.io/v1 ResourceRule, NonResourceRule). */
export interface RulesForResult {
  resourceRules: { verbs: string[]; apiGroups: string[]; resources: string[]; resourceNames?: string[] }[];
  nonResourceRules: { verbs: string[]; nonResourceURLs: string[] }[];
  /** True when the list may miss rules (an evaluation error, or an authorizer that cannot enumerate). */
  incomplete: boolean;
  errors: string[];
}

/** An authorizer that can list what a user may do (upstream's `authorizer.RuleResolver`). */
export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): Promise<RulesForResult>;
}

export function isRuleResolver(a: unknown): a is RuleResolver {
  return typeof (a as Partial<RuleResolver> | null)?.rulesFor === 'function';
}

/** `system:masters` may do anything (kube-apiserver's privileged group authorizer). */
export const mastersAuthorizer: Authorizer = {
  async authorize(a) {
    return a.user.groups.includes('system:masters') ? { decision: 'allow', reason: '' } : { decision: 'noOpinion', reason: '' };
  },
};

/**
 * Runs authorizers in order; the first allow or deny decides (union.go). Without a decision the
 * reasons of every authorizer are joined with newlines, as the union authorizer does.
 */
export class AuthorizerChain implements Authorizer, RuleResolver {
  constructor(private readonly chain: Authorizer[]) {}
  add(a: Authorizer): void {
    this.chain.push(a);
  }
  async authorize(a: AuthorizationAttributes): Promise<{ decision: Decision; reason: string }> {
    const reasons: string[] = [];
    for (const z of this.chain) {
      const d = await z.authorize(a);
      if (d.decision !== 'noOpinion') return d;
      if (d.reason !== '') reasons.push(d.reason);
    }
    return { decision: 'noOpinion', reason: reasons.join('\n') };
  }

  /** Every resolver's rules together (union.go's `unionAuthzRulesHandler`); masters get everything. */
  async rulesFor(user: UserInfo, namespace: string): Promise<RulesForResult> {
    const out: RulesForResult = { resourceRules: [], nonResourceRules: [], incomplete: false, errors: [] };
    if (user.groups.includes('system:masters')) {
      out.resourceRules.push({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] });
      out.nonResourceRules.push({ verbs: ['*'], nonResourceURLs: ['*'] });
    }
    for (const z of this.chain) {
      if (!isRuleResolver(z)) continue;
      const r = await z.rulesFor(user, namespace);
      out.resourceRules.push(...r.resourceRules);
      out.nonResourceRules.push(...r.nonResourceRules);
      out.incomplete ||= r.incomplete;
      out.errors.push(...r.errors);
    }
    return out;
  }
}

/** The 403 message (`forbiddenMessage` in kube-apiserver's authorization filter). */
export function forbiddenMessage(a: AuthorizationAttributes): string {
  const user = `User "${a.user.username}"`;
  if (!a.resourceRequest) return `${user} cannot ${a.verb} path "${a.path}"`;
  const resource = a.subresource !== '' ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace !== '' ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  return `${user} cannot ${a.verb} resource "${resource}" in API group "${a.group}" ${scope}`;
}
