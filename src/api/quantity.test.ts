import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QuantityParseError, canonicalQuantity, parseQuantity, quantityMilliValue, quantityValue } from './quantity.js';

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

test('canonicalQuantity: the form the API server stores, the same when asked again; a malformed one throws every time', () => {
  const cases: [string | number, string][] = [
    ['1000m', '1'],
    ['0.5', '500m'],
    ['1024Mi', '1Gi'],
    ['1.5Gi', '1536Mi'],
    ['2048Ki', '2Mi'],
    ['1e3', '1e3'],
    [' 2 ', '2'],
    [4, '4'],
    ['4', '4'],
  ];
  // Twice: the second answer comes from the texts already written.
  for (let i = 0; i < 2; i++) for (const [input, want] of cases) assert.equal(canonicalQuantity(input), want, `${JSON.stringify(input)}, time ${i + 1}`);
  for (let i = 0; i < 2; i++) assert.throws(() => canonicalQuantity('12 cores'), QuantityParseError);
});
