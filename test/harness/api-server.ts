/**
 * Starts a real API server for tests: SQLite in a temporary data dir, the cluster PKI, HTTPS on a free
 * port of 127.0.0.1, and an admin kubeconfig. `stop()` stops everything and removes the directory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBackend } from '../../src/storage/index.js';
import type { Backend } from '../../src/storage/backend.js';
import { ensurePki, type ClusterPki } from '../../src/bootstrap/pki.js';
import { createApiServer, type CreateApiServerOptions } from '../../src/apiserver/wiring.js';
import type { ApiServer } from '../../src/apiserver/server.js';
import { InProcessClient } from '../../src/apiserver/in-process-client.js';
import { HttpClient } from '../../src/client/http-client.js';
import { writeKubeconfig } from '../../src/client/kubeconfig.js';
import type { Client } from '../../src/client/client.js';

export interface TestApiServer {
  server: ApiServer;
  backend: Backend;
  dataDir: string;
  pki: ClusterPki;
  kubeconfig: string;
  url: string;
  /** An in-process client acting as cluster admin. */
  inProcess(): Client;
  /** An HTTPS client with the admin certificate. */
  http(): HttpClient;
  stop(): Promise<void>;
}

export async function startTestApiServer(extra: Partial<CreateApiServerOptions> = {}): Promise<TestApiServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'kubemix-test-'));
  const pki = await ensurePki(dataDir);
  const backend = await openBackend({ kind: 'sqlite', dataDir, compaction: false });
  const server = createApiServer({
    backend,
    tls: { caPem: pki.ca.certPem, certPem: pki.apiserver.certPem, keyPem: pki.apiserver.keyPem },
    port: 0,
    ...extra,
  });
  await server.start();
  const url = server.url();
  const kubeconfig = join(dataDir, 'admin.conf');
  writeKubeconfig(kubeconfig, {
    server: url,
    caPem: pki.ca.certPem,
    clientCertPem: pki.admin.certPem,
    clientKeyPem: pki.admin.keyPem,
    clusterName: 'kubemix',
    userName: 'kubernetes-admin',
    contextName: 'kubemix',
  });
  const clients: HttpClient[] = [];
  return {
    server,
    backend,
    dataDir,
    pki,
    kubeconfig,
    url,
    inProcess: () => new InProcessClient(server, { user: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] } }),
    http: () => {
      const c = new HttpClient({ server: url, ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
      clients.push(c);
      return c;
    },
    stop: async () => {
      for (const c of clients) c.close();
      await server.stop();
      await backend.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
