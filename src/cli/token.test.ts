import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shortHumanDuration, tabwrite } from './token.js';

test('TTLs print as duration.ShortHumanDuration', () => {
  const cases: [number, string][] = [
    [-5000, '<invalid>'],
    [-500, '0s'],
    [59_000, '59s'],
    [60_000, '1m'],
    [23 * 3600_000 + 59 * 60_000, '23h'],
    [24 * 3600_000, '1d'],
    [400 * 24 * 3600_000, '1y'],
  ];
  for (const [ms, want] of cases) assert.equal(shortHumanDuration(ms), want, String(ms));
});

test("token list columns are padded as kubeadm's tabwriter (minwidth 10, padding 3)", () => {
  assert.equal(
    tabwrite([
      ['TOKEN', 'TTL', 'EXPIRES'],
      ['abcdef.0123456789abcdef', '23h', '2026-01-02T00:00:00Z'],
    ]),
    'TOKEN                     TTL       EXPIRES\nabcdef.0123456789abcdef   23h       2026-01-02T00:00:00Z\n',
  );
});
