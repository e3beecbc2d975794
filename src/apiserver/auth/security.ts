/**
 * kube-apiserver's security as kubeadm configures it, installed on an `ApiServer`: `--authorization-mode=
 * Node,RBAC` behind the `system:masters` short-cut, bootstrap token authentication, impersonation, the
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

export interface SecurityOptions {
  /** `--anonymous-auth` (kubeadm: true). Default false: requests without credentials get 401. */
  anonymousAuth?: boolean;
  now?: () => Date;
}

/**
 * Adds the Node and RBAC authorizers, the bootstrap token authenticator and impersonation to the server.
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
