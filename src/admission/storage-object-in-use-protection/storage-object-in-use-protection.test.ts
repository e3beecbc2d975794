import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import { resources } from '../../api/resources.js';
import type { KubeObject } from '../../client/client.js';
import { attrs } from '../_testing.js';
import type { AdmissionOperation } from '../types.js';
import { pvcProtectionFinalizer, pvProtectionFinalizer } from '../../api/pv-helpers.js';
import { create } from './storage-object-in-use-protection.js';

// plugin/pkg/admission/storage/storageobjectinuseprotection/admission_test.go (TestAdmit). The
// "disabled feature" cases are gone upstream with the StorageObjectInUseProtection gate (GA, removed).

const claim: PersistentVolumeClaim = { kind: 'PersistentVolumeClaim', metadata: { name: 'claim', namespace: 'ns' } };
const pv: PersistentVolume = { kind: 'PersistentVolume', metadata: { name: 'pv' } };
const claimWithFinalizer: PersistentVolumeClaim = { ...claim, metadata: { ...claim.metadata, finalizers: [pvcProtectionFinalizer] } };
const pvWithFinalizer: PersistentVolume = { ...pv, metadata: { ...pv.metadata, finalizers: [pvProtectionFinalizer] } };

const cases: { name: string; resource: typeof resources.pods; object: KubeObject; expectedObject: KubeObject; namespace: string; operation?: AdmissionOperation; subresource?: string }[] = [
  { name: 'create -> add finalizer', resource: resources.persistentvolumeclaims, object: claim, expectedObject: claimWithFinalizer, namespace: 'ns' },
  { name: 'finalizer already exists -> no new finalizer', resource: resources.persistentvolumeclaims, object: claimWithFinalizer, expectedObject: claimWithFinalizer, namespace: 'ns' },
  { name: 'create -> add finalizer', resource: resources.persistentvolumes, object: pv, expectedObject: pvWithFinalizer, namespace: '' },
  { name: 'finalizer already exists -> no new finalizer', resource: resources.persistentvolumes, object: pvWithFinalizer, expectedObject: pvWithFinalizer, namespace: '' },
  // The handler is registered for CREATE only, and subresources are skipped.
  { name: 'update -> no finalizer', resource: resources.persistentvolumeclaims, object: claim, expectedObject: claim, namespace: 'ns', operation: 'UPDATE' },
  { name: 'update of a PV -> no finalizer', resource: resources.persistentvolumes, object: pv, expectedObject: pv, namespace: '', operation: 'UPDATE' },
  { name: 'status subresource -> no finalizer', resource: resources.persistentvolumeclaims, object: claim, expectedObject: claim, namespace: 'ns', subresource: 'status' },
  { name: 'other resource -> untouched', resource: resources.pods, object: { kind: 'Pod', metadata: { name: 'p', namespace: 'ns' } }, expectedObject: { kind: 'Pod', metadata: { name: 'p', namespace: 'ns' } }, namespace: 'ns' },
];

for (const tc of cases) {
  test(`TestAdmit/${tc.resource.resource}/${tc.name}`, async () => {
    const obj = structuredClone(tc.object);
    const a = attrs(obj, { resource: tc.resource, namespace: tc.namespace, name: 'foo', oldObject: structuredClone(obj), operation: tc.operation ?? 'CREATE', subresource: tc.subresource ?? '' });
    await create().admit(a);
    assert.deepEqual(obj, tc.expectedObject);
  });
}

test('other finalizers are kept, the protection finalizer is appended after them', async () => {
  const obj: PersistentVolumeClaim = { metadata: { name: 'c', namespace: 'ns', finalizers: ['example.com/keep'] } };
  await create().admit(attrs(obj, { resource: resources.persistentvolumeclaims }));
  assert.deepEqual(obj.metadata?.finalizers, ['example.com/keep', 'kubernetes.io/pvc-protection']);
});

test('a request without an object is left alone', async () => {
  await assert.doesNotReject(create().admit(attrs(undefined, { resource: resources.persistentvolumeclaims, namespace: 'ns', name: 'c' })));
});
