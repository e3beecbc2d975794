import assert from 'node:assert/strict';
import { test } from 'node:test';
import { grown } from './typed-arrays.js';

void test('grown keeps the elements and type, and zero-fills the new room', () => {
  const f = grown(Float64Array.of(1.5, 2), 4);
  assert.ok(f instanceof Float64Array);
  assert.deepEqual([...f], [1.5, 2, 0, 0]);
  const i = grown(Int32Array.of(-3), 3);
  assert.ok(i instanceof Int32Array);
  assert.deepEqual([...i], [-3, 0, 0]);
});
