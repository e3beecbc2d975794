/**
 * A whole cluster in one process (`kubemix up`): the API server over SQLite or etcd, the controller
 * manager, the scheduler and every node of a cluster config as simulated nodes sharing one pod watch,
 * with the kube-system add-ons (kube-proxy, flannel, CoreDNS) installed so nodes become Ready by
 * themselves. Components talk to the API server through in-process clients only.
 */
import { mkdir } from 'node:fs/promises';
import type { Backend } from '../storage/backend.js';
import { openBackend } from '../storage/index.js';
import { ensurePki } from '../bootstrap/pki.js';
import { createApiServer } from '../apiserver/wiring.js';
import type { ApiServer } from '../apiserver/server.js';
import { InProcessClient } from '../apiserver/in-process-client.js';
import type { UserInfo } from '../apiserver/registry/policy.js';
import { isAlreadyExists } from '../api/errors.js';
import type { Client, KubeObject } from '../client/client.js';
import { writeKubeconfig } from '../client/kubeconfig.js';
import { expandCluster, type ClusterSpec, type NodeSpec } from '../cluster/index.js';
import { ControllerManager } from '../controllers/manager.js';
import { Scheduler } from '../scheduler/scheduler.js';
import { NodeHost, NodePortProxy, kubeSystemAddons } from '../node/index.js';
import type { ResourceType } from '../api/resources.js';

export interface LocalClusterOptions {
  spec: ClusterSpec;
  dataDir: string;
  /** 0 picks a free port. */
  port: number;
  host?: string;
  store?: { kind: 'sqlite' } | { kind: 'etcd'; endpoints: string[] };
  /** Where to write the admin kubeconfig (default `<dataDir>/admin.conf`). */
  kubeconfigPath?: string;
  /** Install kube-proxy, flannel and CoreDNS (default true). Without them nodes stay NotReady, as after `kubeadm init`. */
  addons?: boolean;
  /** Node lifecycle grace periods etc. (tests shorten them). */
  nodeMonitorGracePeriodMs?: number;
  nodeStartupGracePeriodMs?: number;
  leaseRenewIntervalMs?: number;
  nodeStatusUpdateFrequencyMs?: number;
  /** Simulated registry bandwidth per node, bytes/s (default: the node agent's 200 MB/s). Tests raise it. */
  pullBandwidthBytesPerSecond?: number;
  /** Called as nodes register: (registered, total). */
  onProgress?: (registered: number, total: number) => void;
  log?: (message: string) => void;
}

/** The identity a component's in-process client carries (authorized by RBAC's default roles). */
export function componentUser(username: string, groups: string[]): UserInfo {
  return { username, groups: [...groups, 'system:authenticated'] };
}

/**
 * The identity of a NodeHost hosting many nodes on one client. The Node authorizer only knows single
 * nodes (`system:node:<name>`), so a shared host acts in system:masters; `kubemix join` runs each node
 * with its own certificate instead.
 */
export function nodeHostUser(): UserInfo {
  return { username: 'system:node-host', groups: ['system:nodes', 'system:masters', 'system:authenticated'] };
}

export class LocalCluster {
  private backend: Backend | undefined;
  private server: ApiServer | undefined;
  private scheduler: Scheduler | undefined;
  private controllers: ControllerManager | undefined;
  private nodeHost: NodeHost | undefined;
  private proxy: NodePortProxy | undefined;
  readonly nodes: NodeSpec[];

  constructor(private readonly o: LocalClusterOptions) {
    this.nodes = expandCluster(o.spec);
  }

  get kubeconfigPath(): string {
    return this.o.kubeconfigPath ?? `${this.o.dataDir}/admin.conf`;
  }

  url(): string {
    if (this.server === undefined) throw new Error('cluster not started');
    return this.server.url();
  }

  apiServer(): ApiServer {
    if (this.server === undefined) throw new Error('cluster not started');
    return this.server;
  }

  /** An in-process client acting as the cluster admin. */
  adminClient(): Client {
    return new InProcessClient(this.apiServer(), { user: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] } });
  }

  async start(): Promise<void> {
    await mkdir(this.o.dataDir, { recursive: true, mode: 0o700 });
    const pki = await ensurePki(this.o.dataDir);
    const store = this.o.store ?? { kind: 'sqlite' as const };
    this.backend = store.kind === 'sqlite' ? await openBackend({ kind: 'sqlite', dataDir: this.o.dataDir }) : await openBackend({ kind: 'etcd', endpoints: store.endpoints });
    const server = (this.server = createApiServer({
      backend: this.backend,
      tls: { caPem: pki.ca.certPem, certPem: pki.apiserver.certPem, keyPem: pki.apiserver.keyPem },
      port: this.o.port,
      host: this.o.host ?? '127.0.0.1',
      logs: { logs: async (ns, pod, container, opts) => this.nodeHost?.logs(ns, pod, container, opts) },
    }));
    await server.start();
    writeKubeconfig(this.kubeconfigPath, {
      server: server.url(),
      caPem: pki.ca.certPem,
      clientCertPem: pki.admin.certPem,
      clientKeyPem: pki.admin.keyPem,
      clusterName: this.o.spec.name,
      userName: 'kubernetes-admin',
      contextName: 'kubemix',
    });
    const client = (username: string, groups: string[]): Client => new InProcessClient(server, { user: componentUser(username, groups) });
    this.controllers = new ControllerManager({
      client: client('system:kube-controller-manager', []),
      leaderElect: false,
      rootCAPem: pki.ca.certPem,
      ...(this.o.nodeMonitorGracePeriodMs !== undefined ? { nodeMonitorGracePeriodMs: this.o.nodeMonitorGracePeriodMs } : {}),
      ...(this.o.nodeStartupGracePeriodMs !== undefined ? { nodeStartupGracePeriodMs: this.o.nodeStartupGracePeriodMs } : {}),
    });
    this.controllers.start();
    this.scheduler = new Scheduler({ client: client('system:kube-scheduler', []) });
    this.scheduler.start();
    if (this.o.addons !== false) await this.installAddons(this.adminClient());
    this.nodeHost = new NodeHost({
      client: new InProcessClient(server, { user: nodeHostUser() }),
      nodes:
        this.o.pullBandwidthBytesPerSecond === undefined
          ? this.nodes
          : this.nodes.map((n) => ({ ...n, pullBandwidthBytesPerSecond: this.o.pullBandwidthBytesPerSecond })),
      ...(this.o.leaseRenewIntervalMs !== undefined ? { leaseRenewIntervalMs: this.o.leaseRenewIntervalMs } : {}),
      ...(this.o.nodeStatusUpdateFrequencyMs !== undefined ? { nodeStatusUpdateFrequencyMs: this.o.nodeStatusUpdateFrequencyMs } : {}),
      ...(this.o.onProgress !== undefined ? { onRegistered: this.o.onProgress } : {}),
    });
    await this.nodeHost.start();
    this.proxy = new NodePortProxy({ client: client('system:kube-proxy', []), nodes: this.nodeHost });
    await this.proxy.start();
  }

  /** Creates each add-on object unless it exists (a resumed cluster keeps the user's changes). */
  private async installAddons(client: Client): Promise<void> {
    const server = this.apiServer();
    for (const obj of kubeSystemAddons()) {
      const res = resourceOf(server, obj);
      try {
        await client.create(res, obj);
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
    }
  }

  /** Stops every component, in reverse order, then the server and the store. Idempotent. */
  async stop(): Promise<void> {
    await this.proxy?.stop();
    this.proxy = undefined;
    await this.nodeHost?.shutdown();
    this.nodeHost = undefined;
    await this.scheduler?.stop();
    this.scheduler = undefined;
    await this.controllers?.stop();
    this.controllers = undefined;
    await this.server?.stop();
    this.server = undefined;
    await this.backend?.close();
    this.backend = undefined;
  }
}

/** The served resource of an object's apiVersion and kind. */
export function resourceOf(server: ApiServer, obj: KubeObject): ResourceType {
  const [group, version] = (obj.apiVersion ?? '').includes('/') ? (obj.apiVersion ?? '').split('/') : ['', obj.apiVersion ?? ''];
  const def = server.table.all().find((d) => d.group === (group ?? '') && d.version === (version ?? '') && d.kind === obj.kind);
  if (def === undefined) throw new Error(`no served resource for ${obj.apiVersion ?? ''} ${obj.kind ?? ''}`);
  return def;
}
