/**
 * The watch cache: an in-memory copy of every stored object, kept current from ONE storage watch, so that
 * lists and watches never read the database (kube-apiserver's cacher). Each resource has a `ResourceCache`
 * with its objects, a window of recent events (to serve watches from a recent resourceVersion) and indexes
 * (namespace; pods by `spec.nodeName`). Cached objects are shared and must be treated as immutable.
 */
import type { Backend, KeyValue, WatchEvent as StorageEvent } from '../../storage/backend.js';
import { Compacted } from '../../storage/backend.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { WriteNotes, type WriteNote as BaseWriteNote } from './write-notes.js';
import { withoutManagedFields } from './managed-fields-text.js';
import { deepFreeze } from '../../util/deep-freeze.js';

/** `ObjectMeta` without kubernetes-types' `readonly`: the server writes metadata. */
export type MutableMeta = { -readonly [K in keyof ObjectMeta]: ObjectMeta[K] };

/** An object as the API server holds it: metadata writable, the rest untyped. */
export type StoredObject = { apiVersion?: string; kind?: string; metadata?: MutableMeta } & Record<string, unknown>;

export interface CachedObject {
  readonly key: string;
  readonly obj: StoredObject;
  readonly rv: number;
  /** Lazily built JSON of `obj` (with its resourceVersion), shared by every response that sends it. */
  json?: string;
  /** Lazily computed labels and selectable fields, kept so filters need not decode the object again. */
  attrs?: ObjectAttrs;
}

/**
 * What watch and list filters look at: an object's labels and selectable fields (kube-apiserver's
 * `storage.AttrFunc`; its cacher keeps them beside each object, as `ResourceCache` does).
 */
export interface ObjectAttrs {
  readonly labels: Readonly<Record<string, string>> | undefined;
  readonly fields: Readonly<Record<string, string>>;
}

/** What a writer noted for the bytes it stored (`CacheDispatcher.noteWrite`). */
export type WriteNote = BaseWriteNote<ObjectAttrs>;

export type AttrsOf = (obj: StoredObject) => ObjectAttrs;

export type CacheEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface CacheEvent {
  readonly type: CacheEventType;
  readonly object: CachedObject;
  readonly prev: CachedObject | undefined;
  readonly rv: number;
  readonly at: number;
}

/** The text of a stored value (a view on its bytes, not a copy). */
export function storedText(kv: KeyValue): string {
  const v = kv.value;
  // A view on the stored bytes, not a copy of them (`Buffer.from(uint8array)` copies).
  return (Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength)).toString('utf8');
}

/**
 * The object of a stored JSON text with the resourceVersion of its revision (stored objects carry none:
 * it is set last in `metadata`). Readers elsewhere (another thread) rebuild cached objects the same way.
 */
export function objectOfStoredText(text: string, revision: number): StoredObject {
  const obj = JSON.parse(text) as StoredObject;
  const md = (obj.metadata ??= {});
  md.resourceVersion = String(revision);
  return obj;
}

/** Decodes a stored value and stamps the resourceVersion from the storage revision. */
export function decodeObject(kv: KeyValue): StoredObject {
  return objectOfStoredText(storedText(kv), kv.modRevision);
}

/**
 * A cached object decoded on first use: objects nobody watches or reads (most Events) stay as the stored
 * bytes, which costs neither the JSON.parse nor the memory of the object tree. While its change is being
 * dispatched it also keeps the stored text, for watchers that forward changes as text (other threads).
 *
 * With `keepDecoded` false the decoded tree lives only while the change is dispatched: the cache then
 * holds the stored bytes (outside the JS heap) and the small `attrs`, and a later reader decodes again.
 * That is for resources that churn in bulk and that the server itself seldom reads (pods, events,
 * leases): keeping a tree per object, and per version in the event window, is what the garbage
 * collector would otherwise walk and copy.
 */
class LazyCachedObject implements CachedObject {
  json?: string;
  attrs?: ObjectAttrs;
  private decoded: StoredObject | undefined;
  private kv: KeyValue | undefined;
  private text: string | undefined;

  constructor(
    readonly key: string,
    readonly rv: number,
    kv: KeyValue,
    private readonly keepDecoded: boolean,
  ) {
    this.kv = kv;
  }

  get obj(): StoredObject {
    if (this.decoded !== undefined) return this.decoded;
    const text = this.text ?? storedText(this.kv as KeyValue);
    if (this.dispatching) this.text = text;
    const obj = objectOfStoredText(text, this.rv);
    if (this.keepDecoded) {
      this.decoded = obj;
      this.kv = undefined;
    } else if (this.dispatching) {
      this.decoded = obj;
    }
    return obj;
  }

  /** The stored value, while the object is kept as stored bytes (see `keepDecoded`). */
  storedValue(): KeyValue | undefined {
    return this.kv;
  }

  /** While the change is dispatched, the stored text is kept for every watcher that asks (`storedText`). */
  private dispatching = false;

  /** Starts the change's dispatch; `text` is the stored text when the writer handed it over (not decoded again). */
  beginDispatch(text?: string): void {
    this.dispatching = true;
    if (text !== undefined) this.text = text;
  }

  /** The stored text during the change's dispatch, else undefined. */
  storedText(): string | undefined {
    if (!this.dispatching) return undefined;
    if (this.text === undefined && this.kv !== undefined) this.text = storedText(this.kv);
    return this.text;
  }

  /** The stored text without metadata.managedFields, during the change's dispatch; cut once for all watchers. */
  private trimmedText: string | undefined;

  storedTextWithoutManagedFields(): string | undefined {
    if (this.trimmedText !== undefined) return this.trimmedText;
    const text = this.storedText();
    if (text !== undefined) this.trimmedText = withoutManagedFields(text);
    return this.trimmedText;
  }

  settle(): void {
    this.dispatching = false;
    this.text = undefined;
    this.trimmedText = undefined;
    if (!this.keepDecoded) this.decoded = undefined;
  }
}

/**
 * The stored JSON of a change being delivered (without its resourceVersion; see `objectOfStoredText`), or
 * undefined when there is none at hand (deletions, the initial state): only valid during `push`.
 */
export function storedTextOf(c: CachedObject): string | undefined {
  return c instanceof LazyCachedObject ? c.storedText() : undefined;
}

/** As `storedTextOf`, without the object's metadata.managedFields (see `withoutManagedFields`). */
export function storedTextWithoutManagedFieldsOf(c: CachedObject): string | undefined {
  return c instanceof LazyCachedObject ? c.storedTextWithoutManagedFields() : undefined;
}

const frozen = new WeakSet<object>();

/**
 * The cached object itself, deep-frozen, for in-process readers that promised not to modify it (informers):
 * one decoded object shared by every such watcher instead of a parsed copy each. A reader that tries to
 * modify it fails loudly (a TypeError in strict mode) instead of corrupting the cache.
 */
export function sharedObject(c: CachedObject): StoredObject {
  const obj = c.obj;
  if (!frozen.has(obj)) {
    deepFreeze(obj);
    frozen.add(obj);
  }
  return obj;
}

export function cachedJson(c: CachedObject): string {
  c.json ??= JSON.stringify(c.obj);
  return c.json;
}

/**
 * A cached object as text for a reader in another thread: while the cache holds its stored bytes (or is
 * dispatching it), its stored text and the revision to stamp (`objectOfStoredText`), neither decoded nor
 * serialised here; otherwise its JSON (not kept: a list of every object would otherwise leave a copy of
 * each beside it).
 */
export function encodedText(c: CachedObject): { json: string; storedRevision?: number } {
  if (c instanceof LazyCachedObject) {
    const dispatched = c.storedText();
    if (dispatched !== undefined) return { json: dispatched, storedRevision: c.rv };
    const kv = c.storedValue();
    if (kv !== undefined) return { json: storedText(kv), storedRevision: c.rv };
  }
  return { json: c.json ?? JSON.stringify(c.obj) };
}

export interface WatchFilter {
  /** Only objects in this namespace. */
  namespace?: string;
  /** Pods only: only objects on this node (uses the nodeName index). */
  nodeName?: string;
  matches(attrs: ObjectAttrs): boolean;
}

export interface CacheWatcherSink {
  /** Delivers one event; the object's `attrs` are set (the filter looked at them). */
  push(type: CacheEventType, object: CachedObject): void;
  /** The cache closes a watcher that fell too far behind or when it stops. */
  close(reason?: string): void;
}

interface Watcher {
  filter: WatchFilter;
  sink: CacheWatcherSink;
}

export class TooOldResourceVersion extends Error {
  constructor(
    readonly requested: number,
    readonly oldest: number,
  ) {
    super(`too old resource version: ${requested} (${oldest})`);
  }
}

export interface ResourceCacheOptions {
  /** Pods: maintain the `spec.nodeName` index (from the `spec.nodeName` field of `attrsOf`). */
  indexNodeName: boolean;
  /** Labels and selectable fields of an object of this resource. */
  attrsOf: AttrsOf;
  /** Keep objects decoded once read (default true); see `LazyCachedObject`. */
  keepDecoded?: boolean;
  /** Keep at least this many recent events (default 1000). */
  minEvents?: number;
  /** Keep events younger than this (default 75 s, as kube-apiserver's event window). */
  eventWindowMs?: number;
  /** Never keep more than this many events (default 100,000). */
  maxEvents?: number;
  now?: () => number;
}

function nodeNameOf(a: ObjectAttrs): string {
  return a.fields['spec.nodeName'] ?? '';
}

export class ResourceCache {
  private readonly objects = new Map<string, CachedObject>();
  private readonly byNamespace = new Map<string, Set<string>>();
  private readonly byNodeName = new Map<string, Set<string>>();
  private events: CacheEvent[] = [];
  private eventsStart = 0;
  /** Revision up to which this cache is complete; events older than `oldestRevision` are not replayable. */
  private oldestRevision: number;
  private readonly watchers = new Set<Watcher>();
  private readonly nodeWatchers = new Map<string, Set<Watcher>>();
  private readonly now: () => number;

  constructor(
    readonly prefix: string,
    initialRevision: number,
    private readonly opts: ResourceCacheOptions,
    /** What its writer noted for a stored value, taken once (see `CacheDispatcher.noteWrite`). */
    private readonly noted: (kv: KeyValue) => WriteNote | undefined = () => undefined,
  ) {
    this.oldestRevision = initialRevision;
    this.now = opts.now ?? Date.now;
  }

  /** Loads the initial state (objects as of `initialRevision`). */
  load(kvs: readonly KeyValue[]): void {
    for (const kv of kvs) this.insert(this.entry(kv, kv.modRevision, false));
  }

  /** A cached object for a stored value; `dispatching` when its change is about to be dispatched. */
  private entry(kv: KeyValue, rv: number, dispatching: boolean): LazyCachedObject {
    const c = new LazyCachedObject(kv.key, rv, kv, this.opts.keepDecoded ?? true);
    const note = this.noted(kv);
    if (note !== undefined) c.attrs = note.attrs;
    if (dispatching) c.beginDispatch(note?.text);
    return c;
  }

  /** The stored value of a cached object, when the cache holds it as stored bytes (not decoded). */
  storedValue(key: string): KeyValue | undefined {
    const c = this.objects.get(key);
    return c instanceof LazyCachedObject ? c.storedValue() : undefined;
  }

  /** The object's labels and selectable fields, computed once per cached version. */
  attrs(c: CachedObject): ObjectAttrs {
    c.attrs ??= this.opts.attrsOf(c.obj);
    return c.attrs;
  }

  size(): number {
    return this.objects.size;
  }

  get(key: string): CachedObject | undefined {
    return this.objects.get(key);
  }

  private insert(c: CachedObject): CachedObject | undefined {
    const prev = this.objects.get(c.key);
    if (prev !== undefined) this.unindex(prev);
    this.objects.set(c.key, c);
    this.index(c);
    return prev;
  }

  /** The namespace part of a key (`<prefix><namespace>/<name>`; cluster-scoped keys have none), without decoding. */
  private namespaceOfKey(key: string): string {
    const rest = key.slice(this.prefix.length);
    const slash = rest.indexOf('/');
    return slash < 0 ? '' : rest.slice(0, slash);
  }

  private index(c: CachedObject): void {
    addTo(this.byNamespace, this.namespaceOfKey(c.key), c.key);
    if (this.opts.indexNodeName) addTo(this.byNodeName, nodeNameOf(this.attrs(c)), c.key);
  }

  private unindex(c: CachedObject): void {
    removeFrom(this.byNamespace, this.namespaceOfKey(c.key), c.key);
    if (this.opts.indexNodeName) removeFrom(this.byNodeName, nodeNameOf(this.attrs(c)), c.key);
  }

  /** How many changes this cache has applied: what a reader memoizing a derived view compares. */
  generation(): number {
    return this.applied;
  }

  private applied = 0;

  /** Applies one storage event (called by the dispatcher in revision order). */
  apply(ev: StorageEvent): void {
    this.applied++;
    let event: CacheEvent;
    const at = this.now();
    if (ev.type === 'put') {
      const c = this.entry(ev.kv, ev.revision, true);
      const prev = this.insert(c);
      event = { type: prev === undefined ? 'ADDED' : 'MODIFIED', object: c, prev, rv: ev.revision, at };
    } else {
      const prev = this.objects.get(ev.kv.key);
      if (prev !== undefined) {
        this.unindex(prev);
        this.objects.delete(ev.kv.key);
      }
      const last = prev ?? (ev.prevKv !== undefined ? { key: ev.kv.key, obj: decodeObject(ev.prevKv), rv: ev.prevKv.modRevision } : undefined);
      if (last === undefined) return;
      // A deleted object is reported with the resourceVersion of the delete, as kube-apiserver does.
      const obj = { ...last.obj, metadata: { ...last.obj.metadata, resourceVersion: String(ev.revision) } };
      const gone: CachedObject = { key: ev.kv.key, obj, rv: ev.revision, attrs: this.attrs(last) };
      event = { type: 'DELETED', object: gone, prev: last, rv: ev.revision, at };
    }
    this.events.push(event);
    this.trimEvents(at);
    this.dispatch(event);
    if (event.object instanceof LazyCachedObject) event.object.settle();
  }

  private trimEvents(now: number): void {
    const min = this.opts.minEvents ?? 1000;
    const max = this.opts.maxEvents ?? 100_000;
    const window = this.opts.eventWindowMs ?? 75_000;
    let drop = this.eventsStart;
    const live = (): number => this.events.length - drop;
    while (live() > max || (live() > min && now - (this.events[drop]?.at ?? now) > window)) {
      this.oldestRevision = this.events[drop]?.rv ?? this.oldestRevision;
      drop++;
    }
    this.eventsStart = drop;
    if (this.eventsStart > 4096 && this.eventsStart * 2 > this.events.length) {
      this.events = this.events.slice(this.eventsStart);
      this.eventsStart = 0;
    }
  }

  private dispatch(event: CacheEvent): void {
    if (this.watchers.size === 0) return;
    const targets: Iterable<Watcher> = this.opts.indexNodeName ? this.watchersForNode(event) : this.watchers;
    for (const w of targets) this.deliver(w, event);
  }

  private *watchersForNode(event: CacheEvent): Iterable<Watcher> {
    for (const w of this.watchers) if (w.filter.nodeName === undefined) yield w;
    const a = nodeNameOf(this.attrs(event.object));
    const b = event.prev !== undefined ? nodeNameOf(this.attrs(event.prev)) : a;
    yield* this.nodeWatchers.get(a) ?? [];
    if (b !== a) yield* this.nodeWatchers.get(b) ?? [];
  }

  /** Objects matching the filter, sorted by key. */
  list(filter: WatchFilter): CachedObject[] {
    let keys: Iterable<string>;
    if (filter.nodeName !== undefined && this.opts.indexNodeName) keys = this.byNodeName.get(filter.nodeName) ?? [];
    else if (filter.namespace !== undefined) keys = this.byNamespace.get(filter.namespace) ?? [];
    else keys = this.objects.keys();
    const out: CachedObject[] = [];
    for (const k of keys) {
      const c = this.objects.get(k);
      if (c !== undefined && this.inScope(filter, c)) out.push(c);
    }
    out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return out;
  }

  /**
   * Starts a watcher. `fromRevision` undefined: synthetic ADDED events for the current state first.
   * Otherwise replays retained events after it; throws `TooOldResourceVersion` if they are gone.
   * Returns a function that stops the watcher.
   */
  watch(filter: WatchFilter, sink: CacheWatcherSink, fromRevision: number | undefined): () => void {
    const w: Watcher = { filter, sink };
    if (fromRevision === undefined) {
      for (const c of this.list(filter)) sink.push('ADDED', c);
    } else {
      if (fromRevision < this.oldestRevision) throw new TooOldResourceVersion(fromRevision, this.oldestRevision);
      for (let i = this.eventsStart; i < this.events.length; i++) {
        const e = this.events[i];
        if (e !== undefined && e.rv > fromRevision) this.deliver(w, e);
      }
    }
    this.watchers.add(w);
    if (filter.nodeName !== undefined && this.opts.indexNodeName) addTo(this.nodeWatchers, filter.nodeName, w);
    return () => {
      this.watchers.delete(w);
      if (filter.nodeName !== undefined) removeFrom(this.nodeWatchers, filter.nodeName, w);
    };
  }

  private inScope(f: WatchFilter, c: CachedObject): boolean {
    if (f.namespace !== undefined && this.namespaceOfKey(c.key) !== f.namespace) return false;
    const a = this.attrs(c);
    return (f.nodeName === undefined || nodeNameOf(a) === f.nodeName) && f.matches(a);
  }

  /** Turns a change into what this watcher sees: objects entering or leaving its filter are ADDED/DELETED. */
  private deliver(w: Watcher, e: CacheEvent): void {
    const f = w.filter;
    if (e.type === 'ADDED') {
      if (this.inScope(f, e.object)) w.sink.push('ADDED', e.object);
      return;
    }
    if (e.type === 'DELETED') {
      if (e.prev !== undefined && this.inScope(f, e.prev)) w.sink.push('DELETED', e.object);
      return;
    }
    const now = this.inScope(f, e.object);
    const before = e.prev !== undefined && this.inScope(f, e.prev);
    if (now && before) w.sink.push('MODIFIED', e.object);
    else if (now) w.sink.push('ADDED', e.object);
    else if (before) w.sink.push('DELETED', e.object);
  }

  /** Closes every watcher (the cache is going away). */
  closeAll(reason: string): void {
    for (const w of [...this.watchers]) w.sink.close(reason);
    this.watchers.clear();
    this.nodeWatchers.clear();
  }
}

function addTo<V>(m: Map<string, Set<V>>, k: string, v: V): void {
  let s = m.get(k);
  if (s === undefined) m.set(k, (s = new Set()));
  s.add(v);
}

function removeFrom<V>(m: Map<string, Set<V>>, k: string, v: V): void {
  const s = m.get(k);
  if (s === undefined) return;
  s.delete(v);
  if (s.size === 0) m.delete(k);
}

/** How long a read waits for the caches to catch up with storage (the watch cache's `blockTimeout`). */
const freshnessTimeoutMs = 3000;

/**
 * Feeds every ResourceCache from one storage watch on `/registry/`, in revision order, and tracks the
 * revision the caches have reached so reads can wait until they are fresh.
 */
export class CacheDispatcher {
  private readonly caches = new Map<string, ResourceCache>();
  /** Caches being loaded: their events are held until the load is done. */
  private readonly loading = new Map<string, { cache: ResourceCache; held: StorageEvent[] }>();
  private revision = 0;
  private waiters: { rev: number; resolve: () => void }[] = [];
  private stopWatch: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private failure: Error | undefined;
  private readonly written = new WriteNotes<ObjectAttrs>();

  constructor(
    private readonly backend: Backend,
    private readonly root = '/registry/',
  ) {}

  currentRevision(): number {
    return this.revision;
  }

  /** Starts the storage watch from the store's current revision. */
  async start(): Promise<void> {
    this.revision = await this.backend.currentRevision();
    const watch = this.backend.watch(this.root, this.revision);
    this.stopWatch = () => watch.close();
    this.running = (async () => {
      try {
        for await (const ev of watch) this.onEvent(ev);
      } catch (e) {
        this.failure = e instanceof Error ? e : new Error(String(e));
        if (!(e instanceof Compacted)) console.error('watch cache: storage watch failed:', e);
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopWatch?.();
    await this.running;
    for (const c of this.caches.values()) c.closeAll('apiserver is shutting down');
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
  }

  /**
   * Records the attributes and the JSON text of an object this server is about to store at `key` as
   * `value` (the bytes handed to the backend, encoding `text`): when the backend's event carries those
   * bytes (or, from etcd, the same bytes), the cache takes the attributes from here instead of decoding
   * the value to index and filter it, and dispatches the text instead of decoding the bytes to text again.
   * The note is taken once (`WriteNotes`). Values arriving otherwise (another API server's writes through
   * etcd, a watch catching up from the log) are decoded as usual.
   */
  noteWrite(key: string, value: Uint8Array, attrs: ObjectAttrs, text: string): void {
    // Without a cache for the key nobody would take the note (a cache loading meanwhile decodes instead).
    if (this.findCache(key) !== undefined) this.written.add(key, value, { attrs, text });
  }

  /** The cache for a key prefix, creating and loading it on first use. */
  async cacheFor(prefix: string, opts: ResourceCacheOptions): Promise<ResourceCache> {
    const existing = this.caches.get(prefix);
    if (existing !== undefined) return existing;
    const pending = this.loading.get(prefix);
    if (pending !== undefined) {
      await this.waitFor(() => this.caches.has(prefix));
      const c = this.caches.get(prefix);
      if (c !== undefined) return c;
    }
    const at = this.revision;
    // Taken once: the bytes stay cached (as the object's stored value) long after their change is dispatched.
    const cache = new ResourceCache(prefix, at, opts, (kv) => this.written.take(kv));
    const entry = { cache, held: [] as StorageEvent[] };
    this.loading.set(prefix, entry);
    try {
      let continueFrom: string | undefined;
      for (;;) {
        const page = await this.backend.list(prefix, { revision: at, limit: 10_000, ...(continueFrom !== undefined ? { continueFrom } : {}) });
        cache.load(page.items);
        if (!page.more) break;
        continueFrom = page.items[page.items.length - 1]?.key;
      }
      for (const ev of entry.held) if (ev.revision > at) cache.apply(ev);
      this.caches.set(prefix, cache);
    } finally {
      this.loading.delete(prefix);
    }
    this.wake();
    return cache;
  }

  private onEvent(ev: StorageEvent): void {
    const key = ev.kv.key;
    for (const [prefix, entry] of this.loading) if (key.startsWith(prefix)) entry.held.push(ev);
    const cache = this.findCache(key);
    cache?.apply(ev);
    this.revision = ev.revision;
    this.wake();
  }

  private findCache(key: string): ResourceCache | undefined {
    // Keys are /registry/<resource>/... or /registry/<group>/<resource>/...: try the two candidate prefixes,
    // cut at the slashes (every write asks, twice: not worth an array of its segments).
    if (key.charCodeAt(0) !== 0x2f) return undefined;
    const s1 = key.indexOf('/', 1);
    if (s1 < 0) return undefined;
    const s2 = key.indexOf('/', s1 + 1);
    if (s2 < 0) return this.caches.get(`${key}/`);
    const s3 = key.indexOf('/', s2 + 1);
    return this.caches.get(s3 < 0 ? `${key}/` : key.slice(0, s3 + 1)) ?? this.caches.get(key.slice(0, s2 + 1));
  }

  private wake(): void {
    if (this.waiters.length === 0) return;
    const still: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (w.rev <= this.revision) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
  }

  private async waitFor(cond: () => boolean): Promise<void> {
    while (!cond()) await new Promise<void>((resolve) => this.waiters.push({ rev: this.revision + 1, resolve }));
  }

  /** Throws what stopped the storage watch, if it stopped: the caches no longer follow storage. */
  checkFollowing(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  /**
   * Resolves once the caches have applied every write up to `rev`; rejects after `timeoutMs`
   * (kube-apiserver answers "Too large resource version" after 3 s).
   */
  async waitForRevision(rev: number, timeoutMs = freshnessTimeoutMs): Promise<void> {
    if (!(await this.caughtUp(rev, timeoutMs))) throw new Error(`Too large resource version: ${rev}, current: ${this.revision}`);
  }

  /**
   * Whether the caches applied every write up to `rev` within `timeoutMs` (the watch cache's
   * `waitUntilFreshAndBlock`, whose block timeout is 3 s).
   */
  async caughtUp(rev: number, timeoutMs = freshnessTimeoutMs): Promise<boolean> {
    this.checkFollowing();
    if (rev <= this.revision) return true;
    return new Promise<boolean>((resolve) => {
      const t = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== done);
        resolve(false);
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(t);
        resolve(true);
      };
      this.waiters.push({ rev, resolve: done });
    });
  }
}
