import { test } from 'node:test';
import assert from 'node:assert/strict';
import { truncateAtTotalRunes, truncateItemRunes, warningHeaders } from './warnings.js';

// The rules of k8s.io/apiserver/pkg/endpoints/filters/warning.go (recorder.AddWarning) and
// k8s.io/apimachinery/pkg/util/net NewWarningHeader.

test('each distinct warning once, in order; empty texts are skipped', () => {
  assert.deepEqual(warningHeaders(['a', '', 'b', 'a']), ['299 - "a"', '299 - "b"']);
});

test('only " and \\ are escaped; line breaks become spaces, as Go writes header values', () => {
  assert.deepEqual(warningHeaders(['say "hi" \\ there', 'two\nlines']), ['299 - "say \\"hi\\" \\\\ there"', '299 - "two lines"']);
});

test('Latin-1 text goes out as is (Node writes it as UTF-8, as Go writes the string); characters past U+00FF, which Node refuses in headers, become ?', () => {
  assert.deepEqual(warningHeaders(['größe ’x’']), ['299 - "größe ?x?"']);
});

test('past 4 Ki runes in total every warning, earlier ones included, is cut to 256 runes', () => {
  const long = (c: string): string => c.repeat(2000);
  const headers = warningHeaders([long('a'), long('b'), long('c')]);
  assert.deepEqual(headers, [`299 - "${'a'.repeat(truncateItemRunes)}"`, `299 - "${'b'.repeat(truncateItemRunes)}"`, `299 - "${'c'.repeat(truncateItemRunes)}"`]);
});

test('within the total nothing is cut', () => {
  const text = 'x'.repeat(truncateAtTotalRunes);
  assert.deepEqual(warningHeaders([text]), [`299 - "${text}"`]);
});

test('once truncating and full, further warnings are dropped', () => {
  const many = Array.from({ length: 40 }, (_, i) => `${i}`.padEnd(300, '.'));
  const headers = warningHeaders(many);
  // 13 fit whole (3,900 runes); the 14th starts truncation and the replay counts 14 x 256; the 15th and
  // 16th bring the total to exactly 4 Ki; from then on every warning is dropped.
  assert.equal(headers.length, 16);
  assert.ok(headers.every((h) => h.length === '299 - ""'.length + truncateItemRunes));
});
