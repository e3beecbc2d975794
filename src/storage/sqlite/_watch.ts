/**
 * A watcher of the SQLite backend. The process owns the database, so every change is known at commit
 * time: a watcher is either *live* (the write path hands it each committed batch) or *catching up* (it
 * reads the revision log itself, one batch per drained buffer). Because better-sqlite3 is synchronous and
 * commits happen on the event-loop thread, "read the log up to the committed revision, then go live" is
 * atomic with respect to writers: there is neither a gap nor a duplicate at the switch.
 *
 * Slow watchers: a live watcher buffers at most `maxBuffered` undelivered events. When a commit would go
 * beyond that, it stops taking live events and falls back to catching up from the log once its consumer
 * has drained the buffer. Writers therefore never wait for watchers and memory per watcher is bounded;
 * a watcher that falls behind a compaction fails with `Compacted`, as a slow etcd watcher does.
 */
import { Compacted, type Watch, type WatchEvent } from '../backend.js';

/** What a watcher needs from its backend. */
export interface WatchHost {
  /** The revision of the last committed write. */
  committedRevision(): number;
  compactedRevision(): number;
  /** Up to `limit` changes in [start, end) with revision > after, in revision order. */
  readLog(start: string, end: string | undefined, after: number, limit: number): WatchEvent[];
  /** Starts handing committed batches to `offer`. */
  attach(watch: SqliteWatch): void;
  /** Stops handing batches to `offer`. */
  detach(watch: SqliteWatch): void;
  /** Forgets the watcher (it was closed). */
  release(watch: SqliteWatch): void;
}

export interface SqliteWatchOptions {
  readonly host: WatchHost;
  readonly prefix: string;
  readonly end: string | undefined;
  readonly afterRevision: number;
  readonly maxBuffered: number;
  readonly readBatch: number;
}

type Waiter = {
  resolve: (r: IteratorResult<WatchEvent>) => void;
  reject: (e: unknown) => void;
};

export class SqliteWatch implements Watch, AsyncIterableIterator<WatchEvent> {
  readonly #host: WatchHost;
  readonly #prefix: string;
  readonly #end: string | undefined;
  readonly #maxBuffered: number;
  readonly #readBatch: number;
  #buffer: WatchEvent[] = [];
  #head = 0;
  /** Every change with revision <= position is buffered or delivered; none above it is. */
  #position: number;
  #live = false;
  #closed = false;
  #waiter: Waiter | undefined;
  #waiting: Promise<IteratorResult<WatchEvent>> | undefined;

  constructor(opts: SqliteWatchOptions) {
    this.#host = opts.host;
    this.#prefix = opts.prefix;
    this.#end = opts.end;
    this.#position = opts.afterRevision;
    this.#maxBuffered = opts.maxBuffered;
    this.#readBatch = opts.readBatch;
  }

  /** The backend calls this right after creating the watcher (a watch from the future goes live at once). */
  begin(): void {
    if (this.#position >= this.#host.committedRevision()) this.#goLive();
  }

  /** Takes the changes of one committed write batch (in revision order). Called only while live. */
  offer(events: readonly WatchEvent[]): void {
    for (const ev of events) {
      if (ev.revision <= this.#position) continue;
      if (this.#matches(ev.kv.key)) {
        if (this.#buffer.length - this.#head >= this.#maxBuffered) {
          // Too slow: stop buffering; the log has everything after `position`.
          this.#live = false;
          this.#host.detach(this);
          break;
        }
        this.#buffer.push(ev);
      }
      this.#position = ev.revision;
    }
    this.#wake();
  }

  next(): Promise<IteratorResult<WatchEvent>> {
    if (this.#closed) return Promise.resolve({ done: true, value: undefined });
    try {
      if (this.#head === this.#buffer.length && !this.#live) this.#catchUp();
    } catch (err) {
      this.close();
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    const ev = this.#take();
    if (ev !== undefined) return Promise.resolve({ done: false, value: ev });
    if (this.#waiting !== undefined) {
      // A second next() before the first settled: answer it after the first, in order.
      const after = (): Promise<IteratorResult<WatchEvent>> => this.next();
      return this.#waiting.then(after, after);
    }
    const waiting = new Promise<IteratorResult<WatchEvent>>((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
    this.#waiting = waiting;
    const clear = (): void => {
      if (this.#waiting === waiting) this.#waiting = undefined;
    };
    waiting.then(clear, clear);
    return waiting;
  }

  return(): Promise<IteratorResult<WatchEvent>> {
    this.close();
    return Promise.resolve({ done: true, value: undefined });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#host.release(this);
    this.#buffer = [];
    this.#head = 0;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.resolve({ done: true, value: undefined });
  }

  #matches(key: string): boolean {
    return key >= this.#prefix && (this.#end === undefined || key < this.#end);
  }

  #goLive(): void {
    this.#live = true;
    this.#host.attach(this);
  }

  /** Reads the next batch from the log; goes live when the log has nothing more. */
  #catchUp(): void {
    const compacted = this.#host.compactedRevision();
    if (this.#position < compacted) throw new Compacted(this.#position, compacted);
    const committed = this.#host.committedRevision();
    const events = this.#host.readLog(this.#prefix, this.#end, this.#position, this.#readBatch);
    for (const ev of events) this.#buffer.push(ev);
    if (events.length < this.#readBatch) {
      this.#position = Math.max(this.#position, committed);
      this.#goLive();
    } else {
      this.#position = events[events.length - 1]?.revision ?? this.#position;
    }
  }

  #take(): WatchEvent | undefined {
    if (this.#head >= this.#buffer.length) return undefined;
    const ev = this.#buffer[this.#head];
    this.#head++;
    if (this.#head === this.#buffer.length) {
      this.#buffer = [];
      this.#head = 0;
    } else if (this.#head >= 4096 && this.#head * 2 >= this.#buffer.length) {
      this.#buffer = this.#buffer.slice(this.#head);
      this.#head = 0;
    }
    return ev;
  }

  #wake(): void {
    const waiter = this.#waiter;
    if (waiter === undefined) return;
    const ev = this.#take();
    if (ev === undefined) return;
    this.#waiter = undefined;
    waiter.resolve({ done: false, value: ev });
  }
}
