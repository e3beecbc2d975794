/**
 * The HTTP layer of the API server: authentication, authorization, routing by request info, content
 * negotiation (JSON, Table, PartialObjectMetadata, aggregated discovery), the REST verbs over the
 * registry, watch streaming and the pod/workload subresources. Errors are always `metav1.Status`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { ApiError, apiErrors, isApiError } from '../api/errors.js';
import { parseSelector, SelectorParseError, type Selector } from '../api/labels.js';
import { parseFieldSelector, FieldSelectorParseError, type FieldSelector } from '../api/fields.js';
import { apiVersionOf } from '../api/resources.js';
import { forbiddenMessage, type AuthorizationAttributes, type Authorizer } from './auth/authz.js';
import { anonymousUser, type Authenticator } from './auth/authn.js';
import { parseRequestInfo, type RequestInfo } from './request.js';
import type { ResourceDef, ResourceTable } from './discovery/resource-defs.js';
import { aggregatedDiscovery, apiGroup, apiGroupList, apiResourceList, apiVersions } from './discovery/discovery.js';
import type { RequestContext, Store, DeleteRequest } from './registry/store.js';
import { cachedJson, type CachedObject, type CacheEventType, type StoredObject } from './storage/watch-cache.js';
import type { UserInfo } from './registry/policy.js';
import type { Subresources } from './subresources.js';
import { componentStatusDeprecation, isComponentStatuses, type ComponentStatuses } from './component-statuses.js';
import type { OpenApiProvider, TableConvertor } from './seams.js';
import { versionInfo } from './version.js';
import { isProtobufContentType, parseProtobufBody } from './protobuf/index.js';
import { parseFieldValidation } from './field-validation.js';
import { internalMetadata } from './registry/strategy.js';
import { warningHeaders } from './warnings.js';

export interface HandlerOptions {
  table: ResourceTable;
  store: Store;
  authenticator: Authenticator;
  authorizer: Authorizer;
  subresources: Subresources;
  componentStatuses: ComponentStatuses;
  tables?: TableConvertor;
  openapi?: OpenApiProvider;
  /** `host:port` clients should use (for `/api` serverAddressByClientCIDRs). */
  serverAddress: () => string;
  /** Anonymous requests allowed before authorization (kubeadm: cluster-info in kube-public). */
  anonymousAllowed?: (info: RequestInfo) => boolean;
  /** Called when a watch starts/stops (tests, metrics). */
  now?: () => number;
}

const maxBodyBytes = 3 * 1024 * 1024;

type Accept = { table: boolean; partial: boolean; aggregated: boolean; yaml: boolean };

function negotiate(accept: string | undefined): Accept {
  const a = accept ?? '';
  const parts = a.split(',').map((s) => s.trim());
  const first = parts[0] ?? '';
  return {
    table: parts.some((p) => p.includes('as=Table')),
    partial: first.includes('as=PartialObjectMetadata'),
    aggregated: parts.some((p) => p.includes('as=APIGroupDiscoveryList')),
    yaml: first.startsWith('application/yaml'),
  };
}

function sendJson(res: ServerResponse, code: number, body: unknown, contentType = 'application/json'): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-cache, private',
  });
  res.end(text);
}

export function sendError(res: ServerResponse, err: unknown): void {
  const e = isApiError(err) ? err : apiErrors.internal(err instanceof Error ? err.message : String(err));
  if (!isApiError(err)) console.error('apiserver: internal error:', err);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const headers: Record<string, string> = {};
  if (e.details?.retryAfterSeconds !== undefined) headers['Retry-After'] = String(e.details.retryAfterSeconds);
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  sendJson(res, e.code, e.toStatus());
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > maxBodyBytes) throw apiErrors.requestEntityTooLarge(`limit is ${maxBodyBytes}`);
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

function parseBody(body: Buffer, contentType: string, kind: string, custom = false): unknown {
  const ct = contentType.split(';')[0]?.trim() ?? '';
  if (isProtobufContentType(ct)) {
    // Custom resources have no protobuf form (kube-apiserver answers 415 for them).
    if (custom) throw apiErrors.unsupportedMediaType(ct);
    return parseProtobufBody(body, { kind });
  }
  const text = body.toString('utf8');
  if (ct === 'application/yaml' || ct === 'application/apply-patch+yaml') {
    try {
      return parseYaml(text) as unknown;
    } catch (e) {
      throw apiErrors.badRequest(`error converting YAML to JSON: ${(e as Error).message}`);
    }
  }
  if (ct !== '' && !ct.startsWith('application/json') && !ct.endsWith('+json')) {
    throw apiErrors.unsupportedMediaType(ct);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw apiErrors.badRequest(
      `the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${(e as Error).message}`,
    );
  }
}

function asObject(v: unknown, kind: string): StoredObject {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw apiErrors.badRequest(`the object provided is unrecognized (must be of type ${kind})`);
  }
  return v as StoredObject;
}

function selectors(q: URLSearchParams): { labelSelector: Selector; fieldSelector: FieldSelector } {
  try {
    return { labelSelector: parseSelector(q.get('labelSelector') ?? ''), fieldSelector: parseFieldSelector(q.get('fieldSelector') ?? '') };
  } catch (e) {
    if (e instanceof SelectorParseError || e instanceof FieldSelectorParseError) throw apiErrors.badRequest(e.message);
    throw e;
  }
}

function boolParam(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  return v === 'true' || v === '1';
}

function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n)) throw apiErrors.badRequest(`invalid ${name}: ${v}`);
  return n;
}

export class ApiHandler {
  constructor(private readonly o: HandlerOptions) {}

  /** The request listener for node:https. Never throws. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    this.serve(req, res).catch((e: unknown) => sendError(res, e));
  };

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://localhost');
    const method = (req.method ?? 'GET').toUpperCase();
    const info = parseRequestInfo(method, url.pathname, url.searchParams);
    const authn = await this.o.authenticator.authenticate(req);
    if (authn.kind === 'failed') throw apiErrors.unauthorized();
    const user = authn.kind === 'user' ? authn.user : anonymousUser;
    if (authn.kind === 'anonymous') {
      if (isHealthPath(url.pathname) || url.pathname === '/version') {
        // kube-apiserver's system:public-info-viewer lets anyone read these.
      } else if (!(this.o.anonymousAllowed?.(info) ?? false)) {
        throw apiErrors.unauthorized();
      }
    } else {
      await this.authorize(user, info);
    }
    if (!info.isResourceRequest) {
      this.serveNonResource(req, res, url, info);
      return;
    }
    await this.serveResource(req, res, url, info, user);
  }

  private async authorize(user: UserInfo, info: RequestInfo): Promise<void> {
    const attrs: AuthorizationAttributes = {
      user,
      verb: info.isResourceRequest ? info.verb : (info.verb === 'head' ? 'get' : info.verb),
      resourceRequest: info.isResourceRequest,
      group: info.group,
      version: info.version,
      resource: info.resource,
      subresource: info.subresource,
      namespace: info.namespace,
      name: info.name,
      path: info.path,
    };
    // system:public-info-viewer (health, version) is bound to everyone; system:discovery (discovery,
    // OpenAPI) only to system:authenticated, so anonymous users get 403 there, as from kube-apiserver.
    if (!info.isResourceRequest && (isHealthPath(info.path) || info.path === '/version')) return;
    if (!info.isResourceRequest && isPublicPath(info.path) && user.groups.includes('system:authenticated')) return;
    const d = await this.o.authorizer.authorize(attrs);
    if (d.decision === 'allow') return;
    const msg = forbiddenMessage(attrs) + (d.reason !== '' ? `: ${d.reason}` : '');
    if (!info.isResourceRequest) throw new ApiError(403, 'Forbidden', `forbidden: ${msg}`, {});
    throw apiErrors.forbidden({ group: info.group, resource: info.resource }, info.name, msg);
  }

  private serveNonResource(req: IncomingMessage, res: ServerResponse, url: URL, info: RequestInfo): void {
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const accept = negotiate(req.headers.accept);
    if (isHealthPath(path)) {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
      res.end('ok');
      return;
    }
    if (path === '/version') return sendJson(res, 200, versionInfo());
    if (path === '/api') {
      if (accept.aggregated) return sendJson(res, 200, aggregatedDiscovery(this.o.table, true), aggregatedContentType);
      return sendJson(res, 200, apiVersions(this.o.serverAddress()));
    }
    if (path === '/apis') {
      if (accept.aggregated) return sendJson(res, 200, aggregatedDiscovery(this.o.table, false), aggregatedContentType);
      return sendJson(res, 200, apiGroupList(this.o.table));
    }
    if (path === '/api/v1') {
      const doc = apiResourceList(this.o.table, '', 'v1');
      if (doc !== undefined) return sendJson(res, 200, doc);
    }
    if (info.apiPrefix === 'apis' && info.group !== '' && info.version === '') {
      const g = apiGroup(this.o.table, info.group);
      if (g !== undefined) return sendJson(res, 200, g);
    }
    if (info.apiPrefix === 'apis' && info.version !== '') {
      const doc = apiResourceList(this.o.table, info.group, info.version);
      if (doc !== undefined) return sendJson(res, 200, doc);
    }
    const openapi = this.o.openapi;
    if (openapi !== undefined) {
      if (path === '/openapi/v2' && (req.headers.accept ?? '').includes('protobuf')) {
        // kubectl asks for the v2 document in protobuf only to validate kinds the v3 documents do not
        // describe (kinds the server does not serve); an empty document answers "no schema", so such
        // objects skip client-side validation and fail as unknown kinds, as against a real server.
        res.writeHead(200, { 'Content-Type': 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf', 'Content-Length': 0 });
        res.end();
        return;
      }
      if (path === '/openapi/v2') {
        const body = openapi.v2();
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
        res.end(body);
        return;
      }
      if (path === '/openapi/v3') return sendJson(res, 200, openapi.v3Root());
      if (path.startsWith('/openapi/v3/')) {
        const doc = openapi.v3Doc(path.slice('/openapi/v3/'.length));
        if (doc !== undefined) {
          res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': doc.length, 'Cache-Control': 'public, immutable' });
          res.end(doc);
          return;
        }
      }
    }
    if (this.o.subresources.serveIssuerDiscovery(path, res, this.o.serverAddress())) return;
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('404 page not found\n');
  }

  private resolve(info: RequestInfo): ResourceDef {
    const def = this.o.table.get(info.group, info.version, info.resource);
    if (def === undefined) {
      throw apiErrors.resourceNotServed();
    }
    if (info.subresource !== '' && !def.subresources.has(info.subresource)) {
      throw apiErrors.resourceNotServed();
    }
    return def;
  }

  private async serveResource(req: IncomingMessage, res: ServerResponse, url: URL, info: RequestInfo, user: UserInfo): Promise<void> {
    const def = this.resolve(info);
    const q = url.searchParams;
    const namespace = def.namespaced ? info.namespace : '';
    const name = def.group === '' && def.resource === 'namespaces' ? info.name : info.name;
    if (def.namespaced && namespace === '' && info.name !== '') throw apiErrors.notFound({ group: def.group, resource: def.resource }, name);
    // The all-namespaces collection of a namespaced resource only lists and watches.
    if (def.namespaced && namespace === '' && info.subresource === '' && (info.verb === 'create' || info.verb === 'deletecollection')) {
      throw apiErrors.methodNotAllowed();
    }
    const accept = negotiate(req.headers.accept);
    const dryRunValues = q.getAll('dryRun');
    if (dryRunValues.some((v) => v !== 'All')) {
      throw apiErrors.badRequest(`Invalid dryRun value: [${dryRunValues.join(' ')}]: supported values: "All"`);
    }
    const ctx: RequestContext = {
      user,
      dryRun: dryRunValues.length > 0,
      fieldManager: q.get('fieldManager') ?? defaultManager(req.headers['user-agent']),
      fieldValidation: parseFieldValidation(q.get('fieldValidation')),
      warnings: [],
    };
    // Warnings (unknown fields under fieldValidation=Warn, admission) go out as `Warning: 299 - "..."` headers.
    const warn = (): void => {
      if (ctx.warnings !== undefined && ctx.warnings.length > 0 && !res.headersSent) {
        res.setHeader('Warning', warningHeaders(ctx.warnings));
      }
    };
    res.once('pipe', warn);
    const writeHead = res.writeHead.bind(res);
    res.writeHead = ((...args: Parameters<typeof res.writeHead>) => {
      warn();
      return writeHead(...args);
    }) as typeof res.writeHead;
    const method = (req.method ?? 'GET').toUpperCase();
    if (info.subresource !== '') {
      const bodyKind = def.subresources.get(info.subresource)?.kind ?? def.kind;
      await this.o.subresources.serve({ req, res, info, def, namespace, name, q, ctx, accept, readBody: () => this.body(req, def, bodyKind) });
      return;
    }
    if (isComponentStatuses(def)) return this.serveComponentStatuses(res, def, info, ctx, accept, q);
    if (def.group === '' && def.resource === 'bindings') {
      if (method !== 'POST' || info.name !== '') throw apiErrors.methodNotAllowed();
      return sendJson(res, 201, await this.o.subresources.bindByBinding(namespace, asObject(await this.body(req, def), def.kind), ctx));
    }
    if (def.virtual) {
      if (method !== 'POST') throw apiErrors.methodNotAllowed();
      const body = asObject(await this.body(req, def), def.kind);
      const answer = await this.o.subresources.review(def, namespace, body, user);
      sendJson(res, 201, answer);
      return;
    }
    switch (info.verb) {
      case 'get': {
        const obj = await this.o.store.get(def, namespace, name, q.get('resourceVersion') ?? undefined);
        return this.sendObject(res, def, 200, obj, accept, q);
      }
      case 'list':
        return this.list(res, def, namespace, q, accept);
      case 'watch':
        return this.watch(req, res, def, namespace, info.name, q, accept);
      case 'create': {
        if (info.name !== '') throw apiErrors.methodNotAllowed();
        const body = asObject(await this.body(req, def), def.kind);
        const obj = await this.o.store.create(def, namespace, body, ctx);
        return this.sendObject(res, def, 201, obj, accept, q);
      }
      case 'update': {
        const body = asObject(await this.body(req, def), def.kind);
        const { object, created } = await this.o.store.update(def, namespace, name, '', body, ctx);
        return this.sendObject(res, def, created ? 201 : 200, object, accept, q);
      }
      case 'patch': {
        const body = await readBody(req);
        const { object, created } = await this.o.subresources.patch(def, namespace, name, '', req.headers['content-type'] ?? '', body, ctx, q);
        return this.sendObject(res, def, created ? 201 : 200, object, accept, q);
      }
      case 'delete': {
        const opts = await this.deleteOptions(req, q);
        const result = await this.o.store.delete(def, namespace, name, opts, ctx);
        if (result.kind === 'status') return sendJson(res, 200, result.status);
        return this.sendObject(res, def, result.code, result.object, accept, q);
      }
      case 'deletecollection': {
        const opts = await this.deleteOptions(req, q);
        const deleted = await this.o.store.deleteCollection(def, { ...(def.namespaced && namespace !== '' ? { namespace } : {}), ...selectors(q) }, opts, ctx);
        return sendJson(res, 200, { kind: `${def.kind}List`, apiVersion: apiVersionOf(def), metadata: {}, items: deleted });
      }
      default:
        throw apiErrors.methodNotAllowed();
    }
  }

  /** `componentstatuses`: get and list, computed (see component-statuses.ts), with the deprecation warning. */
  private serveComponentStatuses(res: ServerResponse, def: ResourceDef, info: RequestInfo, ctx: RequestContext, accept: Accept, q: URLSearchParams): void {
    const statuses = this.o.componentStatuses;
    ctx.warnings?.push(componentStatusDeprecation);
    if (info.verb === 'get') return this.sendObject(res, def, 200, statuses.get(info.name), accept, q);
    if (info.verb !== 'list') throw apiErrors.methodNotAllowed();
    const items = statuses.list();
    if (accept.table && this.o.tables !== undefined) {
      return sendJson(res, 200, { ...this.o.tables.toTable(def, items, { includeObject: includeObject(q), now: this.now() }), metadata: {} });
    }
    // List items carry no kind or apiVersion of their own.
    sendJson(res, 200, { kind: 'ComponentStatusList', apiVersion: 'v1', metadata: {}, items: items.map(({ kind: _k, apiVersion: _v, ...rest }) => rest) });
  }

  private async body(req: IncomingMessage, def: ResourceDef, kind: string = def.kind): Promise<unknown> {
    const raw = await readBody(req);
    if (raw.length === 0) throw apiErrors.badRequest(`the object provided is unrecognized (must be of type ${kind})`);
    return parseBody(raw, req.headers['content-type'] ?? 'application/json', kind, def.custom);
  }

  private async deleteOptions(req: IncomingMessage, q: URLSearchParams): Promise<DeleteRequest> {
    const raw = await readBody(req);
    let body: Record<string, unknown> = {};
    if (raw.length > 0) {
      const parsed = parseBody(raw, req.headers['content-type'] ?? 'application/json', 'DeleteOptions');
      if (parsed !== null && typeof parsed === 'object') body = parsed as Record<string, unknown>;
    }
    const opts: DeleteRequest = {};
    const grace = intParam(q, 'gracePeriodSeconds') ?? (typeof body['gracePeriodSeconds'] === 'number' ? body['gracePeriodSeconds'] : undefined);
    if (grace !== undefined) opts.gracePeriodSeconds = grace;
    const pp = q.get('propagationPolicy') ?? (typeof body['propagationPolicy'] === 'string' ? body['propagationPolicy'] : undefined);
    if (pp !== undefined && pp !== null) {
      if (pp !== 'Orphan' && pp !== 'Background' && pp !== 'Foreground') {
        throw apiErrors.invalid({ group: '', kind: 'DeleteOptions' }, '', [
          { type: 'FieldValueNotSupported', field: 'propagationPolicy', badValue: pp, detail: 'supported values: "Foreground", "Background", "Orphan", "nil"' },
        ]);
      }
      opts.propagationPolicy = pp;
    }
    const orphan = q.get('orphanDependents') ?? body['orphanDependents'];
    if (orphan === true || orphan === 'true') opts.orphanDependents = true;
    else if (orphan === false || orphan === 'false') opts.orphanDependents = false;
    const pre = body['preconditions'] as { uid?: string; resourceVersion?: string } | undefined;
    if (pre !== undefined && pre !== null) opts.preconditions = pre;
    return opts;
  }

  /** Sends one object, as JSON, Table or PartialObjectMetadata as negotiated. */
  sendObject(res: ServerResponse, def: ResourceDef, code: number, obj: StoredObject, accept: Accept, q: URLSearchParams): void {
    if (accept.table && this.o.tables !== undefined) {
      return sendJson(res, code, this.o.tables.toTable(def, [obj], { includeObject: includeObject(q), now: this.now() }));
    }
    if (accept.partial) return sendJson(res, code, partialObject(def, obj));
    sendJson(res, code, obj);
  }

  private now(): number {
    return (this.o.now ?? Date.now)();
  }

  private async list(res: ServerResponse, def: ResourceDef, namespace: string, q: URLSearchParams, accept: Accept): Promise<void> {
    const limit = intParam(q, 'limit');
    const result = await this.o.store.list(def, {
      ...(def.namespaced && namespace !== '' ? { namespace } : {}),
      ...selectors(q),
      ...(limit !== undefined ? { limit } : {}),
      ...(q.get('continue') !== null ? { continue: q.get('continue') ?? '' } : {}),
      ...(q.get('resourceVersion') !== null ? { resourceVersion: q.get('resourceVersion') ?? '' } : {}),
      ...(q.get('resourceVersionMatch') !== null ? { resourceVersionMatch: q.get('resourceVersionMatch') ?? '' } : {}),
    });
    const meta: Record<string, unknown> = { resourceVersion: result.resourceVersion };
    if (result.continue !== undefined) meta['continue'] = result.continue;
    if (result.remainingItemCount !== undefined) meta['remainingItemCount'] = result.remainingItemCount;
    if (accept.table && this.o.tables !== undefined) {
      const table = this.o.tables.toTable(def, result.items.map((c) => c.obj), { includeObject: includeObject(q), now: this.now() });
      table['metadata'] = meta;
      return sendJson(res, 200, table);
    }
    if (accept.partial) {
      return sendJson(res, 200, {
        kind: 'PartialObjectMetadataList',
        apiVersion: 'meta.k8s.io/v1',
        metadata: meta,
        items: result.items.map((c) => partialObject(def, c.obj)),
      });
    }
    // Splice the cached JSON of each item rather than re-serialising every object.
    const head = `{"kind":${JSON.stringify(`${def.kind}List`)},"apiVersion":${JSON.stringify(apiVersionOf(def))},"metadata":${JSON.stringify(meta)},"items":[`;
    const parts: string[] = [head];
    result.items.forEach((c, i) => parts.push(i === 0 ? cachedJson(c) : `,${cachedJson(c)}`));
    parts.push(']}');
    const body = parts.join('');
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-cache, private' });
    res.end(body);
  }

  private async watch(req: IncomingMessage, res: ServerResponse, def: ResourceDef, namespace: string, name: string, q: URLSearchParams, accept: Accept): Promise<void> {
    const sel = selectors(q);
    let fieldSelector = sel.fieldSelector;
    if (name !== '') fieldSelector = parseFieldSelector([fieldSelector.toString(), `metadata.name=${name}`].filter((s) => s !== '').join(','));
    const bookmarks = boolParam(q, 'allowWatchBookmarks');
    const timeoutSeconds = intParam(q, 'timeoutSeconds') ?? 1800 + Math.floor(Math.random() * 1800);
    const sendInitialEvents = boolParam(q, 'sendInitialEvents');
    let closed = false;
    let lastRv = 0;
    const write = (line: string): void => {
      if (!closed) res.write(line);
    };
    const encodeEvent = (type: CacheEventType | 'BOOKMARK', c: CachedObject | undefined, bookmarkRv?: number): string => {
      if (type === 'BOOKMARK') {
        const md: Record<string, unknown> = { resourceVersion: String(bookmarkRv ?? lastRv) };
        return `{"type":"BOOKMARK","object":${JSON.stringify({ kind: def.kind, apiVersion: apiVersionOf(def), metadata: md })}}\n`;
      }
      if (c === undefined) return '';
      lastRv = Math.max(lastRv, c.rv);
      let objJson: string;
      if (accept.table && this.o.tables !== undefined) objJson = JSON.stringify(this.o.tables.toTable(def, [c.obj], { includeObject: includeObject(q), now: this.now() }));
      else if (accept.partial) objJson = JSON.stringify(partialObject(def, c.obj));
      else objJson = cachedJson(c);
      return `{"type":"${type}","object":${objJson}}\n`;
    };
    const pending: string[] = [];
    let started = false;
    let stop: (() => void) | undefined;
    const finish = (): void => {
      if (closed) return;
      closed = true;
      stop?.();
      clearInterval(bookmarkTimer);
      clearTimeout(timeoutTimer);
      res.end();
    };
    const sink = {
      push: (type: CacheEventType, c: CachedObject): void => {
        const line = encodeEvent(type, c);
        if (!started) pending.push(line);
        else write(line);
      },
      close: (): void => finish(),
    };
    const rv = q.get('resourceVersion') ?? undefined;
    try {
      stop = await this.o.store.watch(
      def,
      {
        ...(def.namespaced && namespace !== '' ? { namespace } : {}),
        labelSelector: sel.labelSelector,
        fieldSelector,
        ...(rv !== undefined ? { resourceVersion: sendInitialEvents && rv === '' ? '0' : rv } : {}),
      },
      sink,
      );
    } catch (e) {
      // kube-apiserver's cacher answers a too-old resourceVersion with an ERROR event, not an HTTP error.
      if (isApiError(e) && e.code === 410) {
        const text = `{"type":"ERROR","object":${JSON.stringify(e.toStatus())}}\n`;
        res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
        res.end(text);
        return;
      }
      throw e;
    }
    res.writeHead(200, { 'Content-Type': accept.table ? 'application/json;as=Table;v=v1;g=meta.k8s.io' : 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
    // Send the headers now: clients (client-go's UntilWithSync in `kubectl wait`) wait for the response
    // before they look at anything else, and node holds them back until the first body chunk otherwise.
    res.flushHeaders();
    started = true;
    lastRv = Math.max(lastRv, Number(rv ?? 0) || 0);
    for (const line of pending) write(line);
    if (sendInitialEvents && bookmarks) {
      write(`{"type":"BOOKMARK","object":${JSON.stringify({ kind: def.kind, apiVersion: apiVersionOf(def), metadata: { resourceVersion: String(lastRv), annotations: { 'k8s.io/initial-events-end': 'true' } } })}}\n`);
    }
    const bookmarkTimer = setInterval(() => {
      if (bookmarks) write(encodeEvent('BOOKMARK', undefined, Math.max(lastRv, this.o.store.currentRevision())));
    }, 10_000);
    bookmarkTimer.unref();
    const timeoutTimer = setTimeout(finish, timeoutSeconds * 1000);
    timeoutTimer.unref();
    req.on('close', finish);
    res.on('error', finish);
  }
}

const aggregatedContentType = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

function isHealthPath(path: string): boolean {
  return /^\/(healthz|livez|readyz)(\/.*)?$/.test(path);
}

/** Paths kube-apiserver's default roles let every authenticated user read (discovery, version, health). */
function isPublicPath(path: string): boolean {
  return (
    path === '/' || path === '/api' || path === '/apis' || path === '/version' || isHealthPath(path) ||
    path.startsWith('/api/') || path.startsWith('/apis/') || path.startsWith('/openapi')
  );
}

function includeObject(q: URLSearchParams): 'None' | 'Metadata' | 'Object' {
  const v = q.get('includeObject');
  return v === 'None' || v === 'Object' ? v : 'Metadata';
}

export function partialObject(def: ResourceDef, obj: StoredObject): Record<string, unknown> {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: internalMetadata(def.group, def.resource, obj.metadata) };
}

/** kube-apiserver's default field manager: the user agent's program name (`kubectl-client-side-apply` etc. come from clients). */
function defaultManager(userAgent: string | undefined): string {
  const ua = userAgent ?? '';
  const prog = ua.split('/')[0] ?? '';
  return prog === '' ? 'unknown' : prog.slice(0, 128);
}
