/**
 * Bound service account tokens (pkg/serviceaccount/claims.go, v1.32): the claims the TokenRequest API
 * issues and the validator that accepts them only while the service account, and the pod, Secret or node
 * the token is bound to, still exist with the same UIDs. Feature gates as 1.32 ships them:
 * ServiceAccountTokenJTI, ServiceAccountTokenPodNodeInfo, ServiceAccountTokenNodeBinding and
 * ServiceAccountTokenNodeBindingValidation are on.
 */
import { randomUUID } from 'node:crypto';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { PublicClaims, ServiceAccountTokenGetter, Validation, Validator } from './jwt.js';
import { credentialIDForJTI, makeUsername } from './util.js';

/** The expiration of kubelet-projected tokens that is extended, with a `warnafter` at the requested time. */
export const warnOnlyBoundTokenExpirationSeconds = 60 * 60 + 7;
/** How far such a token's expiration is extended (a year). */
export const expirationExtensionSeconds = 24 * 365 * 60 * 60;
/** go-jose's `jwt.DefaultLeeway`. */
export const defaultLeewaySeconds = 60;

export interface Ref {
  name?: string;
  uid?: string;
}

/** The `kubernetes.io` private claim. */
export interface KubernetesClaims {
  namespace?: string;
  serviceaccount?: Ref;
  pod?: Ref;
  secret?: Ref;
  node?: Ref;
  warnafter?: number;
}

export interface PrivateClaims {
  'kubernetes.io'?: KubernetesClaims;
}

type Named = { metadata?: ObjectMeta };

export interface ClaimsInput {
  serviceAccount: Named;
  pod?: Named | undefined;
  secret?: Named | undefined;
  node?: Named | undefined;
  expirationSeconds: number;
  /** Seconds after which use of the token is only logged as stale (0: none). */
  warnAfter?: number;
  audiences: readonly string[];
  now: Date;
  /** The token id (`jti`); default a random UUID. */
  newUUID?: () => string;
}

function ref(o: Named): Ref {
  const r: Ref = {};
  if ((o.metadata?.name ?? '') !== '') r.name = o.metadata?.name ?? '';
  if ((o.metadata?.uid ?? '') !== '') r.uid = o.metadata?.uid ?? '';
  return r;
}

/**
 * `Claims`: the public and private claims of a bound token. A token binds to one object at most; a pod-bound
 * token also names the pod's node when it is known.
 */
export function claims(i: ClaimsInput): { public: PublicClaims; private: PrivateClaims } {
  if (i.secret !== undefined && (i.node !== undefined || i.pod !== undefined)) {
    throw new Error('internal error, token can only be bound to one object type');
  }
  const now = Math.floor(i.now.getTime() / 1000);
  const sa = i.serviceAccount.metadata ?? {};
  const pub: PublicClaims = {
    sub: makeUsername(sa.namespace ?? '', sa.name ?? ''),
    // go-jose omits an empty audience.
    ...(i.audiences.length > 0 ? { aud: [...i.audiences] } : {}),
    iat: now,
    nbf: now,
    exp: now + i.expirationSeconds,
    jti: (i.newUUID ?? randomUUID)(),
  };
  const k: KubernetesClaims = { serviceaccount: ref(i.serviceAccount) };
  if ((sa.namespace ?? '') !== '') k.namespace = sa.namespace ?? '';
  if (i.pod !== undefined) {
    k.pod = ref(i.pod);
    if (i.node !== undefined) k.node = ref(i.node);
  } else if (i.secret !== undefined) {
    k.secret = ref(i.secret);
  } else if (i.node !== undefined) {
    k.node = ref(i.node);
  }
  if ((i.warnAfter ?? 0) !== 0) k.warnafter = now + (i.warnAfter ?? 0);
  return { public: pub, private: { 'kubernetes.io': k } };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function refOf(v: unknown): Ref | undefined | null {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) return null;
  const r: Ref = {};
  for (const k of ['name', 'uid'] as const) {
    const x = v[k];
    if (x === undefined || x === null) continue;
    if (typeof x !== 'string') return null;
    r[k] = x;
  }
  return r;
}

/** Decodes the `kubernetes.io` claim as Go's json into `privateClaims` would; undefined on a type mismatch. */
export function decodePrivateClaims(payload: Record<string, unknown>): PrivateClaims | undefined {
  const raw = payload['kubernetes.io'];
  if (raw === undefined || raw === null) return {};
  if (!isObject(raw)) return undefined;
  const k: KubernetesClaims = {};
  const ns = raw['namespace'];
  if (ns !== undefined && ns !== null) {
    if (typeof ns !== 'string') return undefined;
    k.namespace = ns;
  }
  for (const key of ['serviceaccount', 'pod', 'secret', 'node'] as const) {
    const r = refOf(raw[key]);
    if (r === null) return undefined;
    if (r !== undefined) k[key] = r;
  }
  const w = raw['warnafter'];
  if (w !== undefined && w !== null) {
    if (typeof w !== 'number') return undefined;
    k.warnafter = Math.trunc(w);
  }
  return { 'kubernetes.io': k };
}

/** go-jose's `Claims.Validate` with the default leeway: nbf, then exp, then iat. */
export function validateTimes(pub: PublicClaims, nowSeconds: number): string | undefined {
  if (pub.nbf !== undefined && nowSeconds + defaultLeewaySeconds < pub.nbf) return 'service account token is not valid yet';
  if (pub.exp !== undefined && nowSeconds - defaultLeewaySeconds > pub.exp) return 'service account token has expired';
  if (pub.iat !== undefined && nowSeconds + defaultLeewaySeconds < pub.iat) return 'service account token is issued in the future';
  return undefined;
}

function deletedBefore(o: Named, seconds: number): boolean {
  const ts = o.metadata?.deletionTimestamp;
  return ts !== undefined && Date.parse(ts) / 1000 < seconds;
}

const invalidated = 'service account token has been invalidated';

/** The validator of bound tokens (`NewValidator`). */
export class BoundTokenValidator implements Validator<PrivateClaims> {
  constructor(
    private readonly getter: ServiceAccountTokenGetter,
    private readonly now: () => Date = () => new Date(),
  ) {}

  privateClaims(payload: Record<string, unknown>): PrivateClaims | undefined {
    return decodePrivateClaims(payload);
  }

  async validate(_tokenData: string, pub: PublicClaims, priv: PrivateClaims): Promise<Validation> {
    const nowSeconds = this.now().getTime() / 1000;
    const timeError = validateTimes(pub, Math.floor(nowSeconds));
    if (timeError !== undefined) return { ok: false, error: timeError };
    // Objects deleted before now minus the leeway no longer back a token.
    const invalidIfDeletedBefore = nowSeconds - defaultLeewaySeconds;
    const k = priv['kubernetes.io'] ?? {};
    const namespace = k.namespace ?? '';
    const saref = k.serviceaccount ?? {};
    const saName = saref.name ?? '';
    const sa = await this.getter.getServiceAccount(namespace, saName);
    if (sa === undefined) return { ok: false, error: `serviceaccounts "${saName}" not found` };
    if ((sa.metadata?.uid ?? '') !== (saref.uid ?? '')) {
      return { ok: false, error: `service account UID (${sa.metadata?.uid ?? ''}) does not match claim (${saref.uid ?? ''})` };
    }
    if (deletedBefore(sa, invalidIfDeletedBefore)) return { ok: false, error: `service account ${namespace}/${saName} has been deleted` };

    if (k.secret !== undefined) {
      const secret = await this.getter.getSecret(namespace, k.secret.name ?? '');
      if (secret === undefined) return { ok: false, error: invalidated };
      if ((k.secret.uid ?? '') !== (secret.metadata?.uid ?? '')) {
        return { ok: false, error: `secret UID (${secret.metadata?.uid ?? ''}) does not match service account secret ref claim (${k.secret.uid ?? ''})` };
      }
      if (deletedBefore(secret, invalidIfDeletedBefore)) return { ok: false, error: invalidated };
    }

    let podName = '';
    let podUID = '';
    if (k.pod !== undefined) {
      const pod = await this.getter.getPod(namespace, k.pod.name ?? '');
      if (pod === undefined) return { ok: false, error: invalidated };
      if ((k.pod.uid ?? '') !== (pod.metadata?.uid ?? '')) {
        return { ok: false, error: `pod UID (${pod.metadata?.uid ?? ''}) does not match service account pod ref claim (${k.pod.uid ?? ''})` };
      }
      if (deletedBefore(pod, invalidIfDeletedBefore)) return { ok: false, error: invalidated };
      podName = k.pod.name ?? '';
      podUID = k.pod.uid ?? '';
    }

    let nodeName = '';
    let nodeUID = '';
    if (k.node !== undefined) {
      if (k.pod !== undefined) {
        // A pod-bound token carries its node for information only.
        nodeName = k.node.name ?? '';
        nodeUID = k.node.uid ?? '';
      } else {
        const node = await this.getter.getNode(k.node.name ?? '');
        if (node === undefined) return { ok: false, error: invalidated };
        if ((k.node.uid ?? '') !== (node.metadata?.uid ?? '')) {
          return { ok: false, error: `node UID (${node.metadata?.uid ?? ''}) does not match service account node ref claim (${k.node.uid ?? ''})` };
        }
        if (deletedBefore(node, invalidIfDeletedBefore)) return { ok: false, error: invalidated };
        nodeName = k.node.name ?? '';
        nodeUID = k.node.uid ?? '';
      }
    }

    return {
      ok: true,
      info: {
        namespace,
        name: saName,
        uid: saref.uid ?? '',
        ...(podName !== '' ? { podName } : {}),
        ...(podUID !== '' ? { podUID } : {}),
        ...(nodeName !== '' ? { nodeName } : {}),
        ...(nodeUID !== '' ? { nodeUID } : {}),
        ...(credentialIDForJTI(pub.jti ?? '') !== '' ? { credentialID: credentialIDForJTI(pub.jti ?? '') } : {}),
      },
    };
  }
}
