/**
 * The storage seam: a revisioned key-value store with etcd's meaning (kine's `Backend`). The API server
 * sees only this interface; SQL and etcd specifics live in `sqlite/` and `etcd/` below it.
 *
 * Revisions: one global counter, strictly increasing, shared by all keys. Every successful write returns
 * the revision it created. A key's `modRevision` is the revision of its last write; `createRevision` that
 * of the write that created it (a delete then re-create starts a new createRevision).
 */

export interface KeyValue {
  readonly key: string;
  readonly value: Uint8Array;
  /** Revision of the write that created this incarnation of the key. */
  readonly createRevision: number;
  /** Revision of the last write to the key: the object's resourceVersion. */
  readonly modRevision: number;
}

export interface ListOptions {
  /**
   * Read at this revision instead of the current one; fails with `Compacted` (below `compactedRevision()`;
   * the compacted revision itself stays readable) / `FutureRevision`. 0 or absent: the current revision.
   */
  readonly revision?: number;
  /** At most this many items; `more` tells whether there were others. 0 or absent: no limit. */
  readonly limit?: number;
  /** Start strictly after this key (the last key of the previous page). */
  readonly continueFrom?: string;
}

export interface ListResult {
  readonly items: readonly KeyValue[];
  /** The revision the list was read at (the current one unless `revision` was given). */
  readonly revision: number;
  /** True when `limit` cut the result. */
  readonly more: boolean;
}

export type WatchEventType = 'put' | 'delete';

export interface WatchEvent {
  readonly type: WatchEventType;
  /** For a put: the new value; for a delete: the key with its last value and modRevision = delete revision. */
  readonly kv: KeyValue;
  /** For a put of an existing key: the value before; for a delete: the deleted value. */
  readonly prevKv?: KeyValue;
  /** The revision of this change. */
  readonly revision: number;
}

/**
 * A watch stream. Iterating yields every change under the prefix after the start revision, in revision
 * order, with no gaps and no duplicates. The iterator throws `Compacted` if the start revision was
 * compacted away. `close()` ends the iteration (a pending `next()` resolves done); it is idempotent.
 */
export interface Watch extends AsyncIterable<WatchEvent> {
  close(): void;
}

export interface Backend {
  /** The current revision (that of the last write; 0 for an empty store). */
  currentRevision(): Promise<number>;
  /** The key's current value, or undefined. */
  get(key: string): Promise<KeyValue | undefined>;
  /** Keys with the prefix, sorted by key, at the current or the given revision. */
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /** Number of keys with the prefix at the current revision. */
  count(prefix: string): Promise<number>;
  /** Creates the key; fails with `KeyExists` if it is present. Returns the new revision. */
  create(key: string, value: Uint8Array): Promise<number>;
  /**
   * Replaces the key's value if its modRevision is `expectedRevision`; fails with `Conflict` (carrying the
   * current KeyValue) if it changed, with `KeyNotFound` if absent. Returns the new revision.
   */
  update(key: string, value: Uint8Array, expectedRevision: number): Promise<number>;
  /**
   * Deletes the key, only if its modRevision is `expectedRevision` when that is given; fails with `Conflict`
   * or `KeyNotFound`. Returns the revision of the delete and the deleted value.
   */
  delete(key: string, expectedRevision?: number): Promise<{ revision: number; prev: KeyValue }>;
  /**
   * Changes under the prefix after `afterRevision` (exclusive), as described on `Watch`. A start at or
   * above `compactedRevision()` is always served; below it the iterator throws `Compacted` (whose
   * `requested` is the revision the stream had reached). A future `afterRevision` waits for later writes,
   * as etcd does.
   */
  watch(prefix: string, afterRevision: number): Watch;
  /**
   * Forgets history at or below `revision` (current values are kept). Later reads or watches at an older
   * revision fail with `Compacted`. Runs in short batches so writers are never blocked for long.
   */
  compact(revision: number): Promise<void>;
  /** The revision history was compacted to (0 if never). */
  compactedRevision(): Promise<number>;
  /** Size of the stored data in bytes (for benchmarks and metrics). */
  dbSize(): Promise<number>;
  /** Stops background work and releases the database. Idempotent. */
  close(): Promise<void>;
}

/** Base class of the typed storage errors. */
export class StorageError extends Error {}

export class KeyExists extends StorageError {
  constructor(readonly key: string) {
    super(`key exists: ${key}`);
    this.name = 'KeyExists';
  }
}

export class KeyNotFound extends StorageError {
  constructor(readonly key: string) {
    super(`key not found: ${key}`);
    this.name = 'KeyNotFound';
  }
}

export class Conflict extends StorageError {
  constructor(
    readonly key: string,
    /** The key's current value; undefined when it was deleted meanwhile. */
    readonly current: KeyValue | undefined,
  ) {
    super(`conflict on ${key}`);
    this.name = 'Conflict';
  }
}

export class Compacted extends StorageError {
  constructor(
    readonly requested: number,
    readonly compactedRevision: number,
  ) {
    super(`required revision ${requested} has been compacted (compacted to ${compactedRevision})`);
    this.name = 'Compacted';
  }
}

export class FutureRevision extends StorageError {
  constructor(
    readonly requested: number,
    readonly current: number,
  ) {
    super(`required revision ${requested} is a future revision (current ${current})`);
    this.name = 'FutureRevision';
  }
}
