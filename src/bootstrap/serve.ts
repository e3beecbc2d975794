/**
 * The first steps of every control plane kubemix runs (`kubemix up`'s LocalCluster and `kubemix init`'s
 * ControlPlane): open the storage, serve the API on it with the cluster's serving certificate, and write
 * the admin kubeconfig that points at it.
 */
import type { Backend } from '../storage/backend.js';
import { openBackend } from '../storage/index.js';
import { createApiServer, type CreateApiServerOptions } from '../apiserver/wiring.js';
import type { ApiServer } from '../apiserver/server.js';
import { writeKubeconfig } from '../client/kubeconfig.js';
import type { ClusterPki } from './pki.js';

export type StoreChoice = { kind: 'sqlite' } | { kind: 'etcd'; endpoints: string[] };

export interface ServeOptions {
  dataDir: string;
  /** Default: SQLite in `dataDir`. */
  store?: StoreChoice | undefined;
  pki: ClusterPki;
  /** Everything of the API server but its storage and serving certificate. */
  server: Omit<CreateApiServerOptions, 'backend' | 'tls'>;
  kubeconfig: { path: string; clusterName: string; contextName: string };
}

/** Opens the storage and starts the API server on it; closes the storage again if the server cannot start. */
export async function serveApi(o: ServeOptions): Promise<{ backend: Backend; server: ApiServer }> {
  const store = o.store ?? { kind: 'sqlite' };
  const backend = store.kind === 'sqlite' ? await openBackend({ kind: 'sqlite', dataDir: o.dataDir }) : await openBackend({ kind: 'etcd', endpoints: store.endpoints });
  const server = createApiServer({
    ...o.server,
    backend,
    tls: { caPem: o.pki.ca.certPem, certPem: o.pki.apiserver.certPem, keyPem: o.pki.apiserver.keyPem },
    // kubeadm's --service-account-signing-key-file=sa.key and --service-account-key-file=sa.pub.
    serviceAccount: { signingKeyPem: o.pki.sa.keyPem, publicKeyPems: [o.pki.sa.publicKeyPem] },
  });
  try {
    await server.start();
  } catch (e) {
    await server.stop().catch(() => undefined);
    await backend.close();
    throw e;
  }
  writeKubeconfig(o.kubeconfig.path, {
    server: server.url(),
    caPem: o.pki.ca.certPem,
    clientCertPem: o.pki.admin.certPem,
    clientKeyPem: o.pki.admin.keyPem,
    clusterName: o.kubeconfig.clusterName,
    userName: 'kubernetes-admin',
    contextName: o.kubeconfig.contextName,
  });
  return { backend, server };
}
