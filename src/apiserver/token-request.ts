/**
 * The `serviceaccounts/token` subresource (pkg/registry/core/serviceaccount/storage/token.go, v1.32):
 * creates a TokenRequest (authentication.k8s.io/v1) for a service account and answers it with a signed,
 * optionally bound, token and its expiration.
 */
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { apiErrors, isNotFound } from '../api/errors.js';
import type { FieldError } from '../api/field-errors.js';
import { rfc3339 } from './registry/store.js';
import type { StoredObject } from './storage/watch-cache.js';
import { claims, expirationExtensionSeconds, warnOnlyBoundTokenExpirationSeconds, type TokenGenerator } from './auth/serviceaccount/index.js';

/** `authentication/validation.MinTokenAgeSec`. */
export const minTokenAgeSeconds = 10 * 60;
const maxTokenAgeSeconds = 2 ** 32;
/** `SetDefaults_TokenRequestSpec`: an hour. */
export const defaultExpirationSeconds = 60 * 60;

const tokenRequestKind = { group: 'authentication.k8s.io', kind: 'TokenRequest' } as const;

export interface BoundObjectReference {
  kind?: string;
  apiVersion?: string;
  name?: string;
  uid?: string;
}

export interface TokenRequest {
  kind?: string;
  apiVersion?: string;
  metadata?: ObjectMeta;
  spec?: { audiences?: string[] | null; expirationSeconds?: number | null; boundObjectRef?: BoundObjectReference | null };
  status?: { token?: string; expirationTimestamp?: string | null };
}

export interface TokenRequestOptions {
  /** Signs the tokens (the issuer is the first `--service-account-issuer`). */
  issuer: TokenGenerator;
  /** `--api-audiences`: the audiences of a request that names none. */
  apiAudiences: readonly string[];
  /** `--service-account-max-token-expiration` in seconds (0: no maximum; kubeadm sets none). */
  maxExpirationSeconds?: number;
  /** `--service-account-extend-token-expiration` (default true). */
  extendExpiration?: boolean;
  /**
   * The object of a core/v1 resource (`serviceaccounts`, `pods`, `secrets`, `nodes`); throws the registry's
   * NotFound when it does not exist.
   */
  get(resource: string, namespace: string, name: string): Promise<StoredObject>;
  now?: () => Date;
  newUUID?: () => string;
}

/** `schema.FromAPIVersionAndKind`: the group and version of an apiVersion (an unparsable one gives none). */
function groupVersionOf(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0] ?? '', version: parts[1] ?? '' };
  return { group: '', version: '' };
}

/** `ValidateTokenRequest`. */
export function validateTokenRequest(expirationSeconds: number): FieldError[] {
  const errs: FieldError[] = [];
  if (expirationSeconds < minTokenAgeSeconds) {
    errs.push({ type: 'FieldValueInvalid', field: 'spec.expirationSeconds', badValue: expirationSeconds, detail: 'may not specify a duration less than 10 minutes' });
  }
  if (expirationSeconds > maxTokenAgeSeconds) {
    errs.push({ type: 'FieldValueInvalid', field: 'spec.expirationSeconds', badValue: expirationSeconds, detail: 'may not specify a duration larger than 2^32 seconds' });
  }
  return errs;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** encoding/json's name of a JSON value's type in its unmarshal errors. */
function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return `number ${String(v)}`;
  return typeof v === 'object' ? 'object' : typeof v;
}

/**
 * The decoder's type checks: a value of the wrong JSON type is a 400 worded as kube-apiserver's
 * (`TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal ...`).
 */
function decode(body: unknown): TokenRequest {
  const fail = (value: unknown, field: string, goType: string): never => {
    // A number is named with its literal only when the field is numeric.
    const what = typeof value === 'number' && goType === 'int64' ? jsonType(value) : (jsonType(value).split(' ')[0] ?? '');
    throw apiErrors.badRequest(`TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal ${what} into Go struct field ${field} of type ${goType}`);
  };
  if (!isObject(body)) throw apiErrors.badRequest('the object provided is unrecognized (must be of type TokenRequest)');
  const req = body as TokenRequest;
  const spec: unknown = req.spec;
  if (spec === undefined || spec === null) return req;
  if (!isObject(spec)) return fail(spec, 'TokenRequest.spec', 'v1.TokenRequestSpec');
  const exp = spec['expirationSeconds'];
  if (exp !== undefined && exp !== null && (typeof exp !== 'number' || !Number.isInteger(exp))) fail(exp, 'TokenRequestSpec.spec.expirationSeconds', 'int64');
  const auds = spec['audiences'];
  if (auds !== undefined && auds !== null) {
    if (!Array.isArray(auds)) fail(auds, 'TokenRequestSpec.spec.audiences', '[]string');
    else for (const a of auds as unknown[]) if (typeof a !== 'string') fail(a, 'TokenRequestSpec.spec.audiences', 'string');
  }
  const ref = spec['boundObjectRef'];
  if (ref !== undefined && ref !== null) {
    if (!isObject(ref)) fail(ref, 'TokenRequestSpec.spec.boundObjectRef', 'v1.BoundObjectReference');
    else {
      for (const k of ['kind', 'apiVersion', 'name', 'uid']) {
        const v = ref[k];
        if (v !== undefined && v !== null && typeof v !== 'string') fail(v, `BoundObjectReference.spec.boundObjectRef.${k}`, k === 'uid' ? 'types.UID' : 'string');
      }
    }
  }
  return req;
}

/** `TokenREST`: the create of `serviceaccounts/token`. */
export class TokenRequestRest {
  private readonly audsSet: Set<string>;

  constructor(private readonly o: TokenRequestOptions) {
    this.audsSet = new Set(o.apiAudiences);
  }

  /**
   * Creates a token for service account `name` in `namespace`; `warnings` collects the warnings of the
   * response. Errors are ApiErrors worded as kube-apiserver's.
   */
  async create(namespace: string, name: string, body: unknown, warnings: string[] = []): Promise<TokenRequest> {
    const req = decode(body);
    const md = req.metadata ?? {};
    // The name and namespace of the body, when given, must be the URL's.
    if ((md.name ?? '') !== '' && md.name !== name) {
      throw apiErrors.invalid(tokenRequestKind, name, [{ type: 'FieldValueInvalid', field: 'metadata.name', badValue: md.name ?? '', detail: 'must match the service account name if specified' }]);
    }
    if ((md.namespace ?? '') !== '' && md.namespace !== namespace) {
      throw apiErrors.invalid(tokenRequestKind, name, [{ type: 'FieldValueInvalid', field: 'metadata.namespace', badValue: md.namespace ?? '', detail: 'must match the service account namespace if specified' }]);
    }
    const sa = await this.o.get('serviceaccounts', namespace, name);
    const spec = req.spec ?? {};
    const audiences = spec.audiences !== undefined && spec.audiences !== null && spec.audiences.length > 0 ? spec.audiences : [...this.o.apiAudiences];
    let expirationSeconds = spec.expirationSeconds ?? defaultExpirationSeconds;
    // The time is taken before the token is built, so the status' expiration is never after the token's exp.
    const now = (this.o.now ?? (() => new Date()))();
    const errs = validateTokenRequest(expirationSeconds);
    if (errs.length > 0) throw apiErrors.invalid(tokenRequestKind, '', errs);

    let pod: StoredObject | undefined;
    let node: StoredObject | undefined;
    let secret: StoredObject | undefined;
    const ref = spec.boundObjectRef ?? undefined;
    if (ref !== undefined) {
      const gv = groupVersionOf(ref.apiVersion ?? '');
      const kind = ref.kind ?? '';
      const refName = ref.name ?? '';
      let uid: string;
      if (gv.group === '' && (kind === 'Pod' || kind === 'Node' || kind === 'Secret') && refName === '') {
        throw apiErrors.badRequest('Name parameter required.');
      }
      if (gv.group === '' && kind === 'Pod') {
        pod = await this.o.get('pods', namespace, refName);
        const podSA = ((pod['spec'] ?? {}) as { serviceAccountName?: string }).serviceAccountName ?? '';
        if (name !== podSA) throw apiErrors.badRequest(`cannot bind token for serviceaccount "${name}" to pod running with different serviceaccount name.`);
        uid = pod.metadata?.uid ?? '';
        const nodeName = ((pod['spec'] ?? {}) as { nodeName?: string }).nodeName ?? '';
        if (nodeName !== '') {
          try {
            node = await this.o.get('nodes', '', nodeName);
          } catch (e) {
            if (!isNotFound(e)) throw apiErrors.internal(e instanceof Error ? e.message : String(e));
            // The node is gone: the token still names it, without a UID.
            node = { metadata: { name: nodeName } };
          }
        }
      } else if (gv.group === '' && kind === 'Node') {
        node = await this.o.get('nodes', '', refName);
        uid = node.metadata?.uid ?? '';
      } else if (gv.group === '' && kind === 'Secret') {
        secret = await this.o.get('secrets', namespace, refName);
        uid = secret.metadata?.uid ?? '';
      } else {
        throw apiErrors.badRequest(`cannot bind token to object of type ${gv.group}/${gv.version}, Kind=${kind}`);
      }
      if ((ref.uid ?? '') !== '' && uid !== ref.uid) {
        throw apiErrors.conflict(
          { group: gv.group, resource: kind },
          refName,
          `the UID in the bound object reference (${ref.uid ?? ''}) does not match the UID in record. The object might have been deleted and then recreated`,
        );
      }
    }

    const max = this.o.maxExpirationSeconds ?? 0;
    if (max > 0 && expirationSeconds > max) {
      warnings.push(`requested expiration of ${expirationSeconds} seconds shortened to ${max} seconds`);
      expirationSeconds = max;
    }
    // Kubelet-projected tokens (pod-bound, an hour and 7 s, API audiences) are valid for a year and only
    // flagged stale after the requested time, for a safe transition to time-bound tokens.
    let warnAfter = 0;
    let exp = expirationSeconds;
    if ((this.o.extendExpiration ?? true) && pod !== undefined && expirationSeconds === warnOnlyBoundTokenExpirationSeconds && audiences.every((a) => this.audsSet.has(a))) {
      warnAfter = exp;
      exp = expirationExtensionSeconds;
    }
    const c = claims({
      serviceAccount: sa,
      pod,
      secret,
      node,
      expirationSeconds: exp,
      warnAfter,
      audiences,
      now,
      ...(this.o.newUUID !== undefined ? { newUUID: this.o.newUUID } : {}),
    });
    const token = this.o.issuer.generateToken(c.public, c.private as Record<string, unknown>);
    const boundObjectRef = ref === undefined ? null : ref;
    return {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { ...md, name: sa.metadata?.name ?? name, namespace: sa.metadata?.namespace ?? namespace, creationTimestamp: rfc3339(now) },
      spec: { audiences, expirationSeconds, boundObjectRef },
      status: { token, expirationTimestamp: rfc3339(new Date(now.getTime() + expirationSeconds * 1000)) },
    };
  }
}
