/**
 * Detached JWS signatures of the cluster-info kubeconfig (k8s.io/cluster-bootstrap/token/jws): HS256 with
 * the token secret as key and the token id as `kid`, compact serialization with the payload cut out
 * (`<header>..<signature>`).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

function b64url(b: Buffer | string): string {
  return Buffer.from(b).toString('base64url');
}

/** `ComputeDetachedSignature`: go-jose's protected header is `{"alg":"HS256","kid":"<id>"}`. */
export function computeDetachedSignature(content: string, tokenId: string, tokenSecret: string): string {
  const header = b64url(JSON.stringify({ alg: 'HS256', kid: tokenId }));
  const payload = b64url(content);
  const sig = createHmac('sha256', tokenSecret).update(`${header}.${payload}`).digest('base64url');
  return `${header}..${sig}`;
}

/** `DetachedTokenIsValid`: the signature is the one this token computes over the content. */
export function detachedTokenIsValid(detached: string, content: string, tokenId: string, tokenSecret: string): boolean {
  const want = Buffer.from(computeDetachedSignature(content, tokenId, tokenSecret));
  const got = Buffer.from(detached);
  return want.length === got.length && timingSafeEqual(want, got);
}
