import { test } from 'node:test';
import assert from 'node:assert/strict';
import { managedFieldsSpan, withoutManagedFields } from './managed-fields-text.js';

const entry = {
  manager: 'kubelet',
  operation: 'Update',
  apiVersion: 'v1',
  time: '2026-11-27T07:00:00Z',
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {} } }, 'f:phase': {} } },
  subresource: 'status',
};

/** What decoding, deleting metadata.managedFields and encoding again gives. */
function reference(text: string): string {
  const obj = JSON.parse(text) as { metadata?: Record<string, unknown> };
  if (obj.metadata !== null && typeof obj.metadata === 'object') delete obj.metadata['managedFields'];
  return JSON.stringify(obj);
}

const cases: { name: string; obj: unknown }[] = [
  { name: 'managedFields last in metadata', obj: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'd', managedFields: [entry] }, spec: {} } },
  { name: 'managedFields first in metadata', obj: { kind: 'Pod', metadata: { managedFields: [entry, entry], name: 'p' }, status: { phase: 'Running' } } },
  { name: 'managedFields between other members', obj: { metadata: { name: 'p', managedFields: [entry], labels: { a: 'b' } } } },
  { name: 'managedFields the only member', obj: { metadata: { managedFields: [entry] }, spec: { x: 1 } } },
  { name: 'an empty managedFields', obj: { metadata: { name: 'p', managedFields: [] } } },
  { name: 'no managedFields', obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { managedFields: '[]' } } },
  { name: 'no metadata', obj: { apiVersion: 'v1', kind: 'Status', status: 'Failure', code: 404 } },
  { name: 'an empty metadata', obj: { metadata: {}, spec: {} } },
  {
    name: 'a nested metadata before the top-level one keeps its managedFields',
    obj: { spec: { template: { metadata: { name: 't', managedFields: [entry] } } }, metadata: { name: 'd', managedFields: [entry] } },
  },
  {
    name: 'a managedFields key outside metadata stays',
    obj: { metadata: { name: 'x' }, spec: { managedFields: [1, 2], deps: { managedFields: ['a'] } } },
  },
  {
    name: 'strings that look like JSON, with escapes and backslashes',
    obj: {
      metadata: {
        annotations: { 'a"b': '{"managedFields":[1]}', path: 'C:\\dir\\', q: '\\"', brace: '}]}' },
        finalizers: ['x/y'],
        managedFields: [{ ...entry, manager: 'm"\\' }],
        ownerReferences: [{ kind: 'ReplicaSet', name: 'r', controller: true, blockOwnerDeletion: false }],
      },
    },
  },
  { name: 'numbers, booleans and null around it', obj: { a: 1.5e3, b: true, c: null, metadata: { generation: 2, x: null, managedFields: [entry], deleted: false } } },
  { name: 'unicode text', obj: { metadata: { name: 'ü', annotations: { k: '日本\u2028' }, managedFields: [entry] } } },
];

for (const c of cases) {
  test(`withoutManagedFields: ${c.name}`, () => {
    const text = JSON.stringify(c.obj);
    assert.equal(withoutManagedFields(text), reference(text));
  });
}

test('withoutManagedFields answers the same text when there is nothing to cut', () => {
  const text = JSON.stringify({ metadata: { name: 'p' } });
  assert.equal(managedFieldsSpan(text), undefined);
  assert.equal(withoutManagedFields(text), text);
  assert.equal(managedFieldsSpan('[1,2]'), undefined, 'not an object');
});

test('withoutManagedFields matches decode-delete-encode on generated objects', () => {
  let seed = 7;
  const rnd = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const strings = ['', 'a', '"', '\\', '{', '}]', '"managedFields":[', ',', ':', 'k:{"name":"c"}', 'é'];
  const value = (depth: number): unknown => {
    switch (depth > 3 ? rnd(4) : rnd(7)) {
      case 0:
        return strings[rnd(strings.length)];
      case 1:
        return rnd(1000) - 500;
      case 2:
        return [true, false, null][rnd(3)];
      case 3:
        return rnd(2) === 0 ? 'managedFields' : 0.25;
      case 4:
        return Array.from({ length: rnd(4) }, () => value(depth + 1));
      default: {
        const o: Record<string, unknown> = {};
        for (let i = rnd(5); i > 0; i--) o[strings[rnd(strings.length)] + String(i)] = value(depth + 1);
        if (rnd(4) === 0) o['managedFields'] = value(depth + 1);
        if (rnd(4) === 0) o['metadata'] = value(depth + 1);
        return o;
      }
    }
  };
  for (let i = 0; i < 2000; i++) {
    const metadata: Record<string, unknown> = {};
    const names = ['name', 'labels', 'managedFields', 'annotations', 'uid'];
    for (const n of names) if (rnd(3) !== 0) metadata[n] = n === 'managedFields' ? [value(2), entry] : value(1);
    const obj: Record<string, unknown> = {};
    for (const k of ['spec', 'metadata', 'status']) if (rnd(4) !== 0) obj[k] = k === 'metadata' ? metadata : value(1);
    const text = JSON.stringify(obj);
    assert.equal(withoutManagedFields(text), reference(text), text);
  }
});
