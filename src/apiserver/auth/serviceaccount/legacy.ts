/**
 * Legacy service account tokens (pkg/serviceaccount/legacy.go, v1.32): the tokens the token controller
 * writes into `kubernetes.io/service-account-token` Secrets. They never expire and carry no audience; they
 * are valid while their Secret holds exactly this token and the service account exists with the same UID.
 * Each use is recorded on the Secret (`kubernetes.io/legacy-token-last-used`, once a day), and a Secret
 * labelled `kubernetes.io/legacy-token-invalid-since` no longer authenticates.
 */
import type { Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { PublicClaims, ServiceAccountTokenGetter, Validation, Validator } from './jwt.js';
import { makeUsername, splitUsername } from './util.js';

export const legacyIssuer = 'kubernetes/serviceaccount';
export const lastUsedLabelKey = 'kubernetes.io/legacy-token-last-used';
export const invalidSinceLabelKey = 'kubernetes.io/legacy-token-invalid-since';

/** The legacy private claims, flat at the payload's top level. */
export interface LegacyPrivateClaims {
  'kubernetes.io/serviceaccount/service-account.name': string;
  'kubernetes.io/serviceaccount/service-account.uid': string;
  'kubernetes.io/serviceaccount/secret.name': string;
  'kubernetes.io/serviceaccount/namespace': string;
}

/** `LegacyClaims`: the claims of the token of `secret` for `serviceAccount`. */
export function legacyClaims(serviceAccount: ServiceAccount, secret: Secret): { public: PublicClaims; private: LegacyPrivateClaims } {
  const md = serviceAccount.metadata ?? {};
  return {
    public: { sub: makeUsername(md.namespace ?? '', md.name ?? '') },
    private: {
      'kubernetes.io/serviceaccount/namespace': md.namespace ?? '',
      'kubernetes.io/serviceaccount/service-account.name': md.name ?? '',
      'kubernetes.io/serviceaccount/service-account.uid': md.uid ?? '',
      'kubernetes.io/serviceaccount/secret.name': secret.metadata?.name ?? '',
    },
  };
}

export interface LegacyValidatorOptions {
  /** `--service-account-lookup` (default true): check the Secret and the service account. */
  lookup?: boolean;
  getter: ServiceAccountTokenGetter;
  /** Sets `kubernetes.io/legacy-token-last-used` on the Secret (a merge patch upstream). */
  markLastUsed?: (namespace: string, name: string, uid: string, date: string) => Promise<void>;
  now?: () => Date;
}

const claimKeys = [
  'kubernetes.io/serviceaccount/service-account.name',
  'kubernetes.io/serviceaccount/service-account.uid',
  'kubernetes.io/serviceaccount/secret.name',
  'kubernetes.io/serviceaccount/namespace',
] as const;

function day(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** The validator of legacy Secret tokens (`NewLegacyValidator`). */
export class LegacyValidator implements Validator<LegacyPrivateClaims> {
  constructor(private readonly o: LegacyValidatorOptions) {}

  privateClaims(payload: Record<string, unknown>): LegacyPrivateClaims | undefined {
    const out: Record<string, string> = {};
    for (const k of claimKeys) {
      const v = payload[k];
      if (v === undefined || v === null) out[k] = '';
      else if (typeof v === 'string') out[k] = v;
      else return undefined;
    }
    return out as unknown as LegacyPrivateClaims;
  }

  async validate(tokenData: string, pub: PublicClaims, priv: LegacyPrivateClaims): Promise<Validation> {
    if ((pub.sub ?? '') === '') return { ok: false, error: 'sub claim is missing' };
    const namespace = priv['kubernetes.io/serviceaccount/namespace'];
    if (namespace === '') return { ok: false, error: 'namespace claim is missing' };
    const secretName = priv['kubernetes.io/serviceaccount/secret.name'];
    if (secretName === '') return { ok: false, error: 'secretName claim is missing' };
    const serviceAccountName = priv['kubernetes.io/serviceaccount/service-account.name'];
    if (serviceAccountName === '') return { ok: false, error: 'serviceAccountName claim is missing' };
    const serviceAccountUID = priv['kubernetes.io/serviceaccount/service-account.uid'];
    if (serviceAccountUID === '') return { ok: false, error: 'serviceAccountUID claim is missing' };
    const subject = splitUsername(pub.sub ?? '');
    if (subject === undefined || subject.namespace !== namespace || subject.name !== serviceAccountName) {
      return { ok: false, error: 'sub claim is invalid' };
    }

    if (this.o.lookup ?? true) {
      const secret = await this.o.getter.getSecret(namespace, secretName);
      if (secret === undefined || secret.metadata?.deletionTimestamp !== undefined) return { ok: false, error: 'Token has been invalidated' };
      const stored = secret.data?.['token'];
      if (stored === undefined || Buffer.from(stored, 'base64').toString('utf8') !== tokenData) {
        return { ok: false, error: "Token does not match server's copy" };
      }
      const sa = await this.o.getter.getServiceAccount(namespace, serviceAccountName);
      if (sa === undefined) return { ok: false, error: `serviceaccounts "${serviceAccountName}" not found` };
      if (sa.metadata?.deletionTimestamp !== undefined) return { ok: false, error: `ServiceAccount ${namespace}/${serviceAccountName} has been deleted` };
      if ((sa.metadata?.uid ?? '') !== serviceAccountUID) {
        return { ok: false, error: `ServiceAccount UID (${sa.metadata?.uid ?? ''}) does not match claim (${serviceAccountUID})` };
      }
      if ((secret.metadata?.labels?.[invalidSinceLabelKey] ?? '') !== '') {
        await this.markLastUsed(secret);
        return {
          ok: false,
          error: `the token in secret ${namespace}/${secretName} for service account ${namespace}/${serviceAccountName} has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the '${invalidSinceLabelKey}' label from the secret to temporarily allow use of this token`,
        };
      }
      await this.markLastUsed(secret);
    }
    return { ok: true, info: { namespace, name: serviceAccountName, uid: serviceAccountUID } };
  }

  /** `patchSecretWithLastUsedDate`: at most one write a day (today's or tomorrow's date is left alone). */
  private async markLastUsed(secret: Secret): Promise<void> {
    if (this.o.markLastUsed === undefined) return;
    const now = (this.o.now ?? (() => new Date()))();
    const today = day(now);
    const tomorrow = day(new Date(now.getTime() + 86_400_000));
    const lastUsed = secret.metadata?.labels?.[lastUsedLabelKey];
    if (lastUsed === today || lastUsed === tomorrow) return;
    try {
      await this.o.markLastUsed(secret.metadata?.namespace ?? '', secret.metadata?.name ?? '', secret.metadata?.uid ?? '', today);
    } catch {
      // Upstream logs the failure and authenticates anyway.
    }
  }
}
