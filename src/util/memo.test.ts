import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Memo } from './memo.js';

void test('a memo computes each key once until it is full, then forgets everything and starts again', () => {
  const memo = new Memo<string>(3);
  const computed: string[] = [];
  const ask = (k: string): string =>
    memo.get(k, () => {
      computed.push(k);
      return k.toUpperCase();
    });
  assert.equal(ask('a'), 'A');
  assert.equal(ask('a'), 'A');
  assert.equal(ask('b'), 'B');
  assert.equal(ask('c'), 'C');
  assert.deepEqual(computed, ['a', 'b', 'c']);
  assert.equal(memo.size, 3);
  // Full: the fourth answer clears the others.
  assert.equal(ask('d'), 'D');
  assert.equal(memo.size, 1);
  assert.equal(ask('a'), 'A');
  assert.deepEqual(computed, ['a', 'b', 'c', 'd', 'a']);
});

void test('a failed computation is not remembered', () => {
  const memo = new Memo<number>(4);
  let calls = 0;
  const fail = (): number => {
    calls++;
    throw new Error('bad');
  };
  assert.throws(() => memo.get('x', fail), /bad/);
  assert.throws(() => memo.get('x', fail), /bad/);
  assert.equal(calls, 2);
  assert.equal(memo.size, 0);
});
