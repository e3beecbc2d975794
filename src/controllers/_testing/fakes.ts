/**
 * Test doubles for the `src/client/` contracts: an informer over any `Client` (list then watch), a
 * deduplicating work queue, a fake clock and an event recorder that keeps what it records.
 */
import type { ResourceType } from '../../api/resources.js';
import type { Client, KubeObject, WatchStream } from '../../client/client.js';
import {
  objectKey,
  standardIndexers,
  type Clock,
  type Controller,
  type ControllerContext,
  type EventRecorder,
  type Informer,
  type InformerHandlers,
  type WorkQueue,
} from '../_context.js';

export class FakeClock implements Clock {
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private seq = 0;
  constructor(private current = Date.parse('2025-01-01T00:00:00Z')) {}
  now(): number {
    return this.current;
  }
  setTimeout(fn: () => void, ms: number): { cancel(): void } {
    const id = ++this.seq;
    this.timers.push({ at: this.current + Math.max(0, ms), fn, id });
    return { cancel: () => (this.timers = this.timers.filter((t) => t.id !== id)) };
  }
  /** Advances time, firing due timers in order. */
  step(ms: number): void {
    const end = this.current + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at || a.id - b.id);
      const t = this.timers[0];
      if (t === undefined || t.at > end) break;
      this.timers.shift();
      this.current = Math.max(this.current, t.at);
      t.fn();
    }
    this.current = end;
  }
  pendingTimers(): number {
    return this.timers.length;
  }
}

export class TestInformer<T extends KubeObject> implements Informer<T> {
  private readonly cache = new Map<string, T>();
  private readonly handlers: InformerHandlers<T>[] = [];
  private synced = false;
  private stream: WatchStream<T> | undefined;
  private stopped = false;
  private syncWaiters: (() => void)[] = [];
  constructor(
    private readonly client: Client,
    private readonly res: ResourceType,
  ) {}
  addHandlers(h: InformerHandlers<T>): void {
    this.handlers.push(h);
    if (this.synced) for (const o of this.cache.values()) h.onAdd?.(o);
  }
  start(): void {
    void this.run();
  }
  private async run(): Promise<void> {
    const l = await this.client.list<T>(this.res);
    if (this.stopped) return;
    for (const o of l.items) {
      this.cache.set(objectKey(o), o);
      for (const h of this.handlers) h.onAdd?.(o);
    }
    this.synced = true;
    for (const w of this.syncWaiters) w();
    this.syncWaiters = [];
    const opts = l.metadata.resourceVersion !== undefined ? { resourceVersion: l.metadata.resourceVersion } : {};
    this.stream = this.client.watch<T>(this.res, opts);
    for await (const ev of this.stream) {
      const k = objectKey(ev.object);
      const old = this.cache.get(k);
      if (ev.type === 'DELETED') {
        this.cache.delete(k);
        for (const h of this.handlers) h.onDelete?.(ev.object);
      } else if (ev.type === 'ADDED' || ev.type === 'MODIFIED') {
        this.cache.set(k, ev.object);
        for (const h of this.handlers) {
          if (old === undefined) h.onAdd?.(ev.object);
          else h.onUpdate?.(old, ev.object);
        }
      }
    }
  }
  stop(): void {
    this.stopped = true;
    this.stream?.close();
  }
  hasSynced(): boolean {
    return this.synced;
  }
  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((r) => this.syncWaiters.push(r));
  }
  list(): T[] {
    return [...this.cache.values()];
  }
  get(key: string): T | undefined {
    return this.cache.get(key);
  }
  byIndex(indexName: string, value: string): T[] {
    const f = standardIndexers(this.res)[indexName];
    if (f === undefined) throw new Error(`no index ${indexName}`);
    return [...this.cache.values()].filter((o) => f(o).includes(value));
  }
}

export class TestQueue implements WorkQueue<string> {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly requeues = new Map<string, number>();
  private waiters: ((k: string | undefined) => void)[] = [];
  private shutting = false;
  constructor(
    private readonly clock: Clock,
    private readonly baseDelayMs = 5,
  ) {}
  add(key: string): void {
    if (this.shutting || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    const w = this.waiters.shift();
    if (w !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      w(key);
    } else this.queue.push(key);
  }
  addAfter(key: string, delayMs: number): void {
    if (delayMs <= 0) this.add(key);
    else this.clock.setTimeout(() => this.add(key), delayMs);
  }
  addRateLimited(key: string): void {
    const n = this.requeues.get(key) ?? 0;
    this.requeues.set(key, n + 1);
    this.addAfter(key, this.baseDelayMs * 2 ** n);
  }
  forget(key: string): void {
    this.requeues.delete(key);
  }
  numRequeues(key: string): number {
    return this.requeues.get(key) ?? 0;
  }
  get(): Promise<string | undefined> {
    const k = this.queue.shift();
    if (k !== undefined) {
      this.dirty.delete(k);
      this.processing.add(k);
      return Promise.resolve(k);
    }
    if (this.shutting) return Promise.resolve(undefined);
    return new Promise((r) => this.waiters.push(r));
  }
  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) {
      this.dirty.delete(key);
      this.add(key);
    }
  }
  len(): number {
    return this.queue.length;
  }
  /** Keys queued or being processed. */
  busy(): number {
    return this.queue.length + this.processing.size;
  }
  shutDown(): void {
    this.shutting = true;
    for (const w of this.waiters) w(undefined);
    this.waiters = [];
  }
}

export interface RecordedEvent {
  object: string;
  kind: string;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  component: string;
}

export class TestRecorder implements EventRecorder {
  constructor(
    private readonly sink: RecordedEvent[],
    private readonly component: string,
  ) {}
  event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.sink.push({ object: objectKey(obj), kind: obj.kind ?? '', type, reason, message, component: this.component });
  }
  async flush(): Promise<void> {}
}

/** A ControllerContext over a `Client` with test informers, queues, a fake clock and recorded events. */
export class TestContext implements ControllerContext {
  readonly events: RecordedEvent[] = [];
  readonly queues: TestQueue[] = [];
  private readonly informers = new Map<string, TestInformer<KubeObject>>();
  constructor(
    readonly client: Client,
    readonly clock: FakeClock = new FakeClock(),
  ) {}
  informer<T extends KubeObject>(res: ResourceType): Informer<T> {
    const k = `${res.group}/${res.resource}`;
    let inf = this.informers.get(k);
    if (inf === undefined) {
      inf = new TestInformer<KubeObject>(this.client, res);
      this.informers.set(k, inf);
      // Like the shared informer factory: informers handed out after start() start at once.
      if (this.started) inf.start();
    }
    return inf as unknown as Informer<T>;
  }
  newQueue(): WorkQueue<string> {
    const q = new TestQueue(this.clock);
    this.queues.push(q);
    return q;
  }
  recorder(component: string): EventRecorder {
    return new TestRecorder(this.events, component);
  }
  private started = false;
  /** Informers handed out so far. */
  informerCount(): number {
    return this.informers.size;
  }
  startInformers(): void {
    this.started = true;
    for (const i of this.informers.values()) i.start();
  }
  async waitForSync(): Promise<void> {
    for (const i of this.informers.values()) await i.waitForSync();
  }
  stop(): void {
    for (const q of this.queues) q.shutDown();
    for (const i of this.informers.values()) i.stop();
  }
  /** Lets watches, handlers and workers run until every queue is idle for a few turns. */
  async settle(maxTurns = 2000): Promise<void> {
    let idle = 0;
    for (let i = 0; i < maxTurns; i++) {
      await new Promise((r) => setImmediate(r));
      if (this.queues.every((q) => q.busy() === 0)) {
        if (++idle >= 5) return;
      } else idle = 0;
    }
    throw new Error('controllers did not settle');
  }
}

/** Polls `pred` across event-loop turns; throws after `maxTurns`. */
export async function waitFor(pred: () => boolean, maxTurns = 2000): Promise<void> {
  for (let i = 0; i < maxTurns; i++) {
    if (pred()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error('condition not reached');
}

type TestHooks = { after(fn: () => void): void };

/**
 * Starts `controllers` on `ctx`, then its informers, and waits for them to sync; when the test ends the
 * controllers stop in reverse order, then the informers.
 */
export async function startControllers(t: TestHooks, ctx: TestContext, ...controllers: Controller[]): Promise<void> {
  for (const c of controllers) c.start();
  ctx.startInformers();
  await ctx.waitForSync();
  t.after(() => {
    for (const c of [...controllers].reverse()) c.stop();
    ctx.stop();
  });
}

/** A controller made by `create` started on a new TestContext over `client` (`startControllers`). */
export async function startController(t: TestHooks, client: Client, create: (ctx: TestContext) => Controller, clock?: FakeClock): Promise<TestContext> {
  const ctx = new TestContext(client, clock);
  await startControllers(t, ctx, create(ctx));
  return ctx;
}
