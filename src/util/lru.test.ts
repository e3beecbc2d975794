import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Lru } from './lru.js';

void test('Lru keeps the most recently used entries: a read counts as a use, the least recently used goes first', () => {
  const c = new Lru<{ k: string }>(2);
  const get = (k: string): { k: string } => c.getOrCreate(k, () => ({ k }));
  const a = get('a');
  const b = get('b');
  assert.equal(get('a'), a);
  const d = get('c');
  assert.notEqual(d, a);
  assert.equal(c.size(), 2);
  assert.equal(get('a'), a, "'a' was used after 'b', so 'b' went first");
  assert.notEqual(get('b'), b);
  assert.equal(c.get('c'), undefined, "getting 'b' back pushed out 'c'");
});

void test('Lru.set replaces an entry and makes it the most recently used', () => {
  const c = new Lru<number>(2);
  c.set('x', 1);
  c.set('y', 2);
  c.set('x', 3);
  c.set('z', 4);
  assert.equal(c.get('x'), 3);
  assert.equal(c.get('y'), undefined);
  assert.equal(c.get('z'), 4);
});

void test('Lru: using the most recently used key again keeps the order of the others', () => {
  const c = new Lru<number>(2);
  c.set('a', 1);
  c.set('b', 2);
  assert.equal(c.get('b'), 2);
  c.set('b', 3);
  c.set('c', 4);
  assert.equal(c.get('a'), undefined, "'a' was the least recently used");
  assert.equal(c.get('b'), 3);
  c.set('b', 5);
  c.set('d', 6);
  assert.equal(c.get('c'), undefined, "'c' was used before 'b'");
  assert.deepEqual([c.get('b'), c.get('d')], [5, 6]);
  const one = new Lru<number>(0);
  one.set('x', 1);
  assert.equal(one.size(), 0);
  one.set('x', 2);
  assert.equal(one.get('x'), undefined, 'a zero-capacity cache keeps nothing, even its newest key');
});
