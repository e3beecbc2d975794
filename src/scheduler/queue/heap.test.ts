import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeyedHeap } from './heap.js';

interface Item {
  key: string;
  value: number;
}

const heap = (): KeyedHeap<Item> =>
  new KeyedHeap<Item>(
    (i) => i.key,
    (a, b) => a.value < b.value,
  );

function drain(h: KeyedHeap<Item>): number[] {
  const out: number[] = [];
  for (let i = h.pop(); i !== undefined; i = h.pop()) out.push(i.value);
  return out;
}

// client-go tools/cache/heap_test.go TestHeapBasic: pops come out in order.
void test('items pop in order of less', () => {
  const h = heap();
  for (let i = 50; i > 0; i--) h.addOrUpdate({ key: `foo${i}`, value: i });
  assert.equal(h.size, 50);
  assert.deepEqual(drain(h), Array.from({ length: 50 }, (_, i) => i + 1));
  assert.equal(h.size, 0);
  assert.equal(h.pop(), undefined);
});

// TestHeap_Add: adding a key again replaces its item and moves it.
void test('adding a key again replaces its item and reorders', () => {
  const h = heap();
  h.addOrUpdate({ key: 'foo', value: 10 });
  h.addOrUpdate({ key: 'bar', value: 1 });
  h.addOrUpdate({ key: 'baz', value: 11 });
  h.addOrUpdate({ key: 'zab', value: 30 });
  h.addOrUpdate({ key: 'foo', value: 13 });
  assert.equal(h.size, 4);
  assert.deepEqual(h.pop(), { key: 'bar', value: 1 });
  assert.deepEqual(h.pop(), { key: 'baz', value: 11 });
  h.addOrUpdate({ key: 'baz', value: 14 });
  h.addOrUpdate({ key: 'zab', value: 1 });
  assert.deepEqual(drain(h), [1, 13, 14]);
});

// TestHeap_Delete: deleting the top, a middle and the last item; an unknown key is nothing.
void test('delete by key removes the item wherever it sits', () => {
  const h = heap();
  for (const [key, value] of [['foo', 10], ['bar', 1], ['bal', 31], ['baz', 11]] as const) h.addOrUpdate({ key, value });
  assert.deepEqual(h.delete('bar'), { key: 'bar', value: 1 });
  assert.equal(h.delete('bar'), undefined);
  assert.equal(h.has('bar'), false);
  assert.deepEqual(h.peek(), { key: 'foo', value: 10 });
  assert.deepEqual(h.delete('bal'), { key: 'bal', value: 31 });
  h.addOrUpdate({ key: 'zab', value: 30 });
  assert.deepEqual(h.delete('baz'), { key: 'baz', value: 11 });
  assert.deepEqual(drain(h), [10, 30]);
});

void test('get, has and list see every item by key after any sequence of changes', () => {
  // A fixed pseudo-random sequence of adds, updates, deletes and pops, checked against a plain map.
  let seed = 7;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const h = heap();
  const model = new Map<string, number>();
  for (let step = 0; step < 5000; step++) {
    const key = `k${rand(300)}`;
    const op = rand(10);
    if (op < 6) {
      const value = rand(1000);
      h.addOrUpdate({ key, value });
      model.set(key, value);
    } else if (op < 8) {
      assert.equal(h.delete(key)?.value, model.get(key));
      model.delete(key);
    } else {
      const top = h.pop();
      const min = Math.min(...model.values());
      if (model.size === 0) assert.equal(top, undefined);
      else {
        assert.equal(top?.value, min);
        assert.equal(model.get(top?.key ?? ''), min);
        model.delete(top?.key ?? '');
      }
    }
    assert.equal(h.size, model.size);
    assert.equal(h.has(key), model.has(key));
    assert.equal(h.get(key)?.value, model.get(key));
  }
  assert.deepEqual(
    h
      .list()
      .map((i) => i.key)
      .sort(),
    [...model.keys()].sort(),
  );
  assert.deepEqual(
    drain(h),
    [...model.values()].sort((a, b) => a - b),
  );
});
