/** The etcd backend's bound on requests in flight: never more than the limit, started in arrival order. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestSlots } from './etcd-backend.js';

void test('RequestSlots runs at most its limit at once and starts the rest in arrival order, also after failures', async () => {
  const slots = new RequestSlots(2);
  let running = 0;
  let most = 0;
  const started: number[] = [];
  const finish = new Map<number, () => void>();
  const requests = [0, 1, 2, 3, 4].map((i) =>
    slots.run(async () => {
      started.push(i);
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => finish.set(i, resolve));
      running--;
      if (i === 1) throw new Error('request 1 failed');
      return i;
    }),
  );
  const settled = Promise.allSettled(requests);
  const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
  await tick();
  assert.deepEqual(started, [0, 1]);
  finish.get(1)?.();
  await tick();
  assert.deepEqual(started, [0, 1, 2]);
  for (const i of [0, 2, 3, 4]) {
    await tick();
    finish.get(i)?.();
  }
  const results = await settled;
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
  assert.deepEqual(started, [0, 1, 2, 3, 4]);
  assert.equal(most, 2);
});
