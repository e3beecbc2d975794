/**
 * A whole cluster in one process (`kubemix up`): the API server over SQLite or etcd, the controller
 * manager, the scheduler and every node of a cluster config as simulated nodes sharing one pod watch,
 * with the kube-system add-ons (kube-proxy, flannel, CoreDNS) installed so nodes become Ready by
 * themselves. Components talk to the API server through in-process clients only.
 */
import { mkdir } from 'node:fs/promises';
import type { Backend } from '../storage/backend.js';
import { serveApi, type StoreChoice } from '../bootstrap/serve.js';
import { ensurePki } from '../bootstrap/pki.js';
import type { ApiServer } from '../apiserver/server.js';
import { InProcessClient } from '../apiserver/in-process-client.js';
import type { UserInfo } from '../apiserver/registry/policy.js';
import { isAlreadyExists, isConflict, isNotFound } from '../api/errors.js';
import { resources } from '../api/resources.js';
import type { ConfigMap, Pod } from 'kubernetes-types/core/v1.js';
import { createInformer, type Informer } from '../client/index.js';
import type { Client, KubeObject } from '../client/client.js';
import type { ClusterSpec, NodeSpec } from '../cluster/index.js';
import {
  clusterStateConfigMap,
  clusterStateName,
  clusterStateNamespace,
  decodeClusterState,
  nodesOfState,
  stateFromSpec,
  type ClusterState,
} from './cluster-state.js';
import { drainNode } from './drain.js';
import { controlPlaneComponents, type ComponentsWorker } from '../components/components.js';
import { NodePortProxy, kubeSystemAddons } from '../node/index.js';
import { NodeHostThread } from '../components/node-host-thread.js';
import type { ResourceType } from '../api/resources.js';

export interface LocalClusterOptions {
  spec: ClusterSpec;
  dataDir: string;
  /** 0 picks a free port. */
  port: number;
  host?: string;
  store?: StoreChoice;
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
  /** Called as nodes register: (registered, total), at start and when node groups grow. */
  onProgress?: (registered: number, total: number) => void;
  /** Called when the node groups change on a running cluster (`kubemix nodes add|remove`). */
  onNodesChanged?: (change: { added: string[]; removed: string[] }) => void;
  /** Drain timing for removed nodes (tests shorten it). */
  drainRetryMs?: number;
  log?: (message: string) => void;
}

export { componentUser } from '../components/components.js';

/**
 * The identity of a NodeHost hosting many nodes on one client. The Node authorizer only knows single
 * nodes (`system:node:<name>`), so a shared host acts in system:masters; `kubemix join` runs each node
 * with its own certificate instead.
 */
export function nodeHostUser(): UserInfo {
  return { username: 'system:node-host', groups: ['system:nodes', 'system:masters', 'system:authenticated'] };
}

/**
 * The node host as API Priority and Fairness sees it: the kubelets it stands for (group system:nodes),
 * so their heartbeats match `system-node-high` and the rest `system-nodes`, as on a real server.
 */
export function nodeHostFlowUser(): UserInfo {
  return { username: 'system:node-host', groups: ['system:nodes', 'system:authenticated'] };
}

export class LocalCluster {
  private backend: Backend | undefined;
  private server: ApiServer | undefined;
  private components: ComponentsWorker | undefined;
  private nodeHost: NodeHostThread | undefined;
  private proxy: NodePortProxy | undefined;
  private stateInformer: Informer<ConfigMap> | undefined;
  private state: ClusterState;
  private hosted = new Map<string, NodeSpec>();
  private reconciling: Promise<void> = Promise.resolve();
  private stopped = false;
  /** Whether start() found the cluster's state in the store (a resumed cluster). */
  resumed = false;

  constructor(private readonly o: LocalClusterOptions) {
    this.state = stateFromSpec(o.spec);
  }

  /** The cluster's nodes as its stored node groups say (after start: as resumed). */
  get nodes(): NodeSpec[] {
    return nodesOfState(this.state);
  }

  /** The cluster spec in effect (after start: the stored one on a resumed cluster). */
  get spec(): ClusterSpec {
    return this.state.spec;
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
    const { backend, server } = await serveApi({
      dataDir: this.o.dataDir,
      store: this.o.store,
      pki,
      server: {
        port: this.o.port,
        host: this.o.host ?? '127.0.0.1',
        logs: { logs: async (ns, pod, container, opts) => this.nodeHost?.logs(ns, pod, container, opts) },
      },
      kubeconfig: { path: this.kubeconfigPath, clusterName: this.o.spec.name, contextName: 'kubemix' },
    });
    this.backend = backend;
    this.server = server;
    await this.loadState(this.adminClient());
    const nodes = this.nodes;
    for (const n of nodes) this.hosted.set(n.name, n);
    // The simulated nodes run in their own thread, as kubelets run on their own machines. The thread loads
    // and builds its nodes while the control plane starts; they register once the control plane runs.
    const nodeHost = (this.nodeHost = new NodeHostThread(
      nodeHostUser(),
      {
        nodes: nodes.map((n) => this.simulated(n)),
        watchAllNodes: true,
        ...(this.o.leaseRenewIntervalMs !== undefined ? { leaseRenewIntervalMs: this.o.leaseRenewIntervalMs } : {}),
        ...(this.o.nodeStatusUpdateFrequencyMs !== undefined ? { nodeStatusUpdateFrequencyMs: this.o.nodeStatusUpdateFrequencyMs } : {}),
      },
      // The kubelet's writes are recorded in managedFields as `kubelet` (its user agent's name upstream, and
      // `kubemix join`'s), not by the host's user name.
      (user) => new InProcessClient(server, { user, inputsOwned: true, fieldManager: 'kubelet' }),
      { latency: server.callLatency, flowControl: server.flowControl, flowUser: nodeHostFlowUser() },
      ...(this.o.log !== undefined ? [this.o.log] : []),
    ));
    nodeHost.spawn();
    // The controller manager and the scheduler run in their own thread, on the machine's other core.
    this.components = controlPlaneComponents({
      server,
      pki,
      nodeMonitorGracePeriodMs: this.o.nodeMonitorGracePeriodMs,
      nodeStartupGracePeriodMs: this.o.nodeStartupGracePeriodMs,
    });
    await this.components.start();
    if (this.o.addons !== false) await this.installAddons(this.adminClient());
    await nodeHost.start(this.o.onProgress);
    // The host runs every node's kube-proxy, so it acts with the node host's identity.
    this.proxy = new NodePortProxy({ client: new InProcessClient(server, { user: nodeHostUser() }), nodes: this.nodeHost });
    await this.proxy.start();
    this.watchState();
  }

  private simulated(n: NodeSpec): NodeSpec & { pullBandwidthBytesPerSecond?: number } {
    return this.o.pullBandwidthBytesPerSecond === undefined ? n : { ...n, pullBandwidthBytesPerSecond: this.o.pullBandwidthBytesPerSecond };
  }

  /** Reads the stored node groups (a resumed cluster) or stores the config's (a new one). */
  private async loadState(client: Client): Promise<void> {
    try {
      const cm = await client.get<ConfigMap>(resources.configmaps, clusterStateName, { namespace: clusterStateNamespace });
      this.state = decodeClusterState(cm);
      this.resumed = true;
    } catch (e) {
      if (!isNotFound(e)) throw e;
      try {
        await client.create(resources.configmaps, clusterStateConfigMap(this.state), { namespace: clusterStateNamespace });
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        await this.loadState(client);
      }
    }
  }

  /** Reconciles the hosted nodes whenever `kube-system/kubemix-cluster` changes. */
  private watchState(): void {
    const inf = (this.stateInformer = createInformer<ConfigMap>(this.adminClient(), resources.configmaps, {
      namespace: clusterStateNamespace,
      fieldSelector: `metadata.name=${clusterStateName}`,
      ...(this.o.log !== undefined ? { log: this.o.log } : {}),
    }));
    const changed = (cm: ConfigMap): void => {
      let state: ClusterState;
      try {
        state = decodeClusterState(cm);
      } catch (e) {
        this.o.log?.(`ignoring ${clusterStateNamespace}/${clusterStateName}: ${(e as Error).message}`);
        return;
      }
      this.reconciling = this.reconciling.then(() => this.reconcile(state)).catch((e: unknown) => this.o.log?.(`reconciling node groups failed: ${String(e)}`));
    };
    inf.addHandlers({ onAdd: changed, onUpdate: (_o, cm) => changed(cm) });
    inf.start();
  }

  /** Waits for node-group changes in progress (tests). */
  async settled(): Promise<void> {
    await this.reconciling;
  }

  /**
   * Brings the hosted nodes to the state: new nodes register (with progress); removed ones are drained
   * through the API (cordon, evictions), stop being hosted, and their Node and Lease are deleted, then the
   * pods still bound to them (DaemonSet pods), as the pod GC's orphan sweep does.
   */
  private async reconcile(state: ClusterState): Promise<void> {
    const host = this.nodeHost;
    if (host === undefined || this.stopped) return;
    this.state = state;
    const want = new Map(nodesOfState(state).map((n) => [n.name, n]));
    const added = [...want.values()].filter((n) => !this.hosted.has(n.name));
    const removed = [...this.hosted.keys()].filter((name) => !want.has(name));
    if (added.length === 0 && removed.length === 0) return;
    const admin = this.adminClient();
    for (const n of added) this.hosted.set(n.name, n);
    if (added.length > 0) await host.addNodes(added.map((n) => this.simulated(n)), this.o.onProgress);
    await Promise.all(
      removed.map(async (name) => {
        await drainNode(admin, name, {
          cancelled: () => this.stopped,
          ...(this.o.drainRetryMs !== undefined ? { retryMs: this.o.drainRetryMs, pollMs: Math.min(this.o.drainRetryMs, 1_000) } : {}),
          ...(this.o.log !== undefined ? { log: this.o.log } : {}),
        });
        if (this.stopped) return;
        await host.removeNodes([name]);
        this.hosted.delete(name);
        await deleteIgnoringNotFound(() => admin.delete(resources.nodes, name));
        await deleteIgnoringNotFound(() => admin.delete(resources.leases, name, { namespace: 'kube-node-lease' }));
        const left = await admin.list<Pod>(resources.pods, { fieldSelector: `spec.nodeName=${name}` });
        for (const p of left.items) {
          const namespace = p.metadata?.namespace ?? 'default';
          await deleteIgnoringNotFound(() => admin.delete(resources.pods, p.metadata?.name ?? '', { namespace, gracePeriodSeconds: 0 }));
        }
      }),
    );
    if (!this.stopped) this.o.onNodesChanged?.({ added: added.map((n) => n.name), removed });
  }

  /** The add-ons, created unless they exist (a resumed cluster keeps the user's changes). */
  private async installAddons(client: Client): Promise<void> {
    await ensureObjects(this.apiServer(), client, kubeSystemAddons());
  }

  /** Stops every component, in reverse order, then the server and the store. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stateInformer?.stop();
    this.stateInformer = undefined;
    await this.proxy?.stop();
    this.proxy = undefined;
    await this.nodeHost?.shutdown();
    // A node-group change in progress ends at its next step (registration and drains stop with the host).
    await this.reconciling;
    this.nodeHost = undefined;
    await this.components?.stop();
    this.components = undefined;
    await this.server?.stop();
    this.server = undefined;
    await this.backend?.close();
    this.backend = undefined;
  }
}

/**
 * Creates each object unless it exists (the addon manager's EnsureExists mode). It looks first: creating a
 * Service that exists would fail on its cluster IP before the already-exists check.
 */
export async function ensureObjects(server: ApiServer, client: Client, objs: readonly KubeObject[]): Promise<void> {
  for (const obj of objs) {
    const res = resourceOf(server, obj);
    const namespace = obj.metadata?.namespace;
    try {
      await client.get(res, obj.metadata?.name ?? '', namespace !== undefined ? { namespace } : {});
      continue;
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    try {
      await client.create(res, obj);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
  }
}

/** The served resource of an object's apiVersion and kind. */
export function resourceOf(server: ApiServer, obj: KubeObject): ResourceType {
  const [group, version] = (obj.apiVersion ?? '').includes('/') ? (obj.apiVersion ?? '').split('/') : ['', obj.apiVersion ?? ''];
  const def = server.table.all().find((d) => d.group === (group ?? '') && d.version === (version ?? '') && d.kind === obj.kind);
  if (def === undefined) throw new Error(`no served resource for ${obj.apiVersion ?? ''} ${obj.kind ?? ''}`);
  return def;
}

async function deleteIgnoringNotFound(fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    if (!isNotFound(e) && !isConflict(e)) throw e;
  }
}
