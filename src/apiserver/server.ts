/**
 * The API server: HTTPS on 127.0.0.1 (or a given address) over a storage `Backend`, with the watch
 * cache, registry, discovery, authentication and authorization wired together. `start()` serves;
 * `stop()` closes connections, watches and the cache (the backend belongs to the caller).
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Backend } from '../storage/backend.js';
import { CallLatency } from './call-latency.js';
import { FlowDispatcher } from './flow-control.js';
import { isAlreadyExists, isNotFound } from '../api/errors.js';
import { ResourceTable, type ResourceDef } from './discovery/resource-defs.js';
import { CacheDispatcher } from './storage/watch-cache.js';
import type { Store, RequestContext } from './registry/store.js';
import { ConvertingStore } from './registry/converting-store.js';
import { noPolicy, type ManagedFieldsUpdater, type ObjectPolicy, type StorageHooks, type UserInfo } from './registry/policy.js';
import { Authenticator, StaticTokenAuthenticator, type TokenAuthenticator } from './auth/authn.js';
import { AuthorizerChain, mastersAuthorizer, type Authorizer } from './auth/authz.js';
import { ApiHandler } from './handler.js';
import { Subresources, type EvictionPolicy } from './subresources.js';
import type { OpenApiProvider, Patcher, PodLogSource, TableConvertor } from './seams.js';
import type { RequestInfo } from './request.js';
import { CrdRegistrar } from './crd/crd-registrar.js';
import { customResourceTable } from './crd/crd-table.js';
import { withCustomResources } from './crd/crd-openapi.js';

export interface TlsMaterial {
  caPem: string;
  certPem: string;
  keyPem: string;
}

export interface ApiServerOptions {
  backend: Backend;
  tls: TlsMaterial;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  policy?: ObjectPolicy;
  managedFields?: ManagedFieldsUpdater;
  hooks?: (def: ResourceDef) => StorageHooks | undefined;
  tables?: TableConvertor;
  patcher?: Patcher;
  openapi?: OpenApiProvider;
  logs?: PodLogSource;
  eviction?: EvictionPolicy;
  /** Authorizers consulted after `system:masters` (Node, RBAC). */
  authorizers?: Authorizer[];
  /** Bearer tokens known from the start (token -> user). */
  staticTokens?: ReadonlyMap<string, UserInfo>;
  tokenAuthenticators?: TokenAuthenticator[];
  anonymousAllowed?: (info: RequestInfo) => boolean;
  /** The first IP of the service CIDR (the `kubernetes` Service). */
  kubernetesServiceIP?: string;
  /** Runs once the watch cache is up, before anything is served (allocators rebuild their state here). */
  prepare?: (server: ApiServer) => Promise<void>;
  now?: () => Date;
}

/** The identity server-internal writes use (bootstrap objects). */
export const systemUser: UserInfo = { username: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] };

export class ApiServer {
  readonly table = new ResourceTable();
  readonly dispatcher: CacheDispatcher;
  readonly store: Store;
  readonly subresources: Subresources;
  readonly authenticator: Authenticator;
  readonly authorizer: AuthorizerChain;
  readonly crds: CrdRegistrar;
  /** Latency of the components' and node host's calls, served over their channels (benchmarks observe it). */
  readonly callLatency = new CallLatency();
  /** API Priority and Fairness for the calls of those channels: one queue, so they are ordered together. */
  readonly flowControl = new FlowDispatcher();
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private address: AddressInfo | undefined;

  constructor(private readonly opts: ApiServerOptions) {
    this.dispatcher = new CacheDispatcher(opts.backend);
    this.store = new ConvertingStore({
      backend: opts.backend,
      dispatcher: this.dispatcher,
      policy: opts.policy ?? noPolicy,
      ...(opts.managedFields !== undefined ? { managedFields: opts.managedFields } : {}),
      ...(opts.hooks !== undefined ? { hooks: opts.hooks } : {}),
      ...(opts.now !== undefined ? { now: opts.now } : {}),
    }, this.table);
    this.authorizer = new AuthorizerChain([mastersAuthorizer, ...(opts.authorizers ?? [])]);
    this.authenticator = new Authenticator([
      ...(opts.staticTokens !== undefined ? [new StaticTokenAuthenticator(opts.staticTokens)] : []),
      ...(opts.tokenAuthenticators ?? []),
    ]);
    this.crds = new CrdRegistrar({ table: this.table, store: this.store, ...(opts.now !== undefined ? { now: opts.now } : {}) });
    this.subresources = new Subresources({
      table: this.table,
      store: this.store,
      authorizer: this.authorizer,
      ...(opts.patcher !== undefined ? { patcher: opts.patcher } : {}),
      ...(opts.logs !== undefined ? { logs: opts.logs } : {}),
      ...(opts.eviction !== undefined ? { eviction: opts.eviction } : {}),
      ...(opts.now !== undefined ? { now: opts.now } : {}),
    });
  }

  /** `https://host:port` once started. */
  url(): string {
    if (this.address === undefined) throw new Error('API server not started');
    const host = this.address.family === 'IPv6' ? `[${this.address.address}]` : this.address.address;
    return `https://${host}:${this.address.port}`;
  }

  port(): number {
    if (this.address === undefined) throw new Error('API server not started');
    return this.address.port;
  }

  async start(): Promise<void> {
    await this.dispatcher.start();
    await this.opts.prepare?.(this);
    await this.crds.start();
    const builtinTables = this.opts.tables;
    const tables: TableConvertor | undefined =
      builtinTables === undefined
        ? undefined
        : {
            toTable: (def, objects, o) =>
              def.custom
                ? customResourceTable(objects, this.crds.printerColumns.get(`${def.group}/${def.version}/${def.resource}`), o)
                : builtinTables.toTable(def, objects, o),
          };
    const handler = new ApiHandler({
      table: this.table,
      store: this.store,
      authenticator: this.authenticator,
      authorizer: this.authorizer,
      subresources: this.subresources,
      ...(tables !== undefined ? { tables } : {}),
      ...(this.opts.openapi !== undefined ? { openapi: withCustomResources(this.opts.openapi, this.crds) } : {}),
      ...(this.opts.anonymousAllowed !== undefined ? { anonymousAllowed: this.opts.anonymousAllowed } : {}),
      serverAddress: () => `${this.address?.address ?? '127.0.0.1'}:${this.address?.port ?? 0}`,
    });
    const server = createServer(
      {
        ca: this.opts.tls.caPem,
        cert: this.opts.tls.certPem,
        key: this.opts.tls.keyPem,
        requestCert: true,
        rejectUnauthorized: false,
        keepAliveTimeout: 120_000,
      },
      handler.handle,
    );
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    // A plain-HTTP request on the TLS port gets kube-apiserver's (Go's) answer rather than a hang.
    server.on('tlsClientError', (err: Error & { code?: string }, socket) => {
      if (err.code === 'ERR_SSL_HTTP_REQUEST' || /http request/i.test(err.message)) {
        socket.end('HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n');
      } else {
        socket.destroy();
      }
    });
    server.maxHeadersCount = 200;
    server.headersTimeout = 60_000;
    server.requestTimeout = 0;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port ?? 0, this.opts.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.address = server.address() as AddressInfo;
    await this.ensureBootstrapObjects();
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server !== undefined) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of this.sockets) s.destroy();
      await closed;
    }
    await this.crds.stop();
    await this.dispatcher.stop();
  }

  private systemContext(): RequestContext {
    return { user: systemUser, dryRun: false, fieldManager: 'kube-apiserver' };
  }

  /** The namespaces and priority classes every cluster has (kube-apiserver's bootstrap controllers). */
  private async ensureBootstrapObjects(): Promise<void> {
    const ns = this.table.get('', 'v1', 'namespaces');
    const pc = this.table.get('scheduling.k8s.io', 'v1', 'priorityclasses');
    const ctx = this.systemContext();
    const create = async (def: ResourceDef | undefined, namespace: string, obj: Record<string, unknown>): Promise<void> => {
      if (def === undefined) return;
      // Look first, as kube-apiserver's bootstrap controller does: a create would run allocations
      // (the `kubernetes` Service's cluster IP) before finding the object already there.
      const name = (obj['metadata'] as { name?: string } | undefined)?.name ?? '';
      try {
        await this.store.get(def, namespace, name);
        return;
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      try {
        await this.store.create(def, namespace, obj, ctx);
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
    };
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      await create(ns, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } }, spec: { finalizers: ['kubernetes'] } });
    }
    // The `kubernetes` Service and its endpoints (kube-apiserver's bootstrap controller).
    const port = this.port();
    await create(this.table.get('', 'v1', 'services'), 'default', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
      spec: { type: 'ClusterIP', clusterIP: this.opts.kubernetesServiceIP ?? '10.96.0.1', ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: port }], sessionAffinity: 'None' },
    });
    await create(this.table.get('', 'v1', 'endpoints'), 'default', {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'kubernetes', namespace: 'default', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
      subsets: [{ addresses: [{ ip: this.address?.address ?? '127.0.0.1' }], ports: [{ name: 'https', port, protocol: 'TCP' }] }],
    });
    await create(pc, '', {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: 'system-node-critical' },
      value: 2000001000,
      description: 'Used for system critical pods that must not be moved from their current node.',
      preemptionPolicy: 'PreemptLowerPriority',
    });
    await create(pc, '', {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: 'system-cluster-critical' },
      value: 2000000000,
      description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
      preemptionPolicy: 'PreemptLowerPriority',
    });
  }
}
