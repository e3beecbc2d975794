import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { resources } from '../../api/resources.js';
import { attrs, fakeLookup } from '../_testing.js';
import { create, messages } from './persistent-volume-claim-resize.js';

// plugin/pkg/admission/storage/persistentvolume/resize/admission_test.go (TestPVCResizeAdmission), v1.32.

const goldClass: StorageClass = { kind: 'StorageClass', metadata: { name: 'gold' }, provisioner: 'kubernetes.io/glusterfs', allowVolumeExpansion: true };
const silverClass: StorageClass = { kind: 'StorageClass', metadata: { name: 'silver' }, provisioner: 'kubernetes.io/glusterfs', allowVolumeExpansion: false };

function claim(o: { volumeName?: string; request: string; className?: string; capacity: string; phase: 'Bound' | 'Pending' }): PersistentVolumeClaim {
  return {
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'foo', namespace: 'default' },
    spec: {
      ...(o.volumeName !== undefined ? { volumeName: o.volumeName } : {}),
      resources: { requests: { storage: o.request } },
      ...(o.className !== undefined ? { storageClassName: o.className } : {}),
    },
    status: { capacity: { storage: o.capacity }, phase: o.phase },
  };
}

const cases: { name: string; oldObj: PersistentVolumeClaim; newObj: PersistentVolumeClaim; error: string | undefined }[] = [
  {
    name: 'pvc-resize, update, no error',
    oldObj: claim({ volumeName: 'volume1', request: '1Gi', className: 'gold', capacity: '1Gi', phase: 'Bound' }),
    newObj: claim({ volumeName: 'volume1', request: '2Gi', className: 'gold', capacity: '2Gi', phase: 'Bound' }),
    error: undefined,
  },
  {
    name: 'pvc-resize, update, dynamically provisioned error (no class)',
    oldObj: claim({ volumeName: 'volume3', request: '1Gi', capacity: '1Gi', phase: 'Bound' }),
    newObj: claim({ volumeName: 'volume3', request: '2Gi', capacity: '2Gi', phase: 'Bound' }),
    error: messages.notExpandable,
  },
  {
    name: 'pvc-resize, update, dynamically provisioned error (class without expansion)',
    oldObj: claim({ volumeName: 'volume4', request: '1Gi', className: 'silver', capacity: '1Gi', phase: 'Bound' }),
    newObj: claim({ volumeName: 'volume4', request: '2Gi', className: 'silver', capacity: '2Gi', phase: 'Bound' }),
    error: messages.notExpandable,
  },
  {
    name: 'PVC update with no change in size',
    oldObj: claim({ request: '1Gi', className: 'silver', capacity: '0Gi', phase: 'Pending' }),
    newObj: claim({ volumeName: 'volume4', request: '1Gi', className: 'silver', capacity: '1Gi', phase: 'Bound' }),
    error: undefined,
  },
  {
    name: 'expand pvc in pending state',
    oldObj: claim({ request: '1Gi', className: 'silver', capacity: '0Gi', phase: 'Pending' }),
    newObj: claim({ request: '2Gi', className: 'silver', capacity: '0Gi', phase: 'Pending' }),
    error: messages.notBound,
  },
];

for (const tc of cases) {
  test(`TestPVCResizeAdmission/${tc.name}`, async () => {
    const a = attrs(tc.newObj, { resource: resources.persistentvolumeclaims, operation: 'UPDATE', oldObject: tc.oldObj });
    const run = create().validate(a, fakeLookup({ storageClasses: [goldClass, silverClass] }));
    if (tc.error === undefined) await run;
    else await assert.rejects(run, (e: Error) => e.message === `persistentvolumeclaims "foo" is forbidden: ${tc.error}`);
  });
}

test('the class must be the same before and after the resize', async () => {
  const a = attrs(claim({ request: '2Gi', className: 'gold', capacity: '1Gi', phase: 'Bound' }), {
    resource: resources.persistentvolumeclaims,
    operation: 'UPDATE',
    oldObject: claim({ request: '1Gi', className: 'silver', capacity: '1Gi', phase: 'Bound' }),
  });
  await assert.rejects(create().validate(a, fakeLookup({ storageClasses: [goldClass, silverClass] })), (e: Error) => e.message.endsWith(messages.notExpandable));
});

test('the status subresource is not checked', async () => {
  const a = attrs(claim({ request: '2Gi', capacity: '2Gi', phase: 'Pending' }), {
    resource: resources.persistentvolumeclaims,
    operation: 'UPDATE',
    subresource: 'status',
    oldObject: claim({ request: '1Gi', capacity: '1Gi', phase: 'Pending' }),
  });
  await create().validate(a, fakeLookup());
});
