/**
 * kube-apiserver's security as kubeadm configures it, installed on an `ApiServer`: `--authorization-mode=
 * Node,RBAC` behind the `system:masters` short-cut, bootstrap token authentication, service account tokens
 * (issued by `serviceaccounts/token`, authenticated with the service account key), impersonation, the
 * default RBAC policy reconciled before serving, and optionally `--anonymous-auth=true`.
 */
import type { Secret } from 'kubernetes-types/core/v1.js';
import type { ApiServer } from '../server.js';
import { systemUser } from '../server.js';
import { objectKey } from '../registry/store.js';
import { isAlreadyExists } from '../../api/errors.js';
import { RbacAuthorizer } from './rbac/rbac.js';
import { reconcileBootstrapPolicy, storeRbacSource } from './rbac/store-source.js';
import { NodeAuthorizer } from './node/node-authorizer.js';
import { storeNodeGraphSource } from './node/store-source.js';
import { BootstrapTokenAuthenticator } from './bootstrap-token.js';
import { escalationCheck } from './rbac/escalation.js';
import type { AdmissionRequest } from '../registry/policy.js';
import {
  JwtTokenGenerator,
  ServiceAccountTokenAuthenticator,
  jwksPath,
  kubeadmServiceAccountIssuer,
  lastUsedLabelKey,
  newOpenIDMetadata,
  openIDConfigPath,
  storeTokenGetter,
  type OpenIDMetadata,
} from './serviceaccount/index.js';
import { TokenRequestRest } from '../token-request.js';

/** kube-apiserver's service account flags as kubeadm sets them. */
export interface ServiceAccountOptions {
  /** `--service-account-signing-key-file` (`sa.key`). */
  signingKeyPem: string;
  /** `--service-account-key-file` (`sa.pub`); default the signing key's public half. */
  publicKeyPems?: string[];
  /** `--service-account-issuer` (default kubeadm's `https://kubernetes.default.svc.cluster.local`). */
  issuers?: string[];
  /** `--api-audiences` (default the issuers). */
  apiAudiences?: string[];
  /** `--service-account-jwks-uri` (default `https://<the server's address>/openid/v1/jwks`). */
  jwksURI?: string;
}

export interface SecurityOptions {
  /** `--anonymous-auth` (kubeadm: true). Default false: requests without credentials get 401. */
  anonymousAuth?: boolean;
  /** Service account tokens; without them `serviceaccounts/token` is not served and no such token authenticates. */
  serviceAccount?: ServiceAccountOptions;
  now?: () => Date;
}

/** Wires service account token issuance (`serviceaccounts/token`) and authentication into the server. */
function installServiceAccountTokens(server: ApiServer, o: ServiceAccountOptions, now?: () => Date): void {
  const issuers = o.issuers ?? [kubeadmServiceAccountIssuer];
  // The first issuer signs; all of them are accepted.
  const issuer = issuers[0] ?? kubeadmServiceAccountIssuer;
  const apiAudiences = o.apiAudiences ?? issuers;
  const getter = storeTokenGetter(server);
  const authenticator = new ServiceAccountTokenAuthenticator({
    issuers,
    apiAudiences,
    publicKeyPems: o.publicKeyPems ?? [o.signingKeyPem],
    getter,
    // kube-apiserver's merge patch of the last-used label, written as the server itself.
    markLegacyTokenUsed: async (namespace, name, uid, date) => {
      const def = server.table.get('', 'v1', 'secrets');
      if (def === undefined) return;
      await server.store.updateInternal(def, namespace, name, (live) => {
        if (live.metadata?.uid !== uid) throw new Error(`secret ${namespace}/${name} was replaced`);
        const md = (live.metadata ??= {});
        md.labels = { ...(md.labels ?? {}), [lastUsedLabelKey]: date };
        return live;
      });
    },
    ...(now !== undefined ? { now } : {}),
  });
  server.authenticator.addTokenAuthenticator(authenticator);
  const tokenRequest = new TokenRequestRest({
    issuer: new JwtTokenGenerator(issuer, o.signingKeyPem),
    apiAudiences,
    get: async (resource, namespace, name) => {
      const def = server.table.get('', 'v1', resource);
      if (def === undefined) throw new Error(`no v1 ${resource}`);
      return server.store.get(def, namespace, name);
    },
    ...(now !== undefined ? { now } : {}),
  });
  // The documents depend on the serving address only; computed once per address.
  const metadata = new Map<string, OpenIDMetadata>();
  server.subresources.setServiceAccountTokens({
    tokenRequest,
    authenticator,
    issuerDiscovery: (path, externalAddress) => {
      if (path !== openIDConfigPath && path !== jwksPath) return undefined;
      let md = metadata.get(externalAddress);
      if (md === undefined) metadata.set(externalAddress, (md = newOpenIDMetadata(issuer, o.jwksURI ?? '', externalAddress, authenticator.keys)));
      if (!md.ok) return undefined;
      return path === openIDConfigPath ? md.config : md.jwks;
    },
  });
}

/**
 * Adds the Node and RBAC authorizers, the bootstrap token authenticator, service account tokens (when
 * given a key) and impersonation to the server.
 * Call before `start()`; run the returned `prepare` from the server's `prepare` hook (it reconciles the
 * default policy once the watch cache is up, before anything is served) and `checkEscalation` before
 * admission of every write (RBAC's escalation prevention).
 */
export function installSecurity(
  server: ApiServer,
  opts: SecurityOptions = {},
): { prepare: () => Promise<void>; checkEscalation: (req: AdmissionRequest) => Promise<void> } {
  const rbacSource = storeRbacSource(server);
  const rbac = new RbacAuthorizer(rbacSource);
  server.authorizer.add(new NodeAuthorizer(storeNodeGraphSource(server)));
  server.authorizer.add(rbac);
  server.authenticator.addTokenAuthenticator(
    new BootstrapTokenAuthenticator({
      getSecret: async (name) => {
        const def = server.table.get('', 'v1', 'secrets');
        if (def === undefined) return undefined;
        const cache = await server.store.cache(def);
        return cache.get(objectKey(def, 'kube-system', name))?.obj as Secret | undefined;
      },
      ...(opts.now !== undefined ? { now: opts.now } : {}),
    }),
  );
  if (opts.serviceAccount !== undefined) installServiceAccountTokens(server, opts.serviceAccount, opts.now);
  server.authenticator.setImpersonationAuthorizer(server.authorizer);
  server.authenticator.setAnonymousAuth(opts.anonymousAuth ?? false);
  return {
    checkEscalation: escalationCheck({ authorizer: server.authorizer, resolver: rbac, source: rbacSource }),
    prepare: async () => {
      const ns = server.table.get('', 'v1', 'namespaces');
      if (ns !== undefined) {
        for (const name of ['kube-system', 'kube-public']) {
          try {
            await server.store.create(ns, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } }, spec: { finalizers: ['kubernetes'] } }, { user: systemUser, dryRun: false, fieldManager: 'kube-apiserver' });
          } catch (e) {
            if (!isAlreadyExists(e)) throw e;
          }
        }
      }
      await reconcileBootstrapPolicy(server);
    },
  };
}
