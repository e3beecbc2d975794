/**
 * The bootstrap token authenticator (plugin/pkg/auth/authenticator/token/bootstrap/bootstrap.go): a bearer
 * token `<id>.<secret>` is valid when the Secret `kube-system/bootstrap-token-<id>` of type
 * `bootstrap.kubernetes.io/token` holds the same secret, is not expired or being deleted, and allows
 * `usage-bootstrap-authentication`. The user is `system:bootstrap:<id>` in `system:bootstrappers` plus the
 * Secret's valid `auth-extra-groups`.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Secret } from 'kubernetes-types/core/v1.js';
import type { UserInfo } from '../registry/policy.js';
import type { TokenAuthenticator } from './authn.js';
import {
  bootstrapDefaultGroup,
  bootstrapGroupPattern,
  bootstrapUserPrefix,
  hasExpired,
  keys,
  parseToken,
  secretGroups,
  secretName,
  secretTypeBootstrapToken,
  secretValue,
} from '../../bootstrap/token.js';

export interface BootstrapTokenAuthenticatorOptions {
  /** The Secret in kube-system, undefined when it does not exist. */
  getSecret(name: string): Promise<Secret | undefined>;
  now?: () => Date;
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class BootstrapTokenAuthenticator implements TokenAuthenticator {
  constructor(private readonly o: BootstrapTokenAuthenticatorOptions) {}

  async authenticateToken(token: string): Promise<UserInfo | undefined> {
    const t = parseToken(token);
    if (t === undefined) return undefined;
    const s = await this.o.getSecret(secretName(t.id));
    if (s === undefined) return undefined;
    if (s.metadata?.deletionTimestamp !== undefined) return undefined;
    if (s.type !== secretTypeBootstrapToken) return undefined;
    const secret = secretValue(s, keys.tokenSecret);
    if (secret === undefined || !equal(secret, t.secret)) return undefined;
    if (secretValue(s, keys.tokenId) !== t.id) return undefined;
    if (hasExpired(s, this.o.now?.() ?? new Date())) return undefined;
    if (secretValue(s, `${keys.usagePrefix}authentication`) !== 'true') return undefined;
    const extra = secretGroups(s);
    if (extra.some((g) => !bootstrapGroupPattern.test(g))) return undefined;
    return { username: `${bootstrapUserPrefix}${t.id}`, groups: [bootstrapDefaultGroup, ...extra] };
  }
}
