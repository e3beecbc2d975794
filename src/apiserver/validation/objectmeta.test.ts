import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString, Path } from '../../api/field-errors.js';
import { nameIsDNSSubdomain } from './_names.js';
import { semanticDeepEqual, validateAnnotations, validateLabels, validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';

const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

test('metadata: name or generateName is required; namespace required for namespaced kinds', () => {
  assert.deepEqual(validateObjectMeta({}, { namespaced: true, nameFn: nameIsDNSSubdomain }).map(fieldErrorString), [
    'metadata.name: Required value: name or generateName is required',
    'metadata.namespace: Required value',
  ]);
});

test('metadata: namespace not allowed on cluster-scoped kinds', () => {
  assert.deepEqual(validateObjectMeta({ name: 'n', namespace: 'x' }, { namespaced: false, nameFn: nameIsDNSSubdomain }).map(fieldErrorString), ['metadata.namespace: Forbidden: not allowed on this type']);
});

test('metadata: generateName may end in a dash; name must be a DNS subdomain', () => {
  assert.deepEqual(validateObjectMeta({ generateName: 'web-', namespace: 'default' }, { namespaced: true, nameFn: nameIsDNSSubdomain }).map(fieldErrorString), [
    'metadata.name: Required value: name or generateName is required',
  ]);
  assert.deepEqual(validateObjectMeta({ name: 'Web', namespace: 'default' }, { namespaced: true, nameFn: nameIsDNSSubdomain }).map(fieldErrorString), [`metadata.name: Invalid value: "Web": ${subdomainMsg}`]);
  assert.deepEqual(validateObjectMeta({ name: 'a'.repeat(254), namespace: 'default' }, { namespaced: true, nameFn: nameIsDNSSubdomain }).map((e) => e.detail), ['must be no more than 253 characters']);
});

test('labels: keys are qualified names, values label values', () => {
  assert.deepEqual(validateLabels({ 'example.com/ok': 'v', 'a/b/c': 'x', good: '-bad' }, Path.root('metadata').child('labels')).map(fieldErrorString), [
    "metadata.labels: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    "metadata.labels: Invalid value: \"-bad\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
  ]);
  assert.deepEqual(validateLabels({ '/x': 'v' }, Path.root('l')).map((e) => e.detail), ['prefix part must be non-empty']);
});

test('annotations: total size at most 256 KiB', () => {
  assert.deepEqual(validateAnnotations({ a: 'x'.repeat(256 * 1024 - 1) }, Path.root('metadata').child('annotations')), []);
  assert.deepEqual(validateAnnotations({ a: 'x'.repeat(256 * 1024) }, Path.root('metadata').child('annotations')).map(fieldErrorString), ['metadata.annotations: Too long: may not be more than 262144 bytes']);
});

test('metadata update: name, namespace, uid are immutable', () => {
  const old = { name: 'a', namespace: 'default', uid: 'u1', creationTimestamp: '2024-01-01T00:00:00Z' };
  assert.deepEqual(validateObjectMetaUpdate({ ...old, name: 'b', uid: 'u2' }, old).map(fieldErrorString), [
    'metadata.name: Invalid value: "b": field is immutable',
    'metadata.uid: Invalid value: "u2": field is immutable',
  ]);
});

test('finalizers: built-in kinds need standard or domain-qualified names; custom kinds need qualified names only', () => {
  const meta = { name: 'n', namespace: 'd', finalizers: ['kubernetes', 'example.com/cleanup', 'my-finalizer', 'customresourcecleanup.apiextensions.k8s.io'] };
  assert.deepEqual(validateObjectMeta(meta, { namespaced: true, nameFn: nameIsDNSSubdomain }).map(fieldErrorString), [
    'metadata.finalizers[2]: Invalid value: "my-finalizer": name is neither a standard finalizer name nor is it fully qualified',
    'metadata.finalizers[3]: Invalid value: "customresourcecleanup.apiextensions.k8s.io": name is neither a standard finalizer name nor is it fully qualified',
  ]);
  assert.deepEqual(validateObjectMeta(meta, { namespaced: true, nameFn: nameIsDNSSubdomain, kubeFinalizers: false }), []);
  assert.deepEqual(validateObjectMeta({ name: 'n', finalizers: ['orphan', 'foregroundDeletion'] }, { namespaced: false, nameFn: nameIsDNSSubdomain }).map(fieldErrorString), [
    'metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set',
  ]);
});

// semanticDeepEqual: absent, null, "", [] and {} are the same; everything else compares by value.
const semanticCases: { name: string; a: unknown; b: unknown; want: boolean }[] = [
  { name: 'identical label maps are equal', a: { app: 'web', tier: 'fe' }, b: { app: 'web', tier: 'fe' }, want: true },
  { name: 'key order does not matter', a: { app: 'web', tier: 'fe' }, b: { tier: 'fe', app: 'web' }, want: true },
  { name: 'a changed value differs', a: { app: 'web' }, b: { app: 'db' }, want: false },
  { name: 'an empty map equals an absent one', a: {}, b: undefined, want: true },
  { name: 'an empty string equals an absent key', a: { app: '' }, b: {}, want: true },
  { name: 'null equals an absent key', a: { app: null }, b: {}, want: true },
  { name: 'an empty list equals an absent key', a: { list: [] }, b: {}, want: true },
  { name: 'an undefined key equals an absent one', a: { app: undefined }, b: {}, want: true },
  { name: 'lists compare in order', a: [1, 2], b: [2, 1], want: false },
  { name: 'nested empty values prune away', a: { spec: { x: { y: '' } } }, b: { spec: null }, want: true },
  { name: 'an extra key differs', a: { app: 'web' }, b: { app: 'web', tier: 'fe' }, want: false },
  { name: 'numbers and strings differ', a: { n: 1 }, b: { n: '1' }, want: false },
];
for (const tc of semanticCases) {
  test(`semanticDeepEqual: ${tc.name}`, () => {
    assert.equal(semanticDeepEqual(tc.a, tc.b), tc.want);
    assert.equal(semanticDeepEqual(tc.b, tc.a), tc.want);
  });
}
