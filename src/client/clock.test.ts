import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock, realClock } from './clock.js';

void test('FakeClock fires due timers in due-time order with now() at each due time', () => {
  const clock = new FakeClock(1_000);
  const fired: string[] = [];
  clock.setTimeout(() => fired.push(`b@${clock.now()}`), 20);
  clock.setTimeout(() => fired.push(`a@${clock.now()}`), 10);
  clock.setTimeout(() => fired.push(`a2@${clock.now()}`), 10);
  clock.setTimeout(() => fired.push(`late@${clock.now()}`), 100);
  clock.step(50);
  assert.deepEqual(fired, ['a@1010', 'a2@1010', 'b@1020']);
  assert.equal(clock.now(), 1_050);
  assert.equal(clock.pendingTimers(), 1);
});

void test('FakeClock fires timers scheduled by a firing timer when they fall due in the same step', () => {
  const clock = new FakeClock();
  const fired: number[] = [];
  clock.setTimeout(() => {
    fired.push(clock.now());
    clock.setTimeout(() => fired.push(clock.now()), 5);
    clock.setTimeout(() => fired.push(clock.now()), 50);
  }, 5);
  clock.step(20);
  assert.deepEqual(fired, [5, 10]);
  clock.step(40);
  assert.deepEqual(fired, [5, 10, 55]);
});

void test('a cancelled FakeClock timer never fires; cancel is idempotent', () => {
  const clock = new FakeClock();
  let fired = false;
  const h = clock.setTimeout(() => (fired = true), 1);
  h.cancel();
  h.cancel();
  clock.step(10);
  assert.equal(fired, false);
  assert.equal(clock.pendingTimers(), 0);
});

void test('FakeClock handles many timers in order', () => {
  const clock = new FakeClock();
  const fired: number[] = [];
  const n = 20_000;
  for (let i = 0; i < n; i++) {
    const at = (i * 7919) % n;
    clock.setTimeout(() => fired.push(at), at);
  }
  const handles = Array.from({ length: 100 }, (_, i) => clock.setTimeout(() => fired.push(-1), i));
  for (const h of handles) h.cancel();
  assert.equal(clock.pendingTimers(), n);
  clock.step(n);
  assert.equal(fired.length, n);
  assert.ok(fired.every((v, i) => i === 0 || (fired[i - 1] ?? -1) <= v));
  assert.equal(clock.pendingTimers(), 0);
});

void test('realClock timers fire and can be cancelled', async () => {
  let fired = 0;
  const cancelled = realClock.setTimeout(() => fired++, 1);
  cancelled.cancel();
  await new Promise<void>((resolve) => realClock.setTimeout(resolve, 5));
  assert.equal(fired, 0);
  assert.ok(Math.abs(realClock.now() - Date.now()) < 50);
});
