import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyJsonPatch, decodeJsonPatch, jsonPatchApiError, PatchError } from './json-patch.js';
import { applyMergePatch } from './merge-patch.js';
import type { JsonObject, JsonValue } from './json.js';

interface Case {
  name: string;
  doc: JsonObject;
  patch: string;
  want?: JsonObject;
  err?: string;
}

// RFC 6902 appendix A examples, and evanphx/json-patch v4 behaviour as kube-apiserver uses it.
const cases: Case[] = [
  { name: 'A.1 adding an object member', doc: { foo: 'bar' }, patch: '[{"op":"add","path":"/baz","value":"qux"}]', want: { foo: 'bar', baz: 'qux' } },
  { name: 'A.2 adding an array element', doc: { foo: ['bar', 'baz'] }, patch: '[{"op":"add","path":"/foo/1","value":"qux"}]', want: { foo: ['bar', 'qux', 'baz'] } },
  { name: 'A.3 removing an object member', doc: { baz: 'qux', foo: 'bar' }, patch: '[{"op":"remove","path":"/baz"}]', want: { foo: 'bar' } },
  { name: 'A.4 removing an array element', doc: { foo: ['bar', 'qux', 'baz'] }, patch: '[{"op":"remove","path":"/foo/1"}]', want: { foo: ['bar', 'baz'] } },
  { name: 'A.5 replacing a value', doc: { baz: 'qux', foo: 'bar' }, patch: '[{"op":"replace","path":"/baz","value":"boo"}]', want: { baz: 'boo', foo: 'bar' } },
  {
    name: 'A.6 moving a value',
    doc: { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
    patch: '[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]',
    want: { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
  },
  { name: 'A.7 moving an array element', doc: { foo: ['all', 'grass', 'cows', 'eat'] }, patch: '[{"op":"move","from":"/foo/1","path":"/foo/3"}]', want: { foo: ['all', 'cows', 'eat', 'grass'] } },
  { name: 'A.8 testing a value: success', doc: { baz: 'qux', foo: ['a', 2, 'c'] }, patch: '[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]', want: { baz: 'qux', foo: ['a', 2, 'c'] } },
  { name: 'A.9 testing a value: error', doc: { baz: 'qux' }, patch: '[{"op":"test","path":"/baz","value":"bar"}]', err: 'testing value /baz failed: test failed' },
  { name: 'A.10 adding a nested member object', doc: { foo: 'bar' }, patch: '[{"op":"add","path":"/child","value":{"grandchild":{}}}]', want: { foo: 'bar', child: { grandchild: {} } } },
  { name: 'A.12 adding to a nonexistent target', doc: { foo: 'bar' }, patch: '[{"op":"add","path":"/baz/bat","value":"qux"}]', err: 'add operation does not apply: doc is missing path: "/baz/bat": missing value' },
  { name: 'A.14 ~ escape ordering', doc: { '/': 9, '~1': 10 }, patch: '[{"op":"test","path":"/~01","value":10}]', want: { '/': 9, '~1': 10 } },
  { name: 'A.16 adding an array value', doc: { foo: ['bar'] }, patch: '[{"op":"add","path":"/foo/-","value":["abc","def"]}]', want: { foo: ['bar', ['abc', 'def']] } },
  { name: 'copy a value', doc: { a: { b: 1 } }, patch: '[{"op":"copy","from":"/a","path":"/c"}]', want: { a: { b: 1 }, c: { b: 1 } } },
  { name: 'replace of a missing object key adds it (json-patch v4)', doc: { a: 1 }, patch: '[{"op":"replace","path":"/b","value":2}]', want: { a: 1, b: 2 } },
  { name: 'negative array index counts from the end', doc: { a: [1, 2, 3] }, patch: '[{"op":"remove","path":"/a/-1"}]', want: { a: [1, 2] } },
  { name: 'test that a missing key is null', doc: { a: 1 }, patch: '[{"op":"test","path":"/b","value":null}]', want: { a: 1 } },
  { name: 'remove a missing key', doc: { a: 1 }, patch: '[{"op":"remove","path":"/b"}]', err: "error in remove for path: '/b': Unable to remove nonexistent key: b: missing value" },
  { name: 'remove through a missing parent', doc: { a: 1 }, patch: '[{"op":"remove","path":"/x/y"}]', err: 'remove operation does not apply: doc is missing path: "/x/y": missing value' },
  { name: 'replace an out-of-range index', doc: { a: [1] }, patch: '[{"op":"replace","path":"/a/5","value":2}]', err: 'replace operation does not apply: doc is missing key: /a/5: missing value' },
  { name: 'add past the end of an array', doc: { a: [1] }, patch: '[{"op":"add","path":"/a/3","value":2}]', err: "error in add for path: '/a/3': Unable to access invalid index: 3: invalid index referenced" },
  { name: 'an unknown op', doc: {}, patch: '[{"op":"frobnicate","path":"/a"}]', err: 'Unexpected kind: frobnicate' },
  { name: 'move from a missing path', doc: {}, patch: '[{"op":"move","from":"/x/y","path":"/a"}]', err: 'move operation does not apply: doc is missing from path: /x/y: missing value' },
  {
    name: 'kubectl-style label add on a pod',
    doc: { metadata: { name: 'p', labels: { app: 'web' } } },
    patch: '[{"op":"add","path":"/metadata/labels/tier","value":"frontend"},{"op":"replace","path":"/metadata/labels/app","value":"api"}]',
    want: { metadata: { name: 'p', labels: { app: 'api', tier: 'frontend' } } },
  },
];

for (const tc of cases) {
  void test(`json patch: ${tc.name}`, () => {
    const ops = decodeJsonPatch(tc.patch);
    if (tc.err !== undefined) {
      assert.throws(() => applyJsonPatch(tc.doc, ops), (e: unknown) => e instanceof PatchError && e.message === tc.err);
    } else {
      const before = JSON.stringify(tc.doc);
      assert.deepEqual(applyJsonPatch(tc.doc, ops), tc.want);
      assert.equal(JSON.stringify(tc.doc), before, 'the input is not mutated');
    }
  });
}

void test('a failed JSON patch becomes the 422 kube-apiserver answers', () => {
  const s = jsonPatchApiError(new PatchError('testing value /baz failed: test failed')).toStatus();
  assert.deepEqual(s, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'the server rejected our request due to an error in our request',
    reason: 'Invalid',
    details: { causes: [{ reason: 'UnexpectedServerResponse', message: 'testing value /baz failed: test failed' }] },
    code: 422,
  });
});

// RFC 7386 appendix A.
const mergeCases: Array<[JsonValue, JsonValue, JsonValue]> = [
  [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  [{ a: 'b' }, { a: null }, {}],
  [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  [['a', 'b'], ['c', 'd'], ['c', 'd']],
  [{ a: 'b' }, ['c'], ['c']],
  [{ a: 'foo' }, null, null],
  [{ a: 'foo' }, 'bar', 'bar'],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: 'b', c: null }, { a: 'b' }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];
mergeCases.forEach(([doc, patch, want], i) => {
  void test(`merge patch RFC 7386 A.${i + 1}`, () => assert.deepEqual(applyMergePatch(doc, patch), want));
});
