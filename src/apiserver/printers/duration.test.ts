import { test } from 'node:test';
import assert from 'node:assert/strict';
import { humanDuration, shortHumanDuration } from './duration.js';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;
const ns = 1e-6;

// staging/src/k8s.io/apimachinery/pkg/util/duration/duration_test.go TestHumanDuration
const humanCases: Array<[number, string]> = [
  [s, '1s'],
  [70 * s, '70s'],
  [190 * s, '3m10s'],
  [70 * m, '70m'],
  [47 * h, '47h'],
  [49 * h, '2d1h'],
  [(8 * 24 + 2) * h, '8d'],
  [367 * 24 * h, '367d'],
  [(365 * 2 * 24 + 25) * h, '2y1d'],
  [(365 * 8 * 24 + 2) * h, '8y'],
];
for (const [dur, want] of humanCases) {
  void test(`HumanDuration(${dur}ms) = ${want}`, () => assert.equal(humanDuration(dur), want));
}

// TestHumanDurationBoundaries
const humanBoundaries: Array<[number, string]> = [
  [-2 * s, '<invalid>'],
  [-2 * s + ns, '0s'],
  [0, '0s'],
  [s - 1, '0s'],
  [2 * m - 1, '119s'],
  [2 * m, '2m'],
  [2 * m + s, '2m1s'],
  [10 * m - 1, '9m59s'],
  [10 * m, '10m'],
  [10 * m + s, '10m'],
  [3 * h - 1, '179m'],
  [3 * h, '3h'],
  [3 * h + m, '3h1m'],
  [8 * h - 1, '7h59m'],
  [8 * h, '8h'],
  [8 * h + 59 * m, '8h'],
  [2 * d - 1, '47h'],
  [2 * d, '2d'],
  [2 * d + h, '2d1h'],
  [8 * d - 1, '7d23h'],
  [8 * d, '8d'],
  [8 * d + 23 * h, '8d'],
  [2 * 365 * d - 1, '729d'],
  [2 * 365 * d, '2y'],
  [2 * 365 * d + 23 * h, '2y'],
  [2 * 365 * d + 23 * h + 59 * m, '2y'],
  [2 * 365 * d + 24 * h - 1, '2y'],
  [2 * 365 * d + 24 * h, '2y1d'],
  [3 * 365 * d, '3y'],
  [4 * 365 * d, '4y'],
  [5 * 365 * d, '5y'],
  [6 * 365 * d, '6y'],
  [7 * 365 * d, '7y'],
  [8 * 365 * d - 1, '7y364d'],
  [8 * 365 * d, '8y'],
  [8 * 365 * d + 364 * d, '8y'],
  [9 * 365 * d, '9y'],
];
for (const [dur, want] of humanBoundaries) {
  void test(`HumanDuration boundary ${dur}ms = ${want}`, () => assert.equal(humanDuration(dur), want));
}

// TestShortHumanDurationBoundaries
const shortBoundaries: Array<[number, string]> = [
  [-2 * s, '<invalid>'],
  [-2 * s + ns, '0s'],
  [0, '0s'],
  [s - 1, '0s'],
  [s, '1s'],
  [2 * s - 1, '1s'],
  [m - 1, '59s'],
  [m, '1m'],
  [2 * m - 1, '1m'],
  [h - 1, '59m'],
  [h, '1h'],
  [2 * h - 1, '1h'],
  [24 * h - 1, '23h'],
  [24 * h, '1d'],
  [2 * d - 1, '1d'],
  [365 * d - 1, '364d'],
  [365 * d, '1y'],
  [2 * 365 * d - 1, '1y'],
  [2 * 365 * d, '2y'],
];
for (const [dur, want] of shortBoundaries) {
  void test(`ShortHumanDuration boundary ${dur}ms = ${want}`, () => assert.equal(shortHumanDuration(dur), want));
}
