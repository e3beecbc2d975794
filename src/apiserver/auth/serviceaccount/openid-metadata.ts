/**
 * Service account issuer discovery (pkg/serviceaccount/openidmetadata.go, v1.32): the OpenID Connect
 * provider configuration at `/.well-known/openid-configuration` and the key set at `/openid/v1/jwks`, so
 * relying parties outside the cluster can verify service account tokens. Both are cached by clients for
 * an hour; RBAC lets `system:serviceaccounts` read them (`system:service-account-issuer-discovery`).
 */
import { algorithmForKey, type StaticPublicKeys } from './jwt.js';

export const openIDConfigPath = '/.well-known/openid-configuration';
export const jwksPath = '/openid/v1/jwks';
/** `GetCacheAgeMaxSeconds` of static keys, sent as `Cache-Control: public, max-age=3600`. */
export const cacheMaxAgeSeconds = 3600;

export interface IssuerDiscoveryDocument {
  contentType: string;
  body: string;
}

export type OpenIDMetadata = { ok: true; config: IssuerDiscoveryDocument; jwks: IssuerDiscoveryDocument } | { ok: false; error: string };

/** An https URL without query or fragment (what an OIDC issuer and its JWKS URI must be). */
function checkHttpsURL(what: string, raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return `${what} URL is not a valid URL: ${raw}`;
  }
  if (u.protocol !== 'https:') return `${what} URL must use https scheme, got: ${raw}`;
  if (u.search !== '' || raw.includes('?')) return `${what} URL may not include a query, got: ${raw}`;
  if (u.hash !== '' || raw.includes('#')) return `${what} URL may not include a fragment, got: ${raw}`;
  return undefined;
}

/**
 * `NewOpenIDMetadata`: the documents of an issuer, or why discovery cannot be served (kube-apiserver then
 * serves none). `jwksURI` is `--service-account-jwks-uri`; empty, it is `https://<externalAddress>/openid/v1/jwks`
 * (`externalAddress` is host:port, without a scheme).
 */
export function newOpenIDMetadata(issuer: string, jwksURI: string, externalAddress: string, keys: StaticPublicKeys): OpenIDMetadata {
  const issuerErr = checkHttpsURL('issuer', issuer);
  if (issuerErr !== undefined) return { ok: false, error: issuerErr };
  let uri = jwksURI;
  if (uri === '') {
    if (externalAddress === '') return { ok: false, error: 'either the JWKS URI or the API server external address is required' };
    if (externalAddress.includes('://')) return { ok: false, error: `API server external address cannot contain a scheme, got: ${externalAddress}` };
    uri = `https://${externalAddress}${jwksPath}`;
  }
  const jwksErr = checkHttpsURL('jwks', uri);
  if (jwksErr !== undefined) return { ok: false, error: jwksErr };

  const jwks = keys.getPublicKeys('').map((k) => {
    const jwk = k.key.export({ format: 'jwk' }) as { kty?: string; crv?: string; x?: string; y?: string; n?: string; e?: string };
    const alg = algorithmForKey(k.key)?.alg ?? '';
    // go-jose's JSONWebKey field order.
    return jwk.kty === 'EC'
      ? { use: 'sig', kty: 'EC', kid: k.keyID, crv: jwk.crv ?? '', alg, x: jwk.x ?? '', y: jwk.y ?? '' }
      : { use: 'sig', kty: 'RSA', kid: k.keyID, alg, n: jwk.n ?? '', e: jwk.e ?? '' };
  });
  const config = {
    issuer,
    jwks_uri: uri,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [...new Set(jwks.map((k) => k.alg))].sort(),
  };
  return {
    ok: true,
    config: { contentType: 'application/json', body: JSON.stringify(config) },
    jwks: { contentType: 'application/jwk-set+json', body: JSON.stringify({ keys: jwks }) },
  };
}
