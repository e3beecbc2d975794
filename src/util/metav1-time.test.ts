import { test } from 'node:test';
import assert from 'node:assert/strict';
import { metav1Time } from './metav1-time.js';

test('metav1Time writes RFC 3339 to the second, truncating the milliseconds', () => {
  const cases: [number, string][] = [
    [Date.UTC(2026, 10, 29, 21, 5, 7, 0), '2026-11-29T21:05:07Z'],
    [Date.UTC(2026, 10, 29, 21, 5, 7, 999), '2026-11-29T21:05:07Z'],
    [Date.UTC(2026, 10, 29, 21, 5, 8, 1), '2026-11-29T21:05:08Z'],
    [0, '1970-01-01T00:00:00Z'],
    [Date.UTC(2026, 10, 29, 21, 5, 7, 500), '2026-11-29T21:05:07Z'],
  ];
  for (const [ms, want] of cases) assert.equal(metav1Time(ms), want, String(ms));
});
