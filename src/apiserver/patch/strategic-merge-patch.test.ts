import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OpenApi } from '../openapi/openapi.js';
import { applyStrategicMergePatch, smpErrors, strategicMergePatchApiError } from './strategic-merge-patch.js';
import { PatchError } from './json-patch.js';
import type { JsonObject } from './json.js';

const api = new OpenApi();
const podSchema = api.nodeFor({ group: '', version: 'v1', kind: 'Pod' });
const deploySchema = api.nodeFor({ group: 'apps', version: 'v1', kind: 'Deployment' });

interface Case {
  name: string;
  original: JsonObject;
  patch: JsonObject;
  want?: JsonObject;
  err?: string;
  deployment?: boolean;
}

const c = (name: string, image: string, extra: JsonObject = {}): JsonObject => ({ name, image, ...extra });
const pod = (spec: JsonObject, metadata: JsonObject = { name: 'p' }): JsonObject => ({ metadata, spec });

// Cases after staging/src/k8s.io/apimachinery/pkg/util/strategicpatch/patch_test.go, on the Pod and
// Deployment schemas instead of the test-only mergeItem type.
const cases: Case[] = [
  {
    name: 'kubectl patch of one container image merges the containers list by name',
    original: pod({ containers: [c('nginx', 'nginx', { ports: [{ containerPort: 80 }] }), c('side', 'busybox')] }),
    patch: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } },
    want: pod({ containers: [c('nginx', 'nginx:1.27', { ports: [{ containerPort: 80 }] }), c('side', 'busybox')] }),
  },
  {
    // Without $setElementOrder, items only in the patch come before the server-only ones (mergeSortedSlice).
    name: 'Add an element to a merging list without $setElementOrder puts it first',
    original: pod({ containers: [c('a', '1')] }),
    patch: { spec: { containers: [c('b', '2')] } },
    want: pod({ containers: [c('b', '2'), c('a', '1')] }),
  },
  {
    name: 'Delete one element from a merging list with $patch: delete',
    original: pod({ containers: [c('a', '1'), c('b', '2'), c('c', '3')] }),
    patch: { spec: { containers: [{ name: 'b', $patch: 'delete' }] } },
    want: pod({ containers: [c('a', '1'), c('c', '3')] }),
  },
  {
    name: 'Replace a merging list with $patch: replace',
    original: pod({ containers: [c('a', '1'), c('b', '2')] }),
    patch: { spec: { containers: [c('x', '9'), { $patch: 'replace' }] } },
    want: pod({ containers: [c('x', '9')] }),
  },
  {
    name: 'Delete a map key with null',
    original: pod({ containers: [] }, { name: 'p', labels: { a: '1', b: '2' } }),
    patch: { metadata: { labels: { a: null, c: '3' } } },
    want: pod({ containers: [] }, { name: 'p', labels: { b: '2', c: '3' } }),
  },
  {
    name: 'Nulls in a patch value for an absent key are discarded',
    original: pod({ containers: [] }, { name: 'p' }),
    patch: { metadata: { annotations: { a: '1', gone: null } } },
    want: pod({ containers: [] }, { name: 'p', annotations: { a: '1' } }),
  },
  {
    name: 'Delete a whole map with $patch: delete',
    original: pod({ containers: [], nodeSelector: { a: 'b' } }),
    patch: { spec: { nodeSelector: { $patch: 'delete' } } },
    want: pod({ containers: [], nodeSelector: {} }),
  },
  {
    name: 'Replace a whole map with $patch: replace',
    original: pod({ containers: [], nodeSelector: { a: 'b', c: 'd' } }),
    patch: { spec: { nodeSelector: { x: 'y', $patch: 'replace' } } },
    want: pod({ containers: [], nodeSelector: { x: 'y' } }),
  },
  {
    name: 'A list without a patch strategy (tolerations) is replaced',
    original: pod({ containers: [], tolerations: [{ key: 'a', operator: 'Exists' }] }),
    patch: { spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } },
    want: pod({ containers: [], tolerations: [{ key: 'b', operator: 'Exists' }] }),
  },
  {
    name: 'Add an element with $setElementOrder (as kubectl apply sends it) appends it',
    original: pod({ containers: [c('a', '1')] }),
    patch: { spec: { '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }], containers: [c('b', '2')] } },
    want: pod({ containers: [c('a', '1'), c('b', '2')] }),
  },
  {
    name: 'Merge a primitive list with strategy merge (finalizers): union without duplicates',
    original: pod({ containers: [] }, { name: 'p', finalizers: ['a', 'b'] }),
    patch: { metadata: { finalizers: ['b', 'c'] } },
    want: pod({ containers: [] }, { name: 'p', finalizers: ['a', 'b', 'c'] }),
  },
  {
    name: 'Delete items from a primitive list with $deleteFromPrimitiveList',
    original: pod({ containers: [] }, { name: 'p', finalizers: ['a', 'b', 'c'] }),
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } },
    want: pod({ containers: [] }, { name: 'p', finalizers: ['a', 'c'] }),
  },
  {
    name: '$setElementOrder reorders a merging list, keeping server-only items in place',
    original: pod({ containers: [c('a', '1'), c('b', '2'), c('c', '3')] }),
    patch: { spec: { '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }], containers: [{ name: 'a', image: '10' }] } },
    want: pod({ containers: [c('b', '2'), c('c', '3'), c('a', '10')] }),
  },
  {
    name: 'Merge container ports by containerPort and env by name',
    original: pod({ containers: [c('a', '1', { ports: [{ containerPort: 80, name: 'http' }], env: [{ name: 'X', value: '1' }] })] }),
    patch: { spec: { containers: [{ name: 'a', ports: [{ containerPort: 443, name: 'https' }], env: [{ name: 'X', value: '2' }, { name: 'Y', value: '3' }] }] } },
    want: pod({ containers: [c('a', '1', { ports: [{ containerPort: 443, name: 'https' }, { containerPort: 80, name: 'http' }], env: [{ name: 'X', value: '2' }, { name: 'Y', value: '3' }] })] }),
  },
  {
    name: '$retainKeys in a volume drops the fields not listed (emptyDir -> hostPath)',
    original: pod({ containers: [], volumes: [{ name: 'v', emptyDir: {} }] }),
    patch: { spec: { volumes: [{ name: 'v', hostPath: { path: '/data' }, $retainKeys: ['hostPath', 'name'] }] } },
    want: pod({ containers: [], volumes: [{ name: 'v', hostPath: { path: '/data' } }] }),
  },
  {
    name: '$retainKeys on the deployment strategy removes rollingUpdate when switching to Recreate',
    deployment: true,
    original: { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%' } } } },
    patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
    want: { spec: { strategy: { type: 'Recreate' } } },
  },
  {
    name: 'A value of another type replaces the original',
    original: pod({ containers: [c('a', '1', { args: ['x'] })] }),
    patch: { spec: { containers: [{ name: 'a', args: 'not-a-list' }] } },
    want: pod({ containers: [c('a', '1', { args: 'not-a-list' })] }),
  },
  {
    name: 'An unknown $patch directive on a map is an error',
    original: pod({ containers: [], nodeSelector: { x: 'y' } }),
    patch: { spec: { nodeSelector: { $patch: 'frob', a: 'b' } } },
    err: 'unknown patch type: frob in map: map[$patch:frob a:b]',
  },
  {
    name: 'A merging list item without its merge key is an error',
    original: pod({ containers: [c('a', '1')] }),
    patch: { spec: { containers: [{ image: 'x' }] } },
    err: 'map: map[image:x] does not contain declared merge key: name',
  },
  {
    name: 'A $patch: delete list item without its merge key is an error',
    original: pod({ containers: [c('a', '1')] }),
    patch: { spec: { containers: [{ $patch: 'delete' }] } },
    err: 'map: map[$patch:delete] does not contain declared merge key: name',
  },
  {
    name: '$patch: merge in a list is not supported',
    original: pod({ containers: [c('a', '1')] }),
    patch: { spec: { containers: [{ $patch: 'merge' }] } },
    err: 'merging lists cannot yet be specified in the patch',
  },
  {
    name: 'A patch field missing from $retainKeys is an error',
    deployment: true,
    original: { spec: { strategy: { type: 'RollingUpdate' } } },
    patch: { spec: { strategy: { $retainKeys: ['type'], type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } },
    err: 'invalid patch format of retainKeys',
  },
  {
    name: 'A $setElementOrder list that does not cover the patch list is an error',
    original: pod({ containers: [c('a', '1'), c('b', '2')] }),
    patch: { spec: { '$setElementOrder/containers': [{ name: 'a' }], containers: [{ name: 'b', image: '3' }] } },
    err: "The order in patch list:\n[map[image:3 name:b]]\n doesn't match $setElementOrder list:\n[map[name:a]]\n",
  },
];

for (const tc of cases) {
  void test(`strategic merge patch: ${tc.name}`, () => {
    const schema = tc.deployment === true ? deploySchema : podSchema;
    if (tc.err !== undefined) {
      assert.throws(() => applyStrategicMergePatch(tc.original, tc.patch, schema), (e: unknown) => e instanceof PatchError && e.message === tc.err);
      return;
    }
    const before = JSON.stringify(tc.original);
    assert.deepEqual(applyStrategicMergePatch(tc.original, tc.patch, schema), tc.want);
    assert.equal(JSON.stringify(tc.original), before, 'the original is not mutated');
  });
}

void test('strategic merge patch errors become the Status kube-apiserver answers', () => {
  assert.deepEqual(strategicMergePatchApiError(new PatchError(smpErrors.badPatchFormatForRetainKeys)).toStatus(), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'invalid patch format of retainKeys',
    reason: 'BadRequest',
    code: 400,
  });
  const s = strategicMergePatchApiError(new PatchError('map: map[image:x] does not contain declared merge key: name')).toStatus();
  assert.equal(s.code, 500);
  assert.equal(s.reason, '');
  assert.equal(s.message, 'map: map[image:x] does not contain declared merge key: name');
  assert.equal(strategicMergePatchApiError(new PatchError(smpErrors.noListOfLists)).toStatus().code, 422);
});
