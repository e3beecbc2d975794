/**
 * Service account token authentication as kube-apiserver configures it (pkg/kubeapiserver/authenticator/
 * config.go, v1.32): one JWT authenticator for the legacy issuer `kubernetes/serviceaccount` with the
 * legacy validator, one for the `--service-account-issuer`s with the bound token validator, both verifying
 * with the `--service-account-key-file` keys and accepting the `--api-audiences`.
 */
import type { UserInfo } from '../../registry/policy.js';
import type { TokenAuthenticator } from '../authn.js';
import { BoundTokenValidator, type PrivateClaims } from './claims.js';
import { JwtTokenAuthenticator, StaticPublicKeys, type JwtAuthentication, type ServiceAccountTokenGetter } from './jwt.js';
import { LegacyValidator, legacyIssuer, type LegacyPrivateClaims, type LegacyValidatorOptions } from './legacy.js';
import { userInfoOf } from './util.js';

/** kubeadm's `--service-account-issuer` (and so `--api-audiences`): `https://kubernetes.default.svc.<dns domain>`. */
export const kubeadmServiceAccountIssuer = 'https://kubernetes.default.svc.cluster.local';

export interface ServiceAccountAuthenticatorOptions {
  /** `--service-account-issuer`: the first one issues, all are accepted. */
  issuers: readonly string[];
  /** `--api-audiences` (kube-apiserver defaults it to the issuers). */
  apiAudiences: readonly string[];
  /** `--service-account-key-file`: PEM public (or private) keys that verify tokens. */
  publicKeyPems: readonly string[];
  getter: ServiceAccountTokenGetter;
  markLegacyTokenUsed?: LegacyValidatorOptions['markLastUsed'];
  now?: () => Date;
}

export class ServiceAccountTokenAuthenticator implements TokenAuthenticator {
  private readonly legacy: JwtTokenAuthenticator<LegacyPrivateClaims>;
  private readonly bound: JwtTokenAuthenticator<PrivateClaims>;
  /** The verification keys (published by issuer discovery). */
  readonly keys: StaticPublicKeys;

  constructor(o: ServiceAccountAuthenticatorOptions) {
    const keys = (this.keys = new StaticPublicKeys(o.publicKeyPems));
    this.legacy = new JwtTokenAuthenticator(
      [legacyIssuer],
      keys,
      o.apiAudiences,
      new LegacyValidator({
        getter: o.getter,
        ...(o.markLegacyTokenUsed !== undefined ? { markLastUsed: o.markLegacyTokenUsed } : {}),
        ...(o.now !== undefined ? { now: o.now } : {}),
      }),
    );
    this.bound = new JwtTokenAuthenticator(o.issuers, keys, o.apiAudiences, new BoundTokenValidator(o.getter, o.now));
  }

  /**
   * The outcome for a token: undefined when it is not a service account token of this server, else the
   * user and audiences, or the reason it is refused. `audiences` are the requested ones (a TokenReview's);
   * by default the API audiences.
   */
  async authenticate(token: string, audiences?: readonly string[]): Promise<JwtAuthentication> {
    return (await this.legacy.authenticate(token, audiences)) ?? (await this.bound.authenticate(token, audiences));
  }

  async authenticateToken(token: string): Promise<UserInfo | undefined> {
    const r = await this.authenticate(token);
    return r?.ok === true ? userInfoOf(r.info) : undefined;
  }
}
