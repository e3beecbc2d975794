import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InputError, parseManifests } from './input.js';

test('documents are numbered from 1 in their file, Lists flattened, empty documents skipped', () => {
  const objs = parseManifests('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n---\napiVersion: v1\nkind: List\nitems:\n  - {apiVersion: v1, kind: Pod, metadata: {name: b}}\n  - {apiVersion: v1, kind: Pod, metadata: {name: c}}\n', 'f.yaml');
  assert.deepEqual(
    objs.map((o) => [o.obj.kind, o.obj.metadata?.name, o.source.file, o.source.document]),
    [
      ['ConfigMap', 'a', 'f.yaml', 1],
      ['Pod', 'b', 'f.yaml', 3],
      ['Pod', 'c', 'f.yaml', 3],
    ],
  );
});

test('a JSON array and a JSON object are read too', () => {
  assert.deepEqual(parseManifests('[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"}}]', 'x.json').map((o) => o.obj.metadata?.name), ['a']);
});

test('objects without apiVersion or kind, and scalars, are unusable input', () => {
  assert.throws(() => parseManifests('metadata: {name: a}\n', 'f.yaml'), (e: unknown) => e instanceof InputError && e.file === 'f.yaml' && e.reason === 'document 1: error validating data: [apiVersion not set, kind not set]');
  assert.throws(() => parseManifests('just a string\n', 'g.yaml'), (e: unknown) => e instanceof InputError && e.reason === 'document 1: not a Kubernetes object');
});
