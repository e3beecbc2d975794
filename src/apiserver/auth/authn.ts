/**
 * Authentication: who is asking. Client certificates verified against the cluster CA (CN = user,
 * O = groups) and bearer tokens (a chain of token authenticators: static tokens, bootstrap tokens,
 * service account tokens). Requests with neither are `system:anonymous`. Impersonation headers
 * (`Impersonate-User`, `Impersonate-Group`, `Impersonate-Uid`, `Impersonate-Extra-*`) switch the
 * identity after the `impersonate` verb is authorized for the real user (impersonation.go).
 */
import type { TLSSocket } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import type { UserInfo } from '../registry/policy.js';
import type { AuthorizationAttributes, Authorizer } from './authz.js';
import { forbiddenMessage } from './authz.js';
import { ApiError } from '../../api/errors.js';

export const anonymousUser: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

/** Answers a bearer token: the user, undefined when it does not know the token. */
export interface TokenAuthenticator {
  authenticateToken(token: string): Promise<UserInfo | undefined>;
}

export class StaticTokenAuthenticator implements TokenAuthenticator {
  constructor(private readonly tokens: ReadonlyMap<string, UserInfo>) {}
  async authenticateToken(token: string): Promise<UserInfo | undefined> {
    return this.tokens.get(token);
  }
}

export type AuthnResult = { kind: 'user'; user: UserInfo } | { kind: 'anonymous' } | { kind: 'failed' };

function withAuthenticated(u: UserInfo): UserInfo {
  return u.groups.includes('system:authenticated') || u.username === 'system:anonymous'
    ? u
    : { ...u, groups: [...u.groups, 'system:authenticated'] };
}

export interface AuthenticatorOptions {
  /**
   * kube-apiserver's `--anonymous-auth` (true in kubeadm clusters): requests without credentials proceed as
   * `system:anonymous` in `system:unauthenticated` and are authorized like any other (403 when RBAC does
   * not allow them). Off: the caller's `anonymous` result decides (kubemix up answers 401).
   */
  anonymousAuth?: boolean;
  /** Authorizes impersonation; without it impersonation headers are refused. */
  impersonationAuthorizer?: Authorizer;
}

const impersonateUserHeader = 'impersonate-user';
const impersonateGroupHeader = 'impersonate-group';
const impersonateUidHeader = 'impersonate-uid';
const impersonateExtraPrefix = 'impersonate-extra-';

export class Authenticator {
  private anonymousAuth: boolean;
  private impersonationAuthorizer: Authorizer | undefined;

  constructor(private readonly tokenAuthenticators: TokenAuthenticator[], opts: AuthenticatorOptions = {}) {
    this.anonymousAuth = opts.anonymousAuth ?? false;
    this.impersonationAuthorizer = opts.impersonationAuthorizer;
  }

  addTokenAuthenticator(a: TokenAuthenticator): void {
    this.tokenAuthenticators.push(a);
  }

  /** Turns `--anonymous-auth` on or off (set before serving). */
  setAnonymousAuth(on: boolean): void {
    this.anonymousAuth = on;
  }

  /** Enables impersonation, authorized by this authorizer (set before serving). */
  setImpersonationAuthorizer(a: Authorizer): void {
    this.impersonationAuthorizer = a;
  }

  /** The user a bearer token authenticates as (with `system:authenticated`), undefined when none knows it. */
  async authenticateToken(token: string): Promise<UserInfo | undefined> {
    for (const a of this.tokenAuthenticators) {
      const u = await a.authenticateToken(token);
      if (u !== undefined) return withAuthenticated(u);
    }
    return undefined;
  }

  async authenticate(req: IncomingMessage): Promise<AuthnResult> {
    const r = await this.authenticateCredentials(req);
    if (r.kind === 'failed') return r;
    if (r.kind === 'anonymous' && !this.anonymousAuth) {
      if (hasImpersonation(req)) return { kind: 'failed' };
      return r;
    }
    const user = r.kind === 'user' ? r.user : anonymousUser;
    if (!hasImpersonation(req)) return r.kind === 'user' ? r : { kind: 'user', user };
    return { kind: 'user', user: await this.impersonate(req, user) };
  }

  /**
   * kube-apiserver's union authenticator: the client certificate first, then the bearer token; the first
   * that authenticates wins, so a valid certificate is not undone by a bad token beside it.
   */
  private async authenticateCredentials(req: IncomingMessage): Promise<AuthnResult> {
    const socket = req.socket as Partial<TLSSocket>;
    if (socket.authorized === true && typeof socket.getPeerCertificate === 'function') {
      const cert = socket.getPeerCertificate();
      const cn = cert.subject?.CN;
      if (typeof cn === 'string' && cn !== '') {
        const o = cert.subject.O;
        const groups = o === undefined ? [] : Array.isArray(o) ? o : [o];
        return { kind: 'user', user: withAuthenticated({ username: cn, groups }) };
      }
    }
    const auth = req.headers.authorization;
    if (auth !== undefined && /^bearer\s+/i.test(auth)) {
      const user = await this.authenticateToken(auth.replace(/^bearer\s+/i, '').trim());
      return user !== undefined ? { kind: 'user', user } : { kind: 'failed' };
    }
    return { kind: 'anonymous' };
  }

  /**
   * The impersonated identity (WithImpersonation): each requested user, group, uid and extra value must be
   * allowed with verb `impersonate` on users/groups/uids (core) or userextras/<key>
   * (authentication.k8s.io); service accounts on serviceaccounts in their namespace. A refusal is a 403
   * worded as kube-apiserver's.
   */
  private async impersonate(req: IncomingMessage, requester: UserInfo): Promise<UserInfo> {
    const userName = headerValues(req, impersonateUserHeader)[0];
    const groups = headerValues(req, impersonateGroupHeader);
    const uid = headerValues(req, impersonateUidHeader)[0];
    const extra: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (!k.startsWith(impersonateExtraPrefix) || v === undefined) continue;
      const key = decodeURIComponent(k.slice(impersonateExtraPrefix.length));
      extra[key] = (Array.isArray(v) ? v : [v]).flatMap((x) => x.split(',').map((s) => s.trim()));
    }
    if (userName === undefined || userName === '') {
      throw new ApiError(500, 'InternalError', 'Internal error occurred: requested [{Impersonate-Group ' + groups.join(' ') + '  }] without impersonating a user', {});
    }
    const check = async (attrs: Omit<AuthorizationAttributes, 'user' | 'verb' | 'resourceRequest' | 'version' | 'path' | 'subresource'> & { subresource?: string }): Promise<void> => {
      const a: AuthorizationAttributes = { user: requester, verb: 'impersonate', resourceRequest: true, version: '', path: '', subresource: '', ...attrs };
      const d = this.impersonationAuthorizer === undefined ? { decision: 'noOpinion' as const, reason: '' } : await this.impersonationAuthorizer.authorize(a);
      if (d.decision === 'allow') return;
      const resource = a.subresource !== '' ? `${a.resource}/${a.subresource}` : a.resource;
      const groupResource = a.group === '' ? a.resource : `${a.resource}.${a.group}`;
      const msg = `${groupResource} "${a.name}" is forbidden: ${forbiddenMessage(a)}${d.reason !== '' ? `: ${d.reason}` : ''}`;
      throw new ApiError(403, 'Forbidden', msg, { name: a.name, group: a.group, kind: resource });
    };
    const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(userName);
    let username = userName;
    const outGroups: string[] = [];
    if (sa !== null) {
      await check({ group: '', resource: 'serviceaccounts', namespace: sa[1] ?? '', name: sa[2] ?? '' });
      outGroups.push('system:serviceaccounts', `system:serviceaccounts:${sa[1] ?? ''}`);
    } else {
      await check({ group: '', resource: 'users', namespace: '', name: userName });
    }
    for (const g of groups) {
      await check({ group: '', resource: 'groups', namespace: '', name: g });
      if (!outGroups.includes(g)) outGroups.push(g);
    }
    if (uid !== undefined) await check({ group: 'authentication.k8s.io', resource: 'uids', namespace: '', name: uid });
    for (const [k, vs] of Object.entries(extra)) {
      for (const v of vs) await check({ group: 'authentication.k8s.io', resource: 'userextras', subresource: k, namespace: '', name: v });
    }
    if (username === 'system:anonymous') {
      if (!outGroups.includes('system:unauthenticated')) outGroups.push('system:unauthenticated');
    } else if (!outGroups.includes('system:authenticated')) {
      outGroups.push('system:authenticated');
    }
    username = userName;
    return {
      username,
      groups: outGroups,
      ...(uid !== undefined ? { uid } : {}),
      ...(Object.keys(extra).length > 0 ? { extra } : {}),
    };
  }
}

function hasImpersonation(req: IncomingMessage): boolean {
  return Object.keys(req.headers).some((k) => k.startsWith('impersonate-'));
}

/** A header's values, whether repeated or comma-joined by Node. */
function headerValues(req: IncomingMessage, name: string): string[] {
  const raw = req.headersDistinct[name];
  if (raw === undefined) return [];
  return raw.flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s !== '');
}
