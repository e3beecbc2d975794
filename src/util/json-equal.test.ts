/** jsonDeepEqual: JSON data equal up to key order and undefined members. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonDeepEqual } from './json-equal.js';

const cases: Array<[string, unknown, unknown, boolean]> = [
  ['same scalars', 'a', 'a', true],
  ['different strings', 'a', 'b', false],
  ['number and its string', 1, '1', false],
  ['1 and 1.0', 1, 1.0, true],
  ['null and undefined', null, undefined, false],
  ['NaN marshals as null', Number.NaN, null, true],
  ['undefined and undefined', undefined, undefined, true],
  ['key order', { a: 1, b: { c: [1, 2], d: 'x' } }, { b: { d: 'x', c: [1, 2] }, a: 1 }, true],
  ['undefined member ignored', { a: 1, b: undefined }, { a: 1 }, true],
  ['undefined member ignored, other side', { a: 1 }, { a: 1, b: undefined }, true],
  ['missing member', { a: 1, b: 2 }, { a: 1 }, false],
  ['extra member', { a: 1 }, { a: 1, b: 2 }, false],
  ['member null vs absent', { a: 1, b: null }, { a: 1 }, false],
  ['array order matters', [1, 2], [2, 1], false],
  ['array length', [1, 2], [1, 2, 3], false],
  ['undefined array element kept', [1, undefined], [1], false],
  ['array vs object', [], {}, false],
  ['object vs scalar', {}, 'x', false],
  ['empty objects', {}, {}, true],
  ['nested undefined', { s: { conditions: [{ type: 'Ready', reason: undefined }] } }, { s: { conditions: [{ type: 'Ready' }] } }, true],
  ['nested difference', { s: { conditions: [{ type: 'Ready', status: 'True' }] } }, { s: { conditions: [{ type: 'Ready', status: 'False' }] } }, false],
];

for (const [name, a, b, want] of cases) {
  void test(`jsonDeepEqual: ${name}`, () => {
    assert.equal(jsonDeepEqual(a, b), want);
    assert.equal(jsonDeepEqual(b, a), want);
  });
}
