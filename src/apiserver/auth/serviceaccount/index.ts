/**
 * Service account tokens (upstream's pkg/serviceaccount and the apiserver's authentication/serviceaccount):
 * signing, claims, the bound and legacy validators, the authenticator kube-apiserver runs and issuer
 * discovery.
 */
export { ServiceAccountTokenAuthenticator, kubeadmServiceAccountIssuer, type ServiceAccountAuthenticatorOptions } from './authenticator.js';
export {
  BoundTokenValidator,
  claims,
  expirationExtensionSeconds,
  warnOnlyBoundTokenExpirationSeconds,
  type ClaimsInput,
  type KubernetesClaims,
  type PrivateClaims,
} from './claims.js';
export {
  JwtTokenAuthenticator,
  JwtTokenGenerator,
  StaticPublicKeys,
  keyIDFromPublicKey,
  type JwtAuthentication,
  type PublicClaims,
  type ServiceAccountTokenGetter,
  type TokenGenerator,
  type Validation,
  type Validator,
} from './jwt.js';
export { LegacyValidator, invalidSinceLabelKey, lastUsedLabelKey, legacyClaims, legacyIssuer, type LegacyPrivateClaims } from './legacy.js';
export { cacheMaxAgeSeconds, jwksPath, newOpenIDMetadata, openIDConfigPath, type IssuerDiscoveryDocument, type OpenIDMetadata } from './openid-metadata.js';
export { storeTokenGetter } from './store-getter.js';
export { makeGroupNames, makeUsername, splitUsername, userInfoOf, type ServiceAccountInfo } from './util.js';
