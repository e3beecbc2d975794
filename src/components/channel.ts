/**
 * A `Client` across a message channel: components running in a worker thread (the scheduler and the
 * controller manager, as separate processes would be next to kube-apiserver) talk to the API server of the
 * main thread without sockets, TLS or HTTP framing, so they run on the machine's second core.
 *
 * `PortClient` (worker side) sends each call with the component's user; `serveClients` (main side) answers it
 * with an `InProcessClient` for that user, so authentication, authorization, admission and validation are
 * exactly the in-process ones. API errors travel as their `metav1.Status` and come back as `ApiError`s.
 * Watch events travel as JSON text: a change as the text it was stored with (neither decoded nor serialised
 * again on the API server's thread), sent once per batch however many watches carry it, and parsed once
 * per batch for all read-only watches (informers) of the receiving thread. A write's answer travels the
 * same way, or as only its metadata, or not at all, as the caller said it will read it
 * (`WriteOptions.answer`); a list travels as its items' texts (`InProcessClient.listEncoded`). A call's
 * body (the object or patch it sends) travels as JSON text too, decoded when flow control starts the call
 * (`bodyIndex`).
 */
import { apiErrorFromStatus, apiErrors, isApiError, type Status } from '../api/errors.js';
import type { ResourceType } from '../api/resources.js';
import type { Client, DeleteOptions, KubeList, KubeObject, ListOptions, PatchType, WatchEvent, WatchOptions, WatchStream, WriteOptions } from '../client/client.js';
import type { UserInfo } from '../apiserver/registry/policy.js';
import type { EncodedList, EncodedObject, InProcessClient, KubeListHead } from '../apiserver/in-process-client.js';
import { objectOfStoredText } from '../apiserver/storage/watch-cache.js';
import { shareTokenProjection } from '../api/service-account-token.js';
import { reuseUnchanged } from '../util/reuse-unchanged.js';
import type { CallLatency } from '../apiserver/call-latency.js';
import { WatchQueue } from '../client/watch-queue.js';
import { trimManagedFields } from '../client/informer.js';
import { classify, FlowDispatcher, type Classification, type RequestAttributes } from '../apiserver/flow-control.js';

/** What both ends need of a `MessagePort` or a worker's `parentPort`. */
export interface Port {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
}

type Method = 'get' | 'list' | 'create' | 'update' | 'patch' | 'delete' | 'deleteCollection' | 'createSubresource';

/** Worker to main. */
export type Request =
  /**
   * `args` without the call's body (its slot undefined): the body crosses as its JSON text (`bodyIndex`),
   * decoded only when flow control starts the call, and `ns` is the call's namespace (`callNamespace`).
   */
  | { t: 'call'; id: number; user: UserInfo; method: Method; args: unknown[]; ns: string; body?: string }
  | { t: 'watch'; id: number; user: UserInfo; res: ResourceType; opts: WatchOptions }
  | { t: 'unwatch'; id: number };

/** Main to worker. */
export type Reply =
  | { t: 'result'; id: number; value: unknown }
  /** A write's answer as the text it was stored with, whose resourceVersion is `rv`. */
  | { t: 'result'; id: number; json: string; rv: number }
  /**
   * A list as its head and its items' texts: `rvs[i]` is the resourceVersion to stamp on the stored text
   * `items[i]`, undefined when the text is the item's JSON.
   */
  | { t: 'result'; id: number; list: KubeListHead; items: string[]; rvs: (number | undefined)[] }
  | { t: 'error'; id: number; status: Status }
  /** `json` is the object's JSON, or with `rv` its stored JSON, whose resourceVersion is `rv`. */
  | { t: 'event'; id: number; type: WatchEvent<unknown>['type']; json: string; rv?: number }
  /** The same change as the batch's item `same` (another watch of it): its text is not sent twice. */
  | { t: 'event'; id: number; type: WatchEvent<unknown>['type']; same: number }
  | { t: 'end'; id: number };

/**
 * Where a method takes the object or patch it sends, if it sends one. Bodies cross the channel as JSON text:
 * a call may wait in flow control for a while (seconds, under load), and a text waits there as one flat
 * string where a decoded object is a tree the garbage collector copies at every young-generation
 * collection it survives; decoding the text when the call starts is also cheaper than a structured clone.
 */
function bodyIndex(method: Method): number | undefined {
  switch (method) {
    case 'create':
    case 'update':
      return 1;
    case 'patch':
    case 'createSubresource':
      return 3;
    default:
      return undefined;
  }
}

/** Messages sent in one event-loop turn travel together: one `postMessage` (and one wake-up) for many. */
type Batch<T> = { t: 'batch'; items: T[] };

/**
 * A batch is posted once it holds this many messages: serialising a message costs more per item as it
 * grows (a pod as object 18 µs per item in batches of 200, 43 µs in batches of 5,000; as text 5 and 27 µs).
 */
const maxBatchItems = 128;

class Outbox<T> {
  private items: T[] = [];

  constructor(
    private readonly port: Port,
    private readonly onFlush: () => void = () => {},
  ) {}

  private scheduled = false;

  /** Posts the open batch if it is full; a message sent next opens a new batch (and its indexes). */
  makeRoom(): void {
    if (this.items.length >= maxBatchItems) this.flush();
  }

  /** Queues `m`; answers its index in the batch (batches are posted at the end of the turn, or when full). */
  send(m: T): number {
    this.makeRoom();
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
    return this.items.push(m) - 1;
  }

  flush(): void {
    this.onFlush();
    if (this.items.length === 0) return;
    const items = this.items;
    this.items = [];
    this.port.postMessage(items.length === 1 ? items[0] : ({ t: 'batch', items } satisfies Batch<T>));
  }
}

/**
 * Calls `each` for a message or for every message of a batch, with the batch and the message's index in it
 * (for references into it).
 */
function unbatch(m: unknown, each: (m: unknown, batch: readonly unknown[], index: number) => void): void {
  if ((m as { t?: unknown } | null)?.t === 'batch') {
    const items = (m as Batch<unknown>).items;
    for (let i = 0; i < items.length; i++) each(items[i], items, i);
  } else {
    each(m, [], 0);
  }
}

function isRequest(m: unknown): m is Request {
  const t = (m as { t?: unknown } | null)?.t;
  return t === 'call' || t === 'watch' || t === 'unwatch';
}

function isReply(m: unknown): m is Reply {
  const t = (m as { t?: unknown } | null)?.t;
  return t === 'result' || t === 'error' || t === 'event' || t === 'end';
}

function statusOf(e: unknown): Status {
  return isApiError(e) ? e.toStatus() : apiErrors.internal(e instanceof Error ? e.message : String(e)).toStatus();
}

export interface ServeOptions {
  /** Where each answered call's latency goes, from its arrival to its answer (its wait to be started included). */
  latency?: CallLatency;
  /** The server's queue of calls, shared by its channels (default: one for this channel alone). */
  flowControl?: FlowDispatcher;
  /**
   * Whom flow control classifies the calls as, when not as their user: the node host acts for kubelets
   * (`system:nodes`), though its authorization needs more.
   */
  flowUser?: UserInfo;
}

/** Where each method takes its options argument (every one has one, with the namespace if any). */
function optionsArgument(method: Method, args: unknown[]): unknown {
  switch (method) {
    case 'list':
    case 'deleteCollection':
      return args[1];
    case 'patch':
    case 'createSubresource':
      return args[4];
    default:
      return args[2];
  }
}

/** The options argument of a call that takes `WriteOptions` (or, for `get`, a subresource). */
function callOptions(method: Method, args: unknown[]): WriteOptions | undefined {
  switch (method) {
    case 'get':
    case 'create':
    case 'update':
    case 'patch':
      return optionsArgument(method, args) as WriteOptions | undefined;
    default:
      return undefined;
  }
}

/** A written object's apiVersion, kind and metadata without managedFields (`WriteOptions.answer: 'metadata'`). */
function metadataOnly(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const { apiVersion, kind, metadata } = trimManagedFields(value as KubeObject);
  return metadata === undefined ? { apiVersion, kind } : { apiVersion, kind, metadata };
}

/** `verb resource[/subresource]` of a call, as the latency is reported. */
function callResource(method: Method, args: unknown[]): string {
  const res = (args[0] as ResourceType).resource;
  const sub = method === 'createSubresource' ? args[2] : callOptions(method, args)?.subresource;
  return typeof sub === 'string' && sub !== '' ? `${res}/${sub}` : res;
}

const verbs: Readonly<Record<Method, string>> = {
  get: 'get',
  list: 'list',
  create: 'create',
  update: 'update',
  patch: 'patch',
  delete: 'delete',
  deleteCollection: 'deletecollection',
  createSubresource: 'create',
};

/**
 * The namespace of a call as the request path names it: '' for cluster-scoped resources and for lists
 * across all namespaces; single objects default to `default` (as the in-process client does).
 */
function callNamespace(method: Method, args: unknown[]): string {
  const res = args[0] as ResourceType;
  if (!res.namespaced) return '';
  const opts = optionsArgument(method, args) as { namespace?: string } | undefined;
  const body = method === 'create' || method === 'update' ? (args[1] as KubeObject | undefined) : undefined;
  const ns = opts?.namespace ?? body?.metadata?.namespace ?? '';
  if (ns !== '') return ns;
  return method === 'list' || method === 'deleteCollection' ? '' : 'default';
}

/** What flow control sees of a request arriving on a channel. */
function requestAttributes(m: Request & { t: 'call' | 'watch' }, user: UserInfo): RequestAttributes {
  if (m.t === 'watch') {
    const ns = m.res.namespaced ? (m.opts.namespace ?? '') : '';
    return { user, verb: 'watch', group: m.res.group, resource: m.res.resource, namespace: ns };
  }
  const res = m.args[0] as ResourceType;
  return { user, verb: verbs[m.method], group: res.group, resource: callResource(m.method, m.args), namespace: m.ns };
}

/**
 * Answers the requests arriving on `port` with the in-process client `clientFor` gives for each user (main
 * thread); watches use its `watchEncoded`, so changes cross as the text they were stored with.
 * Returns a function that stops answering and closes every open watch.
 */
export function serveClients(port: Port, clientFor: (user: UserInfo) => InProcessClient, opts: ServeOptions = {}): () => void {
  const { latency } = opts;
  // The changes already in the open batch, by the cached change they came from (else by text): item index,
  // stored revision and text (a change goes to some watches with its managedFields, to others without).
  const batched = new Map<object | string, { index: number; rv: number | undefined; json: string }>();
  const out = new Outbox<Reply>(port, () => batched.clear());
  const watches = new Map<number, WatchStream<EncodedObject>>();
  // Where flow control put each watch: its end goes there too, so that it cannot overtake its start.
  const watchFlows = new Map<number, Classification>();
  const sendEvent = (id: number, type: WatchEvent<unknown>['type'], e: EncodedObject): void => {
    const rv = e.storedRevision;
    // Room first: a full batch posted now takes the changes it holds (and `batched`) with it.
    out.makeRoom();
    const key = e.change ?? e.json;
    const same = batched.get(key);
    if (same !== undefined && same.rv === rv && same.json === e.json) {
      out.send({ t: 'event', id, type, same: same.index });
      return;
    }
    const index = out.send(rv !== undefined ? { t: 'event', id, type, json: e.json, rv } : { t: 'event', id, type, json: e.json });
    batched.set(key, { index, rv, json: e.json });
  };
  /** `patchText`: a patch call's body as the JSON text it crossed as (undefined: it is in `args`). */
  const call = async (c: InProcessClient, method: Method, args: unknown[], patchText: string | undefined): Promise<unknown> => {
    const a = args as [ResourceType, ...unknown[]];
    switch (method) {
      case 'get':
        return c.get(a[0], a[1] as string, a[2] as { namespace?: string; subresource?: string } | undefined);
      case 'list':
        return c.listEncoded(a[0], a[1] as ListOptions | undefined);
      case 'create':
        return c.create(a[0], a[1] as KubeObject, a[2] as WriteOptions | undefined);
      case 'update':
        return c.update(a[0], a[1] as KubeObject, a[2] as WriteOptions | undefined);
      case 'patch': {
        const opts = a[4] as (WriteOptions & { force?: boolean }) | undefined;
        return patchText !== undefined ? c.patchText(a[0], a[1] as string, a[2] as PatchType, patchText, opts) : c.patch(a[0], a[1] as string, a[2] as PatchType, a[3], opts);
      }
      case 'delete':
        return c.delete(a[0], a[1] as string, a[2] as DeleteOptions | undefined);
      case 'deleteCollection':
        return c.deleteCollection(a[0], a[1] as (ListOptions & DeleteOptions) | undefined);
      case 'createSubresource':
        return c.createSubresource(a[0], a[1] as string, a[2] as string, a[3], a[4] as { namespace?: string } | undefined);
    }
  };
  const pump = async (id: number, w: WatchStream<EncodedObject>): Promise<void> => {
    try {
      for await (const e of w) sendEvent(id, e.type, e.object);
    } catch (e) {
      out.send({ t: 'event', id, type: 'ERROR', json: JSON.stringify(statusOf(e)) });
    } finally {
      watchFlows.delete(id);
      if (watches.delete(id)) out.send({ t: 'end', id });
    }
  };
  /**
   * `timing`: when the call arrived and when flow control started it (while latency is observed). A call
   * returns the promise of its answer being sent: its seat in flow control is held until then.
   */
  const onRequest = (m: Request, timing: { arrived: number; started: number } | undefined): Promise<void> | undefined => {
    if (m.t === 'call') {
      let client: InProcessClient;
      try {
        client = clientFor(m.user);
      } catch (e) {
        out.send({ t: 'error', id: m.id, status: statusOf(e) });
        return undefined;
      }
      const { id, method, args } = m;
      // A patch's text goes to the server as it came (the server decodes it, as an HTTP body); the other
      // bodies are the objects the calls take.
      const patchText = method === 'patch' ? m.body : undefined;
      const at = bodyIndex(method);
      if (at !== undefined && m.body !== undefined && patchText === undefined) args[at] = JSON.parse(m.body) as unknown;
      const answered = (): void => {
        if (timing !== undefined) latency?.report(method, callResource(method, args), performance.now() - timing.started, timing.started - timing.arrived);
      };
      return call(client, method, args, patchText).then(
        (value) => {
          answered();
          if (method === 'list') {
            const { list, items } = value as EncodedList;
            out.send({ t: 'result', id, list, items: items.map((i) => i.json), rvs: items.map((i) => i.storedRevision) });
            return;
          }
          const answer = callOptions(method, args)?.answer;
          if (answer !== undefined) {
            out.send({ t: 'result', id, value: answer === 'metadata' ? metadataOnly(value) : undefined });
            return;
          }
          const enc = client.encodedWrite(value);
          out.send(enc !== undefined ? { t: 'result', id, json: enc.text, rv: enc.rv } : { t: 'result', id, value });
        },
        (e: unknown) => {
          answered();
          out.send({ t: 'error', id, status: statusOf(e) });
        },
      );
    } else if (m.t === 'watch') {
      const w = clientFor(m.user).watchEncoded(m.res, m.opts);
      watches.set(m.id, w);
      void pump(m.id, w);
    } else {
      const w = watches.get(m.id);
      watches.delete(m.id);
      w?.close();
    }
    return undefined;
  };
  // Requests wait in the server's flow control, which starts a bounded number per event-loop turn. A port
  // hands over every message queued on it in one go: after a busy spell that was thousands of calls, and
  // starting them all at once held the event loop for seconds, while the storage commits and
  // acknowledgements they waited for could not run.
  const dispatcher = opts.flowControl ?? new FlowDispatcher();
  let stopped = false;
  const onMessage = (m: unknown): void =>
    unbatch(m, (x) => {
      if (!isRequest(x)) return;
      const arrived = latency?.observed === true ? performance.now() : undefined;
      let c: Classification | undefined;
      if (x.t === 'unwatch') {
        c = watchFlows.get(x.id);
        watchFlows.delete(x.id);
      } else {
        c = classify(requestAttributes(x, opts.flowUser ?? x.user));
        if (x.t === 'watch') watchFlows.set(x.id, c);
      }
      dispatcher.submit(c ?? { flowSchema: 'exempt', level: 'exempt', flow: '' }, () =>
        stopped ? undefined : onRequest(x, arrived !== undefined ? { arrived, started: performance.now() } : undefined),
      );
    });
  port.on('message', onMessage);
  return () => {
    stopped = true;
    out.flush();
    port.off('message', onMessage);
    for (const w of watches.values()) w.close();
    watches.clear();
  };
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

interface WatchSink {
  /** Read-only watches (informers) may share one parsed object per change. */
  readOnly: boolean;
  push(e: WatchEvent<unknown>): void;
  end(): void;
}

/** The worker's end of the channel: one per process thread, handing out a `Client` per component user. */
export class PortConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly watches = new Map<number, WatchSink>();
  private closed = false;
  private readonly out: Outbox<Request>;
  /**
   * The objects parsed for read-only watches in the current message, by the index of the batch item that
   * carried their text (the server sends a change's text once per batch): one change reaches several
   * informers. By index rather than by text, so no change's text is hashed.
   */
  private shared = new Map<number, unknown>();
  /** By UID, the latest version of each object read-only watches delivered (`reusePrevious`). */
  private readonly lastSeen = new Map<string, unknown>();
  private readonly onMessage = (m: unknown): void => {
    unbatch(m, (x, batch, index) => this.receive(x, batch, index));
    this.shared.clear();
  };

  constructor(private readonly port: Port) {
    this.out = new Outbox<Request>(port);
    port.on('message', this.onMessage);
  }

  client(user: UserInfo): Client {
    return new PortClient(this, user);
  }

  /** Fails every call still waiting and ends every watch (the main thread is going away). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.out.flush();
    this.port.off('message', this.onMessage);
    for (const p of this.pending.values()) p.reject(apiErrors.internal('the API server connection is closed'));
    this.pending.clear();
    for (const w of this.watches.values()) w.end();
    this.watches.clear();
    this.lastSeen.clear();
  }

  call<T>(user: UserInfo, method: Method, args: unknown[]): Promise<T> {
    if (this.closed) return Promise.reject(apiErrors.internal('the API server connection is closed'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: (v) => resolve(v as T), reject });
      const at = bodyIndex(method);
      const ns = callNamespace(method, args);
      const body = at !== undefined && args[at] !== undefined ? JSON.stringify(args[at]) : undefined;
      const sent = stripUndefined(at !== undefined ? args.map((a, i) => (i === at ? undefined : a)) : args);
      this.out.send(body !== undefined ? { t: 'call', id, user, method, args: sent, ns, body } : { t: 'call', id, user, method, args: sent, ns });
    });
  }

  watch<T>(user: UserInfo, res: ResourceType, opts: WatchOptions): WatchStream<T> {
    const id = this.nextId++;
    const queue = new WatchQueue<T>(() => {
      if (this.watches.delete(id)) {
        this.out.send({ t: 'unwatch', id });
        this.forgetUnwatched();
      }
    });
    if (this.closed) {
      queue.end();
    } else {
      this.watches.set(id, {
        readOnly: opts.readOnly === true,
        push: (e) => queue.push(e as WatchEvent<T>),
        end: () => queue.end(),
      });
      this.out.send({ t: 'watch', id, user, res, opts: stripUndefined([opts])[0] as WatchOptions });
    }
    return queue.stream();
  }

  /**
   * A change for read-only watches, with what it left as it was taken from the version seen before
   * (`reuseUnchanged`); remembers it by UID until its deletion is seen.
   */
  private reusePrevious(type: WatchEvent<unknown>['type'], object: unknown): unknown {
    const uid = (object as KubeObject | null)?.metadata?.uid;
    if (uid === undefined || uid === '') return object;
    const prev = this.lastSeen.get(uid);
    const shared = prev === undefined ? object : reuseUnchanged(object, prev);
    if (type === 'DELETED') this.lastSeen.delete(uid);
    else this.lastSeen.set(uid, shared);
    return shared;
  }

  /** With no read-only watch left, nobody would see the deletions that let `lastSeen` forget: forget now. */
  private forgetUnwatched(): void {
    for (const w of this.watches.values()) if (w.readOnly) return;
    this.lastSeen.clear();
  }

  private receive(m: unknown, batch: readonly unknown[], index: number): void {
    if (!isReply(m)) return;
    if (m.t === 'result' || m.t === 'error') {
      const p = this.pending.get(m.id);
      if (p === undefined) return;
      this.pending.delete(m.id);
      if (m.t === 'result') p.resolve('json' in m ? objectOfStoredText(m.json, m.rv) : 'items' in m ? listOfTexts(m.list, m.items, m.rvs) : m.value);
      else p.reject(apiErrorFromStatus(m.status, m.status.code ?? 500));
    } else if (m.t === 'event') {
      const w = this.watches.get(m.id);
      if (w === undefined) return;
      const at = 'json' in m ? index : m.same;
      const { json, rv } = ('json' in m ? m : batch[at]) as { json: string; rv?: number };
      let object = w.readOnly ? this.shared.get(at) : undefined;
      if (object === undefined) {
        object = rv !== undefined ? objectOfStoredText(json, rv) : (JSON.parse(json) as unknown);
        if (w.readOnly) {
          object = this.reusePrevious(m.type, object);
          shareTokenProjection(object);
          this.shared.set(at, object);
        }
      }
      w.push({ type: m.type, object });
    } else {
      const w = this.watches.get(m.id);
      this.watches.delete(m.id);
      this.forgetUnwatched();
      w?.end();
    }
  }
}

/** A list rebuilt from its head and its items' texts (stored texts are stamped with their resourceVersion). */
function listOfTexts(head: KubeListHead, items: string[], rvs: (number | undefined)[]): KubeList<unknown> {
  return {
    ...head,
    items: items.map((text, i) => {
      const rv = rvs[i];
      return rv !== undefined ? objectOfStoredText(text, rv) : (JSON.parse(text) as unknown);
    }),
  };
}

/** Structured clone refuses nothing we send, but `undefined` option values would arrive as present keys. */
function stripUndefined(args: unknown[]): unknown[] {
  return args.map((a) => {
    if (typeof a !== 'object' || a === null || Array.isArray(a)) return a;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(a)) if (v !== undefined) out[k] = v;
    return out;
  });
}

class PortClient implements Client {
  constructor(
    private readonly conn: PortConnection,
    private readonly user: UserInfo,
  ) {}

  get<T extends KubeObject>(res: ResourceType, name: string, opts?: { namespace?: string; subresource?: string }): Promise<T> {
    return this.conn.call(this.user, 'get', [res, name, opts]);
  }

  list<T extends KubeObject>(res: ResourceType, opts?: ListOptions): Promise<KubeList<T>> {
    return this.conn.call(this.user, 'list', [res, opts]);
  }

  watch<T extends KubeObject>(res: ResourceType, opts: WatchOptions = {}): WatchStream<T> {
    return this.conn.watch<T>(this.user, res, opts);
  }

  create<T extends KubeObject>(res: ResourceType, obj: T, opts?: WriteOptions): Promise<T> {
    return this.conn.call(this.user, 'create', [res, obj, opts]);
  }

  update<T extends KubeObject>(res: ResourceType, obj: T, opts?: WriteOptions): Promise<T> {
    return this.conn.call(this.user, 'update', [res, obj, opts]);
  }

  patch<T extends KubeObject>(res: ResourceType, name: string, type: PatchType, patch: unknown, opts?: WriteOptions & { force?: boolean }): Promise<T> {
    return this.conn.call(this.user, 'patch', [res, name, type, patch, opts]);
  }

  delete<T extends KubeObject>(res: ResourceType, name: string, opts?: DeleteOptions): Promise<T | Status> {
    return this.conn.call(this.user, 'delete', [res, name, opts]);
  }

  deleteCollection(res: ResourceType, opts?: ListOptions & DeleteOptions): Promise<void> {
    return this.conn.call(this.user, 'deleteCollection', [res, opts]);
  }

  createSubresource<R = unknown>(res: ResourceType, name: string, subresource: string, body: unknown, opts?: { namespace?: string }): Promise<R> {
    return this.conn.call(this.user, 'createSubresource', [res, name, subresource, body, opts]);
  }
}
