/**
 * Informers: a local cache of one resource kept current by list + watch, with event handlers and indexes
 * (client-go's `SharedIndexInformer` with its `Reflector`).
 *
 * The reflector lists in pages (`limit`/`continue`), then watches from the list's resourceVersion with
 * bookmarks. When a watch ends it re-watches from the last resourceVersion it saw; when the server answers
 * 410 Gone/Expired (a watch ERROR event or an `ApiError`) it lists again and turns the difference against the
 * cache into adds, updates and deletes. Other failures back off exponentially (800 ms doubling to 30 s,
 * client-go's reflector backoff, without jitter) on the injected clock.
 *
 * Handlers run synchronously, in registration order, in the order the changes happened; the cache already
 * holds the new state when they run. A handler that throws is logged and does not disturb the informer.
 */
import { apiErrorFromStatus, isGone, isTooLargeResourceVersion, type Status } from '../api/errors.js';
import { apiVersionOf, type ResourceType } from '../api/resources.js';
import type { Client, KubeObject, WatchStream } from './client.js';
import { realClock, type Clock, type TimerHandle } from './clock.js';

export interface InformerHandlers<T> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  /** Called with the last known state of the object. */
  onDelete?(obj: T): void;
}

export interface InformerOptions<T> {
  namespace?: string;
  labelSelector?: string;
  /** e.g. `spec.nodeName=n1` (the API server indexes pods by spec.nodeName). */
  fieldSelector?: string;
  /** Named index functions; an object may have several values per index. */
  indexers?: Record<string, (obj: T) => string[]>;
  /** Page size for lists (default 500). */
  pageSize?: number;
  /**
   * Applied to every object before it is cached and handed to handlers (client-go's `SetTransform`), e.g. to
   * drop `managedFields` and save memory with many objects.
   */
  transform?: (obj: T) => T;
  clock?: Clock;
  /** Where handler exceptions and watch/list failures go (default `console.error`). */
  log?: (message: string, err?: unknown) => void;
}

export interface Informer<T extends KubeObject> {
  /** May be called before or after `start()`; a late handler first gets `onAdd` for every cached object. */
  addHandlers(h: InformerHandlers<T>): void;
  /** Lists, then watches. Calling it again is a no-op. */
  start(): void;
  /** Idempotent; closes the watch and cancels pending retries. `waitForSync()` callers still waiting are rejected. */
  stop(): void;
  /** True once the first complete list is in the cache and handlers have been told about it. */
  hasSynced(): boolean;
  waitForSync(signal?: AbortSignal): Promise<void>;
  list(): T[];
  /** `key` is `objectKey(obj)`. */
  get(key: string): T | undefined;
  byIndex(indexName: string, value: string): T[];
  /** Adds index functions, also after start (existing objects are indexed); a name already in use throws. */
  addIndexers(indexers: Record<string, (obj: T) => string[]>): void;
  /** The resourceVersion of the last list, watch event or bookmark seen. */
  lastSyncResourceVersion(): string;
}

/** "namespace/name", or "name" for cluster-scoped objects (client-go's `MetaNamespaceKeyFunc`). */
export function objectKey(obj: KubeObject): string {
  const ns = obj.metadata?.namespace ?? '';
  const name = obj.metadata?.name ?? '';
  return ns === '' ? name : `${ns}/${name}`;
}

/** The conventional `namespace` index (client-go's `MetaNamespaceIndexFunc`). */
export function namespaceIndexFunc(obj: KubeObject): string[] {
  return [obj.metadata?.namespace ?? ''];
}

/**
 * True when resourceVersion `a` is newer than `b`. Integer resourceVersions (what etcd and kubemix hand out)
 * compare numerically; opaque ones only by inequality.
 */
/**
 * The transform kube-controller-manager's shared informers and kube-scheduler's pod informer use: the object
 * without `metadata.managedFields` (nobody reads them there, and they are a large share of each object).
 * Objects handed to informers may be shared and frozen, so this copies the two levels it changes.
 */
export function trimManagedFields<T extends KubeObject>(obj: T): T {
  const md = obj.metadata;
  if (md?.managedFields === undefined) return obj;
  const { managedFields: _dropped, ...rest } = md;
  return { ...obj, metadata: rest };
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function addToIndex(index: Map<string, Set<string>>, key: string, values: readonly string[]): void {
  for (const value of values) {
    let keys = index.get(value);
    if (keys === undefined) index.set(value, (keys = new Set()));
    keys.add(key);
  }
}

function removeFromIndex(index: Map<string, Set<string>>, key: string, values: readonly string[]): void {
  for (const value of values) {
    const keys = index.get(value);
    keys?.delete(key);
    if (keys?.size === 0) index.delete(value);
  }
}

export function isNewerResourceVersion(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || a === '' || b === undefined || b === '') return true;
  if (isDecimal(a) && isDecimal(b)) {
    // Compared as numbers of any size without parsing them (this runs twice for every watch event):
    // leading zeros aside, the longer is the larger, and of equal length the one later in code order.
    const x = withoutLeadingZeros(a);
    const y = withoutLeadingZeros(b);
    return x.length !== y.length ? x.length > y.length : x > y;
  }
  return a !== b;
}

function isDecimal(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function withoutLeadingZeros(s: string): string {
  let i = 0;
  while (i < s.length - 1 && s.charCodeAt(i) === 48) i++;
  return i === 0 ? s : s.slice(i);
}

export function createInformer<T extends KubeObject>(
  client: Client,
  res: ResourceType,
  opts: InformerOptions<T> = {},
): Informer<T> {
  return new IndexInformer<T>(client, res, opts);
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('waitForSync aborted', { cause: signal.reason });
}

const initialBackoffMs = 800;
const maxBackoffMs = 30_000;
/** A watch that ends sooner than this without an event counts as a failure (client-go's "very short watch"). */
const shortWatchMs = 1_000;

type WatchOutcome = 'ended' | 'gone' | 'short';

class IndexInformer<T extends KubeObject> implements Informer<T> {
  private readonly clock: Clock;
  private readonly log: (message: string, err?: unknown) => void;
  private readonly pageSize: number;
  private readonly cache = new Map<string, T>();
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  private readonly indexFns = new Map<string, (obj: T) => string[]>();
  /** Replaced, never changed, when a handler is added: a notification in progress keeps the list it began with. */
  private handlers: readonly InformerHandlers<T>[] = [];
  private readonly syncWaiters = new Set<{ resolve: () => void; reject: (e: Error) => void }>();
  private started = false;
  private stopped = false;
  private synced = false;
  private lastRV = '';
  /** The last resourceVersion seen is too old or too new for the server: the next list is a consistent read. */
  private lastRVUnavailable = false;
  private backoffMs = initialBackoffMs;
  private watchDelivered = false;
  private watchStream: WatchStream<T> | undefined;
  private sleepTimer: TimerHandle | undefined;
  private wakeSleeper: (() => void) | undefined;

  constructor(
    private readonly client: Client,
    private readonly res: ResourceType,
    private readonly opts: InformerOptions<T>,
  ) {
    this.clock = opts.clock ?? realClock;
    this.log = opts.log ?? ((message, err) => console.error(`informer ${res.resource}: ${message}`, err ?? ''));
    this.pageSize = opts.pageSize ?? 500;
    this.addIndexers(opts.indexers ?? {});
  }

  addIndexers(indexers: Record<string, (obj: T) => string[]>): void {
    for (const name of Object.keys(indexers)) {
      if (this.indexFns.has(name)) throw new Error(`indexer conflict: ${name}`);
    }
    for (const [name, fn] of Object.entries(indexers)) {
      const index = new Map<string, Set<string>>();
      this.indexFns.set(name, fn);
      this.indices.set(name, index);
      for (const [key, obj] of this.cache) addToIndex(index, key, this.indexValues(fn, obj));
    }
  }

  addHandlers(h: InformerHandlers<T>): void {
    this.handlers = [...this.handlers, h];
    if (h.onAdd === undefined) return;
    for (const obj of [...this.cache.values()]) this.call(() => h.onAdd?.(obj));
  }

  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    void this.run();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.watchStream?.close();
    this.watchStream = undefined;
    this.sleepTimer?.cancel();
    this.wakeSleeper?.();
    if (!this.synced) {
      const err = new Error(`informer for ${this.res.resource} stopped before it synced`);
      for (const w of this.syncWaiters) w.reject(err);
    }
    this.syncWaiters.clear();
  }

  hasSynced(): boolean {
    return this.synced;
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.synced) return Promise.resolve();
    if (this.stopped) return Promise.reject(new Error(`informer for ${this.res.resource} stopped before it synced`));
    if (signal?.aborted === true) return Promise.reject(abortError(signal));
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject: (e: Error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      };
      const onAbort = (): void => {
        this.syncWaiters.delete(waiter);
        if (signal !== undefined) reject(abortError(signal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.add(waiter);
    });
  }

  list(): T[] {
    return [...this.cache.values()];
  }

  get(key: string): T | undefined {
    return this.cache.get(key);
  }

  byIndex(indexName: string, value: string): T[] {
    const index = this.indices.get(indexName);
    if (index === undefined) throw new Error(`Index with name ${indexName} does not exist`);
    const out: T[] = [];
    for (const key of index.get(value) ?? []) {
      const obj = this.cache.get(key);
      if (obj !== undefined) out.push(obj);
    }
    return out;
  }

  lastSyncResourceVersion(): string {
    return this.lastRV;
  }

  // The reflector loop: list, then watch until stopped.
  private async run(): Promise<void> {
    let needList = true;
    let goneWithoutProgress = 0;
    while (!this.stopped) {
      try {
        if (needList) {
          await this.relist();
          if (this.stopped) return;
          needList = false;
          this.backoffMs = initialBackoffMs;
        }
        const outcome = await this.watchOnce();
        if (this.stopped) return;
        if (this.watchDelivered) goneWithoutProgress = 0;
        if (outcome === 'gone') {
          needList = true;
          // A fresh list answered by an immediate 410 again should not spin.
          if (goneWithoutProgress++ > 0) await this.backoff();
        } else if (outcome === 'short') {
          await this.backoff();
        }
      } catch (err) {
        if (this.stopped) return;
        if (this.watchDelivered) goneWithoutProgress = 0;
        if (isGone(err)) {
          needList = true;
          if (goneWithoutProgress++ > 0) await this.backoff();
          continue;
        }
        this.log(needList ? 'list failed' : 'watch failed', err);
        await this.backoff();
      }
    }
  }

  /**
   * The resourceVersion a list asks for, as client-go's reflector (`relistResourceVersion`): "0" at first,
   * so that the API server answers from its watch cache (and in one page); then the last one seen (a list
   * at least as fresh); "" (a consistent read) once that one is unavailable.
   */
  private relistResourceVersion(): string {
    if (this.lastRVUnavailable) return '';
    return this.lastRV === '' ? '0' : this.lastRV;
  }

  private async relist(): Promise<void> {
    try {
      await this.listAt(this.relistResourceVersion());
    } catch (err) {
      if (!isGone(err) && !isTooLargeResourceVersion(err)) throw err;
      // As the reflector: a resourceVersion the server cannot list at is retried at once as a consistent read.
      this.lastRVUnavailable = true;
      await this.listAt('');
    }
    this.lastRVUnavailable = false;
  }

  private async listAt(resourceVersion: string): Promise<void> {
    const items: T[] = [];
    let cont: string | undefined;
    let rv = '';
    do {
      const page = await this.client.list<T>(this.res, {
        ...this.selectors(),
        limit: this.pageSize,
        ...(cont === undefined && resourceVersion !== '' ? { resourceVersion } : {}),
        // The cache and the handlers only read objects (client-go's rule for shared informers).
        readOnly: true,
        ...(cont !== undefined ? { continue: cont } : {}),
      });
      if (this.stopped) return;
      for (const item of page.items) items.push(this.withTypeMeta(item));
      rv = page.metadata.resourceVersion ?? '';
      cont = page.metadata.continue !== undefined && page.metadata.continue !== '' ? page.metadata.continue : undefined;
    } while (cont !== undefined);
    this.replace(items, rv);
  }

  /** Applies a complete list: adds and updates for what it holds, deletes for what vanished. */
  private replace(items: T[], rv: string): void {
    const seen = new Set<string>();
    for (const obj of items) {
      const key = objectKey(obj);
      seen.add(key);
      const old = this.cache.get(key);
      if (old === undefined) {
        this.store(key, obj);
        this.notify('add', obj);
      } else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) {
        this.store(key, obj);
        this.notify('update', obj, old);
      }
    }
    for (const [key, old] of [...this.cache]) {
      if (seen.has(key)) continue;
      this.remove(key);
      this.notify('delete', old);
    }
    this.lastRV = rv;
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters) w.resolve();
      this.syncWaiters.clear();
    }
  }

  private async watchOnce(): Promise<WatchOutcome> {
    const startedAt = this.clock.now();
    let events = 0;
    this.watchDelivered = false;
    const stream = this.client.watch<T>(this.res, {
      ...this.selectors(),
      resourceVersion: this.lastRV,
      allowWatchBookmarks: true,
      readOnly: true,
      // Dropped on arrival anyway: a server in this process can leave them out of the text it sends.
      ...(this.opts.transform === trimManagedFields ? { managedFieldsUnread: true } : {}),
      // client-go picks a random timeout between 5 and 10 minutes so watches of many clients spread out.
      timeoutSeconds: Math.floor(300 * (1 + Math.random())),
    });
    this.watchStream = stream;
    try {
      for await (const ev of stream) {
        if (this.stopped) return 'ended';
        if (ev.type === 'ERROR') {
          const status = ev.object as unknown as Partial<Status>;
          const err = apiErrorFromStatus(status, status.code ?? 500);
          if (err.code === 410 || isGone(err)) return 'gone';
          throw err;
        }
        events++;
        this.watchDelivered = true;
        this.backoffMs = initialBackoffMs;
        this.handleEvent(ev.type, ev.object);
      }
    } finally {
      stream.close();
      if (this.watchStream === stream) this.watchStream = undefined;
    }
    if (events === 0 && this.clock.now() - startedAt < shortWatchMs) return 'short';
    return 'ended';
  }

  private handleEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK', raw: T): void {
    const rv = raw.metadata?.resourceVersion;
    if (type === 'BOOKMARK') {
      if (rv !== undefined && rv !== '') this.lastRV = rv;
      return;
    }
    const obj = this.withTypeMeta(raw);
    const key = objectKey(obj);
    const old = this.cache.get(key);
    if (rv !== undefined && rv !== '' && isNewerResourceVersion(rv, this.lastRV)) this.lastRV = rv;
    if (old !== undefined && !isNewerResourceVersion(rv, old.metadata?.resourceVersion)) return;
    if (type === 'DELETED') {
      if (old === undefined) return;
      this.remove(key);
      this.notify('delete', obj);
      return;
    }
    this.store(key, obj);
    if (old === undefined) this.notify('add', obj);
    else this.notify('update', obj, old);
  }

  private selectors(): { namespace?: string; labelSelector?: string; fieldSelector?: string } {
    const s: { namespace?: string; labelSelector?: string; fieldSelector?: string } = {};
    if (this.opts.namespace !== undefined) s.namespace = this.opts.namespace;
    if (this.opts.labelSelector !== undefined) s.labelSelector = this.opts.labelSelector;
    if (this.opts.fieldSelector !== undefined) s.fieldSelector = this.opts.fieldSelector;
    return s;
  }

  /** List items come without apiVersion/kind; fill them in so handlers can build references. Then transform. */
  private withTypeMeta(obj: T): T {
    const typed = obj.apiVersion !== undefined && obj.kind !== undefined ? obj : { ...obj, apiVersion: obj.apiVersion ?? apiVersionOf(this.res), kind: obj.kind ?? this.res.kind };
    return this.opts.transform !== undefined ? this.opts.transform(typed) : typed;
  }

  /**
   * Caches `obj` and moves its key between index values. As client-go's `updateSingleIndex`, an index whose
   * values did not change is left alone: a pod's status update would otherwise take its key out of, and
   * back into, its namespace's set, which holds every pod's key (150,000 at the benchmark's size) and whose
   * table then fills with deleted entries and is rebuilt over and over.
   */
  private store(key: string, obj: T): void {
    const old = this.cache.get(key);
    this.cache.set(key, obj);
    for (const [name, fn] of this.indexFns) {
      const index = this.indices.get(name);
      if (index === undefined) continue;
      const values = this.indexValues(fn, obj);
      if (old !== undefined) {
        const oldValues = this.indexValues(fn, old);
        if (sameValues(oldValues, values)) continue;
        removeFromIndex(index, key, oldValues);
      }
      addToIndex(index, key, values);
    }
  }

  private remove(key: string): void {
    const old = this.cache.get(key);
    if (old === undefined) return;
    this.unindex(key, old);
    this.cache.delete(key);
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of this.indexFns) {
      const index = this.indices.get(name);
      if (index !== undefined) removeFromIndex(index, key, this.indexValues(fn, obj));
    }
  }

  private indexValues(fn: (obj: T) => string[], obj: T): string[] {
    try {
      return fn(obj);
    } catch (err) {
      this.log('index function failed', err);
      return [];
    }
  }

  /** Tells every handler of a change, without a closure per handler: informers of pods notify for every change. */
  private notify(change: 'add' | 'update' | 'delete', obj: T, old?: T): void {
    for (const h of this.handlers) {
      try {
        if (change === 'add') h.onAdd?.(obj);
        else if (change === 'update') h.onUpdate?.(old as T, obj);
        else h.onDelete?.(obj);
      } catch (err) {
        this.log('event handler failed', err);
      }
    }
  }

  private call(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log('event handler failed', err);
    }
  }

  private backoff(): Promise<void> {
    const ms = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, maxBackoffMs);
    return new Promise((resolve) => {
      if (this.stopped) {
        resolve();
        return;
      }
      this.wakeSleeper = resolve;
      this.sleepTimer = this.clock.setTimeout(() => {
        this.sleepTimer = undefined;
        this.wakeSleeper = undefined;
        resolve();
      }, ms);
    });
  }
}
