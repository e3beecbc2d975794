/**
 * Service account JWTs (pkg/serviceaccount/jwt.go, v1.32): tokens signed with the cluster's service account
 * key (RS256 for kubeadm's RSA `sa.key`, ES256/384/512 for ECDSA keys) with a `kid` header derived from
 * the public key, and the authenticator that verifies them for a set of issuers and hands the claims to a
 * validator (bound tokens: claims.ts, legacy Secret tokens: legacy.ts).
 */
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import type { Node, Pod, Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { ServiceAccountInfo } from './util.js';

/**
 * Reads the objects a token names (`ServiceAccountTokenGetter`); undefined when the object does not exist.
 * kube-apiserver reads them from its informers, falling back to a live read on a miss.
 */
export interface ServiceAccountTokenGetter {
  getServiceAccount(namespace: string, name: string): Promise<ServiceAccount | undefined>;
  getPod(namespace: string, name: string): Promise<Pod | undefined>;
  getSecret(namespace: string, name: string): Promise<Secret | undefined>;
  getNode(name: string): Promise<Node | undefined>;
}

/** The registered claims of a token (go-jose's `jwt.Claims`); times are seconds since the epoch. */
export interface PublicClaims {
  iss?: string;
  sub?: string;
  aud?: string[];
  exp?: number;
  nbf?: number;
  iat?: number;
  jti?: string;
}

/**
 * `keyIDFromPublicKey`: base64url (unpadded) of the SHA-256 of the public key's DER (PKIX) encoding. It
 * names the key in the JWT header and in the JWKS without revealing it.
 */
export function keyIDFromPublicKey(key: KeyObject): string {
  const der = key.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64url');
}

/**
 * JSON as Go's encoding/json writes a map: keys sorted at every level, and `<`, `>`, `&`, U+2028 and
 * U+2029 escaped. go-jose merges the claims into a map before signing, so token payloads look like this.
 */
export function goJson(v: unknown): string {
  return JSON.stringify(sortKeys(v)).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) {
    const x = (v as Record<string, unknown>)[k];
    if (x !== undefined) out[k] = sortKeys(x);
  }
  return out;
}

/** Generates signed tokens (`TokenGenerator`). */
export interface TokenGenerator {
  /**
   * A compact JWS of the claims: public claims take precedence over private ones, and `iss` is always the
   * generator's issuer.
   */
  generateToken(claims: PublicClaims, privateClaims: Record<string, unknown>): string;
}

const curveAlgs: Record<string, { alg: string; hash: string }> = {
  prime256v1: { alg: 'ES256', hash: 'sha256' },
  secp384r1: { alg: 'ES384', hash: 'sha384' },
  secp521r1: { alg: 'ES512', hash: 'sha512' },
};

const rsaHashes: Record<string, string> = { RS256: 'sha256', RS384: 'sha384', RS512: 'sha512' };

/**
 * The JWS algorithm a key signs with (`signerFromRSAPrivateKey`: RS256; `signerFromECDSAPrivateKey`: ES256,
 * ES384 or ES512 by curve); undefined for other keys.
 */
export function algorithmForKey(key: KeyObject): { alg: string; hash: string } | undefined {
  if (key.asymmetricKeyType === 'rsa') return { alg: 'RS256', hash: 'sha256' };
  if (key.asymmetricKeyType === 'ec') return curveAlgs[key.asymmetricKeyDetails?.namedCurve ?? ''];
  return undefined;
}

/** `JWTTokenGenerator` for an RSA or ECDSA private key (PEM): signed with the key's algorithm and derived `kid`. */
export class JwtTokenGenerator implements TokenGenerator {
  private readonly key: KeyObject;
  private readonly alg: { alg: string; hash: string };
  readonly keyID: string;

  constructor(
    private readonly issuer: string,
    privateKeyPem: string,
  ) {
    this.key = createPrivateKey(privateKeyPem);
    const alg = algorithmForKey(this.key);
    if (alg === undefined) throw new Error(`unknown private key type ${this.key.asymmetricKeyType ?? ''}, must be RSA or ECDSA`);
    this.alg = alg;
    this.keyID = keyIDFromPublicKey(createPublicKey(this.key));
  }

  generateToken(claims: PublicClaims, privateClaims: Record<string, unknown>): string {
    const header = Buffer.from(goJson({ alg: this.alg.alg, kid: this.keyID })).toString('base64url');
    const payload = Buffer.from(goJson({ ...privateClaims, ...claims, iss: this.issuer })).toString('base64url');
    const signature = sign(this.alg.hash, Buffer.from(`${header}.${payload}`), { key: this.key, dsaEncoding: 'ieee-p1363' }).toString('base64url');
    return `${header}.${payload}.${signature}`;
  }
}

const errUnsupportedAlgorithm = 'go-jose/go-jose: unknown/unsupported algorithm';
const errCryptoFailure = 'go-jose/go-jose: error in cryptographic primitive';

/**
 * Verifies a JWS signature by `key` with algorithm `alg` as go-jose's verifiers do: undefined when valid,
 * else go-jose's error.
 */
function verifySignature(alg: unknown, key: KeyObject, signed: Buffer, signature: Buffer): string | undefined {
  if (key.asymmetricKeyType === 'rsa') {
    const hash = typeof alg === 'string' ? rsaHashes[alg] : undefined;
    if (hash === undefined) return errUnsupportedAlgorithm;
    return verify(hash, signed, key, signature) ? undefined : errCryptoFailure;
  }
  const ec = Object.values(curveAlgs).find((c) => c.alg === alg);
  if (key.asymmetricKeyType !== 'ec' || ec === undefined) return errUnsupportedAlgorithm;
  return verify(ec.hash, signed, { key, dsaEncoding: 'ieee-p1363' }, signature) ? undefined : errCryptoFailure;
}

/** A verification key with its key id. */
export interface PublicKey {
  keyID: string;
  key: KeyObject;
}

/**
 * `StaticPublicKeysGetter`: the keys of `--service-account-key-file` (private keys contribute their public
 * half); with a key id only the keys of that id, without one all of them.
 */
export class StaticPublicKeys {
  private readonly all: PublicKey[];

  constructor(pems: readonly string[]) {
    this.all = pems.map((pem) => {
      const key = pem.includes('PRIVATE KEY') ? createPublicKey(createPrivateKey(pem)) : createPublicKey(pem);
      return { keyID: keyIDFromPublicKey(key), key };
    });
  }

  getPublicKeys(keyID: string): PublicKey[] {
    return keyID === '' ? this.all : this.all.filter((k) => k.keyID === keyID);
  }
}

/** The outcome of a validator: who the token stands for, or why it is refused. */
export type Validation = { ok: true; info: ServiceAccountInfo } | { ok: false; error: string };

/**
 * Domain validation of a token whose issuer and signature are verified (`Validator`). `Private` is the
 * shape of the private claims the validator reads.
 */
export interface Validator<Private> {
  /** The private claims of a payload, or undefined when they do not decode into this shape. */
  privateClaims(payload: Record<string, unknown>): Private | undefined;
  validate(tokenData: string, pub: PublicClaims, priv: Private): Promise<Validation>;
}

/**
 * What authenticating a token gives: undefined when the token is not this authenticator's (not a JWT, or
 * another issuer), else the user's info and the audiences it is valid for, or an error.
 */
export type JwtAuthentication = { ok: true; info: ServiceAccountInfo; audiences: string[] } | { ok: false; error: string } | undefined;

function decodeSegment(s: string): unknown {
  // Raw URL encoding: no padding and only the URL alphabet.
  if (!/^[A-Za-z0-9_-]*$/.test(s)) return undefined;
  try {
    return JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** go-jose's decoding of the registered claims; undefined when a claim has the wrong type. */
function publicClaimsOf(payload: Record<string, unknown>): PublicClaims | undefined {
  const out: PublicClaims = {};
  for (const k of ['iss', 'sub', 'jti'] as const) {
    const v = payload[k];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') return undefined;
    out[k] = v;
  }
  for (const k of ['exp', 'nbf', 'iat'] as const) {
    const v = payload[k];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number') return undefined;
    out[k] = Math.trunc(v);
  }
  const aud = payload['aud'];
  if (typeof aud === 'string') out.aud = [aud];
  else if (Array.isArray(aud)) {
    if (!aud.every((a): a is string => typeof a === 'string')) return undefined;
    out.aud = aud;
  } else if (aud !== undefined && aud !== null) return undefined;
  return out;
}

/**
 * `JWTTokenAuthenticator`: accepts RS256 JWTs of its issuers signed by one of its keys whose audiences meet
 * the requested ones (default: the implicit audiences, kube-apiserver's `--api-audiences`), then defers to
 * the validator.
 */
export class JwtTokenAuthenticator<Private> {
  private readonly issuers: Set<string>;

  constructor(
    issuers: readonly string[],
    private readonly keys: StaticPublicKeys,
    private readonly implicitAuds: readonly string[],
    private readonly validator: Validator<Private>,
  ) {
    this.issuers = new Set(issuers);
  }

  /** `hasCorrectIssuer`: a three-part compact JWT whose unverified `iss` is one of ours. */
  hasCorrectIssuer(tokenData: string): boolean {
    if (tokenData.trim().startsWith('{')) return false;
    const parts = tokenData.split('.');
    if (parts.length !== 3) return false;
    const payload = decodeSegment(parts[1] ?? '');
    if (!isObject(payload)) return false;
    const iss = payload['iss'];
    return typeof iss === 'string' && this.issuers.has(iss);
  }

  async authenticate(tokenData: string, requestedAudiences?: readonly string[]): Promise<JwtAuthentication> {
    if (!this.hasCorrectIssuer(tokenData)) return undefined;
    const [h = '', p = '', s = ''] = tokenData.split('.');
    const header = decodeSegment(h);
    if (!isObject(header) || !/^[A-Za-z0-9_-]*$/.test(s)) return undefined;
    const kid = typeof header['kid'] === 'string' ? header['kid'] : '';
    const keys = this.keys.getPublicKeys(kid);
    if (keys.length === 0) return { ok: false, error: 'invalid signature, no keys found' };
    const payload = decodeSegment(p);
    const signature = Buffer.from(s, 'base64url');
    const signed = Buffer.from(`${h}.${p}`);
    const errors: string[] = [];
    let verified = false;
    for (const k of keys) {
      const err = verifySignature(header['alg'], k.key, signed, signature);
      if (err === undefined) {
        verified = true;
        break;
      }
      errors.push(err);
    }
    if (!verified) return { ok: false, error: aggregate(errors) };
    const pub = isObject(payload) ? publicClaimsOf(payload) : undefined;
    const priv = isObject(payload) ? this.validator.privateClaims(payload) : undefined;
    if (pub === undefined || priv === undefined) return { ok: false, error: 'go-jose/go-jose/jwt: error in token claims' };
    if (!this.issuers.has(pub.iss ?? '')) return { ok: false, error: `token issuer "${pub.iss ?? ''}" is invalid` };
    const tokenAudiences = pub.aud !== undefined && pub.aud.length > 0 ? pub.aud : this.implicitAuds;
    const requested = requestedAudiences ?? this.implicitAuds;
    const auds = tokenAudiences.filter((a) => requested.includes(a));
    if (auds.length === 0 && this.implicitAuds.length !== 0) {
      return { ok: false, error: `token audiences ${goQuoteList(tokenAudiences)} is invalid for the target audiences ${goQuoteList(requested)}` };
    }
    const v = await this.validator.validate(tokenData, pub, priv);
    if (!v.ok) return v;
    return { ok: true, info: v.info, audiences: auds };
  }
}

/** utilerrors.NewAggregate's message: one error as is, several as `[a, b]`. */
function aggregate(errors: readonly string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? (unique[0] ?? '') : `[${unique.join(', ')}]`;
}

/** `%q` of a []string: `["a" "b"]`. */
function goQuoteList(xs: readonly string[]): string {
  return `[${xs.map((x) => JSON.stringify(x)).join(' ')}]`;
}
