import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QuantityParseError, parseQuantity, quantityMilliValue, quantityValue } from './quantity.js';

test('parseQuantity: values in nano-units, rounded up, with the suffix family as format', () => {
  const cases: [string | number, bigint, string][] = [
    ['100m', 100_000_000n, 'DecimalSI'],
    ['128Mi', 128n * 1024n * 1024n * 1_000_000_000n, 'BinarySI'],
    ['1.5', 1_500_000_000n, 'DecimalSI'],
    ['1e3', 1000n * 1_000_000_000n, 'DecimalExponent'],
    ['1n', 1n, 'DecimalSI'],
    ['0.1n', 1n, 'DecimalSI'],
    [' 2 ', 2_000_000_000n, 'DecimalSI'],
    [4, 4_000_000_000n, 'DecimalSI'],
  ];
  for (const [input, nanos, format] of cases) assert.deepEqual(parseQuantity(input), { nanos, format }, String(input));
  assert.equal(quantityMilliValue(parseQuantity('250m')), 250);
  assert.equal(quantityValue(parseQuantity('1.2')), 2);
});

test('parseQuantity: a repeated text gives the same immutable Quantity; a malformed one throws every time', () => {
  const a = parseQuantity('16Mi');
  assert.equal(parseQuantity('16Mi'), a);
  assert.ok(Object.isFrozen(a));
  for (let i = 0; i < 2; i++) assert.throws(() => parseQuantity('12 cores'), QuantityParseError);
});
