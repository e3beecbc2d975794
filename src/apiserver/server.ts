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
import { CrdAPIServiceRegistration } from './crd/crd-apiservices.js';
import { customResourceTable } from './crd/crd-table.js';
import { withCustomResources } from './crd/crd-openapi.js';
import { ensureBootstrapObjects } from './bootstrap-objects.js';
import { ComponentStatuses } from './component-statuses.js';

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
  /** The custom resources' APIServices (kube-apiserver's CRD registration with the autoregister controller). */
  readonly crdAPIServices: CrdAPIServiceRegistration;
  /** Latency of the components' and node host's calls, served over their channels (benchmarks observe it). */
  readonly callLatency = new CallLatency();
  /** `v1 ComponentStatus`: whoever runs the scheduler and controller-manager registers their probes here. */
  readonly componentStatuses = new ComponentStatuses();
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
    this.crdAPIServices = new CrdAPIServiceRegistration({ table: this.table, store: this.store, context: this.systemContext(), now: opts.now ?? ((): Date => new Date()) });
    this.subresources = new Subresources({
      table: this.table,
      store: this.store,
      authorizer: this.authorizer,
      tokens: this.authenticator,
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
      componentStatuses: this.componentStatuses,
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
    await ensureBootstrapObjects({
      table: this.table,
      store: this.store,
      context: this.systemContext(),
      address: this.address?.address ?? '127.0.0.1',
      port: this.port(),
      kubernetesServiceIP: this.opts.kubernetesServiceIP ?? '10.96.0.1',
      now: this.opts.now ?? ((): Date => new Date()),
    });
    // After the bootstrap, as kube-apiserver's post-start hook runs the autoregister controller.
    await this.crdAPIServices.start();
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server !== undefined) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of this.sockets) s.destroy();
      await closed;
    }
    await this.crdAPIServices.stop();
    await this.crds.stop();
    await this.dispatcher.stop();
  }

  private systemContext(): RequestContext {
    return { user: systemUser, dryRun: false, fieldManager: 'kube-apiserver' };
  }
}
