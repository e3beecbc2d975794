import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OpenApi } from '../openapi/openapi.js';
import { ShapeMemo } from './creation-shape.js';
import { updateManagedFields } from './managed-fields.js';
import type { JsonObject, JsonValue } from './json.js';

const now = Date.parse('2026-11-22T01:09:14Z');

function pod(name: string, container: string, image: string, extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      labels: { app: 'web', 'pod-template-hash': name.slice(0, 6) },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7b84dcfcdb', uid: 'u-1', controller: true, blockOwnerDeletion: true }],
    },
    spec: { containers: [{ name: container, image, resources: { requests: { cpu: '100m' } } }], restartPolicy: 'Always', ...extra },
  };
}

function priorityClass(name: string, value: number): JsonObject {
  return { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, description: 'batch' };
}

const kinds: Record<string, { group: string; version: string; kind: string }> = {
  Pod: { group: '', version: 'v1', kind: 'Pod' },
  PriorityClass: { group: 'scheduling.k8s.io', version: 'v1', kind: 'PriorityClass' },
};

/** The managedFields a create records, through `api`'s schemas (a new OpenApi has nothing remembered). */
function created(api: OpenApi, o: JsonObject): JsonValue {
  const gvk = kinds[o['kind'] as string];
  assert.ok(gvk);
  const apiVersion = gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`;
  const out = updateManagedFields(undefined, structuredClone(o), api.nodeFor(gvk), { manager: 'kubelet', apiVersion, now });
  return (out['metadata'] as JsonObject)['managedFields'] ?? null;
}

/** Whether `a` and `b` have one shape: the memo, having seen `a` twice (and kept its value), answers `b` with it. */
function sameShape(a: unknown, b: unknown): boolean {
  const memo = new ShapeMemo<string>();
  memo.get(a as JsonValue, () => 'a once');
  memo.get(a as JsonValue, () => 'a');
  return memo.get(b as JsonValue, () => 'b') === 'a';
}

void test('objects that differ only in owned scalar values have one shape', () => {
  assert.ok(sameShape(pod('web-1', 'nginx', 'nginx:1.27'), pod('web-2', 'nginx', 'nginx:1.27')));
  assert.ok(sameShape({ a: 'x', b: 1, c: true }, { a: 'y', b: 2, c: 'z' }));
});

void test('what can change the owned set changes the shape', () => {
  const cases: Array<[string, unknown, unknown]> = [
    ['a key', { a: 's' }, { b: 's' }],
    ['an empty string (a zero value)', { a: 'x' }, { a: '' }],
    ['zero', { a: 1 }, { a: 0 }],
    ['false', { a: true }, { a: false }],
    ['null', { a: 'x' }, { a: null }],
    ['an undefined value', { a: 'x' }, { a: undefined }],
    ['an undefined value beside a missing key', { a: 'x', b: undefined }, { a: 'x' }],
    ['an object for a scalar', { a: 'x' }, { a: {} }],
    ['a key inside an object, or after it', { a: { b: 's' } }, { a: {}, b: 's' }],
    ['a key named as a list', { a: 's', '[1]': 's' }, { a: ['1'] }],
    ['a list item key', pod('web-1', 'nginx', 'nginx:1.27'), pod('web-1', 'sidecar', 'nginx:1.27')],
    ['any value inside a list', { a: ['x'] }, { a: ['y'] }],
    ['a string for a number inside a list', { a: [1] }, { a: ['1'] }],
    ['undefined for null inside a list', { a: [{ b: undefined }] }, { a: [{ b: null }] }],
    ['undefined for a missing key inside a list', { a: [{ b: undefined }] }, { a: [{}] }],
    ['a key with separators in it, inside a list', { a: [{ 'b":1,"c': 1 }] }, { a: [{ b: 1, c: 1 }] }],
  ];
  for (const [what, a, b] of cases) assert.ok(!sameShape(a, b) && !sameShape(b, a), what);
});

void test('a shape memo keeps a value from the second sighting of its shape on', () => {
  const memo = new ShapeMemo<number>();
  let computed = 0;
  const compute = (): number => ++computed;
  assert.equal(memo.get({ a: 's', b: ['x'] }, compute), 1);
  assert.equal(memo.get({ a: 'other', b: ['y'] }, compute), 2, 'another shape');
  assert.equal(memo.get({ a: 't', b: ['x'] }, compute), 3, 'seen twice: computed and kept');
  assert.equal(memo.get({ a: 'u', b: ['x'] }, compute), 3);
  assert.equal(memo.get({ a: 'v', b: ['y'] }, compute), 4);
  assert.equal(memo.get({ a: 'w', b: ['y'] }, compute), 4);
  assert.equal(computed, 4);
});

void test('a shape memo forgets everything once it grows beyond its size', () => {
  const memo = new ShapeMemo<number>(10);
  let computed = 0;
  const compute = (): number => ++computed;
  const twice = (o: JsonValue): number => {
    memo.get(o, compute);
    return memo.get(o, compute);
  };
  assert.equal(twice({ a: 's' }), 2);
  assert.equal(memo.get({ a: 't' }, compute), 2);
  for (let i = 0; i < 5; i++) twice({ [`k${i}`]: 's' });
  assert.equal(computed, 12);
  assert.equal(memo.get({ a: 's' }, compute), 13);
});

void test('a create records the same managedFields whether its shape was seen before or not', () => {
  const pairs: Array<[string, JsonObject, JsonObject]> = [
    ['pods of one ReplicaSet', pod('web-1', 'nginx', 'nginx:1.27'), pod('web-2', 'nginx', 'nginx:1.28')],
    ['pods with other containers', pod('web-1', 'nginx', 'nginx:1.27'), pod('web-1', 'app', 'nginx:1.27')],
    ['a pod with a zero-valued field', pod('web-1', 'nginx', 'nginx:1.27', { priority: 5 }), pod('web-1', 'nginx', 'nginx:1.27', { priority: 0 })],
    ['PriorityClasses of value 1000 and 0 (the zero value of a required field)', priorityClass('a', 1000), priorityClass('a', 0)],
  ];
  for (const [what, first, second] of pairs) {
    const primed = new OpenApi();
    // Twice: the memo keeps a shape's set from its second sighting.
    created(primed, first);
    created(primed, first);
    assert.deepEqual(created(primed, second), created(new OpenApi(), second), what);
  }
});

void test('a required field left at its zero value is not owned', () => {
  const fields = (o: JsonObject): JsonValue => (created(new OpenApi(), o) as JsonObject[])[0]?.['fieldsV1'] as JsonValue;
  assert.deepEqual(fields(priorityClass('a', 0)), { 'f:description': {} });
  assert.deepEqual(fields(priorityClass('a', 1000)), { 'f:description': {}, 'f:value': {} });
});

void test('objects of one shape share a frozen set: no write can change another object\'s entry', () => {
  const api = new OpenApi();
  created(api, pod('web-0', 'nginx', 'nginx:1.27'));
  const a = created(api, pod('web-1', 'nginx', 'nginx:1.27')) as JsonObject[];
  const b = created(api, pod('web-2', 'nginx', 'nginx:1.27')) as JsonObject[];
  assert.equal(a[0]?.['fieldsV1'], b[0]?.['fieldsV1']);
  assert.throws(() => {
    ((a[0]?.['fieldsV1'] as JsonObject)['f:spec'] as JsonObject)['f:x'] = {};
  }, TypeError);
});
