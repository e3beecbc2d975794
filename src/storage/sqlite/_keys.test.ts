import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareKeys, sortKeys } from './_keys.js';

/** SQLite's BINARY collation: the keys' UTF-8 bytes, compared as memcmp does. */
function byUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

void test('sortKeys orders keys by their UTF-8 bytes, with and without characters whose UTF-16 order differs', () => {
  const plain = ['/registry/pods/b/x', '/registry/events/a/y.18', '/registry/pods/a/z', '/registry/pods/a/Z', '/registry/pods/a/'];
  assert.deepEqual(sortKeys([...plain]), [...plain].sort(byUtf8));
  // U+1F600 (a surrogate pair in UTF-16) sorts after U+FFFD in UTF-8, before it in UTF-16 code units.
  const mixed = [...plain, '/registry/pods/a/\u{1F600}', '/registry/pods/a/\uFFFD', '/registry/pods/a/\uE000', '/registry/pods/a/\u00e9'];
  const want = [...mixed].sort(byUtf8);
  assert.notDeepEqual([...mixed].sort(), want, 'code unit order differs here');
  assert.deepEqual(sortKeys([...mixed]), want);
  assert.deepEqual([...mixed].sort(compareKeys), want);
});
