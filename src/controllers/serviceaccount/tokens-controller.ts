/**
 * TokensController (`pkg/controller/serviceaccount/tokens_controller.go`, v1.32, the
 * `serviceaccount-token-controller`): fills Secrets of type `kubernetes.io/service-account-token` with a
 * legacy token (`token`), the root CA (`ca.crt`) and the namespace (`namespace`), and records the service
 * account's UID in the `kubernetes.io/service-account.uid` annotation. A token Secret whose service account
 * does not exist (or has another UID) is deleted, and so are the token Secrets of a deleted service account;
 * a deleted token Secret is dropped from its service account's `secrets`. kube-controller-manager runs it
 * only with `--service-account-private-key-file`; without a key it is disabled.
 */
import type { Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';
import { isConflict, isNotFound } from '../../api/errors.js';
import { resources } from '../../api/resources.js';
// The signing modules only: the index would load the API server's store into the controllers' thread.
import { JwtTokenGenerator, type TokenGenerator } from '../../apiserver/auth/serviceaccount/jwt.js';
import { legacyClaims, legacyIssuer } from '../../apiserver/auth/serviceaccount/legacy.js';
import { NamespaceIndex, runWorkers, type Controller, type ControllerContext } from '../_context.js';
import { names } from '../names.js';

export const secretTypeServiceAccountToken = 'kubernetes.io/service-account-token';
/** `v1.ServiceAccountNameKey` and `v1.ServiceAccountUIDKey`. */
export const serviceAccountNameKey = 'kubernetes.io/service-account.name';
export const serviceAccountUIDKey = 'kubernetes.io/service-account.uid';
/** The data keys of a token Secret (`v1.ServiceAccountTokenKey`, `...RootCAKey`, `...NamespaceKey`). */
export const tokenKey = 'token';
export const rootCAKey = 'ca.crt';
export const namespaceKey = 'namespace';

/** How often a failed sync is retried before it is dropped (`TokensControllerOptions.MaxRetries`). */
const maxRetries = 10;

export interface TokensControllerOptions {
  /** `--service-account-private-key-file` (PEM); without it the controller is disabled. */
  privateKeyPem?: string;
  /** `--root-ca-file`: the CA put in every token Secret. */
  rootCAPem?: string;
  /** Signs the legacy tokens (default: RS256 with the private key, issuer `kubernetes/serviceaccount`). */
  generator?: TokenGenerator;
}

/** A secret's queue key (`secretQueueKey`): the Secret and the service account it names, as it was seen. */
interface SecretKey {
  namespace: string;
  name: string;
  uid: string;
  saName: string;
  saUID: string;
}

/** A service account's queue key (`serviceAccountQueueKey`). */
interface ServiceAccountKey {
  namespace: string;
  name: string;
  uid: string;
}

function secretKeyOf(s: Secret): string {
  const k: SecretKey = {
    namespace: s.metadata?.namespace ?? '',
    name: s.metadata?.name ?? '',
    uid: s.metadata?.uid ?? '',
    saName: s.metadata?.annotations?.[serviceAccountNameKey] ?? '',
    saUID: s.metadata?.annotations?.[serviceAccountUIDKey] ?? '',
  };
  return JSON.stringify(k);
}

function serviceAccountKeyOf(sa: ServiceAccount): string {
  const k: ServiceAccountKey = { namespace: sa.metadata?.namespace ?? '', name: sa.metadata?.name ?? '', uid: sa.metadata?.uid ?? '' };
  return JSON.stringify(k);
}

/** `IsServiceAccountToken`: a token Secret naming this service account (and its UID, when it names one). */
export function isServiceAccountToken(secret: Secret, sa: ServiceAccount): boolean {
  if (secret.type !== secretTypeServiceAccountToken) return false;
  const name = secret.metadata?.annotations?.[serviceAccountNameKey] ?? '';
  const uid = secret.metadata?.annotations?.[serviceAccountUIDKey] ?? '';
  if (name !== (sa.metadata?.name ?? '')) return false;
  return uid === '' || uid === (sa.metadata?.uid ?? '');
}

function dataText(s: Secret, key: string): string {
  const v = s.data?.[key];
  return v === undefined ? '' : Buffer.from(v, 'base64').toString('utf8');
}

export class TokensController implements Controller {
  readonly name = names.ServiceAccountToken;
  private readonly generator: TokenGenerator | undefined;
  private readonly rootCA: string;
  private readonly serviceAccountQueue;
  private readonly secretQueue;
  private readonly serviceAccounts;
  private readonly secrets;

  constructor(
    private readonly ctx: ControllerContext,
    o: TokensControllerOptions = {},
  ) {
    this.generator = o.generator ?? (o.privateKeyPem !== undefined && o.privateKeyPem !== '' ? new JwtTokenGenerator(legacyIssuer, o.privateKeyPem) : undefined);
    this.rootCA = o.rootCAPem ?? '';
    this.serviceAccountQueue = ctx.newQueue();
    this.secretQueue = ctx.newQueue();
    this.serviceAccounts = ctx.informer<ServiceAccount>(resources.serviceaccounts);
    this.secrets = ctx.informer<Secret>(resources.secrets);
  }

  /** Whether the controller runs (it has a signing key). */
  get enabled(): boolean {
    return this.generator !== undefined;
  }

  start(): void {
    if (!this.enabled) return;
    const queueServiceAccount = (sa: ServiceAccount): void => this.serviceAccountQueue.add(serviceAccountKeyOf(sa));
    this.serviceAccounts.addHandlers({ onAdd: queueServiceAccount, onUpdate: (_, sa) => queueServiceAccount(sa), onDelete: queueServiceAccount });
    // Upstream's informer lists only token Secrets (field selector `type=kubernetes.io/service-account-token`).
    const queueSecret = (s: Secret): void => {
      if (s.type === secretTypeServiceAccountToken) this.secretQueue.add(secretKeyOf(s));
    };
    this.secrets.addHandlers({ onAdd: queueSecret, onUpdate: (_, s) => queueSecret(s), onDelete: queueSecret });
    void runWorkers(this.serviceAccountQueue, (k) => this.retrying(this.serviceAccountQueue, k, () => this.syncServiceAccount(JSON.parse(k) as ServiceAccountKey)));
    void runWorkers(this.secretQueue, (k) => this.retrying(this.secretQueue, k, () => this.syncSecret(JSON.parse(k) as SecretKey)));
  }

  stop(): void {
    this.serviceAccountQueue.shutDown();
    this.secretQueue.shutDown();
  }

  /** `retryOrForget`: a failed key is retried up to maxRetries times, then dropped. */
  private async retrying(queue: typeof this.secretQueue, key: string, sync: () => Promise<void>): Promise<void> {
    try {
      await sync();
    } catch (e) {
      if (queue.numRequeues(key) < maxRetries) throw e;
    }
  }

  /** A deleted service account's token Secrets are deleted. */
  async syncServiceAccount(k: ServiceAccountKey): Promise<void> {
    const sa = await this.getServiceAccount(k.namespace, k.name, k.uid, false);
    if (sa !== undefined) return;
    const gone: ServiceAccount = { metadata: { namespace: k.namespace, name: k.name, uid: k.uid } };
    const errors: unknown[] = [];
    for (const token of this.listTokenSecrets(gone)) {
      try {
        await this.deleteToken(token.metadata?.namespace ?? '', token.metadata?.name ?? '', token.metadata?.uid ?? '');
      } catch (e) {
        errors.push(e);
      }
    }
    if (errors.length > 0) throw errors[0];
  }

  async syncSecret(k: SecretKey): Promise<void> {
    const secret = this.getCachedSecret(k.namespace, k.name, k.uid);
    if (secret === undefined) {
      // The Secret is gone: the service account no longer lists it.
      const sa = await this.getServiceAccount(k.namespace, k.saName, k.saUID, false);
      if (sa !== undefined) await this.removeSecretReference(k.namespace, k.saName, k.saUID, k.name);
      return;
    }
    const sa = await this.getServiceAccount(k.namespace, k.saName, k.saUID, true);
    if (sa === undefined) {
      await this.deleteToken(k.namespace, k.name, k.uid);
      return;
    }
    await this.generateTokenIfNeeded(sa, secret);
  }

  /** `secretUpdateNeeded`: which of CA, namespace and token are missing (or, for the CA, stale). */
  private updateNeeded(s: Secret): { ca: boolean; namespace: boolean; token: boolean } {
    return {
      ca: this.rootCA !== '' && dataText(s, rootCAKey) !== this.rootCA,
      namespace: dataText(s, namespaceKey) === '',
      token: dataText(s, tokenKey) === '',
    };
  }

  /** `generateTokenIfNeeded`: fills the live Secret, if the cache's copy is current; never overwrites a token. */
  private async generateTokenIfNeeded(sa: ServiceAccount, cached: Secret): Promise<void> {
    const need = this.updateNeeded(cached);
    if (!need.ca && !need.namespace && !need.token) return;
    const namespace = cached.metadata?.namespace ?? '';
    let live: Secret;
    try {
      live = await this.ctx.client.get<Secret>(resources.secrets, cached.metadata?.name ?? '', { namespace });
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
    // Our view is stale: the update event that follows brings us back.
    if (live.metadata?.resourceVersion !== cached.metadata?.resourceVersion) return;
    const liveNeed = this.updateNeeded(live);
    if (!liveNeed.ca && !liveNeed.namespace && !liveNeed.token) return;
    const md = (live.metadata ??= {});
    const annotations = (md.annotations ??= {});
    const data = (live.data ??= {});
    if (liveNeed.ca) data[rootCAKey] = Buffer.from(this.rootCA).toString('base64');
    if (liveNeed.namespace) data[namespaceKey] = Buffer.from(md.namespace ?? '').toString('base64');
    if (liveNeed.token) {
      const generator = this.generator;
      if (generator === undefined) return;
      const c = legacyClaims(sa, live);
      data[tokenKey] = Buffer.from(generator.generateToken(c.public, c.private as unknown as Record<string, unknown>)).toString('base64');
    }
    annotations[serviceAccountNameKey] = sa.metadata?.name ?? '';
    annotations[serviceAccountUIDKey] = sa.metadata?.uid ?? '';
    try {
      await this.ctx.client.update(resources.secrets, live, { namespace });
    } catch (e) {
      // Someone else changed it; their update event brings us back.
      if (isConflict(e) || isNotFound(e)) return;
      throw e;
    }
  }

  /** `removeSecretReference`: drops the Secret from the live service account's `secrets`, retrying conflicts. */
  private async removeSecretReference(namespace: string, saName: string, saUID: string, secretName: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      let sa: ServiceAccount;
      try {
        sa = await this.ctx.client.get<ServiceAccount>(resources.serviceaccounts, saName, { namespace });
      } catch (e) {
        if (isNotFound(e)) return;
        throw e;
      }
      if (saUID !== '' && saUID !== sa.metadata?.uid) return;
      const secrets = sa.secrets ?? [];
      if (!secrets.some((r) => r.name === secretName)) return;
      sa.secrets = secrets.filter((r) => r.name !== secretName);
      try {
        await this.ctx.client.update(resources.serviceaccounts, sa, { namespace });
        return;
      } catch (e) {
        if (!isConflict(e) || attempt >= 4) throw e;
      }
    }
  }

  /** Deletes a token Secret (with a UID precondition when known); gone or replaced needs nothing more. */
  private async deleteToken(namespace: string, name: string, uid: string): Promise<void> {
    try {
      await this.ctx.client.delete(resources.secrets, name, { namespace, ...(uid !== '' ? { preconditions: { uid } } : {}) });
    } catch (e) {
      if (isNotFound(e) || isConflict(e)) return;
      throw e;
    }
  }

  private listTokenSecrets(sa: ServiceAccount): Secret[] {
    return this.secrets.byIndex(NamespaceIndex, sa.metadata?.namespace ?? '').filter((s) => isServiceAccountToken(s, sa));
  }

  private getCachedSecret(namespace: string, name: string, uid: string): Secret | undefined {
    const s = this.secrets.get(`${namespace}/${name}`);
    if (s === undefined || (uid !== '' && s.metadata?.uid !== uid)) return undefined;
    return s;
  }

  /** `getServiceAccount`: from the cache, else (when asked) live; undefined when missing or of another UID. */
  private async getServiceAccount(namespace: string, name: string, uid: string, fetchOnCacheMiss: boolean): Promise<ServiceAccount | undefined> {
    if (name === '') return undefined;
    const matches = (sa: ServiceAccount): ServiceAccount | undefined => (uid === '' || sa.metadata?.uid === uid ? sa : undefined);
    const cached = this.serviceAccounts.get(`${namespace}/${name}`);
    if (cached !== undefined) return matches(cached);
    if (!fetchOnCacheMiss) return undefined;
    try {
      return matches(await this.ctx.client.get<ServiceAccount>(resources.serviceaccounts, name, { namespace }));
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }
}

export function create(ctx: ControllerContext, o: TokensControllerOptions = {}): Controller {
  return new TokensController(ctx, o);
}
