/**
 * Watches served straight from storage, for resources kept out of the watch cache (Events:
 * kube-apiserver's `DefaultWatchCacheSizes` sets `events` and `events.k8s.io/events` to 0, so their
 * watches go to etcd). This is the etcd3 store's watcher (`k8s.io/apiserver/pkg/storage/etcd3/watcher.go`):
 * without a start revision the current state is sent as ADDED events first and the watch continues from
 * the revision it was read at; each change is decoded and filtered, and an object entering or leaving the
 * filter is ADDED or DELETED, judged on the value before the change (storage's `prevKv`).
 */
import type { Backend, KeyValue, WatchEvent } from '../../storage/backend.js';
import { Compacted } from '../../storage/backend.js';
import { objectOfStoredText, storedText, type AttrsOf, type CachedObject, type CacheWatcherSink, type WatchFilter } from './watch-cache.js';

/** etcd's error for a watch below its compacted revision, which kube-apiserver sends as a 410 Expired. */
const compactedMessage = 'etcdserver: mvcc: required revision has been compacted';

export class StorageWatchCompacted extends Error {
  constructor() {
    super(compactedMessage);
  }
}

export interface StorageWatchOptions {
  backend: Backend;
  /** The key prefix watched: the resource's, or one namespace's below it. */
  prefix: string;
  filter: WatchFilter;
  attrsOf: AttrsOf;
  sink: CacheWatcherSink;
  /** Changes after this revision; undefined: the current state as ADDED events, then changes after it. */
  fromRevision: number | undefined;
}

/** Page size of the initial state's read. */
const initialPage = 10_000;

/**
 * Starts a watch on storage. Throws `StorageWatchCompacted` when `fromRevision` is below the compacted
 * revision. Returns a function that stops it; a storage failure later closes the sink.
 */
export async function watchStorage(o: StorageWatchOptions): Promise<() => void> {
  let after: number;
  if (o.fromRevision === undefined) {
    after = await sendInitialState(o);
  } else {
    if (o.fromRevision < (await o.backend.compactedRevision())) throw new StorageWatchCompacted();
    after = o.fromRevision;
  }
  const watch = o.backend.watch(o.prefix, after);
  let stopped = false;
  void (async () => {
    try {
      for await (const ev of watch) deliver(o, ev);
      if (!stopped) o.sink.close('storage watch ended');
    } catch (e) {
      if (!stopped) o.sink.close(e instanceof Compacted ? compactedMessage : e instanceof Error ? e.message : String(e));
    }
  })();
  return () => {
    stopped = true;
    watch.close();
  };
}

/** Sends the objects under the prefix at one revision as ADDED; returns that revision. */
async function sendInitialState(o: StorageWatchOptions): Promise<number> {
  let revision: number | undefined;
  let continueFrom: string | undefined;
  for (;;) {
    const page = await o.backend.list(o.prefix, {
      ...(revision !== undefined ? { revision } : {}),
      limit: initialPage,
      ...(continueFrom !== undefined ? { continueFrom } : {}),
    });
    revision = page.revision;
    for (const kv of page.items) {
      const c = cachedObject(o, kv, kv.modRevision);
      if (o.filter.matches(c.attrs)) o.sink.push('ADDED', c);
    }
    if (!page.more) return revision;
    continueFrom = page.items[page.items.length - 1]?.key;
  }
}

function cachedObject(o: StorageWatchOptions, kv: KeyValue, rv: number): CachedObject & { attrs: NonNullable<CachedObject['attrs']> } {
  const obj = objectOfStoredText(storedText(kv), rv);
  return { key: kv.key, obj, rv, attrs: o.attrsOf(obj) };
}

/** One storage change as the watcher sees it (etcd3 watchChan.transform). */
function deliver(o: StorageWatchOptions, ev: WatchEvent): void {
  if (ev.type === 'delete') {
    // A deleted object is sent as its last value with the revision of the delete.
    const gone = cachedObject(o, ev.prevKv ?? ev.kv, ev.revision);
    if (o.filter.matches(gone.attrs)) o.sink.push('DELETED', gone);
    return;
  }
  const cur = cachedObject(o, ev.kv, ev.revision);
  const now = o.filter.matches(cur.attrs);
  // etcd's IsCreate: the put that created this incarnation of the key.
  if (ev.kv.createRevision === ev.revision) {
    if (now) o.sink.push('ADDED', cur);
    return;
  }
  if (ev.prevKv === undefined) {
    if (now) o.sink.push('MODIFIED', cur);
    return;
  }
  // The value before the change carries the change's revision, as the etcd3 watcher decodes it.
  const prev = cachedObject(o, ev.prevKv, ev.revision);
  const before = o.filter.matches(prev.attrs);
  if (now && before) o.sink.push('MODIFIED', cur);
  else if (now) o.sink.push('ADDED', cur);
  else if (before) o.sink.push('DELETED', prev);
}
