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

/** `system:masters` may do anything (kube-apiserver's privileged group authorizer). */
export const mastersAuthorizer: Authorizer = {
  async authorize(a) {
    return a.user.groups.includes('system:masters') ? { decision: 'allow', reason: '' } : { decision: 'noOpinion', reason: '' };
  },
};

/** Runs authorizers in order; the first allow or deny decides. */
export class AuthorizerChain implements Authorizer {
  constructor(private readonly chain: Authorizer[]) {}
  add(a: Authorizer): void {
    this.chain.push(a);
  }
  async authorize(a: AuthorizationAttributes): Promise<{ decision: Decision; reason: string }> {
    for (const z of this.chain) {
      const d = await z.authorize(a);
      if (d.decision !== 'noOpinion') return d;
    }
    return { decision: 'noOpinion', reason: '' };
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
