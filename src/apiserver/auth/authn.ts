/**
 * Authentication: who is asking. Client certificates verified against the cluster CA (CN = user,
 * O = groups) and bearer tokens (a chain of token authenticators: static tokens, bootstrap tokens,
 * service account tokens). Requests with neither are `system:anonymous`.
 */
import type { TLSSocket } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import type { UserInfo } from '../registry/policy.js';

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

export class Authenticator {
  constructor(private readonly tokenAuthenticators: TokenAuthenticator[]) {}

  addTokenAuthenticator(a: TokenAuthenticator): void {
    this.tokenAuthenticators.push(a);
  }

  async authenticate(req: IncomingMessage): Promise<AuthnResult> {
    const auth = req.headers.authorization;
    if (auth !== undefined && /^bearer\s+/i.test(auth)) {
      const token = auth.replace(/^bearer\s+/i, '').trim();
      for (const a of this.tokenAuthenticators) {
        const u = await a.authenticateToken(token);
        if (u !== undefined) return { kind: 'user', user: withAuthenticated(u) };
      }
      return { kind: 'failed' };
    }
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
    return { kind: 'anonymous' };
  }
}
