/**
 * One etcd watch as a `Watch`: its own gRPC watch stream (not etcd3's shared WatchManager, which on
 * reconnect resumes after the revision of its creation response and so can skip history that was still
 * being replayed, and which hides `compact_revision`). On a stream failure it reconnects from the last
 * delivered revision + 1 with bounded backoff, dropping anything at or below it, so the consumer sees no
 * gap and no duplicate.
 *
 * Slow consumers: above `maxBuffered` undelivered events the stream is paused; gRPC flow control then
 * holds events in etcd (whose own slow-watcher handling applies) until the buffer is half drained.
 */
import type { Etcd3, IDuplexStream, IEvent, IKeyValue, IWatchRequest, IWatchResponse } from 'etcd3';
import { Compacted, type KeyValue, type Watch, type WatchEvent } from '../backend.js';

export interface EtcdWatchOptions {
  readonly client: Etcd3;
  readonly prefix: Buffer;
  readonly end: Buffer;
  readonly afterRevision: number;
  readonly maxBuffered: number;
  readonly onClose: (w: EtcdWatch) => void;
}

type WatchStream = IDuplexStream<IWatchRequest, IWatchResponse>;

interface Pausable {
  pause(): unknown;
  resume(): unknown;
}

function isPausable(s: object): s is Pausable {
  return 'pause' in s && typeof s.pause === 'function' && 'resume' in s && typeof s.resume === 'function';
}

type Waiter = {
  resolve: (r: IteratorResult<WatchEvent>) => void;
  reject: (e: unknown) => void;
};

function toKeyValue(kv: IKeyValue): KeyValue {
  return {
    key: kv.key.toString(),
    value: kv.value,
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
  };
}

function toEvent(ev: IEvent): WatchEvent {
  const revision = Number(ev.kv.mod_revision);
  const prevKv = ev.prev_kv ? toKeyValue(ev.prev_kv) : undefined;
  if (ev.type === 'Delete') {
    // etcd's delete event has an empty value and createRevision 0; ours carries the deleted value.
    const kv: KeyValue = {
      key: ev.kv.key.toString(),
      value: prevKv?.value ?? new Uint8Array(),
      createRevision: prevKv?.createRevision ?? 0,
      modRevision: revision,
    };
    return prevKv ? { type: 'delete', kv, prevKv, revision } : { type: 'delete', kv, revision };
  }
  const kv = toKeyValue(ev.kv);
  return prevKv ? { type: 'put', kv, prevKv, revision } : { type: 'put', kv, revision };
}

const minBackoffMs = 50;
const maxBackoffMs = 2000;

export class EtcdWatch implements Watch, AsyncIterableIterator<WatchEvent> {
  readonly #opts: EtcdWatchOptions;
  #buffer: WatchEvent[] = [];
  #head = 0;
  /** Last revision delivered or buffered; the stream (re)starts after it. */
  #position: number;
  #stream: WatchStream | undefined;
  #paused = false;
  #closed = false;
  #failure: Error | undefined;
  #waiter: Waiter | undefined;
  #waiting: Promise<IteratorResult<WatchEvent>> | undefined;
  #backoffMs = minBackoffMs;
  #retryTimer: NodeJS.Timeout | undefined;

  constructor(opts: EtcdWatchOptions) {
    this.#opts = opts;
    this.#position = opts.afterRevision;
  }

  start(): void {
    this.#connect();
  }

  next(): Promise<IteratorResult<WatchEvent>> {
    const ev = this.#take();
    if (ev !== undefined) return Promise.resolve({ done: false, value: ev });
    if (this.#failure !== undefined) {
      const failure = this.#failure;
      this.close();
      return Promise.reject(failure);
    }
    if (this.#closed) return Promise.resolve({ done: true, value: undefined });
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
    this.#failure = undefined;
    this.#buffer = [];
    this.#head = 0;
    if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#dropStream();
    this.#opts.onClose(this);
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.resolve({ done: true, value: undefined });
  }

  #connect(): void {
    this.#retryTimer = undefined;
    if (this.#closed) return;
    this.#opts.client.watchClient
      .watch()
      .then((stream) => this.#attach(stream))
      .catch(() => {
        this.#dropStream();
        this.#retry();
      });
  }

  #attach(stream: WatchStream): void {
    stream.on('error', (err) => this.#onStreamDown(stream, err));
    if (this.#closed) {
      endStream(stream);
      return;
    }
    this.#stream = stream;
    this.#paused = false;
    stream.on('data', (res) => this.#onResponse(stream, res));
    stream.on('end', () => this.#onStreamDown(stream, new Error('etcd watch stream ended')));
    stream.write({
      create_request: {
        key: this.#opts.prefix,
        range_end: this.#opts.end,
        start_revision: this.#position + 1,
        prev_kv: true,
      },
    });
  }

  #onResponse(stream: WatchStream, res: IWatchResponse): void {
    if (stream !== this.#stream || this.#closed) return;
    if (res.created && !res.canceled) this.#backoffMs = minBackoffMs;
    // Events of one etcd transaction share a revision; only whole revisions can repeat after a reconnect.
    const delivered = this.#position;
    for (const raw of res.events) {
      const ev = toEvent(raw);
      if (ev.revision <= delivered) continue;
      this.#buffer.push(ev);
      this.#position = ev.revision;
    }
    if (res.canceled) {
      const compactRevision = Number(res.compact_revision);
      this.#failure =
        compactRevision > 0
          ? new Compacted(this.#position, compactRevision)
          : new Error(`etcd canceled the watch: ${res.cancel_reason}`);
      this.#dropStream();
    } else if (!this.#paused && this.#buffer.length - this.#head > this.#opts.maxBuffered && isPausable(stream)) {
      stream.pause();
      this.#paused = true;
    }
    this.#wake();
  }

  #onStreamDown(stream: WatchStream, _err: unknown): void {
    if (stream !== this.#stream || this.#closed) return;
    this.#dropStream();
    this.#retry();
  }

  #retry(): void {
    if (this.#closed || this.#failure !== undefined) return;
    const delay = this.#backoffMs;
    this.#backoffMs = Math.min(maxBackoffMs, this.#backoffMs * 2);
    this.#retryTimer = setTimeout(() => this.#connect(), delay);
  }

  #dropStream(): void {
    const stream = this.#stream;
    this.#stream = undefined;
    if (stream !== undefined) endStream(stream);
  }

  #take(): WatchEvent | undefined {
    if (this.#head >= this.#buffer.length) return undefined;
    const ev = this.#buffer[this.#head];
    this.#head++;
    const left = this.#buffer.length - this.#head;
    if (left === 0) {
      this.#buffer = [];
      this.#head = 0;
    } else if (this.#head >= 4096 && this.#head * 2 >= this.#buffer.length) {
      this.#buffer = this.#buffer.slice(this.#head);
      this.#head = 0;
    }
    const stream = this.#stream;
    if (this.#paused && left <= this.#opts.maxBuffered / 2 && stream !== undefined && isPausable(stream)) {
      this.#paused = false;
      stream.resume();
    }
    return ev;
  }

  #wake(): void {
    const waiter = this.#waiter;
    if (waiter === undefined) return;
    const ev = this.#take();
    if (ev !== undefined) {
      this.#waiter = undefined;
      waiter.resolve({ done: false, value: ev });
    } else if (this.#failure !== undefined) {
      this.#waiter = undefined;
      const failure = this.#failure;
      this.close();
      waiter.reject(failure);
    }
  }
}

/**
 * Half-closes, then cancels. Ending first matters: etcd3 reports an error on a still-writable stream to its
 * circuit breaker, and three cancelled watches in a row would otherwise cut the client off for 5 seconds.
 */
function endStream(stream: WatchStream): void {
  try {
    stream.end();
  } finally {
    stream.cancel();
  }
}
