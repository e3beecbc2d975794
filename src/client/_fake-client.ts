/**
 * A scriptable `Client` for the tests of this folder: lists and watches answer what the test programs,
 * writes are recorded and answered by per-verb functions. Not for production use.
 */
import type { Status } from '../api/errors.js';
import type { ResourceType } from '../api/resources.js';
import type {
  Client,
  DeleteOptions,
  KubeList,
  KubeObject,
  ListOptions,
  PatchType,
  WatchEvent,
  WatchOptions,
  WatchStream,
  WriteOptions,
} from './client.js';

/** A watch the test drives: `send()` events, `end()` it (server closed), or `fail()` it. */
export class FakeWatch<T> implements WatchStream<T> {
  private readonly queue: WatchEvent<T>[] = [];
  private error: Error | undefined;
  private ended = false;
  closed = false;
  private wake: (() => void) | undefined;

  constructor(readonly opts: WatchOptions) {}

  send(type: WatchEvent<T>['type'], object: T): void {
    this.queue.push({ type, object });
    this.notify();
  }
  end(): void {
    this.ended = true;
    this.notify();
  }
  fail(err: Error): void {
    this.error = err;
    this.notify();
  }
  close(): void {
    this.closed = true;
    this.notify();
  }
  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }
  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    try {
      for (;;) {
        if (this.closed) return;
        const ev = this.queue.shift();
        if (ev !== undefined) {
          yield ev;
          continue;
        }
        if (this.error !== undefined) throw this.error;
        if (this.ended) return;
        await new Promise<void>((r) => (this.wake = r));
      }
    } finally {
      this.closed = true;
    }
  }
}

export interface RecordedCall {
  verb: string;
  res: ResourceType;
  name?: string;
  body?: unknown;
  patchType?: PatchType;
  opts?: unknown;
}

export class FakeClient implements Client {
  readonly calls: RecordedCall[] = [];
  readonly watches: FakeWatch<KubeObject>[] = [];
  onList: (res: ResourceType, opts: ListOptions) => Promise<KubeList<KubeObject>> = () => Promise.reject(new Error('list not scripted'));
  onCreate: (res: ResourceType, obj: KubeObject, opts: WriteOptions) => Promise<KubeObject> = (_r, obj) => Promise.resolve(obj);
  onPatch: (res: ResourceType, name: string, type: PatchType, patch: unknown, opts: WriteOptions) => Promise<KubeObject> = () =>
    Promise.reject(new Error('patch not scripted'));

  get<T extends KubeObject>(): Promise<T> {
    return Promise.reject(new Error('get not scripted'));
  }
  async list<T extends KubeObject>(res: ResourceType, opts: ListOptions = {}): Promise<KubeList<T>> {
    this.calls.push({ verb: 'list', res, opts });
    return (await this.onList(res, opts)) as KubeList<T>;
  }
  watch<T extends KubeObject>(res: ResourceType, opts: WatchOptions = {}): WatchStream<T> {
    this.calls.push({ verb: 'watch', res, opts });
    const w = new FakeWatch<KubeObject>(opts);
    this.watches.push(w);
    return w as unknown as WatchStream<T>;
  }
  async create<T extends KubeObject>(res: ResourceType, obj: T, opts: WriteOptions = {}): Promise<T> {
    this.calls.push({ verb: 'create', res, body: obj, opts });
    return (await this.onCreate(res, obj, opts)) as T;
  }
  update<T extends KubeObject>(): Promise<T> {
    return Promise.reject(new Error('update not scripted'));
  }
  async patch<T extends KubeObject>(res: ResourceType, name: string, type: PatchType, patch: unknown, opts: WriteOptions = {}): Promise<T> {
    this.calls.push({ verb: 'patch', res, name, patchType: type, body: patch, opts });
    return (await this.onPatch(res, name, type, patch, opts)) as T;
  }
  delete<T extends KubeObject>(_res: ResourceType, _name: string, _opts?: DeleteOptions): Promise<T | Status> {
    return Promise.reject(new Error('delete not scripted'));
  }
  deleteCollection(): Promise<void> {
    return Promise.reject(new Error('deleteCollection not scripted'));
  }
  createSubresource<R = unknown>(): Promise<R> {
    return Promise.reject(new Error('createSubresource not scripted'));
  }
}

/** Lets pending promise callbacks and I/O callbacks run (a few turns of the event loop). */
export async function settle(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((r) => setImmediate(r));
}

/** Waits (in event-loop turns, not time) until `cond()` holds. */
export async function waitUntil(cond: () => boolean, what = 'condition'): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (cond()) return;
    await new Promise<void>((r) => setImmediate(r));
  }
  throw new Error(`timed out waiting for ${what}`);
}
