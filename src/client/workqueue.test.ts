// Ports of client-go util/workqueue tests (queue_test.go, delaying_queue_test.go, default_rate_limiters_test.go,
// rate_limiting_queue_test.go) onto our WorkQueue with a FakeClock.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeClock } from './clock.js';
import { WorkQueue } from './workqueue.js';

/** Calls `addRateLimited(key)` and answers the delay it chose, by stepping a fake clock until the key shows up. */
function delayOf(q: WorkQueue, clock: FakeClock, key: string): number {
  const start = clock.now();
  q.addRateLimited(key);
  let steps = 0;
  while (q.len() === 0) {
    clock.step(1);
    if (++steps > 10_000_000) throw new Error('key never became ready');
  }
  void q.get();
  q.done(key);
  return clock.now() - start;
}

void describe('queue', () => {
  void test('TestLen: adding a key that is already waiting does not grow the queue', () => {
    const q = new WorkQueue();
    q.add('foo');
    assert.equal(q.len(), 1);
    q.add('bar');
    assert.equal(q.len(), 2);
    q.add('foo'); // should not increase the queue length.
    assert.equal(q.len(), 2);
  });

  void test('TestReinsert: a key added while it is processed comes back once after done', async () => {
    const q = new WorkQueue();
    q.add('foo');
    const i = await q.get(); // Start processing
    assert.equal(i, 'foo');
    q.add('foo'); // Add it back while processing
    assert.equal(q.len(), 0, 'a key being processed is not handed to another worker');
    q.done('foo'); // Finish it up
    assert.equal(await q.get(), 'foo');
    q.done('foo');
    assert.equal(q.len(), 0);
  });

  void test('TestAddWhileProcessing: several adds during processing collapse into one requeue', async () => {
    const q = new WorkQueue();
    q.add('a');
    assert.equal(await q.get(), 'a');
    q.add('a');
    q.add('a');
    q.add('a');
    q.done('a');
    assert.equal(q.len(), 1);
    assert.equal(await q.get(), 'a');
    q.done('a');
    assert.equal(q.len(), 0);
  });

  void test('a waiting worker is handed a key on the next event-loop turn, so adds of one turn make one sync', async () => {
    const q = new WorkQueue();
    const synced: string[] = [];
    const worker = (async (): Promise<void> => {
      for (let k = await q.get(); k !== undefined; k = await q.get()) {
        synced.push(k);
        q.done(k);
      }
    })();
    // Two informer events of one burst, each followed by its microtasks, as a thread taking in messages runs them.
    q.add('ds');
    for (let i = 0; i < 10; i++) await Promise.resolve();
    assert.deepEqual(synced, [], 'the worker waits for the turn to end');
    q.add('ds');
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(synced, ['ds']);
    q.shutDown();
    await worker;
  });

  void test('keys come out in the order they were added', async () => {
    const q = new WorkQueue();
    for (const k of ['c', 'a', 'b', 'a']) q.add(k);
    const out: (string | undefined)[] = [];
    for (let i = 0; i < 3; i++) out.push(await q.get());
    assert.deepEqual(out, ['c', 'a', 'b']);
  });

  void test('order holds across many keys (the internal FIFO compacts as it drains)', async () => {
    const q = new WorkQueue<number>();
    const out: number[] = [];
    for (let i = 0; i < 5000; i++) {
      q.add(i);
      if (i % 3 === 0) {
        const k = (await q.get()) ?? -1;
        out.push(k);
        q.done(k);
      }
    }
    while (q.len() > 0) {
      const k = (await q.get()) ?? -1;
      out.push(k);
      q.done(k);
    }
    assert.deepEqual(
      out,
      Array.from({ length: 5000 }, (_, i) => i),
    );
  });

  void test('a waiting get is woken by add, and each key goes to one worker', async () => {
    const q = new WorkQueue();
    const g1 = q.get();
    const g2 = q.get();
    q.add('x');
    q.add('y');
    assert.deepEqual(await Promise.all([g1, g2]), ['x', 'y']);
  });

  void test('shutDown drains queued keys, then get answers undefined; later adds are ignored', async () => {
    const q = new WorkQueue();
    q.add('foo');
    q.shutDown();
    assert.equal(q.isShuttingDown(), true);
    q.add('bar');
    assert.equal(await q.get(), 'foo');
    assert.equal(await q.get(), undefined);
    assert.equal(q.len(), 0);
  });

  void test('shutDownWithDrain waits for queued and processing keys to be done', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    assert.equal(await q.get(), 'a');
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(drained, false, 'a is still being processed and b is queued');
    q.done('a');
    assert.equal(await q.get(), 'b');
    await new Promise((r) => setImmediate(r));
    assert.equal(drained, false);
    q.done('b');
    await drain;
    assert.equal(await q.get(), undefined);
  });

  void test('shutDown releases a blocked get with undefined', async () => {
    const q = new WorkQueue();
    const pending = q.get();
    q.shutDown();
    assert.equal(await pending, undefined);
  });
});

void describe('delaying queue', () => {
  void test('TestSimpleQueue: addAfter makes the key ready only after the delay', async () => {
    const clock = new FakeClock(1_000);
    const q = new WorkQueue({ clock });
    q.addAfter('foo', 50);
    assert.equal(q.len(), 0);
    clock.step(60);
    assert.equal(q.len(), 1);
    const item = await q.get();
    q.done(item ?? '');
    clock.step(10_000);
    assert.equal(q.len(), 0);
  });

  void test('TestDeduping: two delayed adds of one key keep the earliest', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    q.addAfter('foo', 50);
    q.addAfter('foo', 70);
    assert.equal(q.len(), 0);
    clock.step(60);
    assert.equal(q.len(), 1);
    q.done((await q.get()) ?? '');
    clock.step(20);
    assert.equal(q.len(), 0, 'the 70 ms add was deduped into the 50 ms one');

    q.addAfter('foo', 70);
    q.addAfter('foo', 50);
    assert.equal(q.len(), 0);
    clock.step(60);
    assert.equal(q.len(), 1);
    q.done((await q.get()) ?? '');
    clock.step(20);
    assert.equal(q.len(), 0);
  });

  void test('TestAddTwoFireEarly', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    q.addAfter('foo', 1_000);
    q.addAfter('bar', 50);
    assert.equal(q.len(), 0);
    clock.step(60);
    assert.equal(q.len(), 1);
    assert.equal(await q.get(), 'bar');
    q.addAfter('baz', 2_000);
    clock.step(1_000);
    assert.equal(q.len(), 1);
    assert.equal(await q.get(), 'foo');
    clock.step(2_000);
    assert.equal(q.len(), 1);
    assert.equal(await q.get(), 'baz');
  });

  void test('TestCopyShifting: keys become ready in the order of their ready times', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    q.addAfter('foo', 1_000);
    q.addAfter('bar', 500);
    q.addAfter('baz', 250);
    assert.equal(q.len(), 0);
    clock.step(2_000);
    assert.equal(q.len(), 3);
    assert.deepEqual([await q.get(), await q.get(), await q.get()], ['baz', 'bar', 'foo']);
  });

  void test('addAfter with a zero delay adds at once', () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    q.addAfter('foo', 0);
    assert.equal(q.len(), 1);
  });

  void test('shutDown cancels delayed adds', () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    q.addAfter('foo', 50);
    q.shutDown();
    assert.equal(clock.pendingTimers(), 0);
    clock.step(100);
    assert.equal(q.len(), 0);
  });
});

void describe('rate limiting', () => {
  void test('TestItemExponentialFailureRateLimiter', () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ baseDelayMs: 1, maxDelayMs: 1_000, clock });
    assert.deepEqual(
      [1, 2, 3, 4, 5].map(() => delayOf(q, clock, 'one')),
      [1, 2, 4, 8, 16],
    );
    assert.equal(q.numRequeues('one'), 5);
    assert.deepEqual([delayOf(q, clock, 'two'), delayOf(q, clock, 'two')], [1, 2]);
    assert.equal(q.numRequeues('two'), 2);
    q.forget('one');
    assert.equal(q.numRequeues('one'), 0);
    assert.equal(delayOf(q, clock, 'one'), 1);
  });

  void test('TestItemExponentialFailureRateLimiterOverFlow: the backoff stops at the maximum', () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ baseDelayMs: 1, maxDelayMs: 1_000_000, clock });
    for (let i = 0; i < 5; i++) delayOf(q, clock, 'one');
    assert.equal(delayOf(q, clock, 'one'), 32);
    // 1000 failures must not overflow into NaN or Infinity: the next backoff is the 1000 s maximum.
    for (let i = 0; i < 1000; i++) q.addRateLimited('overflow1');
    clock.step(1); // the first (1 ms) entry fired; the later ones were deduped into it
    assert.equal(q.len(), 1);
    q.add('other');
    void q.get();
    q.done('overflow1');
    q.addRateLimited('overflow1');
    clock.step(1_000_000 - 1);
    assert.equal(q.len(), 1, 'only "other" is ready');
    clock.step(1);
    assert.equal(q.len(), 2);
  });

  void test('the default limiter starts at 5 ms and doubles', () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    assert.deepEqual([0, 1, 2, 3].map(() => delayOf(q, clock, 'k')), [5, 10, 20, 40]);
  });

  void test('TestRateLimitingQueue: repeated addRateLimited of a waiting key keeps the earliest ready time', () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ baseDelayMs: 1, maxDelayMs: 1_000, clock });
    q.addRateLimited('one'); // ready at +1 ms
    q.addRateLimited('one'); // would be +2 ms; the waiting +1 ms entry wins
    assert.equal(q.numRequeues('one'), 2);
    q.addRateLimited('two');
    q.addRateLimited('two');
    assert.equal(q.numRequeues('two'), 2);
    clock.step(1);
    assert.equal(q.len(), 2);
    q.forget('one');
    assert.equal(q.numRequeues('one'), 0);
  });

  void test('BucketRateLimiter: a burst passes, then adds are spaced by 1/qps', () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ baseDelayMs: 0, clock, bucket: { qps: 10, burst: 2 } });
    q.addRateLimited('a');
    q.addRateLimited('b');
    assert.equal(q.len(), 2, 'the burst of 2 is not delayed');
    q.addRateLimited('c');
    q.addRateLimited('d');
    assert.equal(q.len(), 2);
    clock.step(99);
    assert.equal(q.len(), 2);
    clock.step(1);
    assert.equal(q.len(), 3, 'c waits one token, 100 ms');
    clock.step(100);
    assert.equal(q.len(), 4, 'd waits two tokens, 200 ms');
  });
});
