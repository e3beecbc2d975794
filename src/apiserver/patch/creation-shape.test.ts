import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OpenApi } from '../openapi/openapi.js';
import { ShapeMemo } from './creation-shape.js';
import { updateManagedFields, type ApplySchema } from './managed-fields.js';
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

/** A schema of objects whose member `a` is a list of the given type (of scalars, or for a map of objects keyed by `b`). */
function listOfType(listType: 'set' | 'map' | 'atomic'): ApplySchema {
  const leaf: ApplySchema = {
    field: () => undefined,
    items: () => undefined,
    meta: {},
    isList: () => false,
    isStruct: () => false,
    isMap: () => false,
    defaultOf: () => undefined,
    required: () => [],
    scalarType: () => 'string',
  };
  const item: ApplySchema = { ...leaf, field: () => leaf, isStruct: () => true, scalarType: () => undefined };
  const list: ApplySchema = { ...leaf, items: () => (listType === 'map' ? item : leaf), meta: { listType, ...(listType === 'map' ? { listMapKeys: ['b'] } : {}) }, isList: () => true, scalarType: () => undefined };
  return { ...item, field: (name) => (name === 'a' ? list : leaf) };
}

const podSchema: ApplySchema = ((): ApplySchema => {
  const node = new OpenApi().nodeFor({ group: '', version: 'v1', kind: 'Pod' });
  assert.ok(node);
  return node;
})();

/**
 * Whether `a` and `b` have one shape (by schema `node`): the memo, having seen `a` twice (and kept its
 * value), answers `b` with it.
 */
function sameShape(a: unknown, b: unknown, node: ApplySchema = listOfType('set')): boolean {
  const memo = new ShapeMemo<string>();
  memo.get(a as JsonValue, node, () => 'a once');
  memo.get(a as JsonValue, node, () => 'a');
  return memo.get(b as JsonValue, node, () => 'b') === 'a';
}

/** A DaemonSet's pod for `node`: it names its node in an atomic list (a node affinity's values). */
function daemonPod(node: string): JsonObject {
  const term = { matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] };
  return pod('proxy-x7k2p', 'kube-proxy', 'registry.k8s.io/kube-proxy:v1.32.0', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term] } } } });
}

/** A pod whose affinity selects pods by `labels` (a label selector is an atomic map). */
function affinePod(labels: Record<string, string>): JsonObject {
  const term = { labelSelector: { matchLabels: labels }, topologyKey: 'kubernetes.io/hostname' };
  return pod('web-1', 'nginx', 'nginx:1.27', { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } } });
}

void test('objects that differ only in owned scalar values have one shape', () => {
  assert.ok(sameShape(pod('web-1', 'nginx', 'nginx:1.27'), pod('web-2', 'nginx', 'nginx:1.27'), podSchema));
  assert.ok(sameShape({ a: 'x', b: 1, c: true }, { a: 'y', b: 2, c: 'z' }));
});

void test('values their schema makes atomic are owned whole: what they hold does not change the shape', () => {
  const cases: Array<[string, unknown, unknown, ApplySchema]> = [
    ['DaemonSet pods on two nodes (an atomic list)', daemonPod('node-1'), daemonPod('node-2'), podSchema],
    ['pods whose affinity selects other labels (an atomic map)', affinePod({ app: 'web' }), affinePod({ app: 'db', tier: 'x' }), podSchema],
    ['an atomic list of other values and length', { a: ['x'] }, { a: ['y', 'z'] }, listOfType('atomic')],
    ['a list the schema does not know (atomic, as ownership reads it)', { a: [{ b: 1 }] }, { a: ['y'] }, { ...listOfType('set'), field: () => undefined }],
  ];
  for (const [what, a, b, node] of cases) assert.ok(sameShape(a, b, node) && sameShape(b, a, node), what);
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
    ['an atomic list for a missing key', { a: ['x'], b: 's' }, { b: 's' }],
    ['any value inside a list', { a: ['x'] }, { a: ['y'] }],
    ['a string for a number inside a list', { a: [1] }, { a: ['1'] }],
    ['undefined for null inside a list', { a: [{ b: undefined }] }, { a: [{ b: null }] }],
    ['undefined for a missing key inside a list', { a: [{ b: undefined }] }, { a: [{}] }],
    ['a key with separators in it, inside a list', { a: [{ 'b":1,"c': 1 }] }, { a: [{ b: 1, c: 1 }] }],
  ];
  for (const [what, a, b] of cases) assert.ok(!sameShape(a, b) && !sameShape(b, a), what);
  const typed: Array<[string, unknown, unknown, ApplySchema]> = [
    ['a list-map item key', pod('web-1', 'nginx', 'nginx:1.27'), pod('web-1', 'sidecar', 'nginx:1.27'), podSchema],
    ['a set item (finalizers)', { ...pod('web-1', 'nginx', 'nginx:1.27'), metadata: { name: 'web-1', finalizers: ['a'] } }, { ...pod('web-1', 'nginx', 'nginx:1.27'), metadata: { name: 'web-1', finalizers: ['b'] } }, podSchema],
    ['any value inside a list-map item', { a: [{ b: 1, c: 'x' }] }, { a: [{ b: 1, c: 'y' }] }, listOfType('map')],
    ['an atomic list for an empty object (a value of another kind)', { a: [] }, { a: {} }, listOfType('set')],
  ];
  for (const [what, a, b, node] of typed) assert.ok(!sameShape(a, b, node) && !sameShape(b, a, node), what);
});

void test('a shape memo keeps a value from the second sighting of its shape on', () => {
  const memo = new ShapeMemo<number>();
  let computed = 0;
  const compute = (): number => ++computed;
  const node = listOfType('set');
  assert.equal(memo.get({ a: ['x'], b: 's' }, node, compute), 1);
  assert.equal(memo.get({ a: ['y'], b: 'other' }, node, compute), 2, 'another shape');
  assert.equal(memo.get({ a: ['x'], b: 't' }, node, compute), 3, 'seen twice: computed and kept');
  assert.equal(memo.get({ a: ['x'], b: 'u' }, node, compute), 3);
  assert.equal(memo.get({ a: ['y'], b: 'v' }, node, compute), 4);
  assert.equal(memo.get({ a: ['y'], b: 'w' }, node, compute), 4);
  assert.equal(computed, 4);
});

void test('a shape memo forgets everything once it grows beyond its size', () => {
  const memo = new ShapeMemo<number>(10);
  let computed = 0;
  const compute = (): number => ++computed;
  const twice = (o: JsonValue): number => {
    memo.get(o, undefined, compute);
    return memo.get(o, undefined, compute);
  };
  assert.equal(twice({ a: 's' }), 2);
  assert.equal(memo.get({ a: 't' }, undefined, compute), 2);
  for (let i = 0; i < 5; i++) twice({ [`k${i}`]: 's' });
  assert.equal(computed, 12);
  assert.equal(memo.get({ a: 's' }, undefined, compute), 13);
});

void test('a create records the same managedFields whether its shape was seen before or not', () => {
  const pairs: Array<[string, JsonObject, JsonObject]> = [
    ['pods of one ReplicaSet', pod('web-1', 'nginx', 'nginx:1.27'), pod('web-2', 'nginx', 'nginx:1.28')],
    ['pods with other containers', pod('web-1', 'nginx', 'nginx:1.27'), pod('web-1', 'app', 'nginx:1.27')],
    ['a pod with a zero-valued field', pod('web-1', 'nginx', 'nginx:1.27', { priority: 5 }), pod('web-1', 'nginx', 'nginx:1.27', { priority: 0 })],
    ['DaemonSet pods on two nodes', daemonPod('node-1'), daemonPod('node-2')],
    ['pods whose affinity selects other labels', affinePod({ app: 'web' }), affinePod({ app: 'db', tier: 'x' })],
    ['a pod with an empty and one with a full node affinity term', daemonPod('node-1'), pod('proxy-x7k2p', 'kube-proxy', 'registry.k8s.io/kube-proxy:v1.32.0', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } } })],
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
