/**
 * A rate-limited work queue with client-go's semantics (`k8s.io/client-go/util/workqueue`):
 *
 * - A key is processed by at most one worker at a time. `add()` of a key that is already waiting is a no-op;
 *   `add()` of a key that is being processed marks it dirty, and `done()` puts it back in the queue once.
 * - `addAfter()` delays an add; several delayed adds of one key keep the earliest ready time.
 * - `addRateLimited()` delays by the key's per-item exponential backoff (`baseDelayMs * 2^failures`, capped at
 *   `maxDelayMs`; client-go's `ItemExponentialFailureRateLimiter(5ms, 1000s)`), optionally combined with an
 *   overall token bucket (client-go's `DefaultControllerRateLimiter` adds `BucketRateLimiter(10 qps, 100 burst)`)
 *   by taking the larger delay. `forget()` resets the key's failures.
 * - After `shutDown()` adds are ignored, `get()` drains what is queued and then answers `undefined`.
 */
import { realClock, type Clock, type TimerHandle } from './clock.js';
import { Fifo } from '../util/fifo.js';

export interface WorkQueueOptions {
  /** First per-item backoff of `addRateLimited()` (default 5 ms). */
  baseDelayMs?: number;
  /** Cap of the per-item backoff (default 1000 s). */
  maxDelayMs?: number;
  /** An overall token bucket on `addRateLimited()`; off unless given. */
  bucket?: { qps: number; burst: number };
  clock?: Clock;
}

interface Waiting {
  readonly readyAt: number;
  readonly timer: TimerHandle;
}

export class WorkQueue<K = string> {
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly clock: Clock;
  private readonly bucket: { qps: number; burst: number } | undefined;
  private bucketTokens = 0;
  private bucketLast = 0;

  private readonly queue = new Fifo<K>();
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly failures = new Map<K, number>();
  private readonly waiting = new Map<K, Waiting>();
  private readonly getters = new Fifo<(key: K | undefined) => void>();
  private readonly drainWaiters: (() => void)[] = [];
  private shuttingDown = false;
  private handOffScheduled = false;

  constructor(opts: WorkQueueOptions = {}) {
    this.baseDelayMs = opts.baseDelayMs ?? 5;
    this.maxDelayMs = opts.maxDelayMs ?? 1_000_000;
    this.clock = opts.clock ?? realClock;
    this.bucket = opts.bucket;
    if (this.bucket !== undefined) {
      this.bucketTokens = this.bucket.burst;
      this.bucketLast = this.clock.now();
    }
  }

  /** Marks `key` as needing processing. */
  add(key: K): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.queue.push(key);
    this.dispatch();
  }

  /** Adds `key` after `delayMs` (immediately when `delayMs <= 0`). */
  addAfter(key: K, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const readyAt = this.clock.now() + delayMs;
    const existing = this.waiting.get(key);
    if (existing !== undefined) {
      if (existing.readyAt <= readyAt) return;
      existing.timer.cancel();
    }
    const timer = this.clock.setTimeout(() => {
      this.waiting.delete(key);
      this.add(key);
    }, delayMs);
    this.waiting.set(key, { readyAt, timer });
  }

  /** Adds `key` after its rate-limited backoff and counts one more failure for it. */
  addRateLimited(key: K): void {
    this.addAfter(key, this.when(key));
  }

  /** Resets the backoff of `key` (call after it was processed successfully). */
  forget(key: K): void {
    this.failures.delete(key);
  }

  /** How many times `key` was rate-limited since the last `forget()`. */
  numRequeues(key: K): number {
    return this.failures.get(key) ?? 0;
  }

  /**
   * Waits for the next key and marks it as being processed; the caller must call `done(key)` afterwards.
   * Answers `undefined` once the queue is shut down and drained.
   */
  get(): Promise<K | undefined> {
    const key = this.take();
    if (key !== undefined || this.shuttingDown) return Promise.resolve(key);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Ends processing of `key`; a key added while it was processed goes back into the queue. */
  done(key: K): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) {
      this.queue.push(key);
      this.dispatch();
    }
    this.checkDrained();
  }

  /** Keys waiting to be processed (not counting delayed adds and keys being processed). */
  len(): number {
    return this.queue.length;
  }

  /** Stops accepting adds, drops delayed adds, and releases waiting `get()` calls once drained. Idempotent. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const w of this.waiting.values()) w.timer.cancel();
    this.waiting.clear();
    this.dispatch();
  }

  /**
   * `shutDown()`, then resolves once every key that was queued or being processed has been `done()`
   * (client-go's `ShutDownWithDrain`). Workers must keep calling `get()` until it answers `undefined`.
   */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    return new Promise((resolve) => {
      this.drainWaiters.push(resolve);
      this.checkDrained();
    });
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  private checkDrained(): void {
    if (!this.shuttingDown || this.queue.length > 0 || this.processing.size > 0) return;
    for (const w of this.drainWaiters.splice(0)) w();
  }

  private take(): K | undefined {
    if (this.queue.length === 0) return undefined;
    const key = this.queue.shift() as K;
    this.processing.add(key);
    this.dirty.delete(key);
    return key;
  }

  /**
   * Hands queued keys to waiting workers on the next event-loop turn rather than at once. An informer's
   * handler adds keys while the thread is still taking in a burst of changes; a worker woken at once would
   * sync on the spot, before the rest of the burst (a sync of a DaemonSet on 5,000 nodes takes about 10 ms,
   * so a thread that also receives thousands of changes a second fell behind by half a minute). Waiting
   * for the turn lets the burst in first, and its adds of one key make one sync, as in client-go, where
   * the workers do not stop the informers while they sync.
   */
  private dispatch(): void {
    if (this.handOffScheduled || this.getters.length === 0) return;
    this.handOffScheduled = true;
    setImmediate(() => {
      this.handOffScheduled = false;
      this.handOff();
    });
  }

  private handOff(): void {
    while (this.getters.length > 0 && this.queue.length > 0) {
      const getter = this.getters.shift();
      getter?.(this.take());
    }
    if (this.shuttingDown && this.queue.length === 0) {
      for (let getter = this.getters.shift(); getter !== undefined; getter = this.getters.shift()) getter(undefined);
    }
  }

  /** The rate limiter: max of the per-item exponential backoff and the overall bucket. */
  private when(key: K): number {
    const exp = this.failures.get(key) ?? 0;
    this.failures.set(key, exp + 1);
    const backoff = this.baseDelayMs * Math.pow(2, exp);
    const itemDelay = !Number.isFinite(backoff) || backoff > this.maxDelayMs ? this.maxDelayMs : backoff;
    return Math.max(itemDelay, this.bucketDelay());
  }

  /** Reserves one token (golang.org/x/time/rate `Reserve().Delay()`): the wait until it is available. */
  private bucketDelay(): number {
    if (this.bucket === undefined || this.bucket.qps <= 0) return 0;
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.bucketLast) / 1000;
    this.bucketLast = now;
    this.bucketTokens = Math.min(this.bucket.burst, this.bucketTokens + elapsed * this.bucket.qps);
    this.bucketTokens -= 1;
    return this.bucketTokens >= 0 ? 0 : (-this.bucketTokens / this.bucket.qps) * 1000;
  }
}
