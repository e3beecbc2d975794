/**
 * The embedded storage backend: one SQLite file, modelled on kine's revision log
 * (https://github.com/k3s-io/kine, pkg/drivers/generic). Every write appends one row to `kv`; the row id
 * is the revision. An index of the live keys, kept in memory and checkpointed to the `current` table
 * (`_current.ts`), maps each key to its latest row, so reads at the current revision are index lookups;
 * reads at an older revision take, per key, the newest row at or below that revision.
 *
 * - Durability: WAL. A write's promise resolves, and watchers see it, only after its transaction has been
 *   committed and the WAL file fdatasync'd, so an acknowledged write survives `kill -9` and power loss.
 *   SQLite itself runs with synchronous=NORMAL (no sync inside the commit) and the backend syncs the WAL
 *   off the event loop (libuv's thread pool), one sync at a time: batches committed while a sync runs are
 *   covered by the next one, so the event loop never waits for the disk.
 * - Group commit: writes issued in the same event-loop turn are queued and committed together in one
 *   transaction (at most 2000 per transaction) at the next `setImmediate`; each write is still checked
 *   and applied on its own (a failed precondition fails only that write).
 * - Ownership: the file is opened with an exclusive lock; a second process (or a second backend in the
 *   same process) cannot open it. That is what lets watch events come straight from the write path.
 * - Compaction: see `SqliteCompactionOptions`.
 */
import { closeSync, fdatasync, mkdirSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import {
  Compacted,
  Conflict,
  FutureRevision,
  KeyExists,
  KeyNotFound,
  type Backend,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Watch,
  type WatchEvent,
} from '../backend.js';
import { CurrentIndex, type CurrentRow } from './_current.js';
import { compareKeys, prefixEnd, sortKeys } from './_keys.js';
import { SqliteWatch, type WatchHost } from './_watch.js';

/**
 * Automatic compaction, in the spirit of kube-apiserver's compactor (`--etcd-compaction-interval`, 5 min):
 * every `intervalMs` the backend compacts to the revision it saw at the previous tick, so at least one
 * interval (5 to 10 minutes by default) of history stays readable, but it always keeps the last
 * `minRetainRevisions` revisions (kine's `compactMinRetain`).
 */
export interface SqliteCompactionOptions {
  /** Default 300000 (5 minutes). */
  readonly intervalMs?: number;
  /** Default 1000. */
  readonly minRetainRevisions?: number;
}

export interface SqliteBackendOptions {
  /** Directory of the database file; created if missing. */
  readonly dataDir: string;
  /** File name inside `dataDir`. Default `kubemix.db`. */
  readonly fileName?: string;
  /** Automatic compaction settings, or `false` for none (compact() still works). */
  readonly compaction?: SqliteCompactionOptions | false;
  /**
   * Log rows handled per compaction batch. Each batch is one short transaction; the compactor yields to
   * the event loop between batches so writers wait at most one batch (a few milliseconds). Default 500.
   */
  readonly compactionBatch?: number;
  /** Undelivered events a live watcher may hold before it falls back to reading the log. Default 10000. */
  readonly watchBufferEvents?: number;
  /** Log rows a catching-up watcher reads per query. Default 1000. */
  readonly watchReadBatch?: number;
  /** Receives errors of the automatic compactor (which has no caller to reject). Default: ignored. */
  readonly onBackgroundError?: (err: unknown) => void;
  /**
   * Changed keys that start a write-back of the in-memory index of live keys to its `current` table
   * (`_current.ts`). Default 100,000.
   */
  readonly currentWriteBackKeys?: number;
  /** Keys written back per transaction, one transaction per event-loop turn. Default 2000. */
  readonly currentWriteBackSlice?: number;
  /** How the WAL is made durable: `fs.fdatasync` (tests slow it down to watch syncs being grouped). */
  readonly fdatasync?: (fd: number, done: (err: NodeJS.ErrnoException | null) => void) => void;
}

export const defaultSqliteFileName = 'kubemix.db';

/** Writes per group commit; a larger queue is committed over several event-loop turns, in order. */
const maxWritesPerCommit = 2000;

const schema = `
CREATE TABLE IF NOT EXISTS kv (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  value BLOB NOT NULL
);
-- Data dirs of earlier versions index the log by (name, id); lists at a revision now need only the log's
-- order, and the index cost every write a third of its time.
DROP INDEX IF EXISTS kv_name_id;
CREATE TABLE IF NOT EXISTS current (
  name TEXT PRIMARY KEY,
  id INTEGER NOT NULL,
  create_revision INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
`;

/** A row of `kv`. Deleted rows (tombstones) carry the deleted value and its createRevision. */
interface LogRow {
  id: number;
  name: string;
  created: number;
  deleted: number;
  create_revision: number;
  prev_revision: number;
  value: Buffer;
}

/** What a list at a revision reads of a row written after it: the key, and the row it replaced (0: none). */
interface ChangeRow {
  name: string;
  prev_revision: number;
}

/**
 * The keys of a prefix written after a revision, each with its row at that revision (0: the key did not
 * exist), from the log up to `upTo`; `existed` lists the keys with a row, sorted.
 */
interface RowsAt {
  readonly prefix: string;
  readonly revision: number;
  upTo: number;
  readonly before: Map<string, number>;
  existed: string[] | undefined;
}

interface EventRow extends LogRow {
  prev_value: Buffer | null;
  prev_create_revision: number | null;
}

type WriteOp =
  | { readonly kind: 'create'; readonly key: string; readonly value: Buffer }
  | { readonly kind: 'update'; readonly key: string; readonly value: Buffer; readonly expected: number }
  | { readonly kind: 'delete'; readonly key: string; readonly expected: number | undefined };

type WriteResult = { readonly revision: number; readonly prev: KeyValue | undefined };

interface PendingWrite {
  readonly op: WriteOp;
  readonly resolve: (r: WriteResult) => void;
  readonly reject: (e: unknown) => void;
}

type Outcome = { readonly ok: true; readonly result: WriteResult } | { readonly ok: false; readonly error: Error };

function toBuffer(value: Uint8Array): Buffer {
  return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

/** The position of the first of the sorted `keys` at or after `key`. */
function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareKeys(keys[mid] as string, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Data dirs of earlier versions keep only the row id in `current`; a write reads the createRevision from
 * there now, so it is copied in once from each current row.
 */
function addCreateRevisionToCurrent(db: Database.Database): void {
  const columns = db.prepare<[], { name: string }>('PRAGMA table_info(current)').all();
  if (columns.some((c) => c.name === 'create_revision')) return;
  db.transaction(() => {
    db.exec('ALTER TABLE current ADD COLUMN create_revision INTEGER NOT NULL DEFAULT 0');
    db.exec('UPDATE current SET create_revision = (SELECT kv.create_revision FROM kv WHERE kv.id = current.id)');
  })();
}

/** A key's value at a row of the log, read from the log when first asked for. */
class LoggedKeyValue implements KeyValue {
  #value: Uint8Array | undefined;
  readonly #read: () => Uint8Array;

  constructor(
    readonly key: string,
    readonly createRevision: number,
    readonly modRevision: number,
    read: () => Uint8Array,
  ) {
    this.#read = read;
  }

  get value(): Uint8Array {
    return (this.#value ??= this.#read());
  }
}

/** A plain copy (the value read now), for what outlives the write or is spread. */
function plainKeyValue(kv: KeyValue): KeyValue {
  return { key: kv.key, value: kv.value, createRevision: kv.createRevision, modRevision: kv.modRevision };
}

function rowKeyValue(row: LogRow): KeyValue {
  return { key: row.name, value: row.value, createRevision: row.create_revision, modRevision: row.id };
}

function rowEvent(row: EventRow): WatchEvent {
  if (row.deleted !== 0) {
    return {
      type: 'delete',
      kv: rowKeyValue(row),
      prevKv: { key: row.name, value: row.value, createRevision: row.create_revision, modRevision: row.prev_revision },
      revision: row.id,
    };
  }
  const ev: WatchEvent = { type: 'put', kv: rowKeyValue(row), revision: row.id };
  if (row.prev_revision === 0 || row.prev_value === null) return ev;
  return {
    ...ev,
    prevKv: {
      key: row.name,
      value: row.prev_value,
      createRevision: row.prev_create_revision ?? 0,
      modRevision: row.prev_revision,
    },
  };
}

/**
 * `name >= @start AND name < @end`, or only the lower bound for an unbounded range. A single lower bound
 * matters: with two (prefix and continue key) SQLite seeks on one and filters on the other.
 */
function rangeCondition(column: string, bounded: boolean): string {
  return bounded ? `${column} >= @start AND ${column} < @end` : `${column} >= @start`;
}

/** The first key a list may return: the prefix, or the key right after `continueFrom` if that is later. */
function listStart(prefix: string, continueFrom: string | undefined): string {
  if (continueFrom === undefined) return prefix;
  const after = `${continueFrom}\0`;
  return compareKeys(after, prefix) > 0 ? after : prefix;
}

/** Statements that exist in a bounded and an unbounded (empty prefix) variant. */
interface RangeStatements {
  listCurrent: Database.Statement<[Record<string, unknown>], LogRow>;
  currentIds: Database.Statement<[Record<string, unknown>], { name: string; id: number }>;
  changesAfter: Database.Statement<[Record<string, unknown>], ChangeRow>;
  count: Database.Statement<[Record<string, unknown>], number>;
  readLog: Database.Statement<[Record<string, unknown>], EventRow>;
}

function prepareRange(db: Database.Database, bounded: boolean): RangeStatements {
  return {
    listCurrent: db.prepare<[Record<string, unknown>], LogRow>(
      `SELECT kv.* FROM current c JOIN kv ON kv.id = c.id
       WHERE ${rangeCondition('c.name', bounded)}
       ORDER BY c.name LIMIT @limit`,
    ),
    currentIds: db.prepare<[Record<string, unknown>], { name: string; id: number }>(
      `SELECT name, id FROM current WHERE ${rangeCondition('name', bounded)} ORDER BY name`,
    ),
    changesAfter: db.prepare<[Record<string, unknown>], ChangeRow>(
      `SELECT name, prev_revision FROM kv
       WHERE id > @after AND id <= @upTo AND ${rangeCondition('name', bounded)} ORDER BY id`,
    ),
    count: db
      .prepare<[Record<string, unknown>], number>(
        `SELECT COUNT(*) FROM current c WHERE ${rangeCondition('c.name', bounded)}`,
      )
      .pluck(),
    // `+kv.name` keeps SQLite on the primary key: the log is read in revision order from `after`.
    readLog: db.prepare<[Record<string, unknown>], EventRow>(
      `SELECT kv.*, p.value AS prev_value, p.create_revision AS prev_create_revision
       FROM kv LEFT JOIN kv p ON p.id = kv.prev_revision AND kv.deleted = 0
       WHERE kv.id > @after AND ${rangeCondition('+kv.name', bounded)}
       ORDER BY kv.id LIMIT @limit`,
    ),
  };
}

class Statements {
  readonly bounded: RangeStatements;
  readonly unbounded: RangeStatements;
  readonly getRow: Database.Statement<[number], LogRow>;
  /** id, name, created, deleted, create_revision, prev_revision, value (positional: binding names costs more). */
  readonly insert: Database.Statement<[number, string, number, number, number, number, Uint8Array]>;
  readonly lastRevision: Database.Statement<[], number>;
  readonly getMeta: Database.Statement<[string], number>;
  readonly setMeta: Database.Statement<[string, number]>;
  readonly compactSuperseded: Database.Statement<[Record<string, unknown>]>;
  readonly compactTombstones: Database.Statement<[Record<string, unknown>]>;

  constructor(db: Database.Database) {
    this.bounded = prepareRange(db, true);
    this.unbounded = prepareRange(db, false);
    this.getRow = db.prepare<[number], LogRow>('SELECT * FROM kv WHERE id = ?');
    this.insert = db.prepare<[number, string, number, number, number, number, Uint8Array]>(
      'INSERT INTO kv (id, name, created, deleted, create_revision, prev_revision, value) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.lastRevision = db
      .prepare<[], number>("SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'kv'), 0)")
      .pluck();
    this.getMeta = db.prepare<[string], number>('SELECT value FROM meta WHERE name = ?').pluck();
    this.setMeta = db.prepare<[string, number]>(
      'INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
    );
    // A row at or below the compaction revision is history once a later row at or below that revision
    // replaced it (its successor points back to it through prev_revision); tombstones there are history too.
    this.compactSuperseded = db.prepare<[Record<string, unknown>]>(
      `DELETE FROM kv WHERE id IN (
         SELECT prev_revision FROM kv WHERE id > @lo AND id <= @hi AND prev_revision > 0
       )`,
    );
    this.compactTombstones = db.prepare<[Record<string, unknown>]>(
      'DELETE FROM kv WHERE id > @lo AND id <= @hi AND deleted = 1',
    );
  }

  range(end: string | undefined): RangeStatements {
    return end === undefined ? this.unbounded : this.bounded;
  }
}

/**
 * The page size of a new database file (SQLite's default is 4 KiB; a file keeps the size it was created
 * with). Values are written once, appended to the log, and most are 0.5 to 4 KiB: with 4 KiB pages a pod
 * nearly fills a page of its own, so each commit wrote and each checkpoint copied a page and a WAL frame
 * per value. With 64 KiB pages a page holds many values: a write mix of the benchmark's (half 1 KiB
 * events, pods of 3.5 KiB created and updated, leases) took 10.6-13.7 µs of CPU per write against 14.6-15.7
 * µs, with half the system time, and a checkpoint of 3.5 KiB values took half as long.
 */
export const pageSize = 65_536;

/**
 * WAL bytes between automatic checkpoints (SQLite's default is 1,000 pages, 4 MiB with 4 KiB pages). A
 * checkpoint copies every page changed since the last one into the database file once, and pages that
 * many writes touch change again and again in between: with 40 MiB a write microbenchmark (4 KiB pages,
 * 500 writes per commit) took 48 instead of 76 µs per write and wrote a fifth fewer bytes, and at 5,000
 * nodes and 150,000 pods the mutating API calls' p50 was 47 ms against 72-90 ms without.
 */
export const walCheckpointBytes = 40 * 1024 * 1024;

/** Meta rows: the revision history is compacted to, and how far the deletions of that compaction got. */
const metaCompactRevision = 'compact_revision';
const metaCompactDone = 'compact_done';

/** A committed batch waiting for the WAL sync that makes it durable. */
interface AwaitingSync {
  acknowledge(synced: Error | undefined): void;
  /** False when every write of the batch failed its precondition: nothing to sync. */
  wrote: boolean;
}

export class SqliteBackend implements Backend {
  readonly #opts: SqliteBackendOptions;
  readonly #file: string;
  #db: Database.Database | undefined;
  #stmts: Statements | undefined;
  #writeBatch: ((batch: readonly PendingWrite[]) => { outcomes: Outcome[]; events: WatchEvent[] }) | undefined;
  /** The revision of the last committed write (revisions are assigned from it). */
  #revision = 0;
  /** The revision up to which commits are on disk: acknowledged, and visible to watchers. */
  #durableRevision = 0;
  /**
   * Committed batches waiting for a WAL sync, in commit order. One sync runs at a time and covers every
   * batch committed before it started (group commit at the sync: a busy server needs few fdatasyncs).
   */
  #awaitingSync: AwaitingSync[] = [];
  #syncInFlight = false;
  /** `close()` waiting for the last acknowledgement. */
  #drainWaiters: (() => void)[] = [];
  #walFd: number | undefined;
  #compactRevision = 0;
  #queue: PendingWrite[] = [];
  #flushScheduled = false;
  readonly #watchers = new Set<SqliteWatch>();
  readonly #allWatches = new Set<SqliteWatch>();
  #compaction: Promise<void> = Promise.resolve();
  #compactionsRunning = 0;
  #compactTimer: NodeJS.Timeout | undefined;
  #revisionAtLastTick = 0;
  #closed = false;
  /** The live keys' current rows; written back to the `current` table, which SQL reads of it need first. */
  #current: CurrentIndex | undefined;
  #writeBackScheduled = false;
  /** Keys per write-back transaction (`currentWriteBackSlice`). */
  readonly #writeBackSlice: number;
  /** The index entries the batch being applied changed, with what they were: undone if it rolls back. */
  #undo: [string, CurrentRow | undefined][] = [];
  /** What the last list at an older revision learnt of the writes since (`#rowsAt`). */
  #lastRowsAt: RowsAt | undefined;
  readonly #host: WatchHost;

  constructor(opts: SqliteBackendOptions) {
    this.#opts = opts;
    this.#file = join(opts.dataDir, opts.fileName ?? defaultSqliteFileName);
    this.#writeBackSlice = opts.currentWriteBackSlice ?? 2000;
    this.#host = {
      committedRevision: () => this.#durableRevision,
      compactedRevision: () => this.#compactRevision,
      // Commits not yet on disk are not watchable yet (their batch is offered once synced).
      readLog: (start, end, after, limit) =>
        this.#statements()
          .range(end)
          .readLog.all({ start, end, after, limit })
          .filter((row) => row.id <= this.#durableRevision)
          .map(rowEvent),
      attach: (w) => this.#watchers.add(w),
      detach: (w) => {
        this.#watchers.delete(w);
      },
      release: (w) => {
        this.#watchers.delete(w);
        this.#allWatches.delete(w);
      },
    };
  }

  /** The database file. */
  get file(): string {
    return this.#file;
  }

  /** True while a compaction is deleting history (for tests and metrics). */
  get compacting(): boolean {
    return this.#compactionsRunning > 0;
  }

  /** Opens (creating if needed) the database and starts the automatic compactor. */
  start(): void {
    if (this.#db !== undefined || this.#closed) throw new Error('SqliteBackend.start() called twice');
    mkdirSync(this.#opts.dataDir, { recursive: true });
    // No busy wait: the only other user of the file can be another process holding its exclusive lock.
    const db = new Database(this.#file, { timeout: 0 });
    try {
      // Exclusive locking before the first access: no other connection can use the file, and WAL needs
      // no shared memory.
      db.pragma('locking_mode = EXCLUSIVE');
      // Only a file still empty takes it (before WAL mode, which fixes the page size).
      db.pragma(`page_size = ${pageSize}`);
      db.pragma('journal_mode = WAL');
      // The WAL is synced by #flush after each commit (off the event loop); checkpoints sync as usual.
      db.pragma('synchronous = NORMAL');
      // 64 MiB of page cache: keeps the indexes of a 150,000-object store in memory.
      db.pragma('cache_size = -65536');
      // After a checkpoint, give back WAL space beyond 64 MiB instead of keeping the largest WAL ever seen.
      db.pragma('journal_size_limit = 67108864');
      db.pragma(`wal_autocheckpoint = ${Math.ceil(walCheckpointBytes / (db.pragma('page_size', { simple: true }) as number))}`);
      db.exec(schema);
      addCreateRevisionToCurrent(db);
    } catch (err) {
      db.close();
      if (err instanceof Database.SqliteError && err.code.startsWith('SQLITE_BUSY')) {
        throw new Error(`storage file ${this.#file} is in use by another kubemix process`, { cause: err });
      }
      throw err;
    }
    this.#db = db;
    const stmts = new Statements(db);
    this.#stmts = stmts;
    this.#writeBatch = db.transaction((batch: readonly PendingWrite[]) => this.#applyBatch(stmts, batch));
    this.#revision = stmts.lastRevision.get() ?? 0;
    this.#current = new CurrentIndex(db, stmts, this.#revision);
    this.#durableRevision = this.#revision;
    this.#compactRevision = stmts.getMeta.get(metaCompactRevision) ?? 0;
    this.#revisionAtLastTick = this.#revision;
    if ((stmts.getMeta.get(metaCompactDone) ?? 0) < this.#compactRevision) {
      // A compaction was interrupted (crash or close): finish it in the background.
      this.#compaction = this.#runCompaction(this.#compactRevision).catch((err: unknown) => this.#backgroundError(err));
    }
    const compaction = this.#opts.compaction;
    if (compaction !== false) {
      const interval = compaction?.intervalMs ?? 300_000;
      this.#compactTimer = setInterval(() => this.#compactTick(compaction?.minRetainRevisions ?? 1000), interval);
      this.#compactTimer.unref();
    }
  }

  async currentRevision(): Promise<number> {
    this.#statements();
    return this.#revision;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    const kv = this.#currentKv(this.#statements(), key);
    return kv === undefined ? undefined : plainKeyValue(kv);
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const stmts = this.#statements();
    const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : 0;
    const end = prefixEnd(prefix);
    const params = {
      start: listStart(prefix, opts.continueFrom),
      end,
      // One extra row tells whether the limit cut the result.
      limit: limit > 0 ? limit + 1 : -1,
      revision: 0,
    };
    let revision = this.#revision;
    let rows: LogRow[];
    if (opts.revision !== undefined && opts.revision > 0 && opts.revision !== this.#revision) {
      this.#checkReadable(opts.revision);
      revision = opts.revision;
      rows = this.#listAt(stmts, prefix, end, params.start, revision, limit > 0 ? limit + 1 : Infinity);
    } else {
      this.#writeBackAll();
      rows = stmts.range(end).listCurrent.all(params);
    }
    const more = limit > 0 && rows.length > limit;
    if (more) rows.length = limit;
    return { items: rows.map(rowKeyValue), revision, more };
  }

  async count(prefix: string): Promise<number> {
    const end = prefixEnd(prefix);
    const stmts = this.#statements();
    this.#writeBackAll();
    return stmts.range(end).count.get({ start: prefix, end }) ?? 0;
  }

  async create(key: string, value: Uint8Array): Promise<number> {
    return (await this.#enqueue({ kind: 'create', key, value: toBuffer(value) })).revision;
  }

  async update(key: string, value: Uint8Array, expectedRevision: number): Promise<number> {
    return (await this.#enqueue({ kind: 'update', key, value: toBuffer(value), expected: expectedRevision }))
      .revision;
  }

  async delete(key: string, expectedRevision?: number): Promise<{ revision: number; prev: KeyValue }> {
    const r = await this.#enqueue({ kind: 'delete', key, expected: expectedRevision });
    if (r.prev === undefined) throw new Error('delete committed without a previous value');
    return { revision: r.revision, prev: r.prev };
  }

  watch(prefix: string, afterRevision: number): Watch {
    this.#statements();
    const w = new SqliteWatch({
      host: this.#host,
      prefix,
      end: prefixEnd(prefix),
      afterRevision,
      maxBuffered: Math.max(1, this.#opts.watchBufferEvents ?? 10_000),
      readBatch: Math.max(1, this.#opts.watchReadBatch ?? 1000),
    });
    this.#allWatches.add(w);
    w.begin();
    return w;
  }

  async compact(revision: number): Promise<void> {
    const stmts = this.#statements();
    if (revision > this.#revision) throw new FutureRevision(revision, this.#revision);
    if (revision <= this.#compactRevision) return;
    // Raise the mark first: from now on reads and watches below it fail, so nobody sees half-deleted history.
    stmts.setMeta.run(metaCompactRevision, revision);
    this.#compactRevision = revision;
    // Lists below the mark fail from now on: what was kept for one is no longer needed.
    if (this.#lastRowsAt !== undefined && this.#lastRowsAt.revision < revision) this.#lastRowsAt = undefined;
    const previous = this.#compaction;
    const run = previous.then(() => this.#runCompaction(revision));
    this.#compaction = run.catch(() => undefined);
    await run;
  }

  async compactedRevision(): Promise<number> {
    this.#statements();
    return this.#compactRevision;
  }

  async dbSize(): Promise<number> {
    this.#statements();
    let size = 0;
    for (const f of [this.#file, `${this.#file}-wal`]) {
      try {
        size += statSync(f).size;
      } catch {
        // The WAL file may not exist.
      }
    }
    return size;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#compactTimer !== undefined) clearInterval(this.#compactTimer);
    this.#compactTimer = undefined;
    if (this.#db === undefined) return;
    // Commit what callers already handed us, so no promise is left pending.
    this.#flush();
    await this.#drained();
    for (const w of [...this.#allWatches]) w.close();
    this.#allWatches.clear();
    this.#watchers.clear();
    await this.#compaction;
    this.#writeBackAll();
    if (this.#walFd !== undefined) closeSync(this.#walFd);
    this.#walFd = undefined;
    this.#db.close();
    this.#db = undefined;
    this.#stmts = undefined;
    this.#current = undefined;
  }

  #statements(): Statements {
    if (this.#closed || this.#stmts === undefined) {
      throw new Error(this.#closed ? 'storage backend is closed' : 'storage backend is not started');
    }
    return this.#stmts;
  }

  /**
   * The current rows of [start, end) at an older revision, in key order, at most `want`: a current row unless
   * its key was written since, then the row that write replaced (`#rowsAt`). Costs the rows written since
   * the revision, not the keys outside the page; the log needs no index by key for it.
   */
  #listAt(stmts: Statements, prefix: string, end: string | undefined, start: string, revision: number, want: number): LogRow[] {
    const at = this.#rowsAt(stmts, prefix, end, revision);
    const before = at.before;
    const existed = (at.existed ??= sortKeys([...before].filter(([, id]) => id !== 0).map(([k]) => k)));
    const ids: number[] = [];
    this.#writeBackAll();
    let i = lowerBound(existed, start);
    const takeExisted = (until: string | undefined): void => {
      while (ids.length < want && i < existed.length && (until === undefined || compareKeys(existed[i] as string, until) < 0)) {
        ids.push(before.get(existed[i++] as string) ?? 0);
      }
    };
    for (const row of stmts.range(end).currentIds.iterate({ start, end })) {
      takeExisted(row.name);
      if (ids.length < want && !before.has(row.name)) ids.push(row.id);
      if (ids.length >= want) break;
    }
    takeExisted(undefined);
    return ids.map((id) => this.#row(stmts, id));
  }

  /** A row a key's current entry or a list at a revision refers to: compaction keeps such rows. */
  #row(stmts: Statements, id: number): LogRow {
    const row = stmts.getRow.get(id);
    if (row === undefined) throw new Error(`storage: row ${id} is missing`);
    return row;
  }

  /**
   * The current value of a live key. The value itself is read from the log when first asked for: an update
   * needs only the revisions, and of its watchers only those without a cache look at the value it replaced.
   */
  #currentKv(stmts: Statements, key: string): KeyValue | undefined {
    const cur = this.#index().get(key);
    if (cur === undefined) return undefined;
    return new LoggedKeyValue(key, cur.createRevision, cur.id, () => this.#row(stmts, cur.id).value);
  }

  #index(): CurrentIndex {
    if (this.#current === undefined) throw new Error('storage backend is not started');
    return this.#current;
  }

  /** The `current` table complete up to the last commit, for SQL that reads it. */
  #writeBackAll(): void {
    this.#index().writeBackAll(this.#revision);
  }

  /** Starts a write-back in slices, one per event-loop turn, once enough keys changed since the last one. */
  #maybeWriteBack(): void {
    const index = this.#index();
    if (this.#writeBackScheduled || index.dirtyKeys < (this.#opts.currentWriteBackKeys ?? 100_000)) return;
    index.beginWriteBack(this.#revision);
    this.#scheduleWriteBackStep();
  }

  #scheduleWriteBackStep(): void {
    this.#writeBackScheduled = true;
    setImmediate(() => {
      this.#writeBackScheduled = false;
      if (this.#closed || this.#current === undefined) return;
      try {
        if (this.#current.step(this.#writeBackSlice)) this.#scheduleWriteBackStep();
      } catch (err) {
        // The slice rolled back; the keys stay in the write-back under way, which the next one finishes.
        this.#backgroundError(err);
      }
    });
  }

  /**
   * What changed in a prefix since `revision` (see `RowsAt`), kept for the last prefix and revision asked
   * and extended from where it stopped: the API server reads every page of a paged list at its first page's
   * revision while writes go on.
   */
  #rowsAt(stmts: Statements, prefix: string, end: string | undefined, revision: number): RowsAt {
    let at = this.#lastRowsAt;
    if (at === undefined || at.prefix !== prefix || at.revision !== revision) {
      at = this.#lastRowsAt = { prefix, revision, upTo: revision, before: new Map(), existed: undefined };
    }
    if (at.upTo < this.#revision) {
      for (const row of stmts.range(end).changesAfter.iterate({ after: at.upTo, upTo: this.#revision, start: prefix, end })) {
        // The first write after the revision replaced the row of that revision (a create replaced none).
        if (at.before.has(row.name)) continue;
        at.before.set(row.name, row.prev_revision);
        at.existed = undefined;
      }
      at.upTo = this.#revision;
    }
    return at;
  }

  #checkReadable(revision: number): void {
    if (revision > this.#revision) throw new FutureRevision(revision, this.#revision);
    if (revision < this.#compactRevision) throw new Compacted(revision, this.#compactRevision);
  }

  #enqueue(op: WriteOp): Promise<WriteResult> {
    this.#statements();
    return new Promise((resolve, reject) => {
      this.#queue.push({ op, resolve, reject });
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  /** Commits every queued write in one transaction, then acknowledges them and feeds the watchers. */
  #flush(): void {
    this.#flushScheduled = false;
    if (this.#queue.length === 0 || this.#writeBatch === undefined) return;
    let batch = this.#queue;
    if (batch.length > maxWritesPerCommit && !this.#closed) {
      // Bound the time one commit holds the event loop; the rest goes in the next turn.
      batch = this.#queue.slice(0, maxWritesPerCommit);
      this.#queue = this.#queue.slice(maxWritesPerCommit);
      this.#flushScheduled = true;
      setImmediate(() => this.#flush());
    } else {
      this.#queue = [];
    }
    let outcomes: Outcome[];
    let events: WatchEvent[];
    this.#undo = [];
    try {
      ({ outcomes, events } = this.#writeBatch(batch));
    } catch (err) {
      // Nothing was committed (the transaction rolled back); the in-memory revision is unchanged.
      const index = this.#index();
      for (const [key, row] of this.#undo.reverse()) index.restore(key, row);
      for (const p of batch) p.reject(err);
      return;
    }
    const last = events[events.length - 1];
    if (last !== undefined) this.#revision = last.revision;
    this.#maybeWriteBack();
    const acknowledge = (synced: Error | undefined): void => {
      if (synced === undefined && last !== undefined) this.#durableRevision = last.revision;
      if (synced === undefined && events.length > 0) for (const w of [...this.#watchers]) w.offer(events);
      batch.forEach((p, i) => {
        const outcome = outcomes[i];
        if (synced !== undefined) p.reject(synced);
        else if (outcome === undefined) p.reject(new Error('write lost in batch'));
        else if (outcome.ok) p.resolve(outcome.result);
        else p.reject(outcome.error);
      });
    };
    // A batch that wrote nothing (every precondition failed) is still answered in commit order.
    this.#awaitingSync.push({ acknowledge, wrote: events.length > 0 });
    if (!this.#syncInFlight) this.#startSync();
  }

  /** Syncs the WAL for every batch committed so far, then acknowledges them in order and starts the next. */
  #startSync(): void {
    const group = this.#awaitingSync;
    this.#awaitingSync = [];
    if (group.length === 0) {
      for (const wake of this.#drainWaiters.splice(0)) wake();
      return;
    }
    this.#syncInFlight = true;
    const done = (err: Error | undefined): void => {
      this.#syncInFlight = false;
      for (const g of group) g.acknowledge(err);
      this.#startSync();
    };
    const synced = group.some((g) => g.wrote) ? this.#syncWal() : Promise.resolve();
    synced.then(
      () => done(undefined),
      (err: unknown) => done(new Error('storage: syncing the write-ahead log failed', { cause: err })),
    );
  }

  /** Resolves once every committed batch has been acknowledged. */
  #drained(): Promise<void> {
    if (!this.#syncInFlight && this.#awaitingSync.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  /** fdatasync of the WAL on the thread pool: everything committed so far reaches the disk. */
  #syncWal(): Promise<void> {
    this.#walFd ??= openSync(`${this.#file}-wal`, 'r');
    const fd = this.#walFd;
    const sync = this.#opts.fdatasync ?? fdatasync;
    return new Promise((resolve, reject) => sync(fd, (err) => (err === null ? resolve() : reject(err))));
  }

  /** Runs inside the batch transaction. Revisions are assigned here: this process is the only writer. */
  #applyBatch(stmts: Statements, batch: readonly PendingWrite[]): { outcomes: Outcome[]; events: WatchEvent[] } {
    let revision = this.#revision;
    const index = this.#index();
    const undo = this.#undo;
    const outcomes: Outcome[] = [];
    const events: WatchEvent[] = [];
    for (const { op } of batch) {
      if (op.kind === 'create') {
        if (index.has(op.key)) {
          outcomes.push({ ok: false, error: new KeyExists(op.key) });
          continue;
        }
        revision++;
        stmts.insert.run(revision, op.key, 1, 0, revision, 0, op.value);
        undo.push([op.key, undefined]);
        index.set(op.key, revision, revision);
        const kv = { key: op.key, value: op.value, createRevision: revision, modRevision: revision };
        events.push({ type: 'put', kv, revision });
        outcomes.push({ ok: true, result: { revision, prev: undefined } });
        continue;
      }
      const curKv = this.#currentKv(stmts, op.key);
      if (curKv === undefined) {
        outcomes.push({ ok: false, error: new KeyNotFound(op.key) });
        continue;
      }
      if (op.expected !== undefined && op.expected !== curKv.modRevision) {
        outcomes.push({ ok: false, error: new Conflict(op.key, plainKeyValue(curKv)) });
        continue;
      }
      revision++;
      if (op.kind === 'update') {
        stmts.insert.run(revision, op.key, 0, 0, curKv.createRevision, curKv.modRevision, op.value);
        undo.push([op.key, { id: curKv.modRevision, createRevision: curKv.createRevision }]);
        index.set(op.key, revision, curKv.createRevision);
        const kv = { key: op.key, value: op.value, createRevision: curKv.createRevision, modRevision: revision };
        events.push({ type: 'put', kv, prevKv: curKv, revision });
        outcomes.push({ ok: true, result: { revision, prev: curKv } });
      } else {
        // The tombstone keeps the deleted value, which the delete also answers.
        const prev = plainKeyValue(curKv);
        stmts.insert.run(revision, op.key, 0, 1, prev.createRevision, prev.modRevision, prev.value);
        undo.push([op.key, { id: prev.modRevision, createRevision: prev.createRevision }]);
        index.delete(op.key);
        events.push({ type: 'delete', kv: { ...prev, modRevision: revision }, prevKv: prev, revision });
        outcomes.push({ ok: true, result: { revision, prev } });
      }
    }
    return { outcomes, events };
  }

  /** Deletes superseded rows up to `revision` in short transactions, resuming where the last run stopped. */
  async #runCompaction(revision: number): Promise<void> {
    const batchSize = Math.max(1, this.#opts.compactionBatch ?? 500);
    const stmts = this.#statements();
    const db = this.#db;
    if (db === undefined) return;
    const step = db.transaction((lo: number, hi: number) => {
      stmts.compactSuperseded.run({ lo, hi });
      stmts.compactTombstones.run({ lo, hi });
      stmts.setMeta.run(metaCompactDone, hi);
    });
    this.#compactionsRunning++;
    try {
      // Replaying the log after the table's revision on open needs the rows this compaction deletes.
      const index = this.#index();
      while (index.writtenBackTo < revision && !this.#closed) {
        if (!index.writingBack) index.beginWriteBack(this.#revision);
        index.step(this.#writeBackSlice);
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      let done = stmts.getMeta.get(metaCompactDone) ?? 0;
      while (done < revision && !this.#closed) {
        const hi = Math.min(done + batchSize, revision);
        step(done, hi);
        done = hi;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      this.#compactionsRunning--;
    }
  }

  #compactTick(minRetain: number): void {
    const target = Math.min(this.#revisionAtLastTick, this.#revision - minRetain);
    this.#revisionAtLastTick = this.#revision;
    if (target <= this.#compactRevision) return;
    this.compact(target).catch((err: unknown) => this.#backgroundError(err));
  }

  #backgroundError(err: unknown): void {
    this.#opts.onBackgroundError?.(err);
  }
}

/** Opens a started SQLite backend. */
export function openSqliteBackend(opts: SqliteBackendOptions): SqliteBackend {
  const backend = new SqliteBackend(opts);
  backend.start();
  return backend;
}
