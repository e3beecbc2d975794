import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deepCopy } from './deep-copy.js';

test('a copy equals the original and shares no object or array with it', () => {
  const pod = { metadata: { name: 'web', labels: { app: 'web' } }, spec: { containers: [{ name: 'app', ports: [{ containerPort: 80 }] }], tolerations: [] } };
  const copy = deepCopy(pod);
  assert.deepEqual(copy, pod);
  assert.notEqual(copy.metadata, pod.metadata);
  assert.notEqual(copy.metadata.labels, pod.metadata.labels);
  assert.notEqual(copy.spec.containers, pod.spec.containers);
  assert.notEqual(copy.spec.containers[0]?.ports, pod.spec.containers[0]?.ports);
  copy.spec.containers[0]!.name = 'changed';
  assert.equal(pod.spec.containers[0]?.name, 'app', 'the original is left as it was');
});

test('keys keep their order; scalars, null and undefined members are copied as they are', () => {
  const v = { z: 1, a: 'x', m: null, u: undefined, b: true, list: [3, 'y', null] };
  const copy = deepCopy(v);
  assert.deepEqual(Object.keys(copy), ['z', 'a', 'm', 'u', 'b', 'list']);
  assert.equal(Object.hasOwn(copy, 'u'), true);
  assert.deepEqual(copy.list, [3, 'y', null]);
  for (const s of ['text', 7, null, true, undefined]) assert.equal(deepCopy(s), s);
});

test('an own __proto__ key (as JSON.parse makes) stays a key and does not become the prototype', () => {
  const v = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
  const copy = deepCopy(v);
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.deepEqual(Object.keys(copy), ['__proto__', 'a']);
  assert.deepEqual(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value, { polluted: true });
  assert.equal((copy as { polluted?: unknown }).polluted, undefined);
});
