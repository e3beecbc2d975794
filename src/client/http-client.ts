/**
 * `HttpClient`: the `Client` over Kubernetes REST (JSON), usable against any Kubernetes API server.
 *
 * Requests follow client-go's REST client: core resources under `/api/v1`, others under
 * `/apis/<group>/<version>`; query parameters sorted by name as Go's `url.Values.Encode` writes them;
 * `DeleteOptions` in the DELETE body; failures answered with a `Status` body become `ApiError`s with the
 * server's code, reason and message, other failures get apimachinery's `NewGenericServerResponse` text
 * (`the server could not find the requested resource (get pods x)`). 429 and 5xx answers with `Retry-After`
 * are retried up to 10 times, as client-go does.
 *
 * Watches stream newline-delimited JSON events, parsed as they arrive. When the server ends the stream (or
 * the connection drops mid-stream) the iteration ends; `close()` aborts the request and ends it too.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { ApiError, apiErrorFromStatus, StatusReason, type Status, type StatusReason as Reason } from '../api/errors.js';
import type { ResourceType } from '../api/resources.js';
import {
  patchContentTypes,
  type Client,
  type DeleteOptions,
  type KubeList,
  type KubeObject,
  type ListOptions,
  type PatchType,
  type WatchEvent,
  type WatchOptions,
  type WatchStream,
  type WriteOptions,
} from './client.js';

export interface HttpClientOptions {
  /** `https://host:port` (a path prefix is kept). */
  server: string;
  /** PEM of the CA that signed the server certificate. */
  ca?: Buffer | string;
  /** PEM client certificate and key for x509 authentication. */
  cert?: Buffer | string;
  key?: Buffer | string;
  /** Bearer token. */
  token?: string;
  insecureSkipTLSVerify?: boolean;
  userAgent?: string;
  /** Client-side rate limit, requests per second (0 or absent: off). */
  qps?: number;
  /** Burst of the rate limit (default: max(1, qps)). */
  burst?: number;
  /** Timeout of non-watch requests (default: none). */
  timeoutMs?: number;
}

/** The part of a request's identity that error messages name (client-go's resource and resourceName). */
interface RequestTarget {
  res: ResourceType;
  name?: string;
}

type Query = Record<string, string | number | boolean | undefined>;

const maxRetries = 10;
const maxUnstructuredResponseTextBytes = 2048;

/** Go's `http.Method` spelling in client error messages: `Get "https://...": ...`. */
function goMethod(method: string): string {
  return method.charAt(0) + method.slice(1).toLowerCase();
}

/** Escapes one path segment as Go's `url.PathEscape` does: `system:node:n1` stays readable. */
function pathSegment(v: string): string {
  return encodeURIComponent(v).replace(/%(24|26|2B|3A|3D|40)/gi, (m) => decodeURIComponent(m));
}

function encodeQuery(q: Query): string {
  const keys = Object.keys(q)
    .filter((k) => q[k] !== undefined && q[k] !== '')
    .sort();
  if (keys.length === 0) return '';
  const params = new URLSearchParams();
  for (const k of keys) params.append(k, String(q[k]));
  return `?${params.toString()}`;
}

function isConnectionReset(err: unknown): boolean {
  const cause = err instanceof Error ? (err.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  const code = cause?.code;
  return code === 'ECONNRESET' || code === 'EPIPE' || (typeof cause?.message === 'string' && cause.message === 'socket hang up');
}

function isStatus(v: unknown): v is Partial<Status> {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'Status';
}

/** apimachinery's `NewGenericServerResponse` for answers that are not a `Status`. */
export function genericServerResponse(
  code: number,
  verb: string,
  target: RequestTarget | undefined,
  serverMessage: string,
  retryAfterSeconds: number,
): ApiError {
  let reason: Reason = StatusReason.Unknown;
  let message = `the server responded with the status code ${code} but did not return more information`;
  switch (code) {
    case 409:
      reason = verb === 'POST' ? StatusReason.AlreadyExists : StatusReason.Conflict;
      message = 'the server reported a conflict';
      break;
    case 404:
      reason = StatusReason.NotFound;
      message = 'the server could not find the requested resource';
      break;
    case 400:
      reason = StatusReason.BadRequest;
      message = 'the server rejected our request for an unknown reason';
      break;
    case 401:
      reason = StatusReason.Unauthorized;
      message = 'the server has asked for the client to provide credentials';
      break;
    case 403:
      reason = StatusReason.Forbidden;
      message = serverMessage;
      break;
    case 405:
      reason = StatusReason.MethodNotAllowed;
      message = 'the server does not allow this method on the requested resource';
      break;
    case 422:
      reason = StatusReason.Invalid;
      message = 'the server rejected our request due to an error in our request';
      break;
    case 504:
      reason = StatusReason.Timeout;
      message = 'the server was unable to return a response in the time allotted, but may still be processing the request';
      break;
    case 429:
      reason = StatusReason.TooManyRequests;
      message = 'the server has received too many requests and has asked us to try again later';
      break;
    default:
      if (code >= 500) {
        reason = StatusReason.InternalError;
        message = `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`;
      }
  }
  const gr = target === undefined ? '' : target.res.group === '' ? target.res.resource : `${target.res.resource}.${target.res.group}`;
  if (gr !== '' && target?.name !== undefined && target.name !== '') message = `${message} (${verb.toLowerCase()} ${gr} ${target.name})`;
  else if (gr !== '') message = `${message} (${verb.toLowerCase()} ${gr})`;
  const details: NonNullable<Status['details']> = {};
  if (target !== undefined && target.res.group !== '') details.group = target.res.group;
  if (target !== undefined) details.kind = target.res.resource;
  if (target?.name !== undefined && target.name !== '') details.name = target.name;
  details.causes = [{ reason: 'UnexpectedServerResponse', message: serverMessage }];
  if (retryAfterSeconds > 0) details.retryAfterSeconds = retryAfterSeconds;
  return new ApiError(code, reason, message, details);
}

/** Turns a failed response into an `ApiError` (client-go's `transformResponse`). */
function errorFromResponse(
  code: number,
  contentType: string,
  body: Buffer,
  verb: string,
  target: RequestTarget | undefined,
  retryAfterSeconds: number,
): ApiError {
  const text = body.toString('utf8');
  if (contentType.includes('json')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (isStatus(parsed)) return apiErrorFromStatus(parsed, code);
    } catch {
      // fall through to the generic message
    }
  }
  const message = contentType.startsWith('text/plain') ? text.slice(0, maxUnstructuredResponseTextBytes).trim() : 'unknown';
  return genericServerResponse(code, verb, target, message, retryAfterSeconds);
}

/** A token bucket that hands out start times (client-go's `flowcontrol.NewTokenBucketRateLimiter`). */
class RateLimiter {
  private tokens: number;
  private last = Date.now();
  constructor(
    private readonly qps: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }
  async wait(): Promise<void> {
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    if (this.tokens >= 0) return;
    const ms = (-this.tokens / this.qps) * 1000;
    await new Promise((r) => setTimeout(r, ms));
  }
}

export class HttpClient implements Client {
  private readonly base: URL;
  private readonly basePath: string;
  private readonly agent: http.Agent;
  private readonly headers: Record<string, string>;
  private readonly limiter: RateLimiter | undefined;

  constructor(private readonly opts: HttpClientOptions) {
    this.base = new URL(opts.server);
    this.basePath = this.base.pathname.replace(/\/+$/, '');
    const agentOpts: https.AgentOptions = { keepAlive: true, maxSockets: Infinity, maxFreeSockets: 256 };
    if (this.base.protocol === 'https:') {
      if (opts.ca !== undefined) agentOpts.ca = opts.ca;
      if (opts.cert !== undefined) agentOpts.cert = opts.cert;
      if (opts.key !== undefined) agentOpts.key = opts.key;
      agentOpts.rejectUnauthorized = opts.insecureSkipTLSVerify !== true;
      this.agent = new https.Agent(agentOpts);
    } else {
      this.agent = new http.Agent(agentOpts);
    }
    this.headers = { Accept: 'application/json', 'User-Agent': opts.userAgent ?? 'kubemix/v0.1.0' };
    if (opts.token !== undefined && opts.token !== '') this.headers['Authorization'] = `Bearer ${opts.token}`;
    const qps = opts.qps ?? 0;
    this.limiter = qps > 0 ? new RateLimiter(qps, opts.burst ?? Math.max(1, qps)) : undefined;
  }

  /** Closes every connection of this client; open watches end. Later requests open new connections. */
  close(): void {
    this.agent.destroy();
  }

  /** The URL path of a resource, collection or subresource. */
  path(res: ResourceType, namespace?: string, name?: string, subresource?: string): string {
    let p = this.basePath + (res.group === '' ? `/api/${res.version}` : `/apis/${res.group}/${res.version}`);
    if (res.namespaced && namespace !== undefined && namespace !== '') p += `/namespaces/${pathSegment(namespace)}`;
    p += `/${res.resource}`;
    if (name !== undefined) p += `/${pathSegment(name)}`;
    if (subresource !== undefined && subresource !== '') p += `/${subresource}`;
    return p;
  }

  async get<T extends KubeObject>(res: ResourceType, name: string, opts: { namespace?: string; subresource?: string } = {}): Promise<T> {
    const path = this.path(res, this.ns(res, opts.namespace), name, opts.subresource);
    return (await this.request('GET', path, {}, undefined, { res, name })) as T;
  }

  async list<T extends KubeObject>(res: ResourceType, opts: ListOptions = {}): Promise<KubeList<T>> {
    const path = this.path(res, opts.namespace);
    return (await this.request('GET', path, listQuery(opts), undefined, { res })) as KubeList<T>;
  }

  watch<T extends KubeObject>(res: ResourceType, opts: WatchOptions = {}): WatchStream<T> {
    const path = this.path(res, opts.namespace);
    const query: Query = {
      watch: true,
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
      resourceVersion: opts.resourceVersion,
      allowWatchBookmarks: opts.allowWatchBookmarks === true ? true : undefined,
      timeoutSeconds: opts.timeoutSeconds,
    };
    const stream = new HttpWatchStream<T>({ res });
    void this.startWatch(stream, path + encodeQuery(query));
    return stream;
  }

  async create<T extends KubeObject>(res: ResourceType, obj: T, opts: WriteOptions = {}): Promise<T> {
    const namespace = this.ns(res, opts.namespace ?? obj.metadata?.namespace);
    const sub = opts.subresource;
    const path = sub !== undefined && sub !== '' ? this.path(res, namespace, obj.metadata?.name ?? '', sub) : this.path(res, namespace);
    return (await this.request('POST', path, writeQuery(opts), JSON.stringify(obj), { res, ...nameOf(obj) }, 'application/json')) as T;
  }

  async update<T extends KubeObject>(res: ResourceType, obj: T, opts: WriteOptions = {}): Promise<T> {
    const name = obj.metadata?.name ?? '';
    const path = this.path(res, this.ns(res, opts.namespace ?? obj.metadata?.namespace), name, opts.subresource);
    return (await this.request('PUT', path, writeQuery(opts), JSON.stringify(obj), { res, name }, 'application/json')) as T;
  }

  async patch<T extends KubeObject>(
    res: ResourceType,
    name: string,
    type: PatchType,
    patch: unknown,
    opts: WriteOptions & { force?: boolean } = {},
  ): Promise<T> {
    const path = this.path(res, this.ns(res, opts.namespace), name, opts.subresource);
    const query: Query = { ...writeQuery(opts), force: opts.force === true ? true : undefined };
    const body = typeof patch === 'string' ? patch : Buffer.isBuffer(patch) ? patch.toString('utf8') : JSON.stringify(patch);
    return (await this.request('PATCH', path, query, body, { res, name }, patchContentTypes[type])) as T;
  }

  async delete<T extends KubeObject>(res: ResourceType, name: string, opts: DeleteOptions = {}): Promise<T | Status> {
    const path = this.path(res, this.ns(res, opts.namespace), name);
    return (await this.request('DELETE', path, {}, JSON.stringify(deleteOptionsBody(opts)), { res, name }, 'application/json')) as T | Status;
  }

  async deleteCollection(res: ResourceType, opts: ListOptions & DeleteOptions = {}): Promise<void> {
    const path = this.path(res, opts.namespace);
    await this.request('DELETE', path, listQuery(opts), JSON.stringify(deleteOptionsBody(opts)), { res }, 'application/json');
  }

  async createSubresource<R = unknown>(
    res: ResourceType,
    name: string,
    subresource: string,
    body: unknown,
    opts: { namespace?: string } = {},
  ): Promise<R> {
    const path = this.path(res, this.ns(res, opts.namespace), name, subresource);
    return (await this.request('POST', path, {}, JSON.stringify(body), { res, name }, 'application/json')) as R;
  }

  /** A namespaced object without a namespace goes to `default`, as kubectl does. */
  private ns(res: ResourceType, namespace: string | undefined): string | undefined {
    if (!res.namespaced) return undefined;
    return namespace === undefined || namespace === '' ? 'default' : namespace;
  }

  private url(pathAndQuery: string): string {
    return `${this.base.protocol}//${this.base.host}${pathAndQuery}`;
  }

  private send(
    method: string,
    pathAndQuery: string,
    body: string | undefined,
    contentType: string | undefined,
    timeoutMs: number | undefined,
    onRequest?: (req: http.ClientRequest) => void,
  ): Promise<http.IncomingMessage> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ...this.headers };
      if (body !== undefined) {
        headers['Content-Type'] = contentType ?? 'application/json';
        headers['Content-Length'] = Buffer.byteLength(body);
      }
      const reqOpts: http.RequestOptions = {
        protocol: this.base.protocol,
        hostname: this.base.hostname.replace(/^\[|\]$/g, ''),
        port: this.base.port === '' ? (this.base.protocol === 'https:' ? 443 : 80) : Number(this.base.port),
        method,
        path: pathAndQuery,
        headers,
        agent: this.agent,
      };
      const mod = this.base.protocol === 'https:' ? https : http;
      const req = mod.request(reqOpts, resolve);
      onRequest?.(req);
      req.on('error', (err) => reject(new Error(`${goMethod(method)} "${this.url(pathAndQuery)}": ${err.message}`, { cause: err })));
      if (timeoutMs !== undefined && timeoutMs > 0) {
        req.setTimeout(timeoutMs, () => {
          req.destroy(new Error(`context deadline exceeded (Client.Timeout ${timeoutMs} ms exceeded while awaiting headers)`));
        });
      }
      if (body !== undefined) req.end(body);
      else req.end();
    });
  }

  private async request(
    method: string,
    path: string,
    query: Query,
    body: string | undefined,
    target: RequestTarget,
    contentType?: string,
  ): Promise<unknown> {
    const pathAndQuery = path + encodeQuery(query);
    for (let attempt = 0; ; attempt++) {
      await this.limiter?.wait();
      let res: http.IncomingMessage;
      let buf: Buffer;
      try {
        res = await this.send(method, pathAndQuery, body, contentType, this.opts.timeoutMs);
        buf = await readBody(res, method, this.url(pathAndQuery));
      } catch (err) {
        // A kept-alive connection the server closed as we reused it: client-go retries such GETs.
        if (method === 'GET' && attempt < maxRetries && isConnectionReset(err)) {
          await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
          continue;
        }
        throw err;
      }
      const code = res.statusCode ?? 0;
      if (code >= 200 && code < 300) {
        if (buf.length === 0) return undefined;
        try {
          return JSON.parse(buf.toString('utf8')) as unknown;
        } catch (err) {
          throw new Error(`${goMethod(method)} "${this.url(pathAndQuery)}": the server answered ${code} with a body that is not JSON`, {
            cause: err,
          });
        }
      }
      const retryAfter = Number.parseInt(String(res.headers['retry-after'] ?? ''), 10);
      const retryAfterSeconds = Number.isFinite(retryAfter) ? retryAfter : 0;
      if ((code === 429 || code >= 500) && Number.isFinite(retryAfter) && attempt < maxRetries) {
        await new Promise((r) => setTimeout(r, retryAfter * 1000));
        continue;
      }
      throw errorFromResponse(code, String(res.headers['content-type'] ?? ''), buf, method, target, retryAfterSeconds);
    }
  }

  private async startWatch<T>(stream: HttpWatchStream<T>, pathAndQuery: string): Promise<void> {
    try {
      await this.limiter?.wait();
      if (stream.isClosed()) return;
      const res = await this.send('GET', pathAndQuery, undefined, undefined, undefined, (req) => stream.setRequest(req));
      if (stream.isClosed()) {
        res.destroy();
        return;
      }
      const code = res.statusCode ?? 0;
      if (code !== 200) {
        const buf = await readBody(res, 'GET', this.url(pathAndQuery));
        stream.fail(errorFromResponse(code, String(res.headers['content-type'] ?? ''), buf, 'GET', stream.target, 0));
        return;
      }
      stream.attach(res);
    } catch (err) {
      stream.fail(err);
    }
  }
}

function nameOf(obj: KubeObject): { name?: string } {
  const name = obj.metadata?.name;
  return name !== undefined ? { name } : {};
}

function listQuery(opts: ListOptions): Query {
  return {
    labelSelector: opts.labelSelector,
    fieldSelector: opts.fieldSelector,
    limit: opts.limit,
    continue: opts.continue,
    resourceVersion: opts.resourceVersion,
    resourceVersionMatch: opts.resourceVersionMatch,
  };
}

function writeQuery(opts: WriteOptions): Query {
  return {
    dryRun: opts.dryRun === true ? 'All' : undefined,
    fieldManager: opts.fieldManager,
    fieldValidation: opts.fieldValidation,
  };
}

function deleteOptionsBody(opts: DeleteOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
  if (opts.gracePeriodSeconds !== undefined) body['gracePeriodSeconds'] = opts.gracePeriodSeconds;
  if (opts.preconditions !== undefined) body['preconditions'] = opts.preconditions;
  if (opts.propagationPolicy !== undefined) body['propagationPolicy'] = opts.propagationPolicy;
  if (opts.dryRun === true) body['dryRun'] = ['All'];
  return body;
}

function readBody(res: http.IncomingMessage, method: string, url: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', (err) => reject(new Error(`${goMethod(method)} "${url}": ${err.message}`, { cause: err })));
  });
}

const highWaterMark = 1000;
const lowWaterMark = 100;

/** The event stream of one watch request. One iteration per stream. */
class HttpWatchStream<T> implements WatchStream<T> {
  private readonly queue: WatchEvent<T>[] = [];
  private pending: Buffer[] = [];
  private req: http.ClientRequest | undefined;
  private res: http.IncomingMessage | undefined;
  private error: Error | undefined;
  private ended = false;
  private closed = false;
  private wake: (() => void) | undefined;
  private iterating = false;

  constructor(readonly target: RequestTarget) {}

  isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.res?.destroy();
    this.req?.destroy();
    this.res = undefined;
    this.req = undefined;
    this.notify();
  }

  setRequest(req: http.ClientRequest): void {
    if (this.closed) req.destroy();
    else this.req = req;
  }

  fail(err: unknown): void {
    if (this.closed || this.ended) return;
    this.error = err instanceof Error ? err : new Error(String(err));
    this.ended = true;
    this.notify();
  }

  attach(res: http.IncomingMessage): void {
    this.res = res;
    res.on('data', (chunk: Buffer) => this.onData(chunk));
    res.on('end', () => this.finish(true));
    // A connection dropped mid-stream ends the watch, as client-go's StreamWatcher stops on an unexpected EOF;
    // a partial last line is dropped.
    res.on('error', () => this.finish(false));
    res.on('close', () => this.finish(false));
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    if (this.iterating) throw new Error('a watch stream can be iterated only once');
    this.iterating = true;
    return this.iterate();
  }

  private async *iterate(): AsyncGenerator<WatchEvent<T>> {
    try {
      for (;;) {
        if (this.closed) return;
        const ev = this.queue.shift();
        if (ev !== undefined) {
          if (this.queue.length <= lowWaterMark && this.res?.isPaused() === true) this.res.resume();
          yield ev;
          continue;
        }
        if (this.error !== undefined) throw this.error;
        if (this.ended) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      this.close();
    }
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  private onData(chunk: Buffer): void {
    let start = 0;
    for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, start)) {
      const piece = chunk.subarray(start, i);
      const line = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
      this.pending = [];
      start = i + 1;
      this.parseLine(line);
      if (this.ended) return;
    }
    if (start < chunk.length) this.pending.push(chunk.subarray(start));
    if (this.queue.length >= highWaterMark) this.res?.pause();
    this.notify();
  }

  private parseLine(line: Buffer): void {
    const text = line.toString('utf8').trim();
    if (text === '') return;
    try {
      const ev = JSON.parse(text) as WatchEvent<T>;
      if (typeof ev !== 'object' || ev === null || typeof ev.type !== 'string') throw new Error('not a watch event');
      this.queue.push(ev);
    } catch (err) {
      this.fail(new Error(`unable to decode an event from the watch stream: ${(err as Error).message}`, { cause: err }));
      this.res?.destroy();
    }
  }

  private finish(clean: boolean): void {
    if (this.ended) return;
    if (clean && this.pending.length > 0) {
      const rest = Buffer.concat(this.pending);
      this.pending = [];
      this.parseLine(rest);
    }
    this.ended = true;
    this.notify();
  }
}
