import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { WatchEvent } from './client.js';
import { WatchQueue } from './watch-queue.js';

const ev = (n: number): WatchEvent<{ n: number }> => ({ type: 'ADDED', object: { n } });

async function drain(q: WatchQueue<{ n: number }>): Promise<number[]> {
  const out: number[] = [];
  for await (const e of q.stream()) out.push(e.object.n);
  return out;
}

void describe('WatchQueue', () => {
  void test('events are read in push order; end() finishes after what is queued', async () => {
    const q = new WatchQueue<{ n: number }>();
    for (let i = 0; i < 5000; i++) q.push(ev(i));
    q.end();
    assert.deepEqual(await drain(q), Array.from({ length: 5000 }, (_, i) => i));
  });

  void test('a waiting reader wakes on the next push', async () => {
    const q = new WatchQueue<{ n: number }>();
    const it = q.stream()[Symbol.asyncIterator]();
    const pending = it.next();
    q.push(ev(7));
    assert.deepEqual((await pending).value, ev(7));
  });

  void test('close() ends at once, tells the producer once, and ignores later pushes', async () => {
    let closes = 0;
    const q = new WatchQueue<{ n: number }>(() => closes++);
    const it = q.stream()[Symbol.asyncIterator]();
    const pending = it.next();
    q.close();
    q.close();
    q.push(ev(1));
    assert.equal((await pending).done, true);
    assert.equal(closes, 1);
    assert.equal(q.isEnded, true);
    assert.deepEqual(await drain(q), []);
  });

  void test('end() by the producer does not call onClose; breaking out of the loop does', async () => {
    let closes = 0;
    const q = new WatchQueue<{ n: number }>(() => closes++);
    q.push(ev(1));
    q.push(ev(2));
    for await (const e of q.stream()) if (e.object.n === 1) break;
    assert.equal(closes, 1);
    const r = new WatchQueue<{ n: number }>(() => closes++);
    r.end();
    assert.deepEqual(await drain(r), []);
    assert.equal(closes, 1);
  });
});
