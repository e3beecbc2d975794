import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { ApiError } from '../../api/errors.js';
import { resources } from '../../api/resources.js';
import { attrs, fakeLookup } from '../_testing.js';
import type { AdmissionLookup, AdmissionOperation } from '../types.js';
import { getDefaultClass } from '../../api/pv-helpers.js';
import { create } from './default-storage-class.js';

// plugin/pkg/admission/storage/storageclass/setdefault/admission_test.go (TestAdmission), v1.32.

const sc = (name: string, o: { annotation?: string; created?: string; provisioner?: string } = {}): StorageClass => ({
  kind: 'StorageClass',
  metadata: {
    name,
    ...(o.created !== undefined ? { creationTimestamp: o.created } : {}),
    ...(o.annotation !== undefined ? { annotations: { 'storageclass.kubernetes.io/is-default-class': o.annotation } } : {}),
  },
  provisioner: o.provisioner ?? '',
});

const defaultClass1 = sc('default1', { annotation: 'true', provisioner: 'default1' });
const defaultClass2 = sc('default2', { annotation: 'true', provisioner: 'default2' });
// Class that has explicit default = false
const classWithFalseDefault = sc('nondefault1', { annotation: 'false', provisioner: 'nondefault1' });
// Class with missing default annotation (=non-default)
const classWithNoDefault = sc('nondefault2', { provisioner: 'nondefault1' });
// Class with empty default annotation (=non-default)
const classWithEmptyDefault = sc('nondefault2', { annotation: '', provisioner: 'nondefault1' });
const classWithCreateTime1 = sc('default1', { annotation: 'true', created: '2022-01-01T00:00:00.000000001Z' });
const classWithCreateTime2 = sc('default2', { annotation: 'true', created: '2022-01-01T00:00:00Z' });

const claimWithClass: PersistentVolumeClaim = { kind: 'PersistentVolumeClaim', metadata: { name: 'claimWithClass', namespace: 'ns' }, spec: { storageClassName: 'foo' } };
const claimWithEmptyClass: PersistentVolumeClaim = { kind: 'PersistentVolumeClaim', metadata: { name: 'claimWithEmptyClass', namespace: 'ns' }, spec: { storageClassName: '' } };
const claimWithNoClass: PersistentVolumeClaim = { kind: 'PersistentVolumeClaim', metadata: { name: 'claimWithNoClass', namespace: 'ns' } };

const nonDefaults = [classWithFalseDefault, classWithNoDefault, classWithEmptyDefault];

const cases: { name: string; classes: StorageClass[]; claim: PersistentVolumeClaim; expectError: boolean; expectedClassName: string }[] = [
  { name: 'no default, no modification of PVCs', classes: nonDefaults, claim: claimWithNoClass, expectError: false, expectedClassName: '' },
  { name: 'one default, modify PVC with class=nil', classes: [defaultClass1, ...nonDefaults], claim: claimWithNoClass, expectError: false, expectedClassName: 'default1' },
  { name: "one default, no modification of PVC with class=''", classes: [defaultClass1, ...nonDefaults], claim: claimWithEmptyClass, expectError: false, expectedClassName: '' },
  { name: "one default, no modification of PVC with class='foo'", classes: [defaultClass1, ...nonDefaults], claim: claimWithClass, expectError: false, expectedClassName: 'foo' },
  { name: "two defaults, no modification of PVC with class=''", classes: [defaultClass1, defaultClass2, ...nonDefaults], claim: claimWithEmptyClass, expectError: false, expectedClassName: '' },
  { name: "two defaults, no modification of PVC with class='foo'", classes: [defaultClass1, defaultClass2, ...nonDefaults], claim: claimWithClass, expectError: false, expectedClassName: 'foo' },
  { name: 'two defaults with same creation time, choose the one with smaller name', classes: [defaultClass1, defaultClass2, ...nonDefaults], claim: claimWithNoClass, expectError: false, expectedClassName: 'default1' },
  { name: 'two defaults, choose the one with newer creation time', classes: [classWithCreateTime1, classWithCreateTime2, ...nonDefaults], claim: claimWithNoClass, expectError: false, expectedClassName: 'default1' },
];

for (const tc of cases) {
  test(`TestAdmission/${tc.name}`, async () => {
    // clone the claim, it's going to be modified
    const claim = structuredClone(tc.claim);
    const lookup = fakeLookup({ storageClasses: tc.classes });
    const a = attrs(claim, { resource: resources.persistentvolumeclaims });
    // admissiontesting.WithReinvocationTesting: a second pass must change nothing.
    const plugin = create();
    let err: unknown;
    try {
      await plugin.admit(a, lookup);
      const once = structuredClone(claim);
      await plugin.admit(a, lookup);
      assert.deepEqual(claim, once, 'reinvocation changed the claim');
    } catch (e) {
      err = e;
    }
    assert.equal(err !== undefined, tc.expectError, `error: ${String(err)}`);
    assert.equal(claim.spec?.storageClassName ?? '', tc.expectedClassName);
  });
}

test('the newer default wins whatever the list order, across whole seconds too', () => {
  const older = sc('a-older', { annotation: 'true', created: '2024-05-01T10:00:00Z' });
  const newer = sc('z-newer', { annotation: 'true', created: '2024-05-01T10:00:01Z' });
  assert.equal(getDefaultClass([older, newer])?.metadata?.name, 'z-newer');
  assert.equal(getDefaultClass([newer, older])?.metadata?.name, 'z-newer');
  assert.equal(getDefaultClass([classWithCreateTime2, classWithCreateTime1])?.metadata?.name, 'default1');
});

test('the beta annotation marks a default class too; other values than "true" do not', () => {
  const beta: StorageClass = { metadata: { name: 'beta', annotations: { 'storageclass.beta.kubernetes.io/is-default-class': 'true' } }, provisioner: 'p' };
  const yes: StorageClass = { metadata: { name: 'yes', annotations: { 'storageclass.kubernetes.io/is-default-class': 'True' } }, provisioner: 'p' };
  assert.equal(getDefaultClass([beta, yes])?.metadata?.name, 'beta');
  assert.equal(getDefaultClass([yes]), undefined);
});

test('a claim with the beta storage-class annotation has a class and is left alone', async () => {
  const claim: PersistentVolumeClaim = { metadata: { name: 'c', namespace: 'ns', annotations: { 'volume.beta.kubernetes.io/storage-class': 'gold' } }, spec: {} };
  await create().admit(attrs(claim, { resource: resources.persistentvolumeclaims }), fakeLookup({ storageClasses: [defaultClass1] }));
  assert.equal(claim.spec?.storageClassName, undefined);
});

test('only CREATE of the claim itself is defaulted', async () => {
  const lookup = fakeLookup({ storageClasses: [defaultClass1] });
  const ops: { operation: AdmissionOperation; subresource: string }[] = [
    { operation: 'UPDATE', subresource: '' },
    { operation: 'CREATE', subresource: 'status' },
  ];
  for (const o of ops) {
    const claim = structuredClone(claimWithNoClass);
    await create().admit(attrs(claim, { resource: resources.persistentvolumeclaims, ...o }), lookup);
    assert.equal(claim.spec?.storageClassName, undefined, `${o.operation} ${o.subresource}`);
  }
});

test('a failed StorageClass list refuses the claim as Forbidden', async () => {
  const lookup: AdmissionLookup = { ...fakeLookup(), listStorageClasses: () => Promise.reject(new Error('boom')) };
  await assert.rejects(
    create().admit(attrs(structuredClone(claimWithNoClass), { resource: resources.persistentvolumeclaims }), lookup),
    (e: unknown) => e instanceof ApiError && e.code === 403 && e.message === 'persistentvolumeclaims "claimWithNoClass" is forbidden: boom',
  );
});
