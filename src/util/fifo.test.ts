import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Fifo } from './fifo.js';

void test('a fifo gives items back in order, across the compactions of its storage', () => {
  const q = new Fifo<number>();
  const out: number[] = [];
  let next = 0;
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < 3000; i++) q.push(next++);
    for (let i = 0; i < 2000; i++) out.push(q.shift() as number);
  }
  assert.equal(q.length, 5000);
  while (q.length > 0) out.push(q.shift() as number);
  assert.equal(q.shift(), undefined);
  assert.deepEqual(out, Array.from({ length: 15000 }, (_, i) => i));
});
