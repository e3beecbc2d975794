import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reuseUnchanged } from './reuse-unchanged.js';

interface Version {
  metadata: { name: string; labels: object; ownerReferences: object[] };
  spec: object;
  status: { conditions: object[] };
}

const version = (rv: string, phase: string): Version =>
  JSON.parse(
    JSON.stringify({
      metadata: { name: 'web-1', resourceVersion: rv, labels: { app: 'web' }, ownerReferences: [{ kind: 'ReplicaSet', name: 'web' }] },
      spec: { nodeName: 'n1', containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] },
      status: { phase, conditions: [{ type: 'PodScheduled', status: 'True' }] },
    }),
  ) as Version;

test('a new version keeps its changes and takes every unchanged part from the previous one', () => {
  const prev = version('1', 'Pending');
  const next = version('2', 'Running');
  const expected = version('2', 'Running');
  const out = reuseUnchanged(next, prev) as Version;
  assert.equal(out, next);
  assert.deepEqual(out, expected);
  assert.notEqual(out.metadata, prev.metadata);
  assert.equal(out.metadata.labels, prev.metadata.labels);
  assert.equal(out.metadata.ownerReferences, prev.metadata.ownerReferences);
  assert.equal(out.metadata.name, prev.metadata.name);
  assert.equal(out.spec, prev.spec);
  assert.notEqual(out.status, prev.status);
  assert.equal(out.status.conditions, prev.status.conditions);
  // The previous version is left as it was.
  assert.deepEqual(prev, version('1', 'Pending'));
});

test('an equal tree is the previous one itself, whatever the order of its members', () => {
  const prev = { a: 1, b: { c: [1, 2] } };
  assert.equal(reuseUnchanged({ b: { c: [1, 2] }, a: 1 }, prev), prev);
  assert.equal(reuseUnchanged('x', 'x'), 'x');
  assert.equal(reuseUnchanged(null, null), null);
});

test('members added, removed or changed in kind keep the new tree', () => {
  const prev = { a: { x: 1 }, b: [1, 2], c: 'v' };
  const added = { a: { x: 1 }, b: [1, 2], c: 'v', d: 0 };
  assert.equal(reuseUnchanged(added, prev), added);
  assert.equal(added.a, prev.a);
  const removed = { a: { x: 1 }, b: [1, 2] };
  assert.equal(reuseUnchanged(removed, prev), removed);
  assert.equal(removed.b, prev.b);
  const longer = { a: { x: 1 }, b: [1, 2, 3], c: 'v' };
  assert.equal(reuseUnchanged(longer, prev), longer);
  assert.deepEqual(longer.b, [1, 2, 3]);
  const kinds = { a: [1], b: { 0: 1, 1: 2 }, c: null };
  assert.equal(reuseUnchanged(kinds, prev), kinds);
  assert.deepEqual(kinds, { a: [1], b: { 0: 1, 1: 2 }, c: null });
  // null and a missing member are different values.
  assert.notEqual(reuseUnchanged({ a: null }, {}), {});
  const withNull = { a: null };
  assert.equal(reuseUnchanged(withNull, {}), withNull);
});
